"""What a household skill returns, and the small records the simulator's parts share while doing one."""
from __future__ import annotations

from dataclasses import dataclass

from llm_planner.domains.shapes import Frame2D
from llm_planner.errors import SceneError

Vec3 = tuple[float, float, float]
Point = tuple[float, float]


@dataclass(frozen=True)
class SkillResult:
    """What a skill did: success, or the reason it could not be done (the world is unchanged)."""

    success: bool
    reason: str = ""


@dataclass(frozen=True)
class DriveGoal:
    """Where a walk ends (pose) and the free grid cell it is entered from (staging)."""

    pose: Frame2D
    staging: Point


@dataclass
class Held:
    """The object in the gripper: its fixed constraint and where it sits in the gripper frame."""

    name: str
    constraint: int
    offset: Vec3  # object centre in the gripper frame
    yaw: float  # object yaw relative to the gripper


class PlacementError(SceneError):
    """The objects assigned to a furniture do not physically fit on or in it (reachably)."""


class SkillFailed(Exception):
    """Raised inside the simulator when a skill cannot be done; the message is the reason."""
