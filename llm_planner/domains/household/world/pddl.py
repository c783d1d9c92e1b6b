"""The one PDDL domain of the household world, exported from the symbolic model, and a classical
planner over it (unified-planning's ``OneshotPlanner`` with the Fast Downward engine).

The domain mirrors :class:`~llm_planner.domains.household.world.symbolic.Household` (LLM-MCTS seed 000, Appendix
A.4): every PDDL action is one symbolic action with its preconditions and effects, so a plan
replays step by step through ``Household.step`` (and :func:`solve` checks that it does).

Types. ``room``, ``furniture`` (``container`` / ``surface``) and ``item``; every movable object
type of the scene is a PDDL type below ``item`` (``apple - item``, instances ``apple_1``,
``apple_2``). Goals over object *types* and counts are therefore plain PDDL, as in Levy-Karpas
(seed 001, Phase I "Predicting Goals": an existentially quantified goal over the type; "Domain
Model": one pairwise-distinct variable per counted object)::

    (exists (?apple1 - apple ?apple2 - apple)
            (and (not (= ?apple1 ?apple2)) (inside ?apple1 fridge) (inside ?apple2 fridge)))

Predicates. ``(robot_in ?r)``, ``(near ?f)`` (the furniture the robot stands at), ``(holding ?o)``,
``(hand_empty)``, ``(opened ?c)``, ``(inside ?o ?c)``, ``(on ?o ?s)`` and the static
``(furniture_in ?f ?r)``. The goal relations are the symbolic ones (``inside``/``on``).

Switchable things (issue 44; SayCanPay seed 004, §7.2: VirtualHome's SWITCHON/SWITCHOFF) enter only
when the goal names one (:func:`solve` derives ``switchables`` from the goal): the domain then has
the type ``device`` (a switchable thing that is not furniture: ``tv``, ``floor_lamp``; an appliance
such as ``microwave`` is its own furniture object), ``(switched_on ?d)``, the static
``(switch_at ?d ?f)`` (the furniture the robot stands at to switch ``d``: ``Household.switch_at``)
and the actions ``switchon``/``switchoff``. Only the goal's switchable things are objects with a
``switch_at`` atom, so the planner switches nothing else (as ``Household.legal_actions`` with the
goal's switchables). Without them, domain and problem say nothing about switching. State goal
items: ``(open c)`` -> ``(opened c)``, ``(closed c)`` -> ``(not (opened c))``, ``(on d)`` ->
``(switched_on d)``, ``(off d)`` -> ``(not (switched_on d))``; one that already holds costs no step.

Actions (PDDL name -> symbolic action)::

    walk_room ?r                 -> walk(r)       near nothing afterwards
    walk_furniture ?f ?r         -> walk(f)       f in the robot's room r
    walk_item_in ?o ?c ?r        -> walk(o)       o inside the open container c of room r
    walk_item_on ?o ?s ?r        -> walk(o)       o on the surface s of room r
    grab_in ?o ?c / grab_on ?o ?s -> grab(o)      near c/s, hand empty (c open)
    open ?c / close ?c           -> open(c) / close(c)
    putin ?o ?c / puton ?o ?s    -> putin(o, c) / puton(o, s)
    switchon ?d ?f / switchoff   -> switchon(d) / switchoff(d)   near f, (switch_at d f); d off / on
"""
from __future__ import annotations

import re
import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.symbolic import (
    CLOSED,
    INSIDE,
    OFF,
    ON,
    OPEN,
    SWITCHED_ON,
    Action,
    Goal,
    GoalItem,
    Household,
    State,
)

if TYPE_CHECKING:  # (unified-planning has no type information: these are Any to the checker)
    from unified_planning.model import Problem
    from unified_planning.plans import Plan
from llm_planner.errors import GoalError, PlanningError

DOMAIN_NAME = "household"
BASE_TYPES = ("room", "furniture", "container", "surface", "item")

#: PDDL action name -> (symbolic verb, indices of the PDDL parameters that are its arguments).
ACTION_MAP: dict[str, tuple[str, tuple[int, ...]]] = {
    "walk_room": ("walk", (0,)),
    "walk_furniture": ("walk", (0,)),
    "walk_item_in": ("walk", (0,)),
    "walk_item_on": ("walk", (0,)),
    "grab_in": ("grab", (0,)),
    "grab_on": ("grab", (0,)),
    "open": ("open", (0,)),
    "close": ("close", (0,)),
    "putin": ("putin", (0, 1)),
    "puton": ("puton", (0, 1)),
    "switchon": ("switchon", (0,)),
    "switchoff": ("switchoff", (0,)),
}
PREDICATES = ("robot_in", "near", "holding", "hand_empty", "opened", INSIDE, ON, "furniture_in")
#: The type of a switchable thing that is not furniture, and the predicates of switching.
DEVICE_TYPE = "device"
SWITCH_PREDICATES = ("switched_on", "switch_at")
#: Goal atoms of the state relations (``closed``/``off`` are their negations).
_STATE_ATOMS = {OPEN: "(opened {})", CLOSED: "(not (opened {}))",
                SWITCHED_ON: "(switched_on {})", OFF: "(not (switched_on {}))"}
