"""The model-quality grid of every benchmark: ``bench household|gtamp|saycanpay|nl2pddl
--error-rates 0,0.2,0.4,0.6``.

Each seed's central claim is about an imperfect language model (LLM-MCTS: search corrects the
model's policy; STaLM: warm-started UCT repairs wrong plans; SayCanPay: Can and Pay correct Say;
Levy-Karpas: validation with B tries recovers from wrong top predictions). For each rate a served
model that answers wrongly at that rate is started (``llm-planner serve --error-rate P``, the way
the seeds report models are wrong: ``llm_planner_eval/stand_in/wrong_answers.py``; one server per rate, each with
a fresh answer cache, by :func:`llm_planner_eval.bench.serving.serve_for_bench`), every method of the
benchmark runs against each with the ``openai`` backend, and the success of each method is drawn
against the rate: one line per method, one panel per split (or measure), the seed's own figure of a
method as a dotted level in its colour (``seed_marks`` of ``config/serve_errors.yaml``; the seeds'
models have no known error rate, so their figures are levels, not points).

This module holds what the benchmarks share: the options (:func:`add_error_rate_arguments`), the
servers (:func:`served_models`), the labels of the grid's rows (:func:`grid_label`), the table and
the PNG (:class:`Curves`, :func:`format_error_rate_table`, :func:`plot_error_rates`).
"""
from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from llm_planner.errors import ConfigError
from llm_planner_eval.bench.report import fmt_pm, format_table
from llm_planner_eval.bench.serving import add_serve_arguments, error_profile, serve_for_bench
from llm_planner_eval.stand_in.wrong_answers import seed_marks

#: (rate, value in [0, 1], its standard error): one point of a curve.
Point = tuple[float, float, float]


# ------------------------------------------------------------------------------------ options
def add_error_rate_arguments(parser: argparse.ArgumentParser, bench: str) -> None:
    """``--serve-style``, ``--serve-error-rate`` ... (:mod:`bench.serving`) and ``--error-rates``."""
    add_serve_arguments(parser)
    parser.add_argument("--error-rates", default=None, metavar="P,P,...",
                        help="model-quality grid: start llm-planner serve answering wrongly at each rate "
                             "(--error-rate; error seed --serve-error-seed) and run every method against each, side by "
                             "side; prints success against the error rate and draws it (FILE.error_rates.png next to "
                             f"--json FILE, else {bench}_error_rates.png); e.g. 0,0.2,0.4,0.6")


def error_rates_of(text: str) -> list[float]:
    """``0,0.2,0.4`` -> rates; ConfigError for anything but distinct numbers in [0, 1]."""
    try:
        rates = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        rates = []
    if not rates or any(not 0.0 <= x <= 1.0 for x in rates) or len(set(rates)) != len(rates):
        raise ConfigError(f"--error-rates '{text}': give distinct shares of wrong answers in [0, 1], "
                          "e.g. 0,0.2,0.4,0.6")
    return rates


def served_models(args: argparse.Namespace, llm_overrides: dict[str, Any],
                  backend: str) -> tuple[dict[float | None, dict[str, Any]], str]:
    """The served models of a run and the backend to ask them with. ``--error-rates``: one per rate
    (style ``--serve-style``, default plain), keyed by the rate; else the one of ``--serve-style`` /
    ``--serve-error-rate`` (key None), or none (``{}``: the arguments' backend unchanged). Each is
    started by :func:`serve_for_bench` and stopped with the run (``stop_served_models``)."""
    if not getattr(args, "error_rates", None):
        overrides, backend = serve_for_bench(args, llm_overrides, backend)
        return ({None: overrides} if args.serve_style else {}), backend
    rates = error_rates_of(args.error_rates)
    if getattr(args, "latencies", None):
        raise ConfigError("--error-rates and --latencies exclude each other: run one grid at a time")
    if args.serve_error_rate:
        raise ConfigError("--error-rates and --serve-error-rate exclude each other (the grid sets each server's rate)")
    served: dict[float | None, dict[str, Any]] = {}
    for rate in rates:
        one = argparse.Namespace(**{**vars(args), "serve_style": args.serve_style or "plain", "serve_error_rate": rate})
        served[rate], backend = serve_for_bench(one, llm_overrides, backend)
    return served, backend


def served_rate(args: argparse.Namespace, key: float | None) -> float | None:
    """The share of wrong answers of the served model ``key`` (None: no served model)."""
    if key is not None:
        return key
    return float(args.serve_error_rate or 0.0) if getattr(args, "serve_style", None) else None


