"""The openai backend against a local OpenAI-compatible HTTP server (real sockets, the real
``openai`` client): scripted answers, delays and each fault the backend must survive."""
from __future__ import annotations

import sqlite3
import time

import pytest

from llm_planner.domains.household.language.questions import candidate_actions, next_actions, object_positions, translate
from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.errors import GoalError, LLMError
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.llm.answers import first_action
from llm_planner.methods.llm_mcts.policy import HeuristicPolicy
from llm_planner.translation.translate import translate_directive
from llm_planner.domains.household.world.symbolic import Action


def _query(household, world, instruction="put one apple inside the fridge"):
    state = household.sample_initial_state(3)
    return PolicyQuery(world, instruction, household.observe(state), (), tuple(household.legal_actions(state)))


# ------------------------------------------------------------------------------ sampling
def test_m_samples_in_one_request_with_usage(openai_backend, fake_openai, seen, seen_world):
    fake_openai.answer = "walk to the kitchen, walk to the fridge, open the fridge, done."
    lm = openai_backend()
    answer = next_actions(lm, _query(seen, seen_world), m=5)
    assert len(fake_openai.requests) == 1 and fake_openai.requests[0]["json"]["n"] == 5
    assert answer.texts == ("walk to the kitchen",) * 5
    assert answer.info.backend == "openai" and answer.info.requests == 1 and not answer.info.cached
    assert (lm.usage.requests, lm.usage.prompt_tokens, lm.usage.completion_tokens) == (1, 11, 7)
    assert lm.usage.seconds > 0 and lm.usage.questions == 1


def test_server_refusing_n_falls_back_to_one_request_per_sample(openai_backend, fake_openai, http, seen, seen_world):
    def refuse_n(req):
        if (req.get("n") or 1) > 1:
            return http.Reply(400, http.error("'n' must be 1 for this model"))
        return http.Reply(body=http.completion(["walk to the kitchen"]))

    fake_openai.default = refuse_n
    lm = openai_backend()
    answer = next_actions(lm, _query(seen, seen_world), m=3)
    assert len(answer.texts) == 3
    assert [r["json"].get("n", 1) for r in fake_openai.requests] == [3, 1, 1, 1]
    next_actions(lm, _query(seen, seen_world, "put one plate inside the dishwasher"), m=2)
    assert [r["json"].get("n", 1) for r in fake_openai.requests[4:]] == [1, 1]  # remembered


def test_server_ignoring_n_is_topped_up(openai_backend, fake_openai, http, seen, seen_world):
    fake_openai.default = lambda req: http.Reply(body=http.completion(["walk to the bathroom"]))
    lm = openai_backend()
    answer = next_actions(lm, _query(seen, seen_world), m=4)
    assert len(answer.texts) == 4 and len(fake_openai.requests) == 4


# --------------------------------------------------------------------------------- faults
def test_unreachable_endpoint_is_a_bounded_clear_error(openai_backend, closed_port, seen, seen_world):
    lm = openai_backend(openai__base_url=f"http://127.0.0.1:{closed_port}/v1", openai__max_retries=2)
    started = time.perf_counter()
    with pytest.raises(LLMError, match=r"failed after 3 attempt\(s\): cannot connect to http://127\.0\.0\.1:\d+/v1 \(.*refused"):
        next_actions(lm, _query(seen, seen_world))
    assert time.perf_counter() - started < 5
    assert lm.usage.requests == 3 and lm.usage.retries == 2 and lm.usage.failures == 1


def test_slow_server_times_out_and_never_hangs(openai_backend, fake_openai, http, seen_world):
    fake_openai.default = lambda req: http.Reply(body=http.completion(["Inside fridge"]), delay=1.5)
    lm = openai_backend(openai__timeout_s=0.3, openai__max_retries=1)
    started = time.perf_counter()
    with pytest.raises(LLMError, match=r"2 attempt\(s\): no answer within the timeout of 0.3 s"):
        object_positions(lm, seen_world, "apple")
    assert time.perf_counter() - started < 3.0  # 2 x 0.3 s plus backoff, far below the server's delay
    assert len(fake_openai.requests) == 2


