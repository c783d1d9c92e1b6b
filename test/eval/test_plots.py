"""Benchmark plots: bench --json writes the PNG next to the JSON, plot redraws it; bars read back."""
from __future__ import annotations

import json

import numpy as np
import pytest

from llm_planner.cli import main
from llm_planner.errors import ConfigError
from llm_planner_eval.plots import plot_results
from test.viz.conftest import read_rgb

RESULTS = {"benchmark": "gtamp", "backend": "offline", "config": {},
           "rows": [{"method": "stalm", "split": "P1", "episodes": 3, "success_rate": 1.0, "stderr": 0.0,
                     "planning_time_s": 2.0, "planning_time_stderr": 0.5, "llm_requests": 1.0},
                    {"method": "uct", "split": "P1", "episodes": 3, "success_rate": 0.33, "stderr": 0.27,
                     "planning_time_s": 24.0, "planning_time_stderr": 3.0, "llm_requests": 0.0}],
           "episodes": []}


def test_plot_draws_a_bar_per_method_in_its_colour(tmp_path):
    from matplotlib import colormaps

    path = plot_results(RESULTS, tmp_path / "g.png")
    image = read_rgb(path)
    for i in range(2):  # both methods' bars (tab10 colours 0 and 1) are in the picture
        colour = np.array(colormaps["tab10"](i)[:3]) * 255
        assert ((np.abs(image - colour).max(axis=2) < 8).sum()) > 200
    with pytest.raises(ConfigError, match="need 'rows'"):
        plot_results({"benchmark": "x", "rows": []}, tmp_path / "none.png")


def test_bench_json_writes_the_plot_and_plot_redraws_it(tmp_path, capsys):
    results = tmp_path / "hh.json"
    assert main(["bench", "household", "--methods", "l_policy", "--suites", "simple", "--episodes", "1", "--seeds",
                 "1", "--workers", "1", "--no-progress", "--json", str(results)]) == 0
    assert f"plot: {tmp_path / 'hh.png'}" in capsys.readouterr().out
    first = read_rgb(tmp_path / "hh.png")
    assert main(["plot", str(results), "--out", str(tmp_path / "again.png")]) == 0
    assert np.array_equal(first, read_rgb(tmp_path / "again.png"))
    (tmp_path / "broken.json").write_text("{")
    assert main(["plot", str(tmp_path / "broken.json")]) == 1
    assert "not a readable benchmark results file" in capsys.readouterr().err
    assert json.loads(results.read_text())["rows"][0]["method"] == "l_policy"
