"""Fakes for the SayCanPay tests: a deterministic embedder (no Sentence-BERT) and a scripted Say."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np
import pytest

from llm_planner.domains.household.language.questions import ActionSamples, Candidates
from llm_planner.domains.household.language.text import action_to_text
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.llm.base import AnswerInfo, Usage
from llm_planner.llm.embeddings import DIM


class HashEmbedder:
    """Unit vectors seeded by the text: equal texts, equal vectors; different texts, near-orthogonal."""

    def encode(self, texts):
        rows = []
        for t in texts:
            rng = np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16))
            v = rng.normal(size=DIM).astype(np.float32)
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows) if rows else np.zeros((0, DIM), np.float32)


class ExactGrounder:
    """Similarity 1 between an action and its own sentence, 0 otherwise (no Sentence-BERT)."""

    def action_similarities(self, texts, actions):
        words = [action_to_text(a) for a in actions]
        return np.array([[1.0 if t == w else 0.0 for w in words] for t in texts], dtype=np.float32).reshape(
            len(texts), len(actions))


class _Config:
    def section(self, name):
        return {"candidates": {"m": 6, "samples": 4, "shots": 0, "softmax_scale": 1.0}}[name]

    def get(self, key):
        return {"embeddings.warm_actions": False}[key]


@dataclass
class _Resources:
    embedder: HashEmbedder = field(default_factory=HashEmbedder)
    config: _Config = field(default_factory=_Config)
    parts: dict = field(default_factory=lambda: {"household.grounder": ExactGrounder()})

    def shared(self, key, build):
        if key not in self.parts:
            self.parts[key] = build()
        return self.parts[key]


class ScriptedSay:
    """A backend whose Say answers ``script(query) -> [(action, p), ...]``; records the queries.
    The paper's decoder asks ``next_actions``: ``plan_script(query) -> (action texts, done answers)``."""

    name = "scripted"

    def __init__(self, script=None, plan_script=None):
        self.script = script
        self.plan_script = plan_script
        self.queries = []
        self.usage = Usage()
        self.resources = _Resources()
        self.config = _Config()

    def answer(self, kind, question, n=None, seed=None):
        if kind == "candidate_actions":  # Say: the query, n = m
            self.queries.append(question)
            return Candidates(tuple(self.script(question)[:n]), AnswerInfo("scripted", "none"))
        assert kind == "next_actions", kind
        self.queries.append(question.query)
        texts, done = self.plan_script(question.query)
        return ActionSamples(tuple(texts), done, tuple(texts), AnswerInfo("scripted", "none"))


class ScriptedTokens(ScriptedSay):
    """A backend that offers token log-probabilities: ``logprob_script(query, n, greedy) -> [(text, logprob)]``."""

    def __init__(self, logprob_script):
        super().__init__()
        self.logprob_script = logprob_script

    def next_action_logprobs(self, query, n=1, greedy=False):
        self.queries.append(query)
        return self.logprob_script(query, n, greedy)


@pytest.fixture(scope="session")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()