def test_one_question_never_outlasts_its_deadline(openai_backend, fake_openai, http, seen, seen_world):
    fake_openai.default = lambda req: http.Reply(body=http.completion(["walk to the kitchen"]), delay=0.5)
    lm = openai_backend(openai__timeout_s=0.3, openai__max_retries=50, openai__question_timeout_s=1.0,
                        openai__n_in_one_request=False)
    started = time.perf_counter()
    with pytest.raises(LLMError, match=r"no usable answer within 1 s \(openai.question_timeout_s\); last: no answer"):
        next_actions(lm, _query(seen, seen_world), m=5)
    assert time.perf_counter() - started < 1.6


def test_429_is_retried_with_exponential_backoff_and_retry_after_capped(openai_backend, fake_openai, http, seen_world):
    fake_openai.script = [http.Reply(429, http.error("slow down", "rate_limit_error"), {"retry-after": "30"}),
                          http.Reply(429, http.error("slow down", "rate_limit_error"))]
    fake_openai.answer = "Inside fridge, On kitchen table"
    lm = openai_backend(openai__max_retries=3, openai__backoff_initial_s=0.05, openai__backoff_max_s=0.2)
    slept: list[float] = []
    lm.sleep = slept.append  # record the backoff instead of sleeping (the bound is what is tested)
    answer = object_positions(lm, seen_world, "apple", m=2)
    assert len(fake_openai.requests) == 3 and lm.usage.retries == 2
    assert slept == [0.2, 0.1]  # Retry-After 30 s capped at backoff_max_s; then 0.05 * 2**1
    assert answer.samples[0] == (("inside", "fridge"), ("on", "kitchen_table"))
    assert [lm.backoff(k) for k in range(5)] == [0.05, 0.1, 0.2, 0.2, 0.2]


def test_500_exhausts_the_retry_bound(openai_backend, fake_openai, http, seen, seen_world):
    fake_openai.default = lambda req: http.Reply(500, http.error("boom", "server_error"))
    lm = openai_backend(openai__max_retries=2)
    with pytest.raises(LLMError, match=r"3 attempt\(s\): HTTP 500 boom"):
        next_actions(lm, _query(seen, seen_world))
    assert len(fake_openai.requests) == 3


def test_empty_choices_are_retried_then_an_error(openai_backend, fake_openai, http, seen_world):
    fake_openai.default = lambda req: http.Reply(body=http.completion([]))
    lm = openai_backend(openai__max_retries=1)
    with pytest.raises(LLMError, match="has no choices"):
        translate(lm, seen_world, "put one apple inside the fridge")
    assert len(fake_openai.requests) == 2


def test_text_that_parses_to_nothing(openai_backend, fake_openai, seen, seen_world):
    fake_openai.answer = "I am sorry, I cannot help with that."
    lm = openai_backend(openai__parse_retries=1)
    with pytest.raises(LLMError, match=r"declined: .I am sorry.*after 2 answer"):
        translate(lm, seen_world, "put one apple inside the fridge")
    assert len(fake_openai.requests) == 2
    fake_openai.answer = ""
    with pytest.raises(LLMError, match="gave no next action"):
        next_actions(lm, _query(seen, seen_world))


def test_names_that_ground_to_nothing(openai_backend, fake_openai, seen, seen_world):
    lm = openai_backend(openai__parse_retries=0, policy__inadmissible="drop")
    fake_openai.answer = "xyzzy plugh, frobnicate the quux"
    with pytest.raises(LLMError, match="gave no next action"):
        next_actions(lm, _query(seen, seen_world))
    fake_openai.answer = "walk to the spaceship"
    with pytest.raises(LLMError, match="name no admissible action: 'walk to the spaceship'"):
        next_actions(lm, _query(seen, seen_world))
    fake_openai.answer = "Inside the spaceship, On the moon"
    with pytest.raises(LLMError, match="named no container or surface"):
        object_positions(lm, seen_world, "apple")
    fake_openai.answer = "(INSIDE, spaceship, moon, 1)"
    with pytest.raises(GoalError, match="no object 'spaceship'; the closest known names are"):
        translate_directive("put the spaceship on the moon", seen, lm)


