"""``classical``: Fast Downward (through unified-planning) on the fully observed state.

Not one of the papers' methods: the reference strategy that needs no language model, used by
/plan_task until (or instead of) the LLM planners, and as an oracle in tests. It sees the full
state, says so in its description, and replans from the current full state when a step fails.
Goals may mix placements and states (open/closed, on/off): ``pddl.solve`` lets the plan switch the
things the goal's on/off items name, and a state that already holds costs no step. The robot judges
a goal on what it has seen, so when the plan is done (or empty: the goal already held) and the goal
is not yet seen to hold, the planner walks to the rooms the goal names that the robot has not
looked at since the task began, one at a time.
"""
from __future__ import annotations

from typing import Any

from llm_planner.domains.household.world.episode import HouseholdPlanner, Task
from llm_planner.domains.household.world.pddl import solve
from llm_planner.domains.household.world.symbolic import Action, Observation, State
from llm_planner.planners.base import Decision, register


@register("classical")
class ClassicalPlanner(HouseholdPlanner):
    needs_full_state = True

    def __init__(self, timeout_s: float = 60.0, max_replans: int = 3, **params: Any) -> None:
        super().__init__(**params)
        self.timeout_s = timeout_s
        self.max_replans = max_replans
        self.plan: list[Action] = []
        self.replans = 0
        self.failure = ""
        self.replan_pending = False
        self.seen_rooms: set[str] = set()  # rooms the robot observed during this task

    def describe(self) -> str:
        return "classical planner (Fast Downward on the fully observed state; no language model used)"

    def start(self, task: Task, observation: Observation, full_state: State | None = None) -> None:
        self.task = task
        self.replans = 0
        self.seen_rooms = {observation.room}
        self._replan(full_state)

    def _replan(self, full_state: State | None) -> None:
        assert self.task is not None
        if full_state is None:
            self.plan, self.failure = [], "the classical planner needs the full state"
            return
        with self.stats.timing():
            result = solve(self.task.household, full_state, self.task.goal, timeout_s=self.timeout_s)
        self.plan = list(result.actions or [])
        self.failure = "" if result.actions is not None else f"no plan: {result.message or result.status}"

    def decide(self, observation: Observation, full_state: State | None = None) -> Decision:
        self.stats.decisions += 1
        if self.replan_pending:
            self.replan_pending = False
            self._replan(full_state)
        self.seen_rooms.add(observation.room)
        if not self.plan:
            look = None if self.failure else self._room_to_look_at()
            if look is not None:
                return Decision(Action("walk", (look,)))
            return Decision(None, self.failure or "plan finished but the goal is not seen to hold")
        return Decision(self.plan[0])

    def _room_to_look_at(self) -> str | None:
        """The first room the goal names (where a goal thing or destination stands) that the robot
        has not observed during this task, or None."""
        assert self.task is not None
        household = self.task.household
        for item in self.task.goal:
            furniture = (household.switch_at.get(item.obj_type, item.obj_type) if item.is_state
                         else item.destination)
            room = household.furniture_room.get(furniture)
            if room is not None and room not in self.seen_rooms:
                return room
        return None

    def record(self, action: Action, success: bool, reason: str, observation: Observation) -> None:
        self.seen_rooms.add(observation.room)
        if success and not self.plan and action.verb == "walk":
            return  # a look at a room the goal names (decide)
        if success and self.plan and self.plan[0] == action:
            self.plan.pop(0)
            return
        self.replans += 1
        self.plan = []
        self.failure = f"step {action} failed ({reason}); gave up after {self.max_replans} replans"
        self.replan_pending = self.replans <= self.max_replans

    def preview(self) -> list[Action]:
        return list(self.plan)
