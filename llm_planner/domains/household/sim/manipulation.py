"""The household robot's arm: collision-checked arm routes, inverse kinematics, grasping (a fixed
constraint), placing on sampled free spots, objects settling and falling, and the initial placement."""
from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import aabb, quat_from_yaw, yaw_of
from llm_planner.domains.household.sim.builder import DOOR_LINK, is_round
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.layout import FurnitureLayout, wrap_angle, wrist_clearance
from llm_planner.domains.household.sim.placement import (
    Spot,
    aabbs_overlap,
    candidate_spots,
    grasp_height,
    stacked_spots,
)
from llm_planner.domains.household.sim.robot import ArmPose
from llm_planner.domains.household.sim.sensing import Sensing
from llm_planner.domains.household.sim.skills import Held, PlacementError, SkillFailed, Vec3
from llm_planner.domains.household.world.scene import ObjectType


def _interp(a: ArmPose, b: ArmPose, steps: float) -> list[ArmPose]:
    n = max(1, int(math.ceil(steps)))
    qa, qb = a.as_list(), b.as_list()
    out = []
    for k in range(1, n + 1):
        t = k / n
        q = [x + (y - x) * t for x, y in zip(qa, qb, strict=True)]
        out.append(ArmPose(q[0], q[1], tuple(q[2:-1]), q[-1]))
    return out


def _wrist(angle: float, cfg: SimConfig) -> float:
    w = wrap_angle(angle)
    return min(max(w, cfg.robot.wrist.min), cfg.robot.wrist.max)


def _to_frame(origin: Sequence[float], yaw: float, point: Sequence[float]) -> Vec3:
    """``point`` in the frame at ``origin`` rotated by ``yaw`` about z."""
    dx, dy, dz = (point[k] - origin[k] for k in range(3))
    c, s = math.cos(yaw), math.sin(yaw)
    return (c * dx + s * dy, -s * dx + c * dy, dz)


