"""The one closed loop that runs a planner on a world, step by step (no ROS here).

The executor node runs it against the robot (:class:`RobotWorld`: walks as ``navigate_to_pose``
goals, the other actions as ``robot/skill`` goals, observations from ``perception/state``); the
benchmarks run it against the symbolic model, the PyBullet apartment or the G-TAMP simulator. One
loop for every domain and every caller, so a benchmark measures exactly what the robot does: ask for
the next action, do it, take the observation after it, let the planner update its belief, stop when
the goal holds, the planner gives up, the step limit or the deadline is reached, or the caller asks
to stop (cancel). Stop requests and the deadline are checked before every decision and every skill;
on the robot a stop also cancels the goal under way (the base stops). Each step's record carries the
LLM requests of its decision and, after the planner took in the observation, where the planner
believes the goal's objects are (:meth:`~llm_planner.planners.base.Planner.describe_belief`).

Success is judged by the world, never by the planner's belief: the benchmarks' worlds judge their
true state (like VirtualHome's own goal check in the LLM-MCTS seed), the robot judges what it has
perceived (:meth:`~llm_planner.adapters.base.Domain.memory`), as a robot without a privileged view must.

Two guards for a robot in someone's home: the result counts ``unrelated_moves``, the
objects the robot grabbed that the goal does not name (the planners never should), and a
household episode that enters a state it has already been in :data:`REPEATED_STATE_VISITS` times
(after a successful step: where the robot is, what it holds, where the objects are, which containers
are open, as the world knows it, :meth:`World.loop_state`: the benchmarks' models their true state,
the robot what it has seen, :class:`SeenWorld`) with the planner's belief the same each time
(:meth:`~llm_planner.planners.base.Planner.belief_key`) stops there with a message naming the
repeated steps, instead of going round the loop until the step limit (``grab(x) puton(x, where it
was)`` again and again). A return to a state with a belief that changed since is exploration (a
robot that looked into a cupboard and walks back knows more than the first time), not a loop.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from llm_planner.domains.skill import Navigate, SkillOutcome, SkillRequest
from llm_planner.errors import DecisionCanceled, LlmPlannerError
from llm_planner.planners.base import ObjectBelief, Planner, PlannerStats
from llm_planner.spine import EpisodeDomain, Goal, GoalCheck, Task
from llm_planner.task_states import CANCELED, FAILED, SUCCEEDED, TIMED_OUT

#: A household episode stops when the world enters a state it was already in this many times (a loop).
REPEATED_STATE_VISITS = 2


class World(GoalCheck, Protocol):
    """What the loop needs from a world: do an action, observe, and judge the goal
    (:class:`~llm_planner.spine.GoalCheck`)."""

    def execute(self, action: Any) -> SkillOutcome: ...

    def observe(self) -> Any: ...

    def full_state(self) -> Any: ...

    def loop_state(self) -> Hashable:
        """The state the loop guard counts (None: not counted): the true state where the world knows
        it, what the robot has seen on a robot."""


@dataclass(frozen=True)
class StepRecord:
    step: int
    action: Any
    success: bool
    reason: str
    observation: Any
    action_text: str = ""      # the action as the domain writes it, e.g. walk(kitchen)
    observed: str = ""         # a short summary of the observation after the step
    llm_requests: int = 0      # the planner's LLM requests so far
    decision_llm_requests: int = 0   # the LLM requests of this step's decision
    belief: tuple[ObjectBelief, ...] = ()  # where the planner believes the goal's objects are, after the observation

    @property
    def outcome(self) -> str:
        return "ok" if self.success else self.reason

    def describe(self) -> str:
        outcome = "ok" if self.success else f"failed: {self.reason}"
        return f"{self.action_text} -> {outcome}; observed: {self.observed}"


@dataclass
class EpisodeResult:
    success: bool
    message: str
    steps: list[StepRecord] = field(default_factory=list)
    stats: PlannerStats = field(default_factory=PlannerStats)
    outcome: str = FAILED      # one of task_states.EPISODE_OUTCOMES
    unrelated_moves: int = 0   # objects grabbed that the goal does not name (household)

    @property
    def plan(self) -> list[str]:
        return [s.action_text for s in self.steps]


StepCallback = Callable[[StepRecord], None]


def run_episode(domain: EpisodeDomain, planner: Planner, task: Task, world: World, *,
                on_step: StepCallback | None = None, deadline: float | None = None,
                should_stop: Callable[[], bool] | None = None) -> EpisodeResult:
    """Run ``planner`` on ``world`` of ``domain`` until the goal holds, it gives up, or a limit is reached.

    ``domain`` writes the steps and says which moves the goal does not call for and whether states
    are counted for the loop guard (a :class:`~llm_planner.adapters.base.Domain` adapter, its class
    or an instance); ``task`` is the planner's task (``goal`` and ``max_steps``; a step limit of None
    leaves it to the planner); ``deadline`` a ``time.monotonic()`` value; ``should_stop`` is asked before every
    decision and every skill (a cancel request), and given to the planner as its
    :attr:`~llm_planner.planners.base.Planner.should_stop`, so a long decision ends on it too.
    A robot fault (LlmPlannerError from the world, e.g.
    a node that stopped answering) ends the episode failed with the steps done so far.
    """
    text = domain.step_text(task)
    steps: list[StepRecord] = []
    unrelated = [0]
    loops = _LoopGuard(domain, task)

    def end(outcome: str, message: str) -> EpisodeResult:
        return EpisodeResult(outcome == SUCCEEDED, message, steps, planner.stats, outcome, unrelated[0])

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() > deadline

    def interrupted() -> EpisodeResult | None:
        if should_stop is not None and should_stop():
            return end(CANCELED, f"canceled after {len(steps)} step(s)")
        if out_of_time():
            return end(TIMED_OUT, f"time limit reached after {len(steps)} step(s)")
        return None

    # a decision under way ends on a stop request and on the deadline alike
    planner.should_stop = (lambda: should_stop() or out_of_time()) if should_stop is not None else \
        (out_of_time if deadline is not None else None)
    try:
        observation = world.observe()
        if world.goal_reached(task.goal):
            return end(SUCCEEDED, "the goal already holds; nothing to do")
        planner.start(task, observation, world.full_state() if planner.needs_full_state else None)
        loops.enter(world, 0, planner.belief_key())
        step = 0
        while task.max_steps is None or step < task.max_steps:
            step += 1
            stop = interrupted()
            if stop:
                return stop
            requests_before = planner.stats.llm_requests
            decision = planner.decide(observation, world.full_state() if planner.needs_full_state else None)
            stop = interrupted()  # before the decision's own end: a stopped planner may give up
            if stop:
                return stop
            if decision.action is None:
                return end(FAILED, decision.message or "the planner gave up")
            decision_requests = planner.stats.llm_requests - requests_before
            outcome = world.execute(decision.action)
            observation = world.observe()
            planner.record(decision.action, outcome.success, outcome.reason, observation)
            record = StepRecord(step, decision.action, outcome.success, outcome.reason, observation,
                                text.format_action(decision.action), text.summarize(observation),
                                planner.stats.llm_requests, decision_requests, planner.describe_belief())
            steps.append(record)
            if outcome.success and loops.unrelated(decision.action):
                unrelated[0] += 1
            if on_step:
                on_step(record)
            if world.goal_reached(task.goal):
                return end(SUCCEEDED, f"goal reached in {step} steps")
            repeated = loops.enter(world, step, planner.belief_key()) if outcome.success else None
            if repeated:
                return end(FAILED, repeated + f": {_cycle_text(steps, repeated_since=loops.last_first)}")
    except DecisionCanceled as exc:
        if out_of_time() and not (should_stop is not None and should_stop()):
            return end(TIMED_OUT, f"time limit reached after {len(steps)} step(s), during a decision: {exc}")
        return end(CANCELED, f"canceled after {len(steps)} step(s): {exc}")
    except LlmPlannerError as exc:
        return end(FAILED, f"{exc} (after {len(steps)} step(s))")
    finally:
        planner.should_stop = None
    return end(FAILED, f"goal not reached within {task.max_steps} steps")


class _LoopGuard:
    """The states an episode has been in (after each successful step, as the world knows them) in a
    domain that counts them (:attr:`~llm_planner.spine.EpisodeDomain.counts_loops`, the household),
    and the moves its task's goal does not call for; see the module docstring."""

    def __init__(self, domain: EpisodeDomain, task: Task) -> None:
        self.domain = domain
        self.task = task
        self.visits: dict[tuple[Hashable, Hashable], list[int]] = {}
        self.last_first = 0

    def unrelated(self, action: Any) -> bool:
        """A move the goal does not call for (:meth:`~llm_planner.spine.EpisodeDomain.unrelated_move`)."""
        return self.domain.unrelated_move(self.task, action)

    def enter(self, world: World, step: int, belief: Hashable = None) -> str:
        """Count the world's state after ``step`` (:meth:`World.loop_state`) with the planner's
        ``belief`` then; a message when both were already so :data:`REPEATED_STATE_VISITS` times, else ''."""
        if not self.domain.counts_loops:
            return ""
        state = world.loop_state()
        if state is None:
            return ""
        seen = self.visits.setdefault((state, belief), [])
        seen.append(step)
        if len(seen) <= REPEATED_STATE_VISITS:
            return ""
        self.last_first = seen[-2]
        where = ", ".join("the start" if s == 0 else f"step {s}" for s in seen[:-1])
        return (f"stopped at step {step}: the world is back in the state it was in at {where} (a loop), with "
                "the planner's belief unchanged; the planner repeats itself instead of getting closer to the goal")


