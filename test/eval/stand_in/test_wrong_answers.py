"""A model of chosen quality (``llm-planner serve --error-rate P``; llm_planner_eval/stand_in/wrong_answers.py and the
methods' wrong answers): which samples are wrong (at the rate, reproducibly, nested over rates), each
error kind says what it should and still reads with the project's readers, and rate 0 changes no byte."""
from __future__ import annotations

import json
import math
import random
from types import SimpleNamespace

import pytest

from llm_planner.domains.household.language.questions import object_positions
from llm_planner.domains.household.language.model_resources import policy_examples
from llm_planner.errors import ConfigError
from llm_planner.llm.answers import first_action, read_goal_tuples, read_positions
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner_eval.stand_in.serve_options import ServeOptions
from llm_planner_eval.stand_in.styles import STYLES, render
from llm_planner_eval.stand_in.wrong_answers import (ErrorModel, ErrorSettings, load_error_settings, policy_absent_object, policy_repeated,
                                                   policy_skipped_precondition, policy_unhelpful, similar_types,
                                                   translate_neighbour_object, translate_wrong_count,
                                                   world_model_another_home)
from llm_planner.domains.household.world.commonsense import load_commonsense
from llm_planner.domains.household.language.prompts import policy_prompt, translate_prompt, world_model_prompt
from llm_planner.domains.household.language.retrieval import FIXED_TRANSLATION_EXAMPLES
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.domains.household.language.text import action_to_text, text_to_name
from llm_planner.domains.household.world.symbolic import Action


def _within_binomial(wrong: int, total: int, rate: float) -> bool:
    """|share - rate| within 3.5 standard errors of a binomial (fails by chance about 1 in 2,000)."""
    return abs(wrong / total - rate) <= 3.5 * math.sqrt(rate * (1 - rate) / total)


def _texts(sample) -> dict[str, str]:
    return {style: render(sample, style, random.Random(i)) for i, style in enumerate(STYLES)}


def _policy_prompt(seen, seen_world, offline, instruction, history, seed=3):
    state = seen.sample_initial_state(seed)
    for action in history:
        state = seen.transition(state, action)
    query = PolicyQuery(seen_world, instruction, seen.observe(state), tuple(history))
    return policy_prompt(seen_world, instruction, query.observation, query.history,
                         policy_examples(offline.resources, query, 2)), state


def _one(served, prompt):
    return served.answer(prompt, 1)[1][0]


def _post(url: str, body: dict) -> dict:
    import urllib.request

    request = urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


# ------------------------------------------------------------------------------ which samples
def test_the_draw_is_at_the_rate_reproducible_per_question_and_nested_over_rates():
    prompts = [f"Question: what are the possible positions of thing {i}?\nAnswer:" for i in range(400)]

    def wrong(rate, seed=7, index=0, correlation=1.0):
        settings = ErrorSettings(load_error_settings().weights, correlation=correlation)
        model = ErrorModel(rate, seed, settings)
        return [model.draw("world_model", p, index) is not None for p in prompts]

    for correlation in (0.0, 0.5, 1.0):
        at_03 = wrong(0.3, correlation=correlation)
        assert _within_binomial(sum(at_03), 400, 0.3), (correlation, sum(at_03))
        assert at_03 == wrong(0.3, correlation=correlation)      # the same questions in every run
        assert at_03 != wrong(0.3, seed=8, correlation=correlation)  # another error seed, other questions
        low, high = wrong(0.2, correlation=correlation), wrong(0.4, correlation=correlation)
        assert all(h for l, h in zip(low, high) if l) and all(h for l, h in zip(at_03, high) if l)  # nested
        assert not any(wrong(0.0, correlation=correlation)) and all(wrong(1.0, correlation=correlation))
    assert wrong(0.3, correlation=0.0) != wrong(0.3, index=1, correlation=0.0)  # each sample on its own
    assert wrong(0.3) == wrong(0.3, index=1)   # correlation 1: a question's samples wrong together