def for_method(overrides: Mapping[str, Any], method: str) -> dict[str, Any]:
    """A served model's overrides with ``#method`` in the model id, which keys the answer cache: no
    method is served answers another one paid for (the wrong draws do not depend on it)."""
    openai = dict(overrides.get("openai", {}))
    openai["model"] = f"{openai.get('model', 'served')}#{method}"
    return {**overrides, "openai": openai}


def grid_label(method: str, rate: float | None) -> str:
    """The row label of a method against the served model of ``rate`` in a grid (``stalm P=0.2``)."""
    return method if rate is None else f"{method} P={rate:g}"


def png_path(json_path: str | None, bench: str) -> str:
    """Where the grid's PNG goes: ``FILE.error_rates.png`` next to ``--json FILE``, else in the cwd."""
    return str(json_path).removesuffix(".json") + ".error_rates.png" if json_path else f"{bench}_error_rates.png"


def grid_header(args: argparse.Namespace, served: Mapping[float | None, Any]) -> str:
    """What a run's header says about its served models (empty without one)."""
    if not served:
        return ""
    rates = [k for k in served if k is not None]
    style = args.serve_style or "plain"
    profile = error_profile(args)
    if rates:
        return (f"model-quality grid: error rates {','.join(f'{r:g}' for r in rates)} (one llm-planner serve per rate, "
                f"style {style}, error seed {args.serve_error_seed}, error profile {profile}; every method against "
                "each, openai backend)")
    return (f"served model: llm-planner serve, style {style}, error rate {float(args.serve_error_rate or 0):g}, "
            f"error seed {args.serve_error_seed}, error profile {profile} (openai backend)")


# ------------------------------------------------------------------------------------ curves
@dataclass
class Curves:
    """Success against the error rate: per method (a line) and panel (a split or a measure) the
    points (rate, value, stderr), values in [0, 1], in the order they were added."""

    points: dict[str, dict[str, list[Point]]] = field(default_factory=dict)

    def add(self, method: str, panel: str, rate: float, value: float, stderr: float) -> None:
        self.points.setdefault(method, {}).setdefault(panel, []).append((float(rate), float(value), float(stderr)))

    @classmethod
    def from_rows(cls, rows: Sequence[Mapping[str, Any]], value: str = "success_rate", err: str | None = "stderr",
                  panel: str | None = None) -> Curves:
        """The curves of a report's grid rows (those with ``error_rate`` and ``method_base``): one per
        ``method_base``, its panel the row's split (or ``panel``)."""
        curves = cls()
        for row in rows:
            if row.get("error_rate") is None or "method_base" not in row or row.get(value) is None:
                continue
            curves.add(str(row["method_base"]), panel or str(row["split"]), float(row["error_rate"]),
                       float(row[value]), float(row.get(err, 0.0) or 0.0) if err else 0.0)
        return curves

    @property
    def rates(self) -> list[float]:
        return list(dict.fromkeys(p[0] for panels in self.points.values() for pts in panels.values() for p in pts))

    @property
    def panels(self) -> list[str]:
        return list(dict.fromkeys(panel for panels in self.points.values() for panel in panels))


def format_error_rate_table(curves: Curves, rates: Sequence[float], marks: Mapping[tuple[str, str], float],
                            title: str, seed_column: str, panel_column: str = "suite") -> str:
    """Per method and panel the value (%) at each rate, ± its standard error, and the seed's figure."""

    body = []
    for method, per_panel in curves.points.items():
        for panel, points in per_panel.items():
            at = {rate: (mean, err) for rate, mean, err in points}
            seed = marks.get((method, panel))
            body.append([method, panel, *[fmt_pm(*at[r], 100.0) if r in at else "-" for r in rates],
                         "-" if seed is None else f"{seed:.1f}"])
    return format_table(["method", panel_column, *[f"P={r:g}" for r in rates], seed_column], body, title=title,
                        keys=2)


