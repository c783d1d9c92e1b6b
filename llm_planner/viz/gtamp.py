"""Top views of a G-TAMP problem (STaLM, seed 003 §4.1) for :mod:`llm_planner.viz.topdown`.

:func:`problem_view` draws the kitchen and hall of a problem in a state: rooms, walls, regions
with their names, the sliding door (open or closed), the objects named, the goal's objects
highlighted and its atoms written under the plan, the robot's base, the path it drove, objects
that moved drawn faded where they started, and the occluders the geometric predicates named
(``PickOccludedBy`` / ``PlaceOccludedBy``, §3.2) for the goal's objects, in red.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from llm_planner.domains.gtamp.domain import GState, ObjPose, ProblemSpec, object_rect, region_rect
from llm_planner.domains.shapes import Frame2D, Problem, Rect
from llm_planner.viz.topdown import Arrow, Piece, TopView

if TYPE_CHECKING:
    from llm_planner.domains.gtamp.predicates import Literals

Point = tuple[float, float]
ROOM_COLORS = ((0.86, 0.93, 0.8), (0.93, 0.87, 0.74), (0.78, 0.86, 0.93))
DOOR_COLOR = (0.4, 0.5, 0.62)
MARGIN = 0.3  # metres around the rooms
MOVED = 0.03  # an object that moved less than this did not move
INCHES_PER_METRE = 1.9  # a G-TAMP kitchen is 8 x 5 m with objects a few centimetres wide


def problem_view(problem: ProblemSpec, state: GState | None = None, *, start: GState | None = None,
                 path: Sequence[Point] = (), literals: Literals | None = None, problems: Sequence[Problem] = (),
                 title: str = "") -> TopView:
    """A labelled top view of ``problem`` in ``state`` (default: its initial state).

    ``literals``: the :class:`~llm_planner.domains.gtamp.predicates.Literals` of that state; the
    occluders they name for the goal's objects are drawn in red. ``start``: an earlier state
    (moved objects drawn faded there, the robot's start marked)."""
    state = state or problem.initial
    layout = problem.layout
    rooms = layout.rooms
    xmin, ymin = min(r.xmin for r in rooms) - MARGIN, min(r.ymin for r in rooms) - MARGIN
    xmax, ymax = max(r.xmax for r in rooms) + MARGIN, max(r.ymax for r in rooms) + MARGIN
    view = TopView(title or f"{problem.name}: {problem.description}", (xmin, ymin, xmax, ymax),
                   inches_per_metre=INCHES_PER_METRE)
    view.rooms = [(r.name, (r.xmin, r.ymin, r.xmax, r.ymax), ROOM_COLORS[i % len(ROOM_COLORS)])
                  for i, r in enumerate(rooms)]
    view.walls = [Rect(w.center[0], w.center[1], 0.0, w.size[0] / 2.0, w.size[1] / 2.0) for w in layout.walls]
    goal_objects = {a.obj for a in problem.goal}
    goal_regions = {a.ref for a in problem.goal if a.direction == "on"}
    for region in layout.regions:
        view.furniture.append(Piece(region.name, region_rect(region), region.color[:3], region.name,
                                    "goal" if region.name in goal_regions else "solid"))
    occluders = _occluders(literals, goal_objects)
    for door, is_open in zip(layout.doors, state.doors_open, strict=True):
        cx, cy, _ = door.open_center if is_open else door.closed_center
        blocks = f"; blocks {', '.join(sorted(occluders[door.name]))}" if door.name in occluders else ""
        view.furniture.append(Piece(door.name, Rect(cx, cy, 0.0, door.size[0] / 2.0, door.size[1] / 2.0), DOOR_COLOR,
                                    f"{door.name} ({'open' if is_open else 'closed'}{blocks})",
                                    "problem" if blocks else "solid"))
    for i, (obj, pose) in enumerate(zip(problem.objects, state.poses, strict=True)):
        if pose is None:  # held: drawn at the robot
            pose = ObjPose(state.base.x, state.base.y, 0.0, state.base.theta, "")
        style = "goal" if obj.name in goal_objects else ("problem" if obj.name in occluders else "solid")
        label = obj.name
        view.objects.append(Piece(obj.name, object_rect(obj.shape, pose), obj.color[:3], label, style,
                                  obj.shape.kind == "cylinder"))
        before = start.poses[i] if start is not None else None
        if before is not None and (state.poses[i] is None or math.dist((before.x, before.y), (pose.x, pose.y)) > MOVED):
            view.ghosts.append(Piece(obj.name, object_rect(obj.shape, before), obj.color[:3], obj.name, "faded",
                                     obj.shape.kind == "cylinder"))
            view.moves.append(Arrow((before.x, before.y), (pose.x, pose.y)))
    view.robot = Frame2D(state.base.x, state.base.y, state.base.theta)
    view.robot_radius = layout.robot.base_radius
    if start is not None:
        view.robot_start = (start.base.x, start.base.y)
    view.path = list(path)
    view.problems = list(problems)
    view.notes.append("goal: " + "; ".join(f"{a.obj} {a.direction.replace('_', ' ')} {a.ref}" for a in problem.goal))
    if occluders:
        view.notes.append("red: occluders the geometric predicates name for the goal's objects: "
                          + "; ".join(f"{o} blocks {', '.join(sorted(t))}" for o, t in sorted(occluders.items())))
    return view


def _occluders(literals: Literals | None, goal_objects: set[str]) -> dict[str, set[str]]:
    """occluder -> what it blocks ("pick salter", "place salter on counter2"), for the goal's objects."""
    out: dict[str, set[str]] = {}
    if literals is None:
        return out
    for obj, occ in literals.pick_occluded:
        if obj in goal_objects:
            out.setdefault(occ, set()).add(f"pick {obj}")
    for obj, direction, ref, occ in literals.place_occluded:
        if obj in goal_objects:
            out.setdefault(occ, set()).add(f"place {obj} {direction.replace('_', ' ')} {ref}")
    return out
