"""Fakes for the SayCanPay tests: a deterministic embedder (no Sentence-BERT) and a scripted Say."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pytest

from llm_planner.llm.base import AnswerInfo, Candidates, Usage
from llm_planner.llm.embeddings import DIM
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household


class HashEmbedder:
    """Unit vectors seeded by the text: equal texts, equal vectors; different texts, near-orthogonal."""

    def encode(self, texts):
        rows = []
        for t in texts:
            rng = np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16))
            v = rng.normal(size=DIM).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows) if rows else np.zeros((0, DIM), np.float32)


@dataclass
class _Resources:
    embedder: HashEmbedder = field(default_factory=HashEmbedder)


class ScriptedSay:
    """A backend whose Say answers ``script(query) -> [(action, p), ...]``; records the queries."""

    name = "scripted"

    def __init__(self, script):
        self.script = script
        self.queries = []
        self.usage = Usage()
        self.resources = _Resources()

    def candidate_actions(self, query, m=None):
        self.queries.append(query)
        return Candidates(tuple(self.script(query)[:m]), AnswerInfo("scripted", "none"))


@pytest.fixture(scope="session")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()
