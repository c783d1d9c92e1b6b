"""LLM-MCTS against a served model over real HTTP (``llm-planner serve`` in this process, the real
``openai`` client): questions in flight stay within ``max_in_flight``, the concurrent search gives
the same decisions however the answers are delayed, a failing server ends the episode with a
message instead of a hang, and equal situations make equal prompts (one request, then the cache)."""
from __future__ import annotations

import threading
import time

import pytest

from llm_planner.domains.household.language.questions import next_actions
from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import run_episode
from llm_planner_eval.stand_in.serve import ModelServer
from llm_planner_eval.stand_in.serve_options import Latency, ServeOptions
from llm_planner.planners.base import create
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.domains.household.world.tasks import generate_tasks

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def hh() -> Household:
    return Household(load_scene("apartment_seen"))


@pytest.fixture(scope="module")
def served_model():
    """The offline backend as llm-planner serve answers with it (loaded once for the module)."""
    from llm_planner.llm.factory import make_backend
    from llm_planner_eval.stand_in.served import ServedModel

    return ServedModel(make_backend(backend="offline", embeddings__warm_actions=False))


@pytest.fixture
def serve(served_model):
    servers = []

    def start(**options) -> ModelServer:
        server = ModelServer(ServeOptions(warm_up=False, structured_output=False, **options), served_model).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def openai_config(server: ModelServer, tmp_path, **openai) -> dict:
    """The openai backend pointed at ``server`` with a fresh answer cache and quick, bounded retries."""
    return {"openai": {"base_url": server.base_url, "model": "served", "api_key_env": "LLM_PLANNER_SERVE_KEY",
                       "max_retries": 1, "backoff_initial_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 10.0,
                       **openai},
            "cache": {"dir": str(tmp_path)}, "embeddings": {"warm_actions": False}}


def first_decisions(hh, planner, steps: int = 2):
    """The planner's first ``steps`` decisions on a comp task (the world follows them)."""
    task = generate_tasks(hh.scene, "comp", 1, 0)[0]
    world = SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed))
    planner.start(Task(task.instruction, task.goal, hh), world.observe())
    decisions = []
    for _ in range(steps):
        decision = planner.decide(world.observe())
        assert decision.action is not None, decision.message
        outcome = world.execute(decision.action)
        planner.record(decision.action, outcome.success, outcome.reason, world.observe())
        decisions.append((decision.action, planner.last_result.q_table()))
    return decisions


def test_questions_in_flight_stay_within_the_bound(hh, serve, tmp_path):
    server = serve(latency=Latency.fixed(0.05))
    planner = create("uniform_prior", backend="openai", llm_config=openai_config(server, tmp_path), seed=0,
                     max_in_flight=3, max_waves=0, decision_time_s=0)  # no budget: every question is waited for
    first_decisions(hh, planner)
    stats = server.stats()
    assert stats["by_kind"].get("policy", 0) >= 4
    assert 2 <= stats["max_in_flight"] <= 3  # measured at the server: concurrent, and never more than 3
    assert planner.episode_stats().search.peak_in_flight == stats["max_in_flight"]
    assert planner.episode_stats().search.waves >= 1


def test_decisions_do_not_depend_on_when_answers_arrive(hh, serve, tmp_path):
    """A deterministic served model with random latency: two concurrent runs decide alike, and one
    question at a time over HTTP decides as the sequential search does (no decision budget: with one,
    a decision depends on how fast the answers come, by design)."""
    runs = {}
    for name, latency, in_flight in (("a", "uniform:0,0.06", 4), ("b", "uniform:0,0.06", 4), ("seq", "0", 1)):
        server = serve(latency=Latency.parse(latency))
        planner = create("uniform_prior", backend="openai", llm_config=openai_config(server, tmp_path / name),
                         seed=0, max_in_flight=in_flight, max_waves=0, decision_time_s=0)
        runs[name] = first_decisions(hh, planner)
    assert runs["a"] == runs["b"]
    sequential = create("uniform_prior", backend="openai", seed=0, max_in_flight=1, max_waves=0, decision_time_s=0,
                        llm_config=openai_config(serve(), tmp_path / "seq2"))
    assert first_decisions(hh, sequential) == runs["seq"]


