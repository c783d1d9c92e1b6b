"""The empirical heuristic policy of LLM-MCTS (seed 000, §2.3):

    pi(a|h) = lambda / |A| + (1 - lambda) * Softmax{ sum_i CosineSim(alpha_i, a) - eta }

where alpha_1..alpha_M are the first actions of M sampled answers, a ranges over the admissible
actions A of the node, eta is the mean over A of sum_i CosineSim(alpha_i, a), and lambda mixes in
the uniform distribution "as the sampled actions from LLM could be very deterministic".

:class:`HeuristicPolicy` is what PUCT calls at a tree node (Alg. 1, line 28). A node's answer is
kept in memory keyed by the whole query, and admissible action embeddings are computed once per
action text, so a revisited node costs a dictionary lookup and a new node with a cached answer a
few small numpy products.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from llm_planner.llm.base import LanguageModel, PolicyQuery


def empirical_policy(similarities: np.ndarray, lam: float = 0.5, scale: float = 1.0) -> np.ndarray:
    """pi over the columns of ``similarities`` (rows: sampled actions alpha_i, columns: admissible a).

    With no samples (every answer said "done" or gave nothing usable) the policy is uniform.
    ``scale`` multiplies the centred sums before the softmax (1.0 is the paper's formula)."""
    n_actions = similarities.shape[1] if similarities.ndim == 2 else 0
    if n_actions == 0:
        return np.zeros(0)
    uniform = np.full(n_actions, 1.0 / n_actions)
    if similarities.shape[0] == 0:
        return uniform
    summed = similarities.astype(np.float64).sum(axis=0)
    centred = scale * (summed - summed.mean())  # eta: the average of the sums
    centred -= centred.max()  # numerically stable softmax (the shift changes nothing)
    soft = np.exp(centred)
    soft /= soft.sum()
    return lam * uniform + (1.0 - lam) * soft


def say_candidates(similarities: np.ndarray, admissible: list, m: int, scale: float = 1.0) -> list:
    """SayCanPay's Say (seed 004, §5): the top-m admissible actions with probabilities, here the
    sampled-answer estimate of §2.3 without the uniform part (lambda = 0), renormalised over the
    m returned. Without usable samples every action is equally likely."""
    if not admissible:
        return []
    probs = empirical_policy(similarities, lam=0.0, scale=scale) if similarities.shape[0] else \
        np.full(len(admissible), 1.0 / len(admissible))
    order = np.argsort(-probs, kind="stable")[:m]
    top = probs[order]
    top = top / top.sum() if top.sum() > 0 else np.full(len(order), 1.0 / len(order))
    return [(admissible[i], float(p)) for i, p in zip(order, top)]


@dataclass
class PolicyStats:
    calls: int = 0
    memory_hits: int = 0


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
        """Probabilities aligned with ``query.admissible`` (sum 1). Raises LLMError when the backend fails.
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
        self.backend.resources.warm_actions(query.world)
        samples = self.backend.next_actions(query, m=self.m, k=self.k, seed=self.seed)
        sims = self.backend.resources.grounder.action_similarities(list(samples.texts), list(query.admissible))
        probs = empirical_policy(sims, self.lam, self.scale)
        probs.setflags(write=False)
        with self._lock:
            self._memory[query] = probs
            if len(self._memory) > self._capacity:
                self._memory.popitem(last=False)
        return probs

    def distribution(self, query: PolicyQuery) -> dict:
        """The same probabilities as a mapping action -> probability."""
        return dict(zip(query.admissible, self(query).tolist()))
