"""Random apartments: random layouts with names drawn from a vocabulary ("any home").

The planners, the task suites and the benchmarks must work on any apartment a user writes in the
scene schema (:mod:`llm_planner.domains.household.world.scene`), not only on the two shipped ones
whose names the commonsense file and the task split grew up with. :func:`random_scene` builds such
an apartment from a seed: rooms on a grid with doorways joining them (a random spanning tree plus a
few more), furniture against the walls (and sometimes a free-standing table), object types whose
``places`` name the furniture their category is kept at. Every name comes from the vocabulary of
``config/household_random.yaml`` (other words for the same things: a couch, a freezer, a vanity),
duplicates numbered or named by their room (``nightstand_1``, ``study_table``).

The layout rules of that file (clearances from corners, doorways and neighbours) keep the result
buildable for the PyBullet robot: the property test checks that ``llm-planner scene check`` passes,
that a benchmark episode runs and that no planner moves an object the goal does not name.

>>> data = random_scene(3)
>>> scene = parse_scene(data)
>>> len(scene.rooms), scene.name
(4, 'random_3')
"""
from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from llm_planner.domains.household.world.scene import FURNITURE_KINDS, Scene, parse_scene
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, read_yaml_mapping

VOCABULARY_FILE = config_dir() / "household_random.yaml"
#: yaw of furniture standing at each wall: its front (local +x) faces into the room
_WALL_YAW = {"west": 0.0, "east": math.pi, "south": math.pi / 2.0, "north": -math.pi / 2.0}


@dataclass(frozen=True)
class FurnitureKind:
    """A furniture category of the vocabulary: kind, size [depth, width, height], words for it."""

    category: str
    kind: str
    size: tuple[float, ...]  # depth, width, height (load_vocabulary checks there are three)
    names: tuple[str, ...]


@dataclass(frozen=True)
class ObjectKind:
    """An object category: size, colour, where it is kept (furniture category -> weight), words."""

    category: str
    size: tuple[float, ...]  # x, y, z as the vocabulary file gives them
    color: tuple[float, ...]  # r, g, b
    places: Mapping[str, float]
    names: tuple[str, ...]


@dataclass(frozen=True)
class RoomKind:
    category: str
    names: tuple[str, ...]
    furniture: tuple[str, ...]


@dataclass(frozen=True)
class Vocabulary:
    """``config/household_random.yaml``: defaults, layout rules, room, furniture and object kinds."""

    defaults: Mapping[str, Any]
    layout: Mapping[str, Any]
    rooms: Mapping[str, RoomKind]
    furniture: Mapping[str, FurnitureKind]
    objects: Mapping[str, ObjectKind]
    pairs: Mapping[str, Any] = dataclasses.field(default_factory=dict)  # names of which one contains the other


@lru_cache(maxsize=4)
def load_vocabulary(path: str | Path | None = None) -> Vocabulary:
    """Load and check the vocabulary; errors name the file and the entry."""
    path = Path(path) if path is not None else VOCABULARY_FILE
    data = read_yaml_mapping(path, "a random-apartment vocabulary")
    try:
        furniture = {c: FurnitureKind(c, str(s["kind"]), tuple(float(v) for v in s["size"]), tuple(s["names"]))
                     for c, s in data["furniture"].items()}
        rooms = {c: RoomKind(c, tuple(s["names"]), tuple(s["furniture"])) for c, s in data["rooms"].items()}
        objects = {c: ObjectKind(c, tuple(float(v) for v in s["size"]), tuple(float(v) for v in s["color"]),
                                 {str(k): float(v) for k, v in s["places"].items()}, tuple(s["names"]))
                   for c, s in data["objects"].items()}
        pairs = dict(data.get("pairs") or {"probability": 0.0})
        vocabulary = Vocabulary(dict(data["defaults"]), dict(data["layout"]), rooms, furniture, objects, pairs)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ConfigError(f"{path}: malformed vocabulary ({exc!r}): expected defaults, layout, rooms, furniture "
                          "and objects as documented at the top of the file") from None
    for f in furniture.values():
        if f.kind not in FURNITURE_KINDS or len(f.size) != 3 or not f.names:
            raise ConfigError(f"{path}: furniture.{f.category}: needs kind container|surface, size [d, w, h], names")
    for r in rooms.values():
        unknown = [c for c in r.furniture if c not in furniture]
        if unknown or not r.names:
            raise ConfigError(f"{path}: rooms.{r.category}: unknown furniture categories {unknown} or no names")
    for o in objects.values():
        unknown = [c for c in o.places if c not in furniture]
        if unknown or not o.names:
            raise ConfigError(f"{path}: objects.{o.category}.places: unknown furniture categories "
                              f"{unknown} or no names")
    for section, kinds in (("furniture", furniture), ("objects", objects)):
        for pair in vocabulary.pairs.get(section, []):
            names = [(c, w) for c, w in zip(pair[::2], pair[1::2], strict=True)] if len(pair) == 4 else []
            if not names or any(c not in kinds or w not in kinds[c].names for c, w in names):
                raise ConfigError(f"{path}: pairs.{section}: {pair} is not [category, word, category, word] of "
                                  f"words the categories list")
    return vocabulary


