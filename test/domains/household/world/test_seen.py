"""What the robot has seen (the executor's goal check and loop guard on a robot): an object counts
where it was last seen, is forgotten when its place is seen without it, and a goal is never judged
reached when it does not hold (checked along random walks of the symbolic model)."""
from __future__ import annotations

import random

from llm_planner.domains.household.world.seen import SeenWorld
from llm_planner.domains.household.world.symbolic import Action, GoalItem


def test_an_object_counts_where_it_was_seen_until_its_place_shows_it_gone(household):
    state = household.sample_initial_state(0)
    apple = next(o for o in household.objects if household.object_type[o] == "apple"
                 and not household.is_container[household.location(state, o)])
    place = household.location(state, apple)
    goal = (GoalItem("on", "apple", place, 1),)
    seen = SeenWorld(household)
    room = household.furniture_room[place]
    if state.room != room:
        state = household.transition(state, Action("walk", (room,)))
    seen.update(household.observe(state))
    assert seen.where[apple] == place and seen.goal_reached(goal)
    state = household.transition(household.transition(state, Action("walk", (place,))), Action("grab", (apple,)))
    seen.update(household.observe(state))
    assert apple not in seen.where and seen.state().holding == apple
    assert seen.goal_reached(goal) == (household.count_satisfied(state, goal[0]) >= 1)  # the place is in view


def test_the_goal_seen_reached_always_holds_along_random_walks(household):
    rng = random.Random(0)
    fridge_goal = (GoalItem("inside", "apple", "fridge", 1),)
    claims = 0
    for episode in range(40):
        state = household.sample_initial_state(episode)
        seen = SeenWorld(household)
        seen.update(household.observe(state))
        for _ in range(60):
            state = household.transition(state, rng.choice(household.legal_actions(state)))
            seen.update(household.observe(state))
            for goal in (fridge_goal, (GoalItem("on", "book", "bookshelf", 2),)):
                if seen.goal_reached(goal):
                    claims += 1
                    assert household.satisfied(state, goal), (episode, goal, seen.where)
    assert claims > 0  # the property was put to the test
