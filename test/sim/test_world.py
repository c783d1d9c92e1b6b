"""The PyBullet household world against the symbolic model.

The key test runs, per apartment, 200 random action sequences (8-15 steps, biased towards grab,
put and open so objects really move, with some inadmissible actions mixed in). Every action runs
in both the symbolic model and PyBullet: both must agree on success, a failed skill must change
nothing, and after every action perception from geometry must equal the symbolic observation and
the full symbolic state.
"""
from __future__ import annotations

import random
import time

import pybullet as p
import pytest

from llm_planner.sim.perception import perceive, perceive_full
from llm_planner.sim.world import HouseholdSim, PlacementError
from llm_planner.world.symbolic import Action, Household

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
