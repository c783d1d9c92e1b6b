"""Household scenes as data: rooms, furniture (containers and surfaces), movable objects.

A scene file (``config/scenes/*.yaml``) is the single description of an apartment that the
symbolic model (LLM-MCTS seed, §2.1 and Appendix A), the PyBullet world and the benchmarks all
read. Object placements are randomised per seed from the apartment's own distribution, so a
"seen" and an "unseen" apartment differ in layout *and* in where things tend to be (the seed's
Novel Apartment, Appendix A.2).

Schema (lengths in metres, angles in radians)::

    name: apartment_seen
    robot: {room: living_room}
    rooms:
      kitchen: {rect: [xmin, ymin, xmax, ymax]}
    doorways:
      - {rooms: [kitchen, living_room], center: [x, y], width: 1.2}
    furniture:
      fridge: {kind: container, room: kitchen, position: [x, y], yaw: 0.0, size: [sx, sy, sz]}
      sofa: {kind: surface, room: living_room, position: [x, y], size: [sx, sy, sz], approach: [x, y, yaw]}
      kitchen_table: {kind: surface, room: kitchen, position: [x, y], yaw: 0.0, size: [sx, sy, sz]}
    objects:
      apple: {count: 2, size: [sx, sy, sz], color: [r, g, b], places: {fridge: 5, kitchen_table: 1}}
    switchable:
      tv: {at: tv_stand, look: screen, starts_on: 0.3}
      stove: {starts_on: 0.1}

``switchable`` (optional) names the things that switch on and off: an appliance that is itself
furniture (``stove``: no ``at``), or a thing standing at a furniture (``at``: where the robot works
to switch it, e.g. a TV on its stand, a lamp on a nightstand). ``look`` is how the simulator shows
it on (``lamp``: a lit bulb; ``screen``: a bright panel; ``appliance``: a lit indicator on its
front), ``starts_on`` the chance that it is on when an episode starts. What opens is what is a
``container``. A scene without ``switchable`` has nothing to switch.

``places`` are relative weights over furniture names; a container place means INSIDE, a surface
place means ON. ``approach`` (optional, on a room or a furniture) is where the robot goes for it, in
the ``map`` frame: the pose a ``navigate_to_pose`` goal to that place asks for, and where perception
reads the robot as CLOSE to that furniture (:mod:`llm_planner.domains.household.places`). Without
it the pose is derived from the layout: before the furniture's front, or a free spot in the room.
"""
from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from llm_planner.domains.geometry import vec3
from llm_planner.errors import SceneError
from llm_planner.paths import config_dir

CONTAINER = "container"
SURFACE = "surface"
FURNITURE_KINDS = (CONTAINER, SURFACE)

#: Directory of the scene files shipped with the package.
SCENES_DIR = config_dir() / "scenes"


#: A pose in the map frame: x, y (metres) and yaw (radians).
Pose2D = tuple[float, float, float]


@dataclass(frozen=True)
class Room:
    name: str
    rect: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax
    approach: Pose2D | None = None  # where the robot goes in this room; None: a free spot found by the layout

    def contains(self, x: float, y: float) -> bool:
        xmin, ymin, xmax, ymax = self.rect
        return xmin <= x <= xmax and ymin <= y <= ymax

    @property
    def center(self) -> tuple[float, float]:
        xmin, ymin, xmax, ymax = self.rect
        return ((xmin + xmax) / 2.0, (ymin + ymax) / 2.0)


@dataclass(frozen=True)
class Doorway:
    rooms: tuple[str, str]
    center: tuple[float, float]
    width: float


@dataclass(frozen=True)
class Furniture:
    name: str
    kind: str  # CONTAINER or SURFACE
    room: str
    position: tuple[float, float]
    yaw: float
    size: tuple[float, float, float]
    approach: Pose2D | None = None  # where the robot works at it; None: before its front, chosen by the layout

    @property
    def relation(self) -> str:
        """The relation an object placed here has to it: 'inside' or 'on'."""
        return "inside" if self.kind == CONTAINER else "on"


@dataclass(frozen=True)
class ObjectType:
    name: str
    count: int
    size: tuple[float, float, float]
    color: tuple[float, float, float]
    places: tuple[tuple[str, float], ...]  # (furniture name, weight)


#: How the simulator shows a switched-on thing (the ``look`` of a ``switchable`` entry).
SWITCH_LOOKS = ("appliance", "lamp", "screen")


