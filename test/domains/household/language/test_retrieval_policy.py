"""The offline retrieval policy (domains/household/language/retrieval_policy.py): D's steps abstracted into
situations, and what the robot knows from its own observations and actions."""
from __future__ import annotations

from llm_planner.domains.household.world.symbolic import Action
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.retrieval_policy import knowledge_from, retrieval_policy


def test_every_expert_step_is_abstracted_once(offline):
    policy = retrieval_policy(offline.resources)
    assert policy is retrieval_policy(offline.resources)  # built once per backend
    assert policy.steps and {s.trajectory for s in policy.steps} == set(range(len(policy.trajectories)))


def test_knowledge_from_observations_and_own_actions(seen, seen_world):
    state = seen.sample_initial_state(0)
    obs0 = seen.observe(state)
    state, obs1, _, _ = seen.step(state, Action("walk", ("kitchen",)), ())
    query = PolicyQuery(seen_world, "x", obs1, (Action("walk", ("kitchen",)),), (), None, (obs0,))
    know = knowledge_from(query)
    assert know.searched == set(obs0.seen_places) | set(obs1.seen_places)
    for _rel, obj, place in obs0.relations | obs1.relations:
        assert know.location[obj] == place
    assert know.holding is None
