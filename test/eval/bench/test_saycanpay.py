"""``bench saycanpay --error-rates``: Say asked of a served model per rate over HTTP, the
rows carrying ``error_rate``, the PNG, and the plans at rate 0 those of the offline Say."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_planner.cli import main


@pytest.mark.slow
def test_error_rate_grid_asks_say_of_a_served_model_and_matches_offline_at_rate_0(tmp_path: Path,
                                                                                capsys: pytest.CaptureFixture) -> None:
    base = ["bench", "saycanpay", "--methods", "greedy_action:say", "--decoders", "oracle", "--splits", "test",
            "--n", "2", "--workers", "1", "--no-progress"]
    offline = tmp_path / "offline.json"
    assert main([*base, "--json", str(offline)]) == 0
    grid = tmp_path / "grid.json"
    assert main([*base, "--error-rates", "0,1", "--json", str(grid)]) == 0
    printed = capsys.readouterr().out
    assert "model-quality grid: error rates 0,1" in printed and "policy/" in printed  # wrong Say samples served
    assert "seed (Vicuna)" in printed
    data = json.loads(grid.read_text())
    assert data["backend"] == "openai" and data["config"]["error_rates"] == [0.0, 1.0]
    assert {(r["method_base"], r["error_rate"]) for r in data["rows"]} == {("greedy_action:say@oracle", 0.0),
                                                                         ("greedy_action:say@oracle", 1.0)}
    reference = {e["task_id"]: (e["success"], e["plan"]) for e in json.loads(offline.read_text())["episodes"]}
    at_0 = {e["task_id"]: (e["success"], e["plan"]) for e in data["episodes"] if e["error_rate"] == 0.0}
    assert at_0 == reference and all(ok for ok, _ in at_0.values())
    at_1 = [e for e in data["episodes"] if e["error_rate"] == 1.0]
    assert all(e["plan"] != reference[e["task_id"]][1] for e in at_1)  # every Say answer wrong: other plans
    png = tmp_path / "grid.error_rates.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_the_paper_decoder_plans_from_o0_over_http_as_offline_at_rate_0(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    """Say asked in the plan form (goal, o_0, planned actions; prompts/plan.txt) of a served model at
    error rate 0 plans what the offline Say plans."""
    base = ["bench", "saycanpay", "--methods", "greedy_action:say", "--splits", "test", "--n", "2", "--workers", "1",
            "--no-progress"]
    offline = tmp_path / "offline.json"
    assert main([*base, "--json", str(offline)]) == 0
    served = tmp_path / "served.json"
    assert main([*base, "--error-rates", "0", "--json", str(served)]) == 0
    assert "no form" not in capsys.readouterr().out  # the old note that the paper decoder fails over HTTP
    data = json.loads(served.read_text())
    assert data["backend"] == "openai" and {e["decoder"] for e in data["episodes"]} == {"paper"}
    reference = {e["task_id"]: (e["success"], e["plan"]) for e in json.loads(offline.read_text())["episodes"]}
    over_http = {e["task_id"]: (e["success"], e["plan"]) for e in data["episodes"]}
    assert over_http == reference and len(reference) == 2 and all(ok for ok, _ in over_http.values())


def test_help_shows_the_example_command_with_its_continuation_line(capsys):
    """The module docstring is the --help text: its example's ``\\`` and line break survive."""
    with pytest.raises(SystemExit):
        main(["bench", "saycanpay", "--help"])
    assert "--n 8 --methods \\\n        greedy_action:say," in capsys.readouterr().out
