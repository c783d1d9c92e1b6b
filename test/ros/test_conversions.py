"""Messages carry observations and states without loss (core <-> llm_planner_interfaces)."""
from __future__ import annotations

import random

from llm_planner_interfaces.msg import PerceivedState

from llm_planner.ros.conversions import (
    geometry_from_msg, geometry_to_msg, observation_from_msg, predicates_to_msgs, state_from_msg, state_predicates,
)
from llm_planner.sim.geometry import BodyGeometry, GeometrySnapshot, JointGeometry
from llm_planner.sim.perception import predicates
from llm_planner.world.scene import load_scene
from llm_planner.world.symbolic import Household


def _random_states(household: Household, n: int, seed: int):
    rng = random.Random(seed)
    for episode in range(n):
        state = household.sample_initial_state(episode)
        for _ in range(rng.randint(0, 25)):
            state = household.transition(state, rng.choice(household.legal_actions(state)))
            yield state


def test_observation_and_state_round_trip_through_messages():
    household = Household(load_scene("apartment_seen"))
    for state in _random_states(household, 20, 0):
        observation = household.observe(state)
        msg = PerceivedState(predicates=predicates_to_msgs(predicates(observation)))
        assert observation_from_msg(msg, household) == observation
        full = PerceivedState(predicates=predicates_to_msgs(state_predicates(household, state)), full_observation=True)
        assert state_from_msg(full, household) == state


def test_geometry_round_trip():
    snapshot = GeometrySnapshot(scene="s", robot_position=(1.0, 2.0, 0.0), robot_orientation=(0.0, 0.0, 0.0, 1.0),
                                held_object="apple_1",
                                bodies=[BodyGeometry("fridge", "container", (0.5, 1.0, 0.9), (0.0, 0.0, 0.0, 1.0),
                                                     (0.1, 0.6, 0.0), (0.9, 1.4, 1.8))],
                                joints=[JointGeometry("fridge/door", 1.2, 0.3)])
    from builtin_interfaces.msg import Time

    back = geometry_from_msg(geometry_to_msg(snapshot, Time(sec=1, nanosec=5)))
    assert back == snapshot
