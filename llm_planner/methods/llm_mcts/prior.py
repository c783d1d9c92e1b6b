"""The commonsense prior belief of LLM-MCTS (seed 000, §2.2 and Appendix C.2).

For every movable object type the backend is asked M times for its possible positions (each
answer may list several containers and surfaces). Counting every (relation, furniture) the M
answers name and normalising gives the object's position vector over all containers and surfaces
of the apartment; each entry no answer named gets the lower bound 1e-3 "to ensure that the model
will not eliminate other possibilities when the commonsense model is wrong", and the vector is
renormalised to sum to one. Containers and surfaces are located in their rooms (the scene's map).

Build once and reuse: ``llm-planner build-prior --backend offline --scene apartment_seen --out FILE``
writes JSON; :func:`load_or_build_prior` reuses a file made for the same scene names, backend,
model and M.

The prior never reads where objects are. :func:`evaluate_prior` does, to measure the prior
(top-k rate of true places over sampled placements); it is evaluation code only.
"""
from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from llm_planner.errors import LLMError
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.text import WorldInfo

FORMAT_VERSION = 1


@dataclass(frozen=True)
class PriorBelief:
    """Initial belief b(s0) over the position of each object type (App. C.2)."""

    scene: str
    world_fingerprint: str
    backend: str
    model: str
    samples: int                                  # M
    floor: float
    places: tuple[str, ...]                       # containers, then surfaces
    relation: Mapping[str, str]                   # place -> inside | on
    place_room: Mapping[str, str]                 # place -> room (containers and surfaces are in rooms)
    probs: Mapping[str, tuple[float, ...]]        # object type -> probability per place (sums to 1)
    counts: Mapping[str, Mapping[str, int]]       # object type -> how often the M answers named a place
    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # raw answers, for inspection

    def vector(self, obj_type: str) -> np.ndarray:
        return np.asarray(self.probs[obj_type], dtype=np.float64)

    def distribution(self, obj_type: str) -> dict[str, float]:
        return dict(zip(self.places, self.probs[obj_type]))

    def top(self, obj_type: str, k: int = 3) -> list[tuple[str, float]]:
        """The k most probable places, ties broken by the order of ``places``."""
        vec = self.vector(obj_type)
        order = np.argsort(-vec, kind="stable")[:k]
        return [(self.places[i], float(vec[i])) for i in order]

    # -------------------------------------------------------------------- files
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION, "scene": self.scene, "world_fingerprint": self.world_fingerprint,
            "backend": self.backend, "model": self.model, "samples": self.samples, "floor": self.floor,
            "places": list(self.places), "relation": dict(self.relation), "place_room": dict(self.place_room),
            "probs": {t: [round(p, 6) for p in v] for t, v in self.probs.items()},
            "counts": {t: dict(c) for t, c in self.counts.items()},
            "answers": {t: list(a) for t, a in self.answers.items()},
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> "PriorBelief":
        if data.get("format") != FORMAT_VERSION:
            raise LLMError(f"prior file format {data.get('format')!r} is not {FORMAT_VERSION}; rebuild it")
        return PriorBelief(
            scene=str(data["scene"]), world_fingerprint=str(data["world_fingerprint"]), backend=str(data["backend"]),
            model=str(data["model"]), samples=int(data["samples"]), floor=float(data["floor"]),
            places=tuple(data["places"]), relation=dict(data["relation"]), place_room=dict(data["place_room"]),
            probs={t: tuple(float(p) for p in v) for t, v in data["probs"].items()},
            counts={t: {p: int(c) for p, c in v.items()} for t, v in data["counts"].items()},
            answers={t: tuple(v) for t, v in (data.get("answers") or {}).items()},
        )

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=False) + "\n")
        return path

    @staticmethod
    def load(path: str | Path) -> "PriorBelief":
        try:
            return PriorBelief.from_dict(json.loads(Path(path).read_text()))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise LLMError(f"{path}: not a readable prior belief file ({exc}); rebuild it with "
                           "llm-planner build-prior") from None