_RESERVED = frozenset(BASE_TYPES + PREDICATES + (DEVICE_TYPE,) + SWITCH_PREDICATES + tuple(ACTION_MAP) + (
    "object", "and", "or", "not", "exists", "forall", "when", "either", "imply", "define", "domain", "problem"))
_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_UP_LOCK = threading.Lock()  # unified-planning's global environment is shared by every thread

# Result statuses of :class:`PlanResult`.
SOLVED = "solved"
UNSOLVABLE = "unsolvable"
TIMEOUT = "timeout"
INVALID_GOAL = "invalid_goal"
ERROR = "error"

_ACTIONS_PDDL = """\
  (:action walk_room
    :parameters (?r - room)
    :effect (and (forall (?x - room) (not (robot_in ?x))) (robot_in ?r)
                 (forall (?g - furniture) (not (near ?g)))))
  (:action walk_furniture
    :parameters (?f - furniture ?r - room)
    :precondition (and (robot_in ?r) (furniture_in ?f ?r))
    :effect (and (forall (?g - furniture) (not (near ?g))) (near ?f)))
  (:action walk_item_in
    :parameters (?o - item ?c - container ?r - room)
    :precondition (and (robot_in ?r) (furniture_in ?c ?r) (opened ?c) (inside ?o ?c))
    :effect (and (forall (?g - furniture) (not (near ?g))) (near ?c)))
  (:action walk_item_on
    :parameters (?o - item ?s - surface ?r - room)
    :precondition (and (robot_in ?r) (furniture_in ?s ?r) (on ?o ?s))
    :effect (and (forall (?g - furniture) (not (near ?g))) (near ?s)))
  (:action grab_in
    :parameters (?o - item ?c - container)
    :precondition (and (near ?c) (opened ?c) (inside ?o ?c) (hand_empty))
    :effect (and (not (inside ?o ?c)) (not (hand_empty)) (holding ?o)))
  (:action grab_on
    :parameters (?o - item ?s - surface)
    :precondition (and (near ?s) (on ?o ?s) (hand_empty))
    :effect (and (not (on ?o ?s)) (not (hand_empty)) (holding ?o)))
  (:action open
    :parameters (?c - container)
    :precondition (and (near ?c) (not (opened ?c)))
    :effect (opened ?c))
  (:action close
    :parameters (?c - container)
    :precondition (and (near ?c) (opened ?c))
    :effect (not (opened ?c)))
  (:action putin
    :parameters (?o - item ?c - container)
    :precondition (and (holding ?o) (near ?c) (opened ?c))
    :effect (and (not (holding ?o)) (hand_empty) (inside ?o ?c)))
  (:action puton
    :parameters (?o - item ?s - surface)
    :precondition (and (holding ?o) (near ?s))
    :effect (and (not (holding ?o)) (hand_empty) (on ?o ?s)))
"""
_SWITCH_ACTIONS_PDDL = """\
  (:action switchon
    :parameters (?d - object ?f - furniture)
    :precondition (and (switch_at ?d ?f) (near ?f) (not (switched_on ?d)))
    :effect (switched_on ?d))
  (:action switchoff
    :parameters (?d - object ?f - furniture)
    :precondition (and (switch_at ?d ?f) (near ?f) (switched_on ?d))
    :effect (not (switched_on ?d)))
"""


@dataclass(frozen=True)
class PlanResult:
    """Outcome of :func:`solve`. ``actions`` is the verified plan, or None when there is none."""

    actions: list[Action] | None
    status: str  # SOLVED, UNSOLVABLE, TIMEOUT, INVALID_GOAL or ERROR
    seconds: float
    message: str

    @property
    def solved(self) -> bool:
        return self.status == SOLVED and self.actions is not None