@dataclass(frozen=True)
class Switchable:
    """A thing that switches on and off: a furniture itself, or a thing standing at one."""

    name: str
    at: str          # the furniture the robot stands at to switch it (its own name for an appliance)
    room: str
    look: str        # one of SWITCH_LOOKS
    starts_on: float  # probability it is on when an episode starts


@dataclass(frozen=True)
class Scene:
    """A loaded, validated apartment."""

    name: str
    path: Path | None
    robot_room: str
    rooms: Mapping[str, Room]
    doorways: tuple[Doorway, ...]
    furniture: Mapping[str, Furniture]
    object_types: Mapping[str, ObjectType]
    raw: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)
    switchables: Mapping[str, Switchable] = field(default_factory=dict)

    @property
    def containers(self) -> list[str]:
        return [f.name for f in self.furniture.values() if f.kind == CONTAINER]

    @property
    def surfaces(self) -> list[str]:
        return [f.name for f in self.furniture.values() if f.kind == SURFACE]

    @property
    def object_names(self) -> list[str]:
        """Instance names, e.g. ``apple_1``, ``apple_2``, in a fixed order."""
        return [instance_name(t.name, i) for t in self.object_types.values() for i in range(1, t.count + 1)]

    def type_of(self, object_name: str) -> str:
        """The object type of an instance name (``apple_2`` -> ``apple``)."""
        base, _, index = object_name.rpartition("_")
        if base in self.object_types and index.isdigit():
            return base
        raise KeyError(object_name)

    def sample_placement(self, seed: int) -> dict[str, str]:
        """Place every object instance on/in a furniture drawn from its type's distribution."""
        rng = random.Random(seed)
        placement: dict[str, str] = {}
        for otype in self.object_types.values():
            names = [p for p, _ in otype.places]
            weights = [w for _, w in otype.places]
            for i in range(1, otype.count + 1):
                placement[instance_name(otype.name, i)] = rng.choices(names, weights)[0]
        return placement

    def sample_switched_on(self, seed: int) -> frozenset[str]:
        """The switchable things that are on when the episode of ``seed`` starts (each with its
        ``starts_on`` chance). A stream of its own, so placements do not depend on it."""
        rng = random.Random(f"switched-on-{seed}")
        return frozenset(name for name, thing in self.switchables.items() if rng.random() < thing.starts_on)


