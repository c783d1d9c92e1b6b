"""``bench household --error-rates`` and ``--serve-error-rate``: the grid is checked before
anything starts, each method runs against a served model per rate, the table and the PNG show
success against the rate, and the JSON rows carry ``error_rate``."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from llm_planner_eval.bench.error_rates import error_rates_of
from llm_planner_eval.bench.household_tables import format_error_rate_table, plot_error_rates
from llm_planner_eval.bench.method_spec import MethodSpec
from llm_planner_eval.bench.report import BenchReport
from llm_planner.errors import ConfigError


def test_rates_are_checked_before_anything_starts(capsys: pytest.CaptureFixture) -> None:
    from llm_planner.cli import main

    assert error_rates_of("0, 0.2,0.4") == [0.0, 0.2, 0.4]
    for bad in ("0.2,0.2", "0,1.5", "low", ""):
        with pytest.raises(ConfigError, match="distinct shares of wrong answers"):
            error_rates_of(bad)
    base = ["bench", "household", "--methods", "l_policy", "--suites", "simple", "--episodes", "1", "--seeds", "1"]
    for bad, message in ((["--error-rates", "0,2"], "distinct shares"),
                         (["--error-rates", "0,0.2", "--latencies", "0"], "exclude each other"),
                         (["--error-rates", "0,0.2", "--serve-error-rate", "0.1"], "exclude each other"),
                         (["--serve-error-rate", "1.2"], "must be in [0, 1]"),
                         (["--serve-error-rate", "0.2", "--serve-error-profile", "gpt5"], "profiles: admissible, smollm2")):
        assert main([*base, *bad]) == 1
        assert message in capsys.readouterr().err


def test_the_table_and_the_plot_show_success_against_the_rate(tmp_path: Path) -> None:
    methods = [MethodSpec(m, error_rate=p) for p in (0.0, 0.3) for m in ("llm_mcts", "l_policy")]
    assert methods[1].label == "l_policy P=0" and methods[3].label == "l_policy P=0.3"
    report = BenchReport("household", "openai", config={"seeds": 1, "episodes_per_seed": 4, "error_seed": 0})
    success = {("llm_mcts", 0.0): 1.0, ("l_policy", 0.0): 1.0, ("llm_mcts", 0.3): 0.75, ("l_policy", 0.3): 0.25}
    for spec in methods:
        report.add_row(spec.label, "simple", 4, success[(spec.planner, spec.error_rate)], 0.0,
                       error_rate=spec.error_rate, method_base=spec.base_label)
    table = format_error_rate_table(report, methods, ["simple"])
    assert "P=0.3" in table and "seed (GPT-3.5)" in table
    line = next(row for row in table.splitlines() if row.startswith("l_policy"))
    assert "100.0 ± 0.0" in line and "25.0 ± 0.0" in line and "83.4" in line  # the seed's GPT-3.5 policy on simple
    png = plot_error_rates(report, methods, ["simple"], str(tmp_path / "quality.png"))
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_one_png_draws_the_grids_of_two_error_profiles(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """``llm-planner plot A.json B.json``: the curves of each run, a method's in one colour, each
    profile in its line style, named ``method (profile)``; runs of two benchmarks are refused."""
    from matplotlib import pyplot

    from llm_planner_eval.bench.error_rates import plot_profiles
    from llm_planner.cli import main

    files = []
    for profile, low in (("admissible", 0.75), ("smollm2", 0.25)):
        rows = [{"method": f"{m} P={p:g}", "split": "simple", "episodes": 4, "method_base": m, "error_rate": p,
                 "success_rate": 1.0 if p == 0 else low, "stderr": 0.0} for m in ("llm_mcts", "uct") for p in (0, 0.8)]
        path = tmp_path / f"{profile}.json"
        path.write_text(json.dumps({"benchmark": "household", "config": {"error_profile": profile}, "rows": rows}))
        files.append(path)
    drawn = []
    original = pyplot.Axes.errorbar

    def spy(ax, xs, ys, **kwargs):
        drawn.append((kwargs["label"], kwargs["ls"], tuple(ys)))
        return original(ax, xs, ys, **kwargs)

    pyplot.Axes.errorbar = spy
    try:
        png = plot_profiles(files, tmp_path / "both.png")
    finally:
        pyplot.Axes.errorbar = original
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert {(label, ls) for label, ls, _ys in drawn} == {("llm_mcts (admissible)", "-"), ("uct (admissible)", "-"),
                                                         ("llm_mcts (smollm2)", "--"), ("uct (smollm2)", "--")}
    assert dict((label, ys) for label, _ls, ys in drawn)["uct (smollm2)"] == (100.0, 25.0)
    assert main(["plot", *map(str, files), "--out", str(tmp_path / "again.png")]) == 0
    assert (tmp_path / "again.png").is_file()
    other = tmp_path / "gtamp.json"
    other.write_text(json.dumps({"benchmark": "gtamp", "rows": []}))
    assert main(["plot", str(files[0]), str(other)]) == 1
    assert "one benchmark per PNG" in capsys.readouterr().err


@pytest.mark.slow
def test_bench_household_error_rate_grid_against_served_models(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    """Two rates, one method, one episode each: a served model per rate, rows with error_rate, the PNG;
    at rate 1 every policy answer is wrong and the served model says so in its counts."""
    from llm_planner.cli import main

    out = tmp_path / "quality.json"
    code = main(["bench", "household", "--error-rates", "0,1", "--methods", "l_policy", "--suites", "simple",
                 "--episodes", "1", "--seeds", "1", "--workers", "1", "--no-progress", "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "against the served model's share of wrong answers" in printed and "100% wrong answers" in printed
    assert "policy/" in printed  # the wrong answers served, by error kind
    data = json.loads(out.read_text())
    assert data["config"]["error_rates"] == [0.0, 1.0]
    assert {(r["method_base"], r["error_rate"]) for r in data["rows"]} == {("l_policy", 0.0), ("l_policy", 1.0)}
    assert next(r for r in data["rows"] if r["error_rate"] == 0.0)["success_rate"] == 1.0
    assert (tmp_path / "quality.error_rates.png").is_file()
