"""``llm-planner demo ["DIRECTIVE"]``: the whole system end to end, in one command.

Starts the node graph of launch/llm_planner.launch.py (simulator, perception, planner, executor as
separate processes) and sends the directive to the execute_directive action with the configured
planner (LLM-MCTS by default). Each step is printed as it happens: the action and its outcome,
what was observed, the language-model requests the decision cost, and where the planner believes
the goal's objects are after the observation (the most likely places with probabilities). Then
it takes the executor's record of the task (task_record), stops every process and writes the
report: before.png and after.png (labelled plans: rooms, furniture, the goal's objects, the robot
and the path it drove), strip.png and strip.gif (one frame per step) and report.md (the steps
with their LLM requests and belief). Exit code 0 when the goal was reached, 1 with the reason
otherwise.

With --approve the planner asks "May I put one fork inside the dishwasher?" before the robot moves
(require_approval: goal); the question, and any "which one?" a directive raises, is answered on
the terminal or with --answer TEXT.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from llm_planner.errors import LlmPlannerError
from llm_planner.paths import config_dir

if TYPE_CHECKING:
    from llm_planner_interfaces.msg import TaskStatus

DEFAULT_DIRECTIVE = "put one fork inside the dishwasher"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="launch the system, execute one directive, report with pictures, shut down",
                       description=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("directive", nargs="?", default=DEFAULT_DIRECTIVE, help=f'default: "{DEFAULT_DIRECTIVE}" '
                   "(the fork is in a closed cabinet: the belief says where to look)")
    p.add_argument("--planner", default="", help="strategy (default: the configured one, llm_mcts)")
    p.add_argument("--params-file", default=None, help="ROS 2 parameter file (default: config/llm_planner.yaml)")
    p.add_argument("--timeout", type=float, default=300.0, help="time limit of the task in seconds")
    p.add_argument("--logs", default="runs/demo", help="directory for the nodes' logs and the report "
                   "(a folder per run: LOGS/YYYYmmdd-HHMMSS/report/)")
    p.add_argument("--no-gif", action="store_true", help="no animated GIF in the report")
    p.add_argument("--approve", action="store_true", help="ask 'May I ...?' before the robot moves "
                   "(require_approval: goal); answer yes or no on the terminal or with --answer")
    p.add_argument("--answer", action="append", default=None, metavar="TEXT",
                   help="the answer to a question the task asks (repeatable, in order); else the terminal")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient, format_feedback, format_status
    from llm_planner_ros.commands.plan import Answerer, print_result
    from llm_planner_ros.launch_files import resolve_launch_file
    from llm_planner_ros.launcher import GraphRunner

    arguments = {"params_file": str(Path(args.params_file).resolve())} if args.params_file else {}
    log_dir = Path(args.logs) / time.strftime("%Y%m%d-%H%M%S")
    if args.approve:
        arguments["params_file"] = str(_with_approval(args.params_file, log_dir))
    runner = GraphRunner(resolve_launch_file("llm_planner"), arguments, log_dir=log_dir)
    print(f"[demo] starting simulator, perception, executor and planner nodes (logs: {log_dir})", flush=True)
    started = time.monotonic()
    runner.start()
    record, no_record = None, ""
    try:
        with PlannerClient("llm_planner_demo") as client:
            def show_status(msg: TaskStatus) -> None:  # the steps come as feedback
                if not msg.step:
                    print("[status] " + format_status(msg, details=False), flush=True)

            client.watch_status(show_status)
            if not client.wait_for_planner(90.0) or runner.failed():
                raise LlmPlannerError(f"the system did not come up (exited nodes: {runner.failed()}); "
                                      f"see the logs in {log_dir}")
            print(f"[demo] system up in {time.monotonic() - started:.1f} s; directive: {args.directive!r}", flush=True)
            result = client.run(args.directive, args.planner, args.timeout,
                                on_feedback=lambda fields: print(format_feedback(fields), flush=True),
                                on_question=Answerer(args.answer))
            try:
                record = client.task_record(result.task_id)
            except LlmPlannerError as exc:  # refused or failed before the robot moved
                no_record = str(exc)
            client.spin_for(0.5)
    finally:
        codes = runner.stop()
        print(f"[demo] nodes stopped (exit codes {codes})", flush=True)
    print()
    print_result(result, executed=False)
    if record is not None:
        from llm_planner.viz.report import write_report

        try:
            written = write_report(record, log_dir / "report", gif=not args.no_gif)
            pictures = ", ".join(p.name for name, p in written.items() if name != "report")
            print(f"report: {written['report']} (pictures: {pictures})")
        except LlmPlannerError as exc:
            print(f"no report: {exc}")
    else:
        print(f"no report: {no_record}")
    print(f"\nresult: {'SUCCESS' if result.success else 'FAILURE'} - {result.message}")
    return 0 if result.success else 1


def _with_approval(params_file: str | None, log_dir: Path) -> Path:
    """A copy of the parameter file (default config/llm_planner.yaml) with require_approval: goal."""

    from llm_planner.config import read_params_file

    params = {**read_params_file(Path(params_file) if params_file else config_dir() / "llm_planner.yaml"),
              "require_approval": "goal"}
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / "params_approve.yaml"
    path.write_text(yaml.safe_dump({"/**": {"ros__parameters": params}}))
    return path
