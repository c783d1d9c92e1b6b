"""The prior belief (LLM-MCTS App. C.2) is built once per apartment and backend and
reused from the disk cache by later processes, which say so."""
from __future__ import annotations

import dataclasses

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.llm.factory import make_backend
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.methods.llm_mcts.prior import cached_prior, prior_key, scene_content_hash


def test_built_once_then_reused_and_keyed_by_content(offline):
    scene = load_scene("apartment_seen")
    world = WorldInfo.from_scene(scene)
    calls = []
    first = cached_prior(offline, world, scene.name, scene_content_hash(scene),
                         progress=lambda done, total: calls.append((done, total)))
    assert not first.reused and first.path is not None and first.path.is_file()
    assert calls[-1] == (len(world.object_types), len(world.object_types))  # a progress line per object type
    assert "built in" in first.describe(scene.name) and "cached" in first.describe(scene.name)
    again = cached_prior(offline, world, scene.name, scene_content_hash(scene), progress=lambda *a: calls.append(a))
    assert again.reused and again.path == first.path and len(calls) == len(world.object_types)
    assert again.prior.probs == first.prior.probs
    assert "reused from the cache" in again.describe(scene.name)
    # another scene content (an edited file) or another prior setting is another key
    edited = dataclasses.replace(scene, raw={**scene.raw, "name": "apartment_seen_edited"})
    assert scene_content_hash(edited) != scene_content_hash(scene)
    assert prior_key(offline, world, scene_content_hash(edited)) != prior_key(offline, world, scene_content_hash(scene))
    other = make_backend(backend="offline", embedder=offline.resources.embedder, world_model__floor=0.01,
                         cache__dir=str(offline.config.cache_dir))
    assert prior_key(other, world, scene_content_hash(scene)) != prior_key(offline, world, scene_content_hash(scene))
