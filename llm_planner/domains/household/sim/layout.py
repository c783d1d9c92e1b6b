"""The static geometry of an apartment, derived from a scene file and the simulator configuration.

It is one piece because :func:`scene_layout` derives the whole map in one cached pass: each
approach pose is chosen against the furniture boxes, the walls with their doorways cut out and the
poses chosen before it, so the geometry, the walls and the approach selection below are the inputs
of one result that the builder, the base planner and perception must read alike.

No PyBullet here: the world builder (:mod:`llm_planner.domains.household.sim.builder`) turns this layout into
bodies, the base planner uses it as its map, and perception uses it as the robot's map (where a
container's cavity is, where the robot stands to work at a furniture).

Furniture frame: origin on the floor below the furniture centre, yawed by ``Furniture.yaw``;
local +x is the *front* (a container's open side), ``size = [depth (x), width (y), height (z)]``.
A container is a hollow box on a plinth, with shelves and a door panel over its front that slides
straight up on a joint; a surface is a solid box whose top holds objects. The robot works at a
container from its front, at a surface from the first free side.
"""
from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner.domains.geometry import vec3
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.world.scene import CONTAINER, Furniture, Scene
from llm_planner.domains.shapes import Frame2D, Rect, corners, point_rect_distance, rects_overlap, wrap_angle
from llm_planner.errors import SceneError

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Box:
    """An axis-aligned box (in whatever frame its owner says)."""

    lo: Vec3
    hi: Vec3

    def contains(self, p: Vec3, tol: float = 0.0) -> bool:
        return all(lo - tol <= v <= hi + tol for lo, v, hi in zip(self.lo, p, self.hi, strict=True))

    @property
    def center(self) -> Vec3:
        return vec3((a + b) / 2.0 for a, b in zip(self.lo, self.hi, strict=True))

    @property
    def half(self) -> Vec3:
        return vec3((b - a) / 2.0 for a, b in zip(self.lo, self.hi, strict=True))


@dataclass(frozen=True)
class Level:
    """A horizontal support in furniture-local coordinates: the top of a surface, or the floor of
    one shelf level of a container. Objects rest at ``floor`` within the x/y ranges and must stay
    below ``ceiling`` (``math.inf`` on a surface top)."""

    floor: float
    ceiling: float
    x: tuple[float, float]
    y: tuple[float, float]


@dataclass(frozen=True)
class Door:
    """A container's door: a panel over the front opening on a prismatic joint that slides it
    straight up by the container's height, so an open door never stands in anyone's way.
    Closed, it seals the opening."""

    joint: str  # "<container>/door"
    box: Box  # local, closed
    travel: float  # joint position when fully open (metres)
    open_threshold: float  # joint position beyond which the container counts as OPEN


@dataclass(frozen=True)
class FurnitureLayout:
    name: str
    kind: str
    room: str
    frame: Frame2D
    size: Vec3
    levels: tuple[Level, ...]
    cavity: Box | None  # container interior, local
    shelves: tuple[Box, ...]  # local
    door: Door | None
    standoff: float  # from the face the robot works at to its base centre
    approach: Frame2D  # where the robot stands to work here, facing the furniture

    @property
    def is_container(self) -> bool:
        return self.kind == CONTAINER

    @property
    def top(self) -> float:
        return self.size[2]

    @property
    def footprint(self) -> Rect:
        return Rect(self.frame.x, self.frame.y, self.frame.yaw, self.size[0] / 2.0, self.size[1] / 2.0)


@dataclass(frozen=True)
class Wall:
    name: str
    rect: Rect  # axis aligned (yaw 0)


def object_half_diagonal(scene: Scene) -> float:
    """Largest horizontal half diagonal of any object type (what a carried object sweeps)."""
    return max(math.hypot(t.size[0], t.size[1]) / 2.0 for t in scene.object_types.values())


