"""The offline retrieval policy (domains/household/language/retrieval_policy.py): D's steps abstracted into
situations, and what the robot knows from its own observations and actions."""
from __future__ import annotations

from llm_planner.domains.household.language.commonsense import scene_knowledge
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.retrieval_policy import knowledge_from, retrieval_policy
from llm_planner.domains.household.language.text import text_to_action
from llm_planner.domains.household.world.symbolic import Action, state_goal


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


def test_state_items_are_done_after_the_placements_by_walking_there_and_acting(offline, seen, seen_world):
    """D has no state step: walk to the room of the thing, to where it is switched, then switch it,
    the robot's room first; 'done' once the observations show every state item holding."""
    goal = (state_goal("on", "tv"), state_goal("closed", "fridge"))
    state = seen.initial_state(seen.scene.sample_placement(0), room="kitchen")
    state = seen.transition(seen.transition(state, Action("walk", ("fridge",))), Action("open", ("fridge",)))
    policy = retrieval_policy(offline.resources)
    knowledge = scene_knowledge(offline.resources, seen_world)
    history: list[Action] = []
    past: list = []
    for _ in range(8):
        obs = seen.observe(state)
        query = PolicyQuery(seen_world, "turn on the tv and close the fridge", obs, tuple(history), (), goal,
                            tuple(past))
        texts, done = policy.propose(query, goal, knowledge, 3, 0)
        if done:
            break
        assert len(set(texts)) == 1
        action = text_to_action(texts[0], seen_world.names)
        assert action is not None and seen.why_not(state, action) is None, texts
        history.append(action)
        past.append(obs)
        state = seen.transition(state, action)
    assert seen.satisfied(state, goal) and done == 3
    assert history == [Action("close", ("fridge",)), Action("walk", ("living_room",)), Action("walk", ("tv_stand",)),
                       Action("switchon", ("tv",))]
