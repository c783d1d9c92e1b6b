"""A client that knows its server (llm/server_profile.py, llm/in_flight.py, the openai backend): the
first-contact probe and what the backend does about it, over real HTTP against ``llm-planner serve``
doing what real servers do (``transformers serve`` ignores n and response_format, decodes greedily
without do_sample, answers one request at a time)."""
from __future__ import annotations

import logging
import threading
import time

import pytest

from llm_planner.domains.household.language.questions import next_actions, object_positions
from llm_planner.errors import ConfigError, LLMError
from llm_planner.llm.factory import make_backend
from llm_planner.llm.in_flight import AdaptiveLimiter, LimiterSettings
from llm_planner_eval.stand_in.serve_options import Latency


def _client(server, embedder, dataset, **overrides):
    settings = {"openai__base_url": server.base_url, "openai__model": "served", "cache__enabled": False,
                "embeddings__warm_actions": False, "openai__timeout_s": 10.0, "openai__max_retries": 1,
                "openai__backoff_initial_s": 0.05, "openai__backoff_max_s": 0.1}
    settings.update(overrides)
    return make_backend(backend="openai", embedder=embedder, dataset=dataset, **settings)


def _asked(server, kind_word: str) -> list[dict]:
    """The request bodies of one question kind (recognised by a word of its prompt)."""
    return [b for b in server.bodies if kind_word in b["messages"][-1]["content"]]


# ------------------------------------------------------------------------------ what the probe finds
def test_a_server_that_honours_everything_is_asked_as_before(server, embedder, dataset, seen_world):
    s = server()
    lm = _client(s, embedder, dataset)
    profile = lm.server_profile()
    assert profile.probed and (profile.n, profile.sampling, profile.structured_output) == ("honoured", "sampling",
                                                                                             "honoured")
    assert profile.requests == 3 and lm.usage.requests == 0  # n, JSON, logprobs; not in the usage
    answer = object_positions(lm, seen_world, "apple", m=5)
    asked = _asked(s, "possible positions")
    assert len(asked) == 1 and asked[0]["n"] == 5 and "response_format" in asked[0] and asked[0]["max_tokens"] == 96
    assert len(answer.samples) == 5 and answer.info.requests == 1


def test_ignored_n_samples_are_asked_at_once(server, embedder, dataset, seen_world):
    s = server(ignore_n=True, latency=Latency.fixed(0.4))
    lm = _client(s, embedder, dataset, openai__in_flight__initial=5)
    assert lm.server_profile().n == "ignored" and lm.describe()["samples"] == "one request each, at once"
    started = time.monotonic()
    answer = object_positions(lm, seen_world, "apple", m=5)
    took = time.monotonic() - started
    asked = _asked(s, "possible positions")
    assert len(answer.samples) == 5 and answer.info.requests == 5 and len(asked) == 5
    assert sorted(b["seed"] for b in asked) == [0, 1, 2, 3, 4] and all(b.get("n", 1) == 1 for b in asked)
    assert took < 3 * 0.4  # at once: one after another would take 5 x 0.4 s
    assert s.stats()["max_in_flight"] >= 3


def test_a_greedy_server_is_asked_one_sample_and_it_is_said(server, embedder, dataset, seen, seen_world, caplog):
    from llm_planner.domains.household.language.policy_query import PolicyQuery

    s = server(greedy=True, ignore_n=True)
    lm = _client(s, embedder, dataset)
    with caplog.at_level(logging.WARNING, logger="llm_planner.llm.openai"):
        profile = lm.server_profile()
    assert profile.greedy and len(set(profile.answers)) == 1
    said = [r.getMessage() for r in caplog.records if "greedy decoding" in r.getMessage()]
    assert len(said) == 1 and s.base_url in said[0]  # once, naming the server
    assert "greedy decoding" in lm.describe()["server"] and lm.describe()["samples"] == "one per question (greedy server)"
    answer = object_positions(lm, seen_world, "apple", m=5)
    assert len(answer.samples) == 1 and len(_asked(s, "possible positions")) == 1  # M identical answers are one
    state = seen.sample_initial_state(3)
    query = PolicyQuery(seen_world, "put one apple inside the fridge", seen.observe(state), (),
                        tuple(seen.legal_actions(state)))
    assert len(next_actions(lm, query, m=5).texts) == 1 and len(_asked(s, "Next action:")) == 1
    again = _client(s, embedder, dataset)  # another backend of the process: the profile is known, not said again
    assert again.server_profile().greedy and len(_asked(s, "random whole number")) == 5


@pytest.mark.parametrize("refuse", [False, True])
def test_structured_output_ignored_or_refused_is_asked_in_plain_text(server, embedder, dataset, seen_world, refuse):
    s = server(style="chatty", **({"structured_output": False} if refuse else {"ignore_structured_output": True}))
    lm = _client(s, embedder, dataset)
    assert lm.server_profile().structured_output == ("refused" if refuse else "ignored")
    answer = object_positions(lm, seen_world, "milk", m=2)
    assert answer.samples[0][0] == ("inside", "fridge")  # read from the chatty text
    assert not any("response_format" in b for b in _asked(s, "possible positions"))
    assert s.stats()["bad_requests"] == (1 if refuse else 0)  # the probe's request only


