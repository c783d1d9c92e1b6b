"""``llm-planner say "DIRECTIVE"``: publish a directive on the topic directive, as a voice frontend does."""
from __future__ import annotations

import argparse
import threading
from typing import TYPE_CHECKING

from llm_planner.task_states import FINAL_STATES, SUCCEEDED
from llm_planner_ros.commands.plan import add_graph_options

if TYPE_CHECKING:
    from llm_planner_interfaces.msg import TaskStatus


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("say", help="publish a directive on the voice topic directive",
                       description="The planner plans and executes it; progress appears on task_status "
                       "(`llm-planner status`). --follow prints that progress until the task ends.")
    p.add_argument("directive")
    p.add_argument("--follow", type=float, default=0.0, metavar="SECONDS",
                   help="print task_status until the task ends or SECONDS pass")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient, format_status

    done = threading.Event()
    outcome = {"ok": True, "task": ""}

    def on_status(msg: TaskStatus) -> None:
        print(format_status(msg), flush=True)
        if not outcome["task"] and " ".join(msg.directive.split()) == " ".join(args.directive.split())[:200]:
            outcome["task"] = msg.task_id  # the task of this directive (an answered question rewrites it)
        if msg.state in FINAL_STATES and msg.task_id and msg.task_id == outcome["task"]:
            outcome["ok"] = msg.state == SUCCEEDED
            done.set()

    with PlannerClient("llm_planner_say_cli", args.namespace, args.server_timeout) as client:
        if args.follow > 0:
            client.watch_status(on_status, wait_s=args.server_timeout)
        client.say(args.directive)
        if args.follow > 0:
            client.spin_for(args.follow, stop=done)
            return 0 if done.is_set() and outcome["ok"] else 1
    return 0
