"""Sentence-BERT embeddings (embeddings.py): normalised, batched, cached in memory and on disk."""
from __future__ import annotations

import time

import numpy as np

from llm_planner.domains.household.language.model_resources import warm_actions
from llm_planner.llm.embeddings import DIM, Embedder


def test_unit_vectors_and_memory_cache(embedder):
    before = embedder.encoded
    vecs = embedder.encode(["fridge", "refrigerator", "fridge"])
    assert vecs.shape == (3, DIM) and np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert np.allclose(vecs[0], vecs[2])
    assert embedder.encoded - before <= 2
    again = embedder.encoded
    embedder.encode(["refrigerator", "fridge"])
    assert embedder.encoded == again  # served from memory
    assert float(vecs[0] @ vecs[1]) > 0.6  # the same thing in other words
    assert embedder.encode([]).shape == (0, DIM)


def test_disk_cache_spares_the_model(embedder, tmp_path):
    texts = [f"put the mug {i} inside the kitchen cabinet" for i in range(40)]
    first = Embedder(cache_dir=tmp_path)
    started = time.perf_counter()
    vecs = first.encode(texts)
    seconds = time.perf_counter() - started
    print(f"\nembedding speed: {len(texts) / seconds:.0f} short strings/s batched (shared 2-core CPU)")
    second = Embedder(cache_dir=tmp_path)
    assert np.allclose(second.encode(texts), vecs) and second.encoded == 0


def test_warm_actions_encodes_a_worlds_action_sentences_once(embedder, offline):
    from llm_planner.llm.resources import Resources
    from llm_planner.domains.household.language.model_resources import all_action_texts
    from llm_planner.domains.household.language.text import WorldInfo

    world = WorldInfo(rooms=("hall", "den"), containers=("chest",), surfaces=("shelf",),
                      furniture_room={"chest": "hall", "shelf": "den"}, object_type={"cup_1": "cup"})
    texts = all_action_texts(world)
    assert "put the cup 1 inside the chest" in texts and "put the cup 1 on the shelf" in texts and len(texts) == 10
    resources = Resources(offline.config.with_overrides(embeddings__warm_actions=True), embedder=embedder)
    warm_actions(resources, world)
    before = embedder.encoded
    embedder.encode(texts)
    warm_actions(resources, world)
    assert embedder.encoded == before
