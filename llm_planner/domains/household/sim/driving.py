"""The household robot's base: where each walk ends (a pose at the furniture, entered from a free
grid cell), grid paths through doorways, every pose checked against walls and furniture."""
from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.layout import Frame2D, FurnitureLayout, wrap_angle
from llm_planner.domains.household.sim.manipulation import Manipulation
from llm_planner.domains.household.sim.skills import DriveGoal, Point, SkillFailed
from llm_planner.errors import SceneError


class Driving:
    """Base motion of :class:`~llm_planner.domains.household.sim.world.HouseholdSim` (the ``walk`` skill)."""

    def __init__(self, host: SimHost, arm: Manipulation) -> None:
        self.host = host
        self.arm = arm

    def make_goals(self) -> dict[str, DriveGoal]:
        """A free spot per room (found by the layout check) and the approach pose of every furniture,
        each with a reachable staging cell."""
        rooms = self.host.scene.rooms
        goals = {room: DriveGoal(Frame2D(q[0], q[1], (rooms[room].approach or (0.0, 0.0, 0.0))[2]), q)
                 for room, q in self.host.layout_check.room_spots.items()}
        anchor = goals[self.host.scene.robot_room].staging
        for name, layout in self.host.layouts.items():
            goals[name] = self._approach_goal(name, layout, anchor)
        return goals

    def _approach_goal(self, name: str, layout: FurnitureLayout, anchor: Point) -> DriveGoal:
        pose = layout.approach
        self.host.robot.set_base(pose)
        self.host.robot.set_arm(self.arm.travel_arm())
        hit = self.host.collision(self.host.robot_parts(), radius=self.host.drive_radius)
        if hit is not None:
            raise SceneError(f"furniture.{name}: where the robot works at it ([{pose.x:.2f}, {pose.y:.2f}]) it would "
                             f"touch {hit}; leave more room in front of it")
        blockers = []
        for q in self.host.planner.free_cells_near((pose.x, pose.y), self.host.cfg.motion.staging_search):
            if not self.host.planner.reachable(q, anchor):
                continue
            blocked = self.first_blocked(self._segment((q[0], q[1]), (pose.x, pose.y), pose.yaw))
            if blocked is None:
                return DriveGoal(pose, q)
            blockers.append(blocked)
        why = f" (the last straight stretch hits {blockers[0]})" if blockers else ""
        raise SceneError(f"furniture.{name}: the robot cannot drive to where it works at it "
                         f"([{pose.x:.2f}, {pose.y:.2f}]) from the rest of the apartment{why}")

    # ================================================================ base motion
    def goal_at(self, pose: Frame2D) -> DriveGoal:
        """Where a drive to ``pose`` ends: the walk goal there (a room's spot, a furniture's approach
        pose), else ``pose`` entered from a free grid cell near it that the rest of the apartment
        reaches. SkillFailed saying why the robot cannot stand or arrive there."""
        tolerance = self.host.cfg.motion.pose_match
        for goal in self.host.goals.values():
            if math.hypot(goal.pose.x - pose.x, goal.pose.y - pose.y) <= tolerance and \
                    abs(wrap_angle(goal.pose.yaw - pose.yaw)) <= tolerance:
                return goal
        where = f"({pose.x:.2f}, {pose.y:.2f})"
        blocked = self.first_blocked([pose])
        if blocked is not None:
            raise SkillFailed(f"the robot cannot stand at {where}: it would touch {blocked}")
        anchor = self.host.goals[self.host.scene.robot_room].staging
        for q in self.host.planner.free_cells_near((pose.x, pose.y), self.host.cfg.motion.staging_search):
            if self.host.planner.reachable(q, anchor) and \
                    self.first_blocked(self._segment(q, (pose.x, pose.y), pose.yaw)) is None:
                return DriveGoal(pose, q)
        raise SkillFailed(f"no way to {where}: no free floor around it joins the rest of the apartment")

    def plan_to(self, goal: DriveGoal, target: str) -> list[Frame2D]:
        """The base poses of a drive from where the robot stands to ``goal`` (empty when it is there),
        every one checked against walls and furniture; SkillFailed naming what blocks the way."""
        start = self.host.robot.base_pose()
        if math.hypot(start.x - goal.pose.x, start.y - goal.pose.y) < 1e-6 and \
                abs(wrap_angle(start.yaw - goal.pose.yaw)) < 1e-6:
            return []
        poses = self.plan_drive(start, goal, target)
        blocked = self.first_blocked(poses)
        if blocked is not None:
            raise SkillFailed(f"the way to {target} is blocked by {blocked}")
        return poses

    def move_base(self, pose: Frame2D) -> None:
        """Put the base at ``pose`` (a pose of a checked plan), the held object with it."""
        self._place_robot(pose)

    def drive(self, goal: DriveGoal, target: str) -> None:
        start = self.host.robot.base_pose()
        if math.hypot(start.x - goal.pose.x, start.y - goal.pose.y) < 1e-6 and \
                abs(wrap_angle(start.yaw - goal.pose.yaw)) < 1e-6:
            return
        poses = self.plan_drive(start, goal, target)
        blocked = self.first_blocked(poses)
        self._place_robot(start)
        if blocked is not None:
            raise SkillFailed(f"the way to {target} is blocked by {blocked}")
        self._place_robot(goal.pose)
        self.host.last_path = [(q.x, q.y) for q in poses]

    def plan_drive(self, start: Frame2D, goal: DriveGoal, target: str) -> list[Frame2D]:
        exit_ = self._exit_point(start)
        middle = self.host.planner.path(exit_, goal.staging)
        if middle is None:
            raise SkillFailed(f"no path to {target}")
        poses = self._segment((start.x, start.y), exit_, start.yaw)
        total = sum(math.dist(a, b) for a, b in pairwise(middle))
        turn = wrap_angle(goal.pose.yaw - start.yaw)
        if total < 1e-9:
            n = max(1, int(math.ceil(abs(turn) / self.host.cfg.motion.yaw_step)))
            poses += [Frame2D(exit_[0], exit_[1], start.yaw + turn * k / n) for k in range(n + 1)]
        done = 0.0
        segments = list(pairwise(middle)) if total >= 1e-9 else []  # else: turned in place above
        for a, b in segments:
            seg = math.dist(a, b)
            n = max(1, int(math.ceil(seg / self.host.cfg.motion.path_step)))
            for k in range(1, n + 1):
                t = k / n
                yaw = start.yaw + turn * (done + t * seg) / total
                poses.append(Frame2D(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, yaw))
            done += seg
        poses += self._segment(goal.staging, (goal.pose.x, goal.pose.y), goal.pose.yaw)
        return poses

    def _exit_point(self, start: Frame2D) -> Point:
        """The free grid cell the robot leaves its current pose through."""
        for goal in self.host.goals.values():
            if math.hypot(goal.pose.x - start.x, goal.pose.y - start.y) < 1e-4:
                return goal.staging
        for q in self.host.planner.free_cells_near((start.x, start.y), self.host.cfg.motion.staging_search):
            if self.first_blocked(self._segment((start.x, start.y), q, start.yaw)) is None:
                return q
        raise SkillFailed("the robot is stuck: no free space around it")

    def _segment(self, a: Point, b: Point, yaw: float) -> list[Frame2D]:
        n = max(1, int(math.ceil(math.dist(a, b) / self.host.cfg.motion.path_step)))
        return [Frame2D(a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n, yaw) for k in range(n + 1)]

    def first_blocked(self, poses: Sequence[Frame2D]) -> str | None:
        """Drive through the poses (kinematically) and return what the robot would hit first."""
        radius = self.host.drive_radius
        saved = self.host.robot.base_pose()
        try:
            for pose in poses:
                self._place_robot(pose)
                hit = self.host.collision(self.host.robot_parts(), radius)
                if hit is not None:
                    return hit
            return None
        finally:
            self._place_robot(saved)

    def _place_robot(self, pose: Frame2D) -> None:
        self.host.robot.set_base(pose)
        self.host.sync_held()
