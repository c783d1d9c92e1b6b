"""What a world must provide so the four nodes and the closed loop can run it (no ROS here).

A :class:`Domain` is a small adapter over code that exists elsewhere in the core (the household
scene and simulator, the G-TAMP problems and PyBullet world). The nodes pick one by the
``domain`` parameter and call only this interface; messages are converted by the one codec in
:mod:`llm_planner_ros.conversions`, which only knows the plain data below.

The flow through it::

    simulator node   sim = domain.make_simulator();  ok, reason = sim.execute_skill(name, args)
                     poses, reason = sim.plan_navigation(pose); sim.move_base(pose)   (domain.navigates)
                     geometry = sim.geometry()                       -> sim/geometry
    perception node  percepts = domain.make_perceiver().perceive(geometry)  -> perception/<topic>
    planner node     translation = domain.ground(directive, planner)
    executor node    planner = domain.make_planner(name); task = domain.make_task(directive, goal, timeout)
                     run_episode(domain, planner, task, RobotWorld(domain, link)): each action becomes
                     domain.robot_command(action, observation), a navigate_to_pose or robot/skill goal

The executor needs only what any robot of the contract offers (docs/guides/robot.md):
``perception_topics`` (``perception/state``), ``navigate_to_pose`` and ``robot/skill``. A
``privileged_topics`` topic (the household's ``perception/full_state``) is an option of the
simulator, read only for planners that see the full state (``Planner.needs_full_state``).
"""
from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from llm_planner.clarification import Option, Question
from llm_planner.domains.geometry import GeometrySnapshot
from llm_planner.domains.percept import Percept, Translation
from llm_planner.domains.skill import PlaceCoverage, Pose2D, RobotCommand
from llm_planner.errors import ConfigError
from llm_planner.llm import make_backend
from llm_planner.planners.base import Planner, observing
from llm_planner.spine import StepText, Task
from llm_planner.viz.markers import markers_from_geometry


class Simulator(Protocol):
    """The simulator node's world: skills by name, what the sensors report, and the base path the
    last skill drove (map frame; empty when the base did not move), for pictures."""

    @property
    def last_path(self) -> list[tuple[float, float]]: ...

    def execute_skill(self, name: str, args: list[str]) -> tuple[bool, str]: ...

    def geometry(self) -> GeometrySnapshot: ...

    def close(self) -> None: ...


class MobileBase(Protocol):
    """A simulator whose robot goes places (``navigate_to_pose``, :attr:`Domain.navigates`): a drive
    planned and checked before the base moves, then the base moved pose by pose (the simulator
    node paces it and stops on cancel)."""

    def plan_navigation(self, pose: Pose2D) -> tuple[list[Pose2D], str]:
        """(the base poses from where the robot stands to ``pose``, "") or ([], why it cannot go)."""

    def move_base(self, pose: Pose2D) -> None: ...

    def base_pose(self) -> Pose2D: ...


class Memory(Protocol):
    """What the robot has perceived during a task, for judging its goal: the executor's view of the
    world, never a privileged one."""

    def update(self, percepts: Mapping[str, Percept]) -> None: ...

    def goal_reached(self, goal: Any) -> bool: ...

    def state(self) -> Any:
        """The state the closed loop's guard counts (None: not counted)."""


class LatestPercepts:
    """The memory of a fully observed world (G-TAMP): the goal is judged on the latest percepts."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain
        self.percepts: Mapping[str, Percept] | None = None

    def update(self, percepts: Mapping[str, Percept]) -> None:
        self.percepts = percepts

    def goal_reached(self, goal: Any) -> bool:
        return self.percepts is not None and self.domain.goal_reached(self.percepts, goal)

    def state(self) -> None:
        return None


class Perceiver(Protocol):
    """The perception node's computation: percepts per topic (``state``, ``full_state``) from geometry."""

    def perceive(self, geometry: GeometrySnapshot) -> dict[str, Percept]: ...

    def close(self) -> None: ...