def test_a_failing_server_ends_the_episode_with_a_message(hh, serve, tmp_path):
    """Every request fails (HTTP 500): the search stops at its first wave with the error, no thread
    waits forever and the episode ends at once. A model that answers with nothing usable leaves pi
    uniform at its nodes (said in the decision); with a share of faults the episode still finishes."""
    server = serve(fault_rate=1.0, faults=("500",))
    planner = create("uniform_prior", backend="openai", llm_config=openai_config(server, tmp_path / "dead"),
                     seed=0, max_in_flight=4)
    task = generate_tasks(hh.scene, "simple", 1, 0)[0]
    started = time.monotonic()
    result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, hh),
                         SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed)))
    assert time.monotonic() - started < 60
    assert not result.success and "LLM error at step 1 during simulation" in result.message
    assert "HTTP 500" in result.message and not result.steps
    assert not [t for t in threading.enumerate() if t.name.startswith("llm-mcts-pi")]

    # a model that answers, but refuses every question: pi is uniform where it did, and the robot acts
    refusing = serve(fault_rate=1.0, faults=("refusal",))
    planner = create("uniform_prior", backend="openai", seed=0, max_in_flight=4,
                     llm_config=openai_config(refusing, tmp_path / "refusing"))
    planner.start(Task(task.instruction, task.goal, hh), hh.observe(hh.sample_initial_state(task.placement_seed)))
    decision = planner.decide(planner.observations[-1])
    assert decision.action is not None and "named no admissible action (pi uniform there)" in decision.message
    assert planner.episode_stats().unusable_answers >= 1

    flaky = serve(fault_rate=0.2, faults=("500", "429"), retry_after_s=0.01)
    planner = create("uniform_prior", backend="openai", seed=0, max_in_flight=4,
                     llm_config=openai_config(flaky, tmp_path / "flaky", max_retries=4))
    result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, hh, 12),
                         SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed)))
    assert result.success or "LLM error" in result.message
    assert flaky.stats()["faults"]


def test_equal_situations_make_equal_prompts(hh, serve, tmp_path):
    """The policy prompt is the situation (instruction, completed actions, current observation):
    asked again with other past observations and the admissible actions in another order, the
    answer comes from the disk cache, with no request."""
    from llm_planner.domains.household.language.policy_query import PolicyQuery
    from llm_planner.llm.factory import make_backend
    from llm_planner.domains.household.language.text import WorldInfo

    server = serve()
    backend = make_backend(openai_config(server, tmp_path), backend="openai")
    world = WorldInfo.from_household(hh)
    state = hh.sample_initial_state(3)
    observation = hh.observe(state)
    actions = tuple(hh.legal_actions(state))
    first = PolicyQuery(world, "put one apple inside the fridge", observation, (), actions)
    again = PolicyQuery(world, "put one apple inside the fridge", observation, (), tuple(reversed(actions)),
                        past_observations=(observation,))
    answer = next_actions(backend, first)
    requests = server.stats()["requests"]
    repeat = next_actions(backend, again)
    assert server.stats()["requests"] == requests and repeat.info.cached and repeat.texts == answer.texts
    other = PolicyQuery(world, "put one plate inside the fridge", observation, (), actions)
    next_actions(backend, other)
    assert server.stats()["requests"] == requests + 1  # another situation is another question


def test_a_dead_server_at_start_names_the_server_not_the_data_set(hh, serve, tmp_path):
    """The prior (asked at start) fails on a server that answers HTTP 500 to everything: the failure
    names the server and the setting to change; the remedy for missing data (`llm-planner dataset`,
    `build-prior`) is not offered, since nothing is wrong with the planner's data."""
    server = serve(fault_rate=1.0, faults=("500",))
    planner = create("llm_mcts", backend="openai", seed=0,
                     llm_config=openai_config(server, tmp_path / "dead", question_timeout_s=5.0))
    task = generate_tasks(hh.scene, "simple", 1, 0)[0]
    planner.start(Task(task.instruction, task.goal, hh), hh.observe(hh.sample_initial_state(task.placement_seed)))
    assert planner.failure.startswith("llm_mcts cannot start")
    assert server.base_url in planner.failure and "HTTP 500" in planner.failure
    assert "llm-planner dataset" not in planner.failure and "build-prior" not in planner.failure