def _cycle_text(steps: Sequence[StepRecord], repeated_since: int) -> str:
    """The actions of the last round of a loop: those after step ``repeated_since``."""
    return "it repeated " + " ".join(s.action_text for s in steps[repeated_since:])


class RobotLink(Protocol):
    """The robot as the executor node reaches it (the robot contract): a navigation goal, a skill
    goal, and the latest percept of a perception topic. Each goal is canceled as soon as
    ``should_stop`` says so. All raise LlmPlannerError naming the node that did not answer in time."""

    def navigate(self, command: Navigate, should_stop: Callable[[], bool]) -> tuple[SkillOutcome, int]:
        """(outcome, a stamp in ns: perception stamped at or after it shows where the robot ended)."""

    def skill(self, command: SkillRequest, should_stop: Callable[[], bool]) -> tuple[SkillOutcome, int]:
        """(outcome, the stamp in ns of the skill's end: perception stamped at or after it shows its outcome)."""

    def percept(self, topic: str, after_ns: int) -> Any:
        """The latest :class:`~llm_planner.adapters.base.Percept` of ``topic`` stamped at or after ``after_ns``."""

    def publishes(self, topic: str) -> bool:
        """Whether some node publishes ``perception/<topic>`` (a privileged topic is optional)."""


class RobotWorld:
    """The robot as a :class:`World` of any domain: a planner's action becomes a navigation or skill
    goal (:meth:`~llm_planner.adapters.base.Domain.robot_command`); what it observes is the first
    percept at or after the goal's end; the goal is judged on what it has perceived during the task
    (:meth:`~llm_planner.adapters.base.Domain.memory`), never on a privileged view."""

    def __init__(self, domain: Any, link: RobotLink, after_ns: int = 0,
                 should_stop: Callable[[], bool] | None = None) -> None:
        self.domain = domain
        self.link = link
        self.after_ns = after_ns  # perception must be at least this recent
        self.should_stop = should_stop or (lambda: False)
        self.memory = domain.memory()
        self._percepts: tuple[int, Mapping[str, Any]] | None = None

    def percepts(self) -> Mapping[str, Any]:
        """The latest percept of each of the domain's perception topics at or after :attr:`after_ns`."""
        if self._percepts is None or self._percepts[0] != self.after_ns:
            percepts = {t: self.link.percept(t, self.after_ns) for t in self.domain.perception_topics}
            self.memory.update(percepts)
            self._percepts = (self.after_ns, percepts)
        return self._percepts[1]

    def execute(self, action: Any) -> SkillOutcome:
        command = self.domain.robot_command(action, self.observe())
        if isinstance(command, SkillOutcome):
            return command
        if isinstance(command, Navigate):
            outcome, self.after_ns = self.link.navigate(command, self.should_stop)
        else:
            outcome, self.after_ns = self.link.skill(command, self.should_stop)
        return outcome

    def observe(self) -> Any:
        return self.domain.observation(self.percepts())

    def full_state(self) -> Any:
        """The privileged view (only for planners that need it; :func:`run_task` checks it is published)."""
        privileged = {t: self.link.percept(t, self.after_ns) for t in self.domain.privileged_topics}
        return self.domain.full_state({**self.percepts(), **privileged})

    def goal_reached(self, goal: Any) -> bool:
        self.percepts()
        return self.memory.goal_reached(goal)

    def loop_state(self) -> Hashable:
        self.percepts()
        return self.memory.state()


