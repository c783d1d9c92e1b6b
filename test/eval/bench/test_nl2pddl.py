"""``bench nl2pddl --error-rates`` and ``--serve-style``: Phase I asked of a served model
per rate over HTTP, the rows carrying ``error_rate``, the PNG with top-1 against validation, and the
grid's rate 0 the run against a served model without wrong answers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_planner.cli import main


@pytest.mark.slow
def test_error_rate_grid_asks_a_served_model_per_rate(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    base = ["bench", "nl2pddl", "--splits", "test", "--n", "1", "--inputs", "directive", "--workers", "1",
            "--no-progress"]
    served = tmp_path / "served.json"
    assert main([*base, "--serve-style", "plain", "--json", str(served)]) == 0
    grid = tmp_path / "grid.json"
    assert main([*base, "--error-rates", "0,1", "--json", str(grid)]) == 0
    printed = capsys.readouterr().out
    assert "model-quality grid: error rates 0,1" in printed and "nl2pddl/" in printed  # wrong answers served
    assert "top-1 D" in printed and "B=5 D" in printed and "seed (T5)" in printed
    data = json.loads(grid.read_text())
    assert data["backend"] == "openai" and data["config"]["error_rates"] == [0.0, 1.0]
    assert {(r["method_base"], r["error_rate"]) for r in data["rows"]} == {("directive", 0.0), ("directive", 1.0)}
    single = json.loads(served.read_text())
    assert [r["error_rate"] for r in single["rows"]] == [0.0]  # a served model: its rows carry its rate too

    def outputs(episodes: list, rate: float | None = None) -> dict:
        return {e["sample_id"]: (e["goal"], e["template"], e["consistent"]) for e in episodes
                if rate is None or e["error_rate"] == rate}

    assert outputs(data["episodes"], 0.0) == outputs(single["episodes"])
    assert outputs(data["episodes"], 1.0) != outputs(single["episodes"])
    png = tmp_path / "grid.error_rates.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
