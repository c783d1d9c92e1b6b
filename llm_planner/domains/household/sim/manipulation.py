"""The household robot's arm: collision-checked arm routes, inverse kinematics, grasping (a fixed
constraint), placing on sampled free spots, objects settling and falling, and the initial placement."""
from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import aabb, quat_from_yaw, yaw_of
from llm_planner.domains.household.sim.builder import is_round
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


class ManipulationMixin(SimHost):
    """Arm motion, grasping and placing of :class:`~llm_planner.domains.household.sim.world.HouseholdSim` (``grab``,
    ``puton``, ``putin``)."""

    # ================================================================ arm motion
    def _travel_arm(self, wrist: float | None = None) -> ArmPose:
        """Retracted over the base, low, with a carried object clear of the base top and its
        shorter side towards the mast."""
        robot = self.cfg.robot
        below = robot.gripper.size[2] / 2.0
        w = self.robot.arm_pose().wrist if wrist is None else wrist
        if self._held is not None:
            size = self.scene.object_types[self.scene.type_of(self._held.name)].size
            below = max(below, -self._held.offset[2] + size[2] / 2.0)
            w = _wrist((0.0 if size[0] <= size[1] else math.pi / 2.0) - self._held.yaw, self.cfg)
        lift = max(robot.lift.min, robot.base.top + self.cfg.motion.base_top_margin + below)
        return self.robot.travel_pose(lift, w)

    def _route(self, start: ArmPose, goal: ArmPose) -> Iterator[list[ArmPose]]:
        """Candidate arm motions from the travel pose to ``goal``: lift over the base, turn the
        arm (either way round), extend until a carried object clears the mast, turn the wrist,
        extend the rest. Each is a list of sampled poses."""
        m = self.cfg.motion
        clear = 0.0
        if self._held is not None:
            clear = wrist_clearance(self.cfg, self.scene.object_types[self.scene.type_of(self._held.name)].size)
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

    def _free_route(self, start: ArmPose, goal: ArmPose, what: str, quick: bool = False) -> list[ArmPose]:
        """The first collision-free candidate route, or a failure naming what the arm would hit.
        ``quick`` checks only the end pose (used while sampling initial placements)."""
        hit = None
        for route in self._route(start, goal):
            hit = self._arm_blocked(route[-1:] if quick else route)
            if hit is None:
                return route
        raise SkillFailed(f"the arm cannot reach {what}: it would hit {hit}")

    def _arm_blocked(self, poses: Sequence[ArmPose]) -> str | None:
        saved = self.robot.arm_pose()
        load = self._load_radius()
        try:
            for pose in poses:
                self.robot.set_arm(pose)
                self._sync_held()
                reach = abs(self.cfg.robot.mast.offset) + self.cfg.robot.arm.retracted_length + pose.extension
                hit = self._collision(self._robot_parts(), max(self._drive_radius, reach + load))
                if hit is not None:
                    return hit
            return None
        finally:
            self.robot.set_arm(saved)
            self._sync_held()

    def _load_radius(self) -> float:
        """Radius about the gripper of what it carries (or of the gripper itself)."""
        g = self.cfg.robot.gripper.size
        r = math.hypot(g[0], g[1]) / 2.0
        if self._held is not None:
            size = self.scene.object_types[self.scene.type_of(self._held.name)].size
            r = max(r, math.hypot(size[0], size[1]) / 2.0)
        return r + self.cfg.placement.margin

    def _run(self, poses: Sequence[ArmPose]) -> None:
        """Carry out a checked motion (kinematically): the robot ends at the last pose."""
        if poses:
            self.robot.set_arm(poses[-1])
            self._sync_held()

    def _ik(self, target: Vec3, what: str) -> ArmPose:
        pose, error = self.robot.solve_ik(target, 0.0)
        if error > self.cfg.robot.ik.tolerance:
            raise SkillFailed(f"{what} is out of reach ({100 * error:.0f} cm short)")
        return pose

    # ================================================================ grasping and placing
    def _plan_grab(self, obj: str, quick: bool = False) -> tuple[list[ArmPose], list[ArmPose], Held]:
        """Checked arm motions to grasp ``obj`` and carry it back, and the grasp it makes
        (``quick``: check only the grasp and the lifted pose, see :meth:`_free_route`)."""
        body = self.bodies.objects[obj]
        lo, hi = p.getAABB(body, -1, physicsClientId=self.client)
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        height = hi[2] - lo[2]
        z = grasp_height(lo[2], height, self.cfg)
        if z - self.cfg.robot.gripper.size[2] / 2.0 > hi[2]:
            raise SkillFailed(f"{obj} is too flat to grasp where it lies")
        center = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0)
        grasp = self._ik((center[0], center[1], z), obj)
        base_yaw = self.robot.base_pose().yaw
        grasp = grasp.with_(wrist=_wrist(yaw_of(orn) - base_yaw - grasp.shoulder, self.cfg))
        travel = self._travel_arm(grasp.wrist)
        approach = self._free_route(travel, grasp, obj, quick)
        self.robot.set_arm(grasp)
        ee_pos, ee_orn = self.robot.ee_pose()
        offset = _to_frame(ee_pos, yaw_of(ee_orn), pos)
        held = Held(obj, -1, offset, wrap_angle(yaw_of(orn) - yaw_of(ee_orn)))
        lifted = grasp.with_(lift=grasp.lift + self.cfg.placement.lift_off)
        self._held = held  # plan the way back carrying it
        try:
            back = self._free_route(self._travel_arm(grasp.wrist), lifted, f"back with {obj}", quick)
        finally:
            self._held = None
            self.robot.set_arm(travel)
            p.resetBasePositionAndOrientation(body, pos, orn, physicsClientId=self.client)
        return approach, [grasp, lifted] + list(reversed(back)), held

    def _attach(self, held: Held) -> None:
        body = self.bodies.objects[held.name]
        cid = p.createConstraint(self.robot.body, self.robot.ee_link, body, -1, p.JOINT_FIXED, [0, 0, 0],
                                 parentFramePosition=list(held.offset), childFramePosition=[0, 0, 0],
                                 parentFrameOrientation=quat_from_yaw(held.yaw), physicsClientId=self.client)
        self._held = Held(held.name, cid, held.offset, held.yaw)
        self._sync_held()

    def _release(self) -> None:
        """Open the gripper: remove the attachment; the object stays where it is, at rest."""
        if self._held is None:
            return
        p.removeConstraint(self._held.constraint, physicsClientId=self.client)
        body = self.bodies.objects[self._held.name]
        p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=self.client)
        self._held = None

    def _sync_held(self) -> None:
        """Keep a held object rigidly at the gripper (the robot moves kinematically)."""
        if self._held is None:
            return
        ee_pos, ee_orn = self.robot.ee_pose()
        yaw = yaw_of(ee_orn)
        c, s = math.cos(yaw), math.sin(yaw)
        ox, oy, oz = self._held.offset
        pos = (ee_pos[0] + c * ox - s * oy, ee_pos[1] + s * ox + c * oy, ee_pos[2] + oz)
        p.resetBasePositionAndOrientation(self.bodies.objects[self._held.name], pos,
                                          quat_from_yaw(yaw + self._held.yaw), physicsClientId=self.client)

    def _put_plans(self, obj: str,
                   layout: FurnitureLayout) -> Iterator[tuple[Spot, list[ArmPose], ArmPose, list[ArmPose]]]:
        """Checked plans to put the held ``obj`` on free spots of ``layout``, best first."""
        otype = self.scene.object_types[self.scene.type_of(obj)]
        others = [aabb(p.getAABB(b, -1, physicsClientId=self.client))
                  for n, b in self.bodies.objects.items() if n != obj]
        travel = self.robot.arm_pose()
        for spot, lower in self._spots(layout, otype, self._rng, True, self._resting_at(layout.name)):
            if any(aabbs_overlap(spot.aabb, o, self.cfg.placement.gap) for o in others if o != lower):
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
        gap = self.cfg.placement.gap
        own = self.bodies.furniture[spot.furniture]
        hits = p.getOverlappingObjects([v - gap for v in lo], [v + gap for v in hi], physicsClientId=self.client) or []
        return any(body in self._static_ids and body != own for body, _ in hits)

    def _resting_at(self, furniture: str) -> list[tuple[tuple[Vec3, Vec3], float]]:
        """(AABB, yaw) of the objects resting at a furniture (what another object may sit on)."""
        out = []
        for name, (_, f) in self._supports().items():
            if f == furniture:
                body = self.bodies.objects[name]
                orn = p.getBasePositionAndOrientation(body, physicsClientId=self.client)[1]
                if 1.0 - 2.0 * (orn[0] ** 2 + orn[1] ** 2) < math.cos(self.cfg.placement.max_tilt):
                    continue  # tilted: nothing can sit on it
                out.append((aabb(p.getAABB(body, -1, physicsClientId=self.client)), yaw_of(orn)))
        return out

    def _spots(self, layout: FurnitureLayout, otype: ObjectType, rng: random.Random, random_first: bool,
               lowers: list[tuple[tuple[Vec3, Vec3], float]]) -> Iterator[tuple[Spot, tuple[Vec3, Vec3] | None]]:
        """Candidate spots with the AABB of the object each would sit on (None: on the level
        itself): free spots of the level first, then on top of other objects."""
        round_ = is_round(otype, self.cfg)
        for spot in candidate_spots(layout, otype.size, round_, self.cfg, rng, random_first):
            yield spot, None
        for lower in lowers:
            for spot in stacked_spots(layout, otype.size, round_, [lower], self.cfg):
                yield spot, lower[0]

    def _plan_place_at(self, spot: Spot, travel: ArmPose) -> tuple[list[ArmPose], ArmPose, list[ArmPose]]:
        held = self._held
        assert held is not None
        pl = self.cfg.placement
        ox, oy, oz = held.offset
        hover = self._ik((spot.center[0], spot.center[1], spot.center[2] + pl.lift_off - oz), "the spot")
        base_yaw = self.robot.base_pose().yaw
        hover = hover.with_(wrist=_wrist(spot.yaw - held.yaw - base_yaw - hover.shoulder, self.cfg))
        approach = self._free_route(travel, hover, spot.furniture)
        lowered = hover.with_(lift=hover.lift - (pl.lift_off - pl.drop))
        held_now, self._held = self._held, None  # the way back is empty-handed
        try:
            back = self._free_route(self._travel_arm(hover.wrist), lowered, spot.furniture)
        finally:
            self._held = held_now
        return approach, lowered, list(reversed(back))

    def _resting_on(self, obj: str, candidates: list[str]) -> list[str]:
        """Objects whose bottom lies on ``obj``'s top with their centre over it."""
        lo, hi = p.getAABB(self.bodies.objects[obj], -1, physicsClientId=self.client)
        tol = self.cfg.perception.on_tolerance
        out = []
        for o in candidates:
            olo, ohi = p.getAABB(self.bodies.objects[o], -1, physicsClientId=self.client)
            cx, cy = (olo[0] + ohi[0]) / 2.0, (olo[1] + ohi[1]) / 2.0
            if abs(olo[2] - hi[2]) <= tol and lo[0] <= cx <= hi[0] and lo[1] <= cy <= hi[1]:
                out.append(o)
        return out

    def _let_fall(self, objects: list[str], furniture: str) -> None:
        """Objects that rested on the one just taken drop onto what lies below (physics steps);
        all must come to rest at ``furniture`` again."""
        for body in (self.bodies.objects[o] for o in objects):
            p.changeDynamics(body, -1, activationState=p.ACTIVATION_STATE_WAKE_UP, physicsClientId=self.client)
        for _ in range(self.cfg.placement.drop_steps):
            p.stepSimulation(physicsClientId=self.client)
        found = self._supports()
        for o in objects:
            speed = math.hypot(*p.getBaseVelocity(self.bodies.objects[o], physicsClientId=self.client)[0])
            if found.get(o, ("", ""))[1] != furniture or speed > self.cfg.placement.rest_speed:
                raise SkillFailed(f"taking it would make {o} fall off {furniture}")

    def _settle(self, obj: str, furniture: str) -> None:
        """A few physics steps; the object must come to rest where it was put."""
        body = self.bodies.objects[obj]
        before = p.getBasePositionAndOrientation(body, physicsClientId=self.client)[0]
        for _ in range(self.cfg.placement.settle_steps):
            p.stepSimulation(physicsClientId=self.client)
        after = p.getBasePositionAndOrientation(body, physicsClientId=self.client)[0]
        support = self._support(obj)
        if math.dist(before, after) > self.cfg.placement.settle_tolerance or support is None or support[1] != furniture:
            raise SkillFailed(f"{obj} did not come to rest on {furniture}")

    def _place_initial(self, furniture: str, objects: list[str], rng: random.Random) -> None:
        """Reset: put each object on a free spot of ``furniture`` that the robot can grasp it from:
        random spots, or, where that leaves no room, packed from a corner, largest first."""
        layout = self.layouts[furniture]
        self.robot.set_base(layout.approach)
        self.robot.set_arm(self._travel_arm())
        if layout.door is not None:
            self._set_door(furniture, layout.door.travel)  # check grasps as they will be made
        try:
            try:
                self._place_all(objects, layout, rng, random_first=True)
            except PlacementError:
                area = {o: self.scene.object_types[self.scene.type_of(o)].size for o in objects}
                packed = sorted(objects, key=lambda o: -area[o][0] * area[o][1])
                self._place_all(packed, layout, rng, random_first=False)
        finally:
            if layout.door is not None:
                self._set_door(furniture, 0.0)

    def _place_all(self, objects: list[str], layout: FurnitureLayout, rng: random.Random, random_first: bool) -> None:
        placed: list[tuple[tuple[Vec3, Vec3], float]] = []
        for obj in objects:
            placed.append(self._place_one(obj, layout, placed, rng, random_first))

    def _place_one(self, obj: str, layout: FurnitureLayout, placed: list[tuple[tuple[Vec3, Vec3], float]],
                   rng: random.Random, random_first: bool) -> tuple[tuple[Vec3, Vec3], float]:
        otype = self.scene.object_types[self.scene.type_of(obj)]
        body = self.bodies.objects[obj]
        for spot, lower in self._spots(layout, otype, rng, random_first, placed):
            if any(aabbs_overlap(spot.aabb, o, self.cfg.placement.gap) for o, _ in placed if o != lower):
                continue
            if self._touches_structure(spot):
                continue
            p.resetBasePositionAndOrientation(body, spot.center, quat_from_yaw(spot.yaw), physicsClientId=self.client)
            p.resetBaseVelocity(body, [0, 0, 0], [0, 0, 0], physicsClientId=self.client)
            try:
                self._plan_grab(obj, quick=True)
            except SkillFailed:
                continue
            return spot.aabb, spot.yaw
        raise PlacementError(f"furniture.{layout.name}: no free spot reachable by the robot "
                             f"{'in' if layout.is_container else 'on'} it for {obj} (too many or too large objects "
                             f"there: lower the weight of '{layout.name}' in the places of some "
                             "objects, or make it larger)")