def test_a_slow_model_costs_the_tree_nothing_and_its_reliability_is_measured(hh, serve, tmp_path):
    """A served model slower than the decision's budget: with anytime the nodes below the root get a
    provisional uniform pi and the tree grows past the root, while the rollout bound leaves one level;
    the model's answers all read (rate 0), so its measured reliability is 1 and pi is trusted fully."""
    server = serve(latency=Latency.fixed(0.4))
    depths = {}
    for anytime in (False, True):  # the root's question (0.4 s) is answered within the root's bound
        planner = create("uniform_prior", backend="openai", seed=0,
                         llm_config=openai_config(server, tmp_path / str(anytime)),
                         max_in_flight=2, max_waves=0, decision_time_s=0.8, anytime=anytime, root_wait_share=1.0)
        first_decisions(hh, planner, steps=1)
        stats = planner.episode_stats()
        depths[anytime] = stats.search.max_depth
        assert stats.search.out_of_time == 1 and stats.policy_reliability == 1.0
        assert stats.policy_samples.samples == stats.policy_samples.read > 0
        assert (stats.search.provisional > 0) == anytime
        assert "reliability (share of samples that read): policy 1.00" in planner.describe()
        planner.mcts.close()
    assert depths[False] == 1 and depths[True] > 1


def test_a_root_the_budget_cannot_wait_for_runs_on_a_provisional_pi(hh, serve, tmp_path):
    """A served model far slower than the decision's budget (6 s a question, 1 s a decision): the
    root's question is waited for half the budget, then the root gets the provisional uniform pi and
    the search grows a tree below it as UCT would; the decision returns within about its budget."""
    server = serve(latency=Latency.fixed(6.0))
    planner = create("uniform_prior", backend="openai", seed=0, llm_config=openai_config(server, tmp_path),
                     max_in_flight=2, max_waves=0, decision_time_s=1.0, anytime=True, root_wait_share=0.5)
    try:
        first_decisions(hh, planner, steps=1)
        stats = planner.episode_stats()
        assert stats.search.root_provisional == 1 and stats.search.out_of_time == 1
        assert stats.search.max_depth > 1 and stats.search.answered == 0
        assert stats.decision_seconds[0] < 1.0 + 3.0, stats.decision_seconds
        assert "the root too once its question is unanswered after 0.5 s" in planner.describe()
    finally:
        planner.mcts.close()


def test_a_model_with_smollm2s_errors_is_trusted_as_far_as_its_answers_read(hh, serve, tmp_path):
    """The stand-in answering every sample with SmolLM2's kinds of errors (prompt echoed, unreadable,
    not in view, ...): few samples read, the measured reliability says so, the episode's decisions go
    on (pi near uniform, never an error), and describe() gives the share."""
    server = serve(error_rate=1.0, error_profile="smollm2", error_seed=4)
    planner = create("uniform_prior", backend="openai", seed=0, llm_config=openai_config(server, tmp_path),
                     max_in_flight=2, max_waves=1)
    first_decisions(hh, planner, steps=2)
    stats = planner.episode_stats()
    samples, reliability = stats.policy_samples, stats.policy_reliability
    assert samples.samples > 0 and reliability is not None and reliability < 0.5
    assert samples.read == round(reliability * samples.samples)
    assert f"policy {reliability:.2f}" in planner.describe()


@pytest.mark.parametrize("decision_time_s", [0.0, 10.0])
def test_a_cancel_ends_a_decision_that_waits_for_a_slow_model(hh, serve, tmp_path, decision_time_s):
    """The closed loop's stop request (the executor's cancel) reaches a decision under way: with a
    served model at 5 s a question, without a decision budget and with the shipped one (10 s: the
    root's question is waited for up to 5 s), a cancel 0.5 s into the first decision ends the episode
    canceled within 2 s of the cancel, not after the answers. Asked and never true, it changes no
    decision."""
    from llm_planner.task_states import CANCELED

    server = serve(latency=Latency.fixed(5.0))
    planner = create("uniform_prior", backend="openai", seed=0, max_in_flight=2, max_waves=0,
                     decision_time_s=decision_time_s,
                     llm_config=openai_config(server, tmp_path, probe={"enabled": False}))
    task = generate_tasks(hh.scene, "simple", 1, 0)[0]
    asked: list[float] = []
    cancel_after_s = 0.5

    def stop() -> bool:  # first asked before the first decision; True from 0.5 s after that
        asked.append(time.monotonic())
        return asked[-1] - asked[0] > cancel_after_s

    try:
        result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, hh),
                             SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed)), should_stop=stop)
    finally:
        planner.mcts.close()
    after_cancel = time.monotonic() - asked[0] - cancel_after_s
    print(f"decision_time_s {decision_time_s:g}: the episode ended {after_cancel:.2f} s after the cancel")
    assert result.outcome == CANCELED and not result.steps, result.message
    assert "the decision under way was stopped" in result.message
    assert after_cancel < 2.0, after_cancel                  # a question takes 5 s
    assert planner.should_stop is None                       # the loop's request ends with its episode

    offline = [create("uniform_prior", backend="offline", seed=0, max_in_flight=3, max_waves=0) for _ in range(2)]
    offline[1].should_stop = lambda: False
    assert first_decisions(hh, offline[0]) == first_decisions(hh, offline[1])