def test_an_unreachable_server_is_not_probed_and_the_question_fails_clearly(embedder, dataset, closed_port, seen_world):
    lm = make_backend(backend="openai", embedder=embedder, dataset=dataset, cache__enabled=False,
                      openai__base_url=f"http://127.0.0.1:{closed_port}/v1", openai__max_retries=0,
                      embeddings__warm_actions=False)
    profile = lm.server_profile()
    assert not profile.probed and "cannot connect" in profile.error and "not probed" in profile.summary()
    with pytest.raises(LLMError, match="cannot connect"):
        object_positions(lm, seen_world, "apple", m=2)


# ------------------------------------------------------------------------------ requests in flight
def _eight_questions_at_once(lm, world) -> tuple[list[str], float]:
    """8 world-model questions from 8 threads (LLM-MCTS builds its prior this way); their errors."""
    types = ["apple", "mug", "towel", "milk", "book", "plate", "cereal", "remote_control"]
    errors: list[str] = []

    def ask(t: str) -> None:
        try:
            object_positions(lm, world, t, m=1)
        except LLMError as exc:
            errors.append(str(exc))

    started = time.monotonic()
    threads = [threading.Thread(target=ask, args=(t,)) for t in types]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    return errors, time.monotonic() - started


def test_a_slow_one_at_a_time_server_gets_what_it_sustains(server, embedder, dataset, seen_world):
    """One request at a time; 2.5 s per request allowed. A fixed 8 in flight queues the last requests
    at the server past their timeout; at 0.5 s per request the adaptive limit
    keeps 2 or 3 there and the rest wait in the client, off their question's clock."""
    slow = {"max_concurrency": 1, "latency": Latency.fixed(0.5)}
    timeouts = {"openai__timeout_s": 2.5, "openai__question_timeout_s": 5.0, "openai__max_retries": 1}
    # The fixed limit's failure is shown at 1.5 s per request: under CI load the 8 threads' work before
    # sending (prompt, embeddings) can space their requests out by about the 0.5 s the server needs,
    # and then nothing queues; at 1.5 s the last request waits past 2.5 s unless they arrive more
    # than 1.3 s apart, and the first answer (which gives the speed) comes 1 s before any timeout.
    s = server(max_concurrency=1, latency=Latency.fixed(1.5))
    fixed = _client(s, embedder, dataset, openai__in_flight__adaptive=False, openai__max_in_flight=8,
                    **{**timeouts, "openai__max_retries": 0})
    fixed.server_profile()
    errors, _took = _eight_questions_at_once(fixed, seen_world)
    assert errors, "8 requests at once at a one-at-a-time server of 1.5 s should time out past 2.5 s"
    message = errors[-1]
    assert s.base_url in message and "s/request" in message and "tokens/s" in message  # the server and its speed
    assert "openai.timeout_s" in message and "openai.question_timeout_s" in message and "max_in_flight" in message

    s = server(**slow)  # a fresh one: the first still works through the requests the client gave up on
    adaptive = _client(s, embedder, dataset, **timeouts)
    errors, took = _eight_questions_at_once(adaptive, seen_world)
    assert errors == [] and took < 8 * 0.5 + 5.0
    figures = adaptive.describe()["in_flight"]
    assert figures["peak"] <= 3 and figures["timeouts"] == 0 and figures["answered"] >= 8


def _serve(limiter: AdaptiveLimiter, latency_of, rounds: int) -> None:
    """Requests answered with ``latency_of(in flight)`` seconds (simulated: the slot's send time is
    set back), the limit used in full each round."""
    for _ in range(rounds):
        slots = [limiter.acquire("policy", max_wait_s=1.0) for _ in range(int(limiter.limit))]
        for slot in slots:
            slot.sent -= latency_of(slot.in_flight)
            limiter.release(slot, "ok", 10)


def test_the_limit_follows_the_server():
    serial = AdaptiveLimiter(LimiterSettings(initial=2, ceiling=16), "serial")
    _serve(serial, lambda k: 1.0 * k, 30)  # one at a time: latency grows with the queue
    assert 1 <= serial.limit < 3  # two: one answered, one waiting
    batching = AdaptiveLimiter(LimiterSettings(initial=2, ceiling=16), "batching")
    _serve(batching, lambda k: 1.0 + 0.05 * k, 60)  # a batching server: a little slower per request
    assert batching.limit >= 5
    before = batching.limit
    slot = batching.acquire("policy")
    batching.release(slot, "timeout")
    assert batching.limit == before / 2 and batching.timeouts == 1  # halved
    fixed = AdaptiveLimiter(LimiterSettings(initial=2, ceiling=8, adaptive=False), "fixed")
    _serve(fixed, lambda k: 1.0 * k, 5)
    assert fixed.limit == 8


def test_answer_budgets_are_checked(openai_backend):
    with pytest.raises(ConfigError, match="policy.stop"):
        openai_backend(policy__stop="\n")
    with pytest.raises(ConfigError, match="openai.in_flight"):
        openai_backend(openai__in_flight__queue_low=3.0)