class Manipulation:
    """Arm motion, grasping and placing of :class:`~llm_planner.domains.household.sim.world.HouseholdSim` (``grab``,
    ``puton``, ``putin``), and the undoing of a skill that failed half-way."""

    def __init__(self, host: SimHost, sensing: Sensing) -> None:
        self.host = host
        self.sensing = sensing

    def _type(self, obj: str) -> ObjectType:
        return self.host.scene.object_types[self.host.scene.type_of(obj)]

    def _size(self, obj: str) -> tuple[float, float, float]:
        return self._type(obj).size

    # ================================================================ arm motion
    def travel_arm(self, wrist: float | None = None) -> ArmPose:
        """Retracted over the base, low, with a carried object clear of the base top and its
        shorter side towards the mast."""
        robot = self.host.cfg.robot
        below = robot.gripper.size[2] / 2.0
        w = self.host.robot.arm_pose().wrist if wrist is None else wrist
        if self.host.held is not None:
            size = self._size(self.host.held.name)
            below = max(below, -self.host.held.offset[2] + size[2] / 2.0)
            w = _wrist((0.0 if size[0] <= size[1] else math.pi / 2.0) - self.host.held.yaw, self.host.cfg)
        lift = max(robot.lift.min, robot.base.top + self.host.cfg.motion.base_top_margin + below)
        return self.host.robot.travel_pose(lift, w)

    def _route(self, start: ArmPose, goal: ArmPose) -> Iterator[list[ArmPose]]:
        """Candidate arm motions from the travel pose to ``goal``: lift over the base, turn the
        arm (either way round), extend until a carried object clears the mast, turn the wrist,
        extend the rest. Each is a list of sampled poses."""
        m = self.host.cfg.motion
        clear = 0.0
        if self.host.held is not None:
            clear = wrist_clearance(self.host.cfg, self._size(self.host.held.name))
        for sign in (1.0, -1.0):
            s = start.with_(shoulder=sign * abs(start.shoulder))
            poses = [s]
            poses += _interp(s, s.with_(lift=goal.lift), abs(goal.lift - s.lift) / m.arm_step)
            a = poses[-1]
            b = a.with_(shoulder=goal.shoulder)
            poses += _interp(a, b, abs(goal.shoulder - a.shoulder) / m.yaw_step)
            ext = min(clear, goal.extension)
            c = b.with_(stages=tuple(ext / len(goal.stages) for _ in goal.stages))
            poses += _interp(b, c, ext / m.arm_step)
            d = c.with_(wrist=goal.wrist)
            poses += _interp(c, d, abs(wrap_angle(goal.wrist - c.wrist)) / m.yaw_step)
            poses += _interp(d, goal, abs(goal.extension - d.extension) / m.arm_step)
            yield poses

    def free_route(self, start: ArmPose, goal: ArmPose, what: str, quick: bool = False) -> list[ArmPose]:
        """The first collision-free candidate route, or a failure naming what the arm would hit.
        ``quick`` checks only the end pose (used while sampling initial placements)."""
        hit = None
        for route in self._route(start, goal):
            hit = self._arm_blocked(route[-1:] if quick else route)
            if hit is None:
                return route
        raise SkillFailed(f"the arm cannot reach {what}: it would hit {hit}")

    def _arm_blocked(self, poses: Sequence[ArmPose]) -> str | None:
        saved = self.host.robot.arm_pose()
        load = self.load_radius()
        try:
            for pose in poses:
                self.host.robot.set_arm(pose)
                self.host.sync_held()
                reach = abs(self.host.cfg.robot.mast.offset) + self.host.cfg.robot.arm.retracted_length + pose.extension
                hit = self.host.collision(self.host.robot_parts(), max(self.host.drive_radius, reach + load))
                if hit is not None:
                    return hit
            return None
        finally:
            self.host.robot.set_arm(saved)
            self.host.sync_held()

    def load_radius(self) -> float:
        """Radius about the gripper of what it carries (or of the gripper itself)."""
        g = self.host.cfg.robot.gripper.size
        r = math.hypot(g[0], g[1]) / 2.0
        if self.host.held is not None:
            size = self._size(self.host.held.name)
            r = max(r, math.hypot(size[0], size[1]) / 2.0)
        return r + self.host.cfg.placement.margin

    def run(self, poses: Sequence[ArmPose]) -> None:
        """Carry out a checked motion (kinematically): the robot ends at the last pose."""
        if poses:
            self.host.robot.set_arm(poses[-1])
            self.host.sync_held()

    def ik(self, target: Vec3, what: str) -> ArmPose:
        pose, error = self.host.robot.solve_ik(target, 0.0)
        if error > self.host.cfg.robot.ik.tolerance:
            raise SkillFailed(f"{what} is out of reach ({100 * error:.0f} cm short)")
        return pose

    # ================================================================ grasping and placing
    def plan_grab(self, obj: str, quick: bool = False) -> tuple[list[ArmPose], list[ArmPose], Held]:
        """Checked arm motions to grasp ``obj`` and carry it back, and the grasp it makes
        (``quick``: check only the grasp and the lifted pose, see :meth:`free_route`)."""
        body = self.host.bodies.objects[obj]
        lo, hi = p.getAABB(body, -1, physicsClientId=self.host.client)
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.host.client)
        height = hi[2] - lo[2]
        z = grasp_height(lo[2], height, self.host.cfg)
        if z - self.host.cfg.robot.gripper.size[2] / 2.0 > hi[2]:
            raise SkillFailed(f"{obj} is too flat to grasp where it lies")
        center = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0)
        grasp = self.ik((center[0], center[1], z), obj)
        base_yaw = self.host.robot.base_pose().yaw
        grasp = grasp.with_(wrist=_wrist(yaw_of(orn) - base_yaw - grasp.shoulder, self.host.cfg))
        travel = self.travel_arm(grasp.wrist)
        approach = self.free_route(travel, grasp, obj, quick)
        self.host.robot.set_arm(grasp)
        ee_pos, ee_orn = self.host.robot.ee_pose()
        offset = _to_frame(ee_pos, yaw_of(ee_orn), pos)
        held = Held(obj, -1, offset, wrap_angle(yaw_of(orn) - yaw_of(ee_orn)))
        lifted = grasp.with_(lift=grasp.lift + self.host.cfg.placement.lift_off)
        self.host.held = held  # plan the way back carrying it
        try:
            back = self.free_route(self.travel_arm(grasp.wrist), lifted, f"back with {obj}", quick)
        finally:
            self.host.held = None
            self.host.robot.set_arm(travel)
            p.resetBasePositionAndOrientation(body, pos, orn, physicsClientId=self.host.client)
        return approach, [grasp, lifted] + list(reversed(back)), held

    def attach(self, held: Held) -> None:
        body = self.host.bodies.objects[held.name]
        cid = p.createConstraint(self.host.robot.body, self.host.robot.ee_link, body, -1, p.JOINT_FIXED, [0, 0, 0],
                                 parentFramePosition=list(held.offset), childFramePosition=[0, 0, 0],
                                 parentFrameOrientation=quat_from_yaw(held.yaw), physicsClientId=self.host.client)
        self.host.held = Held(held.name, cid, held.offset, held.yaw)
        self.host.sync_held()

    def release(self) -> None:
        """Open the gripper: remove the attachment; the object stays where it is, at rest."""
        if self.host.held is None:
            return
        p.removeConstraint(self.host.held.constraint, physicsClientId=self.host.client)
        body = self.host.bodies.objects[self.host.held.name]
        p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=self.host.client)
        self.host.held = None

    def put_plans(self, obj: str,
                   layout: FurnitureLayout) -> Iterator[tuple[Spot, list[ArmPose], ArmPose, list[ArmPose]]]:
        """Checked plans to put the held ``obj`` on free spots of ``layout``, best first."""
        otype = self._type(obj)
        others = [aabb(p.getAABB(b, -1, physicsClientId=self.host.client))
                  for n, b in self.host.bodies.objects.items() if n != obj]
        travel = self.host.robot.arm_pose()
        for spot, lower in self._spots(layout, otype, self.host.rng, True, self._resting_at(layout.name)):
            if any(aabbs_overlap(spot.aabb, o, self.host.cfg.placement.gap) for o in others if o != lower):
                continue
            if self._touches_structure(spot):
                continue
            try:
                yield (spot, *self._plan_place_at(spot, travel))
            except SkillFailed:
                continue

    def _touches_structure(self, spot: Spot) -> bool:
        """An object at the spot would touch a wall or another furniture (it may overhang its support)."""
        lo, hi = spot.aabb
        gap = self.host.cfg.placement.gap
        own = self.host.bodies.furniture[spot.furniture]
        hits = p.getOverlappingObjects([v - gap for v in lo], [v + gap for v in hi],
                                       physicsClientId=self.host.client) or []
        return any(body in self.host.static_ids and body != own for body, _ in hits)

    def _resting_at(self, furniture: str) -> list[tuple[tuple[Vec3, Vec3], float]]:
        """(AABB, yaw) of the objects resting at a furniture (what another object may sit on)."""
        out = []
        for name, (_, f) in self.sensing.supports().items():
            if f == furniture:
                body = self.host.bodies.objects[name]
                orn = p.getBasePositionAndOrientation(body, physicsClientId=self.host.client)[1]
                if 1.0 - 2.0 * (orn[0] ** 2 + orn[1] ** 2) < math.cos(self.host.cfg.placement.max_tilt):
                    continue  # tilted: nothing can sit on it
                out.append((aabb(p.getAABB(body, -1, physicsClientId=self.host.client)), yaw_of(orn)))
        return out

    def _spots(self, layout: FurnitureLayout, otype: ObjectType, rng: random.Random, random_first: bool,
               lowers: list[tuple[tuple[Vec3, Vec3], float]]) -> Iterator[tuple[Spot, tuple[Vec3, Vec3] | None]]:
        """Candidate spots with the AABB of the object each would sit on (None: on the level
        itself): free spots of the level first, then on top of other objects."""
        round_ = is_round(otype, self.host.cfg)
        for spot in candidate_spots(layout, otype.size, round_, self.host.cfg, rng, random_first):
            yield spot, None
        for lower in lowers:
            for spot in stacked_spots(layout, otype.size, round_, [lower], self.host.cfg):
                yield spot, lower[0]

    def _plan_place_at(self, spot: Spot, travel: ArmPose) -> tuple[list[ArmPose], ArmPose, list[ArmPose]]:
        held = self.host.held
        assert held is not None
        pl = self.host.cfg.placement
        ox, oy, oz = held.offset
        hover = self.ik((spot.center[0], spot.center[1], spot.center[2] + pl.lift_off - oz), "the spot")
        base_yaw = self.host.robot.base_pose().yaw
        hover = hover.with_(wrist=_wrist(spot.yaw - held.yaw - base_yaw - hover.shoulder, self.host.cfg))
        approach = self.free_route(travel, hover, spot.furniture)
        lowered = hover.with_(lift=hover.lift - (pl.lift_off - pl.drop))
        held_now, self.host.held = self.host.held, None  # the way back is empty-handed
        try:
            back = self.free_route(self.travel_arm(hover.wrist), lowered, spot.furniture)
        finally:
            self.host.held = held_now
        return approach, lowered, list(reversed(back))

    def resting_on(self, obj: str, candidates: list[str]) -> list[str]:
        """Objects whose bottom lies on ``obj``'s top with their centre over it."""
        lo, hi = p.getAABB(self.host.bodies.objects[obj], -1, physicsClientId=self.host.client)
        tol = self.host.cfg.perception.on_tolerance
        out = []
        for o in candidates:
            olo, ohi = p.getAABB(self.host.bodies.objects[o], -1, physicsClientId=self.host.client)
            cx, cy = (olo[0] + ohi[0]) / 2.0, (olo[1] + ohi[1]) / 2.0
            if abs(olo[2] - hi[2]) <= tol and lo[0] <= cx <= hi[0] and lo[1] <= cy <= hi[1]:
                out.append(o)
        return out

    def let_fall(self, objects: list[str], furniture: str) -> None:
        """Objects that rested on the one just taken drop onto what lies below (physics steps);
        all must come to rest at ``furniture`` again."""
        for body in (self.host.bodies.objects[o] for o in objects):
            p.changeDynamics(body, -1, activationState=p.ACTIVATION_STATE_WAKE_UP, physicsClientId=self.host.client)
        for _ in range(self.host.cfg.placement.drop_steps):
            p.stepSimulation(physicsClientId=self.host.client)
        found = self.sensing.supports()
        for o in objects:
            speed = math.hypot(*p.getBaseVelocity(self.host.bodies.objects[o], physicsClientId=self.host.client)[0])
            if found.get(o, ("", ""))[1] != furniture or speed > self.host.cfg.placement.rest_speed:
                raise SkillFailed(f"taking it would make {o} fall off {furniture}")

    def settle(self, obj: str, furniture: str) -> None:
        """A few physics steps; the object must come to rest where it was put."""
        body = self.host.bodies.objects[obj]
        before = p.getBasePositionAndOrientation(body, physicsClientId=self.host.client)[0]
        for _ in range(self.host.cfg.placement.settle_steps):
            p.stepSimulation(physicsClientId=self.host.client)
        after = p.getBasePositionAndOrientation(body, physicsClientId=self.host.client)[0]
        support = self.sensing.support(obj)
        moved = math.dist(before, after) > self.host.cfg.placement.settle_tolerance
        if moved or support is None or support[1] != furniture:
            raise SkillFailed(f"{obj} did not come to rest on {furniture}")

    def place_initial(self, furniture: str, objects: list[str], rng: random.Random) -> None:
        """Reset: put each object on a free spot of ``furniture`` that the robot can grasp it from:
        random spots, or, where that leaves no room, packed from a corner, largest first."""
        layout = self.host.layouts[furniture]
        self.host.robot.set_base(layout.approach)
        self.host.robot.set_arm(self.travel_arm())
        if layout.door is not None:
            self.host.set_door(furniture, layout.door.travel)  # check grasps as they will be made
        try:
            try:
                self._place_all(objects, layout, rng, random_first=True)
            except PlacementError:
                area = {o: self._size(o) for o in objects}
                packed = sorted(objects, key=lambda o: -area[o][0] * area[o][1])
                self._place_all(packed, layout, rng, random_first=False)
        finally:
            if layout.door is not None:
                self.host.set_door(furniture, 0.0)

    def _place_all(self, objects: list[str], layout: FurnitureLayout, rng: random.Random, random_first: bool) -> None:
        placed: list[tuple[tuple[Vec3, Vec3], float]] = []
        for obj in objects:
            placed.append(self._place_one(obj, layout, placed, rng, random_first))

    def _place_one(self, obj: str, layout: FurnitureLayout, placed: list[tuple[tuple[Vec3, Vec3], float]],
                   rng: random.Random, random_first: bool) -> tuple[tuple[Vec3, Vec3], float]:
        otype = self._type(obj)
        body = self.host.bodies.objects[obj]
        for spot, lower in self._spots(layout, otype, rng, random_first, placed):
            if any(aabbs_overlap(spot.aabb, o, self.host.cfg.placement.gap) for o, _ in placed if o != lower):
                continue
            if self._touches_structure(spot):
                continue
            c = self.host.client
            p.resetBasePositionAndOrientation(body, spot.center, quat_from_yaw(spot.yaw), physicsClientId=c)
            p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=c)
            try:
                self.plan_grab(obj, quick=True)
            except SkillFailed:
                continue
            return spot.aabb, spot.yaw
        raise PlacementError(f"furniture.{layout.name}: no free spot reachable by the robot "
                             f"{'in' if layout.is_container else 'on'} it for {obj} (too many or too large objects "
                             f"there: lower the weight of '{layout.name}' in the places of some "
                             "objects, or make it larger)")

    # ================================================================ undoing a failed skill
    def undo_on_failure(self, objects: Sequence[str]) -> Undo:
        """A context that puts the robot, the held object, ``objects`` and the doors back as they
        are now if its block raises."""
        return Undo(self, objects)


