"""What a robot knows of a household from its own observations (no privileged view).

The executor judges the goal, and the closed loop's guard counts the states it has been in, on
this (the robot contract, docs/guides/robot.md): where each object was last seen, what the robot
holds, which containers it last saw open and which switchable things on. An object is forgotten
where it was when that place is seen again without it (a surface of the robot's room, an open
container), and while it is held. A placement goal item holds when enough objects of its type were
last seen at its destination; an object the robot never saw counts for nothing, so a goal that
already holds behind a closed door is found true when the robot looks. A state goal item holds on
the state last seen (a thing never seen on counts as off, a container never seen open as closed).
"""
from __future__ import annotations

from collections.abc import Sequence

from llm_planner.domains.household.world.symbolic import GoalItem, Household, Observation, State


class SeenWorld:
    """The household as the robot has seen it so far: :meth:`update` with each observation."""

    def __init__(self, household: Household) -> None:
        self.household = household
        self.where: dict[str, str] = {}  # object -> the furniture it was last seen at
        self.opened: set[str] = set()    # containers last seen open
        self.switched_on: set[str] = set()  # switchable things last seen on
        self.last: Observation | None = None

    def update(self, observation: Observation) -> None:
        """Take in one observation (App. A.5's: the robot's room, its open containers and what
        is on its surfaces and in those containers, what it holds)."""
        if observation is self.last:
            return
        seen = observation.seen_places
        self.where = {o: f for o, f in self.where.items() if f not in seen}
        self.where.update((o, f) for _, o, f in observation.relations)
        if observation.holding is not None:
            self.where.pop(observation.holding, None)
        self.opened = (self.opened - observation.closed_containers) | observation.open_containers
        self.switched_on = (self.switched_on - observation.switched_off) | observation.switched_on
        self.last = observation

    def state(self) -> State:
        """The robot's room, where it stands and what it holds (last observation), where each object
        was last seen (None: held or never seen), the containers last seen open and the switchable things
        last seen on."""
        last = self.last
        if last is None:
            raise ValueError("no observation yet: update() first")
        placement = tuple(self.where.get(o) for o in self.household.objects)
        return State(last.room, last.near, last.holding, placement, frozenset(self.opened),
                     frozenset(self.switched_on))

    def goal_reached(self, goal: Sequence[GoalItem]) -> bool:
        """Every goal item holds in what the robot has seen (``count`` objects of its type seen at
        its destination)."""
        return self.last is not None and self.household.satisfied(self.state(), tuple(goal))
