"""G-TAMP problems as data: a layout file and one YAML file per problem under ``config/gtamp/``.

Problem schema (metres, degrees)::

    name: P2
    layout: kitchen_hall                  # config/gtamp/<layout>.yaml (or a path)
    description: ...                      # what the problem asks
    challenge: ...                        # the challenge of seed Figure 4 it poses
    time_budget_s: 300
    robot: {at: counter2}                 # a region's (or door side's) base pose, or {pose: [x, y, deg]}
    doors: {kitchen_door: closed}         # open | closed (default closed)
    objects:
      salter: {shape: cylinder, size: [0.03, 0.12], on: counter2, at: [0.15, 0.0], yaw: 0,
               color: [1, 1, 1, 1], grasp_offset: [0, 0, 0]}
    holding: {object: grill, pitch: 0, yaw: 0}    # optional: the robot starts holding it
    region_overrides: {counter2: {width: 0.7}}     # optional: resize a region of the layout
    goal:
      - [salter, right_of, bottle1]

``at: [u, v]`` is the position on the region in the region frame: ``u`` away from the robot,
``v`` to the robot's left, from the region's centre.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

import yaml

from llm_planner.domains.gtamp.check import ProblemCheck, check_problem
from llm_planner.domains.gtamp.domain import (
    DIRECTIONS,
    DoorSide,
    DoorSpec,
    GoalAtom,
    GState,
    LayoutSpec,
    ObjectSpec,
    ObjPose,
    Pose2D,
    ProblemSpec,
    RegionSpec,
    RobotSpec,
    RoomSpec,
    Shape,
    WallSpec,
)
from llm_planner.domains.gtamp.geometry import make_grasp
from llm_planner.errors import GoalError, SceneError
from llm_planner.paths import config_dir

SHAPES = ("box", "cylinder")
#: Keys each entry of a problem / layout file may have (YAML 1.1 reads a bare key `on` as true).
PROBLEM_KEYS = ("name", "layout", "description", "challenge", "time_budget_s", "robot", "doors", "objects", "holding",
                "region_overrides", "goal")
OBJECT_KEYS = ("shape", "size", "color", "on", True, "at", "yaw", "grasp_offset")
LAYOUT_KEYS = ("name", "rooms", "walls", "regions", "doors", "waypoints", "robot")
REGION_KEYS = ("room", "center", "heading_deg", "depth", "width", "height", "standoff", "color")
#: gap left between a placed object and its supporting surface
SUPPORT_GAP = 0.002


def gtamp_dir() -> Path:
    return config_dir() / "gtamp"


def problem_names() -> list[str]:
    """Names of the shipped problems (``config/gtamp/P*.yaml``), in order."""
    return sorted((f.stem for f in gtamp_dir().glob("P*.yaml")), key=lambda s: (len(s), s))


def resolve_problem_path(name_or_path: str) -> Path:
    """The YAML file of a G-TAMP problem or layout given by name (``P2``) or path; SceneError naming
    the shipped problems when there is none."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") and path.exists():
        return path
    candidate = gtamp_dir() / f"{name_or_path}.yaml"
    if candidate.exists():
        return candidate
    raise SceneError(f"no G-TAMP file '{name_or_path}' (looked for {path} and {candidate}; "
                     f"shipped problems: {', '.join(problem_names())})")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise SceneError(f"{path}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise SceneError(f"{path}: expected a mapping at the top level")
    return data


def _floats(value: Any, n: int, where: str) -> tuple[float, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise SceneError(f"{where}: expected a list of {n} numbers, got {value!r}")
    try:
        return tuple(float(v) for v in value)
    except (TypeError, ValueError) as exc:
        raise SceneError(f"{where}: expected numbers, got {value!r}") from exc


def _xy(value: Any, where: str) -> tuple[float, float]:
    x, y = _floats(value, 2, where)
    return x, y


def _xyz(value: Any, where: str) -> tuple[float, float, float]:
    x, y, z = _floats(value, 3, where)
    return x, y, z


def _rgba(value: Any) -> tuple[float, float, float, float]:
    # the colour goes to PyBullet as written (unchecked, as before): the cast only names its type
    return cast("tuple[float, float, float, float]", tuple(value))


def _known_keys(spec: Mapping[Any, Any], allowed: tuple, where: str) -> None:
    """Refuse a key the schema does not have (a typo would otherwise be ignored silently)."""
    for key in spec:
        if key not in allowed:
            names = ", ".join("on" if k is True else str(k) for k in allowed)
            raise SceneError(f"{where}: unknown key '{key}' (expected: {names})")


def _pose(value: Any, where: str) -> Pose2D:
    x, y, deg = _floats(value, 3, where)
    return Pose2D(x, y, math.radians(deg))


def load_layout(name_or_path: str) -> LayoutSpec:
    """Parse a layout file (rooms, walls, regions, doors, robot overrides, roadmap waypoints)."""
    path = resolve_problem_path(name_or_path)
    data = _read(path)
    w = str(path)
    _known_keys(data, LAYOUT_KEYS, w)
    rooms = tuple(RoomSpec(n, *_floats(r, 4, f"{w}: rooms.{n}")) for n, r in (data.get("rooms") or {}).items())
    walls = tuple(WallSpec(_xy(x.get("center"), f"{w}: walls[{i}].center"),
                           _xy(x.get("size"), f"{w}: walls[{i}].size"),
                           float(x.get("height", 1.5)))
                  for i, x in enumerate(data.get("walls") or []))
    regions = tuple(_region(n, r, w, {room.name for room in rooms}) for n, r in (data.get("regions") or {}).items())
    doors = tuple(_door(n, d, w) for n, d in (data.get("doors") or {}).items())
    robot_overrides = data.get("robot") or {}
    try:
        overrides: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in robot_overrides.items()}
        robot = RobotSpec(**overrides)
    except TypeError as exc:
        raise SceneError(f"{w}: robot: {exc}") from exc
    waypoints = tuple(_xy(p, f"{w}: waypoints") for p in data.get("waypoints") or [])
    if not regions:
        raise SceneError(f"{w}: a layout needs at least one region")
    return LayoutSpec(str(data.get("name", path.stem)), rooms, walls, regions, doors, robot, waypoints)


def _region(name: str, r: Mapping[str, Any], where: str, rooms: set[str]) -> RegionSpec:
    w = f"{where}: regions.{name}"
    if not isinstance(r, Mapping):
        raise SceneError(f"{w}: expected a mapping")
    _known_keys(r, REGION_KEYS, w)
    if r.get("room") not in rooms:
        raise SceneError(f"{w}: unknown room {r.get('room')!r} (rooms: {', '.join(sorted(rooms))})")
    try:
        return RegionSpec(name, str(r["room"]), _xy(r["center"], f"{w}.center"),
                          math.radians(float(r["heading_deg"])), float(r["depth"]), float(r["width"]),
                          float(r["height"]), float(r.get("standoff", 0.35)),
                          _rgba(r.get("color", (0.6, 0.45, 0.3, 1.0))))
    except KeyError as exc:
        raise SceneError(f"{w}: missing key {exc}") from exc


def _door(name: str, d: Mapping[str, Any], where: str) -> DoorSpec:
    w = f"{where}: doors.{name}"
    sides = tuple(DoorSide(room, _pose(s.get("base_pose"), f"{w}.sides.{room}.base_pose"),
                           _xyz(s.get("handle"), f"{w}.sides.{room}.handle"))
                  for room, s in (d.get("sides") or {}).items())
    return DoorSpec(name, _xyz(d.get("size"), f"{w}.size"), _xyz(d.get("closed_center"), f"{w}.closed_center"),
                    _xyz(d.get("open_center"), f"{w}.open_center"), sides)


def load_problem(name_or_path: str, check: bool = True) -> ProblemSpec:
    """Load and validate a problem file; errors name the file and the entry that is wrong.

    ``check`` also runs the geometric checks of :mod:`llm_planner.domains.gtamp.check` (regions clear of
    walls and each other, objects apart, the robot's start free), so the simulator, the nodes
    and the benchmark refuse such a problem with the messages of ``llm-planner scene check``."""
    path = resolve_problem_path(name_or_path)
    data = _read(path)
    w = str(path)
    _known_keys(data, PROBLEM_KEYS, w)
    layout = _override_regions(load_layout(str(data.get("layout", "kitchen_hall"))),
                               data.get("region_overrides") or {}, w)
    objects, poses = _objects(data.get("objects") or {}, layout, w)
    names = [o.name for o in objects]
    doors_open = _doors_open(data.get("doors") or {}, layout, w)
    base = _robot_start(data.get("robot") or {}, layout, w)
    held, grasp = None, None
    if data.get("holding"):
        h = data["holding"]
        obj = h.get("object")
        if obj not in names:
            raise SceneError(f"{w}: holding.object {obj!r} is not an object of the problem")
        held = names.index(obj)
        pose = ObjPose(base.x, base.y, 1.0, base.theta, "")
        grasp, _, _ = make_grasp(objects[held], pose, base.theta, math.radians(float(h.get("pitch", 0.0))),
                                 math.radians(float(h.get("yaw", 0.0))))
        poses[held] = None
    initial = GState(base, tuple(poses), held, grasp, doors_open)
    problem = ProblemSpec(str(data.get("name", path.stem)), layout, tuple(objects), initial, (),
                          str(data.get("description", "")).strip(), str(data.get("challenge", "")).strip(),
                          float(data.get("time_budget_s", 300.0)))
    goal = parse_goal(problem, data.get("goal") or [], where=w)
    problem = problem.with_goal(goal)
    if check:
        errors = check_problem(problem).errors
        if errors:
            lines = tuple(f"{w}: {e}" for e in errors)
            raise SceneError("\n".join(lines), problems=lines)
    return problem


def check_problem_file(path: str | Path) -> ProblemCheck:
    """Load ``path`` (schema and names, raising nothing) and check its geometry: the report of
    ``llm-planner scene check``, with ``problem`` None when the file does not load."""
    try:
        problem = load_problem(str(path), check=False)
    except (SceneError, GoalError) as exc:
        lines = getattr(exc, "problems", ()) or (str(exc),)
        return ProblemCheck(None, list(lines))
    return check_problem(problem)


def _override_regions(layout: LayoutSpec, overrides: Mapping[str, Any], where: str) -> LayoutSpec:
    """A problem may resize a region of the layout (``region_overrides: {counter2: {width: 0.7}}``)."""
    regions = {r.name: r for r in layout.regions}
    allowed = {"width", "depth", "height", "standoff"}
    for name, changes in overrides.items():
        if name not in regions:
            raise SceneError(f"{where}: region_overrides: unknown region {name!r}")
        bad = set(changes) - allowed
        if bad:
            raise SceneError(f"{where}: region_overrides.{name}: only {sorted(allowed)} can change, not {sorted(bad)}")
        sizes: dict[str, Any] = {k: float(v) for k, v in changes.items()}
        regions[name] = replace(regions[name], **sizes)
    return replace(layout, regions=tuple(regions[r.name] for r in layout.regions))


def _objects(spec: Mapping[str, Any], layout: LayoutSpec, where: str) -> tuple[list[ObjectSpec], list[ObjPose | None]]:
    objects: list[ObjectSpec] = []
    poses: list[ObjPose | None] = []
    regions = {r.name: r for r in layout.regions}
    for name, o in spec.items():
        w = f"{where}: objects.{name}"
        if not isinstance(o, Mapping):
            raise SceneError(f"{w}: expected a mapping")
        _known_keys(o, OBJECT_KEYS, w)
        if o.get("shape") not in SHAPES:
            raise SceneError(f"{w}: shape must be one of {SHAPES}, got {o.get('shape')!r}")
        shape = Shape(o["shape"], _floats(o.get("size"), 3 if o["shape"] == "box" else 2, f"{w}.size"))
        obj = ObjectSpec(name, shape, _rgba(o.get("color", (0.8, 0.2, 0.2, 1.0))),
                         _xyz(o.get("grasp_offset", (0, 0, 0)), f"{w}.grasp_offset"))
        objects.append(obj)
        # YAML 1.1 reads the key `on` as the boolean true
        on = o.get("on", o.get(True))
        region = regions.get(on)
        if region is None and on is not None:
            raise SceneError(f"{w}: unknown region {on!r} (regions: {', '.join(regions)})")
        if region is None:
            poses.append(None)
            continue
        u, v = _xy(o.get("at", (0.0, 0.0)), f"{w}.at")
        x, y = region.to_world(u, v)
        if not region.contains(x, y):
            raise SceneError(f"{w}: position {o.get('at')} is off region {region.name}")
        yaw = region.heading + math.radians(float(o.get("yaw", 0.0)))
        poses.append(ObjPose(x, y, region.height + 0.5 * shape.height + SUPPORT_GAP, yaw, region.name))
    return objects, poses


def _doors_open(spec: Mapping[str, Any], layout: LayoutSpec, where: str) -> tuple[bool, ...]:
    known = {d.name for d in layout.doors}
    for name, value in spec.items():
        if name not in known:
            raise SceneError(f"{where}: doors: unknown door {name!r} (doors: {', '.join(sorted(known))})")
        if value not in ("open", "closed"):
            raise SceneError(f"{where}: doors.{name}: expected 'open' or 'closed', got {value!r}")
    return tuple(spec.get(d.name, "closed") == "open" for d in layout.doors)


def _robot_start(spec: Mapping[str, Any], layout: LayoutSpec, where: str) -> Pose2D:
    if "pose" in spec:
        return _pose(spec["pose"], f"{where}: robot.pose")
    at = spec.get("at")
    for r in layout.regions:
        if r.name == at:
            return r.base_pose
    for d in layout.doors:
        for side in d.sides:
            if f"{d.name}.{side.room}" == at:
                return side.base_pose
    raise SceneError(f"{where}: robot needs 'pose: [x, y, deg]' or 'at: <region | door.room>', got {dict(spec)!r}")


def parse_goal(problem: ProblemSpec, items: Any, where: str = "goal") -> tuple[GoalAtom, ...]:
    """Goal atoms ``[obj, direction, ref]``; unknown names raise :class:`GoalError` naming them."""
    if not isinstance(items, (list, tuple)) or not items:
        raise GoalError(f"{where}: the goal must be a non-empty list of [object, direction, reference]")
    objects, regions = set(problem.object_names), set(problem.region_names)
    atoms = []
    for item in items:
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            raise GoalError(f"{where}: goal atom {item!r} must be [object, direction, reference]")
        # YAML 1.1 reads a bare `on` as the boolean true: accept it as the direction it meant
        obj, direction, ref = (("on" if x is True else str(x)) for x in item)
        if obj not in objects:
            raise GoalError(f"{where}: unknown object {obj!r} in goal (objects: {', '.join(sorted(objects))})")
        if direction not in DIRECTIONS:
            raise GoalError(f"{where}: unknown direction {direction!r} (directions: {', '.join(DIRECTIONS)})")
        if direction == "on" and ref not in regions:
            raise GoalError(f"{where}: 'on' needs a region, got {ref!r} (regions: {', '.join(sorted(regions))})")
        if direction != "on" and ref not in objects:
            raise GoalError(f"{where}: {direction!r} needs an object as reference, got {ref!r}")
        if direction != "on" and ref == obj:
            raise GoalError(f"{where}: {obj!r} cannot be {direction} itself")
        atoms.append(GoalAtom(obj, direction, ref))
    return tuple(atoms)
