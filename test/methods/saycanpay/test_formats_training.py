"""The Can/Pay input format (§6.1-6.2), the seed's negatives and discounted rewards, and the heads."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_planner.methods.saycanpay.features import N_FEATURES, Featurizer
from llm_planner.methods.saycanpay.formats import ExampleBuilder, model_input
from llm_planner.methods.saycanpay.models import Models, TrainSettings
from llm_planner.methods.saycanpay.training import fit, training_examples
from llm_planner.domains.household.world.expert import build_dataset
from llm_planner.domains.household.world.symbolic import Action, GoalItem, state_goal


def test_input_format_is_the_seeds(seen):
    state = seen.sample_initial_state(0)
    build = ExampleBuilder(seen, (GoalItem("inside", "apple", "fridge", 1),), state)
    ex = build([Action("walk", ("kitchen",)), Action("walk", ("fridge",))], Action("open", ("fridge",)))
    text = model_input(ex)
    assert text.startswith("<Goal> put one apple inside the fridge <Initial State> the robot is in the living room. ")
    assert text.endswith("<Step 1> walk to the kitchen <Step 2> walk to the fridge <NXT> open the fridge")
    assert "the fridge is in the kitchen" in ex.initial_state
    where = seen.location(state, "apple_1")
    # the facts the next action and the goal refer to: the fridge's room and where the apples are
    assert ex.relevant[0] == "the fridge is in the kitchen"
    assert f"the apple 1 is {seen.relation(where)} the {where.replace('_', ' ')}" in ex.relevant
    assert all("banana" not in f for f in ex.relevant)


def test_features_have_fixed_size_and_see_repeats(seen, embedder):
    build = ExampleBuilder(seen, (GoalItem("on", "book", "sofa", 1),), seen.sample_initial_state(1))
    walk = Action("walk", ("living_room",))
    x = Featurizer(embedder).transform([build([], walk), build([walk], walk)])
    assert x.shape == (2, N_FEATURES) and x.dtype == np.float32
    assert x[0, -2] == 0.0 and x[1, -2] == 1.0  # "the next action repeats a step"


@pytest.fixture(scope="module")
def trajectories():
    return build_dataset("apartment_seen", 24, 11, ("simple", "comp"), workers=1).trajectories


def test_can_groups_and_pay_targets_follow_the_seed(seen, trajectories):
    data = training_examples(trajectories, {"apartment_seen": seen}, discount=0.5, seed=3)
    first = trajectories[0]
    n = len(first.actions) + 1  # the expert's steps, then "done task" (§6.2's example)
    groups = data.can_groups[:n]
    assert groups[-1][0].action == "done task" and len(groups[-1][0].history) == n - 1
    assert any(same.action == "done task" for _pos, same, _other in groups[:-1])  # a premature done: a negative
    for t, (pos, same, other) in enumerate(groups):
        assert pos.action == model_input(pos).rsplit("<NXT> ", 1)[1]
        assert len(pos.history) == t and pos.history == same.history == other.history  # same h_{t-1}, g
        assert same.action != pos.action
        assert same.action in {e.action for e in (g[0] for g in groups)}  # a step of the same trajectory
    targets = data.pay_targets[: 2 * n]
    assert targets[-2] == 1.0 and targets[-4] == 0.5 and targets[0] == 0.5 ** (n - 1)
    assert targets[1::2] == [0.0] * n  # negatives from other paths earn nothing


def test_heads_train_save_and_load(seen, trajectories, embedder, tmp_path):
    data = training_examples(trajectories, {"apartment_seen": seen}, discount=0.9)
    models, metrics = fit(data, Featurizer(embedder), TrainSettings(epochs=3, hidden=16), 0.25)
    assert 0.0 <= metrics["can_group_accuracy"] <= 1.0 and metrics["validation_trajectories"] == 6
    models.save(tmp_path)
    loaded = Models.load(tmp_path, N_FEATURES)
    x = Featurizer(embedder).transform([data.pay_examples[0]])
    assert np.allclose(loaded.pay(x), models.pay(x)) and 0.0 < float(loaded.can(x)[0]) < 1.0
    with pytest.raises(Exception, match="llm-planner train saycanpay"):
        Models.load(tmp_path / "missing")
    digest = Models.digest(tmp_path)
    assert len(digest) == 12 and Models.digest(tmp_path) == digest
    other = dataclasses.replace(models, pay=dataclasses.replace(models.pay, b2=models.pay.b2 + 1.0))
    other.save(tmp_path)  # other weights, another digest
    assert Models.digest(tmp_path) != digest


def test_without_the_done_step_the_trajectories_end_with_their_last_action(seen, trajectories):
    data = training_examples(trajectories, {"apartment_seen": seen}, discount=0.5, seed=3, done_step=False)
    n = len(trajectories[0].actions)
    assert data.can_groups[n - 1][0].action != "done task" and data.pay_targets[2 * (n - 1)] == 1.0
    assert all(g[0].action != "done task" for g in data.can_groups)


def test_the_initial_state_tells_the_switch_states_a_goal_asks(seen):
    state = dataclasses.replace(seen.sample_initial_state(0), switched_on=frozenset({"microwave"}))
    goal = (state_goal("on", "tv"), state_goal("off", "microwave"), GoalItem("on", "remote_control", "sofa", 1))
    ex = ExampleBuilder(seen, goal, state)([], Action("walk", ("tv_stand",)))
    assert "the tv is at the tv stand and off" in ex.initial_state
    assert "the microwave is in the kitchen and switched on" in ex.initial_state
    assert "the tv is at the tv stand and off" in ex.relevant  # the goal's things are relevant to every step
    placement = ExampleBuilder(seen, goal[2:], state)([], Action("walk", ("tv_stand",)))
    assert not [f for f in placement.initial_state if "tv is" in f or "switched" in f]
    assert "the microwave is in the kitchen" in placement.initial_state
