"""Base motion planning on an occupancy grid (pure numpy, no PyBullet).

The grid marks a cell free when a circle of the robot's footprint radius about its centre clears
every wall and furniture footprint. Geodesic distances to a goal are computed by alternating
directional sweeps (each a vectorised running minimum that restarts at obstacles), which
converges in a handful of passes on apartment maps; a path descends that field and is then
shortened by line-of-sight checks. The simulator checks every pose along the result against the
real PyBullet geometry before it moves the robot.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from llm_planner.domains.household.sim.layout import Rect

Point = tuple[float, float]

_BIG = 1.0e7


@dataclass
class OccupancyGrid:
    """Cells of ``resolution`` metres covering ``bounds`` = (xmin, ymin, xmax, ymax)."""

    bounds: tuple[float, float, float, float]
    resolution: float
    free: np.ndarray  # bool, shape (nx, ny)
    clearance: np.ndarray = field(repr=False)  # distance from each cell centre to the nearest obstacle

    @property
    def shape(self) -> tuple[int, int]:
        return self.free.shape

    def cell(self, p: Point) -> tuple[int, int]:
        i = int(math.floor((p[0] - self.bounds[0]) / self.resolution))
        j = int(math.floor((p[1] - self.bounds[1]) / self.resolution))
        return (min(max(i, 0), self.shape[0] - 1), min(max(j, 0), self.shape[1] - 1))

    def center(self, c: tuple[int, int]) -> Point:
        return (self.bounds[0] + (c[0] + 0.5) * self.resolution, self.bounds[1] + (c[1] + 0.5) * self.resolution)

    def is_free(self, p: Point) -> bool:
        return bool(self.free[self.cell(p)])

    def segment_free(self, a: Point, b: Point) -> bool:
        """Every cell the straight segment a-b passes through is free."""
        n = max(2, int(math.ceil(math.dist(a, b) / (self.resolution * 0.5))) + 1)
        t = np.linspace(0.0, 1.0, n)
        xs = a[0] + (b[0] - a[0]) * t
        ys = a[1] + (b[1] - a[1]) * t
        i = np.clip(((xs - self.bounds[0]) / self.resolution).astype(int), 0, self.shape[0] - 1)
        j = np.clip(((ys - self.bounds[1]) / self.resolution).astype(int), 0, self.shape[1] - 1)
        return bool(self.free[i, j].all())


def build_grid(obstacles: list[Rect], bounds: tuple[float, float, float, float], resolution: float,
               radius: float) -> OccupancyGrid:
    """Free cells are at least ``radius`` away from every obstacle rectangle."""
    xmin, ymin, xmax, ymax = bounds
    nx = max(1, int(math.ceil((xmax - xmin) / resolution)))
    ny = max(1, int(math.ceil((ymax - ymin) / resolution)))
    xs = xmin + (np.arange(nx) + 0.5) * resolution
    ys = ymin + (np.arange(ny) + 0.5) * resolution
    gx, gy = np.meshgrid(xs, ys, indexing="ij")
    clearance = np.full((nx, ny), np.inf)
    for r in obstacles:
        c, s = math.cos(r.yaw), math.sin(r.yaw)
        dx, dy = gx - r.cx, gy - r.cy
        lx, ly = c * dx + s * dy, -s * dx + c * dy
        d = np.hypot(np.maximum(np.abs(lx) - r.hx, 0.0), np.maximum(np.abs(ly) - r.hy, 0.0))
        np.minimum(clearance, d, out=clearance)
    return OccupancyGrid(bounds, resolution, clearance >= radius, clearance)


def distance_field(grid: OccupancyGrid, goal: tuple[int, int], max_passes: int = 200) -> np.ndarray:
    """Geodesic (4-connected) distance in cells from every free cell to ``goal``; inf elsewhere."""
    free = grid.free
    d = np.full(free.shape, np.inf)
    if not free[goal]:
        return d
    d[goal] = 0.0
    for _ in range(max_passes):
        before = d.copy()
        for axis in (0, 1):
            for reverse in (False, True):
                d = _sweep(d, free, axis, reverse)
        if np.array_equal(before, d):
            break
    return d


def _sweep(d: np.ndarray, free: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """d[k] = min over l <= k in the same obstacle-free run of d[l] + (k - l), along one axis."""
    a = np.moveaxis(d, axis, 0)
    f = np.moveaxis(free, axis, 0)
    if reverse:
        a, f = a[::-1], f[::-1]
    n = a.shape[0]
    k = np.arange(n, dtype=float).reshape((n,) + (1,) * (a.ndim - 1))
    run = np.cumsum(~f, axis=0)  # run id: increments at every obstacle cell
    # Later runs are shifted far below earlier ones, so the running minimum restarts in each run.
    vals = np.where(f & np.isfinite(a), a - k, _BIG / 2.0) - run * _BIG
    best = np.minimum.accumulate(vals, axis=0) + run * _BIG + k
    best = np.where(best < _BIG / 4.0, best, np.inf)
    out = np.where(f, np.minimum(a, best), np.inf)
    if reverse:
        out = out[::-1]
    return np.moveaxis(out, 0, axis)


def descend(grid: OccupancyGrid, field_: np.ndarray, start: tuple[int, int]) -> list[tuple[int, int]] | None:
    """Cells from ``start`` down the distance field to its zero; None when unreachable."""
    if not np.isfinite(field_[start]):
        return None
    path = [start]
    cur = start
    nx, ny = field_.shape
    while field_[cur] > 0.0:
        best, best_val = None, field_[cur]
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                if di == 0 and dj == 0:
                    continue
                i, j = cur[0] + di, cur[1] + dj
                if 0 <= i < nx and 0 <= j < ny and field_[i, j] < best_val - 1e-9:
                    if di and dj and not (grid.free[cur[0] + di, cur[1]] and grid.free[cur[0], cur[1] + dj]):
                        continue
                    best, best_val = (i, j), field_[i, j]
        if best is None:
            return None
        cur = best
        path.append(cur)
    return path


def shortcut(grid: OccupancyGrid, points: list[Point]) -> list[Point]:
    """Drop intermediate points while the straight line stays on free cells."""
    if len(points) <= 2:
        return list(points)
    out = [points[0]]
    i = 0
    while i < len(points) - 1:
        j = i + 1
        while j + 1 < len(points) and grid.segment_free(points[i], points[j + 1]):
            j += 1
        out.append(points[j])
        i = j
    return out


class BasePlanner:
    """Grid paths between free cells, with distance fields cached per goal cell."""

    def __init__(self, grid: OccupancyGrid) -> None:
        self.grid = grid
        self._fields: dict[tuple[int, int], np.ndarray] = {}

    def field(self, goal: Point) -> np.ndarray:
        cell = self.grid.cell(goal)
        if cell not in self._fields:
            self._fields[cell] = distance_field(self.grid, cell)
        return self._fields[cell]

    def path(self, start: Point, goal: Point) -> list[Point] | None:
        """A free polyline from the free cell of ``start`` to that of ``goal`` (both must be free)."""
        if not (self.grid.is_free(start) and self.grid.is_free(goal)):
            return None
        cells = descend(self.grid, self.field(goal), self.grid.cell(start))
        if cells is None:
            return None
        points = [start] + [self.grid.center(c) for c in cells[1:-1]] + [goal]
        return shortcut(self.grid, points)

    def reachable(self, a: Point, b: Point) -> bool:
        return self.grid.is_free(a) and self.grid.is_free(b) and bool(np.isfinite(self.field(b)[self.grid.cell(a)]))

    def free_cells_near(self, p: Point, max_distance: float) -> list[Point]:
        """Centres of free cells within ``max_distance`` of ``p``, nearest first."""
        g = self.grid
        r = int(math.ceil(max_distance / g.resolution))
        ci, cj = g.cell(p)
        i0, i1 = max(ci - r, 0), min(ci + r + 1, g.shape[0])
        j0, j1 = max(cj - r, 0), min(cj + r + 1, g.shape[1])
        ii, jj = np.nonzero(g.free[i0:i1, j0:j1])
        pts = [g.center((int(i) + i0, int(j) + j0)) for i, j in zip(ii, jj, strict=True)]
        pts = [q for q in pts if math.dist(q, p) <= max_distance]
        return sorted(pts, key=lambda q: math.dist(q, p))
