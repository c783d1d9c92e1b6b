"""The household adapter: percepts give back the observation and the full state; what the robot is
sent for an action; the step text."""
from __future__ import annotations

import random

from llm_planner.config import load_params_file
from llm_planner.domains.percept import Percept
from llm_planner.adapters.household import (HouseholdDomain, describe_observation, observation_from_percept,
                                           state_from_percept, state_predicates)
from llm_planner.domains.household.sim.perception import predicates
from llm_planner.domains.household.places import place_poses
from llm_planner.domains.household.world.symbolic import Action
from llm_planner.domains.skill import Navigate, SkillOutcome, SkillRequest


def _random_states(household, n: int, seed: int):
    rng = random.Random(seed)
    for episode in range(n):
        state = household.sample_initial_state(episode)
        for _ in range(rng.randint(0, 25)):
            state = household.transition(state, rng.choice(household.legal_actions(state)))
            yield state


def test_observation_and_state_round_trip_through_percepts():
    domain = HouseholdDomain(load_params_file())
    household = domain.household
    for state in _random_states(household, 20, 0):
        observation = household.observe(state)
        partial = Percept("s", observation.room, tuple(predicates(observation)))
        full = Percept("s", state.room, tuple(state_predicates(household, state)), full_observation=True)
        assert observation_from_percept(partial, household) == observation
        assert state_from_percept(full, household) == state
        percepts = {"state": partial, "full_state": full}
        assert domain.observation(percepts) == observation and domain.full_state(percepts) == state


def test_an_action_becomes_a_navigation_or_a_skill_goal_with_the_scene_poses():
    """walk(x) goes to the pose of x's place (refused, as the symbolic model refuses it, when the
    observation shows x out of sight); the other actions are skills with their furniture's pose."""
    domain = HouseholdDomain(load_params_file())
    household = domain.household
    state = household.sample_initial_state(0)  # the robot in the living room
    observation = household.observe(state)
    poses = place_poses(domain.scene)
    fridge = (poses["fridge"].x, poses["fridge"].y, poses["fridge"].yaw)
    assert domain.robot_command(Action("putin", ("apple_1", "fridge")), observation) == \
        SkillRequest("putin", ("apple_1", "fridge"), (None, fridge))
    kitchen = poses["kitchen"]
    assert domain.robot_command(Action("walk", ("kitchen",)), observation) == \
        Navigate("kitchen", (kitchen.x, kitchen.y, kitchen.yaw))
    assert domain.robot_command(Action("walk", ("fridge",)), observation) == SkillOutcome(False, "fridge is not visible")
    assert household.why_not(state, Action("walk", ("fridge",))) == "fridge is not visible"
    in_kitchen = household.observe(household.transition(state, Action("walk", ("kitchen",))))
    assert domain.robot_command(Action("walk", ("fridge",)), in_kitchen) == Navigate("fridge", fridge)
    rel, seen, place = sorted(in_kitchen.relations)[0]
    pose = poses[place]
    assert domain.robot_command(Action("walk", (seen,)), in_kitchen) == Navigate(place, (pose.x, pose.y, pose.yaw))
    hidden = next(o for o in household.objects if o not in {r[1] for r in in_kitchen.relations})
    assert domain.robot_command(Action("walk", (hidden,)), in_kitchen) == SkillOutcome(False, f"{hidden} is not visible")


def test_step_text():
    domain = HouseholdDomain(load_params_file())
    text = domain.step_text(None)
    observation = domain.household.observe(domain.household.sample_initial_state(0))
    assert text.format_action(Action("walk", ("kitchen",))) == "walk(kitchen)"
    assert text.summarize(observation) == describe_observation(observation)
    assert text.summarize(observation).startswith(f"in {observation.room}")


def test_the_llm_backend_parameter_reaches_every_planner_and_the_translation():
    domain = HouseholdDomain({**load_params_file(), "llm_backend": "openai"})
    lm = domain.language_model()
    assert lm.name == "openai" and domain.language_model() is lm
    for name in ("llm_mcts", "l_policy", "pddl", "saycanpay"):
        planner = domain.make_planner(name)
        assert planner.params["backend"] is lm, name