# ------------------------------------------------------------------------------- furniture
def container_levels(size: Vec3, cfg: SimConfig) -> tuple[tuple[Level, ...], Box, tuple[Box, ...]]:
    """Shelf levels, interior box and shelf slabs of a container of this size (local frame)."""
    d, w, h = size
    wt, st, door = cfg.world.container_wall, cfg.world.shelf_thickness, cfg.world.door_thickness
    x = (-d / 2.0 + wt, d / 2.0 - door)
    y = (-w / 2.0 + wt, w / 2.0 - wt)
    z_lo, z_hi = cfg.world.container_plinth + wt, h - wt
    if x[1] <= x[0] or y[1] <= y[0] or z_hi <= z_lo:
        raise SceneError(f"size {list(size)} leaves no interior with {wt} m walls")
    n = max(1, round((z_hi - z_lo) / cfg.world.shelf_pitch))
    pitch = (z_hi - z_lo) / n
    levels = tuple(
        Level(z_lo + i * pitch + (st / 2.0 if i > 0 else 0.0),
              z_lo + (i + 1) * pitch - (st / 2.0 if i < n - 1 else 0.0), x, y)
        for i in range(n))
    shelves = tuple(Box((x[0], y[0], z_lo + i * pitch - st / 2.0), (x[1], y[1], z_lo + i * pitch + st / 2.0))
                    for i in range(1, n))
    return levels, Box((x[0], y[0], z_lo), (x[1], y[1], z_hi)), shelves


def container_door(name: str, size: Vec3, cfg: SimConfig) -> Door:
    d, w, h = size
    t = cfg.world.door_thickness
    return Door(f"{name}/door", Box((d / 2.0 - t, -w / 2.0, 0.0), (d / 2.0, w / 2.0, h)), h,
                h * cfg.world.door_open_fraction)


def wrist_clearance(cfg: SimConfig, size: Sequence[float]) -> float:
    """How far the arm must extend before a carried object of this size may turn on the wrist
    without touching the mast."""
    r = cfg.robot
    return max(0.0, math.hypot(size[0], size[1]) / 2.0 + math.hypot(*r.mast.size[:2]) / 2.0
               + cfg.placement.margin - r.arm.retracted_length)


def sweep_radius(cfg: SimConfig, scene: Scene) -> float:
    """Reach from the mast of the gripper or a carried object while the arm turns it (retracted,
    or extended just enough for the wrist to turn it)."""
    arm = cfg.robot.arm
    gripper = math.hypot(cfg.robot.gripper.size[0], cfg.robot.gripper.size[1]) / 2.0
    load = max([gripper] + [arm.retracted_length + wrist_clearance(cfg, t.size) + math.hypot(*t.size[:2]) / 2.0
                            for t in scene.object_types.values()])
    return max(load, arm.retracted_length + gripper, arm.stage_length - arm.retracted_length) + cfg.placement.margin


def carry_extent(scene: Scene, cfg: SimConfig) -> float:
    """Farthest point from the mast of any object carried at the travel pose (its shorter side
    towards the mast, at the retracted gripper)."""
    r0 = cfg.robot.arm.retracted_length
    out = 0.0
    for t in scene.object_types.values():
        a, b = sorted((t.size[0] / 2.0, t.size[1] / 2.0))
        out = max(out, math.hypot(r0 + a, b))
    return out


def footprint_radius(cfg: SimConfig, scene: Scene) -> float:
    """Radius of a circle about the base centre holding the whole robot while it drives."""
    r = cfg.robot
    mast = abs(r.mast.offset) + math.hypot(r.mast.size[0], r.mast.size[1]) / 2.0
    gripper = math.hypot(r.arm.retracted_length + r.gripper.size[0] / 2.0, r.gripper.size[1] / 2.0)
    return max(r.base.half_diagonal, mast, abs(r.mast.offset) + max(gripper, carry_extent(scene, cfg)))


def drive_radius(cfg: SimConfig, scene: Scene) -> float:
    """Clearance the base planner keeps between the robot's centre and any wall or furniture: the
    footprint radius (carrying the scene's largest object) plus the configured margin."""
    return footprint_radius(cfg, scene) + cfg.motion.footprint_margin


