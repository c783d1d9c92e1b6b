"""Plots of benchmark results (the JSON every ``llm-planner bench ... --json FILE`` writes).

The first panel is the success rate (or the benchmark's main rate) by suite or problem and
method, with standard-error bars; the next panels are the cost figures that matter for that
benchmark (:data:`FIGURES`): seconds and LLM requests per decision for the household search,
planning time of successes for G-TAMP, cost-effectiveness and planning time for SayCanPay. Bars
of one split stand together, one colour per method. ``llm-planner plot FILE.json`` redraws.
"""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_planner.errors import ConfigError
from llm_planner.viz.topdown import DPI, new_figure, rgb_pixels, write_image

if TYPE_CHECKING:
    from matplotlib.axes import Axes

#: Per benchmark: (row key, stderr key or None, axis label, scale) of the panels after the first.
FIGURES: dict[str, list[tuple[str, str | None, str, float]]] = {
    "household": [("seconds_per_decision", None, "seconds per decision", 1.0),
                  ("llm_requests_per_decision", None, "LLM requests per decision", 1.0)],
    "gtamp": [("planning_time_s", "planning_time_stderr", "planning time of successes (s)", 1.0),
              ("llm_requests", None, "LLM requests per episode", 1.0)],
    "saycanpay": [("cost_effectiveness", "cost_effectiveness_stderr", "cost-effectiveness (%)", 100.0),
                  ("planning_time_s", None, "planning seconds per plan", 1.0)],
    "nl2pddl": [("accuracy", None, "goal accuracy (%)", 100.0)],
    "model": [("microseconds", "microseconds_stderr", "microseconds per call", 1.0)],
}
#: What the first panel's rate is called, per benchmark.
RATE_LABEL = {"nl2pddl": "consistency (%)", "saycanpay": "planning success (%)"}
#: Panel size (inches) and how wide one bar is.
PANEL_HEIGHT = 3.0
BAR_INCHES = 0.22
MIN_WIDTH = 7.0
MAX_WIDTH = 22.0


def plot_path(json_path: str | Path) -> Path:
    """Where the plot of a results file goes: next to it, ``.png``."""
    return Path(json_path).with_suffix(".png")


def plot_file(json_path: str | Path, out: str | Path | None = None) -> Path:
    """Read a results file and write its plot (default: :func:`plot_path`)."""
    try:
        data = json.loads(Path(json_path).read_text())
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{json_path}: not a readable benchmark results file ({exc})") from None
    return plot_results(data, out or plot_path(json_path))


def plot_results(data: Mapping[str, Any], path: str | Path) -> Path:
    """The plot of one benchmark's results (the DESIGN.md JSON layout) as a PNG."""

    rows = data.get("rows")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and "method" in r for r in rows):
        raise ConfigError("benchmark results need 'rows', each with a 'method' (the DESIGN.md format)")
    name = str(data.get("benchmark", "benchmark"))
    panels: list[tuple[str, str | None, str, float]] = []
    if any(_finite(r.get("success_rate")) for r in rows):
        panels.append(("success_rate", "stderr", RATE_LABEL.get(name, "success rate (%)"), 100.0))
    panels += [p for p in FIGURES.get(name, []) if any(_finite(r.get(p[0])) for r in rows)]
    if not panels:
        raise ConfigError(f"nothing to plot: the rows of '{name}' carry no success rate and no known figure")
    splits = list(dict.fromkeys(_split_of(r) for r in rows))
    methods = list(dict.fromkeys(str(r["method"]) for r in rows))
    width = min(max(MIN_WIDTH, BAR_INCHES * len(splits) * (len(methods) + 1) + 2.5), MAX_WIDTH)
    fig = new_figure(width, PANEL_HEIGHT * len(panels) + 0.9)
    colors = _colors(len(methods))
    backend = data.get("backend", "")
    fig.text(0.01, 1.0 - 0.12 / fig.get_size_inches()[1], f"{name} benchmark"
             + (f" (backend {backend})" if backend else ""),
             fontsize=10, ha="left", va="top", fontweight="bold")
    fig.text(0.01, 1.0 - 0.34 / fig.get_size_inches()[1], _sizes(data), fontsize=7.5, ha="left", va="top")
    top = 1.0 - 0.55 / fig.get_size_inches()[1]
    height = (top - 0.35 / fig.get_size_inches()[1]) / len(panels)
    for k, (key, err, label, scale) in enumerate(panels):
        ax = fig.add_axes((0.1, top - (k + 1) * height + 0.09 * height, 0.71, height * 0.78))
        _bars(ax, rows, splits, methods, colors, key, err, scale)
        ax.set_ylabel(label, fontsize=8)
        if key == "success_rate" and scale == 100.0:
            ax.set_ylim(0, 105)
        if k == 0:
            ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return write_image(path, rgb_pixels(fig))


def _bars(ax: Axes, rows: Sequence[Mapping[str, Any]], splits: Sequence[str], methods: Sequence[str],
          colors: Sequence[Any],
          key: str, err: str | None, scale: float) -> None:
    n = len(methods)
    bar = 0.8 / n
    values = []
    for j, method in enumerate(methods):
        xs, ys, es = [], [], []
        for i, split in enumerate(splits):
            row = next((r for r in rows if str(r["method"]) == method and _split_of(r) == split), None)
            if row is None or not _finite(row.get(key)):
                continue
            xs.append(i - 0.4 + bar * (j + 0.5))
            ys.append(float(row[key]) * scale)
            es.append(float(row.get(err) or 0.0) * scale if err and _finite(row.get(err)) else 0.0)
        values += ys
        for x, y in zip(xs, ys, strict=True):
            if y == 0.0:  # a bar of height 0 is a result, not a missing one
                ax.text(x, 0.0, "0", ha="center", va="bottom", fontsize=6, color=colors[j])
        if xs:
            ax.bar(xs, ys, bar * 0.92, yerr=es if any(es) else None, color=colors[j], label=method,
                   error_kw={"elinewidth": 0.8, "capsize": 1.5, "ecolor": (0.2, 0.2, 0.2)})
    ax.set_xticks(np.arange(len(splits)))
    ax.set_xticklabels(splits, fontsize=7, rotation=0 if len(splits) < 8 else 30, ha="center" if len(splits) < 8
                       else "right")
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > 200 and key != "success_rate":
        ax.set_yscale("log")


def _split_of(row: Mapping[str, Any]) -> str:
    """The x-axis group of a row: its split, prefixed by the apartment when the rows name one."""
    home = row.get("home")
    return f"{home}: {row.get('split')}" if home else str(row.get("split"))


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _sizes(data: Mapping[str, Any]) -> str:
    cfg = data.get("config") or {}
    parts = []
    if "seeds" in cfg and "episodes_per_seed" in cfg:
        parts.append(f"{cfg['seeds']} seeds x {cfg['episodes_per_seed']} episodes per bar")
    if "world" in cfg:
        parts.append(str(cfg["world"]))
    episodes = data.get("episodes")
    if isinstance(episodes, list) and episodes:
        parts.append(f"{len(episodes)} episodes")
    return ", ".join(parts)


def _colors(n: int) -> list[Any]:
    from matplotlib import colormaps  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    cmap = colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


__all__ = ["plot_results", "plot_file", "plot_path", "FIGURES", "DPI"]
