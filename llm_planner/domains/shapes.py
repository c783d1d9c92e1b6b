"""Planar shapes both worlds share: poses in the plane, oriented rectangles (footprints) and
their tests, and the :class:`Problem` mark a scene or problem check draws in red."""
from __future__ import annotations

import math
from dataclasses import dataclass

Point = tuple[float, float]


@dataclass(frozen=True)
class Frame2D:
    """A planar pose: position and yaw."""

    x: float
    y: float
    yaw: float

    def to_world(self, lx: float, ly: float) -> tuple[float, float]:
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (self.x + c * lx - s * ly, self.y + s * lx + c * ly)

    def to_local(self, wx: float, wy: float) -> tuple[float, float]:
        dx, dy = wx - self.x, wy - self.y
        c, s = math.cos(self.yaw), math.sin(self.yaw)
        return (c * dx + s * dy, -s * dx + c * dy)


@dataclass(frozen=True)
class Rect:
    """An oriented rectangle in the plane (a footprint): centre, yaw, half extents."""

    cx: float
    cy: float
    yaw: float
    hx: float
    hy: float


def wrap_angle(a: float) -> float:
    return math.atan2(math.sin(a), math.cos(a))


def rects_overlap(a: Rect, b: Rect, clearance: float = 0.0) -> bool:
    """Separating-axis test of two oriented rectangles, ``a`` grown by ``clearance``."""
    ax, bx = _axes(a), _axes(b)
    d = (b.cx - a.cx, b.cy - a.cy)
    for axis in ax + bx:
        ra = (a.hx + clearance) * abs(_dot(ax[0], axis)) + (a.hy + clearance) * abs(_dot(ax[1], axis))
        rb = b.hx * abs(_dot(bx[0], axis)) + b.hy * abs(_dot(bx[1], axis))
        if abs(_dot(d, axis)) > ra + rb:
            return False
    return True


def point_rect_distance(px: float, py: float, rect: Rect) -> float:
    """Distance from a point to an oriented rectangle (0 inside)."""
    lx, ly = Frame2D(rect.cx, rect.cy, rect.yaw).to_local(px, py)
    return math.hypot(max(abs(lx) - rect.hx, 0.0), max(abs(ly) - rect.hy, 0.0))


def _axes(r: Rect) -> tuple[tuple[float, float], tuple[float, float]]:
    c, s = math.cos(r.yaw), math.sin(r.yaw)
    return ((c, s), (-s, c))


def _dot(a: tuple[float, float], b: tuple[float, float]) -> float:
    return a[0] * b[0] + a[1] * b[1]


def corners(r: Rect) -> list[tuple[float, float]]:
    """The four corners of an oriented rectangle."""
    f = Frame2D(r.cx, r.cy, r.yaw)
    return [f.to_world(sx * r.hx, sy * r.hy) for sx in (-1, 1) for sy in (-1, 1)]


@dataclass(frozen=True)
class Problem:
    """A problem drawn in red: shapes (footprints or points) and a short text at the first of them."""

    text: str
    rects: tuple[Rect, ...] = ()
    points: tuple[Point, ...] = ()
