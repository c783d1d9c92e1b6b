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
    "launch",      # llm-planner launch [NAME]           (ROS graph, own launcher)
    "plan",        # llm-planner plan "DIRECTIVE"        (rclpy client of plan_task / execute_directive)
    "cancel",      # llm-planner cancel [TASK_ID]        (cancel_task)
    "status",      # llm-planner status                  (watch /task_status)
    "say",         # llm-planner say "DIRECTIVE"         (publish on the voice topic)
    "answer",      # llm-planner answer TEXT [--task ID] (answer the asking task's question: answer_task)
    "demo",        # llm-planner demo ["DIRECTIVE"]      (launch + plan + execute + report)
    "translate",   # llm-planner translate "DIRECTIVE"   (goal translation)
    "serve",       # llm-planner serve                   (OpenAI-compatible server of the offline backend)
    "build_prior", # llm-planner build-prior             (LLM-MCTS prior belief)
    "dataset",     # llm-planner dataset household       (expert data D)
    "snapshot",    # llm-planner snapshot                (labelled pictures of a scene or an episode)
    "scene",       # llm-planner scene check FILE        (what is wrong with a scene file, with a picture)
    "plot",        # llm-planner plot FILE.json          (redraw a benchmark's plot)
    "train",       # llm-planner train saycanpay         (SayCanPay Can and Pay models)
    "bench",       # llm-planner bench household|gtamp|nl2pddl|saycanpay|model
)


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
