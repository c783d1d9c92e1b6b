"""Top views of a household apartment (:class:`~llm_planner.viz.topdown.TopView`).

* :func:`layout_view`: the scene check's picture: rooms, walls and doorways, furniture with
  names, the robot's start, the approach pose of every furniture, problems in red.
* :func:`snapshot_view`: what the sensors report (a :class:`~llm_planner.domains.geometry.GeometrySnapshot`):
  the objects where they are, the goal's objects and destinations highlighted and named, objects
  that moved drawn faded where they started, the robot and the path it drove.

Both start from the same static drawing of the scene (:func:`base_view`), made from the scene
file and the simulator's layout, so the two pictures of one apartment look alike.
"""
from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from llm_planner.domains.geometry import ROBOT, WALL, GeometrySnapshot
from llm_planner.domains.household.sim.check import doorway_gap
from llm_planner.domains.household.sim.config import SimConfig, load_sim_config
from llm_planner.domains.household.sim.layout import apartment_bounds, furniture_layouts, shared_edge, wall_layout
from llm_planner.domains.household.sim.perception import is_power
from llm_planner.domains.household.world.scene import CONTAINER, FURNITURE_KINDS, ObjectType, Scene
from llm_planner.domains.household.world.symbolic import GoalItem
from llm_planner.domains.shapes import Frame2D, Problem, Rect
from llm_planner.viz.topdown import Arrow, Piece, TopView, rect_of_box

if TYPE_CHECKING:
    from llm_planner.domains.household.sim.check import LayoutCheck

Point = tuple[float, float]
#: An object that moved less than this (metres) between two snapshots did not move.
MOVED = 0.05


def base_view(scene: Scene, cfg: SimConfig | None = None, title: str = "", walls: Iterable | None = None,
              layouts: dict | None = None) -> TopView:
    """Rooms (coloured as in the simulator), walls, doorways and named furniture footprints."""
    cfg = cfg or load_sim_config()
    colors = cfg.world.colors
    room_colors = [tuple(c) for c in colors["rooms"]]
    view = TopView(title or scene.name, apartment_bounds(scene, cfg.render_margin))
    for i, room in enumerate(scene.rooms.values()):
        view.rooms.append((room.name, room.rect, room_colors[i % len(room_colors)]))
    view.walls = [w.rect for w in (walls if walls is not None else _walls(scene, cfg))]

    view.doorways = [doorway_gap(scene, d, cfg) for d in scene.doorways]
    layouts = layouts if layouts is not None else furniture_layouts(scene, cfg)
    for name, layout in layouts.items():
        color = tuple(colors["container" if layout.kind == CONTAINER else "surface"])
        view.furniture.append(Piece(name, layout.footprint, color, label=name))
    return view


def _walls(scene: Scene, cfg: SimConfig) -> list:
    """The walls, leaving out doorways that are not on a wall (the scene check reports those)."""
    doors = tuple(d for d in scene.doorways if shared_edge(scene, d.rooms, *d.center) is not None)
    return wall_layout(dataclasses.replace(scene, doorways=doors), cfg)


# ------------------------------------------------------------------------------ scene check
def layout_view(check: LayoutCheck, cfg: SimConfig | None = None, title: str = "") -> TopView:
    """The picture of ``llm-planner scene check``: the layout, approach poses, start, problems."""
    cfg = cfg or load_sim_config()
    scene = check.scene
    errors = check.errors
    view = base_view(scene, cfg, title or f"{scene.name}: "
                     + (f"{len(errors)} problem(s)" if errors else "no problems"),
                     walls=check.walls, layouts=check.layouts)
    culprits = {f.where.split(".")[1] for f in errors if f.where.startswith("furniture.")}
    view.furniture = [Piece(p.name, p.rect, p.color, p.label, "problem" if p.name in culprits else p.style)
                      for p in view.furniture]
    view.approaches = [(n, lay.approach) for n, lay in check.layouts.items()]
    view.robot_start = check.robot_start
    view.robot_radius = check.drive_radius
    for k, finding in enumerate(errors, 1):
        rects = tuple(m for m in finding.marks if isinstance(m, Rect))
        points = tuple(m for m in finding.marks if not isinstance(m, Rect))
        view.problems.append(Problem(f"{k}", rects, points))
        view.notes.append(f"error {k}: {finding}")
    view.notes.append("grey arrows: where the robot stands to work at each furniture; green dot and "
                      "dashed circle: its start "
                      "and driving footprint")
    return view


