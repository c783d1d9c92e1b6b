"""The household simulator's senses: what the robot sees from the geometry (room, near, held, open
containers, what is switched on, by perception's rules), body and joint geometry, object supports."""
from __future__ import annotations

from dataclasses import dataclass

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry, quat_from_yaw
from llm_planner.domains.household.sim import perception
from llm_planner.domains.household.sim.builder import DOOR_LINK
from llm_planner.domains.household.sim.host import SimHost, body_aabb
from llm_planner.domains.household.sim.skills import SkillFailed


@dataclass(frozen=True)
class View:
    """What the robot sees of itself: its room, the furniture it is near, what it holds, the open
    containers, the switchable things that are on."""

    room: str
    near: str | None
    holding: str | None
    opened: frozenset[str]
    switched_on: frozenset[str] = frozenset()


class Sensing:
    """What :class:`~llm_planner.domains.household.sim.world.HouseholdSim` reads back from PyBullet."""

    def __init__(self, host: SimHost) -> None:
        self.host = host

    def view(self) -> View:
        """Robot room, near, holding and open containers, read from geometry by perception rules.

        Raises SkillFailed when the robot stands in no room."""
        h = self.host
        base = h.robot.base_pose()
        room = perception.room_at(h.scene, base.x, base.y)
        if room is None:
            raise SkillFailed("the robot is in no room")
        near = perception.near_at(h.layouts, base.x, base.y, h.cfg.perception.near_tolerance)
        g = GeometrySnapshot(h.scene.name, (base.x, base.y, 0.0), quat_from_yaw(base.yaw), None, [], self.joints())
        on = frozenset(d for d, is_on in perception.switch_states(h.scene, g).items() if is_on)
        return View(room, near, self.attached_object(), perception.open_containers(h.scene, g), on)

    def joints(self) -> list[JointGeometry]:
        """The door joints of the containers, then the power reading of each switchable thing."""
        h = self.host
        joints = []
        for name, layout in h.layouts.items():
            if layout.door is not None:
                pos = p.getJointState(h.bodies.furniture[name], DOOR_LINK, physicsClientId=h.client)[0]
                joints.append(JointGeometry(layout.door.joint, float(pos), layout.door.open_threshold))
        joints += [perception.power_joint(d, d in h.switched_on) for d in h.scene.switchables]
        return joints

    def object_geometry(self) -> list[BodyGeometry]:
        """Geometry of every object not in the gripper."""
        held = self.host.held.name if self.host.held is not None else None
        return [self.body_geometry(n, "object", b) for n, b in self.host.bodies.objects.items() if n != held]

    def supports(self) -> dict[str, tuple[str, str]]:
        """(relation, furniture) of every object not in the gripper that rests somewhere."""
        return perception.supports(self.host.layouts, self.object_geometry(), self.host.cfg)

    def support(self, obj: str) -> tuple[str, str] | None:
        return self.supports().get(obj)

    def visible_place(self, obj: str, view: View) -> str:
        """The furniture an object rests at, if the robot can see it (symbolic visibility rules).

        Raises SkillFailed when it cannot."""
        support = self.support(obj) if obj != view.holding else None
        if support is None:
            raise SkillFailed(f"{obj} is not visible")
        place = support[1]
        layout = self.host.layouts[place]
        if layout.room != view.room or (layout.is_container and place not in view.opened):
            raise SkillFailed(f"{obj} is not visible")
        return place

    def body_geometry(self, name: str, kind: str, body: int) -> BodyGeometry:
        """Pose and AABB of a body (of its base link alone for an object)."""
        c = self.host.client
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=c)
        if name in self.host.bodies.objects:
            lo, hi = p.getAABB(body, -1, physicsClientId=c)
        else:
            lo, hi = body_aabb(c, body)
        return BodyGeometry(name, kind, tuple(pos), tuple(orn), tuple(lo), tuple(hi))

    def attached_object(self) -> str | None:
        """The object the gripper's fixed constraint holds (what a gripper sensor knows)."""
        h, c = self.host, self.host.client
        for i in range(p.getNumConstraints(physicsClientId=c)):
            info = p.getConstraintInfo(p.getConstraintUniqueId(i, physicsClientId=c), physicsClientId=c)
            if info[0] == h.robot.body and info[1] == h.robot.ee_link:
                return h.names.get(info[2])
        return None
