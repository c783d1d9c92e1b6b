"""``llm-planner cancel [TASK_ID]``: stop the running task (the walk or skill under way is canceled)."""
from __future__ import annotations

import argparse

from llm_planner_ros.commands.plan import add_graph_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cancel", help="cancel the running task (cancel_task)",
                       description="Asks the planner node to stop the running task: the walk or skill under way is "
                       "canceled (the base stops), no other starts, and the task ends canceled. Exit code 0 when a "
                       "task was canceled.")
    p.add_argument("task_id", nargs="?", default="", help="the task to cancel (default: whatever task runs)")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient

    with PlannerClient("llm_planner_cancel_cli", args.namespace, args.server_timeout) as client:
        done, message = client.cancel_task(args.task_id)
    print(message)
    return 0 if done else 1
