"""Turn a scene layout into PyBullet bodies: floor, room tiles, walls, furniture, objects.

Walls and furniture are static (mass 0). A container is one multibody: a hollow box on a plinth
with shelves (a compound collision shape) and a door panel on a prismatic joint (link 0) that
covers the front opening when closed. A surface is a solid box. Objects are dynamic boxes, or
upright cylinders for types whose x and y sizes are (almost) equal.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import quat_from_yaw
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.sim.layout import Box, FurnitureLayout, Wall
from llm_planner.domains.household.world.scene import ObjectType, Scene

Vec3 = tuple[float, float, float]

#: Link index of a container's door panel.
DOOR_LINK = 0


@dataclass
class WorldBodies:
    """PyBullet ids of everything built, by name."""

    walls: dict[str, int] = field(default_factory=dict)
    furniture: dict[str, int] = field(default_factory=dict)
    objects: dict[str, int] = field(default_factory=dict)
    floor: int = -1

    @property
    def static(self) -> dict[str, int]:
        return {**self.walls, **self.furniture}


def build_world(client: int, scene: Scene, layouts: dict[str, FurnitureLayout], walls: list[Wall],
                cfg: SimConfig) -> WorldBodies:
    bodies = WorldBodies()
    bodies.floor = _floor(client, scene, cfg)
    for wall in walls:
        bodies.walls[wall.name] = _wall(client, wall, cfg)
    for name, layout in layouts.items():
        build = _container if layout.is_container else _surface
        bodies.furniture[name] = build(client, layout, cfg)
    for otype in scene.object_types.values():
        for i in range(1, otype.count + 1):
            bodies.objects[f"{otype.name}_{i}"] = _object(client, otype, cfg)
    return bodies


def is_round(otype: ObjectType, cfg: SimConfig) -> bool:
    """Objects whose footprint is (nearly) square are modelled as upright cylinders."""
    return abs(otype.size[0] - otype.size[1]) < cfg.world.round_aspect


def _rgba(color: Iterable[float]) -> list[float]:
    return [float(c) for c in color] + [1.0]


def _floor(client: int, scene: Scene, cfg: SimConfig) -> int:
    plane = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=client)
    floor = p.createMultiBody(0, plane, physicsClientId=client)
    p.changeVisualShape(floor, -1, rgbaColor=_rgba(cfg.world.colors["floor"]), physicsClientId=client)
    palette = cfg.world.colors["rooms"]
    for k, room in enumerate(scene.rooms.values()):  # visual-only tiles: the rooms in a snapshot
        xmin, ymin, xmax, ymax = room.rect
        half = [(xmax - xmin) / 2.0, (ymax - ymin) / 2.0, 0.0005]
        vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=_rgba(palette[k % len(palette)]),
                                  physicsClientId=client)
        p.createMultiBody(0, -1, vis, basePosition=[(xmin + xmax) / 2.0, (ymin + ymax) / 2.0, 0.0005],
                          physicsClientId=client)
    return floor


def _static_box(client: int, center: Vec3, half: Vec3, yaw: float, color: Iterable[float]) -> int:
    col = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=client)
    vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=_rgba(color), physicsClientId=client)
    return p.createMultiBody(0, col, vis, basePosition=center, baseOrientation=quat_from_yaw(yaw),
                             physicsClientId=client)


def _wall(client: int, wall: Wall, cfg: SimConfig) -> int:
    h = cfg.world.wall_height
    r = wall.rect
    return _static_box(client, (r.cx, r.cy, h / 2.0), (r.hx, r.hy, h / 2.0), r.yaw, cfg.world.colors["wall"])


def _surface(client: int, layout: FurnitureLayout, cfg: SimConfig) -> int:
    d, w, h = layout.size
    f = layout.frame
    return _static_box(client, (f.x, f.y, h / 2.0), (d / 2.0, w / 2.0, h / 2.0), f.yaw, cfg.world.colors["surface"])


def container_parts(layout: FurnitureLayout, cfg: SimConfig) -> list[Box]:
    """The static boxes of a container (local frame): plinth and bottom, top, back, sides, shelves."""
    d, w, h = layout.size
    wt, t = cfg.world.container_wall, cfg.world.door_thickness
    front = d / 2.0 - t
    floor = cfg.world.container_plinth + wt
    return [
        Box((-d / 2.0, -w / 2.0, 0.0), (front, w / 2.0, floor)),  # plinth and bottom
        Box((-d / 2.0, -w / 2.0, h - wt), (front, w / 2.0, h)),  # top
        Box((-d / 2.0, -w / 2.0, floor), (-d / 2.0 + wt, w / 2.0, h - wt)),  # back
        Box((-d / 2.0 + wt, -w / 2.0, floor), (front, -w / 2.0 + wt, h - wt)),  # right side
        Box((-d / 2.0 + wt, w / 2.0 - wt, floor), (front, w / 2.0, h - wt)),  # left side
        *layout.shelves,
    ]


def _container(client: int, layout: FurnitureLayout, cfg: SimConfig) -> int:
    parts = container_parts(layout, cfg)
    halves = [list(b.half) for b in parts]
    centers = [list(b.center) for b in parts]
    col = p.createCollisionShapeArray([p.GEOM_BOX] * len(parts), halfExtents=halves,
                                      collisionFramePositions=centers, physicsClientId=client)
    vis = p.createVisualShapeArray([p.GEOM_BOX] * len(parts), halfExtents=halves,
                                   visualFramePositions=centers, physicsClientId=client)
    door = layout.door
    assert door is not None
    door_col = p.createCollisionShape(p.GEOM_BOX, halfExtents=list(door.box.half), physicsClientId=client)
    door_vis = p.createVisualShape(p.GEOM_BOX, halfExtents=list(door.box.half),
                                   rgbaColor=_rgba(cfg.world.colors["door"]), physicsClientId=client)
    f = layout.frame
    body = p.createMultiBody(
        0.0, col, vis, basePosition=[f.x, f.y, 0.0], baseOrientation=quat_from_yaw(f.yaw),
        linkMasses=[0.0], linkCollisionShapeIndices=[door_col], linkVisualShapeIndices=[door_vis],
        linkPositions=[list(door.box.center)], linkOrientations=[[0, 0, 0, 1]],
        linkInertialFramePositions=[[0, 0, 0]], linkInertialFrameOrientations=[[0, 0, 0, 1]],
        linkParentIndices=[0], linkJointTypes=[p.JOINT_PRISMATIC], linkJointAxis=[[0, 0, 1]],
        physicsClientId=client)
    p.changeVisualShape(body, -1, rgbaColor=_rgba(cfg.world.colors["container"]), physicsClientId=client)
    return body


def _object(client: int, otype: ObjectType, cfg: SimConfig) -> int:
    sx, sy, sz = otype.size
    color = [*otype.color, 1.0]
    if is_round(otype, cfg):
        radius = (sx + sy) / 4.0
        col = p.createCollisionShape(p.GEOM_CYLINDER, radius=radius, height=sz, physicsClientId=client)
        vis = p.createVisualShape(p.GEOM_CYLINDER, radius=radius, length=sz, rgbaColor=color, physicsClientId=client)
    else:
        half = [sx / 2.0, sy / 2.0, sz / 2.0]
        col = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=client)
        vis = p.createVisualShape(p.GEOM_BOX, halfExtents=half, rgbaColor=color, physicsClientId=client)
    body = p.createMultiBody(cfg.world.object_mass, col, vis, basePosition=[0, 0, -10.0], physicsClientId=client)
    p.changeDynamics(body, -1, lateralFriction=cfg.world.object_friction, physicsClientId=client)
    return body