class Domain(ABC):
    """A domain (household, gtamp: the ``domain`` parameter) the node graph and the closed loop run,
    on one world of it (a scene or a problem, :attr:`world_name`). Subclasses are registered in
    :mod:`llm_planner.adapters` and built from the node parameters (:mod:`llm_planner.config`)."""

    name: ClassVar[str] = ""
    #: perception topics (under ``perception/``) every robot publishes and the executor reads
    perception_topics: ClassVar[tuple[str, ...]] = ("state",)
    #: perception topics only the simulator's perception publishes (a privileged view), read only
    #: for planners that need the full state
    privileged_topics: ClassVar[tuple[str, ...]] = ()
    #: whether plans go places (``walk``): the robot serves ``navigate_to_pose``
    navigates: ClassVar[bool] = False
    #: whether the closed loop's guard counts returns to a state as a loop
    #: (:class:`~llm_planner.spine.EpisodeDomain`)
    counts_loops: ClassVar[bool] = False

    def __init__(self, params: Mapping[str, Any]) -> None:
        self.params = dict(params)
        self._lm: Any = None
        self._lm_lock = threading.Lock()

    def language_model(self) -> Any:
        """The process's LanguageModel (``llm_backend``, ``llm_config``): the translation and every
        planner of this process ask the same one."""
        with self._lm_lock:
            if self._lm is None:
                fallback = self.params.get("llm_fallback", "offline") == "offline"  # node parameter llm_fallback
                self._lm = make_backend(self.params.get("llm_config") or None, backend=self.params["llm_backend"],
                                        fallback_to_offline=fallback)
            return self._lm

    def reset_language_model(self) -> None:
        """Forget the LanguageModel: the next question builds one from the current parameters (a
        running task keeps the one it has)."""
        with self._lm_lock:
            self._lm = None
            if getattr(self, "_translate", None) is not None:
                self._translate = None  # a translator keeps the model it was built with

    # ---------------------------------------------------------------- identity
    @property
    @abstractmethod
    def world_name(self) -> str:
        """The scene or problem the nodes run (for log lines)."""

    # ---------------------------------------------------------------- planners
    @classmethod
    @abstractmethod
    def planner_names(cls) -> list[str]:
        """The registry names of this domain's planners."""

    @classmethod
    def accepted_planner_names(cls) -> list[str]:
        """Every planner name :meth:`resolve_planner` accepts (registry names and their aliases): what
        ``ros2 param describe`` lists for ``planner``."""
        return cls.planner_names()

    @classmethod
    def resolve_planner(cls, name: str) -> str:
        """The registry name for a planner name given by a user; ConfigError listing the known ones."""

        known = cls.planner_names()
        if name not in known:
            raise ConfigError(f"unknown planner '{name}' for the {cls.name} domain (available: {', '.join(known)})")
        return name

    @classmethod
    def registered_planner(cls, name: str) -> str:
        """``name`` when it is a registry name of this domain's planners (what :meth:`resolve_planner`
        returns); ConfigError otherwise. A request's planner name is resolved once, where the request
        comes in (:meth:`llm_planner.service.PlanningService.prepare`); what follows only checks it."""

        known = cls.planner_names()
        if name not in known:
            raise ConfigError(f"unknown planner '{name}' for the {cls.name} domain (registered: {', '.join(known)}; "
                              "a name a user gives is resolved by resolve_planner first)")
        return name

    @abstractmethod
    def make_planner(self, name: str) -> Planner:
        """A fresh planner with the node's LLM backend, LLM configuration and seed; ``name`` is a
        registry name (:meth:`resolve_planner` resolved it once, see :meth:`registered_planner`)."""

    @abstractmethod
    def make_task(self, directive: str, goal: Any, timeout_s: float = 0.0) -> Task:
        """The planner's task for a grounded goal (step limit from ``max_steps``)."""

    def close_planner(self, planner: Planner) -> None:  # noqa: B027 - optional: most planners hold nothing
        """Release what a planner holds (a G-TAMP planner's collision world)."""

    # ---------------------------------------------------------------- directives and goals
    @abstractmethod
    def ground(self, directive: str, planner: str) -> Translation:
        """The directive as a goal of this world; GoalError saying what was wrong."""

    @abstractmethod
    def goal_lists(self, goal: Any) -> list:
        """The goal as JSON-able lists (the ``goal`` field of the responses)."""

    @abstractmethod
    def goal_from_lists(self, items: Any) -> Any:
        """The inverse of :meth:`goal_lists`, checked against the world's names."""

    def goal_text(self, goal: Any) -> str:
        """The goal as a person reads it (an approval question's "May I <goal>?"); by default its lists."""
        return str(self.goal_lists(goal))

    def read_answer(self, question: Question, text: str) -> Option | None:
        """The option of ``question`` an answer picks, read by the domain's directive reader (names,
        rooms, ordinals, counts); None when it names none. By default the domain has no reader: the
        question's own reading (:meth:`~llm_planner.clarification.Question.read`) is all."""
        return None

    # ---------------------------------------------------------------- the robot
    @abstractmethod
    def make_simulator(self) -> Simulator:
        """The simulated robot and world (the simulator node owns it)."""

    @abstractmethod
    def make_perceiver(self) -> Perceiver:
        """Perception from geometry (the perception node owns it)."""

    def markers(self, geometry: GeometrySnapshot) -> list[Any]:
        """The world in this geometry as RViz marker descriptions (:mod:`llm_planner.viz.markers`)."""

        return markers_from_geometry(geometry)

    def percept_problems(self, percept: Percept) -> tuple[list[str], list[str]]:
        """What in a robot's percept does not fit this world (``llm-planner check-robot``):
        (problems, warnings); none unless the domain checks."""
        return [], []

    def place_coverage(self) -> PlaceCoverage | None:
        """The places a plan can send the robot to and which have a pose; None when the world has
        no named places to go to."""
        return None

    @abstractmethod
    def robot_command(self, action: Any, observation: Any) -> RobotCommand:
        """What the robot is sent for a planner's action, given the latest observation: a
        :class:`~llm_planner.domains.skill.Navigate` goal, a
        :class:`~llm_planner.domains.skill.SkillRequest`, or a failed
        :class:`~llm_planner.domains.skill.SkillOutcome` (not sent) when the observation shows it
        cannot be done, with the reason the world model gives."""

    def base_path(self, action: Any) -> list[tuple[float, float]]:
        """The base path (map frame) an action drives as part of a skill, for pictures; empty by
        default (a walk's path comes from the navigation feedback)."""
        return []

    @abstractmethod
    def observation(self, percepts: Mapping[str, Percept]) -> Any:
        """What the planner observes, from the latest percepts."""

    def full_state(self, percepts: Mapping[str, Percept]) -> Any:
        """The full state (for planners that may see it); by default the observation."""
        return self.observation(percepts)

    @abstractmethod
    def goal_reached(self, percepts: Mapping[str, Percept], goal: Any) -> bool:
        """Whether the goal holds in what these percepts show (the robot's own view)."""

    def full_state_refusal(self, planner: str) -> str:
        """Why ``planner``, which plans on the full state, cannot run on a robot that publishes no
        privileged topic; names the planners that can."""

        topics = ", ".join(f"perception/{t}" for t in self.privileged_topics) or "a full view"
        return (f"planner {planner} plans on the full state of the world ({topics}), which this robot does not "
                "publish (the simulator's perception does; a real robot sees only what is in view); choose a planner "
                f"that decides from the robot's own observations: {', '.join(observing(self.name))}")

    def memory(self) -> Memory:
        """A fresh memory of what the robot perceives during one task (its goal is judged on it); by
        default the latest percepts, as for a fully observed world."""
        return LatestPercepts(self)

    # ---------------------------------------------------------------- the closed loop
    @classmethod
    @abstractmethod
    def step_text(cls, task: Any) -> StepText:
        """How actions and observations of a task of this domain are written."""

    @classmethod
    def unrelated_move(cls, task: Any, action: Any) -> bool:
        """Whether ``action`` moved something ``task``'s goal does not name; by default nothing is counted."""
        return False
