"""``llm-planner status``: print task progress from task_status (stands in for ``ros2 topic echo``)."""
from __future__ import annotations

import argparse

from llm_planner_ros.commands.plan import add_graph_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("status", help="watch task progress on task_status",
                       description="Prints every TaskStatus message until Ctrl-C or --duration seconds.")
    p.add_argument("--duration", type=float, default=0.0, help="stop after this many seconds (0: until Ctrl-C)")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient, format_status

    with PlannerClient("llm_planner_status_cli", args.namespace, args.server_timeout) as client:
        client.watch_status(lambda msg: print(format_status(msg), flush=True))
        client.spin_for(args.duration if args.duration > 0 else float("inf"))
    return 0