def plot_error_rates(curves: Curves, panels: Sequence[str], marks: Mapping[tuple[str, str], float], path: str,
                     title: str, subtitle: str, ylabel: str = "success (%)",
                     panel_titles: Mapping[str, str] | None = None,
                     lines: Mapping[str, tuple[str, str]] | None = None) -> Path:
    """One PNG: per panel, the value (%) against the error rate, one line per method (stderr bars),
    the seed's figure of the method in that panel as a dotted level in its colour. ``lines`` gives a
    curve (colour group, line style): the curves of one method under several error profiles share
    the method's colour and differ in style (:func:`plot_profiles`)."""

    from llm_planner.viz.topdown import new_figure, rgb_pixels, write_image  # noqa: PLC0415 - CLI start-up: the drawing code only when a figure is drawn
    from llm_planner_eval.plots import _colors  # noqa: PLC0415 - CLI start-up: plots and viz.topdown only when a figure is drawn

    groups = list(dict.fromkeys((lines or {}).get(m, (m, "-"))[0] for m in curves.points))
    palette = dict(zip(groups, _colors(len(groups)), strict=True))
    colors = {m: palette[(lines or {}).get(m, (m, "-"))[0]] for m in curves.points}
    base = 3.2 * len(panels) + 2.4  # inches: the panels and a legend of short names
    extra = max(0.0, 0.06 * max((len(m) for m in curves.points), default=0) - 1.2)  # long names: a wider legend
    fig = new_figure(base + extra, 3.6)
    fig.text(0.01, 0.97, title, fontsize=9, fontweight="bold", va="top")
    fig.text(0.01, 0.91, subtitle, fontsize=7, va="top")
    width = 0.8 * base / (base + extra) / max(len(panels), 1)
    for k, panel in enumerate(panels):
        ax = fig.add_axes((0.06 + k * width, 0.14, width * 0.82, 0.68))
        for method, per_panel in curves.points.items():
            points = per_panel.get(panel, [])
            if not points:
                continue
            xs, ys, es = (np.array(v, dtype=float) for v in zip(*points, strict=True))
            ax.errorbar(xs, ys * 100, yerr=es * 100, marker="o", ms=3, lw=1.2, capsize=2, color=colors[method],
                        label=method, ls=(lines or {}).get(method, (method, "-"))[1])
            seed = marks.get((method, panel))
            if seed is not None:
                ax.axhline(seed, ls=":", lw=1.0, color=colors[method])
        ax.set_title((panel_titles or {}).get(panel, panel), fontsize=8)
        ax.set_ylim(-3, 105)
        ax.set_xlabel("share of wrong answers P", fontsize=7)
        if k == 0:
            ax.set_ylabel(ylabel, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    if curves.points and fig.axes:
        fig.axes[-1].legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7, frameon=False)
    return write_image(path, rgb_pixels(fig))


def seed_levels(benchmark: str) -> dict[tuple[str, str], float]:
    """The seed's figures (%) of ``benchmark`` (``seed_marks`` in ``config/serve_errors.yaml``),
    keyed (method, panel)."""

    return {(str(method), str(panel)): value for method, panels in seed_marks(benchmark).items()
            for panel, value in panels.items()}


#: Line styles of the error profiles in one PNG, in the order the files are given.
PROFILE_STYLES = ("-", "--", "-.")


def plot_profiles(files: Sequence[str | Path], path: str | Path) -> Path:
    """One PNG of several ``--error-rates`` runs of one benchmark, e.g. one per ``--serve-error-profile``:
    a method's curves share its colour, each run (its ``error_profile``) has its line style, and the
    legend names the method and the profile (``llm_mcts (smollm2)``)."""

    curves, lines, names, bench, subtitles = Curves(), {}, [], "", []
    for k, file in enumerate(files):
        try:
            data = json.loads(Path(file).read_text())
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{file}: not a readable benchmark results file ({exc})") from None
        if bench and data.get("benchmark") != bench:
            raise ConfigError(f"{file}: results of '{data.get('benchmark')}', not '{bench}': one benchmark per PNG")
        bench = str(data.get("benchmark", ""))
        config = data.get("config") or {}
        profile = str(config.get("error_profile") or "admissible")
        names.append(profile)
        subtitles.append(f"{profile} {config.get('wall_s')} s")
        one = Curves.from_rows(data.get("rows") or [])
        if not one.points:
            raise ConfigError(f"{file}: no rows with error_rate and method_base (run the benchmark with --error-rates)")
        for method, per_panel in one.points.items():
            label = f"{method} ({profile})"
            lines[label] = (method, PROFILE_STYLES[k % len(PROFILE_STYLES)])
            for panel, points in per_panel.items():
                for rate, value, err in points:
                    curves.add(label, panel, rate, value, err)
    levels = seed_levels(bench)
    marks = {(label, panel): levels[(base, panel)] for label, (base, _style) in lines.items()
             for panel in curves.panels if (base, panel) in levels and label.endswith(f"({names[0]})")}
    return plot_error_rates(curves, curves.panels, marks, str(path),
                            f"{bench}: success against the error rate, error profiles {' and '.join(names)}",
                            "llm-planner serve --error-profile; wall " + ", ".join(subtitles)
                            + "; dotted: the seed's figure (its error rate unknown)", lines=lines)
