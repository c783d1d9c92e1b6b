"""``llm-planner serve`` (llm_planner_eval/stand_in/serve.py, served.py, styles.py): the prompts it recognises, what
it rebuilds from them (never more than the prompt says), and the HTTP behaviour of a model server
(n, max_tokens, stop, response_format, faults, concurrency, statistics), over real HTTP."""
from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.request

import pytest

from llm_planner.domains.household.language.questions import next_actions, object_positions
from llm_planner.domains.household.language.model_resources import policy_examples
from llm_planner.errors import ConfigError, LLMError
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.prompts import policy_prompt, translate_prompt, world_model_prompt
from llm_planner.domains.household.language.retrieval import FIXED_TRANSLATION_EXAMPLES
from llm_planner.methods.llm_mcts.mcts import seen_switches
from llm_planner_eval.stand_in.serve import _limit
from llm_planner_eval.stand_in.serve_options import Latency, ServeOptions
from llm_planner_eval.stand_in.served import classify, policy_world, read_actions, read_observation
from llm_planner_eval.stand_in.styles import STYLES, render
from llm_planner.domains.household.world.symbolic import Action


@pytest.fixture(scope="module")
def p2_prompt() -> str:
    from llm_planner.domains.gtamp.predicates import Literals
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.methods.stalm.prompt import create_prompt

    literals = Literals(None, ("kitchen_door",), (("salter", "on", "counter2"),), (("salter", "bottle2"),),
                        (("salter", "on", "table1", "kitchen_door"),))
    return create_prompt(load_problem("P2"), literals)


