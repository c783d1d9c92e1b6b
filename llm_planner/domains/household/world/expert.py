"""The expert data set D of LLM-MCTS (seed 000, §3.1 "Data" and Appendix B).

An oracle with *full* observation solves each task by regression planning with handcrafted
heuristics, decomposing a compositional goal into one "move object o to destination d" subtask
per object still missing (Appendix B: "a handcrafted mechanism for compositional tasks to
decompose one task into subtasks and finish them progressively"). Each subtask is the fixed
routine: walk to the object's room, walk to the object (or to its closed container and open it),
grab it, walk to the destination's room, walk to the destination, open it if it is a closed
container, put the object inside/on it (and close the containers it opened when
``close_containers``). The oracle picks which objects to move, and in which order, by trying every
assignment and order when there are few (at most ``EXHAUSTIVE_LIMIT`` candidate plans) and greedily
(cheapest next subtask) otherwise; plans are therefore short ("optimal-ish"); ``pddl.solve`` with
the optimal Fast Downward configuration gives the true optimum for a cross-check.

State items of a goal (open/closed, on/off; issue 44) are done after the placements (or before them
when that is shorter), cheapest next first: walk to the container (or to the furniture a switchable
thing stands at) and open, close or switch it; one that already holds costs no step.
``close_containers`` never closes a container the goal asks open.

A trajectory records what Appendix B lists: the goal, the instruction, the *partial* observation
at every step (the expert does not use them; learners do) and the expert's actions. Files are JSON
Lines, one trajectory per line::

    {"task_id": ..., "suite": ..., "scene": ..., "placement_seed": ..., "instruction": ...,
     "goal": [[REL, type, destination, count], ...], "actions": ["walk(kitchen)", ...],
     "observations": [Observation.to_dict(), ...],   # len(actions) + 1: before every action, and the last
     "plan_length": N, "pddl_plan_length": M or null}
"""
from __future__ import annotations

import json
import multiprocessing
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations, permutations, product
from math import factorial
from pathlib import Path
from typing import Any

from tqdm import tqdm

from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.scene import Scene, load_scene
from llm_planner.domains.household.world.symbolic import (
    CLOSED,
    OFF,
    OPEN,
    SWITCHED_ON,
    Action,
    GoalItem,
    Household,
    Observation,
    State,
)
from llm_planner.domains.household.world.tasks import TRAINING_SUITES, HouseholdTask, generate_tasks
from llm_planner.errors import ConfigError, PlanningError

#: Largest number of (assignment, order) candidate plans the oracle compares exhaustively.
EXHAUSTIVE_LIMIT = 2000

Move = tuple[str, str]  # (object instance, destination furniture)


@dataclass(frozen=True)
class Trajectory:
    """One expert demonstration: the task, its actions and the partial observation before each."""

    task: HouseholdTask
    actions: tuple[Action, ...]
    observations: tuple[Observation, ...]  # len(actions) + 1
    pddl_plan_length: int | None = None  # optimal length from Fast Downward, when cross-checked

    @property
    def plan_length(self) -> int:
        return len(self.actions)

    def to_dict(self) -> dict[str, Any]:
        return {**self.task.to_dict(), "actions": [str(a) for a in self.actions],
                "observations": [o.to_dict() for o in self.observations],
                "plan_length": self.plan_length, "pddl_plan_length": self.pddl_plan_length}

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Trajectory:
        actions = tuple(Action.parse(a) for a in data["actions"])
        observations = tuple(Observation.from_dict(o) for o in data["observations"])
        if len(observations) != len(actions) + 1:
            raise ValueError(f"{len(actions)} actions need {len(actions) + 1} observations, got {len(observations)}")
        return Trajectory(HouseholdTask.from_dict(data), actions, observations, data.get("pddl_plan_length"))


