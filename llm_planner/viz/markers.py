"""The world as RViz markers, described in plain data (no ROS): the simulator node converts each
:class:`MarkerSpec` into a ``visualization_msgs/Marker`` field by field
(:func:`llm_planner_ros.conversions.markers_to_msg`) and publishes the list as a ``MarkerArray``
on its latched ``markers`` topic at start and after every skill.

:func:`markers_from_geometry` reads only what the sensors report (a
:class:`~llm_planner.domains.geometry.GeometrySnapshot`): walls, furniture (containers coloured by
their door: open or closed), objects with text labels, the robot with its heading. With the
scene, furniture boxes take their exact oriented size instead of the axis-aligned bounding box.
:func:`markers_from_problem` does the same for a G-TAMP problem: the static walls and regions of
its layout (named), the sliding doors open or closed, the objects named, the robot.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llm_planner.domains.geometry import ROBOT, WALL, BodyGeometry, GeometrySnapshot, quat, quat_from_yaw, vec3
from llm_planner.domains.household.sim.perception import is_power
from llm_planner.domains.household.world.scene import CONTAINER, FURNITURE_KINDS, Scene

if TYPE_CHECKING:
    from llm_planner.domains.gtamp.domain import ProblemSpec

#: Marker types, named as visualization_msgs/Marker names its constants.
CUBE, CYLINDER, ARROW, TEXT_VIEW_FACING = "CUBE", "CYLINDER", "ARROW", "TEXT_VIEW_FACING"
RGBA = tuple[float, float, float, float]
Vec3 = tuple[float, float, float]

#: Colours (r, g, b, a) and sizes of the markers.
WALL_RGBA: RGBA = (0.45, 0.42, 0.4, 1.0)
SURFACE_RGBA: RGBA = (0.6, 0.45, 0.3, 1.0)
CONTAINER_CLOSED_RGBA: RGBA = (0.62, 0.66, 0.72, 1.0)
CONTAINER_OPEN_RGBA: RGBA = (0.55, 0.8, 0.55, 1.0)
DOOR_CLOSED_RGBA: RGBA = (0.4, 0.5, 0.62, 1.0)
DOOR_OPEN_RGBA: RGBA = (0.55, 0.8, 0.55, 0.6)
OBJECT_RGBA: RGBA = (0.8, 0.2, 0.2, 1.0)   # an object whose type has no colour
ROBOT_RGBA: RGBA = (0.05, 0.25, 0.85, 1.0)
TEXT_RGBA: RGBA = (1.0, 1.0, 1.0, 1.0)
TEXT_HEIGHT = 0.12       # metres, furniture names
OBJECT_TEXT_HEIGHT = 0.07
TEXT_LIFT = 0.15         # text above the top of its body
ARROW_LENGTH = 0.5
IDENTITY = (0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class MarkerSpec:
    """One marker: ``ns`` and ``id`` identify it (stable across updates); pose in ``frame_id``."""

    ns: str
    id: int
    type: str
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]  # x, y, z, w
    scale: tuple[float, float, float]
    color: RGBA
    text: str = ""
    frame_id: str = "map"


@dataclass
class _Markers:
    """Markers being collected: ids count up per namespace, so they are stable for a fixed world."""

    frame_id: str
    out: list[MarkerSpec] = field(default_factory=list)
    ids: dict[str, int] = field(default_factory=dict)

    def add(self, ns: str, type_: str, position: Sequence[float], orientation: Sequence[float],
            scale: Sequence[float], color: RGBA, text: str = "") -> None:
        self.ids[ns] = self.ids.get(ns, -1) + 1
        self.out.append(MarkerSpec(ns, self.ids[ns], type_, vec3(position), quat(orientation), vec3(scale),
                                   color, text, self.frame_id))

    def label(self, ns: str, x: float, y: float, z: float, text: str, height: float = TEXT_HEIGHT) -> None:
        self.add(ns, TEXT_VIEW_FACING, (x, y, z), IDENTITY, (0.0, 0.0, height), TEXT_RGBA, text)

    def box(self, ns: str, body: BodyGeometry, color: RGBA) -> None:
        """The body's axis-aligned bounding box."""
        self.add(ns, CUBE, body.aabb_center, IDENTITY, _size(body), color)

    def named_object(self, body: BodyGeometry, color: RGBA) -> None:
        self.box("objects", body, color)
        center = body.aabb_center
        self.label("object_names", center[0], center[1], body.aabb_max[2] + TEXT_LIFT / 2.0, body.name,
                   OBJECT_TEXT_HEIGHT)

    def robot(self, geometry: GeometrySnapshot, body: BodyGeometry) -> None:
        size, center = _size(body), body.aabb_center
        width = max(size[0], size[1])
        self.add("robot", CYLINDER, center, IDENTITY, (width, width, size[2]), ROBOT_RGBA)
        self.add("robot", ARROW, (geometry.robot_position[0], geometry.robot_position[1], body.aabb_max[2] + 0.05),
                 quat_from_yaw(geometry.robot_yaw), (ARROW_LENGTH, 0.05, 0.05), ROBOT_RGBA)
        self.label("robot_name", center[0], center[1], body.aabb_max[2] + TEXT_LIFT,
                   "robot" + (f" holding {geometry.held_object}" if geometry.held_object else ""))


