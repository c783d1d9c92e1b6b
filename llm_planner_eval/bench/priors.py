"""The benchmarks' bookkeeping of the LLM-MCTS prior belief (seed 000, §2.2, App. C.2): built
(or found in the cache) once per apartment before the workers start, and measured against the
scene's hidden placements (which the prior itself never reads)."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner.domains.household.language.model_resources import all_action_texts, warm_actions
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.scene import Scene, load_scene
from llm_planner.errors import LLMError
from llm_planner.methods.llm_mcts.prior import PriorBelief, cached_prior, prior_key, scene_content_hash
from llm_planner.methods.llm_mcts.runtime import llm_runtime
from llm_planner.planners import base as planners


def prepare_bench_priors(homes: Sequence[tuple[str, str]], uses: Sequence[tuple[str, str, Mapping[str, Any]]],
                         progress: bool = True) -> list[str]:
    """Build (or find in the cache) the prior of every apartment for every (planner, backend name,
    LLM overrides) of ``uses`` whose planner starts from the prior, before a benchmark starts its
    workers, with a progress line; returns the header lines saying how long each took or that it
    was reused (the workers then read it from the cache)."""
    planners.available()  # loads the planner classes
    registry = planners._REGISTRY  # (private on purpose) whether a planner class starts from the prior
    wanted = list(dict.fromkeys((b, json.dumps(dict(o), sort_keys=True, default=str)) for p, b, o in uses
                                if getattr(registry.get(p), "uses_prior", False)))
    uses_ = [(b, json.loads(o)) for b, o in wanted]
    lines = []
    for _home, scene_file in homes:
        scene = load_scene(scene_file)
        world = WorldInfo.from_scene(scene)
        seen_keys: set[str] = set()
        for backend_name, overrides in uses_:
            runtime = llm_runtime(backend_name, overrides)
            key = prior_key(runtime.backend, world, scene_content_hash(scene))
            if key in seen_keys:
                continue
            seen_keys.add(key)

            def show(done: int, total: int, name: str = scene.name) -> None:
                if progress and (done == total or done % max(1, total // 20) == 0):
                    print(f"\rbuilding the prior belief of {name}: {done}/{total} object types", end="",
                          file=sys.stderr, flush=True)

            build = cached_prior(runtime.backend, world, scene.name, scene_content_hash(scene), progress=show)
            if progress and not build.reused:
                print(file=sys.stderr, flush=True)
            lines.append(build.describe(scene.name))
            resources = getattr(runtime.backend, "resources", None)
            if resources is not None and resources.config.get("embeddings.warm_actions"):
                # the other part of the cold start: every action sentence of the apartment embedded once
                # (grounding, §2.3), kept in the embedding cache on disk for the workers
                started = time.perf_counter()
                if progress:
                    print(f"embedding the action sentences of {scene.name} ...", end="", file=sys.stderr, flush=True)
                warm_actions(resources, world)
                if progress:
                    print(file=sys.stderr, flush=True)
                lines.append(f"action sentences of {scene.name}: {len(all_action_texts(world))} embedded or read from "
                             f"the embedding cache in {time.perf_counter() - started:.1f} s")
    return lines


@dataclass(frozen=True)
class PriorEvaluation:
    objects: int
    top1: float
    top3: float
    mean_true_probability: float


def evaluate_prior(prior: PriorBelief, scene: Scene, seeds: Sequence[int], k: int = 3) -> PriorEvaluation:
    """The share of sampled
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
