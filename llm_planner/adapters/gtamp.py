"""STaLM's G-TAMP kitchen-and-hall problems (seed 003) as a :class:`Domain`.

Problem from the ``problem`` parameter (P1..P6 or a YAML path); the simulator executes
concretized actions (:class:`ConcreteAction`, sent as JSON by :mod:`llm_planner.domains.gtamp.codec`) on
:class:`llm_planner.domains.gtamp.sim.GTampSim` and reports what its sensors see; perception rebuilds the
perceived :class:`GState` from that geometry and computes the geometric predicates (AtPosition,
PickOccludedBy, PlaceOccludedBy, ...) on its own collision model; a directive names the problem's
goal through the tiny grammar of :mod:`llm_planner.domains.gtamp.directive` (no language model).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llm_planner.adapters.base import Domain
from llm_planner.domains.geometry import GeometrySnapshot
from llm_planner.domains.gtamp.codec import encode
from llm_planner.domains.gtamp.directive import parse_directive
from llm_planner.domains.gtamp.domain import ConcreteAction, GoalAtom, GState, ProblemSpec
from llm_planner.domains.gtamp.perception import GeometryPerceiver, load_gtamp_problem, state_from_percept
from llm_planner.domains.gtamp.problems import parse_goal
from llm_planner.domains.gtamp.sim import GTampSimulator
from llm_planner.domains.percept import Percept, Translation
from llm_planner.domains.skill import SkillRequest
from llm_planner.errors import GoalError
from llm_planner.methods.stalm.llm_source import PlanSource
from llm_planner.methods.stalm.planner import LLM_METHODS, PLANNERS, GTampTask, registry_name
from llm_planner.planners.base import Planner, available, create
from llm_planner.spine import Task
from llm_planner.viz.markers import markers_from_problem


class GTampDomain(Domain):
    name = "gtamp"
    perception_topics = ("state",)

    def __init__(self, params: Mapping[str, Any], problem: ProblemSpec | None = None) -> None:
        super().__init__(params)
        self.problem = problem or load_gtamp_problem(self.params["problem"])

    @property
    def world_name(self) -> str:
        return f"G-TAMP problem '{self.problem.name}'"

    # ---------------------------------------------------------------- planners
    @classmethod
    def planner_names(cls) -> list[str]:
        """The registered G-TAMP planners: STaLM's table (``config/methods.yaml``) and any other
        method registered for this world (``$LLM_PLANNER_METHODS``)."""

        return available("gtamp")

    @classmethod
    def accepted_planner_names(cls) -> list[str]:
        """The registered planners and the seed's method names they answer to (``uct`` for ``gtamp_uct``)."""

        return sorted(set(cls.planner_names()) | set(PLANNERS))

    @classmethod
    def resolve_planner(cls, name: str) -> str:
        """A registry name (``gtamp_uct``) or a method name of the seed's tables (``uct``)."""

        if name in PLANNERS:
            return registry_name(name)
        return super().resolve_planner(name)

    def make_planner(self, name: str) -> Planner:
        """A G-TAMP planner; the methods that ask a language model get a plan source on the
        process's LanguageModel (its request counts are the planner's own)."""

        registered = self.registered_planner(name)
        method = next((m for m in PLANNERS if registry_name(m) == registered), None)
        if method is None:  # a G-TAMP planner of another method
            return create(registered, backend=self.language_model(), seed=self.params["seed"])
        source = PlanSource(self.language_model(), self.params["seed"]) if method in LLM_METHODS else None
        return create(registered, backend=self.params["llm_backend"], seed=self.params["seed"], plan_source=source)

    def make_task(self, directive: str, goal: tuple[GoalAtom, ...], timeout_s: float = 0.0) -> Task:
        return GTampTask(self.problem.with_goal(goal), time_budget_s=timeout_s or None,
                         max_steps=self.params["max_steps"], directive=directive)

    def close_planner(self, planner: Planner) -> None:
        ctx = getattr(planner, "ctx", None)
        if ctx is not None:
            ctx.model.world.close()

    # ---------------------------------------------------------------- directives and goals
    def ground(self, directive: str, planner: str) -> Translation:
        goal, how = parse_directive(directive, self.problem)
        return Translation(goal, f"goal: {how}")

    def goal_lists(self, goal: tuple[GoalAtom, ...]) -> list:
        return [["AtPosition", a.obj, a.direction, a.ref] for a in goal]

    def goal_from_lists(self, items: Any) -> tuple[GoalAtom, ...]:
        if not isinstance(items, list):
            raise GoalError('the goal must be a JSON list of ["AtPosition", object, direction, reference]')
        atoms = []
        for item in items:
            if not (isinstance(item, list) and len(item) == 4 and item[0] == "AtPosition"):
                raise GoalError(f'goal atom {item!r} must be ["AtPosition", object, direction, reference]')
            atoms.append(item[1:])
        return parse_goal(self.problem, atoms, where="goal")

    # ---------------------------------------------------------------- the robot
    def make_simulator(self) -> GTampSimulator:
        return GTampSimulator(self.problem)

    def make_perceiver(self) -> GeometryPerceiver:
        return GeometryPerceiver(self.problem)

    def markers(self, geometry: GeometrySnapshot) -> list[Any]:
        return markers_from_problem(self.problem, geometry)

    def robot_command(self, action: ConcreteAction, observation: GState) -> SkillRequest:
        """Every G-TAMP action is a skill (its base motion is part of pick and place): the operator
        and the JSON of the concrete action (:mod:`llm_planner.domains.gtamp.codec`)."""
        return SkillRequest(action.action.op, (encode(action),), (None,))

    def base_path(self, action: ConcreteAction) -> list[tuple[float, float]]:
        """The base path planned into a pick or place (its kappa), for pictures."""
        return [(q.x, q.y) for q in action.kappa.base_path] if action.kappa is not None else []

    def observation(self, percepts: Mapping[str, Percept]) -> GState:
        return state_from_percept(percepts["state"], self.problem)

    def goal_reached(self, percepts: Mapping[str, Percept], goal: tuple[GoalAtom, ...]) -> bool:
        facts = percepts["state"].facts()
        return all(("AtPosition", a.obj, a.direction, a.ref) in facts for a in goal)

    # ---------------------------------------------------------------- text
    @classmethod
    def step_text(cls, task: Any) -> GTampText:
        return GTampText(task.problem)


class GTampText:
    """Task actions as the seed writes them; a state as what the robot holds and where objects rest."""

    def __init__(self, problem: ProblemSpec) -> None:
        self.problem = problem

    @staticmethod
    def format_action(action: ConcreteAction) -> str:
        return str(action.action)

    def summarize(self, state: GState) -> str:
        names = self.problem.object_names
        held = f"holding {names[state.held]}" if state.held is not None else "hand empty"
        resting = [f"{n} on {p.region or '?'}" for n, p in zip(names, state.poses, strict=True) if p is not None]
        closed = [d for d, is_open in zip(self.problem.door_names, state.doors_open, strict=True) if not is_open]
        parts = [held, ", ".join(resting)] + ([f"closed: {', '.join(closed)}"] if closed else [])
        return "; ".join(p for p in parts if p)
