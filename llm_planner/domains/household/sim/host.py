"""What the parts of :class:`~llm_planner.domains.household.sim.world.HouseholdSim` share.

The simulator owns one part per job (:mod:`.sensing`, :mod:`.manipulation`, :mod:`.driving`,
:mod:`.doors`); each is given the :class:`SimHost` in its constructor. The host holds the world
that ``HouseholdSim`` builds (scene, configuration, PyBullet client, robot, bodies, layouts) and the
few primitives every part needs: the held object kept at the gripper, what the robot's parts
penetrate, and a container door's joint.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence

import numpy as np

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import quat_from_yaw, yaw_of
from llm_planner.domains.household.sim.builder import DOOR_LINK, WorldBodies
from llm_planner.domains.household.sim.check import LayoutCheck
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.sim.layout import FurnitureLayout, Wall
from llm_planner.domains.household.sim.navigation import BasePlanner
from llm_planner.domains.household.sim.robot import Robot
from llm_planner.domains.household.sim.skills import DriveGoal, Held, Point, Vec3
from llm_planner.domains.household.world.scene import Scene


class SimHost:
    """The built world of one apartment and the primitives its parts share.

    ``held`` is the object in the gripper (None: the hand is empty); ``goals`` is where each walk
    ends (filled by the driving part once the world is built); ``last_path`` is the base path of
    the last walk (for pictures); ``switched_on`` the switchable things that are on (the device
    state the sensors report, :mod:`.switches`)."""

    def __init__(self, scene: Scene, cfg: SimConfig, client: int, rng: random.Random,
                 layouts: dict[str, FurnitureLayout], walls: list[Wall], layout_check: LayoutCheck,
                 bodies: WorldBodies, robot: Robot) -> None:
        self.scene = scene
        self.cfg = cfg
        self.client = client
        self.rng = rng
        self.layouts = layouts
        self.walls = walls
        self.layout_check = layout_check
        self.bodies = bodies
        self.robot = robot
        self.planner = BasePlanner(layout_check.grid)
        self.drive_radius = layout_check.drive_radius
        self.held: Held | None = None
        self.goals: dict[str, DriveGoal] = {}
        self.last_path: list[Point] = []
        self.switched_on: set[str] = set()
        self.names = {v: k for k, v in {**bodies.static, **bodies.objects}.items()}
        self.static = list(bodies.static.items())
        self.static_ids = set(bodies.static.values())
        self.static_boxes = np.array([aabb2d(client, b) for _, b in self.static])

    def sync_held(self) -> None:
        """Keep a held object rigidly at the gripper (the robot moves kinematically)."""
        if self.held is None:
            return
        ee_pos, ee_orn = self.robot.ee_pose()
        yaw = yaw_of(ee_orn)
        c, s = math.cos(yaw), math.sin(yaw)
        ox, oy, oz = self.held.offset
        pos = (ee_pos[0] + c * ox - s * oy, ee_pos[1] + s * ox + c * oy, ee_pos[2] + oz)
        p.resetBasePositionAndOrientation(self.bodies.objects[self.held.name], pos,
                                          quat_from_yaw(yaw + self.held.yaw), physicsClientId=self.client)

    def robot_parts(self) -> list[int]:
        """The robot's body and the object it carries."""
        parts = [self.robot.body]
        if self.held is not None:
            parts.append(self.bodies.objects[self.held.name])
        return parts

    def collision(self, parts: Sequence[int], radius: float, ignore: Iterable[int] = ()) -> str | None:
        """Name of a wall or furniture that a robot part penetrates (only those within ``radius`` of
        the base are checked), or the robot's own base a carried object penetrates; else None."""
        base = self.robot.base_pose()
        b = self.static_boxes
        near = np.nonzero((b[:, 0] <= base.x + radius) & (b[:, 2] >= base.x - radius)
                          & (b[:, 1] <= base.y + radius) & (b[:, 3] >= base.y - radius))[0]
        skip = set(ignore)
        tol = -self.cfg.motion.collision_tolerance
        for k in near:
            name, body = self.static[k]
            if body in skip:
                continue
            for part in parts:
                for pt in p.getClosestPoints(part, body, 0.0, physicsClientId=self.client):
                    if pt[8] < tol:
                        return name
        if self.held is not None:
            held = self.bodies.objects[self.held.name]
            for pt in p.getClosestPoints(held, self.robot.body, 0.0, linkIndexB=-1, physicsClientId=self.client):
                if pt[8] < tol:
                    return "the robot's own base"
        return None

    def set_door(self, furniture: str, position: float) -> None:
        """Set a container's door joint (0: closed) without checking anything."""
        p.resetJointState(self.bodies.furniture[furniture], DOOR_LINK, position, physicsClientId=self.client)


def body_aabb(client: int, body: int) -> tuple[Vec3, Vec3]:
    """The AABB of a body with all its links."""
    lo, hi = p.getAABB(body, -1, physicsClientId=client)
    for link in range(p.getNumJoints(body, physicsClientId=client)):
        llo, lhi = p.getAABB(body, link, physicsClientId=client)
        lo = tuple(min(a, b) for a, b in zip(lo, llo, strict=True))
        hi = tuple(max(a, b) for a, b in zip(hi, lhi, strict=True))
    return tuple(lo), tuple(hi)


def aabb2d(client: int, body: int) -> tuple[float, float, float, float]:
    """A body's footprint (xmin, ymin, xmax, ymax)."""
    lo, hi = body_aabb(client, body)
    return (lo[0], lo[1], hi[0], hi[1])
