"""The household containers' doors: the arm reaches the handle, then the door's prismatic joint moves."""
from __future__ import annotations

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.household.sim.builder import DOOR_LINK
from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.layout import FurnitureLayout
from llm_planner.domains.household.sim.robot import ArmPose
from llm_planner.domains.household.sim.skills import SkillFailed


class DoorsMixin(SimHost):
    """The ``open`` and ``close`` skills of :class:`~llm_planner.domains.household.sim.world.HouseholdSim`."""

    def _door_skill(self, furniture: str, opening: bool) -> None:
        if furniture not in self.layouts:
            raise SkillFailed(f"unknown furniture '{furniture}'")
        view = self._view()
        if view.near != furniture:
            raise SkillFailed(f"not close to {furniture}")
        layout = self.layouts[furniture]
        if layout.door is None:
            raise SkillFailed(f"{furniture} cannot be opened or closed")
        is_open = furniture in view.opened
        if opening and is_open:
            raise SkillFailed(f"{furniture} is already open")
        if not opening and not is_open:
            raise SkillFailed(f"{furniture} is already closed")
        with self._undo_on_failure([]):
            reach = self._plan_handle(layout)
            self._run(reach)
            target = layout.door.travel if opening else 0.0
            self._move_door(furniture, target)
            self._run(list(reversed(reach)))

    # ================================================================ doors
    def _plan_handle(self, layout: FurnitureLayout) -> list[ArmPose]:
        robot = self.cfg.robot
        d, _, h = layout.size
        z = min(max(h / 2.0, robot.lift.min), robot.lift.max)
        # The gripper (and whatever it carries) stops just short of the door face.
        hx, hy = layout.frame.to_world(d / 2.0 + self._load_radius(), 0.0)
        grip = self._ik((hx, hy, z), f"the door handle of {layout.name}")
        travel = self.robot.arm_pose()
        return self._free_route(travel, grip.with_(wrist=travel.wrist), f"the door handle of {layout.name}")

    def _move_door(self, furniture: str, target: float) -> None:
        body = self.bodies.furniture[furniture]
        start = p.getJointState(body, DOOR_LINK, physicsClientId=self.client)[0]
        tol = -self.cfg.motion.collision_tolerance
        n = self.cfg.motion.door_steps
        for k in range(1, n + 1):
            self._set_door(furniture, start + (target - start) * k / n)
            for part in self._robot_parts():
                for pt in p.getClosestPoints(body, part, 0.0, linkIndexA=DOOR_LINK, physicsClientId=self.client):
                    if pt[8] < tol:
                        self._set_door(furniture, start)
                        raise SkillFailed(f"the door of {furniture} would hit the robot")
        self._set_door(furniture, target)

    def _set_door(self, furniture: str, position: float) -> None:
        p.resetJointState(self.bodies.furniture[furniture], DOOR_LINK, position, physicsClientId=self.client)
