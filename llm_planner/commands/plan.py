"""``llm-planner plan "DIRECTIVE"``: call /plan_task (stands in for ``ros2 service call``)."""
from __future__ import annotations

import argparse
import json


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="send a directive to /plan_task and print the answer",
                       description="Calls the /plan_task service of a running system (start it with "
                       "`llm-planner launch`). Exit code 0 when the planner succeeded, 1 otherwise.")
    p.add_argument("directive", help='e.g. "put one apple inside the fridge"')
    p.add_argument("--planner", default="", help="household graph: classical, llm_mcts (and its baselines uct, l_policy, ...), pddl, saycanpay; G-TAMP graph (llm-planner launch gtamp): stalm and its baselines (default: the configured one)")
    p.add_argument("--execute", action="store_true", help="also execute the plan on the robot")
    p.add_argument("--timeout", type=float, default=0.0, help="time limit in seconds (default: configured)")
    p.add_argument("--json", action="store_true", help="print the response as one JSON object")
    p.add_argument("--wait", type=float, default=30.0, help="seconds to wait for /plan_task to appear")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.ros.client import PlannerClient

    with PlannerClient("llm_planner_plan_cli") as client:
        result = client.plan_task(args.directive, args.planner, args.execute, args.timeout, wait_s=args.wait)
    if args.json:
        print(json.dumps(result))
    else:
        print_result(result)
    return 0 if result["success"] else 1


def print_result(result: dict) -> None:
    print(f"success: {result['success']}")
    print(f"message: {result['message']}")
    if result.get("goal"):
        print("goal:    " + ", ".join(f"({r}, {o}, {d}, {c})" for r, o, d, c in result["goal"]))
    if result.get("plan"):
        print("plan:")
        for i, step in enumerate(result["plan"], 1):
            print(f"  {i:2d}. {step}")
    if result.get("executed"):
        print("executed:")
        for i, step in enumerate(result["executed"], 1):
            print(f"  {i:2d}. {step}")
    print(f"task {result['task_id']}: {result['llm_requests']} LLM request(s), "
          f"{result['planning_time_s']:.2f} s planning")