# --------------------------------------------------------------------------------- export
def check_names(household: Household) -> None:
    """Every scene name must be a plain PDDL name that does not clash with the domain's own."""
    for kind, names in (("room", household.rooms), ("furniture", household.furniture),
                        ("object type", tuple(household.scene.object_types)), ("object", household.objects),
                        ("switchable thing", household.switchables)):
        for name in names:
            if not _NAME.match(name):
                raise PlanningError(f"cannot export {kind} '{name}' to PDDL: use lower-case letters, digits "
                                    "and '_' only, starting with a letter (rename it in the scene file)")
            if name in _RESERVED:
                raise PlanningError(f"cannot export {kind} '{name}' to PDDL: the name is reserved by the "
                                    "household domain (rename it in the scene file)")


def domain_pddl(household: Household, switches: bool = False) -> str:
    """The PDDL domain of the household world: types per object type, the symbolic actions; with
    ``switches`` also the switchable things' type, predicates and actions (module docstring)."""
    check_names(household)
    object_types = " ".join(household.scene.object_types)
    device = f" {DEVICE_TYPE}" if switches else ""
    switch_predicates = "\n               (switched_on ?d - object) (switch_at ?d - object ?f - furniture)"
    return (
        f"(define (domain {DOMAIN_NAME})\n"
        "  (:requirements :strips :typing :negative-preconditions :equality\n"
        "                 :existential-preconditions :conditional-effects)\n"
        f"  (:types room furniture item{device} - object\n"
        "          container surface - furniture\n"
        f"          {object_types} - item)\n"
        "  (:predicates (robot_in ?r - room) (near ?f - furniture) (holding ?o - item) (hand_empty)\n"
        "               (opened ?c - container) (inside ?o - item ?c - container) (on ?o - item ?s - surface)\n"
        f"               (furniture_in ?f - furniture ?r - room){switch_predicates if switches else ''})\n"
        f"{_ACTIONS_PDDL}{_SWITCH_ACTIONS_PDDL if switches else ''})\n"
    )


def goal_item_pddl(item: GoalItem, tag: str = "") -> str:
    """One goal tuple as an existential formula with ``count`` distinct variables of the type; a
    state item as its atom or negated atom (``(closed, fridge)`` -> ``(not (opened fridge))``)."""
    if item.is_state:
        return _STATE_ATOMS[item.rel].format(item.obj_type)
    names = [f"?{item.obj_type}{tag}{i}" for i in range(1, item.count + 1)]
    params = " ".join(f"{v} - {item.obj_type}" for v in names)
    atoms = [f"({item.rel} {v} {item.destination})" for v in names]
    distinct = [f"(not (= {a} {b}))" for i, a in enumerate(names) for b in names[i + 1:]]
    body = " ".join(distinct + atoms)
    return f"(exists ({params}) {body if len(distinct + atoms) == 1 else f'(and {body})'})"


def goal_pddl(goal: Sequence[GoalItem]) -> str:
    """The PDDL goal formula of a symbolic goal (a conjunction of existential items)."""
    parts = [goal_item_pddl(item, tag=f"_g{k}_" if len(goal) > 1 else "_") for k, item in enumerate(goal)]
    return parts[0] if len(parts) == 1 else "(and " + "\n        ".join(parts) + ")"


def init_atoms(household: Household, state: State, switchables: Sequence[str] = ()) -> list[str]:
    """The fully observed state as PDDL atoms; of the switchable things, those of ``switchables``."""
    atoms = [f"(robot_in {state.room})"]
    if state.near is not None:
        atoms.append(f"(near {state.near})")
    atoms.append(f"(holding {state.holding})" if state.holding is not None else "(hand_empty)")
    atoms += [f"(opened {c})" for c in sorted(state.opened)]
    atoms += [f"({household.relation(f)} {o} {f})" for o, f in zip(household.objects, state.placement, strict=True)
              if f is not None]
    atoms += [f"(furniture_in {f} {household.furniture_room[f]})" for f in household.furniture]
    atoms += [f"(switched_on {d})" for d in switchables if d in state.switched_on]
    atoms += [f"(switch_at {d} {household.switch_at[d]})" for d in switchables]
    return atoms


