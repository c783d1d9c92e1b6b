"""Checks of a G-TAMP problem beyond its file's schema (which
:func:`~llm_planner.domains.gtamp.problems.load_problem` checks before it runs these): regions
inside their rooms and clear of walls and each other, the robot's base pose at each region free,
objects on their regions and apart, the robot's start free. Each error names the key of its
culprit and where it stands; ``llm-planner scene check P2.yaml`` prints them and draws them
(:mod:`llm_planner.viz.gtamp`)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from llm_planner.domains.gtamp.domain import ProblemSpec, Shape, object_rect, region_rect
from llm_planner.domains.shapes import Problem, Rect, corners, point_rect_distance, rects_overlap

#: Overlaps shallower than this (metres) are touching, not overlapping.
TOUCH = 1e-3


@dataclass
class ProblemCheck:
    problem: ProblemSpec | None
    errors: list[str] = field(default_factory=list)
    marks: list[Problem] = field(default_factory=list)

    def add(self, message: str, rects: tuple[Rect, ...] = (), points: tuple[tuple[float, float], ...] = ()) -> None:
        self.errors.append(message)
        self.marks.append(Problem(str(len(self.errors)), rects, points))


def check_problem(problem: ProblemSpec) -> ProblemCheck:
    check = ProblemCheck(problem)
    layout = problem.layout
    walls = [(f"the wall at [{w.center[0]:.2f}, {w.center[1]:.2f}]",
              Rect(w.center[0], w.center[1], 0.0, w.size[0] / 2.0, w.size[1] / 2.0)) for w in layout.walls]
    regions = {r.name: region_rect(r) for r in layout.regions}
    rooms = {r.name: r for r in layout.rooms}
    for region in layout.regions:
        rect, room = regions[region.name], rooms[region.room]
        if any(not room.contains(x, y) for x, y in corners(rect)):
            check.add(f"regions.{region.name}: at [{rect.cx:.2f}, {rect.cy:.2f}] it reaches out of room '{room.name}' "
                      f"[{room.xmin}, {room.ymin}, {room.xmax}, {room.ymax}]", (rect,))
        for name, wall in walls:
            if rects_overlap(rect, wall, -TOUCH):
                check.add(f"regions.{region.name}: at [{rect.cx:.2f}, {rect.cy:.2f}] it overlaps {name}", (rect, wall))
        base = region.base_pose
        radius = layout.robot.base_radius
        for other, orect in regions.items():
            if other != region.name and point_rect_distance(base.x, base.y, orect) < radius - TOUCH:
                check.add(f"regions.{region.name}: the robot's base pose for it, [{base.x:.2f}, {base.y:.2f}], "
                          f"overlaps regions.{other} at [{orect.cx:.2f}, {orect.cy:.2f}] (the base "
                          f"needs {radius:.2f} m "
                          f"around it; change standoff or move the regions apart)", (orect,), ((base.x, base.y),))
        for name, wall in walls:
            if point_rect_distance(base.x, base.y, wall) < radius - TOUCH:
                check.add(f"regions.{region.name}: the robot's base pose for it, [{base.x:.2f}, {base.y:.2f}], "
                          f"overlaps {name}", (wall,), ((base.x, base.y),))
    names = list(regions)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if rects_overlap(regions[a], regions[b], -TOUCH):
                check.add(f"regions.{a}: at [{regions[a].cx:.2f}, {regions[a].cy:.2f}] it overlaps regions.{b} at "
                          f"[{regions[b].cx:.2f}, {regions[b].cy:.2f}]", (regions[a], regions[b]))
    placed = [(o, p) for o, p in zip(problem.objects, problem.initial.poses, strict=True) if p is not None]
    for obj, pose in placed:
        rect = object_rect(obj.shape, pose)
        region = layout.region(pose.region)
        if any(not region.contains(x, y, -TOUCH) for x, y in _outline(obj.shape, rect)):
            check.add(f"objects.{obj.name}.at: at [{pose.x:.2f}, {pose.y:.2f}] it hangs over the edge of region "
                      f"{region.name} (depth {region.depth} x width {region.width} m)", (rect,))
    for i, (oa, pa) in enumerate(placed):
        for ob, pb in placed[i + 1:]:
            gap = math.dist((pa.x, pa.y), (pb.x, pb.y)) - oa.shape.radius - ob.shape.radius
            if (pa.region == pb.region and gap < -TOUCH
                    and rects_overlap(object_rect(oa.shape, pa), object_rect(ob.shape, pb), -TOUCH)):
                check.add(f"objects.{oa.name}: at [{pa.x:.2f}, {pa.y:.2f}] it overlaps objects.{ob.name} at "
                          f"[{pb.x:.2f}, {pb.y:.2f}] on {pa.region}; change their 'at'",
                          (object_rect(oa.shape, pa), object_rect(ob.shape, pb)))
    base = problem.initial.base
    for name, rect in list(regions.items()) + walls:
        if point_rect_distance(base.x, base.y, rect) < layout.robot.base_radius - TOUCH:
            what = f"regions.{name}" if name in regions else name
            check.add(f"robot: its start [{base.x:.2f}, {base.y:.2f}] overlaps {what} (the base needs "
                      f"{layout.robot.base_radius:.2f} m around it)", (rect,), ((base.x, base.y),))
    return check


def _outline(shape: Shape, rect: Rect) -> list[tuple[float, float]]:
    if shape.kind == "box":
        return corners(rect)
    r = shape.size[0]
    return [(rect.cx + r * math.cos(a), rect.cy + r * math.sin(a))
            for a in (0.0, math.pi / 2, math.pi, 3 * math.pi / 2)]
