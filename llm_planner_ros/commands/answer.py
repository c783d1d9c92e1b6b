"""``llm-planner answer TEXT [--task ID]``: answer the question of a task in state ``asking``
("which table?", "how many?", "May I ...?") through the ``answer_task`` service."""
from __future__ import annotations

import argparse

from llm_planner_ros.commands.plan import add_graph_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("answer", help="answer the question of the task that asks (answer_task)",
                       description="A task that asks (state asking on task_status: which table, how many, "
                       "May I ...?) waits clarify_timeout_s for the answer. Prints how the answer was read; exit "
                       "code 0 when it was taken, 1 otherwise (no task asks, or the text answers nothing: the task "
                       "asks once more, then it is refused).")
    p.add_argument("text", help='e.g. "the coffee table", "two", "the second one", "yes"')
    p.add_argument("--task", default="", metavar="TASK_ID", help="the asking task (default: whichever task asks)")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient

    with PlannerClient("llm_planner_answer_cli", args.namespace, args.server_timeout) as client:
        taken, message = client.answer(args.text, args.task)
    print(message)
    return 0 if taken else 1