def test_settings_that_name_no_kind_fail_with_the_known_ones():
    with pytest.raises(ConfigError, match="error kind.*skipped_precondition"):
        ErrorModel(0.2, settings=ErrorSettings({"policy": {"skiped_precondition": 1.0}}))
    with pytest.raises(ConfigError, match="no served question kind 'polcy'"):
        ErrorModel(0.2, settings=ErrorSettings({"polcy": {}}))
    with pytest.raises(ConfigError, match=r"--error-rate must be in \[0, 1\]"):
        ServeOptions(error_rate=1.5).validate()


def test_rate_zero_leaves_every_answer_byte_identical(served, server, seen, seen_world, offline):
    prompts = [world_model_prompt(seen_world, "apple"),
               _policy_prompt(seen, seen_world, offline, "put one apple inside the fridge", ())[0],
               translate_prompt(seen_world, "put two apples in the fridge", FIXED_TRANSLATION_EXAMPLES)]
    for prompt in prompts:
        assert served.answer(prompt, 3, 5, errors=ErrorModel(0.0)) == served.answer(prompt, 3, 5)
    today, at_zero = server(style="mixed", seed=3), server(style="mixed", seed=3, error_rate=0.0, error_seed=9)
    for prompt in prompts:
        body = {"model": "any", "messages": [{"role": "user", "content": prompt}], "n": 3, "seed": 5}
        replies = [_post(s.base_url, body)["choices"] for s in (today, at_zero)]
        assert json.dumps(replies[0]) == json.dumps(replies[1])
    assert at_zero.stats()["wrong"] == {} and at_zero.stats()["error_rate"] == 0.0


# ------------------------------------------------------------------------------ world model (prior)
def test_another_home_names_places_of_the_same_kind_that_common_sense_does_not_keep_it_in(served, seen_world):
    prompt = world_model_prompt(seen_world, "apple")
    right = _one(served, prompt)
    right_places = {text_to_name(p) for _r, p in right.data["positions"]}
    for seed in range(10):
        wrong = world_model_another_home(served, prompt, right, random.Random(seed))
        places = [(rel, text_to_name(p)) for rel, p in wrong.data["positions"]]
        assert len(places) == len(right.data["positions"]) and not {p for _r, p in places} & right_places
        for rel, place in places:  # Inside a container, On a surface: the same kind as the right place
            assert place in (seen_world.containers if rel == "inside" else seen_world.surfaces)
        for style, text in _texts(wrong).items():
            assert [(r, text_to_name(p)) for r, p in read_positions(text)] == places, (style, text)


# ------------------------------------------------------------------------------ policy and Say
def test_each_policy_error_kind(served, seen, seen_world, offline):
    walk = Action("walk", ("kitchen",))
    prompt, state = _policy_prompt(seen, seen_world, offline, "put one apple inside the fridge", (walk,))
    right = _one(served, prompt)
    legal = {action_to_text(a) for a in seen.legal_actions(state)}
    kinds = {"unhelpful": policy_unhelpful, "skipped_precondition": policy_skipped_precondition,
             "repeated": policy_repeated, "absent_object": policy_absent_object}
    said = {}
    for name, wrong_answer in kinds.items():
        wrong = wrong_answer(served, prompt, right, random.Random(1))
        assert wrong is not None and wrong.data["next_actions"] != right.data["next_actions"], name
        action = wrong.data["next_actions"][0]
        for style, text in _texts(wrong).items():
            assert first_action(text) == action, (name, style, text)
        said[name] = action
    assert said["unhelpful"] in legal and "apple" not in said["unhelpful"] and "fridge" not in said["unhelpful"]
    assert said["skipped_precondition"] not in legal  # grab the apple before walking to it, open the fridge from afar
    assert said["skipped_precondition"].startswith(("grab the apple", "open the fridge"))
    assert said["repeated"] == "walk to the kitchen"   # the last action again (nothing to undo after one walk)
    absent = said["absent_object"].split(" the ", 1)[1].rsplit(" ", 1)[0]
    assert text_to_name(absent) not in seen_world.object_types and absent in load_commonsense().objects


