"""Perception from hand-made geometry (no PyBullet): each rule on its own, and that perception
reads geometry only (moving a box changes the answer, bookkeeping does not exist here)."""
from __future__ import annotations

import pytest

from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry, quat_from_yaw
from llm_planner.domains.household.sim.layout import scene_layout
from llm_planner.domains.household.sim.perception import (PERCEIVED_PREDICATES, PerceptionError, perceive,
                                                          perceive_full, power_joint, predicates)
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import INSIDE, ON, Household, State

CFG = load_sim_config()
SCENE = load_scene("apartment_seen")
LAYOUT = scene_layout(SCENE, CFG)
HOUSEHOLD = Household(SCENE)


def furniture_bodies() -> list[BodyGeometry]:
    out = []
    for name, l in LAYOUT.items():
        d, w, h = l.size
        out.append(BodyGeometry(name, l.kind, (l.frame.x, l.frame.y, 0.0), quat_from_yaw(l.frame.yaw),
                                (l.frame.x - d, l.frame.y - d, 0.0), (l.frame.x + d, l.frame.y + d, h)))
    return out


def box(name: str, center: tuple[float, float, float], size=(0.08, 0.08, 0.08)) -> BodyGeometry:
    lo = tuple(c - s / 2 for c, s in zip(center, size))
    hi = tuple(c + s / 2 for c, s in zip(center, size))
    return BodyGeometry(name, name.rsplit("_", 1)[0], center, (0, 0, 0, 1), lo, hi)


def inside(furniture: str) -> tuple[float, float, float]:
    """A point in the middle of the lowest level of a container."""
    l = LAYOUT[furniture]
    x, y = l.frame.to_world(0.0, 0.0)
    return (x, y, l.levels[0].floor + 0.04)


def on(furniture: str, height=0.08) -> tuple[float, float, float]:
    l = LAYOUT[furniture]
    return (l.frame.x, l.frame.y, l.top + height / 2)


def snapshot(objects: dict[str, tuple[float, float, float]], robot_at: str | tuple[float, float] = "fridge",
             open_: tuple[str, ...] = (), held: str | None = None, on_: tuple[str, ...] = (),
             power: bool = True) -> GeometrySnapshot:
    """A hand-made sensor reading; ``on_``: the switchable things that read on (the others off, or
    no power readings at all without ``power``)."""
    if isinstance(robot_at, str):
        pose = LAYOUT[robot_at].approach
        xy, yaw = (pose.x, pose.y), pose.yaw
    else:
        xy, yaw = robot_at, 0.0
    bodies = furniture_bodies()
    # every object of the scene must be somewhere: park the rest on the bed
    for k, obj in enumerate(HOUSEHOLD.objects):
        if obj == held:
            bodies.append(box(obj, (xy[0], xy[1], 0.3)))
        else:
            bodies.append(box(obj, objects.get(obj, on("bed"))))
    joints = [JointGeometry(l.door.joint, l.door.travel if n in open_ else 0.0, l.door.open_threshold)
              for n, l in LAYOUT.items() if l.door is not None]
    joints += [power_joint(d, d in on_) for d in SCENE.switchables] if power else []
    return GeometrySnapshot(SCENE.name, (xy[0], xy[1], 0.02), quat_from_yaw(yaw), held, bodies, joints)


def test_room_near_and_relations_follow_geometry():
    g = snapshot({"apple_1": inside("fridge"), "apple_2": on("kitchen_table")}, robot_at="fridge", open_=("fridge",))
    obs = perceive(SCENE, g, CFG)
    assert obs.room == "kitchen" and obs.near == "fridge" and obs.holding is None
    assert (INSIDE, "apple_1", "fridge") in obs.relations
    assert (ON, "apple_2", "kitchen_table") in obs.relations
    assert "fridge" in obs.open_containers and "microwave" in obs.closed_containers
    assert not any(o.endswith("bed") for _, _, o in obs.relations)  # the bed is in another room


def test_closed_container_hides_its_contents_but_full_view_sees_them():
    g = snapshot({"apple_1": inside("fridge")}, open_=())
    obs = perceive(SCENE, g, CFG)
    assert all(obj != "apple_1" for _, obj, _ in obs.relations)
    assert "fridge" in obs.closed_containers and "fridge" not in obs.seen_places
    state = perceive_full(SCENE, g, HOUSEHOLD, CFG)
    assert state.placement[HOUSEHOLD.index["apple_1"]] == "fridge"
    assert state.opened == frozenset()


def test_door_threshold_decides_open_or_closed():
    l = LAYOUT["fridge"]
    for position, expected in ((l.door.open_threshold * 0.99, False), (l.door.open_threshold * 1.01, True)):
        g = snapshot({})
        g = GeometrySnapshot(g.scene, g.robot_position, g.robot_orientation, None, g.bodies,
                             [JointGeometry(j.name, position if j.body == "fridge" else 0.0, j.open_threshold)
                              for j in g.joints])
        assert ("fridge" in perceive(SCENE, g, CFG).open_containers) is expected