def apartment_bounds(scene: Scene, margin: float = 1.0) -> tuple[float, float, float, float]:
    """The rooms' bounding box grown by ``margin`` (the extent of the base planner's grid)."""
    rects = [r.rect for r in scene.rooms.values()]
    return (min(r[0] for r in rects) - margin, min(r[1] for r in rects) - margin,
            max(r[2] for r in rects) + margin, max(r[3] for r in rects) + margin)


def standoff(kind: str, size: Vec3, cfg: SimConfig, sweep: float) -> float:
    """Distance from the face the robot works at to its base centre.

    The robot must clear that face; at a container (or at a surface lower than the base top) it
    turns its retracted arm, possibly with a carried object, in front of the furniture, so that
    sweep must clear the face too. At a surface the arm turns above the top.
    """
    r = cfg.robot
    c = cfg.approach_clearance
    s = max(r.base.size[0] / 2.0, r.mast.offset + r.mast.size[0] / 2.0) + c
    if kind == CONTAINER or size[2] < r.base.top + cfg.motion.base_top_margin:
        s = max(s, r.mast.offset + sweep + c)
    return s


def furniture_layout(f: Furniture, frame: Frame2D, cfg: SimConfig, sweep: float) -> FurnitureLayout:
    """The layout of one furniture at a given pose, working from the middle of its front."""
    size = f.size
    door: Door | None = None
    if f.kind == CONTAINER:
        levels, cavity, shelves = container_levels(size, cfg)
        door = container_door(f.name, size, cfg)
    else:
        levels = (Level(size[2], math.inf, (-size[0] / 2.0, size[0] / 2.0), (-size[1] / 2.0, size[1] / 2.0)),)
        cavity, shelves = None, ()
    s = standoff(f.kind, size, cfg, sweep)
    front = approach_candidates(frame, size, s, f.kind, cfg)[0]
    return FurnitureLayout(f.name, f.kind, f.room, frame, size, levels, cavity, shelves, door, s, front)


def approach_candidates(frame: Frame2D, size: Vec3, standoff_: float, kind: str, cfg: SimConfig) -> list[Frame2D]:
    """Robot poses facing the furniture, in order of preference: the middle of the front, then
    (surfaces only) along the front, the back and the two ends, sliding sideways in steps."""
    d2, w2 = size[0] / 2.0, size[1] / 2.0
    sides = [((1.0, 0.0), d2, w2)]
    if kind != CONTAINER:
        sides += [((-1.0, 0.0), d2, w2), ((0.0, 1.0), w2, d2), ((0.0, -1.0), w2, d2)]
    step = cfg.approach_offset_step
    out = []
    for (nx, ny), face, half_len in sides:
        offsets = [0.0]
        if kind != CONTAINER:
            k = 1
            while k * step <= half_len + 1e-9:
                offsets += [k * step, -k * step]
                k += 1
        for off in offsets:
            lx, ly = nx * (face + standoff_) - ny * off, ny * (face + standoff_) + nx * off
            x, y = frame.to_world(lx, ly)
            out.append(Frame2D(x, y, wrap_angle(frame.yaw + math.atan2(ny, nx) + math.pi)))
    return out


def scene_layout(scene: Scene, cfg: SimConfig,
                 frames: Mapping[str, Frame2D] | None = None) -> dict[str, FurnitureLayout]:
    """Layout of every furniture (at its declared pose, or at ``frames`` as measured), with each
    approach pose chosen clear of walls, other furniture and other approach poses.

    Raises SceneError naming the furniture, and what stands where the robot would, when no
    approach pose is free. Cached per poses."""
    key = (_fingerprint(scene), _fingerprint(cfg),
           tuple(sorted((n, round(f.x, 3), round(f.y, 3), round(f.yaw, 3)) for n, f in (frames or {}).items())))
    cached = _LAYOUT_CACHE.get(key)
    if cached is not None:
        return dict(cached)
    layouts = furniture_layouts(scene, cfg, frames)
    layouts, failures = choose_approaches(scene, layouts, wall_layout(scene, cfg), cfg)
    if failures:
        raise SceneError("\n".join(f.message for f in failures.values()),
                         problems=tuple(f.message for f in failures.values()))
    if len(_LAYOUT_CACHE) > 64:
        _LAYOUT_CACHE.clear()
    _LAYOUT_CACHE[key] = layouts
    return dict(layouts)