def test_unusable_answer_is_asked_again_and_not_cached(openai_backend, fake_openai, http, seen_world):
    fake_openai.script = [http.Reply(body=http.completion(["no idea"]))]
    fake_openai.answer = "(ON, plate, kitchentable, 1)"
    lm = openai_backend(openai__parse_retries=1)
    assert translate(lm, seen_world, "put the plate on the table").items == (("on", "plate", "kitchentable", 1),)
    assert len(fake_openai.requests) == 2 and lm.usage.retries == 1


def test_http_errors_that_are_not_retried(openai_backend, fake_openai, http, seen_world):
    fake_openai.default = lambda req: http.Reply(401, http.error("bad key", "invalid_api_key"))
    lm = openai_backend()
    with pytest.raises(LLMError, match="refused the API key .*TEST_LLM_KEY") as err:
        translate(lm, seen_world, "put one apple inside the fridge")
    assert "sk-test-secret-123" not in str(err.value)
    assert len(fake_openai.requests) == 1
    fake_openai.default = lambda req: http.Reply(404, http.error("model not found"))
    with pytest.raises(LLMError, match="no model 'test-model'"):
        translate(lm, seen_world, "put one plate on the kitchen table")


def test_malformed_json_is_a_clear_error(openai_backend, fake_openai, http, seen_world):
    fake_openai.default = lambda req: http.Reply(body=b"{not json")
    lm = openai_backend(openai__max_retries=0)
    with pytest.raises(LLMError, match="openai backend"):
        translate(lm, seen_world, "put one apple inside the fridge")


# ----------------------------------------------------------------------- key, cache, fallback
def test_api_key_only_from_the_environment_and_never_stored(openai_backend, fake_openai, seen_world, tmp_path):
    fake_openai.answer = "(INSIDE, apple, fridge, 2)"
    lm = openai_backend()
    translate(lm, seen_world, "put two apples in the fridge")
    assert fake_openai.requests[0]["headers"]["authorization"] == "Bearer sk-test-secret-123"
    assert "sk-test-secret-123" not in fake_openai.requests[0]["json"]["messages"][0]["content"]
    for path in (tmp_path / "cache").rglob("*"):
        if path.is_file():
            assert b"sk-test-secret-123" not in path.read_bytes()
    assert "sk-test" not in repr(lm.describe())


def test_missing_key_for_the_openai_service_names_the_variable(openai_backend, monkeypatch, seen_world):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    lm = openai_backend(openai__base_url="https://api.openai.com/v1", openai__api_key_env="OPENAI_API_KEY")
    with pytest.raises(LLMError, match="set the environment variable OPENAI_API_KEY"):
        translate(lm, seen_world, "put one apple inside the fridge")


def test_repeated_run_makes_no_new_request_and_gives_the_same_result(openai_backend, fake_openai, seen, seen_world,
                                                                        tmp_path):
    fake_openai.answer = "walk to the bedroom"
    query = _query(seen, seen_world)
    first = next_actions(openai_backend(), query)
    again = openai_backend()  # a new process would do the same: same cache directory
    second = next_actions(again, query)
    assert len(fake_openai.requests) == 1
    assert second.texts == first.texts and second.info.cached and again.usage.requests == 0
    assert again.usage.cache_hits == 1
    rows = sqlite3.connect(str(tmp_path / "cache" / "answers.sqlite")).execute("SELECT backend, model FROM answers").fetchall()
    assert rows == [("openai", "test-model")]
    other = openai_backend(policy__temperature=0.9)  # other sampling parameters: another key
    next_actions(other, query)
    assert len(fake_openai.requests) == 2


