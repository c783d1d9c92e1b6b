"""The household world in PyBullet and the robot's skills.

:class:`HouseholdSim` builds an apartment from a scene file (walls with doorways, containers with
shelves and a sliding door, surfaces, objects) plus the mobile manipulator of ``robot.yaml``, and
executes the symbolic model's actions as real robot motions:

``walk``    base motion along a grid path through doorways, every pose checked against the walls
            and furniture (PyBullet closest points) before the robot moves;
``grab``    inverse kinematics to the object, a collision-checked arm motion, a fixed constraint
            between gripper and object, and the arm carrying it back over the base;
``puton`` / ``putin``  a free spot sampled on the surface / inside the container (rejection
            sampling against the other objects' AABBs, reachable by IK), the arm lowering the
            object there, release, and a few physics steps to let it settle;
``open`` / ``close``  the arm reaches the door handle and the door joint moves.

Preconditions are read from the geometry (with :mod:`llm_planner.domains.household.sim.perception`), not from any
bookkeeping, and follow the symbolic model's rules. A skill that cannot be done returns
``SkillResult(False, reason)`` and leaves the world exactly as it was.

Simplifications, on purpose:

* Motion is kinematic (poses are set, then checked with ``getClosestPoints``); physics steps run
  only where physics matters: a released object settling, objects dropping when the one they
  rested on is taken.
* The base, the arm and a carried object are checked against walls and furniture (container
  walls, shelves and doors included). Other movable objects are not obstacles for the arm: the
  symbolic model has no occlusion, and objects sit apart on their supports.
* Container doors are panels that slide straight up (a prismatic joint): side-hinged leaves
  opening 90 degrees would sweep into neighbouring appliances and into the robot's place at
  them in the shipped kitchens, making legal symbolic actions impossible.
* ``open``/``close``: the arm reaches the door's handle, then the door's own joint moves.
* Crowded surfaces: an object may rest on another one or overhang a surface edge a little
  (its centre well over the top); perception reads such stacks as ON the surface.
* ``reset`` checks that each sampled spot can be grasped from (IK, grasp and lifted pose), not
  every intermediate pose of the arm motion; ``grab`` checks them all.
"""
from __future__ import annotations

import math
import random
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from llm_planner.errors import SceneError
from llm_planner.domains.household.sim import perception
from llm_planner.domains.household.sim.builder import DOOR_LINK, WorldBodies, build_world, is_round
from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.household.sim.config import SimConfig, load_sim_config
from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry, ROBOT, WALL, quat_from_yaw, yaw_of
from llm_planner.domains.household.sim.check import check_layout
from llm_planner.domains.household.sim.layout import Frame2D, FurnitureLayout, scene_layout, wall_layout, wrap_angle, wrist_clearance
from llm_planner.domains.household.sim.navigation import BasePlanner
from llm_planner.domains.household.sim.placement import Spot, aabbs_overlap, candidate_spots, grasp_height, stacked_spots
from llm_planner.domains.household.sim.robot import ArmPose, Robot
from llm_planner.domains.household.world.scene import Scene
from llm_planner.domains.household.world.symbolic import INSIDE, ON, VERB_ARITY, Action

Vec3 = tuple[float, float, float]
Point = tuple[float, float]


@dataclass(frozen=True)
class SkillResult:
    success: bool
    reason: str = ""


@dataclass(frozen=True)
class _Goal:
    """Where a walk ends (pose) and the free grid cell it is entered from (staging)."""

    pose: Frame2D
    staging: Point


@dataclass
class _Held:
    name: str
    constraint: int
    offset: Vec3  # object centre in the gripper frame
    yaw: float  # object yaw relative to the gripper


class PlacementError(SceneError):
    """The objects assigned to a furniture do not physically fit on or in it (reachably)."""


class _SkillFailed(Exception):
    """Internal: a skill cannot be done; the message is the reason."""


