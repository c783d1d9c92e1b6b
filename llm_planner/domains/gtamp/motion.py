"""Motion planning for the mobile manipulator (seed 003 §4.1): a probabilistic roadmap (PRM) for
the holonomic base, linearly interpolated arm motions to IK solutions, and swept-volume
collision queries against real PyBullet geometry.

The roadmap is built once per layout against the *static* geometry only (walls, regions); doors
and movable objects are checked lazily on the queried path, which is exactly what the occlusion
predicates need ("the path planned without movable objects", seed §3.2) and what the operators
need (a lazy-PRM query that drops colliding edges and searches again).
"""
from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import pairwise

from llm_planner.domains.gtamp.domain import Grasp, LayoutSpec, Pose2D
from llm_planner.domains.gtamp.geometry import interpolate, wrap
from llm_planner.domains.gtamp.world import GTampWorld

BASE_STEP = 0.1      # metres between checked base configurations
ARM_STEP = 0.08      # radians between checked arm configurations


@dataclass
class Roadmap:
    """A PRM over base positions (x, y); edges are collision-free against the static geometry."""

    nodes: list[tuple[float, float]] = field(default_factory=list)
    edges: dict[int, dict[int, float]] = field(default_factory=dict)

    def nearest(self, x: float, y: float) -> int:
        return min(range(len(self.nodes)), key=lambda i: (self.nodes[i][0] - x) ** 2 + (self.nodes[i][1] - y) ** 2)

    def index(self, x: float, y: float, tol: float = 1e-6) -> int | None:
        i = self.nearest(x, y)
        return i if math.dist(self.nodes[i], (x, y)) <= tol else None

    def shortest(self, start: int, goal: int, banned: AbstractSet[tuple[int, int]] = frozenset()) -> list[int] | None:
        """A* over the roadmap without the ``banned`` edges; None when start and goal are disconnected."""
        gx, gy = self.nodes[goal]
        frontier = [(0.0, 0.0, start, -1)]
        parent: dict[int, int] = {}
        best = {start: 0.0}
        while frontier:
            _, cost, node, par = heapq.heappop(frontier)
            if node in parent:
                continue
            parent[node] = par
            if node == goal:
                path = [node]
                while parent[path[-1]] != -1:
                    path.append(parent[path[-1]])
                return path[::-1]
            for nxt, length in self.edges.get(node, {}).items():
                if (node, nxt) in banned or nxt in parent:
                    continue
                c = cost + length
                if c < best.get(nxt, math.inf):
                    best[nxt] = c
                    h = math.dist(self.nodes[nxt], (gx, gy))
                    heapq.heappush(frontier, (c + h, c, nxt, node))
        return None


_ROADMAPS: dict[tuple, Roadmap] = {}


def _static_free(world: GTampWorld, x: float, y: float) -> bool:
    world.set_base(Pose2D(x, y, 0.0))
    return not world.hits(world.robot, world.static_bodies)


def _edge_free(world: GTampWorld, a: tuple[float, float], b: tuple[float, float]) -> bool:
    return all(_static_free(world, x, y) for x, y in interpolate(a, b, BASE_STEP)[1:-1])


def build_roadmap(world: GTampWorld, extra: Iterable[tuple[float, float]] = (), samples: int = 110,
                  radius: float = 1.6, k: int = 10, seed: int = 0) -> Roadmap:
    """The PRM of a layout: fixed nodes (region and door base poses, waypoints, ``extra``) plus
    ``samples`` random collision-free positions, each joined to up to ``k`` neighbours within
    ``radius`` by straight collision-free edges. Cached per layout, extra nodes and seed."""
    layout = world.layout
    fixed = _fixed_nodes(layout) + [(x, y) for x, y in extra]
    key = (layout, tuple(sorted(set(fixed))), samples, radius, k, seed)
    if key in _ROADMAPS:
        return _ROADMAPS[key]
    world.invalidate()
    world.set_arm(layout.robot.home)
    rng = random.Random(seed)
    nodes: list[tuple[float, float]] = list(dict.fromkeys(fixed))
    margin = layout.robot.base_radius
    tries = 0
    while len(nodes) < len(fixed) + samples and tries < samples * 20:
        tries += 1
        room = rng.choice(layout.rooms)
        x = rng.uniform(room.xmin + margin, room.xmax - margin)
        y = rng.uniform(room.ymin + margin, room.ymax - margin)
        if _static_free(world, x, y):
            nodes.append((x, y))
    roadmap = Roadmap(nodes, {i: {} for i in range(len(nodes))})
    for i, a in enumerate(nodes):
        near = sorted((math.dist(a, b), j) for j, b in enumerate(nodes) if j != i and math.dist(a, b) <= radius)
        for d, j in near[:k]:
            if j in roadmap.edges[i]:
                continue
            if _edge_free(world, a, nodes[j]):
                roadmap.edges[i][j] = d
                roadmap.edges[j][i] = d
    world.invalidate()
    _ROADMAPS[key] = roadmap
    return roadmap


