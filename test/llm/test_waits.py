"""What a wait buys (llm/waits.py): a kind's recent questions at a server judged against a wait's
bound. Latencies are set on the tickets themselves (a ticket sent N seconds ago), so nothing here
sleeps; the backend's own tickets are checked against the fake OpenAI server of conftest.py."""
from __future__ import annotations

import pytest

from llm_planner.domains.household.language.questions import next_actions
from llm_planner.errors import ConfigError
from llm_planner.llm.waits import AnswerTimes, WaitSettings, answer_times


def landed(times: AnswerTimes, seconds: float, samples: int = 1, prompt_chars: int = 0, failed: bool = False) -> None:
    """A question of ``seconds`` that has just ended."""
    ticket = times.send(samples, prompt_chars)
    ticket.sent -= seconds
    times.land(ticket, failed=failed)


def test_nothing_measured_or_one_slow_answer_keeps_the_wait():
    times = AnswerTimes(WaitSettings(), "server", "policy")
    assert times.worth_waiting(5.0, 10.0) == "" and times.latency() is None and times.in_time_share(5.0) is None
    landed(times, 9.0)  # a server warming up
    assert times.worth_waiting(5.0, 10.0) == ""
    assert times.in_time_share(5.0) == 0.0 and times.latency(5.0) == pytest.approx(9.0, abs=0.05)


def test_answers_that_come_late_stop_the_wait_and_answers_in_time_bring_it_back():
    times = AnswerTimes(WaitSettings(window=4, in_time_share=0.5, min_late=2), "server", "policy")
    landed(times, 9.0)
    landed(times, 7.0)
    why = times.worth_waiting(5.0, 10.0)
    assert why.startswith("0 of the last 2 policy answers came within a wait of 5.0 s"), why
    landed(times, 0.5)
    assert times.worth_waiting(5.0, 10.0) != ""  # 1 of 3 in time
    landed(times, 0.6)
    assert times.worth_waiting(5.0, 10.0) == "" and times.in_time_share(5.0) == 0.5  # 2 of the last 4
    assert times.worth_waiting(0.4, 10.0) != ""  # a shorter wait does not pay with these answers


def test_a_question_still_running_past_the_wait_is_late_without_its_answer():
    times = AnswerTimes(WaitSettings(), "server", "policy")
    for _ in range(2):
        times.send().sent -= 6.0  # sent 6 s ago, no answer yet
    running = times.send()  # sent now: it may still come in time, so it is not judged
    assert times.worth_waiting(5.0, 10.0) != "" and times.in_time_share(5.0) == 0.0
    assert times.latency(5.0) == pytest.approx(6.0, abs=0.05)
    times.land(running)
    assert times.in_time_share(5.0) == pytest.approx(1 / 3)


def test_failed_questions_are_answers_that_never_came_and_the_budget_bounds_the_median():
    times = AnswerTimes(WaitSettings(window=4, in_time_share=0.25, min_late=1), "server", "policy")
    landed(times, 0.1, failed=True)
    assert times.in_time_share(5.0) == 0.0 and times.failed == 1 and times.answered == 0
    for _ in range(3):
        landed(times, 4.0)
    assert times.worth_waiting(5.0, 10.0) == ""  # 3 of 4 within the wait
    assert "beyond the budget of 3.0 s" in times.worth_waiting(5.0, 3.0)


def test_seconds_per_sample_and_prompt_character_take_the_slowest_recent_question():
    times = AnswerTimes(WaitSettings(window=2), "server", "task_plans")
    assert times.seconds_per_sample_char() is None
    landed(times, 30.0, samples=1, prompt_chars=3000)  # 0.01 s per sample and character
    landed(times, 40.0, samples=2, prompt_chars=1000)  # 0.02
    landed(times, 10.0, samples=5, prompt_chars=1000)  # 0.002
    assert times.seconds_per_sample_char() == pytest.approx(0.02, rel=0.01)  # the last 2: the slower one


def test_settings_are_checked_and_one_record_per_server_and_kind():
    with pytest.raises(ConfigError, match="waits.min_late"):
        WaitSettings.from_config({"window": 2, "min_late": 3})
    with pytest.raises(ConfigError, match="waits.in_time_share"):
        WaitSettings.from_config({"in_time_share": 0})
    a = answer_times("model at http://x", "policy", WaitSettings())
    assert answer_times("model at http://x", "policy", WaitSettings(window=9)) is a
    assert answer_times("model at http://x", "world_model", WaitSettings()) is not a


def test_the_backend_times_questions_at_the_server_and_not_answers_from_the_cache(openai_backend, fake_openai,
                                                                                     seen, seen_world):
    from llm_planner.domains.household.language.policy_query import PolicyQuery

    state = seen.sample_initial_state(0)
    query = PolicyQuery(seen_world, "put one apple inside the fridge", seen.observe(state), (),
                        tuple(seen.legal_actions(state)))
    fake_openai.answer = f"{query.admissible[0]}"
    lm = openai_backend()
    times = lm.answer_times("policy")
    before = times.answered
    next_actions(lm, query, m=1)
    assert times.answered == before + 1 and times.latency() is not None
    again = openai_backend()  # the same question again: from the disk cache
    next_actions(again, query, m=1)
    assert again.usage.cache_hits == 1
    assert times.answered == before + 1, "an answer from the cache says nothing of the server"
