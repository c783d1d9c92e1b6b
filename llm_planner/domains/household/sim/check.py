"""Check an apartment for the PyBullet robot, without PyBullet: what is wrong, where, and how to fix it.

The PyBullet world needs more of a scene file than its schema: furniture inside its room and
clear of walls and other furniture, doorways wide enough for the robot's driving footprint and
not blocked, a free place to work at each furniture, and every room reachable from the robot's
start. :func:`check_layout` finds each such problem and names the culprit with its coordinates;
:class:`~llm_planner.domains.household.sim.world.HouseholdSim` runs it before it builds anything and refuses a
scene with the same messages, and ``llm-planner scene check`` prints them with a picture.

The geometry is the simulator's own: the same layout (:mod:`llm_planner.domains.household.sim.layout`), the same
occupancy grid and driving radius as the base planner, the same choice of the robot's place in
each room (:func:`room_spot`), so a scene this check passes builds in the simulator.

>>> from llm_planner.domains.household.sim.config import load_sim_config
>>> from llm_planner.domains.household.world.scene import load_scene
>>> check_layout(load_scene("apartment_seen"), load_sim_config()).errors
[]
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.sim.layout import (
    ApproachFailure,
    Frame2D,
    FurnitureLayout,
    Rect,
    Wall,
    apartment_bounds,
    carry_extent,
    choose_approaches,
    corners,
    describe_wall,
    drive_radius,
    furniture_layout,
    point_rect_distance,
    rects_overlap,
    shared_edge,
    sweep_radius,
    wall_layout,
)
from llm_planner.domains.household.sim.navigation import BasePlanner, OccupancyGrid, build_grid, distance_field
from llm_planner.domains.household.sim.perception import room_at
from llm_planner.domains.household.world.scene import Doorway, ObjectType, Scene
from llm_planner.errors import SceneError

Point = tuple[float, float]
#: A shape drawn in red on the picture of a problem: a footprint, or a point (x, y).
Mark = Rect | Point

ERROR = "error"
NOTE = "note"


@dataclass(frozen=True)
class Finding:
    """One problem (``error``: the simulator refuses the scene) or remark (``note``) about a scene."""

    severity: str
    where: str  # the key path of the culprit: "doorways[1]", "furniture.sofa", "rooms.bathroom"
    message: str
    marks: tuple[Mark, ...] = ()

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class LayoutCheck:
    """What :func:`check_layout` found, and the geometry it found it on (for pictures and the simulator)."""

    scene: Scene
    findings: list[Finding]
    layouts: dict[str, FurnitureLayout]
    walls: list[Wall]
    drive_radius: float
    grid: OccupancyGrid
    room_spots: dict[str, Point] = field(default_factory=dict)  # where the robot waits in each room

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == ERROR]

    @property
    def robot_start(self) -> Point | None:
        return self.room_spots.get(self.scene.robot_room)

    def raise_errors(self) -> None:
        """Raise :class:`SceneError` with one line per error (what the simulator does)."""
        errors = self.errors
        if errors:
            source = self.scene.path or self.scene.name
            lines = tuple(f"{source}: {e}" for e in errors)
            raise SceneError("\n".join(lines), problems=lines)


def check_layout(scene: Scene, cfg: SimConfig) -> LayoutCheck:
    """Every geometric problem of ``scene`` for the robot of ``cfg`` (see the module docstring)."""
    findings: list[Finding] = []
    findings += carry_findings(scene, cfg)
    doorways, door_findings = _doorways_on_walls(scene)
    findings += door_findings
    walled = dataclasses.replace(scene, doorways=tuple(d for _, d in doorways))
    walls = wall_layout(walled, cfg)
    layouts, size_findings = _layouts(scene, cfg)
    findings += size_findings
    findings += _placement_findings(scene, layouts, walls, cfg)
    layouts, failures = choose_approaches(scene, layouts, walls, cfg)
    findings += [_approach_finding(f) for f in failures.values()]
    radius = drive_radius(cfg, scene)
    obstacles = _grid_obstacles(layouts, walls)
    grid = build_grid(list(obstacles.values()), apartment_bounds(scene), cfg.motion.grid_resolution, radius)
    check = LayoutCheck(scene, findings, layouts, walls, radius, grid)
    impassable = {}
    for index, door in doorways:
        problem = _doorway_finding(scene, index, door, grid, obstacles, radius, cfg)
        if problem is not None:
            impassable[index] = problem
            findings.append(problem)
    _reachability(check, impassable, cfg, failures)
    return check


# ------------------------------------------------------------------------------ the robot
def carry_findings(scene: Scene, cfg: SimConfig) -> list[Finding]:
    """Objects too wide for the gripper to carry past the mast (their shorter side faces it)."""
    r = cfg.robot
    room = r.arm.retracted_length - max(r.mast.size[:2]) / 2.0 - cfg.placement.margin
    return [Finding(ERROR, f"objects.{t.name}.size",
                    f"too large for the robot to carry: its shorter side {min(t.size[:2]):.2f} m must stay under "
                    f"{2 * room:.2f} m")
            for t in scene.object_types.values() if min(t.size[0], t.size[1]) / 2.0 > room]


def largest_carried(scene: Scene, cfg: SimConfig) -> str | None:
    """The object type that sets the robot's driving footprint, or None when the robot's own body does."""
    r = cfg.robot
    body = max(r.base.half_diagonal, abs(r.mast.offset) + math.hypot(r.arm.retracted_length + r.gripper.size[0] / 2.0,
                                                                      r.gripper.size[1] / 2.0))
    if carry_extent(scene, cfg) + abs(r.mast.offset) <= body:
        return None
    r0 = r.arm.retracted_length

    def extent(t: ObjectType) -> float:
        a, b = sorted((t.size[0] / 2.0, t.size[1] / 2.0))
        return math.hypot(r0 + a, b)

    return max(scene.object_types.values(), key=extent).name


# ------------------------------------------------------------------------------ doorways
def _doorways_on_walls(scene: Scene) -> tuple[list[tuple[int, Doorway]], list[Finding]]:
    good, findings = [], []
    for i, door in enumerate(scene.doorways):
        if shared_edge(scene, door.rooms, *door.center) is not None:
            good.append((i, door))
            continue
        a, b = door.rooms
        wall = _shared_wall(scene, a, b)
        hint = (f"rooms '{a}' and '{b}' share the wall {wall}; put the center on it" if wall
                else f"rooms '{a}' and '{b}' share no wall, so no doorway can join them")
        findings.append(Finding(ERROR, f"doorways[{i}].center",
                                f"{list(door.center)} is not on the wall between '{a}' and '{b}' ({hint})",
                                (door.center,)))
    return good, findings


def _shared_wall(scene: Scene, a: str, b: str) -> str | None:
    ax0, ay0, ax1, ay1 = scene.rooms[a].rect
    bx0, by0, bx1, by1 = scene.rooms[b].rect
    for x in {ax0, ax1} & {bx0, bx1}:
        lo, hi = max(ay0, by0), min(ay1, by1)
        if hi > lo:
            return f"x = {x:.2f} (y {lo:.2f} to {hi:.2f})"
    for y in {ay0, ay1} & {by0, by1}:
        lo, hi = max(ax0, bx0), min(ax1, bx1)
        if hi > lo:
            return f"y = {y:.2f} (x {lo:.2f} to {hi:.2f})"
    return None


def doorway_gap(scene: Scene, door: Doorway, cfg: SimConfig) -> Rect:
    """The opening of a doorway as a rectangle across its wall (for pictures and marks)."""
    key = shared_edge(scene, door.rooms, *door.center)
    t = cfg.world.wall_thickness
    if key is not None and key[0] == "v":
        return Rect(door.center[0], door.center[1], 0.0, t / 2.0, door.width / 2.0)
    return Rect(door.center[0], door.center[1], 0.0, door.width / 2.0, t / 2.0)


def width_needed(radius: float, cfg: SimConfig) -> float:
    """Doorway width that always lets the base planner through: twice the driving radius plus one
    grid cell (a free cell centre must fall inside the opening)."""
    return 2.0 * radius + cfg.motion.grid_resolution


def _doorway_finding(scene: Scene, index: int, door: Doorway, grid: OccupancyGrid, obstacles: Mapping[str, Rect],
                     radius: float, cfg: SimConfig) -> Finding | None:
    if _passable(scene, door, grid, radius):
        return None
    a, b = door.rooms
    where = f"doorways[{index}]"
    label = f"the doorway {a} - {b} at [{door.center[0]:.2f}, {door.center[1]:.2f}]"
    gap = doorway_gap(scene, door, cfg)
    need = width_needed(radius, cfg)
    if door.width < need:
        carried = largest_carried(scene, cfg)
        why = (f"its driving radius is {radius:.2f} m"
               + (f", carrying the largest object '{carried}'" if carried else "")
               + f", and the base planner's grid adds {cfg.motion.grid_resolution:.2f} m")
        return Finding(ERROR, f"{where}.width", f"{label} is {door.width:.2f} m wide; the robot needs at least "
                       f"{need:.2f} m to drive through ({why}): widen it to {math.ceil(need * 20) / 20:.2f} m or more",
                       (gap,))
    culprits = _blocking_furniture(scene, door, grid, obstacles, radius)
    names = " and ".join(f"{n} at [{r.cx:.2f}, {r.cy:.2f}] ({_span(r)})" for n, r in culprits)
    return Finding(ERROR, where, f"{label} is blocked by {names or 'furniture next to it'}: the robot needs "
                   f"{radius:.2f} m of free floor on every side of its centre to pass; move "
                   f"{'it' if len(culprits) == 1 else 'them'} away from the opening",
                   (gap,) + tuple(r for _, r in culprits))


def _span(r: Rect) -> str:
    xs, ys = zip(*corners(r), strict=True)
    return f"x {min(xs):.2f} to {max(xs):.2f}, y {min(ys):.2f} to {max(ys):.2f}"


def _passable(scene: Scene, door: Doorway, grid: OccupancyGrid, radius: float) -> bool:
    """Whether free cells of the two rooms near the doorway connect, moving only inside the two rooms."""
    a, b = (scene.rooms[r] for r in door.rooms)
    xs = grid.bounds[0] + (np.arange(grid.shape[0]) + 0.5) * grid.resolution
    ys = grid.bounds[1] + (np.arange(grid.shape[1]) + 0.5) * grid.resolution
    gx, gy = np.meshgrid(xs, ys, indexing="ij")

    def inside(rect: tuple[float, float, float, float]) -> np.ndarray:
        return (gx >= rect[0]) & (gx <= rect[2]) & (gy >= rect[1]) & (gy <= rect[3])

    in_a, in_b = inside(a.rect), inside(b.rect)
    near = np.hypot(gx - door.center[0], gy - door.center[1]) <= door.width / 2.0 + 3.0 * radius
    masked = OccupancyGrid(grid.bounds, grid.resolution, grid.free & (in_a | in_b), grid.clearance)
    seeds = list(zip(*np.nonzero(masked.free & in_a & near), strict=True))
    targets = masked.free & in_b & near
    if not targets.any():
        return False
    seen = np.zeros(grid.shape, dtype=bool)
    for seed in seeds[:: max(1, len(seeds) // 50)] if len(seeds) > 400 else seeds:
        if seen[seed]:
            continue
        component = np.isfinite(distance_field(masked, (int(seed[0]), int(seed[1]))))
        if (component & targets).any():
            return True
        seen |= component
    return False


def _blocking_furniture(scene: Scene, door: Doorway, grid: OccupancyGrid, obstacles: Mapping[str, Rect],
                        radius: float) -> list[tuple[str, Rect]]:
    """The furniture near a doorway whose removal opens it (or all the nearby furniture together)."""
    reach = door.width / 2.0 + 2.0 * radius + grid.resolution
    nearby = [(n, r) for n, r in obstacles.items()
              if n.startswith("furniture.") and point_rect_distance(*door.center, r) < reach]
    nearby.sort(key=lambda item: point_rect_distance(*door.center, item[1]))
    culprits = []
    for name, _ in nearby:
        rest = [r for n, r in obstacles.items() if n != name]
        if _passable(scene, door, build_grid(rest, grid.bounds, grid.resolution, radius), radius):
            culprits.append((name, obstacles[name]))
    return culprits or nearby


# ----------------------------------------------------------------------------- furniture
def _layouts(scene: Scene, cfg: SimConfig) -> tuple[dict[str, FurnitureLayout], list[Finding]]:
    sweep = sweep_radius(cfg, scene)
    layouts, findings = {}, []
    for f in scene.furniture.values():
        try:
            layouts[f.name] = furniture_layout(f, Frame2D(f.position[0], f.position[1], f.yaw), cfg, sweep)
        except SceneError as exc:
            findings.append(Finding(ERROR, f"furniture.{f.name}.size", str(exc), ()))
    return layouts, findings


def _placement_findings(scene: Scene, layouts: Mapping[str, FurnitureLayout], walls: Sequence[Wall],
                        cfg: SimConfig) -> list[Finding]:
    """Furniture reaching through a wall or out of its room, and furniture overlapping furniture."""
    findings = []
    inset = cfg.world.wall_thickness / 2.0
    for name, layout in layouts.items():
        foot, rect = layout.footprint, scene.rooms[layout.room].rect
        past = _outside_by(foot, rect, 0.0)  # up to a wall's centre line is flush against it
        if past <= 1e-4:
            continue
        hit = next((w for w in walls if rects_overlap(foot, w.rect, -1e-4)), None)
        where = f"goes {past:.2f} m through {describe_wall(hit)}" if hit else f"reaches {past:.2f} m out of room " \
                f"'{layout.room}' {list(rect)}"
        findings.append(Finding(ERROR, f"furniture.{name}.position",
                                f"at [{foot.cx:.2f}, {foot.cy:.2f}] its footprint ({_span(foot)}) {where}; "
                                f"{_move_hint(foot, rect, inset)}", (foot,)))
    names = list(layouts)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            fa, fb = layouts[a].footprint, layouts[b].footprint
            if rects_overlap(fa, fb, -1e-4):
                findings.append(Finding(ERROR, f"furniture.{a}",
                                        f"at [{fa.cx:.2f}, {fa.cy:.2f}] ({_span(fa)}) overlaps furniture.{b} at "
                                        f"[{fb.cx:.2f}, {fb.cy:.2f}] ({_span(fb)}); move one of them", (fa, fb)))
    return findings


def _outside_by(foot: Rect, rect: tuple[float, float, float, float], inset: float) -> float:
    xs, ys = zip(*corners(foot), strict=True)
    xmin, ymin, xmax, ymax = rect
    return max(xmin + inset - min(xs), ymin + inset - min(ys), max(xs) - (xmax - inset), max(ys) - (ymax - inset), 0.0)


def _move_hint(foot: Rect, rect: tuple[float, float, float, float], inset: float) -> str:
    """Where the furniture's centre must go for its footprint to fit inside the room's walls."""
    xs, ys = zip(*corners(foot), strict=True)
    hx, hy = (max(xs) - min(xs)) / 2.0, (max(ys) - min(ys)) / 2.0
    xmin, ymin, xmax, ymax = rect
    lo_x, hi_x, lo_y, hi_y = xmin + inset + hx, xmax - inset - hx, ymin + inset + hy, ymax - inset - hy
    if lo_x > hi_x or lo_y > hi_y:
        return "it is larger than the room"
    x = min(max(foot.cx, lo_x), hi_x)
    y = min(max(foot.cy, lo_y), hi_y)
    return (f"its centre must lie within x {lo_x:.2f} to {hi_x:.2f}, y {lo_y:.2f} to {hi_y:.2f} "
            f"(e.g. [{x:.2f}, {y:.2f}])")


def _approach_finding(failure: ApproachFailure) -> Finding:
    marks: tuple[Mark, ...] = ((failure.pose.x, failure.pose.y),)
    if failure.blocker is not None:
        marks += (failure.blocker.rect,)
    return Finding(ERROR, f"furniture.{failure.furniture}", failure.message.split(": ", 1)[1], marks)


def _grid_obstacles(layouts: Mapping[str, FurnitureLayout], walls: Sequence[Wall]) -> dict[str, Rect]:
    out = {f"furniture.{n}": lay.footprint for n, lay in layouts.items()}
    out.update({w.name: w.rect for w in walls})
    return out


# ----------------------------------------------------------------------------- reachability
def room_spot(planner: BasePlanner, scene: Scene, room: str, keep_from: Iterable[Point], keep: float,
              anchor: Point | None) -> Point | None:
    """Where the robot waits in ``room``: the free grid cell nearest the room's centre that lies in
    the room, is ``keep`` metres from every approach pose and connects to ``anchor``."""
    xmin, ymin, xmax, ymax = scene.rooms[room].rect
    keep_from = list(keep_from)
    for q in planner.free_cells_near(((xmin + xmax) / 2.0, (ymin + ymax) / 2.0), max(xmax - xmin, ymax - ymin)):
        if room_at(scene, *q) != room:
            continue
        if any(math.dist(q, a) < keep for a in keep_from):
            continue
        if anchor is not None and not planner.reachable(q, anchor):
            continue
        return q
    return None


def given_spot(scene: Scene, room: str) -> Point | None:
    """The robot's place in ``room`` as the scene file gives it (``rooms.<room>.approach``), or None."""
    approach = scene.rooms[room].approach
    return (approach[0], approach[1]) if approach is not None else None


