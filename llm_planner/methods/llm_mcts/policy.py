"""The heuristic policy pi(a|h) of LLM-MCTS (seed 000, §2.3), what PUCT asks at a tree node (Alg. 1,
line 28): M sampled next actions from the language model, scored by
:func:`llm_planner.llm.policy.empirical_policy`. A node's answer is kept in memory keyed by the
whole query, and admissible action embeddings are computed once per action text, so a revisited
node costs a dictionary lookup and a new node with a cached answer a few small numpy products.

Every answer the backend gives (not the memory's repeats) is counted in :class:`PolicyStats`: the
samples asked, those that read (as an admissible action, or "done"), and those read as their
nearest admissible action (``policy.inadmissible: nearest``) with their cosine. Their share
:meth:`PolicyStats.reliability` is the model's measured reliability on this question kind, by
which the search mixes pi with the uniform distribution (:func:`~llm_planner.methods.llm_mcts.tree.trusted`).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from llm_planner.domains.household.language.model_resources import grounder_of, warm_actions
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.questions import next_actions
from llm_planner.errors import UnusableAnswer
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.policy import empirical_policy


@dataclass
class PolicyStats:
    """Questions and the samples of the answers the backend gave (kept over the process's run)."""

    calls: int = 0
    memory_hits: int = 0
    samples: int = 0                # samples the backend gave (M per answer; an answer with none usable too)
    read: int = 0                   # of those, samples that read as an admissible action or as "done"
    mapped: int = 0                 # of the read ones, samples read as their nearest admissible action
    mapped_similarity: float = 0.0  # sum of the cosines of the mapped samples

    def reliability(self) -> float:
        """The share of samples that read (1.0 before any answer: nothing measured yet)."""
        return self.read / self.samples if self.samples else 1.0

    def count(self, samples: int, read: int, mapped: tuple[float, ...] = ()) -> None:
        self.samples += samples
        self.read += read
        self.mapped += len(mapped)
        self.mapped_similarity += float(sum(mapped))


class HeuristicPolicy:
    """pi(a|h) over ``query.admissible`` from M samples of the backend (LLM-MCTS §2.3).

    ``lam``, ``m``, ``k`` and ``scale`` default to ``policy.lambda``, ``policy.samples``,
    ``policy.shots`` and ``policy.softmax_scale`` of the backend's configuration."""

    def __init__(self, backend: LanguageModel, lam: float | None = None, m: int | None = None,
                 k: int | None = None, scale: float | None = None, seed: int | None = None,
                 memory: int = 50_000) -> None:
        opts = backend.config.section("policy")
        self.backend = backend
        self.lam = float(opts["lambda"] if lam is None else lam)
        self.m = int(opts["samples"] if m is None else m)
        self.k = int(opts["shots"] if k is None else k)
        self.scale = float(opts["softmax_scale"] if scale is None else scale)
        self.seed = int(opts["seed"] if seed is None else seed)
        self.stats = PolicyStats()
        self._memory: OrderedDict[PolicyQuery, np.ndarray] = OrderedDict()
        self._capacity = memory
        self._lock = threading.Lock()  # a search may ask from several threads at once

    def __call__(self, query: PolicyQuery) -> np.ndarray:
        """Probabilities aligned with ``query.admissible`` (sum 1). Raises LLMError when the backend fails
        (UnusableAnswer when no sample reads, counted as M unread samples).
        Safe to call from several threads; the backend is asked outside the lock."""
        with self._lock:
            self.stats.calls += 1
            hit = self._memory.get(query)
            if hit is not None:
                self.stats.memory_hits += 1
                self._memory.move_to_end(query)
                return hit
        if not query.admissible:
            return np.zeros(0)
        warm_actions(self.backend.resources, query.world)
        try:
            samples = next_actions(self.backend, query, m=self.m, k=self.k, seed=self.seed)
        except UnusableAnswer:
            with self._lock:
                self.stats.count(self.m, 0)
            raise
        with self._lock:
            self.stats.count(max(len(samples.raw), len(samples.texts) + samples.done),
                             len(samples.texts) + samples.done, samples.mapped)
        sims = grounder_of(self.backend.resources).action_similarities(list(samples.texts), list(query.admissible))
        probs = empirical_policy(sims, self.lam, self.scale)
        probs.setflags(write=False)
        with self._lock:
            self._memory[query] = probs
            if len(self._memory) > self._capacity:
                self._memory.popitem(last=False)
        return probs

    def distribution(self, query: PolicyQuery) -> dict:
        """The same probabilities as a mapping action -> probability."""
        return dict(zip(query.admissible, self(query).tolist(), strict=True))