def run_task(domain: Any, link: RobotLink, directive: str, goal: Goal, planner_name: str, timeout_s: float,
             *, start_ns: int = 0, on_step: StepCallback | None = None,
             should_stop: Callable[[], bool] | None = None) -> EpisodeResult:
    """The executor's task: a fresh planner for the domain's ``goal`` and :func:`run_episode` on the
    robot (first observation stamped at or after ``start_ns``; time limit ``timeout_s``, 0 for none).
    ``goal`` is the domain's goal object; its wire form (JSON) is the ROS layer's to read
    (``llm_planner_ros.conversions.goal_from_json``).
    ``planner_name`` is the registry name the planner node resolved (it is not resolved again). A
    planner the domain refuses, or one that needs a full view this robot does not publish, ends the
    task refused with the reason, before the robot moves."""
    try:
        planner = domain.make_planner(planner_name)
    except LlmPlannerError as exc:
        return EpisodeResult(False, f"cannot run the task: {exc}")
    try:
        if planner.needs_full_state and not all(link.publishes(t) for t in domain.privileged_topics):
            return EpisodeResult(False, f"refused: {domain.full_state_refusal(planner_name)} (no skill was sent)")
        task = domain.make_task(directive, goal, timeout_s)
        deadline = time.monotonic() + timeout_s if timeout_s > 0 else None
        world = RobotWorld(domain, link, start_ns, should_stop)
        return run_episode(domain, planner, task, world, on_step=on_step, deadline=deadline, should_stop=should_stop)
    finally:
        domain.close_planner(planner)
