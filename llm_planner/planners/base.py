"""The one small interface every planner implements; the executor and the benchmarks use only this.

A planner is driven in a closed loop (the executor node, or a benchmark episode)::

    planner.start(task, observation)
    while not done:
        decision = planner.decide(observation)      # next action, or None to give up
        result = robot_or_model.do(decision.action)
        observation = ...                           # the next partial observation
        planner.record(decision.action, result.success, result.reason, observation)

Planners that compute a whole plan up front (classical, PDDL, SayCanPay, STaLM) return its next
step from ``decide`` and replan when a step fails; online planners (LLM-MCTS) search at every
decision. ``preview`` answers "what would you do from here" for /plan_task without execution.
``describe_belief`` says where a planner that keeps a belief over object places (LLM-MCTS) thinks
the goal's objects are; the loop puts it, with the LLM requests of each decision, in every step
record (feedback, task_status, the demo report).

The interface is generic in the world's types: ``Planner[TaskT, ObsT, ActionT, StateT]``, bound
by the spine's protocols (:mod:`llm_planner.spine`); it imports no domain. The household planners
are ``HouseholdPlanner`` s (:mod:`llm_planner.domains.household.world.episode`: its ``Task``,
partial ``Observation`` s, symbolic ``Action`` s, the full ``State``); the G-TAMP planners
(``llm_planner.methods.stalm.planner``) take a ``GTampTask`` and perceived ``GState`` s and decide
``ConcreteAction`` s. Code that drives any planner (the closed loop, the nodes) uses ``Planner``.
"""
from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Iterator, Sequence
from concurrent.futures import Future, wait
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from llm_planner.errors import ConfigError
from llm_planner.plugins import domains, load_group
from llm_planner.spine import Action, Task


@dataclass
class PlannerStats:
    """Cost figures every planner keeps; reported by /plan_task and the benchmarks."""

    llm_requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    llm_seconds: float = 0.0
    planning_time_s: float = 0.0
    decisions: int = 0
    simulations: int = 0

    @contextmanager
    def timing(self) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.planning_time_s += time.perf_counter() - started


#: The types a planner works with: the task, an observation, an action, the full state
#: (:mod:`llm_planner.spine`).
TaskT = TypeVar("TaskT", bound=Task)
ObsT = TypeVar("ObsT")
ActionT = TypeVar("ActionT", bound=Action)
StateT = TypeVar("StateT")


@dataclass(frozen=True)
class Decision(Generic[ActionT]):
    """The next action (a household :class:`Action`, a G-TAMP ``ConcreteAction``), or
    ``action=None`` with a message saying why the planner stops."""

    action: ActionT | None
    message: str = ""


#: The place of an object the robot holds, in an :class:`ObjectBelief`.
HELD = "held"
#: How many of an object's most likely places a belief summary names, and the least probability named.
BELIEF_PLACES = 3
BELIEF_MIN_PROBABILITY = 0.005


@dataclass(frozen=True)
class ObjectBelief:
    """Where a planner believes one object is: its most likely places with their probabilities,
    most likely first."""

    obj: str
    places: tuple[tuple[str, float], ...]

    def describe(self) -> str:
        """``apple_1: fridge 0.62, kitchen_counter 0.30``."""
        return f"{self.obj}: " + ", ".join(f"{place} {p:.2f}" for place, p in self.places)


def describe_beliefs(beliefs: Sequence[ObjectBelief]) -> str:
    """One line for a belief summary: ``apple_1: fridge 0.62, ...; apple_2: ...`` ('' when empty)."""
    return "; ".join(b.describe() for b in beliefs)


