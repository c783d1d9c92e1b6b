"""``llm-planner bench NAME``: the benchmarks. Each lives in ``llm_planner_eval/bench/<name>.py`` and
exposes ``register(subparsers)``; every one takes ``--markdown`` (its tables as Markdown tables, the
form of the documentation site's results pages)."""
from __future__ import annotations

import argparse
from collections.abc import Callable

from llm_planner.commands import register_modules
from llm_planner_eval.bench.report import table_style

BENCHMARKS = ("model", "household", "gtamp", "nl2pddl", "saycanpay", "translate", "answers", "voice")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bench", help="run a benchmark that reproduces a paper's table",
                            description="Benchmarks print a paper-style table (mean ± standard error) "
                            "naming the backend and sizes; --json FILE writes per-episode records.")
    benchmarks = parser.add_subparsers(dest="benchmark", metavar="BENCHMARK")
    register_modules(benchmarks, tuple(f"llm_planner_eval.bench.{name}" for name in BENCHMARKS))
    for bench in benchmarks.choices.values():
        bench.add_argument("--markdown", action="store_true",
                           help="print the tables as Markdown tables (title above, numbers aligned right), as "
                                "the documentation's results pages show them")
        bench.set_defaults(func=_in_table_style(bench.get_default("func")))
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _in_table_style(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``run`` with every table it prints in the style ``--markdown`` asks for."""
    def run_in_style(args: argparse.Namespace) -> int:
        with table_style("markdown" if args.markdown else "text"):
            return run(args)
    return run_in_style