def test_near_needs_the_base_within_tolerance_of_the_approach_pose():
    pose = LAYOUT["kitchen_table"].approach
    close = snapshot({}, robot_at=(pose.x + CFG.perception.near_tolerance * 0.9, pose.y))
    far = snapshot({}, robot_at=(pose.x + CFG.perception.near_tolerance * 1.5, pose.y))
    assert perceive(SCENE, close, CFG).near == "kitchen_table"
    assert perceive(SCENE, far, CFG).near is None


def test_on_requires_the_bottom_at_the_top_or_a_resting_stack():
    top = LAYOUT["kitchen_table"].top
    x, y = LAYOUT["kitchen_table"].frame.x, LAYOUT["kitchen_table"].frame.y
    resting = snapshot({"apple_1": (x, y, top + 0.04)}, robot_at="kitchen_table")
    stacked = snapshot({"apple_1": (x, y, top + 0.04 + 0.1)}, robot_at="kitchen_table")
    sunk = snapshot({"apple_1": (x, y, top - 0.2)}, robot_at="kitchen_table")
    assert (ON, "apple_1", "kitchen_table") in perceive(SCENE, resting, CFG).relations
    assert (ON, "apple_1", "kitchen_table") in perceive(SCENE, stacked, CFG).relations
    with pytest.raises(PerceptionError, match="apple_1 .* rests on no furniture"):
        perceive_full(SCENE, sunk, HOUSEHOLD, CFG)


def test_holding_comes_from_the_gripper_attachment():
    g = snapshot({}, held="mug_1")
    obs = perceive(SCENE, g, CFG)
    state = perceive_full(SCENE, g, HOUSEHOLD, CFG)
    assert obs.holding == "mug_1" and state.holding == "mug_1"
    assert state.placement[HOUSEHOLD.index["mug_1"]] is None
    assert all(obj != "mug_1" for _, obj, _ in obs.relations)


def test_full_view_equals_symbolic_state_for_a_hand_made_world():
    placement = {o: "bed" for o in HOUSEHOLD.objects}
    placement["apple_1"] = "fridge"
    g = snapshot({"apple_1": inside("fridge")}, robot_at="fridge", open_=("fridge",))
    expected = State("kitchen", "fridge", None, tuple(placement[o] for o in HOUSEHOLD.objects), frozenset({"fridge"}))
    assert perceive_full(SCENE, g, HOUSEHOLD, CFG) == expected
    expected_obs = HOUSEHOLD.observe(expected)
    assert perceive(SCENE, g, CFG) == expected_obs


def test_robot_outside_every_room_is_an_error():
    with pytest.raises(PerceptionError, match="lies in no room"):
        perceive(SCENE, snapshot({}, robot_at=(-5.0, -5.0)), CFG)


def test_predicates_name_every_fact():
    g = snapshot({"apple_1": inside("fridge"), "milk_1": inside("fridge")}, robot_at="fridge", open_=("fridge",),
                 held="mug_1")
    preds = predicates(perceive(SCENE, g, CFG))
    assert ("IN_ROOM", ("robot", "kitchen")) in preds
    assert ("CLOSE", ("robot", "fridge")) in preds and ("CLOSE", ("robot", "apple_1")) in preds
    assert ("HOLDING", ("robot", "mug_1")) in preds
    assert ("INSIDE", ("apple_1", "fridge")) in preds and ("OPEN", ("fridge",)) in preds
    assert ("CLOSED", ("microwave",)) in preds
    assert preds == sorted(preds)


def test_power_readings_are_on_and_off_of_the_rooms_switchable_things():
    """ON/OFF come from each thing's power joint, like OPEN/CLOSED from a door joint; the partial
    view shows the things of the robot's room, the full view every thing; a power joint is no door."""
    g = snapshot({}, robot_at="fridge", on_=("microwave", "tv"))
    obs = perceive(SCENE, g, CFG)
    assert obs.switched_on == {"microwave"} and obs.switched_off == {"stove", "dishwasher"}
    assert obs.closed_containers >= {"microwave", "dishwasher"}  # on, and still closed
    assert perceive_full(SCENE, g, HOUSEHOLD, CFG).switched_on == {"microwave", "tv"}
    preds = predicates(obs)
    assert ("ON", ("microwave",)) in preds and ("OFF", ("stove",)) in preds and ("CLOSED", ("microwave",)) in preds
    assert ("ON", ("tv",)) not in preds and ("OFF", ("tv",)) not in preds  # another room's
    assert {name for name, _ in preds} <= PERCEIVED_PREDICATES
    state = perceive_full(SCENE, g, HOUSEHOLD, CFG)
    assert perceive(SCENE, g, CFG) == HOUSEHOLD.observe(state)
    living = perceive(SCENE, snapshot({}, robot_at="sofa", on_=("tv",)), CFG)
    assert living.switched_on == {"tv"} and living.switched_off == {"floor_lamp"}


def test_a_thing_without_a_power_reading_is_neither_on_nor_off():
    obs = perceive(SCENE, snapshot({}, robot_at="fridge", power=False), CFG)
    assert obs.switched_on == frozenset() and obs.switched_off == frozenset()
