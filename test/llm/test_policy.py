"""The empirical heuristic policy of LLM-MCTS §2.3 (policy.py)."""
from __future__ import annotations

import time

import numpy as np
import pytest

from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.llm.policy import empirical_policy, say_candidates
from llm_planner.methods.llm_mcts.policy import HeuristicPolicy


def test_formula_of_section_2_3():
    sims = np.array([[0.9, 0.1, 0.2], [0.8, 0.3, 0.1]])  # M=2 samples, |A|=3
    lam = 0.5
    summed = sims.sum(axis=0)
    soft = np.exp(summed - summed.mean()) / np.exp(summed - summed.mean()).sum()
    expected = lam / 3 + (1 - lam) * soft
    got = empirical_policy(sims, lam)
    assert np.allclose(got, expected) and abs(got.sum() - 1) < 1e-12
    assert got.argmax() == 0 and got.min() >= lam / 3


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.5, 1.0])
def test_mixture_bounds(lam):
    rng = np.random.default_rng(0)
    sims = rng.uniform(-1, 1, size=(5, 17))
    p = empirical_policy(sims, lam, scale=3.0)
    assert abs(p.sum() - 1) < 1e-12 and p.min() >= lam / 17 - 1e-12
    if lam == 1.0:
        assert np.allclose(p, 1 / 17)


def test_no_usable_sample_is_uniform():
    assert np.allclose(empirical_policy(np.zeros((0, 4)), 0.5), 0.25)
    assert empirical_policy(np.zeros((3, 0)), 0.5).shape == (0,)


def test_say_candidates_top_m():
    sims = np.array([[0.9, 0.1, 0.5, 0.2], [0.8, 0.2, 0.6, 0.1]])
    ranked = say_candidates(sims, ["a", "b", "c", "d"], 2)
    assert [a for a, _ in ranked] == ["a", "c"] and abs(sum(p for _, p in ranked) - 1) < 1e-12
    assert say_candidates(np.zeros((0, 3)), ["a", "b", "c"], 2) == [("a", 0.5), ("b", 0.5)]


def test_heuristic_policy_is_cheap_at_revisited_nodes(offline, seen, seen_world):
    policy = HeuristicPolicy(offline)
    assert (policy.lam, policy.m, policy.k) == (0.5, 5, 3)
    state = seen.sample_initial_state(5)
    query = PolicyQuery(seen_world, "put one apple inside the fridge", seen.observe(state), (),
                        tuple(seen.legal_actions(state)))
    first = policy(query)
    questions = offline.usage.questions
    started = time.perf_counter()
    for _ in range(1000):
        again = policy(query)
    per_call = (time.perf_counter() - started) / 1000
    assert again is first and offline.usage.questions == questions and policy.stats.memory_hits == 1000
    assert per_call < 1e-3
    assert abs(first.sum() - 1) < 1e-9 and len(first) == len(query.admissible)
    dist = policy.distribution(query)
    assert max(dist, key=dist.get).args == ("kitchen",)
