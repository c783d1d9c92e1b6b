"""``llm-planner``: the command line of the package.

Each sub-command lives in its own module under ``llm_planner/commands/`` and exposes
``register(subparsers)``; the module keeps its heavy imports inside the function it runs, so
``llm-planner --help`` stays fast.
"""
from __future__ import annotations

import argparse
import importlib
import sys

from llm_planner.errors import LlmPlannerError

#: Sub-command modules, in the order --help lists them. A missing module is skipped.
COMMAND_MODULES = (
    "launch",      # llm-planner launch [NAME]           (ROS graph, own launcher)
    "plan",        # llm-planner plan "DIRECTIVE"        (rclpy client of /plan_task)
    "status",      # llm-planner status                  (watch /task_status)
    "say",         # llm-planner say "DIRECTIVE"         (publish on the voice topic)
    "demo",        # llm-planner demo ["DIRECTIVE"]      (launch + plan + execute + report)
    "translate",   # llm-planner translate "DIRECTIVE"   (goal translation, issue 4)
    "serve",       # llm-planner serve                   (OpenAI-compatible server of the offline backend)
    "build_prior", # llm-planner build-prior             (LLM-MCTS prior belief, issue 4)
    "dataset",     # llm-planner dataset household       (expert data D, issue 3)
    "snapshot",    # llm-planner snapshot                (PNG of a scene, issue 3)
    "train",       # llm-planner train saycanpay         (issue 7)
    "bench",       # llm-planner bench household|gtamp|nl2pddl|saycanpay|model
)


def register_modules(sub: argparse._SubParsersAction, package: str, names: tuple[str, ...]) -> None:
    """Import ``package.<name>`` for each name and let it ``register(sub)``; absent modules are skipped."""
    for name in names:
        try:
            module = importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{package}.{name}":
                continue
            raise
        module.register(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llm-planner",
        description="Robot task planning with language models: run the ROS 2 graph, plan directives, "
        "build data, and run the benchmarks that reproduce the papers' tables.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register_modules(sub, "llm_planner.commands", COMMAND_MODULES)
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