def position_vector(counts: Mapping[str, int], places: Sequence[str], floor: float) -> tuple[float, ...]:
    """Counts normalised over the places, every unnamed place at ``floor``, renormalised (App. C.2).
    No answer at all gives the uniform vector."""
    total = sum(counts.get(p, 0) for p in places)
    if total == 0:
        return tuple(1.0 / len(places) for _ in places)
    vec = np.array([counts.get(p, 0) / total if counts.get(p, 0) else floor for p in places], dtype=np.float64)
    vec /= vec.sum()
    return tuple(float(x) for x in vec)


def build_prior(backend: LanguageModel, world: WorldInfo, scene: str = "", m: int | None = None,
                floor: float | None = None, seed: int | None = None,
                obj_types: Sequence[str] | None = None, max_in_flight: int = 1) -> PriorBelief:
    """Ask the backend M times per object type and build the belief (§2.2, App. C.2); with
    ``max_in_flight`` > 1 that many object types are asked at once (same answers, same result)."""
    opts = backend.config.section("world_model")
    m = int(m or opts["samples"])
    floor = float(opts["floor"] if floor is None else floor)
    seed = int(opts["seed"] if seed is None else seed)
    places = tuple(world.containers) + tuple(world.surfaces)
    if not places:
        raise LLMError("the scene has no containers or surfaces to place objects in or on")
    probs: dict[str, tuple[float, ...]] = {}
    counts: dict[str, dict[str, int]] = {}
    answers: dict[str, tuple[str, ...]] = {}
    types = list(obj_types or world.object_types)

    def ask(obj_type: str) -> Any:
        return backend.object_positions(world, obj_type, m=m, seed=seed)

    if max_in_flight > 1 and len(types) > 1:
        with ThreadPoolExecutor(max_workers=min(max_in_flight, len(types)), thread_name_prefix="prior") as pool:
            replies = list(pool.map(ask, types))
    else:
        replies = [ask(t) for t in types]
    for obj_type, answer in zip(types, replies):
        named = Counter(place for sample in answer.samples for _rel, place in sample if place in places)
        counts[obj_type] = dict(named)
        probs[obj_type] = position_vector(named, places, floor)
        answers[obj_type] = answer.raw
    return PriorBelief(
        scene=scene, world_fingerprint=world.fingerprint(), backend=backend.name, model=backend.model,
        samples=m, floor=floor, places=places, relation={p: world.relation(p) for p in places},
        place_room={p: world.furniture_room[p] for p in places}, probs=probs, counts=counts, answers=answers,
    )


def load_or_build_prior(path: str | Path | None, backend: LanguageModel, world: WorldInfo, scene: str = "",
                        m: int | None = None) -> PriorBelief:
    """Reuse ``path`` when it was built for the same scene names, backend, model and M; else build
    (and save to ``path`` when given)."""
    m = int(m or backend.config.get("world_model.samples"))
    if path is not None and Path(path).is_file():
        prior = PriorBelief.load(path)
        if (prior.world_fingerprint == world.fingerprint() and prior.backend == backend.name
                and prior.model == backend.model and prior.samples == m):
            return prior
    prior = build_prior(backend, world, scene=scene, m=m)
    if path is not None:
        prior.save(path)
    return prior


@dataclass(frozen=True)
class PriorEvaluation:
    objects: int
    top1: float
    top3: float
    mean_true_probability: float


def evaluate_prior(prior: PriorBelief, scene, seeds: Sequence[int], k: int = 3) -> PriorEvaluation:  # noqa: ANN001
    """EVALUATION ONLY (reads the scene's hidden placement distribution): the share of sampled
    object instances whose true place is the prior's most probable place (top1) or among its k
    most probable places (top3 for k=3), over placements drawn with ``scene.sample_placement``."""
    top1 = topk = n = 0
    true_prob = 0.0
    tops = {t: [p for p, _ in prior.top(t, k)] for t in prior.probs}
    for seed in seeds:
        for obj, place in scene.sample_placement(seed).items():
            obj_type = scene.type_of(obj)
            if obj_type not in tops:
                continue
            n += 1
            top1 += tops[obj_type][0] == place
            topk += place in tops[obj_type]
            true_prob += prior.distribution(obj_type).get(place, 0.0)
    if n == 0:
        raise LLMError("no object of the prior appears in the scene")
    return PriorEvaluation(n, top1 / n, topk / n, true_prob / n)
