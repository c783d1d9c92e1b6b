"""The commonsense prior belief (prior.py; LLM-MCTS §2.2, App. C.2)."""
from __future__ import annotations

import copy

import numpy as np

from llm_planner import cli
from llm_planner.methods.llm_mcts.prior import PriorBelief, build_prior, load_or_build_prior, position_vector
from llm_planner_eval.bench.priors import evaluate_prior
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.scene import parse_scene


def test_counts_normalised_with_floor():
    vec = position_vector({"fridge": 3, "table": 1}, ["fridge", "table", "sofa", "bed"], 1e-3)
    assert abs(sum(vec) - 1) < 1e-12
    assert vec[2] == vec[3] and abs(vec[2] - 1e-3 / 1.002) < 1e-9
    assert abs(vec[0] - 0.75 / 1.002) < 1e-9
    assert position_vector({}, ["a", "b"], 1e-3) == (0.5, 0.5)


def test_offline_prior_of_the_seen_apartment(offline, seen, seen_world, tmp_path):
    prior = build_prior(offline, seen_world, scene="apartment_seen")
    assert prior.places == tuple(seen_world.containers) + tuple(seen_world.surfaces)
    assert prior.samples == 5 and prior.floor == 1e-3 and prior.place_room["fridge"] == "kitchen"
    for obj_type in seen_world.object_types:
        vec = prior.vector(obj_type)
        assert abs(vec.sum() - 1) < 1e-9 and vec.min() > 0
        assert sum(prior.counts[obj_type].values()) >= 5  # M answers, each naming at least one place
    assert prior.top("milk", 1)[0][0] == "fridge"
    assert {p for p, _ in prior.top("toothbrush", 2)} == {"bathroom_counter", "bathroom_cabinet"}
    path = prior.save(tmp_path / "prior.json")
    assert PriorBelief.load(path) == PriorBelief.from_dict(prior.to_dict())
    assert path.stat().st_size < 100_000
    questions = offline.usage.questions
    again = load_or_build_prior(path, offline, seen_world)
    assert offline.usage.questions == questions and np.allclose(again.vector("apple"), prior.vector("apple"), atol=1e-6)


def test_prior_never_reads_the_hidden_distribution(offline, seen):
    raw = copy.deepcopy(dict(seen.scene.raw))
    furniture = list(raw["furniture"])
    for k, spec in enumerate(raw["objects"].values()):
        spec["places"] = {furniture[(k * 7) % len(furniture)]: 1}  # nonsense truth
    scrambled = parse_scene(raw)
    a = build_prior(offline, WorldInfo.from_scene(seen.scene))
    b = build_prior(offline, WorldInfo.from_scene(scrambled))
    assert a.probs == b.probs


def test_top3_rate_of_true_places(offline, seen, unseen):
    for household in (seen, unseen):
        prior = build_prior(offline, WorldInfo.from_household(household), scene=household.scene.name)
        ev = evaluate_prior(prior, household.scene, range(100))
        print(f"\nprior ({household.scene.name}, offline, M=5): true place top-1 {100 * ev.top1:.1f}%, "
              f"top-3 {100 * ev.top3:.1f}% of {ev.objects} sampled objects")
        assert ev.top3 > 0.5  # "most objects"


def test_build_prior_command(capsys, tmp_path, offline):
    out = tmp_path / "p.json"
    assert cli.main(["build-prior", "--scene", "apartment_seen", "--out", str(out), "--evaluate", "20"]) == 0
    text = capsys.readouterr().out
    assert "among the top-3" in text and PriorBelief.load(out).scene == "apartment_seen"


def test_a_type_the_model_names_no_place_for_keeps_a_uniform_belief(openai_backend, fake_openai, seen_world):
    """A small real model sometimes answers a world-model question with nothing of the scene (SmolLM2:
    "The possible positions of toilet bowl are inside kitchen"): after its retries that type's belief
    is uniform (the floor everywhere, as with no samples) and the prior of the other types is built
    (one such type must not end a whole benchmark)."""
    fake_openai.answer = "I like turtles."
    lm = openai_backend()
    prior = build_prior(lm, seen_world, obj_types=["apple"], m=2)
    assert prior.counts["apple"] == {} and "no usable answer" in prior.answers["apple"][0]
    assert np.allclose(prior.probs["apple"], prior.probs["apple"][0])
    fake_openai.answer = "Inside fridge, On kitchen counter."
    prior = build_prior(lm, seen_world, obj_types=["banana"], m=2)
    assert prior.counts["banana"] == {"fridge": 2, "kitchen_counter": 2}