def problem_pddl(household: Household, state: State, goal: Sequence[GoalItem] | str, name: str = "task", *,
                 extra_objects: Sequence[str] = (), extra_init: Sequence[str] = (),
                 switchables: Sequence[str] = ()) -> str:
    """The PDDL problem of reaching ``goal`` (a symbolic goal or a PDDL goal formula) from ``state``.

    ``switchables`` are the switchable things the plan may switch (for the domain with
    ``switches``; :func:`plan_switchables` gives a goal's). ``extra_objects`` (declarations such as
    ``"s0 s1 s2 - step"``) and ``extra_init`` (atoms) serve domains derived from this one, e.g. the
    Levy-Karpas plan-template encoding (``llm_planner.methods.levy_karpas``)."""
    check_names(household)
    if not _NAME.match(name):
        raise PlanningError(f"problem name '{name}' is not a PDDL name (lower-case letters, digits, '_')")
    goal_text = goal if isinstance(goal, str) else goal_pddl(goal)
    containers = [f for f in household.furniture if household.is_container[f]]
    surfaces = [f for f in household.furniture if not household.is_container[f]]
    by_type: dict[str, list[str]] = {}
    for o in household.objects:
        by_type.setdefault(household.object_type[o], []).append(o)
    objects = [f"    {' '.join(household.rooms)} - room",
               f"    {' '.join(containers)} - container" if containers else "",
               f"    {' '.join(surfaces)} - surface" if surfaces else ""]
    objects += [f"    {' '.join(names)} - {t}" for t, names in by_type.items()]
    devices = [d for d in switchables if d not in household.furniture_room]
    objects += [f"    {' '.join(devices)} - {DEVICE_TYPE}"] if devices else []
    objects += [f"    {line}" for line in extra_objects]
    init = "\n    ".join(init_atoms(household, state, switchables) + list(extra_init))
    return (
        f"(define (problem {name}) (:domain {DOMAIN_NAME})\n"
        "  (:objects\n" + "\n".join(line for line in objects if line) + ")\n"
        f"  (:init\n    {init})\n"
        f"  (:goal {goal_text}))\n"
    )


def plan_switchables(household: Household, goal: Sequence[GoalItem] | str) -> tuple[str, ...]:
    """The switchable things a plan for ``goal`` may switch: those its on/off items name (none for
    a PDDL goal formula, whose caller passes them)."""
    return () if isinstance(goal, str) else household.goal_switchables(goal)


# ---------------------------------------------------------------------------------- solve
def solve(household: Household, state: State, goal: Sequence[GoalItem] | str, timeout_s: float = 30.0,
          optimal: bool = False, *, domain: str | None = None, extra_objects: Sequence[str] = (),
          extra_init: Sequence[str] = (), switchables: Sequence[str] | None = None) -> PlanResult:
    """Plan from the fully observed ``state`` to ``goal`` with Fast Downward (lama-first, or A* with
    LM-cut when ``optimal``) through unified-planning, then verify the plan by replaying it through
    :meth:`Household.step`. ``goal`` is a symbolic goal or a PDDL goal formula over the domain.

    A plan that does not replay is reported as ``status='error'``, never as solved; PDDL goal text
    that does not parse raises PlanningError. The time limit
    is enforced by unified-planning, which kills Fast Downward's whole process group on expiry.
    Concurrent calls are safe: processes keep Fast Downward's files in their own temporary
    directories (``fd_engine``); threads of one process take turns (unified-planning's global
    environment is not thread-safe), and the wait counts against ``timeout_s``.

    ``domain`` replaces :func:`domain_pddl` by a domain *derived* from it (same action names, extra
    parameters appended, so plans still map through :data:`ACTION_MAP`), with ``extra_objects`` and
    ``extra_init`` added to the problem; the Levy-Karpas plan-template encoding uses this.
    ``switchables`` (default :func:`plan_switchables` of the goal) are the things the plan may
    switch; when there are any, the default domain is the one with switches.
    """
    started = time.perf_counter()

    def result(actions: list[Action] | None, status: str, message: str) -> PlanResult:
        return PlanResult(actions, status, time.perf_counter() - started, message)

    if not isinstance(goal, str):
        try:
            goal = household.check_goal(goal)
        except GoalError as exc:
            return result(None, INVALID_GOAL, f"invalid goal: {exc}")
    if timeout_s <= 0:
        raise PlanningError(f"timeout_s must be positive, got {timeout_s}")
    switches = plan_switchables(household, goal) if switchables is None else tuple(switchables)
    texts = (domain or domain_pddl(household, switches=bool(switches)),
             problem_pddl(household, state, goal, extra_objects=extra_objects, extra_init=extra_init,
                          switchables=switches))
    if not _UP_LOCK.acquire(timeout=timeout_s):
        return result(None, TIMEOUT, f"another plan was still being computed in this process after {timeout_s:g} s")
    try:
        problem = _parse(*texts)
        remaining = max(timeout_s - (time.perf_counter() - started), 0.01)
        status, plan, log = _run_fast_downward(problem, remaining, optimal)
        valid = status == SOLVED and (not isinstance(goal, str) or _validate(problem, plan))
    finally:
        _UP_LOCK.release()
    if status == TIMEOUT:
        return result(None, status, f"no plan within the time limit of {timeout_s:g} s: {log}")
    if status != SOLVED or plan is None:  # (solved has a plan)
        return result(None, status, log)
    actions = [to_action(step.action.name, [p.object().name for p in step.actual_parameters]) for step in plan.actions]
    problem_text = replay_problem(household, state, actions, goal if not isinstance(goal, str) else None)
    if problem_text is not None:
        return result(None, ERROR, f"Fast Downward's plan does not replay in the symbolic model: {problem_text}")
    if not valid:
        return result(None, ERROR, "Fast Downward's plan does not reach the PDDL goal (plan validator)")
    return result(actions, SOLVED, f"plan of {len(actions)} actions")