def _given_spot_finding(check: LayoutCheck, room: str, planner: BasePlanner, anchor: Point | None) -> Finding | None:
    """Why the robot cannot use the place the scene file gives for ``room``, or None."""
    spot = given_spot(check.scene, room)
    if spot is None:
        return None
    where = f"[{spot[0]:.2f}, {spot[1]:.2f}]"
    if not planner.grid.is_free(spot):
        return Finding(ERROR, f"rooms.{room}.approach", f"the robot does not fit there ({where}): it needs "
                       f"{check.drive_radius:.2f} m of free floor around its centre; move it away from walls and "
                       "furniture", (spot,))
    if anchor is not None and not planner.reachable(spot, anchor):
        return Finding(ERROR, f"rooms.{room}.approach", f"the robot cannot drive there ({where}) from its start",
                       (spot,))
    return None


def keep_distance(cfg: SimConfig) -> float:
    """How far the robot's place in a room stays from every approach pose (so it is CLOSE to nothing)."""
    return 2.0 * cfg.perception.near_tolerance + cfg.approach_clearance


def _reachability(check: LayoutCheck, impassable: Mapping[int, Finding], cfg: SimConfig,
                  failures: Mapping[str, ApproachFailure]) -> None:
    scene, planner = check.scene, BasePlanner(check.grid)
    approaches = [(lay.approach.x, lay.approach.y) for lay in check.layouts.values()]
    keep = keep_distance(cfg)
    start_room = scene.robot_room
    problem = _given_spot_finding(check, start_room, planner, None)
    if problem is not None:
        check.findings.append(problem)
        return
    start = given_spot(scene, start_room) or room_spot(planner, scene, start_room, approaches, keep, None)
    if start is None:
        check.findings.append(Finding(ERROR, f"rooms.{start_room}", "the robot's start room has no free place for "
                                      f"the robot: it needs {check.drive_radius:.2f} m of free floor around its "
                                      f"centre, {keep:.2f} m away from where it works at any furniture",
                                      (scene.rooms[start_room].center,)))
        return
    check.room_spots[start_room] = start
    for room in scene.rooms:
        if room == start_room:
            continue
        problem = _given_spot_finding(check, room, planner, start)
        if problem is not None:
            check.findings.append(problem)
            continue
        spot = given_spot(scene, room) or room_spot(planner, scene, room, approaches, keep, start)
        if spot is not None:
            check.room_spots[room] = spot
            continue
        check.findings.append(Finding(ERROR, f"rooms.{room}", _unreachable_reason(scene, room, start_room,
                                      impassable, room_spot(planner, scene, room, approaches, keep, None) is None,
                                      check.drive_radius), (scene.rooms[room].center,)))
    for name, layout in check.layouts.items():
        if name in failures or room_at(scene, layout.approach.x, layout.approach.y) not in check.room_spots:
            continue
        pose = layout.approach
        if any(planner.reachable(q, start)
               for q in planner.free_cells_near((pose.x, pose.y), cfg.motion.staging_search)):
            continue
        near = sorted(((n, r) for n, r in _grid_obstacles(check.layouts, check.walls).items()
                       if n != f"furniture.{name}" and n.startswith("furniture.")),
                      key=lambda item: point_rect_distance(pose.x, pose.y, item[1]))[:2]
        names = " and ".join(f"{n} at [{r.cx:.2f}, {r.cy:.2f}]" for n, r in near)
        check.findings.append(Finding(ERROR, f"furniture.{name}",
                                      f"the robot cannot drive to where it works at it ([{pose.x:.2f}, {pose.y:.2f}]) "
                                      f"from its start: the floor around that place is closed off (nearest: {names}); "
                                      f"leave {2 * check.drive_radius:.2f} m wide passages",
                                      ((pose.x, pose.y),) + tuple(r for _, r in near)))


def _unreachable_reason(scene: Scene, room: str, start_room: str, impassable: Mapping[int, Finding],
                        no_place: bool, radius: float) -> str:
    if no_place:
        return (f"no free place for the robot in it: it needs {radius:.2f} m of free floor around its centre, away "
                f"from where it works at the furniture; make the room larger or its furniture fewer or smaller")
    doors = [i for i, d in enumerate(scene.doorways) if room in d.rooms]
    if not doors:
        return f"cannot be reached from the robot's start ({start_room}): no doorway joins it to another room"
    closed = [i for i in doors if i in impassable]
    if closed:
        listed = ", ".join(f"doorways[{i}] ({impassable[i].message.split(' is ', 1)[1].split(';')[0].split(':')[0]})"
                           for i in closed)
        return (f"cannot be reached from the robot's start ({start_room}): {listed}"
                + ("" if len(closed) == len(doors)
                   else "; the rooms behind its other doorways are not reachable either"))
    return (f"cannot be reached from the robot's start ({start_room}): its doorways are open, but furniture closes "
            f"off the way to them")
