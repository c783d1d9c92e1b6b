"""Perception: symbolic predicates from geometry only (no PyBullet, no simulator bookkeeping).

Input is a :class:`~llm_planner.domains.geometry.GeometrySnapshot` (poses, AABBs, door joint
positions, the gripper's attachment) plus the map (scene file and simulator configuration, which
say where rooms are and how furniture is shaped). Rules:

* robot room: the room rectangle containing the robot base;
* CLOSE (``near``): the furniture whose approach pose is within ``near_tolerance`` of the base;
* INSIDE: the object's AABB centre lies in a container's cavity;
* ON: the AABB centre lies over a surface's top and the AABB bottom is at the top's height
  (within ``on_tolerance``), or above it by at most ``stack_height``: an object at rest there lies
  on a stack of objects on that surface (the snapshot is taken with every object at rest);
* OPEN / CLOSED: a container's door joint beyond / below its open threshold;
* ON / OFF (a switchable thing, e.g. ``ON(tv)``): the thing's power reading, a joint
  ``<thing>/power`` (:func:`power_joint`) beyond / below its threshold, as a door's joint says open
  or closed; a thing the sensors give no reading of is neither;
* HOLDING: the object the gripper's attachment constraint holds;
* visibility (partial view): objects on surfaces of the robot's room and inside open containers
  of its room, and the on/off state of the switchable things of its room, exactly as the symbolic
  model's observation.

>>> # typical use
>>> # obs = perceive(scene, sim.geometry()); predicates(obs)
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry
from llm_planner.domains.household.sim.config import SimConfig, load_sim_config
from llm_planner.domains.household.sim.layout import Frame2D, FurnitureLayout, scene_layout
from llm_planner.domains.household.world.scene import Scene
from llm_planner.domains.household.world.symbolic import INSIDE, ON, Household, Observation, State
from llm_planner.errors import LlmPlannerError

Predicate = tuple[str, tuple[str, ...]]
ROBOT = "robot"


class PerceptionError(LlmPlannerError):
    """The geometry cannot be read as a symbolic state (e.g. an object rests on no furniture)."""


# ------------------------------------------------------------------------------ primitives
def furniture_frames(scene: Scene, geometry: GeometrySnapshot) -> dict[str, Frame2D]:
    """Measured pose of every furniture body of the snapshot."""
    return {b.name: Frame2D(b.position[0], b.position[1], b.yaw) for b in geometry.bodies if b.name in scene.furniture}


def layouts_from(scene: Scene, geometry: GeometrySnapshot, cfg: SimConfig) -> dict[str, FurnitureLayout]:
    return scene_layout(scene, cfg, furniture_frames(scene, geometry))


def room_at(scene: Scene, x: float, y: float) -> str | None:
    """The room whose rectangle contains the point (the one it is deepest inside on a shared edge)."""
    best, depth = None, -1.0
    for room in scene.rooms.values():
        if room.contains(x, y):
            xmin, ymin, xmax, ymax = room.rect
            d = min(x - xmin, xmax - x, y - ymin, ymax - y)
            if d > depth:
                best, depth = room.name, d
    return best


def near_at(layouts: Mapping[str, FurnitureLayout], x: float, y: float, tolerance: float) -> str | None:
    """The furniture whose approach pose is closest to (x, y), if within ``tolerance``."""
    best, dist = None, tolerance
    for name, layout in layouts.items():
        d = ((layout.approach.x - x) ** 2 + (layout.approach.y - y) ** 2) ** 0.5
        if d <= dist:
            best, dist = name, d
    return best


_BOUNDS: dict[int, tuple[FurnitureLayout, tuple[float, float, float, float]]] = {}


def _xy_bounds(layout: FurnitureLayout) -> tuple[float, float, float, float]:
    """World bounding box of a furniture's footprint (a quick rejection test), memoised by identity."""
    hit = _BOUNDS.get(id(layout))
    if hit is not None and hit[0] is layout:
        return hit[1]
    r = (layout.size[0] ** 2 + layout.size[1] ** 2) ** 0.5 / 2.0
    bounds = (layout.frame.x - r, layout.frame.y - r, layout.frame.x + r, layout.frame.y + r)
    if len(_BOUNDS) > 4096:
        _BOUNDS.clear()
    _BOUNDS[id(layout)] = (layout, bounds)
    return bounds


