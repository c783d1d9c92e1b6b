"""The mobile manipulator in PyBullet (dimensions from ``config/robot.yaml``).

One multibody: a flat base with a mast (the base link), then a chain of joints
``lift (prismatic z) -> shoulder (revolute z) -> stage 1..n (prismatic x) -> wrist (revolute z)``.
The wrist link carries the gripper box and is the end effector. The robot is moved
kinematically: the base by ``resetBasePositionAndOrientation``, the joints by ``resetJointState``;
every link has zero mass, so a physics step never moves it.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import quat_from_yaw
from llm_planner.domains.household.sim.config import RobotConfig
from llm_planner.domains.household.sim.layout import Frame2D, wrap_angle

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class ArmPose:
    """Joint values of the arm: lift height (m, arm axis above the floor), shoulder yaw, the
    extension of each telescoping stage (m) and the wrist yaw."""

    lift: float
    shoulder: float
    stages: tuple[float, ...]
    wrist: float

    def as_list(self) -> list[float]:
        return [self.lift, self.shoulder, *self.stages, self.wrist]

    @property
    def extension(self) -> float:
        return sum(self.stages)

    def with_(self, **changes: Any) -> ArmPose:
        return dataclasses.replace(self, **changes)


class Robot:
    """The robot body in one PyBullet client, with IK for its end effector."""

    def __init__(self, client: int, cfg: RobotConfig) -> None:
        self.client = client
        self.cfg = cfg
        self.n_stages = cfg.arm.stages
        self.lift_joint, self.shoulder_joint = 0, 1
        self.stage_joints = tuple(range(2, 2 + self.n_stages))
        self.wrist_joint = 2 + self.n_stages
        self.ee_link = self.wrist_joint
        self.n_joints = self.wrist_joint + 1
        self.body = self._build()
        self._joint_ids = list(range(self.n_joints))
        self.lower = [cfg.lift.min, cfg.shoulder.min] + [0.0] * self.n_stages + [cfg.wrist.min]
        self.upper = [cfg.lift.max, cfg.shoulder.max] + [cfg.arm.stage_travel] * self.n_stages + [cfg.wrist.max]

    # ------------------------------------------------------------------ building
    def _build(self) -> int:
        c, cfg = self.client, self.cfg
        base, mast, arm = cfg.base, cfg.mast, cfg.arm
        base_half = [s / 2.0 for s in base.size]
        mast_half = [s / 2.0 for s in mast.size]
        mast_pos = [mast.offset, 0.0, base.size[2] / 2.0 + mast_half[2]]
        col = p.createCollisionShapeArray([p.GEOM_BOX, p.GEOM_BOX], halfExtents=[base_half, mast_half],
                                          collisionFramePositions=[[0, 0, 0], mast_pos], physicsClientId=c)
        vis = p.createVisualShapeArray([p.GEOM_BOX, p.GEOM_BOX], halfExtents=[base_half, mast_half],
                                       visualFramePositions=[[0, 0, 0], mast_pos], physicsClientId=c)
        carriage = [mast_half[0] + 0.01, mast_half[1] + 0.01, arm.thickness]
        shapes: list[tuple[list[float], list[float], tuple[float, float, float]]] = [
            (carriage, [0, 0, 0], mast.color),  # lift carriage
            ([arm.thickness / 2.0] * 3, [0, 0, 0], arm.color),  # shoulder hub
        ]
        for i in range(self.n_stages):
            t = arm.thickness * (1.0 - 0.12 * i) / 2.0
            shapes.append(([arm.stage_length / 2.0, t, t], [arm.retracted_length - arm.stage_length / 2.0, 0, 0],
                           arm.color))
        shapes.append(([s / 2.0 for s in cfg.gripper.size], [0, 0, 0], cfg.gripper.color))
        link_col, link_vis = [], []
        for half, offset, color in shapes:
            link_col.append(p.createCollisionShape(p.GEOM_BOX, halfExtents=half, collisionFramePosition=offset,
                                                   physicsClientId=c))
            link_vis.append(p.createVisualShape(p.GEOM_BOX, halfExtents=half, visualFramePosition=offset,
                                                rgbaColor=[*color, 1.0], physicsClientId=c))
        n = len(shapes)
        positions = ([[mast.offset, 0.0, -base.center_z], [0, 0, 0]] + [[0, 0, 0]] * self.n_stages
                     + [[arm.retracted_length, 0, 0]])
        types = [p.JOINT_PRISMATIC, p.JOINT_REVOLUTE] + [p.JOINT_PRISMATIC] * self.n_stages + [p.JOINT_REVOLUTE]
        axes = [[0, 0, 1], [0, 0, 1]] + [[1, 0, 0]] * self.n_stages + [[0, 0, 1]]
        body = p.createMultiBody(
            baseMass=0.0, baseCollisionShapeIndex=col, baseVisualShapeIndex=vis,
            basePosition=[0, 0, base.center_z],
            linkMasses=[0.0] * n, linkCollisionShapeIndices=link_col, linkVisualShapeIndices=link_vis,
            linkPositions=positions, linkOrientations=[[0, 0, 0, 1]] * n,
            linkInertialFramePositions=[[0, 0, 0]] * n, linkInertialFrameOrientations=[[0, 0, 0, 1]] * n,
            linkParentIndices=list(range(n)), linkJointTypes=types, linkJointAxis=axes, physicsClientId=c)
        p.changeVisualShape(body, -1, rgbaColor=[*base.color, 1.0], physicsClientId=c)
        return body

    # ------------------------------------------------------------------ state
    def set_base(self, pose: Frame2D) -> None:
        p.resetBasePositionAndOrientation(self.body, [pose.x, pose.y, self.cfg.base.center_z],
                                          quat_from_yaw(pose.yaw), physicsClientId=self.client)

    def base_pose(self) -> Frame2D:
        pos, orn = p.getBasePositionAndOrientation(self.body, physicsClientId=self.client)
        return Frame2D(pos[0], pos[1], p.getEulerFromQuaternion(orn)[2])

    def set_arm(self, arm: ArmPose) -> None:
        p.resetJointStatesMultiDof(self.body, self._joint_ids, [[q] for q in arm.as_list()],
                                   physicsClientId=self.client)

    def arm_pose(self) -> ArmPose:
        qs = [s[0] for s in p.getJointStates(self.body, list(range(self.n_joints)), physicsClientId=self.client)]
        return ArmPose(qs[0], qs[1], tuple(qs[2:2 + self.n_stages]), qs[-1])

    def ee_pose(self) -> tuple[Vec3, tuple[float, float, float, float]]:
        state = p.getLinkState(self.body, self.ee_link, computeForwardKinematics=True, physicsClientId=self.client)
        return state[4], state[5]

    def travel_pose(self, lift: float, wrist: float) -> ArmPose:
        """Arm retracted and turned back over the base (how the robot drives)."""
        return ArmPose(lift, self.cfg.shoulder.travel, (0.0,) * self.n_stages, wrist)

    # ------------------------------------------------------------------ kinematics
    def solve_ik(self, target: Vec3, wrist: float) -> tuple[ArmPose, float]:
        """Joint values that put the end effector at ``target`` (world), and the remaining error
        in metres measured by forward kinematics. Leaves the robot as it was."""
        saved = self.arm_pose()
        self.set_arm(self._seed(target))  # damped least squares starts from the current joints
        q = p.calculateInverseKinematics(
            self.body, self.ee_link, list(target), maxNumIterations=self.cfg.ik.max_iterations,
            residualThreshold=self.cfg.ik.residual_threshold, physicsClientId=self.client)
        q = [min(max(v, lo), hi) for v, lo, hi in zip(q, self.lower, self.upper, strict=False)]
        pose = ArmPose(q[0], q[1], tuple(q[2:2 + self.n_stages]), wrist)
        self.set_arm(pose)
        reached = self.ee_pose()[0]
        self.set_arm(saved)
        return pose, math.dist(reached, target)

    def _seed(self, target: Vec3) -> ArmPose:
        """Cylindrical estimate of the solution about the mast (IK starts from it)."""
        base = self.base_pose()
        mx, my = base.to_world(self.cfg.mast.offset, 0.0)
        r = math.hypot(target[0] - mx, target[1] - my)
        yaw = wrap_angle(math.atan2(target[1] - my, target[0] - mx) - base.yaw)
        ext = min(max(r - self.cfg.arm.retracted_length, 0.0), self.n_stages * self.cfg.arm.stage_travel)
        return ArmPose(target[2], yaw, (ext / self.n_stages,) * self.n_stages, 0.0)
