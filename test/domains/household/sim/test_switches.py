"""Switchable things in the PyBullet apartment: switchon/switchoff change what perception reports
and how the thing looks, refuse (changing nothing) when the robot is not at the thing, and the
looks are visual only (objects' physics is the same as in a scene without them)."""
from __future__ import annotations

import dataclasses

import pybullet as p
import pytest

from llm_planner.domains.household.sim.perception import perceive, perceive_full, predicates
from llm_planner.domains.household.sim.switches import color
from llm_planner.domains.household.sim.world import HouseholdSim
from llm_planner.domains.household.world.symbolic import Action, Household


def _rgba(sim: HouseholdSim, thing: str) -> tuple[float, ...]:
    body, _ = sim.switches.looks[thing].lights[0]
    return tuple(round(c, 3) for c in p.getVisualShapeData(body, physicsClientId=sim.client)[0][7])


def _go(sim: HouseholdSim, furniture: str) -> None:
    room = sim.layouts[furniture].room
    assert sim.execute(Action("walk", (room,))).success
    assert sim.execute(Action("walk", (furniture,))).success


@pytest.fixture
def seen(worlds):
    sim = worlds("apartment_seen")
    sim.reset(sim.scene.sample_placement(0), seed=0)
    yield sim
    sim.reset(sim.scene.sample_placement(0), seed=0)


def test_switching_changes_what_perception_reports_and_how_the_thing_looks(seen):
    scene, household = seen.scene, Household(seen.scene)
    _go(seen, "tv_stand")
    assert perceive(scene, seen.geometry()).switched_off == {"tv", "floor_lamp"}
    assert _rgba(seen, "tv") == tuple(round(c, 3) for c in color(seen.cfg, "screen_off"))
    assert seen.execute(Action("switchon", ("tv",))).success
    obs = perceive(scene, seen.geometry())
    assert obs.switched_on == {"tv"} and obs.switched_off == {"floor_lamp"}
    assert ("ON", ("tv",)) in predicates(obs) and ("OFF", ("floor_lamp",)) in predicates(obs)
    assert perceive_full(scene, seen.geometry(), household).switched_on == {"tv"}
    assert _rgba(seen, "tv") == tuple(round(c, 3) for c in color(seen.cfg, "screen_on"))
    assert seen.execute(Action("switchoff", ("tv",))).success
    assert perceive(scene, seen.geometry()).switched_on == frozenset()
    assert _rgba(seen, "tv") == tuple(round(c, 3) for c in color(seen.cfg, "screen_off"))


@pytest.mark.parametrize("thing", ["stove", "microwave", "dishwasher", "floor_lamp", "desk_lamp", "tv"])
def test_every_switchable_thing_of_the_apartment_switches_from_where_the_robot_works(seen, thing):
    at = seen.scene.switchables[thing].at
    _go(seen, at)
    result = seen.execute(Action("switchon", (thing,)))
    assert result.success, result.reason
    assert thing in perceive(seen.scene, seen.geometry()).switched_on
    assert seen.execute(Action("switchoff", (thing,))).success
    assert thing in perceive(seen.scene, seen.geometry()).switched_off


def test_a_switch_skill_refuses_when_not_at_the_thing_and_changes_nothing(seen):
    _go(seen, "coffee_table")
    before = seen.geometry()
    assert seen.execute(Action("switchon", ("tv",))).reason == "not close to tv_stand, where tv is"
    _go(seen, "kitchen_table")
    assert seen.execute(Action("switchon", ("stove",))).reason == "not close to stove"
    _go(seen, "stove")
    assert seen.execute(Action("switchoff", ("stove",))).reason == "stove is already off"
    assert seen.execute(Action("switchon", ("stove",))).success
    assert seen.execute(Action("switchon", ("stove",))).reason == "stove is already on"
    refused = seen.execute(Action("switchon", ("apple_1",))).reason
    assert refused.startswith("apple_1 cannot be switched on or off (switchable: tv, floor_lamp")
    assert seen.execute(Action("switchon", ("stove", "tv"))).reason.startswith("unknown action")
    _go(seen, "coffee_table")
    after = seen.geometry()
    assert [j for j in after.joints if j.name != "stove/power"] == [j for j in before.joints if j.name != "stove/power"]


def test_reset_sets_what_is_on_and_refuses_a_thing_the_scene_cannot_switch(seen):
    placement = seen.scene.sample_placement(0)
    seen.reset(placement, switched_on=("tv", "stove"))
    assert perceive_full(seen.scene, seen.geometry(), Household(seen.scene)).switched_on == {"tv", "stove"}
    with pytest.raises(ValueError, match="not switchable in apartment_seen: fridge"):
        seen.reset(placement, switched_on=("fridge",))
    seen.reset(placement)
    assert perceive_full(seen.scene, seen.geometry(), Household(seen.scene)).switched_on == frozenset()


def test_the_looks_are_visual_only_and_leave_the_objects_where_a_scene_without_them_puts_them(seen):
    """Two fresh worlds, with and without the switchable things (placing objects depends on where
    the robot's arm was, so a shared world is no reference): the same poses of every body."""
    for look in seen.switches.looks.values():
        for body in look.parts:
            assert p.getCollisionShapeData(body, -1, physicsClientId=seen.client) == ()
            assert body not in seen.host.static_ids
    bare = dataclasses.replace(seen.scene, switchables={})
    placement = seen.scene.sample_placement(3)
    with HouseholdSim(seen.scene, placement, seed=3, switched_on=("tv", "floor_lamp", "stove")) as lit, \
            HouseholdSim(bare, placement, seed=3) as plain:
        assert len(lit.switches.looks) == 6 and plain.switches.looks == {}
        assert not any(j.name.endswith("/power") for j in plain.geometry().joints)
        assert {b.name: b for b in lit.geometry().bodies} == {b.name: b for b in plain.geometry().bodies}


@pytest.mark.parametrize("name", ["apartment_seen", "apartment_unseen"])
def test_switching_agrees_with_the_symbolic_model_step_by_step(worlds, name):
    """Random walks and switch actions (a third of them inadmissible) from the episode's start: the
    simulator succeeds exactly when the symbolic model admits the action, and perception from
    geometry equals the symbolic observation and what is on after every step."""
    import random

    sim = worlds(name)
    scene, household = sim.scene, Household(sim.scene)
    rng = random.Random(7)
    switches = household.switchables
    try:
        state = household.sample_initial_state(5)
        sim.reset(scene.sample_placement(5), seed=5, switched_on=state.switched_on)
        assert perceive(scene, sim.geometry()) == household.observe(state)
        switched = 0
        for _ in range(60):
            legal = [a for a in household.legal_actions(state, (), switches)
                     if a.verb != "walk" or a.args[0] not in household.index]
            switching = [a for a in legal if a.verb.startswith("switch")]
            if rng.random() < 0.3:
                action = Action(rng.choice(["switchon", "switchoff"]), (rng.choice([*switches, "fridge", "apple_1"]),))
            else:
                action = rng.choice(switching if switching and rng.random() < 0.7 else legal)
            result = sim.execute(action)
            why = household.why_not(state, action)
            assert result.success == (why is None), (action, result.reason, why)
            if why is None:
                state = household.transition(state, action)
                switched += action.verb.startswith("switch")
            assert perceive(scene, sim.geometry()) == household.observe(state), action
            assert perceive_full(scene, sim.geometry(), household).switched_on == state.switched_on
        assert switched >= 10
    finally:
        sim.reset(scene.sample_placement(0), seed=0)