def _post(url: str, body: dict, timeout: float = 30.0) -> tuple[int, dict, dict]:
    request = urllib.request.Request(url + "/chat/completions", json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def _ask(prompt: str, **extra) -> dict:
    return {"model": "any", "messages": [{"role": "system", "content": "You are helpful."},
                                         {"role": "user", "content": prompt}], **extra}


def _policy_prompt(seen, seen_world, offline, history=(), seed=3):
    state = seen.sample_initial_state(seed)
    for action in history:
        state = seen.transition(state, action)
    # as the planner asks it: the observation tells no switch state the goal does not name
    query = PolicyQuery(seen_world, "put one apple inside the fridge", seen_switches(seen.observe(state), ()),
                        tuple(history))
    return policy_prompt(seen_world, query.instruction, query.observation, query.history,
                         policy_examples(offline.resources, query, 2)), query


# ------------------------------------------------------------------------------ reading prompts
def test_every_project_prompt_is_recognised(seen, seen_world, offline, p2_prompt):
    assert classify(world_model_prompt(seen_world, "apple")) == "world_model"
    assert classify(_policy_prompt(seen, seen_world, offline)[0]) == "policy"
    assert classify(translate_prompt(seen_world, "put an apple in the fridge", FIXED_TRANSLATION_EXAMPLES)) == "translate"
    assert classify(p2_prompt) == "task_plans"
    assert classify("What is the capital of France?") == "unknown"


def test_the_policy_prompt_gives_back_the_world_and_the_situation(seen, seen_world, offline):
    walk = Action("walk", ("kitchen",))
    prompt, query = _policy_prompt(seen, seen_world, offline, history=(walk,))
    world = policy_world(prompt)
    assert world == seen_world  # names, kinds, rooms and objects: the whole WorldInfo, from the prompt alone
    tail = prompt.split("Now give the next action of the next task, on one line.")[1]
    observation = read_observation(tail.split("Current observation: ")[1].split("\n")[0], world)
    assert observation == query.observation
    assert read_actions("walk to the kitchen, grab the apple 1, put the apple 1 inside the fridge") == (
        walk, Action("grab", ("apple_1",)), Action("putin", ("apple_1", "fridge")))


def test_served_answers_are_the_offline_answers(served, offline, seen, seen_world):
    prompt, query = _policy_prompt(seen, seen_world, offline)
    kind, samples = served.answer(prompt, 3)
    assert kind == "policy" and [s.data["next_actions"][0] for s in samples] == \
        list(next_actions(offline, query, m=3).texts)
    kind, samples = served.answer(translate_prompt(seen_world, "could you put two apples in the fridge?",
                                                   FIXED_TRANSLATION_EXAMPLES), 1)
    assert samples[0].data["goal"] == [["INSIDE", "apple", "fridge", 2]]
    kind, samples = served.answer(translate_prompt(seen_world, "put the fridge on the apple", FIXED_TRANSLATION_EXAMPLES), 1)
    assert samples[0].data["goal"] == [] and "furniture" in samples[0].data["problem"]


def test_every_style_renders_every_kind(served, seen_world, p2_prompt):
    prompts = [world_model_prompt(seen_world, "mug"), p2_prompt,
               translate_prompt(seen_world, "put a mug on the desk", FIXED_TRANSLATION_EXAMPLES)]
    for prompt in prompts:
        _kind, samples = served.answer(prompt, 1)
        texts = {style: render(samples[0], style, random.Random(0)) for style in STYLES}
        assert len(set(texts.values())) >= 4, texts
        assert texts["thinking"].startswith("<think>") and "</think>" in texts["thinking"]


# ------------------------------------------------------------------------------ HTTP
def test_chat_completions_with_n_stats_and_models(server, seen_world):
    s = server(style="plain")
    status, _h, body = _post(s.base_url, _ask(world_model_prompt(seen_world, "apple"), n=4))
    assert status == 200 and len(body["choices"]) == 4 and body["usage"]["prompt_tokens"] > 50
    assert all(c["message"]["content"].startswith(("Inside", "On")) for c in body["choices"])
    _post(s.base_url, _ask("hello there"))
    with urllib.request.urlopen(s.base_url + "/models", timeout=10) as response:
        assert json.loads(response.read())["data"][0]["id"] == "llm-planner-offline"
    stats = s.stats()
    assert stats["by_kind"] == {"world_model": 1, "unknown": 1} and stats["choices"] == 5


def test_bad_requests_get_400_and_the_server_keeps_serving(server, seen_world):
    s = server(max_n=2, structured_output=False)
    assert _post(s.base_url, {"model": "x"})[0] == 400
    assert _post(s.base_url, _ask("hi", n=3))[2]["error"]["param"] == "n"
    refused = _post(s.base_url, _ask("hi", response_format={"type": "json_schema", "json_schema": {"name": "x"}}))
    assert refused[0] == 400 and "response_format" in refused[2]["error"]["message"]
    assert _post(s.base_url, _ask(world_model_prompt(seen_world, "apple")))[0] == 200
    assert s.stats()["bad_requests"] == 3


def test_structured_output_is_bare_json_of_the_schema(server, seen_world):
    from llm_planner.llm.answers import response_format

    s = server(style="thinking")
    _status, _h, body = _post(s.base_url, _ask(world_model_prompt(seen_world, "milk"),
                                               response_format=response_format("positions")))
    message = body["choices"][0]["message"]
    data = json.loads(message["content"])
    assert {p["relation"] for p in data["positions"]} <= {"inside", "on"} and "reasoning_content" in message


def test_max_tokens_and_stop_cut_the_answer():
    assert _limit("Sure! Here:\n1. walk to the kitchen", None, ["\n"]) == ("Sure! Here:", "stop")
    assert _limit("one two three four", 2, None) == ("one two", "length")


@pytest.mark.parametrize("fault,status", [("429", 429), ("500", 500), ("refusal", 200), ("garbage", None)])
def test_each_fault(server, seen_world, fault, status):
    s = server(fault_rate=1.0, faults=(fault,), retry_after_s=2)
    try:
        code, headers, body = _post(s.base_url, _ask(world_model_prompt(seen_world, "apple")))
    except (json.JSONDecodeError, ValueError):
        code, headers, body = None, {}, {}
    if fault == "429":
        assert code == 429 and headers.get("Retry-After") == "2"
    elif fault == "refusal":
        assert code == 200 and "sorry" in body["choices"][0]["message"]["content"].lower()
    elif fault == "garbage":
        assert code is None or "choices" in body
    else:
        assert code == status
    assert s.stats()["faults"] == {fault: 1}


def test_timeout_fault_keeps_the_client_waiting_then_the_server_closes(server, seen_world):
    s = server(fault_rate=1.0, faults=("timeout",), hang_s=5.0)
    with pytest.raises((TimeoutError, urllib.error.URLError)):
        _post(s.base_url, _ask("hello"), timeout=0.5)
    s.stop()  # ends the hang at once


def test_concurrency_limit_queues_requests(server):
    s = server(max_concurrency=2, latency=Latency.fixed(0.3))
    codes: list[int] = []
    threads = [threading.Thread(target=lambda: codes.append(_post(s.base_url, _ask("hi"))[0])) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    stats = s.stats()
    assert codes == [200] * 6 and stats["max_in_flight"] <= 2 and stats["queue_s"] > 0


def test_options_are_checked():
    with pytest.raises(ConfigError, match="answer style"):
        ServeOptions(style="poetic").validate()
    with pytest.raises(ConfigError, match="unknown fault"):
        ServeOptions(fault_rate=0.1, faults=("404",)).validate()
    with pytest.raises(ConfigError, match="uniform:LO,HI"):
        Latency.parse("gamma:1")
    assert Latency.parse("uniform:0.1,0.2").draw(random.Random(0)) <= 0.2 and Latency.parse("0.5").params == (0.5,)


# ------------------------------------------------------------------------------ through the openai client
def _client(server, embedder, dataset, tmp_path, **overrides):
    from llm_planner.llm.factory import make_backend

    settings = {"openai__base_url": server.base_url, "openai__model": "served", "cache__enabled": False,
                "embeddings__warm_actions": False, "openai__timeout_s": 10.0, "openai__max_retries": 2,
                "openai__backoff_initial_s": 0.05, "openai__backoff_max_s": 0.2}
    settings.update(overrides)
    return make_backend(backend="openai", embedder=embedder, dataset=dataset, **settings)


@pytest.mark.parametrize("style", STYLES)
def test_every_style_reads_back_to_the_offline_answer(server, offline, embedder, dataset, tmp_path, seen, seen_world,
                                                      style):
    from llm_planner.translation.translate import translate_directive

    s = server(style=style, structured_output=False)
    lm = _client(s, embedder, dataset, tmp_path, translate__ask_model="always")  # asked though the reader reads it
    directive = "put two apples in the fridge and one plate on the kitchen table"
    read = translate_directive(directive, seen, lm)
    assert read.goal == translate_directive(directive, seen, offline).goal and read.disagreement == ""
    state = seen.sample_initial_state(3)
    query = PolicyQuery(seen_world, "put one apple inside the fridge", seen.observe(state), (),
                        tuple(seen.legal_actions(state)))
    assert next_actions(lm, query, m=3).texts == next_actions(offline, query, m=3).texts
    assert object_positions(lm, seen_world, "mug", m=3).samples == object_positions(offline, seen_world, "mug", m=3).samples
    stats = s.stats()
    assert stats["bad_requests"] == 1  # the probe asked for structured output: refused, so the questions ask for text
    assert stats["answered"] == {"random": 2, "translate": 1, "policy": 1, "world_model": 1}  # probe: n, logprobs


def test_structured_output_modes(server, embedder, dataset, tmp_path, seen_world):
    s = server(style="chatty")
    lm = _client(s, embedder, dataset, tmp_path)
    assert object_positions(lm, seen_world, "milk", m=2).samples[0][0] == ("inside", "fridge")
    assert s.stats()["structured"] == 2 and s.stats()["bad_requests"] == 0  # the probe's request and the question
    refusing = server(style="chatty", structured_output=False)
    strict = _client(refusing, embedder, dataset, tmp_path, openai__structured_output="json_schema")
    with pytest.raises(LLMError, match="refused structured output .*openai.structured_output"):
        object_positions(strict, seen_world, "milk", m=2)
    plain = _client(refusing, embedder, dataset, tmp_path, openai__structured_output="off")
    assert object_positions(plain, seen_world, "milk", m=2).samples
    assert refusing.stats()["bad_requests"] == 1  # only the probe's request (the strict client asks nothing)


def test_an_episode_under_20_percent_faults_finishes_or_fails_with_a_message(server, embedder, dataset, tmp_path, seen):
    """LLM-MCTS against a server failing 20 % of the requests (429, 500, timeouts, garbage, refusals):
    the episode ends, with success or a message, within its bounds; the server kept serving."""
    import time as _time

    from llm_planner.domains.household.world.episode import SymbolicWorld, Task
    from llm_planner.adapters.household import HouseholdDomain
    from llm_planner.execution import run_episode
    from llm_planner.planners.base import create
    from llm_planner.domains.household.world.symbolic import GoalItem

    s = server(style="mixed", fault_rate=0.2, hang_s=3.0, retry_after_s=0.1, seed=7)
    lm = _client(s, embedder, dataset, tmp_path, openai__timeout_s=1.0, openai__max_retries=4,
                 openai__question_timeout_s=20.0)
    planner = create("llm_mcts", backend=lm, config={"simulations": 20}, seed=1)
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    world = SymbolicWorld(seen, seen.sample_initial_state(5))
    started = _time.monotonic()
    result = run_episode(HouseholdDomain, planner, Task("put one apple inside the fridge", goal, seen, 30), world)
    assert result.success or result.message
    assert _time.monotonic() - started < 600
    stats = s.stats()
    assert sum(stats["faults"].values()) > 0 and sum(stats["answered"].values()) > 0
    assert _post(s.base_url, _ask("still there?"), timeout=30)[0] in (200, 429, 500)


def test_levy_karpas_prompt_is_answered_with_goal_or_template(served, offline, seen):
    from llm_planner.methods.levy_karpas.config import load_config
    from llm_planner.methods.levy_karpas.openai_channels import OpenAIChannels
    from llm_planner.methods.levy_karpas.template import parse_template

    from types import SimpleNamespace

    channels = OpenAIChannels(seen, offline, [], load_config()["openai"], asker=SimpleNamespace(ask=None))
    kind, samples = served.answer(channels.prompt("put two apples in the fridge", None), 2)
    assert kind == "nl2pddl" and samples[0].data == {"goal": "(INSIDE, apple, fridge, 2)", "template": "none"}
    steps = "go to the kitchen, walk to the fridge and open it, then grab the milk and put it on the kitchen table"
    _kind, samples = served.answer(channels.prompt(steps, None), 1)
    assert parse_template(samples[0].data["template"]) == parse_template(
        "walk(kitchen), walk(fridge), open(fridge), grab(milk), puton(milk, kitchen_table)")
    _kind, samples = served.answer(channels.prompt("go to the bedroom through the bathroom and bring the towel to "
                                                   "the wardrobe", None), 1)
    assert samples[0].data == {"goal": "(INSIDE, towel, wardrobe, 1)", "template": "partial: walk(bathroom), walk(bedroom)"}


def test_a_client_config_file_points_every_process_at_the_server(server, tmp_path, monkeypatch, seen, embedder, dataset):
    """What a launched node graph does: ``$LLM_PLANNER_LLM_CONFIG`` names the file the server wrote."""
    from llm_planner.llm.config import CONFIG_ENV, load_llm_config
    from llm_planner.llm.factory import make_backend
    from llm_planner.translation.translate import translate_directive

    s = server(style="markdown")
    monkeypatch.setenv(CONFIG_ENV, s.write_client_config(tmp_path / "llm.yaml"))
    config = load_llm_config().with_overrides({"cache": {"enabled": False}, "translate": {"ask_model": "always"}})
    assert config.backend == "openai" and config.get("openai.base_url") == s.base_url
    lm = make_backend(config, embedder=embedder, dataset=dataset)
    assert translate_directive("put the milk in the fridge", seen, lm).to_json()["goal"] == [["inside", "milk", "fridge", 1]]
    assert s.stats()["answered"] == {"random": 3, "translate": 1}  # the first-contact probe (n, JSON, logprobs)
