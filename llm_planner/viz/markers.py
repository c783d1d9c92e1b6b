"""The world as RViz markers, described in plain data (no ROS): the simulator node converts each
:class:`MarkerSpec` into a ``visualization_msgs/Marker`` field by field and publishes the list as a
``MarkerArray`` on a latched topic after every skill.

:func:`markers_from_geometry` reads only what the sensors report (a
:class:`~llm_planner.sim.geometry.GeometrySnapshot`): walls, furniture (containers coloured by
their door: open or closed), objects with text labels, the robot with its heading. With the
scene, furniture boxes take their exact oriented size instead of the axis-aligned bounding box.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from llm_planner.sim.geometry import ROBOT, WALL, GeometrySnapshot, quat_from_yaw
from llm_planner.world.scene import CONTAINER, FURNITURE_KINDS

#: Marker types, named as visualization_msgs/Marker names its constants.
CUBE, CYLINDER, ARROW, TEXT_VIEW_FACING = "CUBE", "CYLINDER", "ARROW", "TEXT_VIEW_FACING"
RGBA = tuple[float, float, float, float]

#: Colours (r, g, b, a) and sizes of the markers.
WALL_RGBA: RGBA = (0.45, 0.42, 0.4, 1.0)
SURFACE_RGBA: RGBA = (0.6, 0.45, 0.3, 1.0)
CONTAINER_CLOSED_RGBA: RGBA = (0.62, 0.66, 0.72, 1.0)
CONTAINER_OPEN_RGBA: RGBA = (0.55, 0.8, 0.55, 1.0)
ROBOT_RGBA: RGBA = (0.05, 0.25, 0.85, 1.0)
TEXT_RGBA: RGBA = (1.0, 1.0, 1.0, 1.0)
TEXT_HEIGHT = 0.12       # metres, furniture names
OBJECT_TEXT_HEIGHT = 0.07
TEXT_LIFT = 0.15         # text above the top of its body
ARROW_LENGTH = 0.5


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


def markers_from_geometry(geometry: GeometrySnapshot, scene=None, frame_id: str = "map") -> list[MarkerSpec]:  # noqa: ANN001
    """Markers for every body, a name above each furniture and object, and the robot's heading."""
    out: list[MarkerSpec] = []
    open_bodies = {j.body for j in geometry.joints if j.is_open}
    ids: dict[str, int] = {}

    def add(ns: str, type_: str, position, orientation, scale, color: RGBA, text: str = "") -> None:  # noqa: ANN001
        ids[ns] = ids.get(ns, -1) + 1
        out.append(MarkerSpec(ns, ids[ns], type_, tuple(position), tuple(orientation), tuple(scale), color, text,
                              frame_id))

    for body in geometry.bodies:
        center = body.aabb_center
        size = tuple(hi - lo for lo, hi in zip(body.aabb_min, body.aabb_max))
        if body.type == WALL:
            add("walls", CUBE, center, (0.0, 0.0, 0.0, 1.0), size, WALL_RGBA)
        elif body.type in FURNITURE_KINDS:
            orientation, scale = (0.0, 0.0, 0.0, 1.0), size
            furniture = scene.furniture.get(body.name) if scene is not None else None
            if furniture is not None:  # the exact oriented box, not its axis-aligned bounds
                orientation, scale = quat_from_yaw(furniture.yaw), furniture.size
                center = (furniture.position[0], furniture.position[1], furniture.size[2] / 2.0)
            is_open = body.name in open_bodies
            color = (CONTAINER_OPEN_RGBA if is_open else CONTAINER_CLOSED_RGBA) if body.type == CONTAINER else SURFACE_RGBA
            add("furniture", CUBE, center, orientation, scale, color)
            label = body.name + ((" (open)" if is_open else " (closed)") if body.type == CONTAINER else "")
            add("furniture_names", TEXT_VIEW_FACING, (center[0], center[1], body.aabb_max[2] + TEXT_LIFT),
                (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, TEXT_HEIGHT), TEXT_RGBA, label)
        elif body.type == ROBOT:
            add("robot", CYLINDER, center, (0.0, 0.0, 0.0, 1.0), (max(size[0], size[1]), max(size[0], size[1]), size[2]),
                ROBOT_RGBA)
            yaw = geometry.robot_yaw
            add("robot", ARROW, (geometry.robot_position[0], geometry.robot_position[1], body.aabb_max[2] + 0.05),
                quat_from_yaw(yaw), (ARROW_LENGTH, 0.05, 0.05), ROBOT_RGBA)
            add("robot_name", TEXT_VIEW_FACING, (center[0], center[1], body.aabb_max[2] + TEXT_LIFT),
                (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, TEXT_HEIGHT), TEXT_RGBA,
                "robot" + (f" holding {geometry.held_object}" if geometry.held_object else ""))
        else:
            otype = scene.object_types.get(body.type) if scene is not None else None
            color = (*otype.color, 1.0) if otype is not None else (0.8, 0.2, 0.2, 1.0)
            add("objects", CUBE, center, (0.0, 0.0, 0.0, 1.0), size, color)  # type: ignore[arg-type]
            add("object_names", TEXT_VIEW_FACING, (center[0], center[1], body.aabb_max[2] + TEXT_LIFT / 2.0),
                (0.0, 0.0, 0.0, 1.0), (0.0, 0.0, OBJECT_TEXT_HEIGHT), TEXT_RGBA, body.name)
    return out


def yaw_of_marker(marker: MarkerSpec) -> float:
    """The yaw of a marker's orientation (for tests and checks)."""
    x, y, z, w = marker.orientation
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