def test_repeated_undoes_the_last_action_as_the_seed_reports(served, seen, seen_world, offline):
    """Seed 000 §4: "repeatedly opening and closing the microwave"; walking back where it came from."""
    history = (Action("walk", ("kitchen",)), Action("walk", ("fridge",)), Action("open", ("fridge",)))
    prompt, state = _policy_prompt(seen, seen_world, offline, "put one apple inside the fridge", history)
    wrong = policy_repeated(served, prompt, _one(served, prompt), random.Random(0))
    assert wrong.data["next_actions"] == ["close the fridge"]
    history = (Action("walk", ("kitchen",)), Action("walk", ("bedroom",)))
    prompt, _state = _policy_prompt(seen, seen_world, offline, "put one apple inside the fridge", history)
    assert policy_repeated(served, prompt, _one(served, prompt), random.Random(0)).data["next_actions"] == \
        ["walk to the kitchen"]
    prompt, _state = _policy_prompt(seen, seen_world, offline, "put one apple inside the fridge", ())
    assert policy_repeated(served, prompt, _one(served, prompt), random.Random(0)) is None  # nothing to repeat


def test_skipped_precondition_puts_before_opening_or_walking(served, seen, seen_world, offline):
    start = seen.sample_initial_state(3)
    history: tuple = ()
    for room in seen.rooms:  # walk to a room where an apple shows, to it, and grab it
        here = seen.transition(start, Action("walk", (room,)))
        walks = [a for a in seen.legal_actions(here) if a.verb == "walk" and seen.object_type.get(a.args[0]) == "apple"]
        if walks:
            apple = walks[0].args[0]
            history = (Action("walk", (room,)), walks[0], Action("grab", (apple,)))
            break
    assert history, "no apple in sight in any room"
    prompt, state = _policy_prompt(seen, seen_world, offline, "put one apple inside the fridge", history)
    wrong = policy_skipped_precondition(served, prompt, _one(served, prompt), random.Random(0))
    assert wrong.data["next_actions"] == [f"put the {name_to_text(apple)} inside the fridge"]
    assert Action("putin", (apple, "fridge")) not in seen.legal_actions(state)


# ------------------------------------------------------------------------------ translation
def test_translation_errors_change_one_count_or_one_object_and_still_read(served, seen_world):
    prompt = translate_prompt(seen_world, "put two apples in the fridge and a plate on the kitchen table",
                              FIXED_TRANSLATION_EXAMPLES)
    right = _one(served, prompt)
    have = {t: seen_world.count(t) for t in seen_world.object_types}
    for seed in range(8):
        count = translate_wrong_count(served, prompt, right, random.Random(seed))
        changed = [(a, b) for a, b in zip(right.data["goal"], count.data["goal"]) if a != b]
        assert len(changed) == 1 and abs(changed[0][0][3] - changed[0][1][3]) == 1
        assert 1 <= changed[0][1][3] <= have[changed[0][1][1]]
        swapped = translate_neighbour_object(served, prompt, right, random.Random(seed))
        changed = [(a, b) for a, b in zip(right.data["goal"], swapped.data["goal"]) if a != b]
        assert len(changed) == 1 and changed[0][1][1] in seen_world.object_types and changed[0][1][1] != changed[0][0][1]
        for wrong in (count, swapped):
            want = [(r.lower(), o, d, c) for r, o, d, c in wrong.data["goal"]]
            for style, text in _texts(wrong).items():
                assert [(r, text_to_name(o), text_to_name(d), c) for r, o, d, c in read_goal_tuples(text)] == want, \
                    (style, text)


def test_similar_objects_come_from_where_common_sense_keeps_them():
    commonsense = load_commonsense()
    ranked = similar_types("apple", ["towel", "pear", "shampoo", "book", "plum"], commonsense)
    assert set(ranked[:2]) == {"pear", "plum"} and ranked[-1] in ("towel", "shampoo", "book")


# ------------------------------------------------------------------------------ STaLM plans
@pytest.fixture(scope="module")
def p2():
    from llm_planner.domains.gtamp.predicates import Literals
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.methods.stalm.prompt import create_prompt

    literals = Literals(None, ("kitchen_door",), (("salter", "on", "counter2"),), (("salter", "bottle2"),),
                        (("salter", "on", "table1", "kitchen_door"),))
    problem = load_problem("P2")
    return problem, create_prompt(problem, literals)


