"""The symbolic household POMDP (llm_planner/domains/household/world/symbolic.py): preconditions, transitions,
partial observations, goals."""
from __future__ import annotations

import json
import random

import pytest

from llm_planner.errors import GoalError
from llm_planner.domains.household.world.symbolic import (
    INSIDE, ON, Action, GoalItem, Household, Observation, goal_from_lists, goal_to_lists,
)


def kitchen_state(h: Household):
    """Apples in the closed fridge, the plates on the kitchen table, the robot in the living room."""
    placement = h.scene.sample_placement(0)
    placement.update({"apple_1": "fridge", "apple_2": "fridge", "plate_1": "kitchen_table", "plate_2": "kitchen_table"})
    return h.initial_state(placement, room="living_room")


def run(h: Household, state, *texts: str):
    for text in texts:
        action = Action.parse(text)
        assert h.why_not(state, action) is None, (text, h.why_not(state, action))
        state = h.transition(state, action)
    return state


def test_preconditions_say_why_an_action_is_refused(seen):
    s = kitchen_state(seen)
    assert seen.why_not(s, Action("walk", ("fridge",))) == "fridge is not visible"
    assert seen.why_not(s, Action("walk", ("kitchen",))) is None
    assert seen.why_not(s, Action("walk", ("garage",))) == "unknown target 'garage'"
    s = run(seen, s, "walk(kitchen)")
    assert seen.why_not(s, Action("walk", ("apple_1",))) == "apple_1 is not visible"
    assert seen.why_not(s, Action("open", ("fridge",))) == "not close to fridge"
    assert seen.why_not(s, Action("grab", ("plate_1",))) == "not close to plate_1"
    s = run(seen, s, "walk(fridge)")
    assert seen.why_not(s, Action("grab", ("apple_1",))) == "apple_1 is not visible"
    assert seen.why_not(s, Action("close", ("fridge",))) == "fridge is already closed"
    s = run(seen, s, "open(fridge)")
    assert seen.why_not(s, Action("open", ("fridge",))) == "fridge is already open"
    s = run(seen, s, "grab(apple_1)")
    assert seen.why_not(s, Action("grab", ("apple_2",))) == "hand is full (holding apple_1)"
    assert seen.why_not(s, Action("walk", ("apple_1",))) == "already holding apple_1"
    assert seen.why_not(s, Action("puton", ("apple_1", "fridge"))) == "fridge is a container; use putin"
    assert seen.why_not(s, Action("putin", ("apple_2", "fridge"))) == "not holding apple_2"
    s = run(seen, s, "walk(kitchen_table)")
    assert seen.why_not(s, Action("putin", ("apple_1", "kitchen_table"))) == "kitchen_table is a surface; use puton"
    assert seen.why_not(s, Action("open", ("kitchen_table",))) == "kitchen_table cannot be opened or closed"
    assert seen.why_not(s, Action("grab", ("kitchen_table",))) == "kitchen_table is not a movable object"
    assert seen.why_not(s, Action("grab", ("apple_1", "x"))) == "unknown action grab(apple_1, x)"


def test_transitions_move_robot_and_objects(seen):
    s = run(seen, kitchen_state(seen), "walk(kitchen)")
    assert (s.room, s.near) == ("kitchen", None)
    s = run(seen, s, "walk(plate_1)")
    assert s.near == "kitchen_table"
    s = run(seen, s, "grab(plate_1)")
    assert s.holding == "plate_1" and seen.location(s, "plate_1") is None
    s = run(seen, s, "walk(dishwasher)", "open(dishwasher)", "putin(plate_1, dishwasher)")
    assert s.holding is None and seen.location(s, "plate_1") == "dishwasher"
    assert "dishwasher" in s.opened
    s = run(seen, s, "close(dishwasher)", "walk(bedroom)")
    assert "dishwasher" not in s.opened and (s.room, s.near) == ("bedroom", None)


def test_step_rewards_the_goal_and_ignores_inapplicable_actions(seen):
    goal = (GoalItem(ON, "apple", "kitchen_table", 1),)
    s = kitchen_state(seen)
    same = seen.step(s, Action("grab", ("apple_1",)), goal)
    assert same.state == s and same.reward == 0.0 and not same.done
    s = run(seen, s, "walk(kitchen)", "walk(fridge)", "open(fridge)", "grab(apple_2)", "walk(kitchen_table)")
    result = seen.step(s, Action("puton", ("apple_2", "kitchen_table")), goal)
    assert result.done and result.reward == seen.goal_reward
    assert result.observation == seen.observe(result.state)


