"""The PyBullet household world against the symbolic model.

The key test runs, per apartment, 200 random action sequences (8-15 steps, biased towards grab,
put and open so objects really move, with some inadmissible actions mixed in). Every action runs
in both the symbolic model and PyBullet: both must agree on success, a failed skill must change
nothing, and after every action perception from geometry must equal the symbolic observation and
the full symbolic state.
"""
from __future__ import annotations

import math
import random
import time

import pybullet as p
import pytest

from llm_planner.domains.household.sim import perception
from llm_planner.domains.household.sim.perception import perceive, perceive_full
from llm_planner.domains.household.sim.skills import PlacementError
from llm_planner.domains.household.sim.world import HouseholdSim
from llm_planner.domains.household.world.symbolic import Action, Household

APARTMENTS = ("apartment_seen", "apartment_unseen")

SEQUENCES = 200
ILLEGAL_RATE = 0.12
# Weights of action kinds: a kind is drawn first, then an action of that kind, so that the many
# walk actions do not crowd out grab/put/open and objects really move in and out of containers.
KIND_WEIGHTS = {"grab": 6.0, "putin": 12.0, "puton": 4.0, "open": 8.0, "close": 1.5,
                "walk_container": 8.0, "walk_surface": 1.0, "walk_object": 2.0, "walk_room": 0.7}


def _kind(household: Household, action: Action) -> str:
    if action.verb != "walk":
        return action.verb
    target = action.args[0]
    if target in household.scene.rooms:
        return "walk_room"
    if target in household.furniture_room:
        return "walk_container" if household.is_container[target] else "walk_surface"
    return "walk_object"


def _pick(rng: random.Random, household: Household, actions: list[Action]) -> Action:
    by_kind: dict[str, list[Action]] = {}
    for a in actions:
        by_kind.setdefault(_kind(household, a), []).append(a)
    kinds = sorted(by_kind)
    kind = rng.choices(kinds, [KIND_WEIGHTS[k] for k in kinds])[0]
    return rng.choice(by_kind[kind])


def _illegal(rng: random.Random, household: Household, state) -> Action | None:
    """A random inadmissible action (unknown names included), or None if the draw was legal."""
    names = list(household.objects) + list(household.furniture) + ["spoon_9", "garage"]
    verb = rng.choice(["walk", "grab", "open", "close", "putin", "puton"])
    target = rng.choice(names)
    if verb in ("putin", "puton"):
        action = Action(verb, (state.holding or rng.choice(household.objects), target))
    else:
        action = Action(verb, (target,))
    return action if household.why_not(state, action) is not None else None


def _fingerprint(sim: HouseholdSim) -> tuple:
    """Everything a failed skill must leave untouched: robot, arm, objects, doors, attachment."""
    g = sim.geometry()
    arm = tuple(round(q, 9) for q in sim.robot.arm_pose().as_list())
    bodies = tuple((b.name, tuple(round(v, 9) for v in b.position + b.orientation)) for b in g.bodies)
    joints = tuple((j.name, round(j.position, 9)) for j in g.joints)
    return (g.robot_position, g.robot_orientation, arm, g.held_object, bodies, joints)


@pytest.mark.slow
@pytest.mark.parametrize("name", APARTMENTS)
def test_random_action_sequences_agree_with_symbolic_model(worlds, name):
    sim = worlds(name)
    scene = sim.scene
    household = Household(scene)
    rng = random.Random(1234)
    moved = {"grab": 0, "putin": 0, "puton": 0, "open": 0, "close": 0, "walk": 0, "illegal": 0}
    unrealizable = []  # sampled placements that do not physically fit (reported, replaced)
    started = time.perf_counter()
    draw = 10_000
    for seq in range(SEQUENCES):
        while True:
            placement = scene.sample_placement(draw)
            draw += 1
            try:
                sim.reset(placement, seed=seq)
                break
            except PlacementError as exc:
                unrealizable.append((draw - 1, str(exc)))
        state = household.initial_state(placement)
        where = f"{name} sequence {seq}"
        assert perceive(scene, sim.geometry()) == household.observe(state), f"{where}: initial observation"
        for step in range(rng.randint(8, 15)):
            action = _illegal(rng, household, state) if rng.random() < ILLEGAL_RATE else None
            legal = action is None
            if legal:
                action = _pick(rng, household, household.legal_actions(state))
                before = None
            else:
                before = _fingerprint(sim)
            result = sim.execute(action)
            at = f"{where} step {step} {action}"
            if legal:
                assert result.success, f"{at}: symbolic model allows it but the robot failed: {result.reason}"
                state = household.transition(state, action)
                moved[action.verb] = moved.get(action.verb, 0) + 1
            else:
                assert not result.success, f"{at}: inadmissible ({household.why_not(state, action)}) but the robot did it"
                assert result.reason, f"{at}: a failure must say why"
                assert _fingerprint(sim) == before, f"{at}: a failed skill changed the world"
                moved["illegal"] += 1
            g = sim.geometry()
            assert perceive(scene, g) == household.observe(state), f"{at}: perception != symbolic observation"
            assert perceive_full(scene, g, household) == state, f"{at}: full perception != symbolic state"
    elapsed = time.perf_counter() - started
    print(f"\n{name}: {SEQUENCES} sequences in {elapsed:.1f} s; actions {moved}; "
          f"unrealizable placements {len(unrealizable)}/{draw - 10_000} {unrealizable[:3]}; skills {sim.skill_timings()}")
    assert len(unrealizable) <= SEQUENCES // 50, f"too many placements do not fit: {unrealizable[:5]}"
    # The sequences must really move objects and exercise failures, or the agreement means little.
    assert moved["grab"] >= SEQUENCES and moved["putin"] >= SEQUENCES // 4 and moved["puton"] >= SEQUENCES // 4
    assert moved["open"] >= SEQUENCES // 2 and moved["close"] >= SEQUENCES // 20
    assert moved["illegal"] >= SEQUENCES // 2


