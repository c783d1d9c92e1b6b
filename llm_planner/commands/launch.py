"""``llm-planner launch [NAME]``: start a launch file's node graph (stands in for ``ros2 launch``)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("launch", help="start the ROS 2 node graph (simulator, perception, planner, executor)",
                       description="Runs launch/NAME.launch.py: with the real ROS 2 launch system where it is "
                       "installed, else with llm_planner's own launcher. Ctrl-C stops every node cleanly.")
    p.add_argument("name", nargs="?", default=None, help="launch file name or path (default: llm_planner)")
    p.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE",
                   help="launch argument, e.g. --arg params_file=my_params.yaml (repeatable)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.errors import ConfigError
    from llm_planner.ros.launcher import run_launch_file

    arguments = {}
    for item in args.arg:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"launch argument {item!r} must look like KEY=VALUE")
        arguments[key] = value
    return run_launch_file(args.name, arguments)
