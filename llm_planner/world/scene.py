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
      kitchen_table: {kind: surface, room: kitchen, position: [x, y], yaw: 0.0, size: [sx, sy, sz]}
    objects:
      apple: {count: 2, size: [sx, sy, sz], color: [r, g, b], places: {fridge: 5, kitchen_table: 1}}

``places`` are relative weights over furniture names; a container place means INSIDE, a surface
place means ON.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from llm_planner.errors import SceneError
from llm_planner.paths import config_dir

CONTAINER = "container"
SURFACE = "surface"
FURNITURE_KINDS = (CONTAINER, SURFACE)

#: Directory of the scene files shipped with the package.
SCENES_DIR = config_dir() / "scenes"


@dataclass(frozen=True)
class Room:
    name: str
    rect: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax

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
        raise SceneError(f"{path}: {exc}") from None


def _floats(value: Any, n: int, where: str) -> tuple[float, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise SceneError(f"{where}: expected a list of {n} numbers, got {value!r}")
    try:
        return tuple(float(v) for v in value)
    except (TypeError, ValueError):
        raise SceneError(f"{where}: expected numbers, got {value!r}") from None


def _section(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict) or not value:
        raise SceneError(f"'{key}' must be a non-empty mapping")
    return value


def parse_scene(data: Any, path: Path | None = None) -> Scene:
    """Build a :class:`Scene` from parsed YAML, checking every cross-reference."""
    if not isinstance(data, dict):
        raise SceneError("a scene file must be a mapping with rooms, furniture and objects")
    rooms = {
        name: Room(name, _floats(spec.get("rect") if isinstance(spec, dict) else None, 4, f"rooms.{name}.rect"))
        for name, spec in _section(data, "rooms").items()
    }
    doorways = tuple(_parse_doorway(i, d, rooms) for i, d in enumerate(data.get("doorways") or []))
    furniture = {name: _parse_furniture(name, spec, rooms) for name, spec in _section(data, "furniture").items()}
    object_types = {name: _parse_object(name, spec, furniture) for name, spec in _section(data, "objects").items()}
    _check_name_clashes(rooms, furniture, object_types)
    robot_room = (data.get("robot") or {}).get("room", next(iter(rooms)))
    if robot_room not in rooms:
        raise SceneError(f"robot.room: unknown room '{robot_room}' (rooms: {', '.join(rooms)})")
    return Scene(
        name=str(data.get("name") or (path.stem if path else "scene")),
        path=path,
        robot_room=robot_room,
        rooms=rooms,
        doorways=doorways,
        furniture=furniture,
        object_types=object_types,
        raw=data,
    )


def _parse_doorway(index: int, spec: Any, rooms: Mapping[str, Room]) -> Doorway:
    where = f"doorways[{index}]"
    if not isinstance(spec, dict):
        raise SceneError(f"{where}: expected a mapping with rooms, center, width")
    pair = spec.get("rooms")
    if not isinstance(pair, list) or len(pair) != 2:
        raise SceneError(f"{where}.rooms: expected two room names")
    for room in pair:
        if room not in rooms:
            raise SceneError(f"{where}.rooms: unknown room '{room}' (rooms: {', '.join(rooms)})")
    center = _floats(spec.get("center"), 2, f"{where}.center")
    return Doorway(rooms=(pair[0], pair[1]), center=(center[0], center[1]), width=float(spec.get("width", 1.0)))


def _parse_furniture(name: str, spec: Any, rooms: Mapping[str, Room]) -> Furniture:
    where = f"furniture.{name}"
    if not isinstance(spec, dict):
        raise SceneError(f"{where}: expected a mapping with kind, room, position, size")
    kind = spec.get("kind")
    if kind not in FURNITURE_KINDS:
        raise SceneError(f"{where}.kind: must be one of {', '.join(FURNITURE_KINDS)}, got {kind!r}")
    room = spec.get("room")
    if room not in rooms:
        raise SceneError(f"{where}.room: unknown room '{room}' (rooms: {', '.join(rooms)})")
    position = _floats(spec.get("position"), 2, f"{where}.position")
    size = _floats(spec.get("size"), 3, f"{where}.size")
    if not rooms[room].contains(*position):
        raise SceneError(f"{where}.position: {list(position)} lies outside room '{room}' {list(rooms[room].rect)}")
    return Furniture(name, kind, room, (position[0], position[1]), float(spec.get("yaw", 0.0)), size)  # type: ignore[arg-type]


def _parse_object(name: str, spec: Any, furniture: Mapping[str, Furniture]) -> ObjectType:
    where = f"objects.{name}"
    if not isinstance(spec, dict):
        raise SceneError(f"{where}: expected a mapping with count, size, places")
    count = spec.get("count", 1)
    if not isinstance(count, int) or count < 1:
        raise SceneError(f"{where}.count: must be a positive integer, got {count!r}")
    places = spec.get("places")
    if not isinstance(places, dict) or not places:
        raise SceneError(f"{where}.places: expected a mapping of furniture name to weight")
    for place, weight in places.items():
        if place not in furniture:
            raise SceneError(f"{where}.places: unknown furniture '{place}' (furniture: {', '.join(furniture)})")
        if not isinstance(weight, (int, float)) or weight <= 0:
            raise SceneError(f"{where}.places.{place}: weight must be a positive number, got {weight!r}")
    size = _floats(spec.get("size", [0.08, 0.08, 0.08]), 3, f"{where}.size")
    color = _floats(spec.get("color", [0.6, 0.6, 0.6]), 3, f"{where}.color")
    return ObjectType(name, count, size, color, tuple((p, float(w)) for p, w in places.items()))  # type: ignore[arg-type]


def _check_name_clashes(rooms: Mapping, furniture: Mapping, object_types: Mapping) -> None:
    groups = {"rooms": set(rooms), "furniture": set(furniture), "objects": set(object_types)}
    names = list(groups)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            clash = groups[a] & groups[b]
            if clash:
                raise SceneError(f"duplicate name '{sorted(clash)[0]}' used in both {a} and {b}")