def test_fallback_to_offline_is_said_in_the_result(openai_backend, closed_port, seen, seen_world):
    lm = openai_backend(openai__base_url=f"http://127.0.0.1:{closed_port}/v1", openai__max_retries=0,
                        fallback_to_offline=True, translate__ask_model="always")  # asked though the reader reads it
    result = translate_directive("put two apples in the fridge", seen, lm)
    assert [tuple(x) for x in result.to_json()["goal"]] == [("inside", "apple", "fridge", 2)]
    assert result.info.backend == "offline" and "does not accept connections" in result.info.fallback
    assert lm.fallback_state == "stopped answering"  # gone, not failing
    assert "answered by the offline backend" in result.message
    assert lm.usage.fallbacks == 1 and lm.usage.failures == 1 and lm.usage.requests == 1


# ------------------------------------------------------------------------------ questions
def test_translate_grounds_the_models_names(openai_backend, fake_openai, seen):
    fake_openai.answer = "(INSIDE, apples, refrigerator, 2)-(ON, plate, kitchentable, 1)"
    result = translate_directive("could you put two apples in the refrigerator and the plate on the kitchen table",
                                 seen, openai_backend(translate__ask_model="always"))
    assert result.to_json()["goal"] == [["inside", "apple", "fridge", 2], ["on", "plate", "kitchen_table", 1]]
    assert result.disagreement == ""  # the model's goal, its names grounded, is the reader's
    prompt = fake_openai.requests[0]["json"]["messages"][0]["content"]
    assert "Formal goal:" in prompt and prompt.count("Goal: ") == 4  # 3 examples from D + the directive


def test_policy_prompt_has_k_shots_from_d_and_policy_grounds_samples(openai_backend, fake_openai, seen, seen_world):
    fake_openai.answer = "Next actions: walk to the kitchen, walk to the fridge, done."
    lm = openai_backend()
    query = _query(seen, seen_world)
    probs = HeuristicPolicy(lm, k=3)(query)
    prompt = fake_openai.requests[0]["json"]["messages"][0]["content"]
    assert prompt.count("Next action:") == 4 and prompt.rstrip().endswith("Next action:")
    assert "Write the next action only, on one line" in prompt  # the answer is alpha_i (§2.3), not a plan
    request = fake_openai.requests[0]["json"]
    assert request["max_tokens"] == 96 and "\nCompleted actions:" in request["stop"]  # its budget (config/llm.yaml)
    assert "Completed actions: none" in prompt and "Current observation: you are in the living room" in prompt
    best = query.admissible[int(probs.argmax())]
    assert best == Action("walk", ("kitchen",))
    assert abs(probs.sum() - 1) < 1e-9 and probs.min() >= 0.5 / len(query.admissible) - 1e-12


def test_task_plans_in_one_request(openai_backend, fake_openai, http):
    fake_openai.default = lambda req: http.Reply(body=http.completion(
        [f"## Plan ##\nplan = [('pick', 'salter')] # {i}" for i in range(req["n"])]))
    answer = openai_backend().answer("task_plans", "## Task Instruction ## ...", n=5)
    assert len(answer.plans) == 5 and len(fake_openai.requests) == 1
    assert fake_openai.requests[0]["json"]["temperature"] == 1.0


def test_candidate_actions_are_admissible_with_probabilities(openai_backend, fake_openai, http, seen, seen_world):
    answers = iter(["walk to the kitchen"] * 8 + ["walk to the bedroom"] * 4)
    fake_openai.default = lambda req: http.Reply(body=http.completion([next(answers) for _ in range(req["n"])]))
    query = _query(seen, seen_world)
    answer = candidate_actions(openai_backend(), query, m=3)
    actions = [a for a, _ in answer.actions]
    assert actions[0] == Action("walk", ("kitchen",)) and len(actions) == 3
    assert set(actions) <= set(query.admissible)
    assert abs(sum(p for _, p in answer.actions) - 1) < 1e-9


