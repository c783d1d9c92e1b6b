"""`llm-planner bench model` (llm_planner_eval/bench/model.py): prints sizes and figures, writes JSON.
Speed itself is measured by the command, never asserted in a test."""
from __future__ import annotations

import json

import pytest

from llm_planner import cli


def test_bench_model_prints_sizes_and_every_operation(tmp_path, capsys):
    out = tmp_path / "model.json"
    assert cli.main(["bench", "model", "--scene", "apartment_unseen", "--pairs", "300", "--repeats", "2",
                     "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "scene apartment_unseen: rooms 4, furniture 17, containers 6, object_types 30, objects 38" in printed
    for operation in ("step (G", "legal_actions", "observe", "transition", "why_not", "satisfied", "rollout step"):
        assert operation in printed
    data = json.loads(out.read_text())
    assert data["benchmark"] == "model" and data["config"]["pairs"] == 300
    step = data["rows"][0]
    assert step["split"] == "apartment_unseen" and step["per_second"] > 0 and step["calls"] == 300


def test_bench_model_refuses_bad_sizes(capsys):
    assert cli.main(["bench", "model", "--pairs", "0"]) == 1
    assert "must be positive" in capsys.readouterr().err


def test_bench_model_with_markdown_prints_a_markdown_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "model", "--pairs", "50", "--repeats", "1", "--markdown"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines.index("| operation | µs per call | calls per second |")
    assert lines[header - 1] == "" and lines[header - 2].startswith("symbolic model speed, scene apartment_seen")
    assert lines[header + 1] == "| --- | ---: | ---: |"
    rows = lines[header + 2:header + 9]
    assert all(row.startswith("| ") and row.endswith(" |") and row.count(" | ") == 2 for row in rows), rows
    assert any(row.startswith("| legal_actions | ") for row in rows)
