"""The commonsense prior belief of LLM-MCTS (seed 000, §2.2 and Appendix C.2).

For every movable object type the backend is asked M times for its possible positions (each
answer may list several containers and surfaces). Counting every (relation, furniture) the M
answers name and normalising gives the object's position vector over all containers and surfaces
of the apartment; each entry no answer named gets the lower bound 1e-3 "to ensure that the model
will not eliminate other possibilities when the commonsense model is wrong", and the vector is
renormalised to sum to one. Containers and surfaces are located in their rooms (the scene's map).

Build once and reuse: ``llm-planner build-prior --backend offline --scene apartment_seen --out FILE``
writes JSON; :func:`load_or_build_prior` reuses a file made for the same scene names, backend,
model and M. Without a file, :func:`cached_prior` keeps each prior under the LLM cache directory,
keyed by the scene file's content, the backend, its model and every setting the answers depend on
(:func:`prior_key`), so benchmark workers and later runs reuse it instead of asking again (the
cold start of a large apartment: one question per object type, M answers each).

The prior never reads where objects are; measuring it against the scene's hidden placements is
the benchmarks' business.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_planner.domains.household.language.questions import PositionSamples, object_positions
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.commonsense import DEFAULT_PATH
from llm_planner.errors import DecisionCanceled, LLMError, UnusableAnswer
from llm_planner.llm.base import AnswerInfo, LanguageModel
from llm_planner.planners.base import wait_unless_stopped

if TYPE_CHECKING:
    pass

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
    cache_key: str = ""                           # prior_key() it was built under ("" when not cached)
    build_seconds: float = 0.0                    # how long asking the backend took
    read: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # type -> (samples that named a place, asked)

    def reliability(self, obj_type: str | None = None) -> float:
        """The share of the world model's samples that named a container or surface of the scene, for
        one object type or over all (1.0 when nothing was asked). A file written without ``read``
        counts every sample of a type with a named place as read."""
        read = self.read or {t: (self.samples, self.samples) if any(c.values()) else (0, self.samples)
                             for t, c in self.counts.items()}
        rows = [read[obj_type]] if obj_type is not None and obj_type in read else \
            [] if obj_type is not None else list(read.values())
        asked = sum(a for _r, a in rows)
        return sum(r for r, _a in rows) / asked if asked else 1.0

    def vector(self, obj_type: str) -> np.ndarray:
        return np.asarray(self.probs[obj_type], dtype=np.float64)

    def distribution(self, obj_type: str) -> dict[str, float]:
        return dict(zip(self.places, self.probs[obj_type], strict=True))

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
            "cache_key": self.cache_key, "build_seconds": round(self.build_seconds, 3),
            "read": {t: list(v) for t, v in self.read.items()},
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> PriorBelief:
        if data.get("format") != FORMAT_VERSION:
            raise LLMError(f"prior file format {data.get('format')!r} is not {FORMAT_VERSION}; rebuild it")
        return PriorBelief(
            scene=str(data["scene"]), world_fingerprint=str(data["world_fingerprint"]), backend=str(data["backend"]),
            model=str(data["model"]), samples=int(data["samples"]), floor=float(data["floor"]),
            places=tuple(data["places"]), relation=dict(data["relation"]), place_room=dict(data["place_room"]),
            probs={t: tuple(float(p) for p in v) for t, v in data["probs"].items()},
            counts={t: {p: int(c) for p, c in v.items()} for t, v in data["counts"].items()},
            answers={t: tuple(v) for t, v in (data.get("answers") or {}).items()},
            cache_key=str(data.get("cache_key") or ""), build_seconds=float(data.get("build_seconds") or 0.0),
            read={t: (int(v[0]), int(v[1])) for t, v in (data.get("read") or {}).items()},
        )

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), indent=1, sort_keys=False) + "\n")
        return path

    def save_to_cache(self, path: Path) -> Path | None:
        """Save atomically (a temporary file, then a rename: concurrent workers never read half a
        file); None when the cache is unwritable, which only costs building again next time."""
        try:
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            self.save(tmp)
            os.replace(tmp, path)
        except OSError:
            return None
        return path

    @staticmethod
    def load(path: str | Path) -> PriorBelief:
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
                obj_types: Sequence[str] | None = None, max_in_flight: int = 1,
                progress: Callable[[int, int], None] | None = None,
                should_stop: Callable[[], bool] | None = None) -> PriorBelief:
    """Ask the backend M times per object type and build the belief (§2.2, App. C.2); with
    ``max_in_flight`` > 1 that many object types are asked at once (same answers, same result).
    ``progress(done, total)`` is called after each object type. ``should_stop`` (a planner's
    :attr:`~llm_planner.planners.base.Planner.should_stop`) is asked while the answers come: when it
    is True the build ends with :class:`DecisionCanceled` and asks nothing more (the answers that
    came are in the answer cache, so the next build asks only the rest)."""
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
    read: dict[str, tuple[int, int]] = {}
    types = list(obj_types or world.object_types)

    started = time.perf_counter()
    done = [0]

    def ask(obj_type: str) -> Any:
        try:
            answer = object_positions(backend, world, obj_type, m=m, seed=seed)
        except UnusableAnswer as exc:  # a model that names no place of the scene: that type's belief stays
            answer = PositionSamples(obj_type, (), (f"(no usable answer: {exc})",),  # uniform
                                     AnswerInfo(backend.name, backend.model))
        if progress is not None:
            done[0] += 1
            progress(done[0], len(types))
        return answer

    hint = f"llm-planner build-prior --scene {scene or '<scene>'} --cache --backend {backend.name}"
    replies = _ask_each(ask, types, max_in_flight, should_stop, hint)
    for obj_type, answer in zip(types, replies, strict=True):
        named = Counter(place for sample in answer.samples for _rel, place in sample if place in places)
        counts[obj_type] = dict(named)
        probs[obj_type] = position_vector(named, places, floor)
        answers[obj_type] = answer.raw
        read[obj_type] = (len(answer.samples), max(len(answer.raw), len(answer.samples)) if answer.samples else m)
    return PriorBelief(
        scene=scene, world_fingerprint=world.fingerprint(), backend=backend.name, model=backend.model,
        samples=m, floor=floor, places=places, relation={p: world.relation(p) for p in places},
        place_room={p: world.furniture_room[p] for p in places}, probs=probs, counts=counts, answers=answers,
        build_seconds=time.perf_counter() - started, read=read,
    )


def _ask_each(ask: Callable[[str], Any], types: list[str], max_in_flight: int,
              should_stop: Callable[[], bool] | None, hint: str) -> list[Any]:
    """``ask`` of every object type, ``max_in_flight`` at once, in order; DecisionCanceled as soon as
    ``should_stop`` says so (the questions not yet sent are dropped, those in flight run out)."""
    if should_stop is None and (max_in_flight <= 1 or len(types) <= 1):
        return [ask(t) for t in types]
    pool = ThreadPoolExecutor(max_workers=max(1, min(max_in_flight, len(types))), thread_name_prefix="prior")
    try:
        futures = [pool.submit(ask, t) for t in types]
        if not wait_unless_stopped(futures, None, should_stop):
            done = sum(f.done() for f in futures)
            raise DecisionCanceled(f"stopped while the prior was built from the model ({done} of {len(types)} object "
                                   f"types answered; build it beforehand: `{hint}`, with the graph's --llm-config)")
        return [f.result() for f in futures]
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


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


# ----------------------------------------------------------------------------- the disk cache
def scene_content_hash(scene: Any) -> str:
    """sha256 of a scene's content (its parsed YAML, key order free): an edited file is another scene."""
    raw = getattr(scene, "raw", None) or {}
    return hashlib.sha256(json.dumps(raw, sort_keys=True, default=str).encode()).hexdigest()


