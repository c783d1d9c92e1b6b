"""What a world returns for one skill (the closed loop of :mod:`llm_planner.execution` reads it), and
what the executor sends a robot for one action of a plan (the robot contract, docs/guides/robot.md):
going places is a :class:`Navigate` (``navigate_to_pose``, nav2_msgs/action/NavigateToPose), every
other action a :class:`SkillRequest` (``robot/skill``, llm_planner_interfaces/action/RobotSkill)."""
from __future__ import annotations

from dataclasses import dataclass

#: A pose in the map frame: x, y (metres) and yaw (radians).
Pose2D = tuple[float, float, float]


@dataclass(frozen=True)
class SkillOutcome:
    """Whether the skill did what it was asked; ``reason`` says why not."""

    success: bool
    reason: str = ""


@dataclass(frozen=True)
class Navigate:
    """Go to ``pose`` (map frame), the pose of the place ``target`` (a room, a furniture)."""

    target: str
    pose: Pose2D


@dataclass(frozen=True)
class SkillRequest:
    """One manipulation skill with its arguments and, per argument, the pose where the robot works
    at it (None where the world gives none, e.g. an object)."""

    name: str
    args: tuple[str, ...]
    poses: tuple[Pose2D | None, ...] = ()


#: What the executor sends the robot for one action; a :class:`SkillOutcome` instead when the
#: action cannot be done from what the robot perceives (it is not sent, and fails with the reason).
RobotCommand = Navigate | SkillRequest | SkillOutcome


@dataclass(frozen=True)
class PlaceCoverage:
    """How many of a world's places the robot can be sent to (``llm-planner check-robot``): the
    places with a pose, how many of those the scene file gives, and the places without one (with why)."""

    posed: int
    from_scene: int
    missing: dict[str, str]