# --------------------------------------------------------------------------------- snapshots
def snapshot_view(scene: Scene, geometry: GeometrySnapshot, *, goal: Sequence | None = None,
                  start: GeometrySnapshot | None = None, path: Sequence[Point] = (), title: str = "",
                  cfg: SimConfig | None = None) -> TopView:
    """A labelled top view of ``geometry``.

    ``goal``: goal items (``GoalItem`` or ``[rel, type, destination, count]``); their object types
    and destinations are highlighted and named. ``start``: an earlier snapshot; objects that moved
    since are drawn faded there, with an arrow, and named. ``path``: the robot's path (drawn)."""
    cfg = cfg or load_sim_config()
    view = base_view(scene, cfg, title)
    goal_types, destinations = _goal_names(goal)
    open_doors = {j.body for j in geometry.joints if j.is_open and not is_power(j)}  # a power reading is no door
    on = [j.body for j in geometry.joints if is_power(j) and j.is_open and j.body in scene.switchables]
    view.furniture = [Piece(p.name, p.rect, p.color,
                            None if p.label is None else p.label + _state_text(p.name, open_doors, scene, on),
                            "goal" if p.name in destinations else p.style) for p in view.furniture]
    before = {b.name: b for b in (start.bodies if start else [])}
    for body in geometry.bodies:
        if body.type in FURNITURE_KINDS or body.type in (WALL, ROBOT):
            continue
        otype = scene.object_types.get(body.type)
        color = otype.color if otype else (0.6, 0.6, 0.6)
        rect = rect_of_box(body.aabb_min, body.aabb_max)
        moved = body.name in before and math.dist(before[body.name].aabb_center[:2], body.aabb_center[:2]) > MOVED
        in_goal = body.type in goal_types
        label = body.name if (in_goal or moved or body.name == geometry.held_object) else None
        view.objects.append(Piece(body.name, rect, color, label, "goal" if in_goal else "solid", _round(otype)))
        if moved:
            old = before[body.name]
            view.ghosts.append(Piece(body.name, rect_of_box(old.aabb_min, old.aabb_max), color, body.name, "faded",
                                     _round(otype)))
            view.moves.append(Arrow(old.aabb_center[:2], body.aabb_center[:2]))
    view.robot = Frame2D(geometry.robot_position[0], geometry.robot_position[1], geometry.robot_yaw)
    view.robot_radius = math.hypot(*cfg.robot.base.size[:2]) / 2.0
    if start is not None:
        view.robot_start = (start.robot_position[0], start.robot_position[1])
    view.path = list(path)
    if goal:
        view.notes.append("goal: " + "; ".join(_goal_text(g) for g in goal))
    return view


def _state_text(furniture: str, open_doors: set[str], scene: Scene, on: Sequence[str]) -> str:
    """`` (open)``, `` (on)`` of an appliance, `` (tv on)`` of a thing standing at it, or nothing."""
    words = ["open"] if furniture in open_doors else []
    things = sorted(d for d in on if scene.switchables[d].at == furniture)
    words += ["on"] if things == [furniture] else [f"{d} on" for d in things]
    return f" ({', '.join(words)})" if words else ""


def _round(otype: ObjectType | None) -> bool:
    return otype is not None and abs(otype.size[0] - otype.size[1]) < 0.02


def _goal_names(goal: Sequence | None) -> tuple[set[str], set[str]]:
    types, places = set(), set()
    for item in goal or ():
        rel, otype, dest = (item.rel, item.obj_type, item.destination) if hasattr(item, "rel") else tuple(item[:3])
        types.add(str(otype))
        places.add(str(dest))
    return types, places


def _goal_text(item: GoalItem | Sequence[Any]) -> str:
    rel, otype, dest, count = ((item.rel, item.obj_type, item.destination, item.count) if isinstance(item, GoalItem)
                               else tuple(item))
    return f"{otype} {rel}" if not dest else f"{count} {otype} {rel} {dest}"  # no destination: a state
