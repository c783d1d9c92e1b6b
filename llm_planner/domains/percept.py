"""What perception reports and what grounding returns, as plain data both worlds share (the ROS
codec :mod:`llm_planner_ros.conversions` converts exactly these)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llm_planner.domains.geometry import BodyGeometry

#: A ground predicate as plain data, e.g. ``("INSIDE", ("apple_1", "fridge"))``.
Fact = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class Percept:
    """What one perception topic carries: the robot's room, ground predicates and the poses of the
    bodies it reports, stamped with the geometry it was computed from."""

    scene: str
    room: str
    predicates: tuple[Fact, ...]
    bodies: tuple[BodyGeometry, ...] = ()
    full_observation: bool = False
    stamp_ns: int = 0

    def facts(self) -> set[tuple[str, ...]]:
        """The predicates as flat tuples, ``("AtPosition", "salter", "on", "table2")``."""
        return {(name, *args) for name, args in self.predicates}


@dataclass(frozen=True)
class Translation:
    """A directive grounded into the domain's goal, with a sentence saying how it was read."""

    goal: Any
    message: str = ""
    llm_requests: int = 0
