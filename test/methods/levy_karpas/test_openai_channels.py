"""The openai channels: prompt with the state as text and training examples, n samples ranked by
frequency, names grounded or dropped (a scripted ``ask`` stands in for the HTTP backend)."""
from __future__ import annotations

import pytest

from llm_planner.llm.factory import make_backend
from llm_planner.methods.levy_karpas.dataset import generate_split
from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.openai_channels import OpenAIChannels
from llm_planner.methods.levy_karpas.template import parse_template
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import GoalItem, Household, state_goal


class ScriptedAsk:
    def __init__(self, texts):
        self.texts = texts
        self.prompts = []

    def ask(self, kind, prompt, n, params, parse):
        self.prompts.append((kind, prompt, n, params))
        return parse(self.texts[:n]), None


@pytest.fixture(scope="module")
def channels(tmp_path_factory):
    backend = make_backend(backend="offline", cache__dir=str(tmp_path_factory.mktemp("oa_cache")))
    household = Household(load_scene("apartment_seen"))
    train = generate_split("train", "apartment_seen", 8, 1, load_config()["dataset"])
    return OpenAIChannels(household, backend, train, load_config()["openai"], asker=ScriptedAsk([])), household


def test_samples_are_ranked_by_frequency_and_grounded(channels):
    ch, household = channels
    ch.asker = ScriptedAsk([
        "Goal: (INSIDE, apple, refrigerator, 1)\nTemplate: partial: walk(kitchen)",
        "Goal: (INSIDE, apple, fridge, 1)\nTemplate: partial: walk(kitchen)",
        "Goal: (ON, apple, kitchen table, 1)\nTemplate: partial: walk(kitchen), slice(apple)",
        "Goal: (INSIDE, pizza, oven, 1)\nTemplate: partial: walk(garage)",
        "nonsense",
    ])
    state = household.sample_initial_state(0)
    out = ch.predict("go to the kitchen and put an apple in the fridge", "go to the kitchen and put an apple in the fridge",
                     state)
    assert out.goals == [(GoalItem("inside", "apple", "fridge", 1),)]  # two of five samples agree
    # pizza dropped (not in the scene); the apple on the kitchen table too: the directive says the fridge
    assert out.templates == [parse_template("partial: walk(kitchen)")]  # slice() and the garage dropped
    kind, prompt, n, params = ch.asker.prompts[0]
    assert n == 5 and params["temperature"] == 0.8 and "State: the robot is in the living room" in prompt
    assert prompt.count("Directive:") == 1 + 4  # K = 4 training examples, then the query


def test_answers_in_other_styles_are_read(channels):
    ch, household = channels
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    styles = [
        "**Goal:** (INSIDE, apple, fridge, 1)\n**Template:** partial: walk(kitchen)",
        '```json\n{"goal": "(INSIDE, apple, fridge, 1)", "template": "partial: walk(kitchen)"}\n```',
        "<think>The apple goes into the fridge; the kitchen is named first.</think>\nGoal: (INSIDE, apple, fridge, 1)\n"
        "Template: `partial: walk(kitchen)`",
        "Sure! Here is the translation:\n\nGoal: (INSIDE, Apples, Refrigerator, 1)\nTemplate: partial: walk(kitchen)\n\n"
        "Let me know if you need anything else.",
    ]
    for text in styles:
        goals, templates, refused = ch._parse([text], "put an apple in the fridge")
        assert not refused and goals == [goal] and templates == [parse_template("partial: walk(kitchen)")], text
    assert ch._parse(["Goal: (NEXT_TO, apple, fridge, 1)\nTemplate: none", "I'm sorry, I can't help."]) == ([], [], [])


