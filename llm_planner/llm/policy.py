"""How sampled answers become a distribution over the admissible actions: the empirical estimate of
LLM-MCTS (seed 000, §2.3):

    pi(a|h) = lambda / |A| + (1 - lambda) * Softmax{ sum_i CosineSim(alpha_i, a) - eta }

where alpha_1..alpha_M are the first actions of M sampled answers, a ranges over the admissible
actions A of the node, eta is the mean over A of sum_i CosineSim(alpha_i, a), and lambda mixes in
the uniform distribution "as the sampled actions from LLM could be very deterministic".

It is LLM-MCTS's heuristic policy (:class:`llm_planner.methods.llm_mcts.policy.HeuristicPolicy`)
and, without the uniform part, SayCanPay's Say (:func:`say_candidates`, the household's
``candidate_actions`` question, :mod:`llm_planner.methods.saycanpay.questions`).
"""
from __future__ import annotations

import numpy as np


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
    return [(admissible[i], float(p)) for i, p in zip(order, top, strict=True)]