# ------------------------------------------------------------------------------ the oracle
class _Routine:
    """Applies actions to a state, checking each (a failure is a bug in the routine, not the task)."""

    def __init__(self, household: Household, state: State) -> None:
        self.household = household
        self.state = state
        self.actions: list[Action] = []

    def do(self, verb: str, *args: str) -> None:
        action = Action(verb, args)
        reason = self.household.why_not(self.state, action)
        if reason is not None:
            raise PlanningError(f"expert routine produced an inapplicable action {action}: {reason}")
        self.actions.append(action)
        self.state = self.household.transition(self.state, action)

    def go_to(self, furniture: str, target: str | None = None) -> None:
        """Walk to the furniture's room, then to ``target`` when visible there, else the furniture."""
        room = self.household.furniture_room[furniture]
        if self.state.room != room:
            self.do("walk", room)
        if self.state.near != furniture:
            visible = target is not None and self.household.visible(self.state, target)
            self.do("walk", target if visible and target is not None else furniture)

    def open_if_closed(self, furniture: str) -> bool:
        if self.household.is_container[furniture] and furniture not in self.state.opened:
            self.do("open", furniture)
            return True
        return False


def move_actions(household: Household, state: State, obj: str, dest: str,
                 close_containers: bool = False, keep_open: frozenset[str] = frozenset()) -> tuple[list[Action], State]:
    """The handcrafted routine that brings ``obj`` to ``dest`` from ``state``; returns the actions
    and the state after them. ``close_containers`` closes what the routine opened, except the
    containers of ``keep_open`` (those the goal asks open)."""
    routine = _Routine(household, state)
    if state.holding != obj:
        place = household.location(state, obj)
        if place is None or state.holding is not None:
            raise PlanningError(f"cannot fetch {obj} while holding {state.holding}")
        routine.go_to(place, target=obj)
        opened = routine.open_if_closed(place)
        routine.do("grab", obj)
        if close_containers and opened and place not in keep_open:
            routine.do("close", place)
    routine.go_to(dest)
    opened = routine.open_if_closed(dest)
    routine.do("putin" if household.is_container[dest] else "puton", obj, dest)
    if close_containers and opened and dest not in keep_open:
        routine.do("close", dest)
    return routine.actions, routine.state


#: The action that makes a state item hold.
_STATE_VERBS = {OPEN: "open", CLOSED: "close", SWITCHED_ON: "switchon", OFF: "switchoff"}


def state_actions(household: Household, state: State, item: GoalItem) -> tuple[list[Action], State]:
    """The routine that makes the state item hold: walk to the container (or to where the switchable
    thing stands), then open, close or switch it; nothing when it holds already."""
    routine = _Routine(household, state)
    if not household.state_holds(state, item):
        thing = item.obj_type
        routine.go_to(household.switch_at[thing] if item.rel in (SWITCHED_ON, OFF) else thing)
        routine.do(_STATE_VERBS[item.rel], thing)
    return routine.actions, routine.state


def _states_plan(household: Household, state: State, items: Sequence[GoalItem]) -> list[Action]:
    """The state items in the cheapest-next order (goal order on ties)."""
    plan: list[Action] = []
    todo = [item for item in items if not household.state_holds(state, item)]
    while todo:
        options = [(len(acts), k, acts, nxt) for k, (acts, nxt) in
                   enumerate(state_actions(household, state, item) for item in todo)]
        _, k, acts, state = min(options, key=lambda x: (x[0], x[1]))
        plan += acts
        del todo[k]
    return plan