def test_a_goal_the_directive_does_not_ask_for_is_dropped_and_said(channels):
    """A sub-goal copied from the prompt's examples never reaches the consistency check."""
    ch, household = channels
    ch.asker = ScriptedAsk(["Goal: (INSIDE, apple, fridge, 1)-(ON, apple, kitchen_table, 1)\nTemplate: none"] * 3)
    out = ch.predict("go to the kitchen and put one apple inside the fridge", "", None)
    assert out.goals == [] and "the model added 'an apple on the kitchen table'" in out.goal_error
    ch.asker = ScriptedAsk(["Goal: (INSIDE, apple, fridge, 1)-(ON, apple, kitchen_table, 1)\nTemplate: none",
                            "Goal: (INSIDE, apple, fridge, 1)\nTemplate: partial: walk(kitchen)"])
    out = ch.predict("go to the kitchen and put one apple inside the fridge", "", None)
    assert out.goals == [(GoalItem("inside", "apple", "fridge", 1),)] and out.goal_error == ""


def test_a_model_that_does_not_answer_falls_back_to_the_offline_channels(tmp_path):
    """Phase I is the question kind ``nl2pddl``: the openai backend behind FallbackBackend answers it
    with the model's channels, and when the server does not answer the offline channels do (the
    channels are no longer picked by the backend's name, bypassing the fallback)."""
    import socket

    from llm_planner.llm.factory import FallbackBackend
    from llm_planner.methods.levy_karpas.system import LevyKarpasSystem

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    backend = make_backend(backend="openai", fallback_to_offline=True, cache__dir=str(tmp_path),
                           openai__base_url=f"http://127.0.0.1:{port}/v1", openai__max_retries=0,
                           openai__timeout_s=2.0, openai__question_timeout_s=60.0, openai__probe__enabled=False)
    assert isinstance(backend, FallbackBackend) and backend.name == "openai"
    config = load_config()
    config["dataset"]["splits"]["train"]["n"] = 40
    system = LevyKarpasSystem(backend, config)
    household = Household(load_scene("apartment_seen"))
    output = system.channels(household).predict("put one apple inside the fridge", "", None)
    assert output.goals and output.goals[0] == (GoalItem("inside", "apple", "fridge", 1),)
    assert backend.usage.fallbacks == 1 and backend.primary.usage.requests >= 1  # the model was asked first


def test_state_items_are_asked_read_by_name_and_never_left_out(channels):
    ch, household = channels
    directive = "turn on the tv and put the remote on the sofa"
    ch.asker = ScriptedAsk([
        "Goal: (ON, remote_control, sofa, 1)-(ON, tv)\nTemplate: none",
        "Goal: (ON, remote control, sofa, 1)-(ON, tv)\nTemplate: none",
        "Goal: (ON, remote_control, sofa, 1)\nTemplate: none",  # the tv left out: dropped, not the whole goal
        "Goal: (ON, apple)\nTemplate: none",                    # an apple does not switch: dropped
        "Goal: (ON, remote_control, sofa, 1)-(OPEN, tv)\nTemplate: none",
    ])
    out = ch.predict(directive, directive, None)
    assert out.goals == [(GoalItem("on", "remote_control", "sofa", 1), state_goal("on", "tv"))]
    prompt = ch.asker.prompts[0][1]
    assert "States: a goal may also ask how a thing is left" in prompt and "tv, floor_lamp, desk_lamp" in prompt
    ch.asker = ScriptedAsk(["Goal: (ON, remote_control, sofa, 1)\nTemplate: none"] * 5)
    left_out = ch.predict(directive, directive, None)
    assert left_out.goals == [] and "leaves out a state the directive asks" in left_out.goal_error
    ch.asker = ScriptedAsk(["Goal: (INSIDE, apple, fridge, 1)-(CLOSED, fridge)\nTemplate: none"] * 5)
    closing = ch.predict("put an apple in the fridge and close it", "put an apple in the fridge and close it", None)
    assert closing.goals == [(GoalItem("inside", "apple", "fridge", 1), state_goal("closed", "fridge"))]
    ch.predict("put an apple in the fridge", "put an apple in the fridge", None)
    assert "States:" not in ch.asker.prompts[-1][1]  # a directive without state clauses: the prompt as before
