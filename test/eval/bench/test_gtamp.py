"""``llm-planner bench gtamp``: options, the Table 2 layout, JSON rows."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from llm_planner_eval.bench.gtamp import build_report, register, render_tables


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    return parser


def _ep(method: str, problem: str, success: bool, t: float, seed: int = 0) -> dict:
    return {"problem": problem, "method": method, "seed": seed, "success": success, "planning_time_s": t,
            "llm_requests": 1, "mp_calls": 100, "steps": 6,
            "stop": "goal reached" if success else "time budget exhausted"}


def test_table_has_success_and_time_of_successes_per_method_and_problem() -> None:
    eps = [_ep("stalm", "P2", True, 2.0), _ep("stalm", "P2", True, 4.0, 1), _ep("uct", "P2", False, 30.0)]
    report = build_report(eps, ["P2"], ["stalm", "uct"], {"backend": "offline", "budgets_s": {"P2": 30.0}})
    text = render_tables(report)
    assert "backend: offline" in text and "1.00 ± 0.00" in text and "3.0 ± 1.0" in text
    rows = {r["method"]: r for r in report.rows}
    assert rows["uct"]["success_rate"] == 0.0 and rows["stalm"]["planning_time_s"] == 3.0


def test_a_tiny_benchmark_run_writes_the_design_json(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "gtamp.json"
    args = _parser().parse_args(["gtamp", "--problems", "P2", "--methods", "stalm", "--trials", "1",
                                 "--budget", "P2=60", "--json", str(out)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "[1/1] P2 stalm seed=0: success" in printed and "backend: offline" in printed
    data = json.loads(out.read_text())
    assert data["benchmark"] == "gtamp" and data["backend"] == "offline"
    assert data["rows"][0]["success_rate"] == 1.0 and data["episodes"][0]["plan"]


def test_bad_options_are_refused(capsys: pytest.CaptureFixture) -> None:
    args = _parser().parse_args(["gtamp", "--methods", "stalm,teleport"])
    assert args.func(args) == 2 and "teleport" in capsys.readouterr().err
    args = _parser().parse_args(["gtamp", "--problems", "P2", "--budget", "P9=3"])
    assert args.func(args) == 2


@pytest.mark.slow
def test_error_rate_grid_asks_a_served_model_per_rate_and_matches_offline_at_rate_0(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """``--error-rates 0,1``: a served model per rate, asked over HTTP for the plans; the
    rows carry error_rate; the PNG is written; at rate 0 the episode succeeds as the offline one, with
    as many plans asked (the served stand-in may word a place differently: table2 for side_table), at
    rate 1 every plan is wrong and STaLM without UCT cannot repair them on P2."""
    offline = tmp_path / "offline.json"
    base = ["gtamp", "--problems", "P2", "--methods", "stalm_no_uct", "--trials", "1", "--budget", "P2=20"]
    args = _parser().parse_args([*base, "--json", str(offline)])
    assert args.func(args) == 0
    grid = tmp_path / "grid.json"
    args = _parser().parse_args([*base, "--error-rates", "0,1", "--json", str(grid)])
    assert args.func(args) == 0
    printed = capsys.readouterr().out
    assert "model-quality grid: error rates 0,1" in printed and "task_plans/" in printed  # wrong plans were served
    data = json.loads(grid.read_text())
    assert data["backend"] == "openai" and data["config"]["error_rates"] == [0.0, 1.0]
    rows = {r["error_rate"]: r for r in data["rows"]}
    assert set(rows) == {0.0, 1.0} and {r["method_base"] for r in rows.values()} == {"stalm_no_uct"}
    assert rows[0.0]["success_rate"] == 1.0 and rows[1.0]["success_rate"] == 0.0
    reference = json.loads(offline.read_text())["episodes"][0]
    at_0 = next(e for e in data["episodes"] if e["error_rate"] == 0.0)
    assert (at_0["success"], at_0["replans"], len(at_0["plan"])) == (reference["success"], reference["replans"],
                                                                      len(reference["plan"]))
    png = tmp_path / "grid.error_rates.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "seed (GPT-4)" in printed and "100.0" in printed  # STaLM w/o UCT on P2 in the seed's Table 3