def _fixed_nodes(layout: LayoutSpec) -> list[tuple[float, float]]:
    out = [(r.base_pose.x, r.base_pose.y) for r in layout.regions]
    out += [(s.base_pose.x, s.base_pose.y) for d in layout.doors for s in d.sides]
    out += layout.waypoints
    return out


def poses_along(points: Sequence[tuple[float, float]], start: Pose2D, goal: Pose2D) -> tuple[Pose2D, ...]:
    """Base configurations every BASE_STEP along the polyline, heading interpolated start to goal."""
    pts: list[tuple[float, ...]] = [(start.x, start.y)]
    for a, b in pairwise(points):
        pts += interpolate(a, b, BASE_STEP)[1:]
    lengths = [0.0]
    for p0, p1 in pairwise(pts):
        lengths.append(lengths[-1] + math.dist(p0, p1))
    total = lengths[-1] or 1.0
    dtheta = wrap(goal.theta - start.theta)
    out = [Pose2D(x, y, start.theta + dtheta * s / total) for (x, y), s in zip(pts, lengths, strict=True)]
    out[-1] = goal
    return tuple(out)


@dataclass(frozen=True)
class Carried:
    """The object the robot carries along a motion (index and grasp), if any."""

    index: int
    grasp: Grasp


def sweep_hits(world: GTampWorld, base_path: Sequence[Pose2D], arm_path: Sequence[Sequence[float]],
               candidates: Sequence[int], carried: Carried | None = None, first_only: bool = False,
               ignore_for_robot: Iterable[int] = ()) -> set[int]:
    """Bodies among ``candidates`` that the swept volume of the motion touches.

    The motion is the base path with the arm at home, then the arm path at the last base pose;
    the robot's links and the carried object are checked at every configuration (the swept
    volume is sampled every BASE_STEP metres / ARM_STEP radians). ``ignore_for_robot``: bodies
    only the carried object is checked against (e.g. the object being grasped).

    The caller puts the other bodies in place first (``world.set_state``); the robot and the
    carried object are moved here and the world is marked unsynced afterwards."""
    home = world.layout.robot.home
    hits: set[int] = set()
    robot_cands = [c for c in candidates if c not in set(ignore_for_robot)]
    held_body = world.objects[carried.index] if carried else None
    held_cands = [c for c in candidates if c != held_body]
    configs: list[tuple[Pose2D | None, Sequence[float]]] = [(b, home) for b in base_path]
    if arm_path:
        last = base_path[-1] if base_path else None
        configs += [(last, q) for q in arm_path]
    current_base = None
    for base, q in configs:
        if base is not None and base != current_base:
            world.set_base(base)
            current_base = base
        world.set_arm(q)
        remaining = [c for c in robot_cands if c not in hits]
        hits.update(world.hits(world.robot, remaining))
        if carried is not None and held_body is not None:
            world.attach(carried.index, carried.grasp)
            hits.update(world.hits(held_body, [c for c in held_cands if c not in hits]))
        if first_only and hits:
            break
    world.invalidate()
    return hits


