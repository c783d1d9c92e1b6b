"""Where the robot goes for each place of a household scene: one pose per room and per furniture,
in the ``map`` frame (no PyBullet here).

A walk of a plan is a ``navigate_to_pose`` goal to one of these poses (the robot contract,
``docs/guides/robot.md``): a furniture's is where the robot stands to work at it (perception reads
the robot there as CLOSE to it), a room's is a free spot in it, near no furniture. The scene file
gives them (``approach: [x, y, yaw]`` on a room or a furniture); where it does not, the layout
derives them as the simulator does (:func:`llm_planner.domains.household.sim.layout.scene_layout`,
:func:`llm_planner.domains.household.sim.check.check_layout`), so a scene file with the positions
and sizes of one's own furniture is all the planner needs to know of a map.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from llm_planner.domains.household.sim.check import check_layout
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.sim.layout import scene_layout
from llm_planner.domains.household.world.scene import Scene
from llm_planner.errors import SceneError

#: The frame of every place pose (REP 105's fixed world frame).
MAP_FRAME = "map"

#: Where a pose comes from: the scene file's ``approach`` entry, or the layout's derivation.
Source = Literal["scene", "layout"]


@dataclass(frozen=True)
class PlacePose:
    """The pose the robot goes to for a room or a furniture (map frame, metres and radians)."""

    name: str
    x: float
    y: float
    yaw: float
    source: Source

    def quaternion(self) -> tuple[float, float, float, float]:
        """The yaw as a quaternion (x, y, z, w) about the map's z axis."""
        return (0.0, 0.0, math.sin(self.yaw / 2.0), math.cos(self.yaw / 2.0))

    def distance(self, x: float, y: float) -> float:
        return math.hypot(self.x - x, self.y - y)


@dataclass(frozen=True)
class PlacePoses:
    """Every place's pose of one scene, and the places the layout could not give one (with why)."""

    poses: dict[str, PlacePose]
    missing: dict[str, str]

    def __getitem__(self, name: str) -> PlacePose:
        try:
            return self.poses[name]
        except KeyError:
            why = self.missing.get(name, "it is no room or furniture of the scene")
            raise SceneError(f"no pose for '{name}': {why}; give it as approach: [x, y, yaw] in the scene file "
                             "(docs/guides/robot.md)") from None

    def nearest(self, x: float, y: float, tolerance: float, names: frozenset[str] | None = None) -> str | None:
        """The place (among ``names``, default all) whose pose is nearest (x, y), if within ``tolerance``."""
        best, dist = None, tolerance
        for name, pose in self.poses.items():
            if names is None or name in names:
                d = pose.distance(x, y)
                if d <= dist:
                    best, dist = name, d
        return best


#: Place poses computed per scene object (kept with it, so its id is not reused while cached).
_CACHE: dict[int, tuple[Scene, PlacePoses]] = {}
_CACHE_SIZE = 16


def place_poses(scene: Scene) -> PlacePoses:
    """The pose of every room and furniture of ``scene`` (see the module docstring); computed once
    per scene. A place the layout cannot give a pose to is in ``missing`` with the reason."""
    hit = _CACHE.get(id(scene))
    if hit is not None and hit[0] is scene:
        return hit[1]
    poses = _compute(scene)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[id(scene)] = (scene, poses)
    return poses


def _compute(scene: Scene) -> PlacePoses:
    cfg = load_sim_config()
    poses: dict[str, PlacePose] = {}
    missing: dict[str, str] = {}
    check = check_layout(scene, cfg)
    for room, spec in scene.rooms.items():
        if spec.approach is not None:
            poses[room] = PlacePose(room, *spec.approach, source="scene")
        elif room in check.room_spots:
            x, y = check.room_spots[room]
            poses[room] = PlacePose(room, x, y, 0.0, source="layout")
        else:
            missing[room] = "the layout found no free spot for the robot in it (llm-planner scene check says why)"
    try:
        layouts = scene_layout(scene, cfg)
    except SceneError as exc:
        layouts = {}
        for furniture in scene.furniture:
            missing[furniture] = str(exc).splitlines()[0]
    for furniture, layout in layouts.items():
        source: Source = "scene" if scene.furniture[furniture].approach is not None else "layout"
        a = layout.approach
        poses[furniture] = PlacePose(furniture, a.x, a.y, a.yaw, source=source)
    return PlacePoses(poses, missing)
