"""The household simulator's senses: what the robot sees from the geometry (room, near, held, open
containers, by perception's rules), body and joint geometry, object supports."""
from __future__ import annotations

from dataclasses import dataclass

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry, quat_from_yaw
from llm_planner.domains.household.sim import perception
from llm_planner.domains.household.sim.builder import DOOR_LINK
from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.skills import SkillFailed, Vec3


class SensingMixin(SimHost):
    """What :class:`~llm_planner.domains.household.sim.world.HouseholdSim` reads back from PyBullet."""

    # ================================================================ views of the world
    @dataclass(frozen=True)
    class _View:
        room: str
        near: str | None
        holding: str | None
        opened: frozenset[str]

    def _view(self) -> _View:
        """Robot room, near, holding and open containers, read from geometry by perception rules."""
        base = self.robot.base_pose()
        room = perception.room_at(self.scene, base.x, base.y)
        if room is None:
            raise SkillFailed("the robot is in no room")
        near = perception.near_at(self.layouts, base.x, base.y, self.cfg.perception.near_tolerance)
        g = GeometrySnapshot(self.scene.name, (base.x, base.y, 0.0), quat_from_yaw(base.yaw), None, [], self._joints())
        return self._View(room, near, self._attached_object(), perception.open_containers(self.scene, g))

    def _joints(self) -> list[JointGeometry]:
        joints = []
        for name, layout in self.layouts.items():
            if layout.door is not None:
                pos = p.getJointState(self.bodies.furniture[name], DOOR_LINK, physicsClientId=self.client)[0]
                joints.append(JointGeometry(layout.door.joint, float(pos), layout.door.open_threshold))
        return joints

    def _object_geometry(self) -> list[BodyGeometry]:
        """Geometry of every object not in the gripper."""
        held = self._held.name if self._held is not None else None
        return [self._body_geometry(n, "object", b) for n, b in self.bodies.objects.items() if n != held]

    def _supports(self) -> dict[str, tuple[str, str]]:
        return perception.supports(self.layouts, self._object_geometry(), self.cfg)

    def _support(self, obj: str) -> tuple[str, str] | None:
        return self._supports().get(obj)

    def _visible_place(self, obj: str, view: _View) -> str:
        """The furniture an object rests at, if the robot can see it (symbolic visibility rules)."""
        support = self._support(obj) if obj != view.holding else None
        if support is None:
            raise SkillFailed(f"{obj} is not visible")
        place = support[1]
        layout = self.layouts[place]
        if layout.room != view.room or (layout.is_container and place not in view.opened):
            raise SkillFailed(f"{obj} is not visible")
        return place

    def _body_aabb(self, body: int) -> tuple[Vec3, Vec3]:
        lo, hi = p.getAABB(body, -1, physicsClientId=self.client)
        for link in range(p.getNumJoints(body, physicsClientId=self.client)):
            llo, lhi = p.getAABB(body, link, physicsClientId=self.client)
            lo = tuple(min(a, b) for a, b in zip(lo, llo, strict=True))
            hi = tuple(max(a, b) for a, b in zip(hi, lhi, strict=True))
        return tuple(lo), tuple(hi)

    def _body_geometry(self, name: str, kind: str, body: int) -> BodyGeometry:
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        if name in self.bodies.objects:
            lo, hi = p.getAABB(body, -1, physicsClientId=self.client)
        else:
            lo, hi = self._body_aabb(body)
        return BodyGeometry(name, kind, tuple(pos), tuple(orn), tuple(lo), tuple(hi))

    def _attached_object(self) -> str | None:
        """The object the gripper's fixed constraint holds (what a gripper sensor knows)."""
        c = self.client
        for i in range(p.getNumConstraints(physicsClientId=c)):
            info = p.getConstraintInfo(p.getConstraintUniqueId(i, physicsClientId=c), physicsClientId=c)
            if info[0] == self.robot.body and info[1] == self.robot.ee_link:
                return self._names.get(info[2])
        return None

    def _aabb2d(self, body: int) -> tuple[float, float, float, float]:
        lo, hi = self._body_aabb(body)
        return (lo[0], lo[1], hi[0], hi[1])
