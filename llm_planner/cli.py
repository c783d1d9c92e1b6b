"""``llm-planner``: the command line of the three packages.

Each sub-command lives in its own module of the package it belongs to (the core's in
``llm_planner/commands/``, the ROS layer's and evaluation's in theirs), registered as an entry point
of the group :data:`COMMAND_GROUP` in ``setup.py``, and exposes ``register(subparsers)``; the module
keeps its heavy imports inside the function it runs, so ``llm-planner --help`` stays fast. The core
names no command of the other two packages.
"""
from __future__ import annotations

import argparse
import faulthandler
import io
import signal
import sys
from importlib.metadata import entry_points

from llm_planner.commands import register_modules
from llm_planner.errors import ConfigError, LlmPlannerError

#: The entry-point group of the sub-commands: each package registers its own in setup.py
#: (``name = module``); a module exposes ``register(subparsers)``.
COMMAND_GROUP = "llm_planner.commands"
#: The order --help lists the commands in, by entry-point name (others follow, by name).
HELP_ORDER = ("launch", "plan", "cancel", "status", "say", "answer", "web", "voice", "demo", "translate", "serve",
              "build_prior", "dataset", "snapshot", "mcp", "scene", "plot", "train", "bench")


def command_modules() -> list[str]:
    """The modules of every installed sub-command in --help order; ConfigError when none is installed."""
    found = {ep.name: ep.value for ep in entry_points(group=COMMAND_GROUP)}
    if not found:
        raise ConfigError(f"no llm-planner command is installed (entry points '{COMMAND_GROUP}'); install the "
                          "package (bash scripts/setup.sh, or pip install -e .)")
    rank = {name: i for i, name in enumerate(HELP_ORDER)}
    return [found[name] for name in sorted(found, key=lambda n: (rank.get(n, len(rank)), n))]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="llm-planner",
        description="Robot task planning with language models: run the ROS 2 graph, plan directives, "
        "build data, and run the benchmarks that reproduce the papers' tables.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    register_modules(sub, tuple(command_modules()))
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 PID` prints where a command hangs
    except (io.UnsupportedOperation, ValueError):
        pass  # called in a process whose stderr is no file (a test capturing it): no stacks to print there
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