def random_scene(seed: int, *, rooms: int | None = None, object_types: int | None = None,
                 max_count: int | None = None, vocabulary: Vocabulary | None = None,
                 name: str | None = None) -> dict[str, Any]:
    """A random apartment as scene-file data (``yaml.safe_dump`` it, or :func:`parse_scene` it).

    Reproducible from ``seed``; ``rooms`` (2 or more), ``object_types`` and ``max_count``
    (instances per type) default to the vocabulary's ``defaults``."""
    vocab = vocabulary or load_vocabulary()
    d = vocab.defaults
    n_rooms = int(d["rooms"] if rooms is None else rooms)
    n_types = int(d["object_types"] if object_types is None else object_types)
    most = int(d["max_count"] if max_count is None else max_count)
    if n_rooms < 2:
        raise ConfigError(f"a random apartment needs at least 2 rooms, got {n_rooms}")
    rng = random.Random(f"random-scene:{seed}")
    builder = _Builder(vocab, rng, random.Random(f"random-scene-pairs:{seed}"))
    builder.rooms_and_doorways(n_rooms)
    builder.furnish()
    builder.objects(n_types, most, tuple(int(v) for v in d["places_per_type"]))
    return {"name": name or f"random_{seed}", "robot": {"room": builder.start},
            "rooms": {r: {"rect": [round(v, 3) for v in rect]} for r, rect in builder.rooms.items()},
            "doorways": builder.doorways, "furniture": builder.furniture, "objects": builder.object_specs}


def random_scene_object(seed: int, **kwargs: Any) -> Scene:
    """:func:`random_scene` parsed into a :class:`Scene` (validated like a scene file)."""
    return parse_scene(random_scene(seed, **kwargs))


def write_random_scene(path: str | Path, seed: int, **kwargs: Any) -> Path:
    """Write :func:`random_scene` to ``path`` as a scene YAML file."""
    path = Path(path)
    data = random_scene(seed, **kwargs)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# random apartment, seed {seed} (llm_planner/domains/household/world/random_scene.py)\n"
                    + yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=160))
    return path