class Undo:
    """The robot, the held object, some objects and the doors as they were: :meth:`restore` puts
    them back (and so does leaving the ``with`` block by an exception)."""

    def __init__(self, arm: Manipulation, objects: Sequence[str]) -> None:
        self.arm = arm
        h = arm.host
        c = h.client
        self.base = h.robot.base_pose()
        self.pose = h.robot.arm_pose()
        self.held = h.held
        self.objects = {o: p.getBasePositionAndOrientation(h.bodies.objects[o], physicsClientId=c)
                        for o in objects}
        self.doors = {n: p.getJointState(b, DOOR_LINK, physicsClientId=c)[0]
                      for n, b in h.bodies.furniture.items() if h.layouts[n].is_container}

    def __enter__(self) -> None:
        return None

    def __exit__(self, exc_type: type | None, *rest: object) -> None:
        if exc_type is not None:
            self.restore()

    def restore(self) -> None:
        h = self.arm.host
        c = h.client
        if h.held is not None and (self.held is None or h.held.constraint != self.held.constraint):
            p.removeConstraint(h.held.constraint, physicsClientId=c)
            h.held = None
        if self.held is not None and h.held is None:
            self.arm.attach(self.held)
        for o, (pos, orn) in self.objects.items():
            p.resetBasePositionAndOrientation(h.bodies.objects[o], pos, orn, physicsClientId=c)
            p.resetBaseVelocity(h.bodies.objects[o], [0, 0, 0], [0, 0, 0], physicsClientId=c)
        for n, q in self.doors.items():
            h.set_door(n, q)
        h.robot.set_base(self.base)
        h.robot.set_arm(self.pose)
        h.sync_held()
