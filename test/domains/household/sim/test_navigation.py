"""Grid planning: geodesic distances, paths that keep clear of obstacles."""
from __future__ import annotations

import math
from collections import deque

import numpy as np

from llm_planner.domains.household.sim.layout import Rect
from llm_planner.domains.household.sim.navigation import BasePlanner, OccupancyGrid, build_grid, distance_field


def bfs(free: np.ndarray, goal: tuple[int, int]) -> np.ndarray:
    d = np.full(free.shape, np.inf)
    d[goal] = 0
    queue = deque([goal])
    while queue:
        i, j = queue.popleft()
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            a, b = i + di, j + dj
            if 0 <= a < free.shape[0] and 0 <= b < free.shape[1] and free[a, b] and d[a, b] == np.inf:
                d[a, b] = d[i, j] + 1
                queue.append((a, b))
    return d


def test_sweeps_give_the_breadth_first_distances():
    rng = np.random.default_rng(0)
    for _ in range(5):
        free = rng.random((40, 30)) > 0.3
        free[5, 5] = True
        grid = OccupancyGrid((0, 0, 40, 30), 1.0, free, np.zeros_like(free, dtype=float))
        assert np.array_equal(distance_field(grid, (5, 5)), bfs(free, (5, 5)))


def test_path_goes_around_a_wall_and_keeps_its_clearance():
    wall = Rect(5.0, 4.0, 0.0, 0.1, 4.0)  # from y=0 to y=8, open above
    grid = build_grid([wall], (0, 0, 10, 10), 0.1, 0.4)
    path = BasePlanner(grid).path((2.0, 2.0), (8.0, 2.0))
    assert path is not None and path[0] == (2.0, 2.0) and path[-1] == (8.0, 2.0)
    assert max(y for _, y in path) > 8.0  # it went round the end of the wall
    for a, b in zip(path, path[1:]):
        assert grid.segment_free(a, b)
        for t in np.linspace(0, 1, 20):
            x, y = a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t
            assert max(abs(x - 5.0) - 0.1, abs(y - 4.0) - 4.0) > 0.3  # well clear of the wall


def test_unreachable_goal_gives_no_path():
    walls = [Rect(5.0, 5.0, 0.0, 0.1, 6.0)]  # splits the map in two
    planner = BasePlanner(build_grid(walls, (0, 0, 10, 10), 0.1, 0.3))
    assert planner.path((2.0, 5.0), (8.0, 5.0)) is None
    assert not planner.reachable((2.0, 5.0), (8.0, 5.0))


def test_free_cells_near_are_sorted_and_free():
    grid = build_grid([Rect(5, 5, 0.3, 1.0, 1.0)], (0, 0, 10, 10), 0.1, 0.3)
    cells = BasePlanner(grid).free_cells_near((5.0, 5.0), 2.0)
    dists = [math.dist(c, (5.0, 5.0)) for c in cells]
    assert cells and dists == sorted(dists) and all(grid.is_free(c) for c in cells)
    assert dists[0] > 1.0  # the middle is occupied
