"""``llm-planner plot FILE.json``: redraw the plot of saved benchmark results.

Every ``llm-planner bench ... --json FILE`` writes FILE and its plot next to it (FILE with
``.png``); this command draws the plot again from the JSON alone, e.g. after copying results
from another machine: success rate by suite or problem and method with standard-error bars,
then the benchmark's cost figures (seconds and LLM requests per decision, planning time, ...).
"""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plot", help="redraw the plot of benchmark results (bench --json FILE)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, help="a results file written by llm-planner bench ... --json FILE")
    p.add_argument("--out", type=Path, default=None, help="PNG to write (default: FILE with .png)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.viz.plots import plot_file

    path = plot_file(args.file, args.out)
    print(f"wrote {path}")
    return 0
