"""STaLM, Algorithm 1: one query for N plans, Concretize, then warm-started UCT; a slow query runs
beside the search (the served stand-in with a latency)."""
from __future__ import annotations

import math
import time

import pytest

from llm_planner.domains.gtamp.config import with_search
from llm_planner.errors import ConfigError
from llm_planner.methods.stalm.llm_source import make_plan_source
from llm_planner.methods.stalm.search import Deadline
from llm_planner.methods.stalm.stalm import Context, StalmPolicy


def test_stalm_solves_p2_with_one_offline_query(p2, config):
    ctx = Context.build(p2, config, make_plan_source("offline", seed=0), seed=0)
    try:
        result = StalmPolicy(ctx).plan(p2.initial, 0, math.inf, ())
        assert result.solved and ctx.llm.requests == 1 and len(result.task_plans) == 5
        assert ctx.model.is_goal(result.steps[-1].after) and result.simulations == 0
        picks = [s.action.action.args[0] for s in result.steps if s.action.action.op == "pick"]
        assert picks[-1] == "salter" and {"bottle2", "bottle3"} <= set(picks)
    finally:
        ctx.model.world.close()


def test_bad_llm_answers_are_recorded_and_the_search_goes_on(p2, config, scripted):
    answers = [["plan = [('pick', 'salter'), ('fly', 'salter')]",            # unknown action after a valid step
                "Sure! import os; os.system('halt')",                         # code, not a plan
                "plan = [('place', 'salter', 'on', 'the moon')]"]]            # unknown region
    cfg = with_search(config, n_budget=3, rollout_depth=1)
    ctx = Context.build(p2, cfg, scripted(answers), seed=0)
    try:
        result = StalmPolicy(ctx).plan(p2.initial, 0, math.inf, ())
        assert not result.solved and result.simulations == 3
        assert any("unknown action 'fly'" in e for e in result.errors)
        assert any("unknown action 'halt'" in e for e in result.errors)
        assert any("unknown name 'the moon'" in e for e in result.errors)
        assert result.task_plans == [(("pick", ("salter",)),)]             # the valid prefix was kept
        assert len(result.steps) <= 1                                       # best root action, or none
    finally:
        ctx.model.world.close()


def test_a_decision_without_plans_is_the_uct_baselines_search(p2, config, scripted):
    """A model whose answer holds no plan leaves STaLM where UCT is (search.n_budget_without_plans):
    the same simulations on the same random stream, so the same decision for a seed."""
    from llm_planner.methods.stalm.baselines import UctPolicy

    contexts = [Context.build(p2, config, scripted([["To achieve the goal we need a plan."]]), seed=0),
                Context.build(p2, config, None, seed=0)]
    try:
        stalm = StalmPolicy(contexts[0]).plan(p2.initial, 0, math.inf, ())
        uct = UctPolicy(contexts[1], n_budget=config.search.n_budget_without_plans).plan(p2.initial, 0, math.inf, ())
        assert not stalm.task_plans and any("no plan found" in e for e in stalm.errors)
        assert stalm.simulations == uct.simulations == 35 > config.search.n_budget
        assert [(s.action.action, s.after) for s in stalm.steps] == [(s.action.action, s.after) for s in uct.steps]
    finally:
        for ctx in contexts:
            ctx.model.world.close()


def test_deadline_stops_planning(p2, config, scripted):
    ctx = Context.build(p2, with_search(config, n_budget=1000), scripted([["plan = []"]]), seed=0)
    try:
        result = StalmPolicy(ctx).plan(p2.initial, 0, 0.0, ())               # deadline already passed
        assert result.simulations == 0 and not result.solved
    finally:
        ctx.model.world.close()


# ------------------------------------------------------------------ a slow model, at the HTTP boundary
@pytest.fixture(scope="module")
def slow_server():
    """``llm-planner serve`` (in this process) answering after ``LATENCY_S`` seconds per request."""
    from llm_planner.llm.factory import make_backend
    from llm_planner_eval.stand_in.serve import ModelServer
    from llm_planner_eval.stand_in.serve_options import Latency, ServeOptions
    from llm_planner_eval.stand_in.served import ServedModel

    server = ModelServer(ServeOptions(latency=Latency.fixed(LATENCY_S), warm_up=False),
                         ServedModel(make_backend(backend="offline"))).start()
    yield server
    server.stop()


LATENCY_S = 2.0


def _served_source(server):
    from llm_planner.llm.factory import make_backend
    from llm_planner.methods.stalm.llm_source import PlanSource

    return PlanSource(make_backend(backend="openai", openai__base_url=server.base_url, openai__model="served",
                                   cache__enabled=False, openai__probe__enabled=False, openai__timeout_s=30.0))


def test_search_runs_beside_a_slow_question_and_uses_its_plans_when_they_arrive(p2, config, slow_server):
    cfg = with_search(config, n_budget=100_000, question_patience_s=0.1)
    ctx = Context.build(p2, cfg, _served_source(slow_server), seed=0)
    try:
        started = time.monotonic()
        result = StalmPolicy(ctx).plan(p2.initial, 0, Deadline.after(60.0), ())
        took = time.monotonic() - started
        assert result.simulations > 0 and ctx.llm.requests == 1      # searched while the question ran
        assert result.solved and len(result.task_plans) == 5           # then the plans solved P2
        assert LATENCY_S <= took < 30.0 and ctx.llm.unanswered == 0
    finally:
        ctx.model.world.close()


