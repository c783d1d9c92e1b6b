"""``llm-planner``: the command line of the package.

Each sub-command lives in its own module under ``llm_planner/commands/`` and exposes
``register(subparsers)``; the module keeps its heavy imports inside the function it runs, so
``llm-planner --help`` stays fast.
"""
from __future__ import annotations

import argparse
import sys

from llm_planner.commands import register_modules
from llm_planner.errors import LlmPlannerError

#: Sub-command modules, in the order --help lists them.
COMMAND_MODULES = (
    "llm_planner_ros.commands.launch",
    "llm_planner_ros.commands.plan",
    "llm_planner_ros.commands.cancel",
    "llm_planner_ros.commands.status",
    "llm_planner_ros.commands.say",
    "llm_planner_ros.commands.answer",
    "llm_planner_ros.commands.demo",
    "llm_planner.commands.translate",
    "llm_planner_eval.commands.serve",
    "llm_planner_eval.commands.build_prior",
    "llm_planner_eval.commands.dataset",
    "llm_planner_ros.commands.snapshot",
    "llm_planner.commands.scene",
    "llm_planner_eval.commands.plot",
    "llm_planner.commands.train",
    "llm_planner_eval.commands.bench",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llm-planner",
        description="Robot task planning with language models: run the ROS 2 graph, plan directives, "
        "build data, and run the benchmarks that reproduce the papers' tables.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register_modules(sub, COMMAND_MODULES)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except LlmPlannerError as exc:
        print(f"llm-planner {args.command}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"llm-planner {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