def prior_key(backend: LanguageModel, world: WorldInfo, scene_hash: str) -> str:
    """The cache key of a prior: the scene's content and names, the backend and its model, the
    ``world_model`` settings (M, floor, seed, sampling), the offline backend's commonsense
    settings and file, and the world-model prompt: everything its answers depend on."""

    cfg = backend.config
    parts: dict[str, Any] = {"format": FORMAT_VERSION, "scene": scene_hash, "world": world.fingerprint(),
                             "backend": backend.name, "model": backend.model,
                             "world_model": dict(cfg.section("world_model"))}
    if backend.name == "offline":
        offline = dict(cfg.section("offline"))
        parts["offline"] = {k: v for k, v in offline.items() if str(k).startswith("commonsense")}
        commonsense = Path(offline.get("commonsense") or DEFAULT_PATH)
        parts["commonsense_file"] = (hashlib.sha256(commonsense.read_bytes()).hexdigest() if commonsense.is_file()
                                     else "")
    else:
        prompt = Path(__file__).resolve().parents[2] / "llm" / "prompts" / "world_model.txt"
        parts["prompt"] = hashlib.sha256(prompt.read_bytes()).hexdigest() if prompt.is_file() else ""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class PriorBuild:
    """A prior from :func:`cached_prior` and how it was had: built now, or reused from the cache."""

    prior: PriorBelief
    path: Path | None
    reused: bool
    seconds: float          # spent now (building, or reading the file)

    def describe(self, scene: str) -> str:
        """One line for a benchmark header."""
        n = len(self.prior.probs)
        where = f" ({self.path})" if self.path else ""
        if self.reused:
            return (f"prior belief of {scene}: reused from the cache{where}, {n} object types, built earlier in "
                    f"{self.prior.build_seconds:.1f} s; read in {self.seconds:.2f} s")
        return (f"prior belief of {scene}: built in {self.seconds:.1f} s ({n} object types x M={self.prior.samples} "
                f"answers, backend {self.prior.backend}); cached{where} for the workers and later runs")


def prior_cache_path(backend: LanguageModel, scene: str, key: str) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{scene}-{backend.name}-{backend.model}")
    return Path(backend.config.cache_dir) / "priors" / f"prior-{safe}-{key[:16]}.json"


def cached_prior(backend: LanguageModel, world: WorldInfo, scene: str, scene_hash: str, max_in_flight: int = 1,
                 progress: Callable[[int, int], None] | None = None,
                 should_stop: Callable[[], bool] | None = None) -> PriorBuild:
    """The prior of an apartment from the disk cache when one was built under the same
    :func:`prior_key`, else built (``progress`` called per object type, ``should_stop`` as
    :func:`build_prior` takes it) and saved atomically."""
    started = time.perf_counter()
    key = prior_key(backend, world, scene_hash)
    path = prior_cache_path(backend, scene, key)
    if path.is_file():
        try:
            found = PriorBelief.load(path)
        except LLMError:
            found = None
        if found is not None and found.cache_key == key:
            return PriorBuild(found, path, True, time.perf_counter() - started)
    prior = build_prior(backend, world, scene=scene, max_in_flight=max_in_flight, progress=progress,
                        should_stop=should_stop)
    # as the file holds it (probabilities rounded), so a run that builds and one that reuses plan alike
    prior = PriorBelief.from_dict(PriorBelief(**{**prior.__dict__, "cache_key": key}).to_dict())
    return PriorBuild(prior, prior.save_to_cache(path), False, time.perf_counter() - started)