def needed_moves(household: Household, state: State, goal: Sequence[GoalItem]) -> list[tuple[str, int, list[str]]]:
    """Per goal item still short of objects: (destination, how many to move, candidate objects).

    Candidates are objects of the type not at the item's destination, excluding objects that an
    item of the same type needs where they are (its surplus over its count is free). State items
    move nothing."""
    goal = [item for item in goal if not item.is_state]
    locked: set[str] = set()
    for item in goal:
        at_dest = [o for o in household.objects if household.object_type[o] == item.obj_type
                   and household.location(state, o) == item.destination]
        locked.update(at_dest[: item.count])
    result = []
    for item in goal:
        short = item.count - household.count_satisfied(state, item)
        if short > 0:
            candidates = [o for o in household.objects if household.object_type[o] == item.obj_type
                          and household.location(state, o) != item.destination and o not in locked]
            if len(candidates) < short:
                raise PlanningError(f"not enough free {item.obj_type} objects for {item}")
            result.append((item.destination, short, candidates))
    return result


def expert_plan(household: Household, state: State, goal: Sequence[GoalItem],
                close_containers: bool = False) -> list[Action]:
    """The oracle's plan from a fully observed ``state`` (Appendix B): the placements, then the
    state items; or the state items first, then the placements (and the states they undid), when
    that is shorter. Raises GoalError for a goal the scene cannot have, PlanningError when the
    robot holds an object no goal item wants."""
    goal = household.check_goal(goal)
    states = [item for item in goal if item.is_state]
    if len(states) == len(goal):  # states only: nothing to move, whatever the hand holds
        return _states_plan(household, state, states)
    keep_open = frozenset(item.obj_type for item in states if item.rel == OPEN)
    moves = _moves_plan(household, state, goal, close_containers, keep_open)
    if not states:
        return moves
    plan = moves + _states_plan(household, _after(household, state, moves), states)
    first = _states_plan(household, state, states)
    if first:
        middle = _after(household, state, first)
        then = _moves_plan(household, middle, goal, close_containers, keep_open)
        other = first + then + _states_plan(household, _after(household, middle, then), states)
        plan = other if len(other) < len(plan) else plan
    return plan


def _after(household: Household, state: State, actions: Iterable[Action]) -> State:
    for action in actions:
        state = household.transition(state, action)
    return state


def _moves_plan(household: Household, state: State, goal: Sequence[GoalItem], close_containers: bool,
                keep_open: frozenset[str]) -> list[Action]:
    """The placements' part of :func:`expert_plan`."""
    items = needed_moves(household, state, goal)
    if state.holding is not None and not any(state.holding in cands for _, _, cands in items):
        raise PlanningError(f"the expert starts with an empty hand or an object it must move "
                            f"(holding {state.holding})")
    choices = [list(combinations(cands, short)) for _, short, cands in items]
    n_moves = sum(short for _, short, _ in items)
    if n_moves == 0:
        return []
    if factorial(n_moves) * _product_len(choices) <= EXHAUSTIVE_LIMIT:
        return _best_exhaustive(household, state, items, choices, close_containers, keep_open)
    return _greedy(household, state, items, close_containers, keep_open)


def _product_len(choices: list[list]) -> int:
    n = 1
    for c in choices:
        n *= len(c)
    return n


def _run(household: Household, state: State, moves: Iterable[Move], close: bool,
         keep_open: frozenset[str]) -> list[Action]:
    plan: list[Action] = []
    for obj, dest in moves:
        actions, state = move_actions(household, state, obj, dest, close, keep_open)
        plan += actions
    return plan


def _best_exhaustive(household: Household, state: State, items: list[tuple[str, int, list[str]]],
                     choices: list[list[tuple[str, ...]]], close: bool, keep_open: frozenset[str]) -> list[Action]:
    best: list[Action] | None = None
    for picked in product(*choices):
        moves = [(o, dest) for (dest, _, _), objs in zip(items, picked, strict=True) for o in objs]
        if state.holding is not None and state.holding not in {o for o, _ in moves}:
            continue
        for order in permutations(moves):
            if state.holding is not None and order[0][0] != state.holding:
                continue
            plan = _run(household, state, order, close, keep_open)
            if best is None or len(plan) < len(best):
                best = plan
    if best is None:
        raise PlanningError(f"the held object {state.holding} fits no goal item")
    return best


