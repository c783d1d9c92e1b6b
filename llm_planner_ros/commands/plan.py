"""``llm-planner plan "DIRECTIVE"``: plan with ``plan_task``, or execute with the
``execute_directive`` action (stands in for ``ros2 service call`` / ``ros2 action send_goal``)."""
from __future__ import annotations

import argparse
import json
import sys

from llm_planner_ros import client_settings
from llm_planner_ros.task_results import ExecutionResult, PlanResult, TaskQuestion, TaskResult, to_json


def add_graph_options(p: argparse.ArgumentParser) -> None:
    """--namespace and --server-timeout, shared by the commands that talk to a running graph."""
    p.add_argument("--namespace", default="", help="namespace of the robot's graph (launch argument namespace)")
    default = client_settings().server_timeout_s
    p.add_argument("--server-timeout", type=float, default=default, metavar="SECONDS",
                   help=f"give up when the planner node has left the ROS graph this long (default {default:g}, "
                        "config/client.yaml)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("plan", help="plan a directive (plan_task), or execute it with --execute (execute_directive)",
                       description="Plans a directive on a running system (start it with `llm-planner launch`). "
                       "With --execute the robot carries it out through the execute_directive action: feedback "
                       "is printed per step, Ctrl-C cancels the task (the walk or skill under way is canceled). "
                       "Exit code 0 when the planner succeeded, 1 otherwise, 130 when canceled.")
    p.add_argument("directive", help='e.g. "put one apple inside the fridge"')
    p.add_argument("--planner", default="",
                   help="household graph: llm_mcts (baselines uct, l_policy, no_heuristic_policy, uniform_prior, "
                        "fully_observable), pddl (Levy-Karpas), saycanpay, classical; G-TAMP graph (llm-planner "
                        "launch gtamp): stalm, stalm_no_uct, stalm_no_occ, stalm_no_chal, stalm_no_occ_no_chal, uct, "
                        "uct_hcount, saycan, iterative_replanning, llm_mcts (default: the configured one)")
    p.add_argument("--execute", action="store_true", help="also execute the plan on the robot")
    p.add_argument("--bt", default="", metavar="FILE",
                   help="also write the plan as a BehaviorTree.CPP v4 tree to FILE: NavigateToPose and RobotSkill "
                        "nodes with the goals the executor would send (docs/guides/robot.md); plan-only, household, "
                        "a whole plan (--planner classical; LLM-MCTS answers only its first step)")
    p.add_argument("--timeout", type=float, default=0.0, help="time limit in seconds (default: configured)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object (no feedback lines)")
    p.add_argument("--answer", action="append", default=None, metavar="TEXT",
                   help="with --execute: the answer to the task's question (which table? how many? May I ...?), "
                        "repeatable for several questions in order; without it a question is read from the terminal")
    p.add_argument("--wait", type=float, default=30.0,
                   help="seconds to wait for the planner node to appear (with --bt: and for perception/full_state)")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient, format_feedback
    from llm_planner_ros.plan_tree import TreeWriter

    if args.bt and args.execute:
        raise SystemExit("llm-planner plan: --bt writes a plan for your own BehaviorTree.CPP executor to run, and "
                         "--execute runs it with this one; give one of them (plan with --bt, then run the tree)")
    with PlannerClient("llm_planner_plan_cli", args.namespace, args.server_timeout) as client:
        tree = TreeWriter(client, args.wait) if args.bt else None  # a G-TAMP graph is refused before it plans
        if args.execute:
            show = None if args.json else lambda fields: print(format_feedback(fields), flush=True)
            result: PlanResult = client.run(args.directive, args.planner, args.timeout, on_feedback=show,
                                            wait_s=args.wait, on_question=Answerer(args.answer, quiet=args.json))
        else:
            result = client.plan(args.directive, args.planner, args.timeout, wait_s=args.wait)
        written = tree.write(result, args.directive, args.planner, args.bt) if tree and result.success else ""
    if args.json:
        print(json.dumps({**to_json(result), "bt": args.bt} if written else to_json(result)))
    else:
        print_result(result, executed=not args.execute)
        if written:
            print(written)
    if isinstance(result, ExecutionResult) and result.status is TaskResult.CANCELED:
        return 130
    return 0 if result.success else 1


class Answerer:
    """Answers a task's questions: the ``--answer`` texts in order, then the terminal (stdin); None
    (no answer: the task ends refused after clarify_timeout_s) when stdin is closed."""

    def __init__(self, answers: list[str] | None, quiet: bool = False) -> None:
        self.answers = list(answers or [])
        self.quiet = quiet

    def __call__(self, question: TaskQuestion) -> str | None:
        if self.answers:
            text = self.answers.pop(0)
            if not self.quiet:
                print(f"question: {question.question}\nanswer:   {text}", flush=True)
            return text
        options = " | ".join(question.options)
        try:
            return input(f"{question.question}\n" + (f"  ({options})\n" if options else "") + "> ").strip() or None
        except EOFError:
            print("(no answer: stdin is closed)", file=sys.stderr, flush=True)
            return None


def print_result(result: PlanResult, executed: bool = True) -> None:
    """The result; ``executed=False`` leaves out the executed steps (printed already as feedback)."""
    status = f" ({result.status.value})" if isinstance(result, ExecutionResult) else ""
    print(f"success: {result.success}{status}")
    print(f"message: {result.message}")
    if result.question:
        print(f"question: {result.question} (answers: {' | '.join(result.options)})")
    if result.goal:
        print("goal:    " + ", ".join(f"({', '.join(str(x) for x in item)})" for item in result.goal))
    if result.plan:
        print("plan:")
        for i, step in enumerate(result.plan, 1):
            print(f"  {i:2d}. {step}")
    if executed and result.executed:
        print("executed:")
        for i, step in enumerate(result.executed, 1):
            print(f"  {i:2d}. {step}")
    print(f"task {result.task_id}: {result.llm_requests} LLM request(s), {result.planning_time_s:.2f} s planning")