def arm_motion(q_from: Sequence[float], q_to: Sequence[float]) -> tuple[tuple[float, ...], ...]:
    """tau_g: the arm trajectory linearly interpolated in joint space (seed §4.1)."""
    return tuple(interpolate(q_from, q_to, ARM_STEP))


class BasePlanner:
    """Base trajectories tau_nav on a roadmap, with path caches (seed Appendix A).

    ``static_path`` is the path planned without movable objects and doors (for the occlusion
    predicates); ``free_path`` is a lazy-PRM query that also avoids the given obstacle bodies."""

    def __init__(self, world: GTampWorld, roadmap: Roadmap) -> None:
        self.world = world
        self.roadmap = roadmap
        self._static: dict[tuple[Pose2D, Pose2D], tuple[Pose2D, ...] | None] = {}
        self.queries = 0

    def _node(self, pose: Pose2D) -> int:
        i = self.roadmap.index(pose.x, pose.y, tol=0.02)
        if i is None:
            i = self._add_node(pose)
        return i

    def _add_node(self, pose: Pose2D) -> int:
        rm = self.roadmap
        world = self.world
        world.invalidate()
        world.set_arm(world.layout.robot.home)
        i = len(rm.nodes)
        rm.nodes.append((pose.x, pose.y))
        rm.edges[i] = {}
        near = sorted((math.dist(rm.nodes[i], b), j) for j, b in enumerate(rm.nodes[:-1]))
        for d, j in near[:12]:
            if d <= 2.0 and _edge_free(world, rm.nodes[i], rm.nodes[j]):
                rm.edges[i][j] = d
                rm.edges[j][i] = d
        world.invalidate()
        return i

    def static_path(self, start: Pose2D, goal: Pose2D) -> tuple[Pose2D, ...] | None:
        key = (start, goal)
        if key not in self._static:
            self.queries += 1
            nodes = self.roadmap.shortest(self._node(start), self._node(goal))
            self._static[key] = None if nodes is None else self._poses(nodes, start, goal)
        return self._static[key]

    def free_path(self, start: Pose2D, goal: Pose2D, obstacles: Sequence[int], carried: Carried | None,
                  max_repairs: int = 8) -> tuple[Pose2D, ...] | None:
        """A base path from ``start`` to ``goal`` whose swept volume (robot and carried object)
        touches none of ``obstacles``: shortest roadmap path, dropping colliding edges and
        searching again (lazy PRM), at most ``max_repairs`` times."""
        self.queries += 1
        if math.dist((start.x, start.y), (goal.x, goal.y)) < 1e-6:
            return (start, goal)
        s, g = self._node(start), self._node(goal)
        banned: set[tuple[int, int]] = set()
        for _ in range(max_repairs + 1):
            nodes = self.roadmap.shortest(s, g, banned)
            if nodes is None:
                return None
            bad = self._first_bad_edge(nodes, start, goal, obstacles, carried)
            if bad is None:
                return self._poses(nodes, start, goal)
            banned.update({bad, bad[::-1]})
        return None

    def _first_bad_edge(self, nodes: list[int], start: Pose2D, goal: Pose2D, obstacles: Sequence[int],
                        carried: Carried | None) -> tuple[int, int] | None:
        poses = self._poses(nodes, start, goal)
        pts = [self.roadmap.nodes[n] for n in nodes]
        for (a, b), (na, nb) in zip(pairwise(pts), pairwise(nodes), strict=True):
            seg = [q for q in poses if _on_segment((q.x, q.y), a, b)]
            if seg and sweep_hits(self.world, seg, (), obstacles, carried, first_only=True):
                return (na, nb)
        return None

    def _poses(self, nodes: list[int], start: Pose2D, goal: Pose2D) -> tuple[Pose2D, ...]:
        pts = [(start.x, start.y)] + [self.roadmap.nodes[n] for n in nodes[1:-1]] + [(goal.x, goal.y)]
        return poses_along(pts, start, goal)


def _on_segment(q: tuple[float, float], a: tuple[float, float], b: tuple[float, float], tol: float = 1e-6) -> bool:
    return abs(math.dist(a, q) + math.dist(q, b) - math.dist(a, b)) < tol