def test_first_action_of_free_text():
    assert first_action("Next actions: grab the apple, walk to the fridge, done.") == "grab the apple"
    assert first_action("1. open the fridge\n2. grab milk") == "open the fridge"
    assert first_action("   ") is None


def test_an_echoed_completed_actions_line_is_not_done():
    """The policy prompt's "Completed actions: ..." line written back is the prompt, not "done"."""
    echo = "Completed actions: walk to the coffee table, grab the remote control"
    assert first_action(echo) is None
    assert first_action(echo + "\nNext action: open the fridge") == "open the fridge"
    assert first_action("Completed.") == "done"


def test_every_request_passes_the_process_request_gate(openai_backend, fake_openai, seen, seen_world):
    """``bench --llm-max-in-flight`` installs a cluster-wide gate (llm/request_gate.py); the backend
    holds one of its slots around every HTTP request it sends."""
    from contextlib import contextmanager

    from llm_planner.llm.request_gate import set_request_gate

    class CountingGate:
        def __init__(self) -> None:
            self.held = 0
            self.open = 0

        @contextmanager
        def hold(self):
            self.held += 1
            self.open += 1
            try:
                yield
            finally:
                self.open -= 1

    gate = CountingGate()
    fake_openai.answer = "Inside fridge, On kitchen counter."
    lm = openai_backend()
    previous = set_request_gate(gate)
    try:
        object_positions(lm, seen_world, "apple", m=5)
    finally:
        set_request_gate(previous)
    assert gate.held == lm.usage.requests >= 1
    assert gate.open == 0


def test_an_answer_is_cut_at_its_stop_sequence_when_the_server_ignores_stop(openai_backend, fake_openai, seen_world):
    """transformers serve under continuous batching ignores a request's ``stop``: the model runs on
    into the prompt's next example, which the client cuts off itself."""
    from llm_planner.llm.openai_http import cut_at_stop

    assert cut_at_stop("Inside fridge.\\nQuestion: what about x?\\nAnswer: On sofa", ["\\nQuestion:"]) == "Inside fridge."
    assert cut_at_stop("On sofa", None) == "On sofa" and cut_at_stop("a\\nGoal: b", "\\nGoal:") == "a"
    fake_openai.answer = "Inside fridge.\\nQuestion: what are the possible positions of sofa?\\nAnswer: On sofa"
    answer = object_positions(openai_backend(), seen_world, "apple", m=1)
    assert answer.samples == ((("inside", "fridge"),),)


# ------------------------------------------------------------------- inadmissible answers
def test_an_action_naming_no_admissible_one_is_dropped_or_read_as_the_nearest(openai_backend, fake_openai, seen,
                                                                               seen_world):
    """policy.inadmissible: "grab the toothbrush" where no toothbrush is in view names no admissible
    action. drop leaves it out (no sample reads: UnusableAnswer); nearest reads it as its most similar
    admissible action when the cosine reaches the floor, and says which samples were mapped and how
    similar they were; a floor above every cosine drops it again."""
    query = _query(seen, seen_world)
    fake_openai.answer = "grab the toothbrush"
    drop = openai_backend(policy__inadmissible="drop", openai__parse_retries=0)
    with pytest.raises(LLMError, match="name no admissible action: 'grab the toothbrush'"):
        next_actions(drop, query, m=2)
    nearest = openai_backend(policy__inadmissible="nearest", policy__inadmissible_floor=0.0, openai__parse_retries=0)
    answer = next_actions(nearest, query, m=2)
    sims = grounder_of(nearest.resources).action_similarities(["grab the toothbrush"], list(query.admissible))[0]
    best = query.admissible[int(sims.argmax())]
    assert len(answer.texts) == 2 and len(answer.mapped) == 2 and answer.raw == ("grab the toothbrush",) * 2
    assert answer.mapped[0] == pytest.approx(float(sims.max()), abs=1e-5)
    assert grounder_of(nearest.resources).action_similarities([answer.texts[0]], [best])[0, 0] == pytest.approx(1, abs=1e-4)
    strict = openai_backend(policy__inadmissible="nearest", policy__inadmissible_floor=float(sims.max()) + 0.01,
                            openai__parse_retries=0)
    with pytest.raises(LLMError, match="name no admissible action"):
        next_actions(strict, query, m=2)
    # an admissible answer is read as before, and never counted as mapped
    fake_openai.answer = "walk to the kitchen"
    assert next_actions(nearest, _query(seen, seen_world, "put one plate on the sofa"), m=2).mapped == ()


