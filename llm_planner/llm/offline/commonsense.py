"""The curated commonsense file (``llm/offline/data/commonsense.yaml``) and its grounding onto a scene.

The file speaks in general words ("pantry", "dining table", "closet"); a scene names its own
furniture. :class:`SceneKnowledge` maps each general place onto the scene's most similar
furniture of the same kind (Sentence-BERT cosine, a small bonus when the usual room matches), so
the offline backend can answer "where is a <type> usually?" for any apartment, from names only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

import yaml

from llm_planner.errors import ConfigError
from llm_planner.llm.grounding import Grounder
from llm_planner.llm.text import WorldInfo, name_to_text
from llm_planner.domains.household.world.scene import CONTAINER

if TYPE_CHECKING:
    from llm_planner.llm.resources import Resources

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "commonsense.yaml"

ROOM_BONUS = 0.05


@dataclass(frozen=True)
class Commonsense:
    """The parsed file: general places, where each object type is usually kept, aliases."""

    places: Mapping[str, tuple[str, str]]            # place -> (kind, usual room)
    like: Mapping[str, tuple[str, ...]]              # place -> places standing in for it
    objects: Mapping[str, Mapping[str, float]]       # object type -> {place: weight}
    aliases: Mapping[str, tuple[str, ...]]           # object type -> other words
    place_aliases: Mapping[str, tuple[str, ...]]     # place -> other words
    path: Path | None = None
    verb_places: Mapping[str, tuple[str, bool]] = field(default_factory=dict)  # verb -> (place, kept there only)

    def alias_index(self) -> dict[str, str]:
        """word -> object type, for every type and alias."""
        return _word_index(self.objects, self.aliases)

def _word_index(names: Mapping[str, object], aliases: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    index = {n: n for n in names}
    for name, words in aliases.items():
        for w in words:
            index.setdefault(w, name)
    return index


@lru_cache(maxsize=8)
def load_commonsense(path: str | Path | None = None) -> Commonsense:
    """Load and check the commonsense file (every object's place must be a declared place)."""
    path = Path(path) if path else DEFAULT_PATH
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the commonsense file: {exc}") from None
    places: dict[str, tuple[str, str]] = {}
    like: dict[str, tuple[str, ...]] = {}
    for name, spec in (data.get("places") or {}).items():
        if not isinstance(spec, dict) or spec.get("kind") not in ("container", "surface"):
            raise ConfigError(f"{path}: places.{name} needs kind container|surface")
        places[str(name)] = (spec["kind"], str(spec.get("room", "")))
        like[str(name)] = tuple(str(x) for x in spec.get("like") or ())
    for name, others in like.items():
        for other in others:
            if other not in places:
                raise ConfigError(f"{path}: places.{name}.like: unknown place '{other}'")
    objects: dict[str, dict[str, float]] = {}
    for obj, weights in (data.get("objects") or {}).items():
        if not isinstance(weights, dict) or not weights:
            raise ConfigError(f"{path}: objects.{obj} needs a mapping of place to weight")
        for place, weight in weights.items():
            if place not in places:
                raise ConfigError(f"{path}: objects.{obj}: unknown place '{place}' (declare it under places)")
            if not isinstance(weight, (int, float)) or weight <= 0:
                raise ConfigError(f"{path}: objects.{obj}.{place}: weight must be positive, got {weight!r}")
        objects[str(obj)] = {str(p): float(w) for p, w in weights.items()}
    aliases = {str(k): tuple(str(w) for w in v) for k, v in (data.get("aliases") or {}).items()}
    place_aliases = {str(k): tuple(str(w) for w in v) for k, v in (data.get("place_aliases") or {}).items()}
    verb_places: dict[str, tuple[str, bool]] = {}
    for verb, spec in (data.get("verb_places") or {}).items():
        if not isinstance(spec, dict) or spec.get("place") not in places:
            raise ConfigError(f"{path}: verb_places.{verb} needs a place declared under places, got {spec!r}")
        verb_places[str(verb)] = (str(spec["place"]), bool(spec.get("kept_there", False)))
    return Commonsense(places, like, objects, aliases, place_aliases, path, verb_places)


class SceneKnowledge:
    """The commonsense file seen through one scene's names (computed once per scene)."""

    def __init__(self, commonsense: Commonsense, world: WorldInfo, grounder: Grounder, place_match: float,
                 type_match: float) -> None:
        self.commonsense = commonsense
        self.world = world
        self.grounder = grounder
        self.place_match = place_match
        self.type_match = type_match
        self.place_map = self._map_places()
        self._type_cache: dict[str, str | None] = {}

    def _map_places(self) -> dict[str, str]:
        """General place -> scene furniture: the furniture of that name or alias; else the first
        ``like`` place the scene has; else the most similar furniture of the same kind (cosine
        >= ``offline.commonsense_place_match``, a small bonus for the usual room); else absent."""
        furniture = list(self.world.furniture)
        if not furniture:
            return {}
        by_words: dict[str, str] = {name_to_text(f): f for f in furniture}
        for place, words in self.commonsense.place_aliases.items():
            for word in (place, *words):
                if word in by_words and place not in by_words:
                    by_words[place] = by_words[word]

        general = list(self.commonsense.places)
        sims = self.grounder.similarities([name_to_text(p) for p in general], [name_to_text(f) for f in furniture])
        containers = set(self.world.containers)
        out: dict[str, str] = {}
        for i, place in enumerate(general):
            direct = by_words.get(place)
            if direct is None:
                direct = next((by_words[o] for o in self.commonsense.like[place] if o in by_words), None)
            if direct is not None:
                out[place] = direct
                continue
            kind, room = self.commonsense.places[place]
            best, best_score = None, -1.0
            for j, f in enumerate(furniture):
                if (f in containers) != (kind == CONTAINER):
                    continue
                score = float(sims[i, j]) + (ROOM_BONUS if self.world.furniture_room.get(f) == room else 0.0)
                if score > best_score:
                    best, best_score = f, score
            if best is not None and best_score >= self.place_match:
                out[place] = best
        return out

    def known_type(self, obj_type: str) -> str | None:
        """The commonsense entry for a scene type: exact, alias, else the most similar entry."""
        if obj_type in self._type_cache:
            return self._type_cache[obj_type]
        text = name_to_text(obj_type)
        index = self.commonsense.alias_index()
        found = index.get(text)
        if found is None:
            match = self.grounder.ground_name(text, list(self.commonsense.objects), self.type_match)
            found = match.name if match else None
        self._type_cache[obj_type] = found
        return found

    def place_weights(self, obj_type: str) -> dict[str, float]:
        """Scene furniture -> weight for a scene object type (empty when common sense has no idea)."""
        entry = self.known_type(obj_type)
        if entry is None:
            return {}
        out: dict[str, float] = {}
        for place, weight in self.commonsense.objects[entry].items():
            furniture = self.place_map.get(place)
            if furniture is not None:
                out[furniture] = out.get(furniture, 0.0) + weight
        return out


def scene_knowledge(resources: "Resources", world: WorldInfo) -> SceneKnowledge:
    """The commonsense file seen through one scene, built once per backend resources and scene."""
    def build() -> SceneKnowledge:
        cfg = resources.config
        return SceneKnowledge(load_commonsense(cfg.get("offline.commonsense")), world, resources.grounder,
                              float(cfg.get("offline.commonsense_place_match")),
                              float(cfg.get("offline.commonsense_type_match")))

    return resources.shared(("knowledge", world.fingerprint()), build)
