"""``llm-planner demo ["DIRECTIVE"]``: the whole system end to end, in one command.

Starts the node graph of launch/llm_planner.launch.py (simulator, perception, planner, executor as
separate processes), sends the directive to /plan_task with execution, prints the formal goal, the
plan, each executed step with what was observed after it and the result, then stops every process.
Exit code 0 when the goal was reached, 1 with the reason otherwise.
"""
from __future__ import annotations

import argparse

DEFAULT_DIRECTIVE = "put one apple inside the fridge"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="launch the system, plan and execute one directive, report, shut down",
                       description=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("directive", nargs="?", default=DEFAULT_DIRECTIVE, help=f'default: "{DEFAULT_DIRECTIVE}"')
    p.add_argument("--planner", default="", help="strategy (default: the configured one)")
    p.add_argument("--params-file", default=None, help="ROS 2 parameter file (default: config/llm_planner.yaml)")
    p.add_argument("--timeout", type=float, default=300.0, help="time limit of the task in seconds")
    p.add_argument("--logs", default="runs/demo", help="directory for the nodes' logs")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from llm_planner.commands.plan import print_result
    from llm_planner.errors import LlmPlannerError
    from llm_planner.ros.client import PlannerClient, format_status
    from llm_planner.ros.launcher import GraphRunner, resolve_launch_file

    arguments = {"params_file": str(Path(args.params_file).resolve())} if args.params_file else {}
    log_dir = Path(args.logs) / time.strftime("%Y%m%d-%H%M%S")
    runner = GraphRunner(resolve_launch_file("llm_planner"), arguments, log_dir=log_dir)
    print(f"[demo] starting simulator, perception, executor and planner nodes (logs: {log_dir})", flush=True)
    started = time.monotonic()
    runner.start()
    try:
        with PlannerClient("llm_planner_demo") as client:
            client.watch_status(lambda msg: print("[status] " + format_status(msg, details=False), flush=True))
            if not client.wait_for_planner(90.0) or runner.failed():
                raise LlmPlannerError(f"the system did not come up (exited nodes: {runner.failed()}); "
                                      f"see the logs in {log_dir}")
            print(f"[demo] system up in {time.monotonic() - started:.1f} s; directive: {args.directive!r}", flush=True)
            before = client.render(str((log_dir / "before.png").resolve()))
            result = client.plan_task(args.directive, args.planner, execute=True, timeout_s=args.timeout)
            after = client.render(str((log_dir / "after.png").resolve()))
            client.spin_for(0.5)
    finally:
        codes = runner.stop()
        print(f"[demo] nodes stopped (exit codes {codes})", flush=True)
    print()
    print_result(result)
    if before and after:
        print(f"snapshots of the apartment: {before} (before), {after} (after)")
    print(f"\nresult: {'SUCCESS' if result['success'] else 'FAILURE'} - {result['message']}")
    return 0 if result["success"] else 1
