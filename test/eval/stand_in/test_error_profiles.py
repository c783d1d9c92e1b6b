"""Error profiles of the served stand-in (``llm-planner serve --error-profile NAME``): the classifier
of a real model's answers (``llm-planner bench answers``) reads what it should, and the stand-in
with ``--error-profile smollm2`` answers over HTTP with the kinds SmolLM2 wrote, at the shares
``config/serve_errors.yaml`` gives, as the same classifier reads them."""
from __future__ import annotations

import json
import math
import random
import urllib.request
from collections import Counter

import pytest

from llm_planner.domains.household.language.model_resources import policy_examples
from llm_planner_eval.bench.answers import ERROR_KIND, USABLE, answer_kind, policy_kind, profile_weights, shares
from llm_planner.domains.household.world.symbolic import Action
from llm_planner.errors import ConfigError
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner_eval.stand_in.serve_options import ServeOptions
from llm_planner_eval.stand_in.wrong_answers import error_profiles, load_error_settings
from llm_planner.domains.household.language.prompts import policy_prompt, translate_prompt, world_model_prompt
from llm_planner.domains.household.language.retrieval import FIXED_TRANSLATION_EXAMPLES
from llm_planner.domains.household.language.text import action_to_text

INSTRUCTIONS = ("put one apple inside the fridge", "put one toothbrush inside the bathroom cabinet",
                "put one plate on the kitchen table", "put one book on the desk",
                "put two apples inside the fridge and one plate on the kitchen table")


def _situation(seen, seed: int, steps: int):
    """A state after ``steps`` legal actions drawn with ``seed`` from a sampled initial state."""
    rng = random.Random(seed)
    state = seen.sample_initial_state(seed)
    history = []
    for _ in range(steps):
        action = rng.choice(seen.legal_actions(state))
        state = seen.transition(state, action)
        history.append(action)
    return state, tuple(history)


def _prompt(seen, seen_world, offline, instruction: str, seed: int, steps: int) -> tuple[str, object]:
    state, history = _situation(seen, seed, steps)
    query = PolicyQuery(seen_world, instruction, seen.observe(state), history)
    examples = policy_examples(offline.resources, query, 1)
    return policy_prompt(seen_world, instruction, query.observation, history, examples), state