def furniture_layouts(scene: Scene, cfg: SimConfig,
                      frames: Mapping[str, Frame2D] | None = None) -> dict[str, FurnitureLayout]:
    """Each furniture's layout working from the middle of its front (approach poses not yet chosen)."""
    sweep = sweep_radius(cfg, scene)
    layouts: dict[str, FurnitureLayout] = {}
    for f in scene.furniture.values():
        frame = (frames or {}).get(f.name) or Frame2D(f.position[0], f.position[1], f.yaw)
        try:
            layouts[f.name] = furniture_layout(f, frame, cfg, sweep)
        except SceneError as exc:
            raise SceneError(f"furniture.{f.name}.size: {exc}") from None
    return layouts


_LAYOUT_CACHE: dict[tuple, dict[str, FurnitureLayout]] = {}
#: id -> (the object, a digest of its repr): kept with the object, so its id is not reused while cached
_FINGERPRINTS: dict[int, tuple[Any, str]] = {}


def _fingerprint(value: Any) -> str:
    """A digest of everything a layout depends on in ``value`` (a Scene or a SimConfig: frozen
    dataclasses whose repr holds every field that matters), computed once per object. Two scenes of
    one name and file that differ (a test's edited copy, a scene built in memory) never share a layout."""
    hit = _FINGERPRINTS.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    digest = hashlib.sha1(repr(value).encode()).hexdigest()
    if len(_FINGERPRINTS) > 64:
        _FINGERPRINTS.clear()
    _FINGERPRINTS[id(value)] = (value, digest)
    return digest


# ---------------------------------------------------------------------- approach selection
@dataclass(frozen=True)
class Obstacle:
    """A named footprint the robot must keep clear of: a furniture or a wall piece."""

    name: str  # "furniture.sofa" or "the wall at x = 6.00 (y 0.00 to 1.90)"
    rect: Rect
    height: float

    def describe(self) -> str:
        """The name with where it stands, for messages."""
        if self.name.startswith("furniture."):
            return f"{self.name} at [{self.rect.cx:.2f}, {self.rect.cy:.2f}]"
        return self.name


@dataclass(frozen=True)
class ApproachFailure:
    """No free place to work at a furniture: the preferred pose, why it is not free, what blocks it."""

    furniture: str
    pose: Frame2D
    reason: str
    blocker: Obstacle | None
    needed: float  # metres to keep free in front of the furniture

    @property
    def message(self) -> str:
        return (f"furniture.{self.furniture}: no free place for the robot to stand and work at it (in front of it, "
                f"at [{self.pose.x:.2f}, {self.pose.y:.2f}]: {self.reason}); keep about {self.needed:.2f} m "
                f"free in front of it")


def obstacles_of(layouts: Mapping[str, FurnitureLayout], walls: Sequence[Wall], cfg: SimConfig) -> list[Obstacle]:
    """Every furniture footprint and wall piece as a named obstacle."""
    out = [Obstacle(f"furniture.{n}", lay.footprint, lay.top) for n, lay in layouts.items()]
    return out + [Obstacle(describe_wall(w), w.rect, cfg.world.wall_height) for w in walls]


def describe_wall(wall: Wall) -> str:
    r = wall.rect
    if r.hx >= r.hy:  # runs along x
        return f"the wall at y = {r.cy:.2f} (x {r.cx - r.hx:.2f} to {r.cx + r.hx:.2f})"
    return f"the wall at x = {r.cx:.2f} (y {r.cy - r.hy:.2f} to {r.cy + r.hy:.2f})"