def markers_from_geometry(geometry: GeometrySnapshot, scene: Scene | None = None,
                          frame_id: str = "map") -> list[MarkerSpec]:
    """Markers for every body, a name above each furniture and object, and the robot's heading."""
    markers = _Markers(frame_id)
    open_bodies = {j.body for j in geometry.joints if j.is_open and not is_power(j)}  # a power reading is no door
    for body in geometry.bodies:
        center = body.aabb_center
        if body.type == WALL:
            markers.box("walls", body, WALL_RGBA)
        elif body.type in FURNITURE_KINDS:
            orientation, scale = IDENTITY, _size(body)
            furniture = scene.furniture.get(body.name) if scene is not None else None
            if furniture is not None:  # the exact oriented box, not its axis-aligned bounds
                orientation, scale = quat_from_yaw(furniture.yaw), furniture.size
                center = (furniture.position[0], furniture.position[1], furniture.size[2] / 2.0)
            is_open = body.name in open_bodies
            color = (SURFACE_RGBA if body.type != CONTAINER
                     else CONTAINER_OPEN_RGBA if is_open else CONTAINER_CLOSED_RGBA)
            markers.add("furniture", CUBE, center, orientation, scale, color)
            label = body.name + ((" (open)" if is_open else " (closed)") if body.type == CONTAINER else "")
            markers.label("furniture_names", center[0], center[1], body.aabb_max[2] + TEXT_LIFT, label)
        elif body.type == ROBOT:
            markers.robot(geometry, body)
        else:
            otype = scene.object_types.get(body.type) if scene is not None else None
            markers.named_object(body, (*otype.color, 1.0) if otype is not None else OBJECT_RGBA)
    return markers.out


def markers_from_problem(problem: ProblemSpec, geometry: GeometrySnapshot,
                         frame_id: str = "map") -> list[MarkerSpec]:
    """A G-TAMP problem (:class:`~llm_planner.domains.gtamp.domain.ProblemSpec`) in the state the geometry
    shows: walls and named regions of its layout, doors open or closed, named objects, the robot."""
    markers = _Markers(frame_id)
    layout = problem.layout
    for wall in layout.walls:
        markers.add("walls", CUBE, (wall.center[0], wall.center[1], wall.height / 2.0), IDENTITY,
                    (wall.size[0], wall.size[1], wall.height), WALL_RGBA)
    for region in layout.regions:
        markers.add("furniture", CUBE, (region.center[0], region.center[1], region.height / 2.0),
                    quat_from_yaw(region.heading), (region.depth, region.width, region.height), region.color)
        markers.label("furniture_names", region.center[0], region.center[1], region.height + TEXT_LIFT, region.name)
    bodies = {b.name: b for b in geometry.bodies}
    for door in layout.doors:
        body = bodies.get(door.name)
        if body is None:
            continue
        is_open = door.is_open_at(body.position)
        markers.box("doors", body, DOOR_OPEN_RGBA if is_open else DOOR_CLOSED_RGBA)
        center = body.aabb_center
        markers.label("door_names", center[0], center[1], body.aabb_max[2] + TEXT_LIFT,
                      f"{door.name} ({'open' if is_open else 'closed'})")
    for spec in problem.objects:
        if spec.name in bodies:
            markers.named_object(bodies[spec.name], spec.color)
    if ROBOT in bodies:
        markers.robot(geometry, bodies[ROBOT])
    return markers.out


def yaw_of_marker(marker: MarkerSpec) -> float:
    """The yaw of a marker's orientation (for tests and checks)."""
    x, y, z, w = marker.orientation
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def _size(body: BodyGeometry) -> Vec3:
    return vec3(hi - lo for lo, hi in zip(body.aabb_min, body.aabb_max, strict=True))