def _greedy(household: Household, state: State, items: list[tuple[str, int, list[str]]], close: bool,
            keep_open: frozenset[str]) -> list[Action]:
    """Cheapest next subtask first, until every item has its objects."""
    remaining = {k: short for k, (_, short, _) in enumerate(items)}
    used: set[str] = set()
    plan: list[Action] = []
    while remaining:
        options = []
        for k in remaining:
            dest, _, cands = items[k]
            for o in cands:
                if o not in used and (state.holding is None or state.holding == o):
                    actions, nxt = move_actions(household, state, o, dest, close, keep_open)
                    options.append((len(actions), k, o, actions, nxt))
        if not options:
            raise PlanningError("the greedy expert ran out of candidate objects")
        _, k, o, actions, state = min(options, key=lambda x: x[0])
        plan += actions
        used.add(o)
        remaining[k] -= 1
        if remaining[k] == 0:
            del remaining[k]
    return plan


# --------------------------------------------------------------------------- trajectories
def record(household: Household, task: HouseholdTask, actions: Sequence[Action],
           pddl_plan_length: int | None = None) -> Trajectory:
    """Run ``actions`` from the task's start state and keep the partial observation before each."""
    state = household.sample_initial_state(task.placement_seed)
    observations = [household.observe(state)]
    for action in actions:
        state, obs, _, _ = household.step(state, action, task.goal)
        observations.append(obs)
    return Trajectory(task, tuple(actions), tuple(observations), pddl_plan_length)


def solve_task(household: Household, task: HouseholdTask, close_containers: bool = False) -> Trajectory:
    """The expert's trajectory for one task."""
    _check_scene(household, task)
    state = household.sample_initial_state(task.placement_seed)
    return record(household, task, expert_plan(household, state, task.goal, close_containers))


def replay(household: Household, trajectory: Trajectory) -> bool:
    """True when every action is applicable in turn, every recorded observation is the model's,
    and the goal holds at the end."""
    task = trajectory.task
    if household.scene.name != task.scene:
        return False
    state = household.sample_initial_state(task.placement_seed)
    if household.observe(state) != trajectory.observations[0]:
        return False
    for action, expected in zip(trajectory.actions, trajectory.observations[1:], strict=True):
        if household.why_not(state, action) is not None:
            return False
        state = household.transition(state, action)
        if household.observe(state) != expected:
            return False
    return household.satisfied(state, task.goal)


def _check_scene(household: Household, task: HouseholdTask) -> None:
    if household.scene.name != task.scene:
        raise ConfigError(f"task {task.task_id} belongs to scene '{task.scene}', not '{household.scene.name}'")


