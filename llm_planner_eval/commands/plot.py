"""``llm-planner plot FILE.json``: redraw the plot of saved benchmark results.

Every ``llm-planner bench ... --json FILE`` writes FILE and its plot next to it (FILE with
``.png``); this command draws the plot again from the JSON alone, e.g. after copying results
from another machine: success rate by suite or problem and method with standard-error bars,
then the benchmark's cost figures (seconds and LLM requests per decision, planning time, ...).
Several ``--error-rates`` runs of one benchmark (``llm-planner plot A.json B.json``, e.g. one per
``--serve-error-profile``) are drawn as one PNG of their curves, a line style per run.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from llm_planner_eval.bench.error_rates import plot_profiles


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plot", help="redraw the plot of benchmark results (bench --json FILE)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", type=Path, nargs="+",
                   help="a results file written by llm-planner bench ... --json FILE; several --error-rates runs of "
                   "one benchmark (e.g. one per --serve-error-profile) are drawn into one PNG of their curves")
    p.add_argument("--out", type=Path, default=None, help="PNG to write (default: the first FILE with .png, or "
                   ".error_profiles.png for several)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_eval.plots import plot_file

    if len(args.file) > 1:
        path = plot_profiles(args.file, args.out or str(args.file[0]).removesuffix(".json") + ".error_profiles.png")
    else:
        path = plot_file(args.file[0], args.out)
    print(f"wrote {path}")
    return 0