def choose_approaches(scene: Scene, layouts: Mapping[str, FurnitureLayout], walls: Sequence[Wall],
                      cfg: SimConfig) -> tuple[dict[str, FurnitureLayout], dict[str, ApproachFailure]]:
    """Pick each furniture's approach pose: the one its scene entry gives (``approach``), else the
    first candidate clear of the room's walls, other furniture and the approach poses already
    chosen. A furniture without one keeps its preferred pose and gets an :class:`ApproachFailure`
    naming what blocks that pose."""
    carried = object_half_diagonal(scene)
    gripper = math.hypot(cfg.robot.gripper.size[0], cfg.robot.gripper.size[1]) / 2.0
    sweep = max(gripper, carried) + cfg.placement.margin  # radius of the load about the gripper
    obstacles = obstacles_of(layouts, walls, cfg)
    chosen: dict[str, FurnitureLayout] = {}
    failures: dict[str, ApproachFailure] = {}
    for name, layout in layouts.items():
        given = scene.furniture[name].approach if name in scene.furniture else None
        if given is not None:  # the scene file says where the robot works at it
            chosen[name] = dataclasses.replace(layout, approach=Frame2D(*given))
            continue
        room = scene.rooms[layout.room]
        others = [o for o in obstacles if o.name != f"furniture.{name}"]
        taken = [(n, c.approach) for n, c in chosen.items()]
        first: tuple[str, Obstacle | None] | None = None
        for pose in approach_candidates(layout.frame, layout.size, layout.standoff, layout.kind, cfg):
            why = _approach_problem(pose, room.rect, layout, others, taken, sweep, cfg)
            if why is None:
                chosen[name] = dataclasses.replace(layout, approach=pose)
                break
            first = first or why
        else:
            reason, blocker = first if first else ("no candidate pose", None)
            failures[name] = ApproachFailure(name, layout.approach, reason, blocker,
                                             layout.standoff + cfg.robot.base.size[0] / 2)
            chosen[name] = layout
    return chosen, failures


def robot_rects(pose: Frame2D, cfg: SimConfig) -> list[Rect]:
    """Footprint of the robot (base and mast) at a base pose."""
    r = cfg.robot
    base = Rect(pose.x, pose.y, pose.yaw, r.base.size[0] / 2.0, r.base.size[1] / 2.0)
    mx, my = pose.to_world(r.mast.offset, 0.0)
    return [base, Rect(mx, my, pose.yaw, r.mast.size[0] / 2.0, r.mast.size[1] / 2.0)]


def _turn_blocker(pose: Frame2D, side: float, obstacles: Sequence[Obstacle], load: float,
                  cfg: SimConfig) -> Obstacle | None:
    """What the retracted gripper with a load of radius ``load`` hits first when it turns from behind
    the robot to its front on one side (``side`` +1: left, -1: right); None when the turn is free."""
    r0 = cfg.robot.arm.retracted_length
    mx, my = pose.to_world(cfg.robot.mast.offset, 0.0)
    steps = max(2, int(math.ceil(math.pi / cfg.motion.yaw_step)))
    for k in range(steps + 1):
        a = pose.yaw + side * math.pi * k / steps
        tx, ty = mx + r0 * math.cos(a), my + r0 * math.sin(a)
        for ob in obstacles:
            if point_rect_distance(tx, ty, ob.rect) < load:
                return ob
    return None


def _approach_problem(pose: Frame2D, room_rect: tuple[float, float, float, float], layout: FurnitureLayout,
                      others: Sequence[Obstacle], taken: Sequence[tuple[str, Frame2D]], sweep: float,
                      cfg: SimConfig) -> tuple[str, Obstacle | None] | None:
    """Why the robot cannot work at ``layout`` from ``pose`` and what is in the way (None: it can)."""
    clearance = cfg.approach_clearance
    inset = cfg.world.wall_thickness / 2.0 + clearance / 2.0
    xmin, ymin, xmax, ymax = room_rect
    for rect in robot_rects(pose, cfg):
        for cx, cy in corners(rect):
            if not (xmin + inset <= cx <= xmax - inset and ymin + inset <= cy <= ymax - inset):
                return f"the robot would stand outside room '{layout.room}'", None
        for ob in others:
            if rects_overlap(rect, ob.rect, clearance / 2.0):
                return f"the robot would touch {ob.describe()}", ob
        if rects_overlap(rect, layout.footprint, clearance / 2.0 - 1e-6):
            return "the robot would touch the furniture itself", None
    # Over a surface the arm turns above its top: what is lower than that top cannot be hit.
    floor = 0.0 if layout.is_container else layout.top
    tall = [ob for ob in others if ob.height > floor]
    left, right = (_turn_blocker(pose, side, tall, sweep, cfg) for side in (1.0, -1.0))
    if left is not None and right is not None:
        return f"the arm could not turn there without hitting {left.describe()}", left
    for other, t in taken:
        if math.hypot(t.x - pose.x, t.y - pose.y) < 2.0 * cfg.perception.near_tolerance + clearance:
            return f"too close to where the robot works at furniture.{other}", None
    return None