def test_the_household_world_loads_its_own_planners_only():
    """Planners load lazily per world (config/methods.yaml): the household adapter's planners and an
    LLM-MCTS planner import no G-TAMP method (STaLM and its PyBullet baselines)."""
    import subprocess
    import sys

    code = ("import sys\nfrom llm_planner.adapters import get_domain\nfrom llm_planner.planners.base import create\n"
            "names = get_domain('household').planner_names()\ncreate('llm_mcts')\n"
            "print(','.join(names))\nprint(','.join(m for m in sys.modules if m.startswith('llm_planner.methods.stalm')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True).stdout
    names, stalm = out.split("\n")[-3:-1]  # the two lines printed last
    assert "llm_mcts" in names.split(",") and "stalm" not in names.split(",")
    assert stalm == "", f"the household world imported {stalm}"


def test_a_robots_percept_is_checked_against_the_scene_and_every_place_has_a_pose():
    domain = HouseholdDomain(load_params_file())
    household = domain.household
    observation = household.observe(household.sample_initial_state(0))
    good = Percept("s", observation.room, tuple(predicates(observation)))
    problems, warnings = domain.percept_problems(good)
    assert problems == [] and warnings == ["no pose of the robot among objects (the navigation probe and pictures "
                                           "need it)"]
    wrong = Percept("s", "attic", (("IN_ROOM", ("robot", "attic")), ("ON", ("unicorn_1", "sofa")),
                                   ("INSIDE", ("apple_1", "fridge")), ("ON", ("apple_1", "sofa")), ("LIT", ("lamp",))))
    problems, warnings = domain.percept_problems(wrong)
    assert problems[0].startswith("IN_ROOM names 'attic', not a room of the scene")
    assert "names the scene does not have: attic, lamp, unicorn_1" in problems
    assert "apple_1 is both in/on fridge and sofa" in problems
    assert warnings[0] == "predicates the planner does not read: LIT"
    coverage = domain.place_coverage()
    assert coverage.missing == {} and coverage.posed == len(household.scene.rooms) + len(household.furniture)
    assert 0 <= coverage.from_scene <= coverage.posed


def test_switch_states_cross_the_percepts_and_a_switch_skill_carries_the_pose_where_it_is_done():
    """ON(thing)/OFF(thing) of perception/state give the observation's switched_on/off, full_state's
    give State.switched_on; ON(mug, table) stays a placement."""
    domain = HouseholdDomain(load_params_file())
    household = domain.household
    rng = random.Random(1)
    seen_on = 0
    for episode in range(15):
        state = household.sample_initial_state(episode)
        for _ in range(rng.randint(0, 30)):
            state = household.transition(state, rng.choice(household.legal_actions(state, None,
                                                                                   household.switchables)))
            observation = household.observe(state)
            partial = Percept("s", observation.room, tuple(predicates(observation)))
            full = Percept("s", state.room, tuple(state_predicates(household, state)), full_observation=True)
            assert observation_from_percept(partial, household) == observation
            assert state_from_percept(full, household) == state
            seen_on += bool(observation.switched_on)
    assert seen_on > 10  # the walk really met things that are on
    kitchen = Percept("s", "kitchen", (("IN_ROOM", ("robot", "kitchen")), ("ON", ("stove",)), ("OFF", ("microwave",)),
                                      ("ON", ("mug_1", "stove"))))
    observation = observation_from_percept(kitchen, household)
    assert observation.switched_on == {"stove"} and observation.switched_off == {"microwave"}
    assert observation.relations == {("on", "mug_1", "stove")}
    poses = place_poses(domain.scene)
    stand = poses["tv_stand"]
    assert domain.robot_command(Action("switchon", ("tv",)), observation) == \
        SkillRequest("switchon", ("tv",), ((stand.x, stand.y, stand.yaw),))
    stove = poses["stove"]
    assert domain.robot_command(Action("switchoff", ("stove",)), observation) == \
        SkillRequest("switchoff", ("stove",), ((stove.x, stove.y, stove.yaw),))


def test_a_percept_with_on_or_off_of_a_thing_that_does_not_switch_is_a_problem():
    domain = HouseholdDomain(load_params_file())
    good = Percept("s", "kitchen", (("IN_ROOM", ("robot", "kitchen")), ("ON", ("stove",)), ("OFF", ("microwave",)),
                                    ("ON", ("apple_1", "kitchen_table"))))
    assert domain.percept_problems(good)[0] == []
    bad = Percept("s", "kitchen", (("IN_ROOM", ("robot", "kitchen")), ("ON", ("fridge",)), ("OFF", ("stove",)),
                                   ("ON", ("stove",))))
    problems, _ = domain.percept_problems(bad)
    assert problems[0].startswith("ON/OFF of fridge, which the scene cannot switch (switchable: tv, floor_lamp")
    assert problems[1] == "stove both ON and OFF"
    silent = Percept("s", "kitchen", (("IN_ROOM", ("robot", "kitchen")), ("ON", ("stove",))))
    problems, warnings = domain.percept_problems(silent)
    assert problems == [] and warnings[-1] == ("no ON or OFF of dishwasher, microwave (switchable things of the "
                                               "robot's room): goals to switch them on or off cannot be judged")
