"""Retrieval over the expert data set D (retrieval.py): the most similar instructions and K-shot examples."""
from __future__ import annotations

from llm_planner.domains.household.language.model_resources import expert, policy_examples
from llm_planner.domains.household.language.policy_query import PolicyQuery


def test_top_k_instructions_are_similar(offline):
    index = expert(offline.resources)
    assert len(index.trajectories) == 200
    top = index.similar("put one apple inside the fridge", 3)
    assert all("apple" in index.instructions[i] for i, _ in top)
    assert top[0][1] >= top[-1][1]
    goals = index.similar_goals("place a plate on the kitchen table", 3)
    assert len(goals) == 3 and all(g for _, g in goals)


def test_k_shot_examples_follow_listing_1(offline, seen, seen_world):
    state = seen.sample_initial_state(9)
    query = PolicyQuery(seen_world, "put one mug inside the dishwasher", seen.observe(state), (),
                        tuple(seen.legal_actions(state)))
    blocks = policy_examples(offline.resources, query, 3)
    assert len(blocks) == 3
    for block in blocks:
        lines = block.splitlines()
        assert [line.split(":")[0] for line in lines] == ["Goal", "Completed actions", "Current observation",
                                                          "Next action"]
        assert "," not in lines[-1] and lines[-1].endswith(".")  # the expert's next action only (alpha_i, §2.3)
