"""The curated commonsense file of households (``data/commonsense.yaml`` beside this module): the
general places things are kept in, where each object type usually is, other words for objects and
places, and the verbs that imply a place ("chill" -> fridge). The offline backend's world model
grounds it onto a scene (``llm_planner.domains.household.language.commonsense``); the directive
reader takes its words (``llm_planner.reading``)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from llm_planner.errors import ConfigError

DEFAULT_PATH = Path(__file__).resolve().parent / "data" / "commonsense.yaml"


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