class Planner(ABC, Generic[TaskT, ObsT, ActionT, StateT]):
    """Base class of all planners. Subclasses set ``name`` and implement ``start`` and ``decide``."""

    name: ClassVar[str] = ""
    #: True for planners allowed to see the full state (the fully_observable ablation, the
    #: classical fallback); everyone else only ever gets observations.
    needs_full_state: ClassVar[bool] = False
    #: The domain a planner plans in: "household" (the symbolic apartments) or "gtamp" (STaLM's
    #: geometric kitchen-and-hall problems), as the ``domain`` parameter names it. The nodes of each
    #: graph only offer their own domain's planners.
    domain: ClassVar[str] = "household"
    #: The closed loop's stop request (a cancel), set by it for the episode it runs. A planner whose
    #: decision can take long (it waits for a model, or searches) asks it while deciding and raises
    #: :class:`~llm_planner.errors.DecisionCanceled` when it is True; None: nothing asks to stop.
    should_stop: Callable[[], bool] | None = None

    def __init__(self, **params: Any) -> None:
        self.params = params
        self.stats = PlannerStats()
        self.task: TaskT | None = None

    @abstractmethod
    def start(self, task: TaskT, observation: ObsT, full_state: StateT | None = None) -> None:
        """Begin an episode from the first observation (and the full state if ``needs_full_state``)."""

    @abstractmethod
    def decide(self, observation: ObsT, full_state: StateT | None = None) -> Decision[ActionT]:
        """Choose the next action."""

    def record(self, action: ActionT, success: bool, reason: str, observation: ObsT) -> None:
        """Take in the outcome of the last action and the observation after it (belief update)."""

    def preview(self) -> list[ActionT]:
        """The actions the planner currently intends to take, in order (may be empty)."""
        return []

    def belief_key(self) -> Hashable:
        """What the planner knows now, as a value equal exactly when its knowledge is the same (the
        closed loop counts a return to a state as a loop only when this is the same too: a searching
        robot whose belief changed is exploring). None for a planner that keeps no belief."""
        return None

    def episode_stats(self) -> PlannerStats:
        """The cost figures of this planner's episodes so far, as plain data (a method may return a
        :class:`PlannerStats` subclass with figures of its own); the benchmarks read them."""
        return self.stats

    def describe_belief(self, k: int = BELIEF_PLACES) -> tuple[ObjectBelief, ...]:
        """Where the planner believes the goal's objects are after its last observation: the ``k``
        most likely places of each (a household planner: ``goal_object_beliefs``). Empty for a planner that
        keeps no belief over object places (full-state planners, STaLM)."""
        return ()


#: How often a planner's wait for a model's answers asks the closed loop's stop request (seconds):
#: a cancel ends a decision that waits for a slow model within about this long.
STOP_POLL_S = 0.1


def wait_unless_stopped(futures: Sequence[Future], timeout: float | None = None,
                        stop: Callable[[], bool] | None = None) -> bool:
    """True when every future ended within ``timeout`` seconds (None: no bound); with ``stop``
    (:attr:`Planner.should_stop`), asked every :data:`STOP_POLL_S` while they run, False as soon
    as it is True."""
    if stop is None:
        return not wait(futures, timeout=timeout).not_done
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = STOP_POLL_S if deadline is None else min(STOP_POLL_S, deadline - time.monotonic())
        if not wait(futures, timeout=max(0.0, left)).not_done:
            return True
        if stop() or (deadline is not None and time.monotonic() >= deadline):
            return False


_REGISTRY: dict[str, type[Planner]] = {}


def register(name: str) -> Callable[[type[Planner]], type[Planner]]:
    """Class decorator: make a planner creatable by name (``create('llm_mcts', ...)``)."""

    def wrap(cls: type[Planner]) -> type[Planner]:
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return wrap


def available(domain: str | None = None) -> list[str]:
    """Registered planner names, optionally only those of one domain (household or gtamp); loads
    that domain's planner modules (every domain's without one)."""
    _load_planners(domain)
    return sorted(name for name, cls in _REGISTRY.items() if domain is None or cls.domain == domain)


def observing(domain: str) -> list[str]:
    """The planners of ``domain`` that decide from the robot's own observations (not
    :attr:`Planner.needs_full_state`): the ones any robot of the contract can run."""
    return [name for name in available(domain) if not _REGISTRY[name].needs_full_state]


def create(name: str, **params: Any) -> Planner:
    """Instantiate a registered planner; unknown names raise ConfigError listing the known ones.
    A name not registered yet loads the domains' planner modules one domain at a time until it is."""
    if name not in _REGISTRY:
        for domain in domains():
            _load_planners(domain)
            if name in _REGISTRY:
                break
    if name not in _REGISTRY:
        raise ConfigError(f"unknown planner '{name}' (available: {', '.join(sorted(_REGISTRY))})")
    return _REGISTRY[name](**params)


def _load_planners(domain: str | None = None) -> None:
    """Import the method modules of a domain (all domains: None) so their ``@register`` decorators
    run. Which modules: ``planner_modules`` in ``config/methods.yaml`` and ``$LLM_PLANNER_METHODS``
    (:mod:`llm_planner.plugins`), imported on first use, so a node of one domain never loads the
    other domain's methods."""

    if domain and domain not in domains():
        return  # a domain without planner modules has no planners
    for each in ([domain] if domain else domains()):
        load_group("planner_modules", each)