def test_a_cancel_ends_the_build_of_the_prior_and_the_next_build_asks_only_the_rest(hh, serve, tmp_path):
    """On a fresh cache the first episode builds the App. C.2 prior from the model (30 object types
    here, 2 at a time, 2 s an answer: half a minute). A cancel 3 s in ends the episode canceled within
    2 s of the cancel, naming the prior; the types answered by then are in the answer cache, and the
    next build asks only the others."""
    from llm_planner.task_states import CANCELED

    server = serve(latency=Latency.fixed(2.0))
    config = openai_config(server, tmp_path, probe={"enabled": False})
    planner = create("llm_mcts", backend="openai", seed=0, max_in_flight=2, llm_config=config)
    task = generate_tasks(hh.scene, "simple", 1, 0)[0]
    asked: list[float] = []
    cancel_after_s = 3.0

    def stop() -> bool:
        asked.append(time.monotonic())
        return asked[-1] - asked[0] > cancel_after_s

    result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, hh),
                         SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed)), should_stop=stop)
    after_cancel = time.monotonic() - asked[0] - cancel_after_s
    print(f"the episode ended {after_cancel:.2f} s after the cancel: {result.message}")
    assert result.outcome == CANCELED and not result.steps, result.message
    assert "stopped while the prior was built from the model" in result.message
    assert "build-prior --scene apartment_seen --cache --backend openai" in result.message
    assert after_cancel < 2.0, after_cancel
    for thread in [t for t in threading.enumerate() if t.name.startswith("prior")]:
        thread.join(timeout=60)         # the questions in flight at the cancel land in the cache
        assert not thread.is_alive(), "a question of the canceled build did not end"
    sent = server.stats()["requests"]
    assert 2 <= sent < 10, sent         # 30 types would be 30 requests

    again = create("llm_mcts", backend="openai", seed=0, max_in_flight=8, llm_config=config)
    again._prepare(Task(task.instruction, task.goal, hh), hh.observe(hh.sample_initial_state(task.placement_seed)),
                   None)
    types = len(hh.scene.object_types)
    assert server.stats()["requests"] - sent == types - sent, "the next build asked again what was answered"


def _settle(planner, timeout_s: float = 60.0) -> None:
    """Wait (bounded) until no policy question of the planner is at the server any more."""
    times = planner.runtime.backend.answer_times("policy")
    deadline = time.monotonic() + timeout_s
    while times.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not times.running(), "the late questions did not end"


def test_a_root_whose_answers_come_too_late_is_not_waited_for_until_they_come_in_time_again(hh, serve, tmp_path):
    """Answers of 4 s against a root wait of 1.5 s (budget 3 s). The first decision waits and gets
    nothing; while its question still runs (late_questions 1) the next ones do not wait, and send
    nothing. One late answer is not enough to stop the waits (a server warming up): the next decision
    with room waits again, in vain; after that second late answer the root runs on the provisional pi
    at once and its question is sent to run as a late one. The server gets fast: once two of the last
    four answers came within the wait, the root's question is waited for again and comes in time."""
    from dataclasses import replace

    server = serve(latency=Latency.fixed(4.0))
    llm_config = openai_config(server, tmp_path, probe={"enabled": False})  # (a probe would take 4 s a request)
    planner = create("uniform_prior", backend="openai", seed=0, llm_config=llm_config, simulations=20,
                     max_in_flight=2, decision_time_s=3.0, root_wait_share=0.5, reuse_tree=False)
    task = generate_tasks(hh.scene, "comp", 1, 0)[0]
    world = SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed))
    planner.start(Task(task.instruction, task.goal, hh), world.observe())

    def step():
        decision = planner.decide(world.observe())
        assert decision.action is not None, decision.message
        outcome = world.execute(decision.action)
        planner.record(decision.action, outcome.success, outcome.reason, world.observe())
        s = planner.last_result.stats
        return (s.waits, s.waits_in_time, s.root_unwaited), s

    try:
        assert step()[0] == (1, 0, 0)  # waited 1.5 s in vain
        for _ in range(2):
            figures, s = step()
            assert figures == (0, 0, 1) and s.skipped_busy >= 1 and s.late_questions == 0
            assert "earlier question(s) still run at the server" in planner.mcts.scheduler.unwaited
        assert max(planner.stats.decision_seconds[1:]) < 1.5  # a 20-simulation search, no wait
        _settle(planner)  # the first answer lands, 4 s after it was asked: one late answer
        assert step()[0] == (1, 0, 0)  # waited again, in vain
        _settle(planner)  # two late answers
        figures, s = step()
        assert figures == (0, 0, 1) and s.late_questions == 1  # not waited for, but asked
        assert "0 of the last 2 policy answers came within a wait of 1.5 s" in planner.mcts.scheduler.unwaited

        server.options = replace(server.options, latency=Latency.fixed(0.0))
        _settle(planner)
        for _ in range(6):  # unwaited roots send fast questions; each lands before the next decision
            figures, s = step()
            _settle(planner)
            if figures[0]:
                break
        assert figures[0] >= 1 and figures[1:] == (figures[0], 0) and s.root_provisional == 0  # root and waves
    finally:
        planner.mcts.close()