# ------------------------------------------------------------------------------------ walls
def wall_layout(scene: Scene, cfg: SimConfig) -> list[Wall]:
    """Walls along every room edge (shared edges once), with the doorways cut out."""
    t = cfg.world.wall_thickness
    lines = _room_edges(scene.rooms.values())
    cuts = _doorway_cuts(scene)
    walls: list[Wall] = []
    for (axis, coord), intervals in sorted(lines.items()):
        line_cuts = cuts.get((axis, coord), [])
        for a, b in intervals:
            for lo, hi in _subtract(a, b, line_cuts):
                lo -= 0.0 if _is_cut_end(lo, line_cuts) else t / 2.0
                hi += 0.0 if _is_cut_end(hi, line_cuts) else t / 2.0
                mid, half = (lo + hi) / 2.0, (hi - lo) / 2.0
                rect = Rect(mid, coord, 0.0, half, t / 2.0) if axis == "h" else Rect(coord, mid, 0.0, t / 2.0, half)
                walls.append(Wall(f"wall_{len(walls)}", rect))
    return walls


_EPS = 1e-6


def _room_edges(rooms: Iterable) -> dict[tuple[str, float], list[tuple[float, float]]]:
    lines: dict[tuple[str, float], list[tuple[float, float]]] = {}
    for room in rooms:
        xmin, ymin, xmax, ymax = room.rect
        for axis, coord, seg in (("h", ymin, (xmin, xmax)), ("h", ymax, (xmin, xmax)),
                                 ("v", xmin, (ymin, ymax)), ("v", xmax, (ymin, ymax))):
            lines.setdefault((axis, round(coord, 6)), []).append(seg)
    return {k: _union(v) for k, v in lines.items()}


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[list[float]] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + _EPS:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def _subtract(a: float, b: float, cuts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    pieces = [(a, b)]
    for c0, c1 in cuts:
        pieces = [p for lo, hi in pieces for p in ((lo, min(hi, c0)), (max(lo, c1), hi)) if p[1] - p[0] > _EPS]
    return pieces


def _is_cut_end(v: float, cuts: list[tuple[float, float]]) -> bool:
    return any(abs(v - c0) < _EPS or abs(v - c1) < _EPS for c0, c1 in cuts)


def _doorway_cuts(scene: Scene) -> dict[tuple[str, float], list[tuple[float, float]]]:
    cuts: dict[tuple[str, float], list[tuple[float, float]]] = {}
    for i, door in enumerate(scene.doorways):
        key = shared_edge(scene, door.rooms, *door.center)
        if key is None:
            raise SceneError(f"doorways[{i}]: center {list(door.center)} is not on the wall between "
                             f"'{door.rooms[0]}' and '{door.rooms[1]}'")
        along = door.center[0] if key[0] == "h" else door.center[1]
        cuts.setdefault(key, []).append((along - door.width / 2.0, along + door.width / 2.0))
    return cuts


def shared_edge(scene: Scene, rooms: tuple[str, str], cx: float, cy: float) -> tuple[str, float] | None:
    rects = [scene.rooms[r].rect for r in rooms]
    for axis, coord, along in (("h", cy, cx), ("v", cx, cy)):
        edges = []
        for xmin, ymin, xmax, ymax in rects:
            lo, hi, ends = (xmin, xmax, (ymin, ymax)) if axis == "h" else (ymin, ymax, (xmin, xmax))
            hit = [e for e in ends if abs(coord - e) < 1e-3]
            if hit and lo - _EPS <= along <= hi + _EPS:
                edges.append(hit[0])
        if len(edges) == 2:
            return (axis, round(edges[0], 6))
    return None
