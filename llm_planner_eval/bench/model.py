"""``llm-planner bench model``: speed of the symbolic household model, the generative model G that
tree search calls at every simulated step (LLM-MCTS seed 000, Algorithm 1).

Measures, on (state, action) pairs recorded from random legal rollouts of ``--horizon`` steps:
``Household.step`` (G(s, a): preconditions, transition, goal check, observation), its parts, and
``legal_actions``; plus whole random rollouts (legal_actions + choice + step), the inner loop of
UCT. Every repeat starts from a fresh ``Household`` so its memo caches start cold. ``--pddl K``
also times Fast Downward (``llm_planner.domains.household.world.pddl.solve``) on K generated compositional tasks.
"""
from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.domains.household.world.tasks import generate_tasks
from llm_planner.errors import ConfigError
from llm_planner_eval.bench.report import BenchReport, format_table, mean_stderr

if TYPE_CHECKING:
    from llm_planner.domains.household.world.symbolic import Action, Goal, State

#: a timed operation on one recorded (state, action) pair
Operation = Callable[["State", "Action"], object]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("model", help="speed of the symbolic household model (transitions per second)",
                       description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("--scene", default="apartment_seen", help="scene name or YAML path (default apartment_seen)")
    p.add_argument("--pairs", type=int, default=20000, help="recorded (state, action) pairs (default 20000)")
    p.add_argument("--repeats", type=int, default=5, help="timed repeats, each with a fresh model (default 5)")
    p.add_argument("--horizon", type=int, default=30, help="rollout length before a reset (default 30, the step limit)")
    p.add_argument("--pddl", type=int, default=0, metavar="K", help="also time Fast Downward on K compositional tasks")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON (DESIGN.md format)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.pairs < 1 or args.repeats < 1 or args.horizon < 1:
        raise ConfigError("--pairs, --repeats and --horizon must be positive")
    scene = load_scene(args.scene)
    household = Household(scene)
    pairs, goal = _record_pairs(household, args.pairs, args.horizon, args.seed)
    sizes = _sizes(household, pairs)
    report = BenchReport("model", backend="symbolic", config={"scene": scene.name, **sizes, "pairs": len(pairs),
                                                              "repeats": args.repeats, "horizon": args.horizon})
    rows = []
    for name, make in _operations(goal, args.horizon, args.seed).items():
        per_call = [_time_once(make(Household(scene)), pairs) for _ in range(args.repeats)]
        mean, err = mean_stderr([s * 1e6 for s in per_call])
        rate = 1.0 / (sum(per_call) / len(per_call))
        report.add_row(name, scene.name, args.repeats, None, None, microseconds=mean, microseconds_stderr=err,
                       per_second=rate, calls=len(pairs))
        rows.append([name, f"{mean:.2f} ± {err:.2f}", f"{rate:,.0f}"])
    if args.pddl:
        rows.append(_time_pddl(report, household, args.pddl, args.seed))
    print(format_table(["operation", "µs per call", "calls per second"], rows,
                       title=f"symbolic model speed, scene {scene.name}: "
                       + ", ".join(f"{k} {v}" for k, v in sizes.items())
                       + f"; {len(pairs)} recorded (state, action) pairs x {args.repeats} repeats"))
    if args.json:
        print(f"wrote {report.write_json(args.json)}")
    return 0


def _record_pairs(household: Household, n: int, horizon: int, seed: int) -> tuple[list[tuple[State, Action]], Goal]:
    """(state, action) pairs of random legal rollouts from random placements, and a goal."""

    goal = generate_tasks(household.scene, "comp", 1, seed)[0].goal
    rng = random.Random(seed)
    pairs: list[tuple[State, Action]] = []
    while len(pairs) < n:
        state = household.sample_initial_state(rng.randrange(2**31))
        for _ in range(horizon):
            action = rng.choice(household.legal_actions(state))
            pairs.append((state, action))
            state = household.transition(state, action)
    return pairs[:n], goal


def _sizes(household: Household, pairs: Sequence[tuple[State, Action]]) -> dict[str, Any]:
    scene = household.scene
    legal = sum(len(household.legal_actions(s)) for s, _ in pairs[:2000]) / min(len(pairs), 2000)
    return {"rooms": len(scene.rooms), "furniture": len(scene.furniture), "containers": len(scene.containers),
            "object_types": len(scene.object_types), "objects": len(household.objects),
            "legal_actions_mean": round(legal, 1)}


def _operations(goal: Goal, horizon: int, seed: int) -> dict[str, Callable[[Household], Operation]]:
    """Name -> factory(household) -> function(state, action) timed per recorded pair."""

    def rollout(h: Household) -> Operation:
        rng = random.Random(seed)
        box: dict[str, Any] = {"state": None, "t": 0}

        # a random rollout that restarts from the recorded state each horizon
        def one(state: State, _action: Action) -> None:
            if box["t"] % horizon == 0:
                box["state"] = state
            box["t"] += 1
            box["state"] = h.step(box["state"], rng.choice(h.legal_actions(box["state"])), goal).state
        return one

    return {
        "step (G: why_not + transition + goal + observe)": lambda h: lambda s, a: h.step(s, a, goal),
        "legal_actions": lambda h: lambda s, a: h.legal_actions(s),
        "observe": lambda h: lambda s, a: h.observe(s),
        "transition": lambda h: lambda s, a: h.transition(s, a),
        "why_not": lambda h: lambda s, a: h.why_not(s, a),
        "satisfied": lambda h: lambda s, a: h.satisfied(s, goal),
        "rollout step (legal_actions + choice + step)": rollout,
    }


def _time_once(fn: Operation, pairs: Sequence[tuple[State, Action]]) -> float:
    """Seconds per call of ``fn`` over all pairs (loop overhead included, as a caller pays it)."""
    started = time.perf_counter()
    for state, action in pairs:
        fn(state, action)
    return (time.perf_counter() - started) / len(pairs)


def _time_pddl(report: BenchReport, household: Household, k: int, seed: int) -> list[str]:
    from llm_planner.domains.household.world import pddl

    seconds, lengths = [], []
    for task in generate_tasks(household.scene, "comp", k, seed):
        result = pddl.solve(household, household.sample_initial_state(task.placement_seed), task.goal)
        if result.solved and result.actions is not None:  # (solved has actions)
            seconds.append(result.seconds)
            lengths.append(len(result.actions))
    mean, err = mean_stderr(seconds)
    report.add_row("pddl.solve (Fast Downward lama-first)", household.scene.name, k, len(seconds) / k, None,
                   seconds=mean, seconds_stderr=err, plan_length=sum(lengths) / max(len(lengths), 1))
    return [f"pddl.solve, {len(seconds)}/{k} comp tasks solved", f"{mean * 1e6:,.0f} ± {err * 1e6:,.0f}",
            f"{1 / mean:.2f}" if seconds else "-"]