def test_a_question_past_its_bound_is_given_up_and_asked_again(p2, config, slow_server):
    cfg = with_search(config, n_budget=0, question_patience_s=0.1, question_share=0.25)
    ctx = Context.build(p2, cfg, _served_source(slow_server), seed=0)
    policy = StalmPolicy(ctx)                                         # STaLM without UCT: nothing to act on
    try:
        result = policy.plan(p2.initial, 0, Deadline.after(2.0), ())    # bound: 0.25 x 2 s
        assert ctx.llm.seconds == 0.0                                  # returned before the answer came
        assert not result.steps and not result.solved and ctx.llm.unanswered == 1
        assert any("got no answer within" in e and "question_share" in e for e in result.errors)
        result = policy.plan(p2.initial, 0, Deadline.after(30.0), ())   # a new question, answered in time
        assert result.solved and ctx.llm.unanswered == 1 and ctx.llm.requests == 2
    finally:
        ctx.model.world.close()


def test_question_bounds_are_checked(config):
    with pytest.raises(ConfigError, match="question_share"):
        with_search(config, question_share=0.0)
    with pytest.raises(ConfigError, match="question_patience_s"):
        with_search(config, question_patience_s=-1.0)
    with pytest.raises(ConfigError, match="n_budget_without_plans"):
        with_search(config, n_budget_without_plans=-1)


def test_a_cancel_ends_the_wait_for_a_slow_question(p2, config, slow_server):
    """STaLM without UCT waits for its plans; the closed loop's stop request (a cancel), folded into
    the decision's deadline, ends that wait within about a tenth of a second, not after the answer."""
    cfg = with_search(config, n_budget=0, question_patience_s=0.1)
    ctx = Context.build(p2, cfg, _served_source(slow_server), seed=0)
    asked: list[float] = []

    def stop() -> bool:  # first asked once the question is sent; True from 0.3 s after that
        asked.append(time.monotonic())
        return asked[-1] - asked[0] > 0.3

    try:
        result = StalmPolicy(ctx).plan(p2.initial, 0, Deadline.after(60.0, stop=stop), ())
        took = time.monotonic() - asked[0]
        assert not result.solved and not result.steps and ctx.llm.seconds == 0.0   # returned before the answer
        assert took < LATENCY_S * 0.75, took
    finally:
        ctx.model.world.close()


def test_a_server_that_ignores_n_is_asked_for_the_plans_that_fit_in_a_question(p2, config):
    """Where each plan is a request of its own (the server ignores n), a question asks for one plan
    before any is measured, then for as many as fit in its bound at the measured seconds per plan
    and prompt character; each plan for no more tokens than a plan needs. A server that honours n
    gets the seed's N_batch whatever it measured. (Latencies are set on the measurement itself.)"""
    from llm_planner.llm.factory import make_backend
    from llm_planner.methods.stalm.llm_source import PlanSource
    from llm_planner.methods.stalm.prompt import PromptOptions, create_prompt
    from llm_planner_eval.stand_in.serve import ModelServer
    from llm_planner_eval.stand_in.serve_options import ServeOptions
    from llm_planner_eval.stand_in.served import ServedModel

    model = ServedModel(make_backend(backend="offline"))
    servers = [ModelServer(ServeOptions(ignore_n=ignore, warm_up=False), model).start() for ignore in (True, False)]
    bodies: list[dict] = []
    complete = servers[0].complete
    servers[0].complete = lambda body: bodies.append(body) or complete(body)  # type: ignore[method-assign]
    ctx = Context.build(p2, config, None, seed=0)
    try:
        literals = ctx.predicates.literals(p2.initial)
        prompt = create_prompt(p2, literals, PromptOptions())
        need = ctx.plan_tokens(literals, PromptOptions())
        assert need == 160 + 24 * 8 < 512  # P2: four objects to pick and place once, no door
        ignoring, honouring = (PlanSource(make_backend(backend="openai", openai__base_url=s.base_url,
                                                       openai__model="served", cache__enabled=False,
                                                       openai__timeout_s=30.0)) for s in servers)
        assert ignoring.batch(prompt, 5, 60.0) == 1 and honouring.batch(prompt, 5, 60.0) == 5
        texts = ignoring.task_plans(prompt, 5, 60.0, max_tokens=need)
        assert len(texts) == 1 and ignoring.questions[-1].plans == 1
        assert {b.get("max_tokens") for b in bodies if "(:goal" in str(b)} == {need}
        times = ignoring.backend.answer_times("task_plans")
        ticket = times.send(samples=1, prompt_chars=len(prompt))
        ticket.sent -= 25.0  # a plan that took 25 s
        times.land(ticket)
        assert ignoring.batch(prompt, 5, 60.0) == 2  # 60 s at 25 s a plan
        assert ignoring.batch(prompt, 5, 20.0) == 1  # never fewer than one
        assert ignoring.batch(prompt[: len(prompt) // 4], 5, 60.0) == 5  # a prompt a quarter as long: all five
        honouring.backend.answer_times("task_plans").land(honouring.backend.answer_times("task_plans").send())
        assert honouring.batch(prompt, 5, 60.0) == 5
    finally:
        ctx.model.world.close()
        for s in servers:
            s.stop()
