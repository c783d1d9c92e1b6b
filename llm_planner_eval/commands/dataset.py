"""``llm-planner dataset household``: the expert data set D of LLM-MCTS (seed 000, §3.1, Appendix B).

Generates training tasks (suites simple and comp), solves them with the full-observation expert
(llm_planner/domains/household/world/expert.py) in parallel processes, replays every trajectory in the symbolic model,
and writes JSON Lines. ``--check-pddl K`` compares K expert plans with Fast Downward's optimum.
"""
from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.errors import ConfigError
from llm_planner_eval.bench.report import format_table, mean_stderr

if TYPE_CHECKING:
    from llm_planner.domains.household.world.expert import Trajectory


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("dataset", help="build data sets (the expert data D of LLM-MCTS)",
                            description="Build data sets; see `llm-planner dataset household --help`.")
    kinds = parser.add_subparsers(dest="dataset", metavar="DATASET")
    p = kinds.add_parser("household", help="expert trajectories of household tasks (JSON Lines)",
                         description="Solve N training tasks with the full-observation expert and record "
                         "instruction, goal, the partial observation at every step and the actions "
                         "(LLM-MCTS Appendix B). Every trajectory is replayed in the symbolic model.")
    p.add_argument("--n", type=int, default=2000, help="number of tasks (default 2000, as the paper)")
    p.add_argument("--seed", type=int, default=0, help="task and placement seed (default 0)")
    p.add_argument("--out", required=True, help="output file (.jsonl); keep it under data/generated/")
    p.add_argument("--scene", default="apartment_seen", help="scene name or YAML path (default apartment_seen)")
    p.add_argument("--suites", nargs="+", default=["simple", "comp"], metavar="SUITE",
                   help="training suites to draw from, evenly (default: simple comp)")
    p.add_argument("--workers", type=int, default=2, help="parallel processes (default 2)")
    p.add_argument("--check-pddl", type=int, default=0, metavar="K",
                   help="cross-check K expert plans against Fast Downward's optimal plan length")
    p.add_argument("--check-pybullet", type=int, default=0, metavar="K",
                   help="also replay K trajectories on the PyBullet robot, checking perception after every step")
    p.add_argument("--close-containers", action="store_true", help="the expert closes containers it opened")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def run(args: argparse.Namespace) -> int:
    from llm_planner.domains.household.world.expert import build_dataset, save_dataset

    if args.workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {args.workers}")
    if args.check_pddl < 0 or args.check_pybullet < 0:
        raise ConfigError("--check-pddl and --check-pybullet must be >= 0")
    summary = build_dataset(args.scene, args.n, args.seed, args.suites, workers=args.workers,
                            check_pddl=args.check_pddl, close_containers=args.close_containers,
                            progress=not args.no_progress)
    path = save_dataset(args.out, summary.trajectories)
    rows = []
    for suite in args.suites:
        lengths = [t.plan_length for t in summary.trajectories if t.task.suite == suite]
        mean, err = mean_stderr(lengths)
        rows.append([suite, len(lengths), f"{mean:.2f} ± {err:.2f}", min(lengths), max(lengths)])
    print(format_table(["suite", "tasks", "plan length", "min", "max"], rows,
                       title=f"expert data set D: {len(summary.trajectories)} trajectories, scene {args.scene}, "
                       f"seed {args.seed}"))
    rate = len(summary.trajectories) / summary.seconds
    print(f"all {len(summary.trajectories)} trajectories replay to the goal in the symbolic model; "
          f"{summary.seconds:.1f} s with {summary.workers} worker(s) ({rate:.0f} tasks/s)")
    if summary.checked:
        print(f"Fast Downward (optimal, A* + LM-cut) cross-check: expert length optimal on "
              f"{summary.optimal}/{summary.checked} tasks, {summary.pddl_seconds / summary.checked:.2f} s per solve")
    if args.check_pybullet:
        failed = _check_pybullet(args.scene, summary.trajectories, args.check_pybullet)
        if failed:
            return 1
    print(f"wrote {path}")
    return 0


def _check_pybullet(scene_name: str, trajectories: Sequence[Trajectory], k: int) -> int:
    """Replay an evenly spread sample of ``k`` trajectories on the PyBullet robot; print the outcome."""

    from llm_planner.domains.household.sim.replay import replay_in_pybullet

    step = max(1, len(trajectories) // k)
    sample = list(trajectories)[::step][:k]
    started = time.perf_counter()
    outcomes = replay_in_pybullet(load_scene(scene_name), sample)
    failed = [o for o in outcomes if not o.success]
    print(f"PyBullet replay: {len(outcomes) - len(failed)}/{len(outcomes)} trajectories reach the goal on the "
          f"simulated robot with perception matching every recorded observation "
          f"({time.perf_counter() - started:.1f} s)")
    for outcome in failed:
        print(f"  {outcome.task_id}: {outcome.reason}")
    return len(failed)