class HouseholdSim:
    """One apartment in its own PyBullet client (DIRECT unless ``gui``).

    >>> # with HouseholdSim(load_scene("apartment_seen"), scene.sample_placement(0)) as sim:
    >>> #     sim.execute(Action("walk", ("kitchen",)))
    """

    def __init__(self, scene: Scene, placement: Mapping[str, str], *, gui: bool = False, seed: int = 0,
                 config: SimConfig | None = None) -> None:
        self.scene = scene
        self.cfg = config or load_sim_config()
        self._rng = random.Random(seed)
        self.client = p.connect(p.GUI if gui else p.DIRECT)
        self.timings: dict[str, list[float]] = defaultdict(list)
        self._held: _Held | None = None
        try:
            self._build()
            self.reset(placement)
        except BaseException:
            p.disconnect(self.client)
            raise

    # ================================================================ construction
    def _build(self) -> None:
        cfg, scene = self.cfg, self.scene
        p.setGravity(0, 0, cfg.gravity, physicsClientId=self.client)
        p.setTimeStep(cfg.time_step, physicsClientId=self.client)
        p.setPhysicsEngineParameter(numSolverIterations=cfg.solver_iterations, physicsClientId=self.client)
        # The same checks as `llm-planner scene check`: a bad scene is refused here, naming the culprits.
        self.layout_check = check_layout(scene, cfg)
        self.layout_check.raise_errors()
        self.layouts: dict[str, FurnitureLayout] = scene_layout(scene, cfg)
        self.walls = wall_layout(scene, cfg)
        self._check_furniture_rooms()
        self.bodies: WorldBodies = build_world(self.client, scene, self.layouts, self.walls, cfg)
        self.robot = Robot(self.client, cfg.robot)
        for body in self.bodies.objects.values():  # resting objects may sleep (cheap physics steps)
            p.changeDynamics(body, -1, activationState=p.ACTIVATION_STATE_ENABLE_SLEEPING, physicsClientId=self.client)
        self._names = {v: k for k, v in {**self.bodies.static, **self.bodies.objects}.items()}
        self._static = list(self.bodies.static.items())
        self._static_ids = set(self.bodies.static.values())
        self._static_boxes = np.array([self._aabb2d(b) for _, b in self._static])
        self._drive_radius = self.layout_check.drive_radius
        self.planner = BasePlanner(self.layout_check.grid)
        self.last_path: list[Point] = []  # the base path of the last walk (for pictures)
        self._goals = self._make_goals()

    def _aabb2d(self, body: int) -> tuple[float, float, float, float]:
        lo, hi = self._body_aabb(body)
        return (lo[0], lo[1], hi[0], hi[1])

    def _check_furniture_rooms(self) -> None:
        for name, layout in self.layouts.items():
            room = perception.room_at(self.scene, layout.frame.x, layout.frame.y)
            if room != layout.room:
                raise SceneError(f"furniture.{name}: its position lies in room '{room}', not '{layout.room}'")
            if perception.room_at(self.scene, layout.approach.x, layout.approach.y) != layout.room:
                raise SceneError(f"furniture.{name}: the robot would work at it from outside room '{layout.room}'")

    def _make_goals(self) -> dict[str, _Goal]:
        """A free spot per room (found by the layout check) and the approach pose of every furniture,
        each with a reachable staging cell."""
        goals = {room: _Goal(Frame2D(q[0], q[1], 0.0), q) for room, q in self.layout_check.room_spots.items()}
        anchor = goals[self.scene.robot_room].staging
        for name, layout in self.layouts.items():
            goals[name] = self._approach_goal(name, layout, anchor)
        return goals

    def _approach_goal(self, name: str, layout: FurnitureLayout, anchor: Point) -> _Goal:
        pose = layout.approach
        self.robot.set_base(pose)
        self.robot.set_arm(self._travel_arm())
        hit = self._collision(self._robot_parts(), radius=self._drive_radius)
        if hit is not None:
            raise SceneError(f"furniture.{name}: where the robot works at it ([{pose.x:.2f}, {pose.y:.2f}]) it would "
                             f"touch {hit}; leave more room in front of it")
        blockers = []
        for q in self.planner.free_cells_near((pose.x, pose.y), self.cfg.motion.staging_search):
            if not self.planner.reachable(q, anchor):
                continue
            blocked = self._first_blocked(self._segment((q[0], q[1]), (pose.x, pose.y), pose.yaw))
            if blocked is None:
                return _Goal(pose, q)
            blockers.append(blocked)
        why = f" (the last straight stretch hits {blockers[0]})" if blockers else ""
        raise SceneError(f"furniture.{name}: the robot cannot drive to where it works at it "
                         f"([{pose.x:.2f}, {pose.y:.2f}]) from the rest of the apartment{why}")

    # ================================================================ public API
    def reset(self, placement: Mapping[str, str], room: str | None = None, seed: int | None = None) -> None:
        """Doors closed, hand empty, robot in ``room`` (default: the scene's start room), every
        object on a sampled free spot of its furniture. Reuses the bodies (no rebuilding).

        Raises PlacementError when the objects given to one furniture do not fit there."""
        self._check_placement(placement)
        room = room or self.scene.robot_room
        if room not in self.scene.rooms:
            raise ValueError(f"unknown room '{room}' (rooms: {', '.join(self.scene.rooms)})")
        rng = random.Random(seed) if seed is not None else self._rng
        self._release()
        for name, layout in self.layouts.items():
            if layout.is_container:
                self._set_door(name, 0.0)
        for k, body in enumerate(self.bodies.objects.values()):  # park everything out of the way
            p.resetBasePositionAndOrientation(body, [k * 1.0, -50.0, 5.0], [0, 0, 0, 1], physicsClientId=self.client)
        by_furniture: dict[str, list[str]] = defaultdict(list)
        for obj in self.scene.object_names:
            by_furniture[placement[obj]].append(obj)
        for furniture, objects in by_furniture.items():
            self._place_initial(furniture, objects, rng)
        for body in self.bodies.objects.values():  # at rest: asleep until something touches them
            p.changeDynamics(body, -1, activationState=p.ACTIVATION_STATE_SLEEP, physicsClientId=self.client)
        self.robot.set_base(self._goals[room].pose)
        self.robot.set_arm(self._travel_arm())

    def execute(self, action: Action) -> SkillResult:
        """Run one skill; on failure nothing changes and the reason says why."""
        start = time.perf_counter()
        verb, args = action
        self.last_path = []
        try:
            if VERB_ARITY.get(verb) != len(args):
                raise _SkillFailed(f"unknown action {action}")
            handler = getattr(self, f"_skill_{verb}")
            handler(*args)
            result = SkillResult(True)
        except _SkillFailed as exc:
            result = SkillResult(False, str(exc))
        self.timings[verb if result.success else f"{verb} (failed)"].append(time.perf_counter() - start)
        return result

    def geometry(self) -> GeometrySnapshot:
        """What the sensors report: poses, AABBs, door joints and the gripper's attachment."""
        c = self.client
        bodies = []
        for name, body in self.bodies.furniture.items():
            bodies.append(self._body_geometry(name, self.layouts[name].kind, body))
        for name, body in self.bodies.walls.items():
            bodies.append(self._body_geometry(name, WALL, body))
        for name, body in self.bodies.objects.items():
            bodies.append(self._body_geometry(name, self.scene.type_of(name), body))
        bodies.append(self._body_geometry(ROBOT, ROBOT, self.robot.body))
        joints = self._joints()
        pos, orn = p.getBasePositionAndOrientation(self.robot.body, physicsClientId=c)
        return GeometrySnapshot(self.scene.name, tuple(pos), tuple(orn), self._attached_object(), bodies, joints)

    def render_png(self, path: str | Path, width: int = 640, height: int = 480, view: str = "top") -> Path:
        """A headless image (TinyRenderer) of the apartment: ``view`` is ``top`` or ``perspective``."""
        from llm_planner.domains.household.sim.render import render_png

        return render_png(self, Path(path), width, height, view)

    def skill_timings(self) -> dict[str, dict[str, float]]:
        """Per skill (successful calls, and failed ones apart): calls and mean / max milliseconds."""
        return {verb: {"calls": len(ts), "mean_ms": 1e3 * sum(ts) / len(ts), "max_ms": 1e3 * max(ts)}
                for verb, ts in sorted(self.timings.items()) if ts}

    def close(self) -> None:
        if self.client >= 0:
            p.disconnect(self.client)
            self.client = -1

    def __enter__(self) -> "HouseholdSim":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ================================================================ skills
    def _skill_walk(self, target: str) -> None:
        view = self._view()
        if target in self.scene.rooms:
            goal = self._goals[target]
        elif target in self.layouts:
            if self.layouts[target].room != view.room:
                raise _SkillFailed(f"{target} is not visible")
            goal = self._goals[target]
        elif target in self.bodies.objects:
            if target == view.holding:
                raise _SkillFailed(f"already holding {target}")
            place = self._visible_place(target, view)
            goal = self._goals[place]
        else:
            raise _SkillFailed(f"unknown target '{target}'")
        self._drive(goal, target)

    def _skill_grab(self, obj: str) -> None:
        if obj not in self.bodies.objects:
            raise _SkillFailed(f"{obj} is not a movable object")
        view = self._view()
        if view.holding is not None:
            raise _SkillFailed(f"hand is full (holding {view.holding})")
        place = self._visible_place(obj, view)
        if place != view.near:
            raise _SkillFailed(f"not close to {obj}")
        neighbours = [o for o, (_, f) in self._supports().items() if f == place and o != obj]
        above = self._resting_on(obj, neighbours)
        with self._undo_on_failure(neighbours + [obj]):
            approach, retract, held = self._plan_grab(obj)
            self._run(approach)
            self._attach(held)
            self._run(retract)
            if above:
                self._let_fall(neighbours, place)

    def _skill_open(self, furniture: str) -> None:
        self._door_skill(furniture, opening=True)

    def _skill_close(self, furniture: str) -> None:
        self._door_skill(furniture, opening=False)

    def _skill_putin(self, obj: str, furniture: str) -> None:
        self._put(obj, furniture, INSIDE)

    def _skill_puton(self, obj: str, furniture: str) -> None:
        self._put(obj, furniture, ON)

    def _put(self, obj: str, furniture: str, rel: str) -> None:
        if furniture not in self.layouts:
            raise _SkillFailed(f"unknown furniture '{furniture}'")
        view = self._view()
        if view.near != furniture:
            raise _SkillFailed(f"not close to {furniture}")
        if view.holding != obj:
            raise _SkillFailed(f"not holding {obj}")
        layout = self.layouts[furniture]
        if rel == INSIDE and not layout.is_container:
            raise _SkillFailed(f"{furniture} is a surface; use puton")
        if rel == ON and layout.is_container:
            raise _SkillFailed(f"{furniture} is a container; use putin")
        if rel == INSIDE and furniture not in view.opened:
            raise _SkillFailed(f"{furniture} is closed")
        with self._undo_on_failure([obj]):
            failure = None
            for attempt, (spot, approach, lowered, retract) in enumerate(self._put_plans(obj, layout)):
                if attempt >= self.cfg.placement.put_attempts:
                    break
                checkpoint = self._Undo(self, [obj])
                try:
                    self._run(approach)
                    self._run([lowered])
                    self._release()
                    self._run(retract)
                    self._settle(obj, furniture)
                    return
                except _SkillFailed as exc:  # it would not stay there: put it elsewhere
                    checkpoint.restore()
                    failure = exc
            raise failure or _SkillFailed(f"no free spot {'in' if layout.is_container else 'on'} {furniture} for {obj}")

    def _door_skill(self, furniture: str, opening: bool) -> None:
        if furniture not in self.layouts:
            raise _SkillFailed(f"unknown furniture '{furniture}'")
        view = self._view()
        if view.near != furniture:
            raise _SkillFailed(f"not close to {furniture}")
        layout = self.layouts[furniture]
        if layout.door is None:
            raise _SkillFailed(f"{furniture} cannot be opened or closed")
        is_open = furniture in view.opened
        if opening and is_open:
            raise _SkillFailed(f"{furniture} is already open")
        if not opening and not is_open:
            raise _SkillFailed(f"{furniture} is already closed")
        with self._undo_on_failure([]):
            reach = self._plan_handle(layout)
            self._run(reach)
            target = layout.door.travel if opening else 0.0
            self._move_door(furniture, target)
            self._run(list(reversed(reach)))

    # ================================================================ views of the world
    @dataclass(frozen=True)
    class _View:
        room: str
        near: str | None
        holding: str | None
        opened: frozenset[str]

    def _view(self) -> "_View":
        """Robot room, near, holding and open containers, read from geometry by perception rules."""
        base = self.robot.base_pose()
        room = perception.room_at(self.scene, base.x, base.y)
        if room is None:
            raise _SkillFailed("the robot is in no room")
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

    def _visible_place(self, obj: str, view: "_View") -> str:
        """The furniture an object rests at, if the robot can see it (symbolic visibility rules)."""
        support = self._support(obj) if obj != view.holding else None
        if support is None:
            raise _SkillFailed(f"{obj} is not visible")
        place = support[1]
        layout = self.layouts[place]
        if layout.room != view.room or (layout.is_container and place not in view.opened):
            raise _SkillFailed(f"{obj} is not visible")
        return place

    def _body_aabb(self, body: int) -> tuple[Vec3, Vec3]:
        lo, hi = p.getAABB(body, -1, physicsClientId=self.client)
        for link in range(p.getNumJoints(body, physicsClientId=self.client)):
            llo, lhi = p.getAABB(body, link, physicsClientId=self.client)
            lo = tuple(min(a, b) for a, b in zip(lo, llo))
            hi = tuple(max(a, b) for a, b in zip(hi, lhi))
        return tuple(lo), tuple(hi)  # type: ignore[return-value]

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

    # ================================================================ collisions
    def _robot_parts(self) -> list[int]:
        parts = [self.robot.body]
        if self._held is not None:
            parts.append(self.bodies.objects[self._held.name])
        return parts

    def _collision(self, parts: Sequence[int], radius: float, ignore: Iterable[int] = ()) -> str | None:
        """Name of a wall or furniture that a robot part penetrates, else None."""
        base = self.robot.base_pose()
        b = self._static_boxes
        near = np.nonzero((b[:, 0] <= base.x + radius) & (b[:, 2] >= base.x - radius)
                          & (b[:, 1] <= base.y + radius) & (b[:, 3] >= base.y - radius))[0]
        skip = set(ignore)
        tol = -self.cfg.motion.collision_tolerance
        for k in near:
            name, body = self._static[k]
            if body in skip:
                continue
            for part in parts:
                for pt in p.getClosestPoints(part, body, 0.0, physicsClientId=self.client):
                    if pt[8] < tol:
                        return name
        if self._held is not None:
            held = self.bodies.objects[self._held.name]
            for pt in p.getClosestPoints(held, self.robot.body, 0.0, linkIndexB=-1, physicsClientId=self.client):
                if pt[8] < tol:
                    return "the robot's own base"
        return None

    # ================================================================ base motion
    def _drive(self, goal: _Goal, target: str) -> None:
        start = self.robot.base_pose()
        if math.hypot(start.x - goal.pose.x, start.y - goal.pose.y) < 1e-6 and \
                abs(wrap_angle(start.yaw - goal.pose.yaw)) < 1e-6:
            return
        poses = self._plan_drive(start, goal, target)
        blocked = self._first_blocked(poses)
        self._place_robot(start)
        if blocked is not None:
            raise _SkillFailed(f"the way to {target} is blocked by {blocked}")
        self._place_robot(goal.pose)
        self.last_path = [(q.x, q.y) for q in poses]

    def _plan_drive(self, start: Frame2D, goal: _Goal, target: str) -> list[Frame2D]:
        exit_ = self._exit_point(start)
        middle = self.planner.path(exit_, goal.staging)
        if middle is None:
            raise _SkillFailed(f"no path to {target}")
        poses = self._segment((start.x, start.y), exit_, start.yaw)
        total = sum(math.dist(a, b) for a, b in zip(middle, middle[1:]))
        turn = wrap_angle(goal.pose.yaw - start.yaw)
        if total < 1e-9:
            n = max(1, int(math.ceil(abs(turn) / self.cfg.motion.yaw_step)))
            poses += [Frame2D(exit_[0], exit_[1], start.yaw + turn * k / n) for k in range(n + 1)]
        done = 0.0
        segments = list(zip(middle, middle[1:])) if total >= 1e-9 else []  # else: turned in place above
        for a, b in segments:
            seg = math.dist(a, b)
            n = max(1, int(math.ceil(seg / self.cfg.motion.path_step)))
            for k in range(1, n + 1):
                t = k / n
                yaw = start.yaw + turn * (done + t * seg) / total
                poses.append(Frame2D(a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, yaw))
            done += seg
        poses += self._segment(goal.staging, (goal.pose.x, goal.pose.y), goal.pose.yaw)
        return poses

    def _exit_point(self, start: Frame2D) -> Point:
        """The free grid cell the robot leaves its current pose through."""
        for goal in self._goals.values():
            if math.hypot(goal.pose.x - start.x, goal.pose.y - start.y) < 1e-4:
                return goal.staging
        for q in self.planner.free_cells_near((start.x, start.y), self.cfg.motion.staging_search):
            if self._first_blocked(self._segment((start.x, start.y), q, start.yaw)) is None:
                return q
        raise _SkillFailed("the robot is stuck: no free space around it")

    def _segment(self, a: Point, b: Point, yaw: float) -> list[Frame2D]:
        n = max(1, int(math.ceil(math.dist(a, b) / self.cfg.motion.path_step)))
        return [Frame2D(a[0] + (b[0] - a[0]) * k / n, a[1] + (b[1] - a[1]) * k / n, yaw) for k in range(n + 1)]

    def _first_blocked(self, poses: Sequence[Frame2D]) -> str | None:
        """Drive through the poses (kinematically) and return what the robot would hit first."""
        radius = self._drive_radius
        saved = self.robot.base_pose()
        try:
            for pose in poses:
                self._place_robot(pose)
                hit = self._collision(self._robot_parts(), radius)
                if hit is not None:
                    return hit
            return None
        finally:
            self._place_robot(saved)

    def _place_robot(self, pose: Frame2D) -> None:
        self.robot.set_base(pose)
        self._sync_held()

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
        raise _SkillFailed(f"the arm cannot reach {what}: it would hit {hit}")

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
            raise _SkillFailed(f"{what} is out of reach ({100 * error:.0f} cm short)")
        return pose

    # ================================================================ grasping and placing
    def _plan_grab(self, obj: str, quick: bool = False) -> tuple[list[ArmPose], list[ArmPose], _Held]:
        """Checked arm motions to grasp ``obj`` and carry it back, and the grasp it makes
        (``quick``: check only the grasp and the lifted pose, see :meth:`_free_route`)."""
        body = self.bodies.objects[obj]
        lo, hi = p.getAABB(body, -1, physicsClientId=self.client)
        pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=self.client)
        height = hi[2] - lo[2]
        z = grasp_height(lo[2], height, self.cfg)
        if z - self.cfg.robot.gripper.size[2] / 2.0 > hi[2]:
            raise _SkillFailed(f"{obj} is too flat to grasp where it lies")
        center = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0)
        grasp = self._ik((center[0], center[1], z), obj)
        base_yaw = self.robot.base_pose().yaw
        grasp = grasp.with_(wrist=_wrist(yaw_of(orn) - base_yaw - grasp.shoulder, self.cfg))
        travel = self._travel_arm(grasp.wrist)
        approach = self._free_route(travel, grasp, obj, quick)
        self.robot.set_arm(grasp)
        ee_pos, ee_orn = self.robot.ee_pose()
        offset = _to_frame(ee_pos, yaw_of(ee_orn), pos)
        held = _Held(obj, -1, offset, wrap_angle(yaw_of(orn) - yaw_of(ee_orn)))
        lifted = grasp.with_(lift=grasp.lift + self.cfg.placement.lift_off)
        self._held = held  # plan the way back carrying it
        try:
            back = self._free_route(self._travel_arm(grasp.wrist), lifted, f"back with {obj}", quick)
        finally:
            self._held = None
            self.robot.set_arm(travel)
            p.resetBasePositionAndOrientation(body, pos, orn, physicsClientId=self.client)
        return approach, [grasp, lifted] + list(reversed(back)), held

    def _attach(self, held: _Held) -> None:
        body = self.bodies.objects[held.name]
        cid = p.createConstraint(self.robot.body, self.robot.ee_link, body, -1, p.JOINT_FIXED, [0, 0, 0],
                                 parentFramePosition=list(held.offset), childFramePosition=[0, 0, 0],
                                 parentFrameOrientation=quat_from_yaw(held.yaw), physicsClientId=self.client)
        self._held = _Held(held.name, cid, held.offset, held.yaw)
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

    def _put_plans(self, obj: str, layout: FurnitureLayout) -> Iterator[tuple[Spot, list[ArmPose], ArmPose, list[ArmPose]]]:
        """Checked plans to put the held ``obj`` on free spots of ``layout``, best first."""
        otype = self.scene.object_types[self.scene.type_of(obj)]
        others = [tuple(map(tuple, p.getAABB(b, -1, physicsClientId=self.client)))
                  for n, b in self.bodies.objects.items() if n != obj]
        travel = self.robot.arm_pose()
        for spot, lower in self._spots(layout, otype, self._rng, True, self._resting_at(layout.name)):
            if any(aabbs_overlap(spot.aabb, o, self.cfg.placement.gap) for o in others if o != lower):
                continue
            if self._touches_structure(spot):
                continue
            try:
                yield (spot, *self._plan_place_at(spot, travel))
            except _SkillFailed:
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
                out.append((tuple(map(tuple, p.getAABB(body, -1, physicsClientId=self.client))), yaw_of(orn)))
        return out

    def _spots(self, layout: FurnitureLayout, otype, rng: random.Random, random_first: bool,
               lowers: list[tuple[tuple[Vec3, Vec3], float]]):
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
                raise _SkillFailed(f"taking it would make {o} fall off {furniture}")

    def _settle(self, obj: str, furniture: str) -> None:
        """A few physics steps; the object must come to rest where it was put."""
        body = self.bodies.objects[obj]
        before = p.getBasePositionAndOrientation(body, physicsClientId=self.client)[0]
        for _ in range(self.cfg.placement.settle_steps):
            p.stepSimulation(physicsClientId=self.client)
        after = p.getBasePositionAndOrientation(body, physicsClientId=self.client)[0]
        support = self._support(obj)
        if math.dist(before, after) > self.cfg.placement.settle_tolerance or support is None or support[1] != furniture:
            raise _SkillFailed(f"{obj} did not come to rest on {furniture}")

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
            except _SkillFailed:
                continue
            return spot.aabb, spot.yaw
        raise PlacementError(f"furniture.{layout.name}: no free spot reachable by the robot "
                             f"{'in' if layout.is_container else 'on'} it for {obj} (too many or too large objects "
                             f"there: lower the weight of '{layout.name}' in the places of some objects, or make it larger)")

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
                        raise _SkillFailed(f"the door of {furniture} would hit the robot")
        self._set_door(furniture, target)

    def _set_door(self, furniture: str, position: float) -> None:
        p.resetJointState(self.bodies.furniture[furniture], DOOR_LINK, position, physicsClientId=self.client)

    # ================================================================ helpers
    def _check_placement(self, placement: Mapping[str, str]) -> None:
        missing = [o for o in self.scene.object_names if o not in placement]
        if missing:
            raise ValueError(f"placement lacks objects: {', '.join(missing[:5])}")
        unknown = [o for o in placement if o not in self.bodies.objects]
        if unknown:
            raise ValueError(f"placement names unknown objects: {', '.join(unknown[:5])}")
        bad = {o: f for o, f in placement.items() if f not in self.layouts}
        if bad:
            o, f = next(iter(bad.items()))
            raise ValueError(f"placement puts {o} on unknown furniture '{f}'")

    class _Undo:
        def __init__(self, sim: "HouseholdSim", objects: Sequence[str]) -> None:
            self.sim = sim
            c = sim.client
            self.base = sim.robot.base_pose()
            self.arm = sim.robot.arm_pose()
            self.held = sim._held
            self.objects = {o: p.getBasePositionAndOrientation(sim.bodies.objects[o], physicsClientId=c) for o in objects}
            self.doors = {n: p.getJointState(b, DOOR_LINK, physicsClientId=c)[0]
                          for n, b in sim.bodies.furniture.items() if sim.layouts[n].is_container}

        def __enter__(self) -> None:
            return None

        def __exit__(self, exc_type: type | None, *rest: object) -> bool:
            if exc_type is not None:
                self.restore()
            return False

        def restore(self) -> None:
            sim, c = self.sim, self.sim.client
            if sim._held is not None and (self.held is None or sim._held.constraint != self.held.constraint):
                p.removeConstraint(sim._held.constraint, physicsClientId=c)
                sim._held = None
            if self.held is not None and sim._held is None:
                sim._attach(self.held)
            for o, (pos, orn) in self.objects.items():
                p.resetBasePositionAndOrientation(sim.bodies.objects[o], pos, orn, physicsClientId=c)
                p.resetBaseVelocity(sim.bodies.objects[o], [0, 0, 0], [0, 0, 0], physicsClientId=c)
            for n, q in self.doors.items():
                sim._set_door(n, q)
            sim.robot.set_base(self.base)
            sim.robot.set_arm(self.arm)
            sim._sync_held()

    def _undo_on_failure(self, objects: Sequence[str]) -> "_Undo":
        return self._Undo(self, objects)


def _interp(a: ArmPose, b: ArmPose, steps: float) -> list[ArmPose]:
    n = max(1, int(math.ceil(steps)))
    qa, qb = a.as_list(), b.as_list()
    out = []
    for k in range(1, n + 1):
        t = k / n
        q = [x + (y - x) * t for x, y in zip(qa, qb)]
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
