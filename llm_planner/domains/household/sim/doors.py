"""The household containers' doors: the arm reaches the handle, then the door's prismatic joint moves."""
from __future__ import annotations

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.household.sim.builder import DOOR_LINK
from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.layout import FurnitureLayout
from llm_planner.domains.household.sim.manipulation import Manipulation
from llm_planner.domains.household.sim.robot import ArmPose
from llm_planner.domains.household.sim.sensing import Sensing
from llm_planner.domains.household.sim.skills import SkillFailed


class Doors:
    """The ``open`` and ``close`` skills of :class:`~llm_planner.domains.household.sim.world.HouseholdSim`."""

    def __init__(self, host: SimHost, sensing: Sensing, arm: Manipulation) -> None:
        self.host = host
        self.sensing = sensing
        self.arm = arm

    def door_skill(self, furniture: str, opening: bool) -> None:
        if furniture not in self.host.layouts:
            raise SkillFailed(f"unknown furniture '{furniture}'")
        view = self.sensing.view()
        if view.near != furniture:
            raise SkillFailed(f"not close to {furniture}")
        layout = self.host.layouts[furniture]
        if layout.door is None:
            raise SkillFailed(f"{furniture} cannot be opened or closed")
        is_open = furniture in view.opened
        if opening and is_open:
            raise SkillFailed(f"{furniture} is already open")
        if not opening and not is_open:
            raise SkillFailed(f"{furniture} is already closed")
        with self.arm.undo_on_failure([]):
            reach = self._plan_handle(layout)
            self.arm.run(reach)
            target = layout.door.travel if opening else 0.0
            self._move_door(furniture, target)
            self.arm.run(list(reversed(reach)))

    # ================================================================ doors
    def _plan_handle(self, layout: FurnitureLayout) -> list[ArmPose]:
        robot = self.host.cfg.robot
        d, _, h = layout.size
        z = min(max(h / 2.0, robot.lift.min), robot.lift.max)
        # The gripper (and whatever it carries) stops just short of the door face.
        hx, hy = layout.frame.to_world(d / 2.0 + self.arm.load_radius(), 0.0)
        grip = self.arm.ik((hx, hy, z), f"the door handle of {layout.name}")
        travel = self.host.robot.arm_pose()
        return self.arm.free_route(travel, grip.with_(wrist=travel.wrist), f"the door handle of {layout.name}")

    def _move_door(self, furniture: str, target: float) -> None:
        body = self.host.bodies.furniture[furniture]
        start = p.getJointState(body, DOOR_LINK, physicsClientId=self.host.client)[0]
        tol = -self.host.cfg.motion.collision_tolerance
        n = self.host.cfg.motion.door_steps
        for k in range(1, n + 1):
            self.host.set_door(furniture, start + (target - start) * k / n)
            for part in self.host.robot_parts():
                for pt in p.getClosestPoints(body, part, 0.0, linkIndexA=DOOR_LINK, physicsClientId=self.host.client):
                    if pt[8] < tol:
                        self.host.set_door(furniture, start)
                        raise SkillFailed(f"the door of {furniture} would hit the robot")
        self.host.set_door(furniture, target)
