"""``llm-planner bench NAME``: the benchmarks. Each lives in ``llm_planner_eval/bench/<name>.py`` and
exposes ``register(subparsers)``."""
from __future__ import annotations

import argparse

BENCHMARKS = ("model", "household", "gtamp", "nl2pddl", "saycanpay", "translate", "answers", "voice")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("bench", help="run a benchmark that reproduces a paper's table",
                            description="Benchmarks print a paper-style table (mean ± standard error) "
                            "naming the backend and sizes; --json FILE writes per-episode records.")
    from llm_planner.commands import register_modules

    register_modules(parser.add_subparsers(dest="benchmark", metavar="BENCHMARK"),
                     tuple(f"llm_planner_eval.bench.{name}" for name in BENCHMARKS))
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
