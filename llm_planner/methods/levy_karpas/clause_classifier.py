"""The offline Levy-Karpas channels' clause classifier: k nearest labelled clauses of the data set's
train split by Sentence-BERT similarity (plus a lexical term), trained once per process and
configuration; a clause too far from every example is ``unknown``."""
from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from llm_planner.domains.household.language.grounding import Grounder
from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import LLMError
from llm_planner.llm.base import LanguageModel
from llm_planner.methods.levy_karpas.clauses import LABELS
from llm_planner.methods.levy_karpas.dataset import Clause, DirectiveSample, build_splits


class ClauseClassifier:
    """k-NN clause labels over Sentence-BERT embeddings of name-masked clauses (trained model)."""

    def __init__(self, grounder: Grounder, k: int = 7, unknown_similarity: float = 0.45,
                 temperature: float = 0.05, lexical_weight: float = 0.5) -> None:
        self.grounder = grounder
        self.k = k
        self.unknown_similarity = unknown_similarity
        self.temperature = temperature
        self.lexical_weight = lexical_weight
        self.labels: list[str] = []
        self.words: list[frozenset[str]] = []
        self.matrix = np.zeros((0, 0), dtype=np.float32)
        self._masks: dict[str, re.Pattern] = {}

    def mask(self, text: str, world: WorldInfo) -> str:
        """Scene names replaced by their category ("take the apple" -> "take the object")."""
        pattern = self._masks.get(world.fingerprint())
        if pattern is None:
            names = {name_to_text(n): "object" for n in world.object_types}
            names.update({name_to_text(n): "furniture" for n in world.furniture})
            names.update({name_to_text(n): "room" for n in world.rooms})
            alternatives = "|".join(re.escape(w) for w in sorted(names, key=len, reverse=True))
            pattern = re.compile(rf"\b({alternatives})(?:e?s)?\b")
            self._masks[world.fingerprint()] = pattern
            self._tags = getattr(self, "_tags", {})
            self._tags.update(names)
        return pattern.sub(lambda m: self._tags[m.group(1)], text)

    def similarity(self, texts: Sequence[str]) -> np.ndarray:
        """(1 - w) x Sentence-BERT cosine + w x word overlap (Jaccard) to every training clause: the
        embedding alone hardly separates "take the object from ..." (grab) from "... to ..." (bring)."""
        sims = self.grounder.embedder.encode(list(texts)) @ self.matrix.T
        if self.lexical_weight <= 0:
            return sims
        lexical = np.array([[len(q & w) / max(1, len(q | w)) for w in self.words]
                            for q in (frozenset(t.split()) for t in texts)], dtype=np.float32)
        return (1.0 - self.lexical_weight) * sims + self.lexical_weight * lexical

    def fit(self, clauses: Sequence[Clause], worlds: Sequence[WorldInfo]) -> ClauseClassifier:
        """Train on labelled clauses; ``worlds[i]`` is the scene of ``clauses[i]`` (for masking)."""
        if not clauses:
            raise LLMError("the clause classifier needs training clauses (the data set's train split)")
        texts = [self.mask(c.text, w) for c, w in zip(clauses, worlds, strict=True)]
        unique: dict[tuple[str, str], None] = {}  # (masked text, label) in first-seen order
        for text, clause in zip(texts, clauses, strict=True):
            unique.setdefault((text, clause.label), None)
        self.labels = [lab for _t, lab in unique]
        self.words = [frozenset(t.split()) for t, _lab in unique]
        self.matrix = self.grounder.embedder.encode([t for t, _lab in unique])
        return self

    def predict(self, texts: Sequence[str], world: WorldInfo) -> list[dict[str, float]]:
        """Per clause, label -> probability; an empty mapping for a clause like no training clause."""
        if not len(self.labels):
            raise LLMError("the clause classifier is not trained")
        if not texts:
            return []
        sims = self.similarity([self.mask(t, world) for t in texts])
        out: list[dict[str, float]] = []
        for row in sims:
            order = np.argsort(-row)[: self.k]
            if row[order[0]] < self.unknown_similarity:
                out.append({})
                continue
            weights = np.exp((row[order] - row[order[0]]) / self.temperature)
            probs: dict[str, float] = {}
            for i, w in zip(order, weights, strict=True):
                probs[self.labels[i]] = probs.get(self.labels[i], 0.0) + float(w)
            total = sum(probs.values())
            out.append({lab: p / total for lab, p in sorted(probs.items(), key=lambda x: -x[1])})
        return out


def clause_training_data(samples: Sequence[Any],
                         worlds: Mapping[str, WorldInfo]) -> tuple[list[Clause], list[WorldInfo]]:
    """The labelled clauses of data-set samples and the scene of each (for :meth:`ClauseClassifier.fit`)."""
    clauses, where = [], []
    for s in samples:
        for c in s.clauses:
            if c.label in LABELS:
                clauses.append(c)
                where.append(worlds[s.scene])
    return clauses, where


_LOCK = threading.Lock()
_TRAINED: dict[str, tuple[list[DirectiveSample], ClauseClassifier]] = {}


def trained_classifier(backend: LanguageModel,
                       config: Mapping[str, Any]) -> tuple[list[DirectiveSample], ClauseClassifier]:
    """The train split and the clause classifier fitted on it (once per process and configuration)."""
    opts = config["channels"]
    key = repr((sorted(config["dataset"]["splits"]["train"].items()), opts["knn_k"], opts["unknown_similarity"],
                opts["lexical_weight"], id(backend.resources.embedder)))
    with _LOCK:
        if key not in _TRAINED:
            train = build_splits(config["dataset"])["train"]
            worlds = {name: WorldInfo.from_household(Household(load_scene(name))) for name in {s.scene for s in train}}
            classifier = ClauseClassifier(grounder_of(backend.resources), int(opts["knn_k"]),
                                          float(opts["unknown_similarity"]),
                                          lexical_weight=float(opts["lexical_weight"]))
            classifier.fit(*clause_training_data(train, worlds))
            _TRAINED[key] = (train, classifier)
        return _TRAINED[key]