# ------------------------------------------------------------------ explicit skill behaviour
def _fresh(worlds, name: str = "apartment_seen", seed: int = 5):
    sim = worlds(name)
    placement = sim.scene.sample_placement(seed)
    sim.reset(placement, seed=seed)
    household = Household(sim.scene)
    return sim, household, household.initial_state(placement)


def _surface_object(household: Household, state, room: str) -> str:
    for obj, place in zip(household.objects, state.placement):
        if not household.is_container[place] and household.furniture_room[place] == room:
            return obj
    raise AssertionError(f"no object on a surface of {room}")


def _do(sim: HouseholdSim, household: Household, state, *actions: Action):
    for action in actions:
        result = sim.execute(action)
        assert result.success, (action, result.reason)
        state = household.transition(state, action)
    return state


def test_failed_skills_say_why_and_change_nothing(worlds):
    sim, household, state = _fresh(worlds)
    state = _do(sim, household, state, Action("walk", ("kitchen",)), Action("walk", ("fridge",)))
    held_candidate = _surface_object(household, state, "kitchen")
    cases = [
        (Action("walk", ("spaceship",)), "unknown target 'spaceship'"),
        (Action("grab", ("spaceship",)), "spaceship is not a movable object"),
        (Action("open", ("spaceship",)), "unknown furniture 'spaceship'"),
        (Action("walk", ("bed",)), "bed is not visible"),  # furniture of another room
        (Action("open", ("kitchen_table",)), "not close to kitchen_table"),
        (Action("close", ("fridge",)), "fridge is already closed"),
        (Action("putin", (held_candidate, "fridge")), f"not holding {held_candidate}"),
        (Action("grab", ("apple_1", "fridge")), "unknown action"),
    ]
    fridge_items = [o for o, f in zip(household.objects, state.placement) if f == "fridge"]
    if fridge_items:
        cases.append((Action("grab", (fridge_items[0],)), f"{fridge_items[0]} is not visible"))
    for action, reason in cases:
        before = _fingerprint(sim)
        result = sim.execute(action)
        assert not result.success and reason in result.reason, (action, result.reason)
        assert household.why_not(state, action) is not None or action.verb == "grab"
        assert _fingerprint(sim) == before, action
    # holding something: a second grab and a put into the closed fridge fail
    place = household.location(state, held_candidate)
    state = _do(sim, household, state, Action("walk", (place,)), Action("grab", (held_candidate,)))
    other = next((o for o, f in zip(household.objects, state.placement) if f == place), None)
    state = _do(sim, household, state, Action("walk", ("fridge",)))
    for action, reason in [
        (Action("putin", (held_candidate, "fridge")), "fridge is closed"),
        (Action("puton", (held_candidate, "fridge")), "fridge is a container; use putin"),
        (Action("walk", (held_candidate,)), f"already holding {held_candidate}"),
    ] + ([(Action("grab", (other,)), f"hand is full (holding {held_candidate})")] if other else []):
        before = _fingerprint(sim)
        result = sim.execute(action)
        assert not result.success and reason in result.reason, (action, result.reason)
        assert _fingerprint(sim) == before, action