def test_a_wave_ends_by_the_budget_and_its_questions_run_on(hh, serve, tmp_path):
    """A decision's waves end by decision_time_s: the server answers the first decision at once, then
    takes 5 s per answer; the next decision sends its questions (their measured time says they fit)
    and waits for them no longer than its budget of 1.5 s, their nodes searched on a provisional
    pi while the questions run on."""
    from dataclasses import replace

    server = serve(latency=Latency.fixed(0.0))
    planner = create("uniform_prior", backend="openai", seed=0, llm_config=openai_config(server, tmp_path),
                     simulations=40, max_in_flight=3, decision_time_s=1.5, root_wait_share=0.5)
    try:
        first_decisions(hh, planner, steps=1)
        server.options = replace(server.options, latency=Latency.fixed(5.0))
        first = planner.stats.decision_seconds[0]
        task = generate_tasks(hh.scene, "comp", 1, 0)[0]
        world = SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed))
        world.execute(planner.history[0])
        decision = planner.decide(world.observe())
        s = planner.last_result.stats
        assert decision.action is not None and s.waits >= 1 and s.out_of_time == 1
        assert s.waits_in_time < s.waits and s.provisional + s.root_provisional >= 1
        assert planner.stats.decision_seconds[1] < 1.5 + 1.5, (first, planner.stats.decision_seconds)
    finally:
        planner.mcts.close()


def test_an_unreliable_policy_is_asked_by_one_search_in_n(hh, serve, tmp_path):
    """A served model answering every sample with SmolLM2's errors: once 10 samples are measured and
    fewer than half read, one search in 3 asks the policy and the others send it nothing (no
    budget here: which searches ask depends on the answers only)."""
    server = serve(error_rate=1.0, error_profile="smollm2", error_seed=4)
    planner = create("uniform_prior", backend="openai", seed=0, llm_config=openai_config(server, tmp_path),
                     simulations=30, max_in_flight=2, decision_time_s=0, reliability_floor=0.5,
                     reliability_samples=10, unreliable_every=3)
    task = generate_tasks(hh.scene, "comp", 1, 0)[0]
    world = SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed))
    planner.start(Task(task.instruction, task.goal, hh), world.observe())
    asked = []
    try:
        for _ in range(9):
            before = server.stats()["by_kind"].get("policy", 0)
            decision = planner.decide(world.observe())
            assert decision.action is not None, decision.message
            outcome = world.execute(decision.action)
            planner.record(decision.action, outcome.success, outcome.reason, world.observe())
            asked.append(server.stats()["by_kind"].get("policy", 0) - before)
        stats = planner.episode_stats()
        assert stats.policy_samples.samples >= 10 and stats.policy_reliability < 0.5
        gated = [i for i, n in enumerate(asked) if n == 0]
        assert stats.search.gated == len(gated) >= 4 and stats.search.skipped_unreliable > 0, asked
        first_gated = gated[0]
        assert all(n > 0 for n in asked[:first_gated])  # asked until the floor applies
        after = asked[first_gated:]
        assert [n > 0 for n in after] == [(k + 1) % 3 == 0 for k in range(len(after))], asked
    finally:
        planner.mcts.close()