def test_stalm_plans_that_ignore_an_occlusion_or_misorder_their_steps(served, p2):
    from llm_planner.methods.stalm.plan_parser import Vocabulary, parse_plan
    from llm_planner_eval.stand_in.stalm_wrong_plans import ignores_occlusion, misordered

    problem, prompt = p2
    vocab = Vocabulary(problem.object_names, problem.region_names, problem.door_names)
    right = _one(served, prompt)
    assert ("pick", "bottle2") in [tuple(s) for s in right.data["plan"]]
    ignoring = ignores_occlusion(served, prompt, right, random.Random(0))
    steps = [tuple(s) for s in ignoring.data["plan"]]
    assert steps[0] == ("pick", "salter") and not any("bottle2" in s for s in steps)   # picks the occluded salter
    assert not any("bottle2" in c for c in ignoring.data["challenges"])                # and does not say why not
    swapped = misordered(served, prompt, right, random.Random(0))
    assert sorted(map(tuple, swapped.data["plan"])) == sorted(map(tuple, right.data["plan"]))
    assert swapped.data["plan"] != right.data["plan"]
    for wrong in (ignoring, swapped):
        for style, text in _texts(wrong).items():
            parsed = parse_plan(text, vocab)
            assert parsed.complete and [(a.op, *a.args) for a in parsed.actions] == \
                [tuple(s) for s in wrong.data["plan"]], (style, text)


# ------------------------------------------------------------------------------ Levy-Karpas
def test_levy_karpas_answers_with_a_wrong_count_or_object_that_still_read(served, offline, seen):
    from llm_planner.methods.levy_karpas.config import load_config
    from llm_planner.methods.levy_karpas.openai_channels import OpenAIChannels, read_goal_template
    from llm_planner.methods.levy_karpas.template import parse_template
    from llm_planner_eval.stand_in.levy_karpas_wrong_answers import neighbour_object, wrong_count

    channels = OpenAIChannels(seen, offline, [], load_config()["openai"], asker=SimpleNamespace(ask=None))
    prompt = channels.prompt("put one apple inside the fridge", None)
    right = _one(served, prompt)
    assert right.data["goal"] == "(INSIDE, apple, fridge, 1)"
    count = wrong_count(served, prompt, right, random.Random(0))
    assert count.data["goal"] == "(INSIDE, apple, fridge, 2)"
    swapped = neighbour_object(served, prompt, right, random.Random(0))
    assert swapped.data["goal"].startswith("(INSIDE, ") and ", fridge, 1)" in swapped.data["goal"]
    assert "apple" not in swapped.data["goal"]
    steps = channels.prompt("go to the kitchen, walk to the fridge and open it, then grab the milk and put it on "
                            "the kitchen table", None)
    right_steps = _one(served, steps)
    template = neighbour_object(served, steps, right_steps, random.Random(0)).data["template"]
    assert "milk" not in template and parse_template(template)
    for wrong in (count, swapped):
        for style, text in _texts(wrong).items():
            assert read_goal_template(text)[0] == [wrong.data["goal"]], (style, text)


# ------------------------------------------------------------------------------ over HTTP, at a rate
def test_served_at_30_percent_is_wrong_on_30_percent_of_400_samples_and_every_answer_reads(
        server, embedder, dataset, seen_world):
    """The world-model question for 100 object types, 4 samples each, through the openai client
    (correlation 1 by default: a question's 4 samples are wrong together)."""
    from llm_planner.llm.factory import make_backend

    s = server(style="mixed", error_rate=0.3, error_seed=11, structured_output=False)
    lm = make_backend(backend="openai", embedder=embedder, dataset=dataset, openai__base_url=s.base_url,
                      openai__model="served", cache__enabled=False, embeddings__warm_actions=False,
                      openai__timeout_s=10.0)
    types = sorted(text_to_name(t) for t in load_commonsense().objects)[:100]
    answered = [object_positions(lm, seen_world, t, m=4) for t in types]
    assert all(len(a.samples) >= 1 for a in answered)  # every answer read (a wrong one is not garbage)
    wrong = s.stats()["wrong"]
    assert set(wrong) <= {"world_model/another_home"}, wrong
    count = wrong.get("world_model/another_home", 0)
    assert count % 4 == 0 and _within_binomial(count // 4, 100, 0.3), wrong
