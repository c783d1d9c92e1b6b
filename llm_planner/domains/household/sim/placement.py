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
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from llm_planner.domains.geometry import vec3
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.sim.layout import FurnitureLayout, Level

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
        lo = vec3(c - h for c, h in zip(self.center, self.half, strict=True))
        hi = vec3(c + h for c, h in zip(self.center, self.half, strict=True))
        return lo, hi


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
            # Inside a container the gripper must also keep clear of the walls; on a surface an
            # object may overhang the edge a little (its centre stays well over the top).
            if layout.is_container:
                wx, wy = max(hx, gripper), max(hy, gripper)
            else:
                wx, wy = hx * (1.0 - pl.overhang), hy * (1.0 - pl.overhang)
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
                    rng: random.Random, random_first: bool = True) -> Iterator[Spot]:
    """Random spots first (unless ``random_first`` is False), then every spot of a regular scan
    that packs from a front corner (nearest the robot, then along the front, then further back);
    only spots within the arm's reach from the approach pose are produced."""
    slots = _slots(layout, size, round_, cfg)
    if not slots:
        return
    for _ in range(cfg.placement.random_samples if random_first else 0):
        s = rng.choice(slots)
        spot = _spot(layout, s, rng.uniform(*s.x), rng.uniform(*s.y), size, round_)
        if reachable(layout, spot, size[2], cfg):
            yield spot
    step = cfg.placement.scan_step
    for s in slots:
        xs = np.arange(s.x[1], s.x[0] - 1e-9, -step) if s.x[1] > s.x[0] else np.array([s.x[0]])
        ys = np.arange(s.y[0], s.y[1] + 1e-9, step) if s.y[1] > s.y[0] else np.array([s.y[0]])
        for lx in xs:
            for ly in ys:
                spot = _spot(layout, s, float(lx), float(ly), size, round_)
                if reachable(layout, spot, size[2], cfg):
                    yield spot


def _spot(layout: FurnitureLayout, s: _Slot, lx: float, ly: float, size: Vec3, round_: bool) -> Spot:
    wx, wy = layout.frame.to_world(lx, ly)
    return _spot_at(layout, s.level, (wx, wy, s.floor + size[2] / 2.0), layout.frame.yaw + s.yaw, size, round_)


def _spot_at(layout: FurnitureLayout, level: int, center: Vec3, yaw: float, size: Vec3, round_: bool) -> Spot:
    """A spot with the world AABB half extents of the object at that yaw."""
    if round_:
        hx = hy = (size[0] + size[1]) / 4.0
    else:
        c, sn = abs(math.cos(yaw)), abs(math.sin(yaw))
        ox, oy = size[0] / 2.0, size[1] / 2.0
        hx, hy = c * ox + sn * oy, sn * ox + c * oy
    return Spot(layout.name, level, center, yaw, (hx, hy, size[2] / 2.0))


def stacked_spots(layout: FurnitureLayout, size: Vec3, round_: bool, lowers: list[tuple[tuple[Vec3, Vec3], float]],
                  cfg: SimConfig) -> Iterator[Spot]:
    """Spots on top of objects already resting at this furniture (given by AABB and yaw): the
    centre over the other's top (its middle first), the whole footprint over the support level
    (so that the object drops onto the level if the one below is taken away)."""
    robot, pl = cfg.robot, cfg.placement
    arm_half = max(robot.arm.thickness, robot.gripper.size[2]) / 2.0
    for (lo, hi), _ in lowers:
        level = _level_at(layout, lo[2])
        if level is None:
            continue
        lvl = layout.levels[level]
        if hi[2] + pl.lift_off + size[2] + pl.margin > lvl.ceiling or \
                grasp_height(hi[2], size[2], cfg) + pl.lift_off + arm_half + pl.margin > lvl.ceiling:
            continue
        xs = _offsets(lo[0], hi[0], pl.scan_step)
        ys = _offsets(lo[1], hi[1], pl.scan_step)
        centres = sorted(((x, y) for x in xs for y in ys),
                         key=lambda c: abs(c[0] - (lo[0] + hi[0]) / 2.0) + abs(c[1] - (lo[1] + hi[1]) / 2.0))
        for cx, cy in centres:
            for rel in ((0.0,) if round_ else (0.0, math.pi / 2.0)):
                half = (size[0] / 2.0, size[1] / 2.0) if rel == 0.0 else (size[1] / 2.0, size[0] / 2.0)
                spot = _spot_at(layout, level, (cx, cy, hi[2] + size[2] / 2.0), layout.frame.yaw + rel, size, round_)
                if _over_level(layout, lvl, spot, half, pl.margin, 0.0 if layout.is_container else pl.overhang) \
                        and reachable(layout, spot, size[2], cfg):
                    yield spot


def _offsets(lo: float, hi: float, step: float) -> list[float]:
    """Points from lo to hi (inset by a quarter of the span, so the centre stays well supported)."""
    inset = (hi - lo) / 4.0
    a, b = lo + inset, hi - inset
    return list(np.arange(a, b + 1e-9, step)) if b > a else [(lo + hi) / 2.0]


def _level_at(layout: FurnitureLayout, z: float) -> int | None:
    for i, level in enumerate(layout.levels):
        if level.floor - 1e-3 <= z < level.ceiling:
            return i
    return None


def _over_level(layout: FurnitureLayout, level: Level, spot: Spot, half: tuple[float, float], margin: float,
                overhang: float) -> bool:
    """The footprint (local half extents ``half``) lies over the level with a margin, but for the
    fraction ``overhang`` of its half extents that may stick out."""
    lx, ly = layout.frame.to_local(spot.center[0], spot.center[1])
    hx, hy = half[0] * (1.0 - overhang), half[1] * (1.0 - overhang)
    return (level.x[0] + margin <= lx - hx and lx + hx <= level.x[1] - margin
            and level.y[0] + margin <= ly - hy and ly + hy <= level.y[1] - margin)


def reachable(layout: FurnitureLayout, spot: Spot, height: float, cfg: SimConfig) -> bool:
    """The arm, from the approach pose, can put its gripper at the spot's grasp point."""
    robot, pl = cfg.robot, cfg.placement
    mx, my = layout.approach.to_world(robot.mast.offset, 0.0)
    r = math.hypot(spot.center[0] - mx, spot.center[1] - my)
    z = grasp_height(spot.center[2] - height / 2.0, height, cfg) + pl.lift_off
    margin = robot.ik.tolerance
    return (robot.arm.retracted_length + margin <= r <= robot.arm.max_length - margin
            and robot.lift.min <= z <= robot.lift.max)


def aabbs_overlap(a: tuple[Vec3, Vec3], b: tuple[Vec3, Vec3], gap: float = 0.0, z_tolerance: float = 1e-3) -> bool:
    """Boxes closer than ``gap`` side by side; in height they must really intersect (an object
    whose top is at the other's bottom, within ``z_tolerance``, supports it rather than blocks it)."""
    return (all(a[0][k] - gap < b[1][k] and b[0][k] - gap < a[1][k] for k in range(2))
            and a[0][2] + z_tolerance < b[1][2] and b[0][2] + z_tolerance < a[1][2])
