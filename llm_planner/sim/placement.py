"""Where an object can rest on a furniture: candidate spots by rejection sampling, then an
exhaustive scan (pure geometry; the simulator tests each candidate against the other objects'
bounding boxes and the robot's real reach).

A spot keeps the object inside its support level with a margin, lets the arm reach it from the
furniture's approach pose (distance from the mast, lift range) and leaves room above it for the
arm in a container.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from llm_planner.sim.config import SimConfig
from llm_planner.sim.layout import FurnitureLayout, Level

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Spot:
    """An object resting pose: centre and yaw in the world, and its world AABB half extents."""

    furniture: str
    level: int
    center: Vec3
    yaw: float
    half: Vec3

    @property
    def aabb(self) -> tuple[Vec3, Vec3]:
        lo = tuple(c - h for c, h in zip(self.center, self.half))
        hi = tuple(c + h for c, h in zip(self.center, self.half))
        return lo, hi  # type: ignore[return-value]


@dataclass(frozen=True)
class _Slot:
    """One (level, object yaw) combination with the x/y range the object centre may take."""

    level: int
    floor: float
    yaw: float  # relative to the furniture
    x: tuple[float, float]
    y: tuple[float, float]
    hx: float
    hy: float


def grasp_height(floor: float, height: float, cfg: SimConfig) -> float:
    """End-effector height to hold an object of this height resting at ``floor``: its centre,
    but never so low that the arm would scrape the support."""
    return max(floor + height / 2.0, floor + cfg.placement.grasp_clearance, cfg.robot.lift.min)


def _slots(layout: FurnitureLayout, size: Vec3, round_: bool, cfg: SimConfig) -> list[_Slot]:
    pl, robot = cfg.placement, cfg.robot
    arm_half = max(robot.arm.thickness, robot.gripper.size[2]) / 2.0
    gripper = math.hypot(robot.gripper.size[0], robot.gripper.size[1]) / 2.0
    slots = []
    for i, level in enumerate(layout.levels):
        if not _fits_height(level, size[2], arm_half, cfg):
            continue
        for yaw in ((0.0,) if round_ else (0.0, math.pi / 2.0)):
            hx, hy = (size[0] / 2.0, size[1] / 2.0) if yaw == 0.0 else (size[1] / 2.0, size[0] / 2.0)
            # Inside a container the gripper must also keep clear of the walls.
            wx = max(hx, gripper) if layout.is_container else hx
            wy = max(hy, gripper) if layout.is_container else hy
            x = (level.x[0] + wx + pl.margin, level.x[1] - wx - pl.margin)
            y = (level.y[0] + wy + pl.margin, level.y[1] - wy - pl.margin)
            if x[0] <= x[1] and y[0] <= y[1]:
                slots.append(_Slot(i, level.floor, yaw, x, y, hx, hy))
    return slots


def _fits_height(level: Level, height: float, arm_half: float, cfg: SimConfig) -> bool:
    pl = cfg.placement
    top = level.floor + pl.lift_off + height + pl.margin
    arm_top = grasp_height(level.floor, height, cfg) + pl.lift_off + arm_half + pl.margin
    return max(top, arm_top) <= level.ceiling


def candidate_spots(layout: FurnitureLayout, size: Vec3, round_: bool, cfg: SimConfig,
                    rng: random.Random) -> Iterator[Spot]:
    """Random spots first, then every spot of a regular scan (nearest the robot first); only
    spots within the arm's reach from the approach pose are produced."""
    slots = _slots(layout, size, round_, cfg)
    if not slots:
        return
    for _ in range(cfg.placement.random_samples):
        s = rng.choice(slots)
        spot = _spot(layout, s, rng.uniform(*s.x), rng.uniform(*s.y), size, round_)
        if reachable(layout, spot, size[2], cfg):
            yield spot
    step = cfg.placement.scan_step
    for s in slots:
        xs = np.arange(s.x[1], s.x[0] - 1e-9, -step) if s.x[1] > s.x[0] else np.array([s.x[0]])
        ys = np.arange(s.y[0], s.y[1] + 1e-9, step) if s.y[1] > s.y[0] else np.array([s.y[0]])
        ys = sorted(ys, key=abs)  # the middle first
        for lx in xs:
            for ly in ys:
                spot = _spot(layout, s, float(lx), float(ly), size, round_)
                if reachable(layout, spot, size[2], cfg):
                    yield spot


def _spot(layout: FurnitureLayout, s: _Slot, lx: float, ly: float, size: Vec3, round_: bool) -> Spot:
    wx, wy = layout.frame.to_world(lx, ly)
    yaw = layout.frame.yaw + s.yaw
    if round_:
        hx = hy = (size[0] + size[1]) / 4.0
    else:
        c, sn = abs(math.cos(yaw)), abs(math.sin(yaw))
        ox, oy = size[0] / 2.0, size[1] / 2.0
        hx, hy = c * ox + sn * oy, sn * ox + c * oy
    return Spot(layout.name, s.level, (wx, wy, s.floor + size[2] / 2.0), yaw, (hx, hy, size[2] / 2.0))


def reachable(layout: FurnitureLayout, spot: Spot, height: float, cfg: SimConfig) -> bool:
    """The arm, from the approach pose, can put its gripper at the spot's grasp point."""
    robot, pl = cfg.robot, cfg.placement
    mx, my = layout.approach.to_world(robot.mast.offset, 0.0)
    r = math.hypot(spot.center[0] - mx, spot.center[1] - my)
    z = grasp_height(spot.center[2] - height / 2.0, height, cfg) + pl.lift_off
    margin = robot.ik.tolerance
    return (robot.arm.retracted_length + margin <= r <= robot.arm.max_length - margin
            and robot.lift.min <= z <= robot.lift.max)


def aabbs_overlap(a: tuple[Vec3, Vec3], b: tuple[Vec3, Vec3], gap: float = 0.0) -> bool:
    return all(a[0][k] - gap < b[1][k] and b[0][k] - gap < a[1][k] for k in range(3))