def test_heuristic_policy_counts_samples_that_read(openai_backend, fake_openai, http, seen, seen_world):
    """The policy's measured reliability: read samples over samples, an unusable answer counting M unread."""
    query = _query(seen, seen_world)
    replies = iter([["walk to the kitchen", "xyzzy plugh"], ["xyzzy", "plugh"]])
    fake_openai.default = lambda req: http.Reply(body=http.completion(next(replies)))
    policy = HeuristicPolicy(openai_backend(policy__inadmissible="drop", openai__parse_retries=0), m=2)
    assert policy.stats.reliability() == 1.0  # nothing measured yet
    policy(query)
    assert (policy.stats.samples, policy.stats.read, policy.stats.mapped) == (2, 1, 0)
    with pytest.raises(LLMError):
        policy(PolicyQuery(query.world, "put one plate on the sofa", query.observation, (), query.admissible))
    assert (policy.stats.samples, policy.stats.read) == (4, 1) and policy.stats.reliability() == 0.25
    policy(query)  # from memory: no new answer, nothing counted
    assert policy.stats.samples == 4


def test_a_busy_server_is_not_answered_for_by_the_fallback_a_failing_or_gone_one_is(openai_backend, fake_openai,
                                                                                     closed_port, http, seen,
                                                                                     seen_world):
    """fallback_to_offline: a question that timed out at a server that accepts connections met a long
    queue (raised, not answered by the offline backend); an answer that does not read came from a
    server that answers (raised too); HTTP 500 after the retries is a failing server, and a port
    nothing listens on a gone one (both answered by the offline backend, saying which)."""
    from llm_planner.errors import UnusableAnswer
    from llm_planner.llm.in_flight import AnswerTimeout

    query = _query(seen, seen_world)
    lm = openai_backend(fallback_to_offline=True, openai__max_retries=0, openai__parse_retries=0)
    fake_openai.default = lambda req: http.Reply(body=http.completion(["walk to the kitchen"]), delay=3.0)
    with pytest.raises(AnswerTimeout, match="timeout of 1 s"):  # openai.timeout_s 1.0: the server takes 3 s
        next_actions(lm, query, m=1)
    fake_openai.default = lambda req: http.Reply(body=http.completion(["Sure! Here is a plan: think first."]))
    with pytest.raises(UnusableAnswer):
        next_actions(lm, query, m=1)
    assert lm.usage.fallbacks == 0 and lm.fallback_state == ""
    fake_openai.default = lambda req: http.Reply(500, http.error("boom", "server_error"))
    failing = next_actions(lm, query, m=1)
    assert failing.info.backend == "offline" and "HTTP 500" in failing.info.fallback and lm.fallback_state == "failed"
    gone = openai_backend(fallback_to_offline=True, openai__max_retries=0,
                          openai__base_url=f"http://127.0.0.1:{closed_port}/v1")
    answer = next_actions(gone, query, m=1)
    assert answer.info.backend == "offline" and "does not accept connections" in answer.info.fallback
    assert gone.fallback_state == "stopped answering" and lm.usage.fallbacks == 1