class _Builder:
    """One apartment under construction (rooms, doorways, furniture, objects)."""

    def __init__(self, vocab: Vocabulary, rng: random.Random, pair_rng: random.Random) -> None:
        self.vocab, self.rng, self.lay = vocab, rng, vocab.layout
        self.pair_rng = pair_rng  # its own stream: the layout of a seed is the same with or without pairs
        self.rooms: dict[str, tuple[float, float, float, float]] = {}
        self.room_kind: dict[str, str] = {}
        self.doorways: list[dict[str, Any]] = []
        self.furniture: dict[str, dict[str, Any]] = {}
        self.furniture_category: dict[str, str] = {}
        self.object_specs: dict[str, dict[str, Any]] = {}
        self._used_names: set[str] = set()
        self.start = ""

    def _span(self, key: str) -> float:
        lo, hi = self.lay[key]
        return round(self.rng.uniform(float(lo), float(hi)), 1)

    # --------------------------------------------------------------------------- rooms
    def rooms_and_doorways(self, n: int) -> None:
        """Rooms on a grid of two rows (columns of one width, rows of one depth: neighbours share a
        whole wall); doorways on a random spanning tree of the neighbours, plus a few more."""
        cols = math.ceil(n / 2)
        widths = [self._span("room_width") for _ in range(cols)]
        depths = [self._span("room_depth") for _ in range(2)]
        kinds = list(self.vocab.rooms)
        order = kinds[:4] + self.rng.sample(kinds[4:], len(kinds) - 4) if len(kinds) > 4 else kinds
        cells: dict[tuple[int, int], str] = {}
        for k in range(n):
            row, col = divmod(k, cols)
            kind = order[k % len(order)]
            name = self._room_name(kind)
            x0, y0 = sum(widths[:col]), sum(depths[:row])
            self.rooms[name] = (x0, y0, x0 + widths[col], y0 + depths[row])
            self.room_kind[name] = kind
            cells[(row, col)] = name
        self.start = self.rng.choice(list(self.rooms))  # the robot starts in a random room
        pairs = [((r, c), (r2, c2)) for (r, c) in cells for (r2, c2) in ((r, c + 1), (r + 1, c)) if (r2, c2) in cells]
        self.rng.shuffle(pairs)
        joined = {cell: {cell} for cell in cells}
        for a, b in pairs:
            if joined[a] is not joined[b]:
                merged = joined[a] | joined[b]
                for cell in merged:
                    joined[cell] = merged
                self._doorway(cells[a], cells[b])
            elif self.rng.random() < float(self.lay["extra_doorway_probability"]):
                self._doorway(cells[a], cells[b])

    def _room_name(self, kind: str) -> str:
        for word in self.rng.sample(self.vocab.rooms[kind].names, len(self.vocab.rooms[kind].names)):
            if word not in self._used_names:
                self._used_names.add(word)
                return word
        return self._numbered(self.vocab.rooms[kind].names[0])

    def _numbered(self, word: str) -> str:
        k = 2
        while f"{word}_{k}" in self._used_names:
            k += 1
        self._used_names.add(f"{word}_{k}")
        return f"{word}_{k}"

    def _doorway(self, a: str, b: str) -> None:
        ax0, ay0, ax1, ay1 = self.rooms[a]
        bx0, by0, bx1, by1 = self.rooms[b]
        keep = float(self.lay["doorway_end_keep"])
        if math.isclose(ax1, bx0) or math.isclose(bx1, ax0):  # side by side: a vertical wall
            x = ax1 if math.isclose(ax1, bx0) else ax0
            lo, hi = max(ay0, by0) + keep, min(ay1, by1) - keep
            center = [x, round(self.rng.uniform(lo, hi), 2)]
        else:  # one above the other: a horizontal wall
            y = ay1 if math.isclose(ay1, by0) else ay0
            lo, hi = max(ax0, bx0) + keep, min(ax1, bx1) - keep
            center = [round(self.rng.uniform(lo, hi), 2), y]
        self.doorways.append({"rooms": [a, b], "center": center, "width": float(self.lay["doorway_width"])})

    # ------------------------------------------------------------------------ furniture
    def furnish(self) -> None:
        """Furniture along the walls of every room, clear of corners, doorways and each other."""
        lo, hi = (int(v) for v in self.lay["furniture_per_room"])
        categories_in: dict[str, list[str]] = {}
        for room, kind in self.room_kind.items():
            options = list(self.vocab.rooms[kind].furniture)
            wanted = self.rng.randint(lo, hi)
            picks: list[str] = []
            while len(picks) < wanted and options:
                twins = [c for c in picks if c not in self.lay["single"]]
                if twins and self.rng.random() < float(self.lay["duplicate_probability"]):
                    picks.append(self.rng.choice(twins))
                else:
                    picks.append(options.pop(self.rng.randrange(len(options))))
            categories_in[room] = picks
        counts: dict[str, int] = {}
        for picks in categories_in.values():
            for c in picks:
                counts[c] = counts.get(c, 0) + 1
        words = {c: self.rng.choice(self.vocab.furniture[c].names) for c in counts}
        for short_c, short_w, long_c, long_w in self._pairs("furniture"):
            if short_c in counts and long_c in counts and short_c != long_c:  # "table" and "coffee_table"
                words[short_c], words[long_c] = short_w, long_w
        numbered = {c: self.rng.random() < float(self.lay["name_numbered_probability"]) for c in counts}
        seen: dict[str, int] = {}
        for room, picks in categories_in.items():
            slots = self._wall_slots(room)
            for category in picks:
                spec = self.vocab.furniture[category]
                placed = self._place_at_wall(room, spec, slots)
                if placed is None:
                    continue
                seen[category] = seen.get(category, 0) + 1
                name = self._furniture_name(words[category], room, counts[category], seen[category], numbered[category])
                self.furniture[name] = placed
                self.furniture_category[name] = category
            self._center_table(room, words, counts, seen, numbered)

    def _furniture_name(self, word: str, room: str, total: int, index: int, numbered: bool) -> str:
        name = word if total == 1 else (f"{word}_{index}" if numbered else f"{room}_{word}")
        if name in self._used_names:
            name = self._numbered(name)
        self._used_names.add(name)
        return name

    def _wall_slots(self, room: str) -> dict[str, list[tuple[float, float]]]:
        """Free intervals along each wall of a room (the along-wall coordinate), doorways cut out."""
        x0, y0, x1, y1 = self.rooms[room]
        corner, door_keep = float(self.lay["corner_keep"]), float(self.lay["doorway_keep"])
        walls = {"west": (x0, y0, y1, "x"), "east": (x1, y0, y1, "x"), "south": (y0, x0, x1, "y"),
                 "north": (y1, x0, x1, "y")}
        slots: dict[str, list[tuple[float, float]]] = {}
        for wall, (at, a, b, axis) in walls.items():
            intervals = [(a + corner, b - corner)]
            for door in self.doorways:
                if room not in door["rooms"]:
                    continue
                cx, cy = door["center"]
                on_wall = math.isclose(cx, at) if axis == "x" else math.isclose(cy, at)
                if not on_wall:
                    continue
                c = cy if axis == "x" else cx
                cut = (c - door["width"] / 2.0 - door_keep, c + door["width"] / 2.0 + door_keep)
                intervals = [piece for lo, hi in intervals for piece in ((lo, min(hi, cut[0])), (max(lo, cut[1]), hi))
                             if piece[1] - piece[0] > 0.05]
            slots[wall] = intervals
        return slots

    def _place_at_wall(self, room: str, spec: FurnitureKind, slots: dict[str, list[tuple[float, float]]]
                       ) -> dict[str, Any] | None:
        """A free spot along a wall: clear of the other furniture and of the floor in front of them
        (where the robot works), with the floor in front of it clear too; None if none is found."""
        depth, width, height = spec.size
        gap = float(self.lay["furniture_gap"])
        x0, y0, x1, y1 = self.rooms[room]
        off = float(self.lay["wall_gap"]) + depth / 2.0
        for _ in range(int(self.lay["placement_attempts"])):
            fits = [(wall, k) for wall, intervals in slots.items() for k, (lo, hi) in enumerate(intervals)
                    if hi - lo >= width]
            if not fits:
                return None
            wall, k = self.rng.choice(fits)
            lo, hi = slots[wall][k]
            start = round(self.rng.uniform(lo, hi - width), 2)
            along = start + width / 2.0
            position = {"west": (x0 + off, along), "east": (x1 - off, along),
                        "south": (along, y0 + off), "north": (along, y1 - off)}[wall]
            item = {"kind": spec.kind, "room": room, "position": [round(position[0], 3), round(position[1], 3)],
                    "yaw": round(_WALL_YAW[wall], 4), "size": [depth, width, height]}
            if self._clear(room, item):
                slots[wall][k:k + 1] = [p for p in ((lo, start - gap), (start + width + gap, hi)) if p[1] - p[0] > 0.05]
                return item
        return None

    def _clear(self, room: str, item: Mapping[str, Any]) -> bool:
        """Neither the footprint of ``item`` nor the floor in front of it meets another furniture's
        footprint or the floor in front of that one (two work zones may share floor)."""
        body, zone = _rects(item, float(self.lay["work_zone"]))
        for other in self.furniture.values():
            if other["room"] != room:
                continue
            other_body, other_zone = _rects(other, float(self.lay["work_zone"]))
            if _overlap(body, other_body) or _overlap(body, other_zone) or _overlap(zone, other_body):
                return False
        return True

    def _center_table(self, room: str, words: dict[str, str], counts: dict[str, int], seen: dict[str, int],
                      numbered: dict[str, bool]) -> None:
        """A free-standing table in the middle of a big room (the robot walks round it)."""
        x0, y0, x1, y1 = self.rooms[room]
        need_w, need_d = (float(v) for v in self.lay["center_table_room"])
        if x1 - x0 < need_w or y1 - y0 < need_d or self.rng.random() >= float(self.lay["center_table_probability"]):
            return
        category = "table"
        spec = self.vocab.furniture[category]
        free = float(self.lay["center_table_clearance"])
        cx, cy, half_x, half_y = (x0 + x1) / 2.0, (y0 + y1) / 2.0, spec.size[0] / 2.0, spec.size[1] / 2.0
        for f in self.furniture.values():
            if f["room"] != room:
                continue
            fx, fy = f["position"]
            turned = abs(math.sin(f["yaw"])) > 0.5
            fhx, fhy = (f["size"][1] / 2.0, f["size"][0] / 2.0) if turned else (f["size"][0] / 2.0, f["size"][1] / 2.0)
            if abs(fx - cx) < fhx + half_x + free and abs(fy - cy) < fhy + half_y + free:
                return  # too close to what stands at a wall: the robot could not pass
        word = words.get(category) or self.rng.choice(spec.names)
        words[category] = word
        counts[category] = counts.get(category, 0) + 2  # a later one never takes the bare word
        numbered.setdefault(category, False)
        seen[category] = seen.get(category, 0) + 1
        name = self._furniture_name(word, room, counts[category], seen[category], numbered[category])
        self.furniture[name] = {"kind": spec.kind, "room": room,
                                "position": [round((x0 + x1) / 2.0, 3), round((y0 + y1) / 2.0, 3)],
                                "yaw": 0.0, "size": list(spec.size)}
        self.furniture_category[name] = category

    # -------------------------------------------------------------------------- objects
    def objects(self, n: int, most: int, places_per_type: Sequence[int]) -> None:
        """``n`` object types: each a word of a category, kept at furniture of the categories the
        vocabulary says (else anywhere), ``places`` weights from the category's weights."""
        by_category: dict[str, list[str]] = {}
        for name, category in self.furniture_category.items():
            by_category.setdefault(category, []).append(name)
        words = [(c, w) for c, kind in self.vocab.objects.items() for w in kind.names if w not in self._used_names]
        self.rng.shuffle(words)
        for short_c, short_w, long_c, long_w in self._pairs("objects"):  # "lamp" and "reading_lamp"
            pair = [(short_c, short_w), (long_c, long_w)]
            if all(p in words for p in pair) and n >= 2:
                words = pair + [w for w in words if w not in pair]
        lo, hi = places_per_type
        for category, word in words[:n]:
            kind = self.vocab.objects[category]
            candidates = [(f, weight) for c, weight in kind.places.items() for f in by_category.get(c, [])]
            if not candidates:
                candidates = [(f, 1.0) for f in self.furniture]
            k = min(len(candidates), self.rng.randint(lo, hi))
            chosen = self._weighted_sample(candidates, k)
            places = {f: max(1, round(w * self.rng.uniform(0.5, 1.5))) for f, w in chosen}
            color = [round(min(1.0, max(0.0, c + self.rng.uniform(-0.15, 0.15))), 2) for c in kind.color]
            self.object_specs[word] = {"count": self.rng.randint(1, most), "size": list(kind.size), "color": color,
                                       "places": places}
            self._used_names.add(word)

    def _pairs(self, section: str) -> list[list[str]]:
        """The vocabulary's name pairs of ``section`` this apartment gets (``pairs.probability`` each)."""
        chance = float(self.vocab.pairs.get("probability", 0.0))
        return [list(p) for p in self.vocab.pairs.get(section, []) if self.pair_rng.random() < chance]

    def _weighted_sample(self, items: list[tuple[str, float]], k: int) -> list[tuple[str, float]]:
        pool, out = list(items), list[tuple[str, float]]()
        while pool and len(out) < k:
            pick = self.rng.choices(range(len(pool)), [w for _, w in pool])[0]
            out.append(pool.pop(pick))
        return out



Rect = tuple[float, float, float, float]


def _rects(item: Mapping[str, Any], zone_depth: float) -> tuple[Rect, Rect]:
    """(footprint, the floor ``zone_depth`` deep in front of it) of a furniture entry, as
    [xmin, ymin, xmax, ymax]; yaw is a multiple of a right angle here."""
    x, y = item["position"]
    depth, width = item["size"][0], item["size"][1]
    fx, fy = round(math.cos(item["yaw"])), round(math.sin(item["yaw"]))
    hx, hy = (abs(fx) * depth + abs(fy) * width) / 2.0, (abs(fy) * depth + abs(fx) * width) / 2.0
    body = (x - hx, y - hy, x + hx, y + hy)
    zx, zy = x + fx * (depth / 2.0 + zone_depth / 2.0), y + fy * (depth / 2.0 + zone_depth / 2.0)
    zhx, zhy = (abs(fx) * zone_depth + abs(fy) * width) / 2.0, (abs(fy) * zone_depth + abs(fx) * width) / 2.0
    return body, (zx - zhx, zy - zhy, zx + zhx, zy + zhy)


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