def _post(base_url: str, prompt: str, max_tokens: int) -> dict:
    body = {"model": "any", "messages": [{"role": "user", "content": prompt}], "max_tokens": max_tokens}
    request = urllib.request.Request(base_url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["choices"][0]


def _within(count: int, total: int, share: float) -> bool:
    """|count/total - share| within 3.5 binomial standard errors (plus one sample of slack)."""
    return abs(count / total - share) <= 3.5 * math.sqrt(share * (1 - share) / total) + 1.0 / total


# ------------------------------------------------------------------------------ the classifier
def test_the_classifier_reads_smollm2s_answers_as_what_they_are(seen, seen_world, offline):
    prompt, state = _prompt(seen, seen_world, offline, "put one toothbrush inside the bathroom cabinet", 3, 0)
    observation = prompt.split("Current observation:")[-1].split("\n")[0].strip()
    recorded = {  # answers SmolLM2 wrote to the policy prompt (bench answers record), and their kinds
        observation[:1].upper() + observation[1:90]: "echoed_prompt",
        "Next action: " + observation[:80]: "echoed_prompt",
        "What action is this?": "unreadable",
        "Next action:": "unreadable",
        "Next action: grab the bottle of shampoo": "not_in_house",
        "Next action: walk to the bathroom\n\nExplanation: The robot must walk to the bathroom.": "admissible",
        "done": "done",
    }
    for text, kind in recorded.items():  # a long answer ran to its budget, a short one ended
        assert policy_kind(prompt, text, "length" if len(text) > 60 else "stop") == kind, text
    assert policy_kind(prompt, "Next action: walk to the bathro", "length") == "cut_off"
    rambling = "In this task the robot has to think about where everything is and then " * 5
    assert policy_kind(prompt, rambling, "length") == "cut_off"
    assert policy_kind(prompt, rambling, "stop") == "unreadable"  # not cut: it ended without an action


def test_every_legal_action_reads_as_admissible_and_the_objects_unseen_as_not_in_view(seen, seen_world, offline):
    checked = 0
    for seed, steps in ((1, 0), (2, 3), (4, 6), (5, 9)):
        prompt, state = _prompt(seen, seen_world, offline, "put one apple inside the fridge", seed, steps)
        for action in seen.legal_actions(state):
            assert policy_kind(prompt, action_to_text(action)) == "admissible", (seed, action)
            checked += 1
        observation = seen.observe(state)
        shown = {obj for _rel, obj, _place in observation.relations} | {observation.holding}
        unseen = [o for o in seen_world.objects if o not in shown
                  and seen_world.object_type[o] not in {seen_world.object_type.get(s) for s in shown if s}]
        assert policy_kind(prompt, f"grab the {unseen[0].replace('_', ' ')}") == "not_in_view"
    assert checked > 20


def test_world_model_and_translation_answers_by_kind(seen_world):
    prompt = world_model_prompt(seen_world, "apple")
    assert answer_kind("world_model", prompt, "Inside fridge, On kitchen table.") == "readable"
    assert answer_kind("world_model", prompt, "Inside pantry.") == "not_in_house"
    assert answer_kind("world_model", prompt, "Question: what are the possible positions of apple?") == "echoed_prompt"
    assert answer_kind("world_model", prompt, "I do not know.") == "unreadable"
    prompt = translate_prompt(seen_world, "put two apples in the fridge", FIXED_TRANSLATION_EXAMPLES)
    assert answer_kind("translate", prompt, "(INSIDE, apple, fridge, 2)") == "readable"
    assert answer_kind("translate", prompt, "(INSIDE, pineapple, fridge, 2)") == "not_in_house"
    assert answer_kind("translate", prompt, "Goal: put two apples in the fridge") == "echoed_prompt"
    assert answer_kind("translate", prompt, "Sure, I can help.") == "unreadable"
    assert answer_kind("stalm", prompt, "anything") is None  # a method's question: not classified


# ------------------------------------------------------------------------------ the profiles
def test_profiles_are_data_and_an_unknown_one_is_refused_naming_them():
    assert error_profiles()[:2] == ("admissible", "smollm2")
    admissible, smollm2 = load_error_settings(), load_error_settings(profile="smollm2")
    for kind in ("unreadable", "echoed_prompt", "cut_off", "not_in_view"):
        assert admissible.weights["policy"].get(kind, 0.0) == 0.0  # today's wrong answers all read
    assert smollm2.weights["policy"]["unhelpful"] == 0.0 and smollm2.weights["policy"]["echoed_prompt"] > 0.5
    assert smollm2.weights["nl2pddl"] == admissible.weights["nl2pddl"]  # not measured: kept
    assert smollm2.weights["task_plans"]["ignores_occlusion"] == 0.0 < smollm2.weights["task_plans"]["unreadable"]
    with pytest.raises(ConfigError, match="unknown --error-profile 'gpt5'.*admissible, smollm2"):
        ServeOptions(error_profile="gpt5").validate()


def test_the_admissible_profile_never_writes_an_unusable_kind(seen, seen_world, offline, server):
    stand_in = server(error_rate=1.0, error_profile="admissible")
    kinds = Counter()
    for i in range(30):
        prompt, _state = _prompt(seen, seen_world, offline, INSTRUCTIONS[i % len(INSTRUCTIONS)], 100 + i, i % 7)
        choice = _post(stand_in.base_url, prompt, 32)
        kinds[policy_kind(prompt, choice["message"]["content"], choice["finish_reason"])] += 1
    assert not {"echoed_prompt", "unreadable", "cut_off"} & set(kinds), kinds


def test_the_smollm2_profile_answers_with_its_kinds_at_their_shares_over_http(seen, seen_world, offline, server):
    stand_in = server(error_rate=1.0, error_profile="smollm2", error_seed=4)
    records = []
    for i in range(160):
        prompt, _state = _prompt(seen, seen_world, offline, INSTRUCTIONS[i % len(INSTRUCTIONS)], i, i % 8)
        choice = _post(stand_in.base_url, prompt, 32)  # the fitted client's budget of a next action
        records.append({"kind": "policy", "prompt": prompt,
                        "answers": [{"text": choice["message"]["content"], "finish_reason": choice["finish_reason"]}]})
    counts = shares(records)["policy"]
    total = sum(counts.values())
    wanted = load_error_settings(profile="smollm2").weights["policy"]
    norm = sum(wanted.values())
    measured = {ERROR_KIND["policy"][k]: n for k, n in counts.items() if k not in USABLE["policy"]}
    for error, weight in wanted.items():
        assert _within(measured.get(error, 0), total, weight / norm), (error, measured, total)
    assert sum(counts[k] for k in USABLE["policy"]) <= 0.05 * total  # wrong at rate 1: hardly a usable answer
    assert set(profile_weights({"policy": counts})["policy"]) <= {e for e, w in wanted.items() if w > 0}
    assert stand_in.stats()["error_profile"] == "smollm2"
    assert sum(v for k, v in stand_in.stats()["wrong"].items() if k.startswith("policy/")) == 160


def test_a_walk_in_the_history_does_not_change_the_profile_of_a_question(seen, seen_world, offline, server):
    """The draw is by prompt: the same question gets the same wrong answer in two servers."""
    prompt, _state = _prompt(seen, seen_world, offline, INSTRUCTIONS[0], 7, 2)
    first, second = (server(error_rate=1.0, error_profile="smollm2", error_seed=1) for _ in range(2))
    assert _post(first.base_url, prompt, 32) == _post(second.base_url, prompt, 32)


def test_the_smollm2_profile_answers_world_model_and_translation_questions_at_their_shares(seen_world, server):
    """The prior's and the goal's questions: the unusable kinds at their weights (as the classifier reads them)."""
    stand_in = server(error_rate=1.0, error_profile="smollm2", error_seed=2)
    directives = ["put one apple inside the fridge", "put two plates on the kitchen table",
                  "put one book on the desk and one towel on the bed", "put one mug inside the kitchen cabinet"]
    asked = {"world_model": [world_model_prompt(seen_world, t) for t in seen_world.object_types] * 4,
             "translate": [translate_prompt(seen_world, d, FIXED_TRANSLATION_EXAMPLES[:k])
                           for d in directives for k in range(1, 4)] * 10}
    weights = load_error_settings(profile="smollm2").weights
    for question, prompts in asked.items():
        records = []
        for i, prompt in enumerate(prompts):
            prompt = prompt.replace("Now", f"Now ({i})", 1)  # another question each time, the same house
            choice = _post(stand_in.base_url, prompt, 96)
            records.append({"kind": question, "prompt": prompt, "answers": [
                {"text": choice["message"]["content"], "finish_reason": choice["finish_reason"]}]})
        counts = shares(records)[question]
        total = sum(counts.values())
        wanted = {k: w for k, w in weights[question].items() if w > 0}
        measured = {ERROR_KIND[question][k]: n for k, n in counts.items() if k not in USABLE[question]}
        for error, weight in wanted.items():
            assert _within(measured.get(error, 0), total, weight / sum(wanted.values())), (question, measured, total)


def test_the_smollm2_profile_writes_stalm_plans_as_smollm2_did(server):
    """A method's question (STaLM's plans) takes the kinds that fit every question: no plan read."""
    from llm_planner.domains.gtamp.predicates import Literals
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.methods.stalm.prompt import create_prompt

    literals = Literals(None, ("kitchen_door",), (("salter", "on", "counter2"),), (("salter", "bottle2"),),
                        (("salter", "on", "table1", "kitchen_door"),))
    base = create_prompt(load_problem("P2"), literals)
    stand_in = server(error_rate=1.0, error_profile="smollm2", error_seed=3)
    records = []
    for i in range(60):
        prompt = base.replace("Initial state information", f"Initial state information ({i})", 1)
        choice = _post(stand_in.base_url, prompt, 64)
        records.append({"kind": "task_plans", "prompt": prompt, "answers": [
            {"text": choice["message"]["content"], "finish_reason": choice["finish_reason"]}]})
    counts = shares(records)["task_plans"]
    wanted = load_error_settings(profile="smollm2").weights["task_plans"]
    assert sum(counts.values()) == 60
    for error in ("unreadable", "cut_off"):
        assert _within(counts.get(error, 0), 60, wanted[error] / sum(wanted.values())), counts
    # the prompt's last lines written back hold PDDL tuples, which read as steps (as SmolLM2's did)
    echoed = counts.get("echoed_prompt", 0) + counts.get("readable", 0)
    assert _within(echoed, 60, wanted["echoed_prompt"] / sum(wanted.values())), counts