def test_holding_is_a_gripper_constraint_and_the_object_travels_with_the_robot(worlds):
    sim, household, state = _fresh(worlds)
    obj = _surface_object(household, state, "kitchen")
    place = household.location(state, obj)
    state = _do(sim, household, state, Action("walk", ("kitchen",)), Action("walk", (place,)), Action("grab", (obj,)))
    body = sim.bodies.objects[obj]
    infos = [p.getConstraintInfo(p.getConstraintUniqueId(i, sim.client), sim.client)
             for i in range(p.getNumConstraints(sim.client))]
    assert [(i[0], i[1], i[2], i[4]) for i in infos] == [(sim.robot.body, sim.robot.ee_link, body, p.JOINT_FIXED)]
    assert sim.geometry().held_object == obj
    start = p.getBasePositionAndOrientation(body, sim.client)[0]
    state = _do(sim, household, state, Action("walk", ("living_room",)))
    moved = p.getBasePositionAndOrientation(body, sim.client)[0]
    robot = sim.robot.base_pose()
    assert math.dist(start, moved) > 2.0 and math.dist(moved[:2], (robot.x, robot.y)) < 0.4
    assert moved[2] - (moved[2] - p.getAABB(body, -1, sim.client)[0][2]) > sim.cfg.robot.base.top
    state = _do(sim, household, state, Action("walk", ("coffee_table",)), Action("puton", (obj, "coffee_table")))
    assert p.getNumConstraints(sim.client) == 0 and sim.geometry().held_object is None
    assert perceive_full(sim.scene, sim.geometry(), household) == state


def test_closed_door_blocks_the_opening(worlds):
    sim, household, state = _fresh(worlds)
    for name, layout in sim.layouts.items():
        if not layout.is_container:
            continue
        body = sim.bodies.furniture[name]
        z = layout.levels[0].floor + 0.05
        outside = layout.frame.to_world(layout.size[0] / 2 + 0.3, 0.0)
        middle = layout.frame.to_world(0.0, 0.0)
        hit = p.rayTest([*outside, z], [*middle, z], physicsClientId=sim.client)[0]
        assert hit[0] == body and hit[1] == 0, f"{name}: the closed door must be hit first"
        sim.host.set_door(name, layout.door.travel)
        hit = p.rayTest([*outside, z], [*middle, z], physicsClientId=sim.client)[0]
        sim.host.set_door(name, 0.0)
        assert not (hit[0] == body and hit[1] == 0), f"{name}: the open door must not block"


@pytest.mark.parametrize("name", APARTMENTS)
def test_walking_between_rooms_passes_doorways_without_touching_anything(worlds, name):
    sim = worlds(name)
    sim.reset(sim.scene.sample_placement(1), seed=1)
    rooms = list(sim.scene.rooms)
    last = next(n for n, l in sim.layouts.items() if l.room == rooms[0])  # furniture in the final room
    for target in rooms[1:] + rooms[:1] + [last]:
        start = sim.robot.base_pose()
        goal = sim.host.goals[target]
        poses = sim.driving.plan_drive(start, goal, target)
        assert sim.driving.first_blocked(poses) is None
        for a, b in zip(poses, poses[1:]):
            assert math.dist((a.x, a.y), (b.x, b.y)) <= sim.cfg.motion.path_step + 1e-9
        for a, b in zip(poses, poses[1:]):  # a room change happens only in a doorway
            ra, rb = (perception.room_at(sim.scene, q.x, q.y) for q in (a, b))
            if ra != rb:
                assert min(math.dist((b.x, b.y), d.center) for d in sim.scene.doorways) < 0.6
        assert sim.execute(Action("walk", (target,))).success
        end = sim.robot.base_pose()
        assert (end.x, end.y) == pytest.approx((goal.pose.x, goal.pose.y))


def test_reset_reuses_bodies_and_rejects_bad_placements(worlds):
    sim, household, state = _fresh(worlds)
    ids = dict(sim.bodies.objects)
    sim.reset(sim.scene.sample_placement(7), seed=7)
    assert sim.bodies.objects == ids
    good = sim.scene.sample_placement(7)
    with pytest.raises(ValueError, match="placement lacks objects: apple_1"):
        sim.reset({k: v for k, v in good.items() if k != "apple_1"})
    with pytest.raises(ValueError, match="placement puts apple_1 on unknown furniture 'roof'"):
        sim.reset({**good, "apple_1": "roof"})
    with pytest.raises(ValueError, match="unknown room 'attic'"):
        sim.reset(good, room="attic")


def test_geometry_snapshot_reports_sensors_only(worlds):
    sim, household, state = _fresh(worlds)
    g = sim.geometry()
    names = {b.name for b in g.bodies}
    assert set(household.objects) <= names and set(sim.scene.furniture) <= names
    assert {j.name for j in g.joints} == ({f"{c}/door" for c in sim.scene.containers}
                                          | {f"{d}/power" for d in sim.scene.switchables})
    assert all(j.position == 0.0 and not j.is_open for j in g.joints)
    assert g.held_object is None and g.scene == sim.scene.name
    for b in g.bodies:
        assert all(lo <= hi for lo, hi in zip(b.aabb_min, b.aabb_max))


def test_skill_timings_are_measured(worlds):
    sim, household, state = _fresh(worlds)
    _do(sim, household, state, Action("walk", ("kitchen",)))
    timings = sim.skill_timings()
    assert timings["walk"]["calls"] >= 1 and 0 < timings["walk"]["mean_ms"] <= timings["walk"]["max_ms"]