def to_action(pddl_name: str, params: Sequence[str]) -> Action:
    """The symbolic action of a ground PDDL action (``walk_furniture fridge kitchen`` -> ``walk(fridge)``)."""
    if pddl_name not in ACTION_MAP:
        raise PlanningError(f"unknown PDDL action '{pddl_name}' (domain actions: {', '.join(ACTION_MAP)})")
    verb, keep = ACTION_MAP[pddl_name]
    return Action(verb, tuple(params[i] for i in keep))


def replay_problem(household: Household, state: State, actions: Sequence[Action], goal: Goal | None) -> str | None:
    """None when ``actions`` are applicable in turn from ``state`` (and reach ``goal`` if given),
    else what went wrong."""
    for k, action in enumerate(actions):
        reason = household.why_not(state, action)
        if reason is not None:
            return f"step {k + 1} {action}: {reason}"
        state = household.transition(state, action)
    if goal is not None and not household.satisfied(state, goal):
        return "the final state does not satisfy the goal"
    return None


def _parse(domain_text: str, problem_text: str) -> Problem:
    """Parse into a unified-planning problem (global environment: UP 1.3's reader creates the
    variables of universal effects there whatever environment it is given)."""
    from unified_planning.io import PDDLReader  # noqa: PLC0415 - heavy optional: unified-planning engines only when a PDDL plan is solved
    from unified_planning.shortcuts import get_environment  # noqa: PLC0415 - heavy optional: unified-planning engines only when a PDDL plan is solved

    get_environment().credits_stream = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # pyparsing's camelCase names, inside UP
            return PDDLReader().parse_problem_string(domain_text, problem_text)
    except Exception as exc:  # noqa: BLE001 - the reader raises many kinds; all mean bad PDDL
        raise PlanningError(f"the PDDL problem does not parse: {exc}") from None


def _run_fast_downward(problem: Problem, timeout_s: float, optimal: bool) -> tuple[str, Plan | None, str]:
    """Run the engine; returns (status, plan, log text)."""
    from unified_planning.engines import PlanGenerationResultStatus as S  # noqa: PLC0415 - heavy optional: unified-planning engines only when a PDDL plan is solved

    from llm_planner.domains.household.world.fd_engine import engine_name  # noqa: PLC0415 - heavy optional: fd_engine loads scipy, unified_planning at import

    factory = problem.environment.factory
    engine = engine_name(factory, optimal)
    with warnings.catch_warnings():
        # The optimal engine does not declare FORALL_EFFECTS, but ours are unconditional universal
        # effects, which Fast Downward's translator grounds into plain effects (LM-cut accepts them).
        warnings.simplefilter("ignore", UserWarning)
        with factory.OneshotPlanner(name=engine) as planner:
            res = planner.solve(problem, timeout=timeout_s)
    if res.status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY) and res.plan is not None:
        return SOLVED, res.plan, ""
    if res.status in (S.UNSOLVABLE_PROVEN, S.UNSOLVABLE_INCOMPLETELY):
        return UNSOLVABLE, None, "Fast Downward found no plan: the goal is unreachable from this state"
    if res.status == S.TIMEOUT:
        return TIMEOUT, None, f"Fast Downward was stopped at the time limit ({timeout_s:.2f} s left of the budget)"
    errors = " ".join(m.message.strip() for m in res.log_messages or [] if m.message.strip())[-600:]
    return ERROR, None, f"Fast Downward failed ({res.status.name}): {errors}"


def _validate(problem: Problem, plan: Plan) -> bool:
    with problem.environment.factory.PlanValidator(problem_kind=problem.kind, plan_kind=plan.kind) as validator:
        return bool(validator.validate(problem, plan))