def test_observation_is_partial(seen):
    s = run(seen, kitchen_state(seen), "walk(kitchen)")
    obs = seen.observe(s)
    assert obs.room == "kitchen" and obs.holding is None
    assert (ON, "plate_1", "kitchen_table") in obs.relations
    assert not any(o == "apple_1" for _, o, _ in obs.relations)  # inside the closed fridge
    assert "fridge" in obs.closed_containers and "fridge" not in obs.seen_places
    assert all(seen.furniture_room[f] == "kitchen" for _, _, f in obs.relations)
    s = run(seen, s, "walk(fridge)", "open(fridge)")
    obs = seen.observe(s)
    assert (INSIDE, "apple_1", "fridge") in obs.relations and "fridge" in obs.open_containers
    s = run(seen, s, "grab(apple_1)")
    assert not any(o == "apple_1" for _, o, _ in seen.observe(s).relations)
    assert seen.observe(s).holding == "apple_1"


def test_random_walks_keep_observation_and_legal_actions_consistent(household):
    """200 random legal-action sequences: observations are exactly the facts at seen places, every
    legal action is applicable, and every applicable action that changes something is legal."""
    rng = random.Random(0)
    candidates = ([Action("walk", (t,)) for t in household.rooms + household.furniture + household.objects]
                  + [Action(v, (f,)) for v in ("open", "close") for f in household.furniture]
                  + [Action(v, (o,)) for v in ("grab",) for o in household.objects])
    for episode in range(200):
        s = household.sample_initial_state(episode)
        for _ in range(12):
            legal = household.legal_actions(s)
            obs = household.observe(s)
            seen_facts = {fact for fact in household.facts(s) if fact[2] in obs.seen_places}
            assert obs.relations == seen_facts
            assert all(household.why_not(s, a) is None for a in legal)
            put = [Action(v, (s.holding, f)) for v in ("putin", "puton") for f in household.furniture] if s.holding else []
            applicable = {a for a in candidates + put if household.why_not(s, a) is None}
            noop_walks = {Action("walk", (t,)) for t in (s.room, s.near) if t} | {
                Action("walk", (o,)) for o in household.objects if s.near and household.location(s, o) == s.near}
            assert applicable - set(legal) <= noop_walks
            s = household.transition(s, rng.choice(legal))


def test_goal_checks_say_what_is_impossible(seen):
    with pytest.raises(GoalError, match="the goal is empty"):
        seen.check_goal(())
    with pytest.raises(GoalError, match="no object 'unicorn'"):
        seen.check_goal((GoalItem(ON, "unicorn", "sofa"),))
    with pytest.raises(GoalError, match="'fridge' is furniture and cannot be moved"):
        seen.check_goal((GoalItem(ON, "fridge", "sofa"),))
    with pytest.raises(GoalError, match="no container or surface 'garage'"):
        seen.check_goal((GoalItem(INSIDE, "apple", "garage"),))
    with pytest.raises(GoalError, match="'fridge' is a container: objects go inside it, not on"):
        seen.check_goal((GoalItem(ON, "apple", "fridge"),))
    with pytest.raises(GoalError, match="count must be at least 1"):
        seen.check_goal((GoalItem(INSIDE, "apple", "fridge", 0),))
    with pytest.raises(GoalError, match="needs 3 apple"):
        seen.check_goal((GoalItem(INSIDE, "apple", "fridge", 2), GoalItem(ON, "apple", "sofa", 1)))


def test_satisfied_counts_objects_of_the_type(seen):
    s = kitchen_state(seen)
    assert seen.count_satisfied(s, GoalItem(INSIDE, "apple", "fridge", 2)) == 2
    assert seen.satisfied(s, (GoalItem(INSIDE, "apple", "fridge", 2), GoalItem(ON, "plate", "kitchen_table", 1)))
    assert not seen.satisfied(s, (GoalItem(INSIDE, "apple", "fridge", 1), GoalItem(ON, "plate", "sofa", 1)))


def test_goal_and_action_text_forms():
    goal = (GoalItem(INSIDE, "apple", "fridge", 2), GoalItem(ON, "plate", "kitchen_table", 1))
    assert goal_from_lists(json.loads(json.dumps(goal_to_lists(goal)))) == goal
    assert Action.parse(" PutIn( apple_1 , fridge ) ") == Action("putin", ("apple_1", "fridge"))
    for bad, message in (("fly(x)", "unknown action 'fly'"), ("grab apple", "not an action"),
                         ("grab(a, b)", "grab takes 1 argument")):
        with pytest.raises(ValueError, match=message):
            Action.parse(bad)


def test_observation_round_trips_through_json(seen):
    s = run(seen, kitchen_state(seen), "walk(kitchen)", "walk(fridge)", "open(fridge)", "grab(apple_1)")
    obs = seen.observe(s)
    again = Observation.from_dict(json.loads(json.dumps(obs.to_dict())))
    assert again == obs
    assert obs.to_dict()["holding"] == "apple_1"


def test_household_pickles_for_worker_processes(seen):
    import pickle

    state = kitchen_state(seen)
    seen.observe(state)
    copy = pickle.loads(pickle.dumps(seen))
    assert copy.observe(state) == seen.observe(state)
    assert copy.legal_actions(state) == seen.legal_actions(state)