def instance_name(type_name: str, index: int) -> str:
    return f"{type_name}_{index}"


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses duplicate keys instead of silently keeping the last."""


def _construct_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    mapping: dict = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in mapping:
            raise SceneError(f"duplicate name '{key}' (line {key_node.start_mark.line + 1})")
        mapping[key] = loader.construct_object(value_node, deep=deep)
    return mapping


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def resolve_scene_path(name_or_path: str | Path) -> Path:
    """Accept a path to a YAML file or the bare name of a shipped scene (``apartment_seen``)."""
    path = Path(name_or_path)
    if path.suffix in (".yaml", ".yml") or path.exists():
        return path
    return SCENES_DIR / f"{name_or_path}.yaml"


def load_scene(name_or_path: str | Path) -> Scene:
    """Load and validate a scene file; errors name the file and the offending entry."""
    path = resolve_scene_path(name_or_path)
    if not path.is_file():
        shipped = sorted(p.stem for p in SCENES_DIR.glob("*.yaml"))
        raise SceneError(f"{path}: no such scene file (shipped scenes: {', '.join(shipped)})")
    try:
        data = yaml.load(path.read_text(), Loader=_UniqueKeyLoader)
    except SceneError as exc:
        raise SceneError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise SceneError(f"{path}: not valid YAML: {exc}") from None
    try:
        return parse_scene(data, path)
    except SceneError as exc:
        lines = exc.problems or (str(exc),)
        raise SceneError("\n".join(f"{path}: {line}" for line in lines),
                         problems=tuple(f"{path}: {line}" for line in lines)) from None


class _Problems:
    """Schema problems of one file, collected so a user sees all of them at once."""

    def __init__(self) -> None:
        self.messages: list[str] = []

    def add(self, message: str) -> None:
        self.messages.append(message)

    def raise_if_any(self) -> None:
        if self.messages:
            raise SceneError("\n".join(self.messages), problems=tuple(self.messages))


def _number(value: Any, where: str, problems: _Problems, *, positive: bool = False,
            default: float | None = None) -> float | None:
    if value is None and default is not None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        problems.add(f"{where}: expected a number, got {value!r}")
        return None
    if positive and value <= 0:
        problems.add(f"{where}: expected a positive number (metres), got {value!r}")
        return None
    return float(value)


def _floats(value: Any, n: int, where: str, problems: _Problems | None = None, *, positive: bool = False,
            what: str = "numbers") -> tuple[float, ...] | None:
    """A list of ``n`` finite numbers; otherwise a problem naming the key (raised when no collector)."""
    message = None
    if not isinstance(value, (list, tuple)) or len(value) != n:
        message = f"{where}: expected a list of {n} {what}, got {value!r}"
    elif not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value):
        message = f"{where}: expected {n} {what}, got {value!r}"
    elif positive and min(value) <= 0:
        message = f"{where}: every entry must be positive, got {list(value)}"
    if message is None:
        return tuple(float(v) for v in value)
    if problems is None:
        raise SceneError(message)
    problems.add(message)
    return None


def _unknown_keys(spec: Mapping[str, Any], allowed: tuple[str, ...], where: str, problems: _Problems) -> None:
    for key in spec:
        if key not in allowed:
            problems.add(f"{where}: unknown key '{key}' (expected: {', '.join(allowed)})")


def _section(data: Mapping[str, Any], key: str, problems: _Problems, expected: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict) or not value:
        problems.add(f"{key}: expected a non-empty mapping of {expected}, got {value!r}")
        return {}
    return value


#: Keys a scene file and its entries may have.
TOP_KEYS = ("name", "robot", "rooms", "doorways", "furniture", "objects", "switchable")
ROOM_KEYS = ("rect", "approach")
DOORWAY_KEYS = ("rooms", "center", "width")
FURNITURE_KEYS = ("kind", "room", "position", "yaw", "size", "approach")
OBJECT_KEYS = ("count", "size", "color", "places")
SWITCHABLE_KEYS = ("at", "look", "starts_on")
DEFAULT_OBJECT_SIZE = (0.08, 0.08, 0.08)
DEFAULT_OBJECT_COLOR = (0.6, 0.6, 0.6)
DEFAULT_DOORWAY_WIDTH = 1.0


def parse_scene(data: Any, path: Path | None = None) -> Scene:
    """Build a :class:`Scene` from parsed YAML, checking every key and cross-reference.

    Every schema problem is reported at once (one line each, naming the key path and what is
    expected); :class:`SceneError` carries them in ``problems``."""
    if not isinstance(data, dict):
        raise SceneError("a scene file must be a mapping with rooms, doorways, furniture and objects")
    problems = _Problems()
    _unknown_keys(data, TOP_KEYS, "(top level)", problems)
    rooms: dict[str, Room | None] = {}  # None: declared, but its entry is broken (reported once)
    for name, spec in _section(data, "rooms", problems, "room name to {rect: [xmin, ymin, xmax, ymax]}").items():
        rooms[str(name)] = _parse_room(str(name), spec, problems)
    raw_doorways = data.get("doorways") or []
    if not isinstance(raw_doorways, list):
        problems.add(f"doorways: expected a list of {{rooms: [a, b], center: [x, y], width: w}}, got {raw_doorways!r}")
        raw_doorways = []
    doorways = tuple(d for d in (_parse_doorway(i, d, rooms, problems) for i, d in enumerate(raw_doorways)) if d)
    furniture = {}
    for name, spec in _section(data, "furniture", problems,
                               "furniture name to {kind, room, position, yaw, size}").items():
        item = _parse_furniture(str(name), spec, rooms, problems)
        if item is not None:
            furniture[str(name)] = item
    known_furniture = set(furniture) | {str(n) for n in (data.get("furniture") or {})}
    object_types = {}
    for name, spec in _section(data, "objects", problems, "object type to {count, size, color, places}").items():
        otype = _parse_object(str(name), spec, known_furniture, problems)
        if otype is not None:
            object_types[str(name)] = otype
    switchables = _parse_switchables(data.get("switchable"), furniture, problems)
    _check_name_clashes(rooms, furniture, object_types, problems)
    for name, thing in switchables.items():
        if name != thing.at and (name in rooms or name in furniture or name in object_types):
            problems.add(f"switchable.{name}: the name is already a room, furniture or object; "
                         f"name the thing itself (e.g. '{name}_light') or drop 'at' to switch the furniture")
    robot = data.get("robot") or {}
    robot_room = next(iter(rooms), "")
    if not isinstance(robot, dict):
        problems.add(f"robot: expected a mapping {{room: ROOM}}, got {robot!r}")
    else:
        _unknown_keys(robot, ("room",), "robot", problems)
        robot_room = robot.get("room", robot_room)
        if rooms and robot_room not in rooms:
            problems.add(f"robot.room: unknown room '{robot_room}' (rooms: {', '.join(rooms)})")
    problems.raise_if_any()
    return Scene(
        name=str(data.get("name") or (path.stem if path else "scene")),
        path=path,
        robot_room=robot_room,
        rooms={n: r for n, r in rooms.items() if r is not None},
        doorways=doorways,
        furniture=furniture,
        object_types=object_types,
        raw=data,
        switchables=switchables,
    )


def _parse_room(name: str, spec: Any, problems: _Problems) -> Room | None:
    where = f"rooms.{name}"
    if not isinstance(spec, dict):
        problems.add(f"{where}: expected a mapping {{rect: [xmin, ymin, xmax, ymax]}}, got {spec!r}")
        return None
    _unknown_keys(spec, ROOM_KEYS, where, problems)
    rect = _floats(spec.get("rect"), 4, f"{where}.rect", problems, what="numbers [xmin, ymin, xmax, ymax]")
    if rect is None:
        return None
    if rect[2] <= rect[0] or rect[3] <= rect[1]:
        problems.add(f"{where}.rect: expected [xmin, ymin, xmax, ymax] with xmin < xmax and ymin < ymax, "
                     f"got {list(rect)}")
        return None
    room = Room(name, (rect[0], rect[1], rect[2], rect[3]))
    approach = _approach(spec, where, room, problems)
    return dataclasses.replace(room, approach=approach) if approach else room


def _approach(spec: Mapping[str, Any], where: str, room: Room, problems: _Problems) -> Pose2D | None:
    """The optional ``approach: [x, y, yaw]`` of a room or furniture entry; it must lie in ``room``."""
    if spec.get("approach") is None:
        return None
    pose = _floats(spec["approach"], 3, f"{where}.approach", problems, what="numbers [x, y, yaw] (map frame)")
    if pose is None:
        return None
    if not room.contains(pose[0], pose[1]):
        problems.add(f"{where}.approach: [{pose[0]:g}, {pose[1]:g}] lies outside room '{room.name}' "
                     f"{list(room.rect)}; give the pose where the robot stands to work there")
        return None
    return (pose[0], pose[1], pose[2])


def _parse_doorway(index: int, spec: Any, rooms: Mapping[str, Room | None], problems: _Problems) -> Doorway | None:
    where = f"doorways[{index}]"
    if not isinstance(spec, dict):
        problems.add(f"{where}: expected a mapping {{rooms: [a, b], center: [x, y], width: w}}, got {spec!r}")
        return None
    _unknown_keys(spec, DOORWAY_KEYS, where, problems)
    pair: Any = spec.get("rooms")  # a YAML value: two room names once checked
    ok = True
    if not isinstance(pair, list) or len(pair) != 2:
        problems.add(f"{where}.rooms: expected two room names, got {pair!r}")
        ok = False
    else:
        for room in pair:
            if room not in rooms:
                problems.add(f"{where}.rooms: unknown room '{room}' (rooms: {', '.join(rooms)})")
                ok = False
        if ok and pair[0] == pair[1]:
            problems.add(f"{where}.rooms: a doorway joins two different rooms, got {pair!r}")
            ok = False
    center = _floats(spec.get("center"), 2, f"{where}.center", problems, what="numbers [x, y]")
    width = _number(spec.get("width"), f"{where}.width", problems, positive=True, default=DEFAULT_DOORWAY_WIDTH)
    if not ok or center is None or width is None:
        return None
    return Doorway(rooms=(pair[0], pair[1]), center=(center[0], center[1]), width=width)


def _parse_furniture(name: str, spec: Any, rooms: Mapping[str, Room | None], problems: _Problems) -> Furniture | None:
    where = f"furniture.{name}"
    if not isinstance(spec, dict):
        problems.add(f"{where}: expected a mapping with kind, room, position, yaw, size, got {spec!r}")
        return None
    _unknown_keys(spec, FURNITURE_KEYS, where, problems)
    kind: Any = spec.get("kind")  # a YAML value: a furniture kind once checked
    ok = True
    if kind not in FURNITURE_KINDS:
        problems.add(f"{where}.kind: must be one of {', '.join(FURNITURE_KINDS)}, got {kind!r}")
        ok = False
    room: Any = spec.get("room")  # a YAML value: a room name once checked
    if room not in rooms:
        problems.add(f"{where}.room: unknown room '{room}' (rooms: {', '.join(rooms)})")
        ok = False
    position = _floats(spec.get("position"), 2, f"{where}.position", problems, what="numbers [x, y]")
    size = _floats(spec.get("size"), 3, f"{where}.size", problems, positive=True,
                   what="numbers [depth, width, height] in metres")
    yaw = _number(spec.get("yaw"), f"{where}.yaw", problems, default=0.0)
    area = rooms[room] if ok else None
    if not ok or position is None or size is None or yaw is None or area is None:
        return None
    if not area.contains(*position):
        problems.add(f"{where}.position: {list(position)} lies outside room '{room}' {list(area.rect)}")
        return None
    return Furniture(name, kind, room, (position[0], position[1]), yaw, vec3(size),
                     _approach(spec, where, area, problems))


def _parse_object(name: str, spec: Any, furniture: set[str], problems: _Problems) -> ObjectType | None:
    where = f"objects.{name}"
    if not isinstance(spec, dict):
        problems.add(f"{where}: expected a mapping with count, size, color, places, got {spec!r}")
        return None
    _unknown_keys(spec, OBJECT_KEYS, where, problems)
    ok = True
    count = spec.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        problems.add(f"{where}.count: must be a positive integer, got {count!r}")
        ok = False
    places = spec.get("places")
    if not isinstance(places, dict) or not places:
        problems.add(f"{where}.places: expected a mapping of furniture name to weight, got {places!r}")
        ok = False
        places = {}
    for place, weight in places.items():
        if place not in furniture:
            problems.add(f"{where}.places: unknown furniture '{place}' (furniture: {', '.join(sorted(furniture))})")
            ok = False
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight <= 0:
            problems.add(f"{where}.places.{place}: weight must be a positive number, got {weight!r}")
            ok = False
    size = _floats(spec.get("size", list(DEFAULT_OBJECT_SIZE)), 3, f"{where}.size", problems, positive=True,
                   what="numbers [x, y, z] in metres")
    color = _floats(spec.get("color", list(DEFAULT_OBJECT_COLOR)), 3, f"{where}.color", problems,
                    what="numbers [r, g, b] from 0 to 1")
    if color is not None and not all(0.0 <= c <= 1.0 for c in color):
        problems.add(f"{where}.color: expected [r, g, b] with each from 0 to 1, got {list(color)}")
        color = None
    if not ok or size is None or color is None:
        return None
    return ObjectType(name, count, vec3(size), vec3(color), tuple((p, float(w)) for p, w in places.items()))


def _parse_switchables(section: Any, furniture: Mapping[str, Furniture],
                       problems: _Problems) -> dict[str, Switchable]:
    """The optional ``switchable`` section: name to {at, look, starts_on}."""
    if section is None:
        return {}
    if not isinstance(section, dict):
        problems.add(f"switchable: expected a mapping of name to {{at, look, starts_on}}, got {section!r}")
        return {}
    things = {}
    for raw_name, spec in section.items():
        name, where = str(raw_name), f"switchable.{raw_name}"
        spec = {} if spec is None else spec
        if not isinstance(spec, dict):
            problems.add(f"{where}: expected a mapping {{at, look, starts_on}}, got {spec!r}")
            continue
        _unknown_keys(spec, SWITCHABLE_KEYS, where, problems)
        at = str(spec.get("at", name))
        if at not in furniture:
            problems.add(f"{where}.at: unknown furniture '{at}' (a switchable thing is a furniture, or stands at "
                         f"one: furniture: {', '.join(sorted(furniture))})")
            continue
        look = spec.get("look", "appliance" if at == name else "lamp")
        if look not in SWITCH_LOOKS:
            problems.add(f"{where}.look: must be one of {', '.join(SWITCH_LOOKS)}, got {look!r}")
            continue
        starts_on = _number(spec.get("starts_on"), f"{where}.starts_on", problems, default=0.0)
        if starts_on is None:
            continue
        if not 0.0 <= starts_on <= 1.0:
            problems.add(f"{where}.starts_on: expected a probability from 0 to 1, got {starts_on!r}")
            continue
        things[name] = Switchable(name, at, furniture[at].room, str(look), starts_on)
    return things


def _check_name_clashes(rooms: Mapping, furniture: Mapping, object_types: Mapping, problems: _Problems) -> None:
    groups = {"rooms": set(rooms), "furniture": set(furniture), "objects": set(object_types)}
    names = list(groups)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            clash = groups[a] & groups[b]
            if clash:
                problems.add(f"duplicate name '{sorted(clash)[0]}' used in both {a} and {b}")
