"""The PyBullet world of a G-TAMP problem: static walls and regions, sliding doors, movable
objects and a mobile manipulator (holonomic disc base, torso, one 7-joint arm).

The world is kinematic: bodies are placed with ``reset*`` calls and collisions are real
PyBullet narrow-phase queries (``getClosestPoints``) between the robot's links, the held object
and the other bodies. Each :class:`GTampWorld` owns its own DIRECT physics client, so a planner's
model and the executing simulator never share state.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.gtamp.domain import Grasp, GState, ObjPose, Pose2D, ProblemSpec, RobotSpec, Shape

TOOL_LINK = 7
ARM_JOINTS = tuple(range(7))
#: penetration tolerated before two bodies count as colliding (resting contact is not a collision)
COLLISION_TOLERANCE = 0.003
JOINT_LIMIT = 3.05


def quat_yaw(yaw: float) -> tuple[float, float, float, float]:
    return (0.0, 0.0, math.sin(0.5 * yaw), math.cos(0.5 * yaw))


class GTampWorld:
    """PyBullet bodies of one problem; ``set_state`` puts them where a :class:`GState` says."""

    def __init__(self, problem: ProblemSpec, gui: bool = False) -> None:
        self.problem = problem
        self.layout = problem.layout
        self.client = p.connect(p.GUI if gui else p.DIRECT)
        self.name_of: dict[int, str] = {}
        self.walls: list[int] = []
        self.regions: dict[str, int] = {}
        self.doors: dict[str, int] = {}
        self.objects: list[int] = []
        self._build_static()
        self._build_objects()
        self.robot = self._build_robot(self.layout.robot)
        self.static_bodies: tuple[int, ...] = tuple(self.walls) + tuple(self.regions.values())
        self._synced: GState | None = None
        self.set_state(problem.initial)

    # ------------------------------------------------------------------ building
    def _body(self, shape: Shape, pos: Sequence[float], yaw: float = 0.0,
              color: Sequence[float] = (0.7, 0.7, 0.7, 1.0)) -> int:
        c = self.client
        if shape.kind == "box":
            half = [0.5 * s for s in shape.size]
            col = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c)
            vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=color, physicsClientId=c)
        else:
            r, h = shape.size
            col = p.createCollisionShape(p.GEOM_CYLINDER, radius=r, height=h, physicsClientId=c)
            vis = p.createVisualShape(p.GEOM_CYLINDER, radius=r, length=h, rgbaColor=color, physicsClientId=c)
        return p.createMultiBody(0, col, vis, list(pos), quat_yaw(yaw), physicsClientId=c)

    def _build_static(self) -> None:
        for i, wall in enumerate(self.layout.walls):
            body = self._body(Shape("box", (*wall.size, wall.height)), (*wall.center, 0.5 * wall.height),
                              color=(0.85, 0.85, 0.8, 1.0))
            self.walls.append(body)
            self.name_of[body] = f"wall{i}"
        for r in self.layout.regions:
            body = self._body(Shape("box", (r.depth, r.width, r.height)), (*r.center, 0.5 * r.height), r.heading,
                              r.color)
            self.regions[r.name] = body
            self.name_of[body] = r.name
        for d in self.layout.doors:
            body = self._body(Shape("box", d.size), d.closed_center, color=(0.55, 0.35, 0.2, 1.0))
            self.doors[d.name] = body
            self.name_of[body] = d.name

    def _build_objects(self) -> None:
        for spec in self.problem.objects:
            body = self._body(spec.shape, (0.0, 0.0, -5.0), color=spec.color)
            self.objects.append(body)
            self.name_of[body] = spec.name

    def _build_robot(self, spec: RobotSpec) -> int:
        c = self.client
        g = p.GEOM_BOX
        tx, ty, tz = spec.torso_size
        base = p.createCollisionShapeArray(
            [p.GEOM_CYLINDER, g], radii=[spec.base_radius, 0.0], lengths=[spec.base_height, 0.0],
            halfExtents=[[0, 0, 0], [tx / 2, ty / 2, tz / 2]],
            collisionFramePositions=[[0, 0, spec.base_height / 2], [-0.05, 0, spec.base_height + tz / 2]],
            physicsClientId=c)
        upper = p.createCollisionShape(g, halfExtents=[spec.upper_arm / 2, 0.04, 0.04],
                                       collisionFramePosition=[spec.upper_arm / 2, 0, 0], physicsClientId=c)
        fore = p.createCollisionShape(g, halfExtents=[spec.forearm / 2, 0.035, 0.035],
                                      collisionFramePosition=[spec.forearm / 2, 0, 0], physicsClientId=c)
        finger = [0.045, 0.008, 0.015]
        grip = p.createCollisionShapeArray(
            [g, g, g], halfExtents=[[0.03, 0.06, 0.02], finger, finger],
            collisionFramePositions=[[0.03, 0, 0], [spec.tool - 0.015, 0.05, 0], [spec.tool - 0.015, -0.05, 0]],
            physicsClientId=c)
        z, y, x = [0, 0, 1], [0, 1, 0], [1, 0, 0]
        links = [(-1, list(spec.shoulder), z), (-1, [0, 0, 0], y), (upper, [0, 0, 0], x),
                 (-1, [spec.upper_arm, 0, 0], y), (fore, [0, 0, 0], x), (-1, [spec.forearm, 0, 0], y),
                 (grip, [0, 0, 0], x), (-1, [spec.tool, 0, 0], x)]
        n = len(links)
        grey, orange = [0.5, 0.5, 0.55, 1], [0.9, 0.5, 0.1, 1]
        base_vis = p.createVisualShapeArray(
            [p.GEOM_CYLINDER, g], radii=[spec.base_radius, 0.0], lengths=[spec.base_height, 0.0],
            halfExtents=[[0, 0, 0], [tx / 2, ty / 2, tz / 2]],
            visualFramePositions=[[0, 0, spec.base_height / 2], [-0.05, 0, spec.base_height + tz / 2]],
            rgbaColors=[grey, grey], physicsClientId=c)
        vis = {2: p.createVisualShape(g, halfExtents=[spec.upper_arm / 2, 0.04, 0.04], rgbaColor=orange,
                                      visualFramePosition=[spec.upper_arm / 2, 0, 0], physicsClientId=c),
               4: p.createVisualShape(g, halfExtents=[spec.forearm / 2, 0.035, 0.035], rgbaColor=orange,
                                      visualFramePosition=[spec.forearm / 2, 0, 0], physicsClientId=c),
               6: p.createVisualShapeArray([g, g, g], halfExtents=[[0.03, 0.06, 0.02], finger, finger],
                                           visualFramePositions=[[0.03, 0, 0], [spec.tool - 0.015, 0.05, 0],
                                                                 [spec.tool - 0.015, -0.05, 0]],
                                           rgbaColors=[grey] * 3, physicsClientId=c)}
        body = p.createMultiBody(
            0, base, base_vis, [0, 0, 0], [0, 0, 0, 1],
            linkMasses=[0.1] * n, linkCollisionShapeIndices=[lk[0] for lk in links],
            linkVisualShapeIndices=[vis.get(k, -1) for k in range(n)], linkPositions=[lk[1] for lk in links],
            linkOrientations=[[0, 0, 0, 1]] * n, linkInertialFramePositions=[[0, 0, 0]] * n,
            linkInertialFrameOrientations=[[0, 0, 0, 1]] * n, linkParentIndices=list(range(n)),
            linkJointTypes=[p.JOINT_REVOLUTE] * 7 + [p.JOINT_FIXED], linkJointAxis=[lk[2] for lk in links],
            physicsClientId=c)
        self.name_of[body] = "robot"
        return body

    def close(self) -> None:
        if self.client >= 0:
            p.disconnect(self.client)
            self.client = -1

    def __del__(self) -> None:  # pragma: no cover - best effort at interpreter exit
        try:
            if p.isConnected(self.client):
                p.disconnect(self.client)
        except Exception:  # noqa: BLE001 - a destructor must not raise (PyBullet may be gone at exit)
            pass

    # ------------------------------------------------------------------ robot
    def set_base(self, pose: Pose2D) -> None:
        p.resetBasePositionAndOrientation(self.robot, [pose.x, pose.y, 0.0], quat_yaw(pose.theta),
                                          physicsClientId=self.client)

    def set_arm(self, q: Sequence[float]) -> None:
        for j, v in zip(ARM_JOINTS, q, strict=False):
            p.resetJointState(self.robot, j, v, physicsClientId=self.client)

    def arm(self) -> tuple[float, ...]:
        return tuple(s[0] for s in p.getJointStates(self.robot, ARM_JOINTS, physicsClientId=self.client))

    def tool_pose(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        s = p.getLinkState(self.robot, TOOL_LINK, computeForwardKinematics=True, physicsClientId=self.client)
        return tuple(s[4]), tuple(s[5])

    def ik(self, pos: Sequence[float], orn: Sequence[float], seed: Sequence[float] | None = None,
           pos_tol: float = 0.01, orn_tol: float = 0.05, rounds: int = 6) -> tuple[float, ...] | None:
        """An IK solution of the arm for the tool pose ``(pos, orn)`` at the current base pose.

        PyBullet's damped-least-squares IK is iterated from ``seed`` (default: home) and the result
        checked by forward kinematics; ``None`` when the pose is out of reach or a joint is outside
        its limits."""
        home = self.layout.robot.home
        self.set_arm(seed if seed is not None else home)
        q: tuple[float, ...] = tuple(home)
        for _ in range(rounds):
            q = tuple(p.calculateInverseKinematics(
                self.robot, TOOL_LINK, list(pos), list(orn), lowerLimits=[-JOINT_LIMIT] * 7,
                upperLimits=[JOINT_LIMIT] * 7, jointRanges=[2 * JOINT_LIMIT] * 7, restPoses=list(home),
                maxNumIterations=60, residualThreshold=1e-5, physicsClientId=self.client))
            q = tuple(math.remainder(v, 2 * math.pi) for v in q)
            self.set_arm(q)
            tpos, torn = self.tool_pose()
            if math.dist(tpos, pos) < pos_tol * 0.2 and _quat_angle(torn, orn) < orn_tol * 0.2:
                break
        tpos, torn = self.tool_pose()
        if math.dist(tpos, pos) > pos_tol or _quat_angle(torn, orn) > orn_tol:
            return None
        if any(abs(v) > JOINT_LIMIT for v in q):
            return None
        return q

    # ------------------------------------------------------------------ state
    def object_pose(self, index: int, pose: ObjPose) -> None:
        p.resetBasePositionAndOrientation(self.objects[index], [pose.x, pose.y, pose.z], quat_yaw(pose.yaw),
                                          physicsClientId=self.client)

    def hide_object(self, index: int) -> None:
        p.resetBasePositionAndOrientation(self.objects[index], [0.0, 0.0, -10.0 - index], [0, 0, 0, 1],
                                          physicsClientId=self.client)

    def set_door(self, index: int, is_open: bool) -> None:
        d = self.layout.doors[index]
        p.resetBasePositionAndOrientation(self.doors[d.name], list(d.open_center if is_open else d.closed_center),
                                          [0, 0, 0, 1], physicsClientId=self.client)

    def attach(self, index: int, grasp: Grasp) -> None:
        """Put the held object where the grasp says, relative to the current tool pose."""
        tpos, torn = self.tool_pose()
        pos, orn = p.multiplyTransforms(tpos, torn, grasp.tool_pos, grasp.tool_orn)
        p.resetBasePositionAndOrientation(self.objects[index], pos, orn, physicsClientId=self.client)

    def set_state(self, state: GState) -> None:
        """Place every body as ``state`` says (robot arm at home); cheap when already there."""
        if state is self._synced:
            return
        self.set_base(state.base)
        self.set_arm(self.layout.robot.home)
        for i, pose in enumerate(state.poses):
            if pose is None:
                self.hide_object(i)
            else:
                self.object_pose(i, pose)
        for i, is_open in enumerate(state.doors_open):
            self.set_door(i, is_open)
        if state.held is not None and state.grasp is not None:
            self.attach(state.held, state.grasp)
        self._synced = state

    def invalidate(self) -> None:
        """Forget which state the bodies show (call after moving bodies by hand)."""
        self._synced = None

    # ------------------------------------------------------------------ collisions
    def hits(self, body: int, others: Iterable[int], link: int | None = None) -> list[int]:
        """The bodies among ``others`` that penetrate ``body`` (optionally one of its links)."""
        out = []
        for other in others:
            if other == body:
                continue
            if link is None:
                pts = p.getClosestPoints(body, other, 0.0, physicsClientId=self.client)
            else:
                pts = p.getClosestPoints(body, other, 0.0, linkIndexA=link, physicsClientId=self.client)
            if any(pt[8] < -COLLISION_TOLERANCE for pt in pts):
                out.append(other)
        return out

    def movable_bodies(self, exclude: Iterable[int] = ()) -> list[int]:
        skip = set(exclude)
        return [b for i, b in enumerate(self.objects) if i not in skip]

    def door_bodies(self, state: GState, only_closed: bool = True) -> list[int]:
        return [self.doors[d.name] for i, d in enumerate(self.layout.doors)
                if not (only_closed and state.doors_open[i])]


def _quat_angle(a: Sequence[float], b: Sequence[float]) -> float:
    dot = abs(sum(x * y for x, y in zip(a, b, strict=True)))
    return 2.0 * math.acos(min(1.0, dot))