def support_of(layouts: Mapping[str, FurnitureLayout], body: BodyGeometry, cfg: SimConfig) -> tuple[str, str] | None:
    """(INSIDE|ON, furniture) where the body rests directly, or None."""
    cx, cy, cz = body.aabb_center
    for name, layout in layouts.items():
        x0, y0, x1, y1 = _xy_bounds(layout)
        if not (x0 <= cx <= x1 and y0 <= cy <= y1):
            continue
        lx, ly = layout.frame.to_local(cx, cy)
        d2, w2 = layout.size[0] / 2.0, layout.size[1] / 2.0
        if abs(lx) > d2 or abs(ly) > w2:
            continue
        if layout.cavity is not None:
            if layout.cavity.contains((lx, ly, cz)):
                return (INSIDE, name)
        elif -cfg.perception.on_tolerance <= body.aabb_min[2] - layout.top <= cfg.perception.stack_height:
            return (ON, name)
    return None


def supports(layouts: Mapping[str, FurnitureLayout], objects: Sequence[BodyGeometry],
             cfg: SimConfig) -> dict[str, tuple[str, str]]:
    """(INSIDE|ON, furniture) of every object that rests somewhere; objects resting nowhere are left out."""
    return {b.name: s for b in objects if (s := support_of(layouts, b, cfg)) is not None}


#: The last part of a switchable thing's power joint (``tv/power``): 1 when on, 0 when off.
POWER = "power"
#: A power joint reads on above this.
POWER_THRESHOLD = 0.5


def power_joint(thing: str, on: bool) -> JointGeometry:
    """The power reading of a switchable thing (a joint ``<thing>/power``: 1 on, 0 off)."""
    return JointGeometry(f"{thing}/{POWER}", 1.0 if on else 0.0, POWER_THRESHOLD)


def is_power(joint: JointGeometry) -> bool:
    """A switchable thing's power reading, not a door."""
    return joint.name.endswith(f"/{POWER}")


def open_containers(scene: Scene, geometry: GeometrySnapshot) -> frozenset[str]:
    """Containers all of whose door joints are past their open thresholds."""
    state: dict[str, bool] = {}
    for joint in geometry.joints:
        if joint.body in scene.furniture and not is_power(joint):
            state[joint.body] = state.get(joint.body, True) and joint.is_open
    return frozenset(c for c, is_open in state.items() if is_open)


def switch_states(scene: Scene, geometry: GeometrySnapshot) -> dict[str, bool]:
    """Whether each switchable thing of the scene with a power reading is on."""
    return {j.body: j.is_open for j in geometry.joints if is_power(j) and j.body in scene.switchables}


def _robot_room(scene: Scene, geometry: GeometrySnapshot) -> str:
    x, y, _ = geometry.robot_position
    room = room_at(scene, x, y)
    if room is None:
        raise PerceptionError(f"the robot base at ({x:.2f}, {y:.2f}) lies in no room of {scene.name}")
    return room


def _furniture_rooms(scene: Scene, layouts: Mapping[str, FurnitureLayout]) -> dict[str, str | None]:
    return {n: room_at(scene, lay.frame.x, lay.frame.y) for n, lay in layouts.items()}


# ------------------------------------------------------------------------------ public API
def perceive(scene: Scene, geometry: GeometrySnapshot, config: SimConfig | None = None) -> Observation:
    """The robot's partial observation (what :meth:`Household.observe` returns), from geometry."""
    cfg = config or load_sim_config()
    layouts = layouts_from(scene, geometry, cfg)
    room = _robot_room(scene, geometry)
    x, y, _ = geometry.robot_position
    rooms = _furniture_rooms(scene, layouts)
    opened = open_containers(scene, geometry)
    containers = frozenset(n for n, lay in layouts.items() if lay.is_container and rooms[n] == room)
    surfaces = frozenset(n for n, lay in layouts.items() if not lay.is_container and rooms[n] == room)
    seen = surfaces | (containers & opened)
    relations = {(rel, obj, place) for obj, (rel, place) in _object_supports(scene, geometry, layouts, cfg).items()
                 if place in seen}
    switched = {d: on for d, on in switch_states(scene, geometry).items() if rooms.get(scene.switchables[d].at) == room}
    return Observation(
        room=room,
        near=near_at(layouts, x, y, cfg.perception.near_tolerance),
        holding=geometry.held_object,
        relations=frozenset(relations),
        open_containers=containers & opened,
        closed_containers=containers - opened,
        seen_places=seen,
        switched_on=frozenset(d for d, on in switched.items() if on),
        switched_off=frozenset(d for d, on in switched.items() if not on),
    )