# ------------------------------------------------------------------------------------ files
def save_dataset(path: str | Path, trajectories: Iterable[Trajectory]) -> Path:
    """Write trajectories as JSON Lines (one per line); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as out:
        for trajectory in trajectories:
            out.write(json.dumps(trajectory.to_dict(), separators=(",", ":")) + "\n")
    return path


def load_dataset(path: str | Path) -> list[Trajectory]:
    """Read a JSON Lines data set; a malformed line raises ConfigError naming the file and line."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such data set file (make one with: llm-planner dataset household --out {path})")
    trajectories = []
    with path.open() as lines:
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                trajectories.append(Trajectory.from_dict(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                raise ConfigError(f"{path}:{number}: not an expert trajectory record: {exc}") from None
    return trajectories


# ---------------------------------------------------------------------- building D in parallel
@dataclass(frozen=True)
class DatasetSummary:
    """What :func:`build_dataset` made: the trajectories, and the cross-check with Fast Downward."""

    trajectories: list[Trajectory]
    seconds: float
    workers: int
    checked: int  # trajectories cross-checked against the optimal PDDL plan
    optimal: int  # of those, how many expert plans had the optimal length
    pddl_seconds: float  # Fast Downward time spent on the cross-check


def dataset_tasks(scene: str, n: int, seed: int, suites: Sequence[str]) -> list[HouseholdTask]:
    """The tasks of D: ``n`` split evenly over the (training) suites, reproducible from ``seed``."""

    novel = [s for s in suites if s not in TRAINING_SUITES]
    if novel:
        raise ConfigError(f"the expert data set D holds training tasks only ({', '.join(TRAINING_SUITES)}); "
                          f"'{novel[0]}' must stay novel for the evaluation (LLM-MCTS §3.1)")
    if n < 1 or not suites:
        raise ConfigError(f"need at least one task and one suite (got n={n}, suites={list(suites)})")
    per_suite = [n // len(suites) + (1 if k < n % len(suites) else 0) for k in range(len(suites))]
    return [t for suite, m in zip(suites, per_suite, strict=True) for t in generate_tasks(scene, suite, m, seed)]


def build_dataset(scene: str, n: int, seed: int, suites: Sequence[str] = ("simple", "comp"),
                  workers: int = 2, check_pddl: int = 0, close_containers: bool = False,
                  progress: bool = False) -> DatasetSummary:
    """Solve ``n`` training tasks with the expert in ``workers`` processes; every trajectory is
    replayed in the symbolic model, and ``check_pddl`` of them (a seeded sample) are compared with
    the optimal Fast Downward plan length."""

    started = time.perf_counter()
    scene_obj = load_scene(scene)
    task_list = dataset_tasks(scene, n, seed, suites)
    checked = set(random.Random(seed).sample(range(len(task_list)), min(check_pddl, len(task_list))))
    jobs = [(t, k in checked, close_containers) for k, t in enumerate(task_list)]
    size = max(1, min(50, len(jobs) // (workers * 4) or 1))
    chunks = [jobs[i:i + size] for i in range(0, len(jobs), size)]
    results: list[tuple[Trajectory, float]] = []
    bar = tqdm(total=len(jobs), unit="task", desc="expert", disable=not progress, leave=False)
    if workers > 1:
        context = multiprocessing.get_context("spawn")
        with context.Pool(workers, initializer=_init_worker, initargs=(scene_obj,)) as pool:
            for solved in pool.imap(_solve_chunk, chunks):
                results += solved
                bar.update(len(solved))
    else:
        _init_worker(scene_obj)
        for chunk in chunks:
            results += _solve_chunk(chunk)
            bar.update(len(chunk))
    bar.close()
    trajectories = [t for t, _ in results]
    with_pddl = [t for t in trajectories if t.pddl_plan_length is not None]
    return DatasetSummary(trajectories, time.perf_counter() - started, workers, len(with_pddl),
                          sum(1 for t in with_pddl if t.pddl_plan_length == t.plan_length),
                          sum(s for _, s in results))


_WORKER: dict[str, Household] = {}


def _init_worker(scene: Scene) -> None:
    _WORKER["household"] = Household(scene)


def _solve_chunk(jobs: list[tuple[HouseholdTask, bool, bool]]) -> list[tuple[Trajectory, float]]:
    """Worker: expert trajectories of a chunk of tasks, each verified by replay (and optionally by
    the optimal PDDL plan length)."""

    household = _WORKER["household"]
    out = []
    for task, check, close in jobs:
        trajectory = solve_task(household, task, close)
        if not replay(household, trajectory):
            raise PlanningError(f"expert trajectory of {task.task_id} does not replay")
        seconds = 0.0
        if check:
            result = pddl.solve(household, household.sample_initial_state(task.placement_seed), task.goal, optimal=True)
            if not result.solved or result.actions is None:  # (solved has actions)
                raise PlanningError(f"Fast Downward could not cross-check {task.task_id}: {result.message}")
            trajectory = Trajectory(task, trajectory.actions, trajectory.observations, len(result.actions))
            seconds = result.seconds
        out.append((trajectory, seconds))
    return out