def perceive_full(scene: Scene, geometry: GeometrySnapshot, household: Household,
                  config: SimConfig | None = None) -> State:
    """The full symbolic state from geometry (privileged view: every object, every container).

    Raises PerceptionError when an object that is not held rests on no furniture."""
    cfg = config or load_sim_config()
    layouts = layouts_from(scene, geometry, cfg)
    x, y, _ = geometry.robot_position
    by_name = {b.name: b for b in geometry.bodies}
    found = _object_supports(scene, geometry, layouts, cfg)
    placement: list[str | None] = []
    for obj in household.objects:
        if obj == geometry.held_object:
            placement.append(None)
            continue
        body = by_name.get(obj)
        if body is None:
            raise PerceptionError(f"the geometry has no body '{obj}'")
        if obj not in found:
            c = body.aabb_center
            raise PerceptionError(f"{obj} at ({c[0]:.2f}, {c[1]:.2f}, {c[2]:.2f}) rests on no furniture")
        placement.append(found[obj][1])
    return State(
        room=_robot_room(scene, geometry),
        near=near_at(layouts, x, y, cfg.perception.near_tolerance),
        holding=geometry.held_object,
        placement=tuple(placement),
        opened=open_containers(scene, geometry),
        switched_on=frozenset(d for d, on in switch_states(scene, geometry).items() if on),
    )


#: Every predicate :func:`predicates` writes, the names a household robot's perception/state carries
#: (docs/guides/robot.md).
PERCEIVED_PREDICATES = frozenset({"IN_ROOM", "CLOSE", "HOLDING", "INSIDE", "ON", "OPEN", "CLOSED", "OFF"})


def predicates(observation: Observation) -> list[Predicate]:
    """The observation as ground predicates: IN_ROOM, CLOSE, HOLDING, INSIDE, ON, OPEN, CLOSED, and
    ON / OFF of a switchable thing with one argument (``ON(tv)``; ``ON(mug, table)`` is a placement).

    >>> from llm_planner.domains.household.world.symbolic import Observation
    >>> obs = Observation("kitchen", "fridge", None, frozenset({("inside", "apple_1", "fridge")}),
    ...                   frozenset({"fridge"}), frozenset(), frozenset({"fridge"}))
    >>> predicates(obs)[:3]
    [('CLOSE', ('robot', 'apple_1')), ('CLOSE', ('robot', 'fridge')), ('INSIDE', ('apple_1', 'fridge'))]
    """
    out: set[Predicate] = {("IN_ROOM", (ROBOT, observation.room))}
    if observation.near is not None:
        out.add(("CLOSE", (ROBOT, observation.near)))
    if observation.holding is not None:
        out.add(("HOLDING", (ROBOT, observation.holding)))
    for rel, obj, place in observation.relations:
        out.add(("INSIDE" if rel == INSIDE else "ON", (obj, place)))
        if place == observation.near:
            out.add(("CLOSE", (ROBOT, obj)))
    out.update(("OPEN", (c,)) for c in observation.open_containers)
    out.update(("CLOSED", (c,)) for c in observation.closed_containers)
    out.update(("ON", (d,)) for d in observation.switched_on)
    out.update(("OFF", (d,)) for d in observation.switched_off)
    return sorted(out)


def _object_supports(scene: Scene, geometry: GeometrySnapshot, layouts: Mapping[str, FurnitureLayout],
                     cfg: SimConfig) -> dict[str, tuple[str, str]]:
    objects = [b for b in geometry.bodies
               if b.name not in scene.furniture and b.name != geometry.held_object and _is_object(scene, b.name)]
    return supports(layouts, objects, cfg)


def _is_object(scene: Scene, name: str) -> bool:
    try:
        scene.type_of(name)
    except KeyError:
        return False
    return True
