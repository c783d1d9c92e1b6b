"""The seed's baselines: Hcount (App. D), SayCan, Iterative-Replanning, LLM-MCTS, UCT."""
from __future__ import annotations

import math

import pytest

from llm_planner.methods.stalm.baselines import (
    IterativeReplanningPolicy, LlmMctsPolicy, SayCanPolicy, UctPolicy, affordance, hcount,
)
from llm_planner.domains.gtamp.config import with_search
from llm_planner.domains.gtamp.domain import TaskAction
from llm_planner.methods.stalm.llm_source import make_plan_source
from llm_planner.methods.stalm.stalm import Context

act = TaskAction.of
GOOD = ("plan = [('pick', 'bottle3'), ('place', 'bottle3', 'on', 'counter1'), ('pick', 'bottle2'), "
        "('place', 'bottle2', 'on', 'counter1'), ('pick', 'salter'), ('place', 'salter', 'right_of', 'bottle1')]")
NAIVE = "plan = [('pick', 'salter'), ('place', 'salter', 'right_of', 'bottle1')]"


@pytest.fixture
def ctx_for(p2, config):
    made = []

    def build(source, cfg=config):
        ctx = Context.build(p2, cfg, source, seed=0)
        made.append(ctx)
        return ctx

    yield build
    for ctx in made:
        ctx.model.world.close()


def test_hcount_counts_occluders_and_goal_objects(ctx_for, p2):
    ctx = ctx_for(None)
    assert hcount(ctx, p2.initial, None) == 2.0                    # M = {bottle2, bottle3}, nothing in goal
    lits = ctx.predicates.literals(p2.initial)
    assert affordance(lits, act("pick", "salter")) == 0.0 and affordance(lits, act("pick", "bottle3")) == 1.0
    assert UctPolicy(ctx, hcount=True)._hcount_value(p2.initial, None) == 3.0 * 1 - 3.0 * 2  # type: ignore[arg-type]


def test_saycan_follows_the_llm_only_where_the_precondition_holds(ctx_for, p2, scripted):
    ctx = ctx_for(scripted([[NAIVE] * 3 + ["plan = [('pick', 'bottle3')]"] * 2]))
    result = SayCanPolicy(ctx).plan(p2.initial, 0, math.inf, ())
    assert [s.action.action for s in result.steps] == [act("pick", "bottle3")]   # salter: say 0.6, can 0
    assert "(:init" not in ctx.llm.backend.prompts[0]


def test_iterative_replanning_feeds_the_failure_back(ctx_for, p2, scripted):
    ctx = ctx_for(scripted([[NAIVE], [GOOD]]))
    result = IterativeReplanningPolicy(ctx).plan(p2.initial, 0, math.inf, ())
    assert result.solved and ctx.llm.requests == 2
    second = ctx.llm.backend.prompts[1]
    assert "## Previously failed plans ##" in second and "('pick', 'salter') was infeasible" in second
    assert "bottle" in second.split("Feedback 1:")[1]


def test_iterative_replanning_executes_the_next_action_of_the_latest_plan(ctx_for, p2, scripted):
    ctx = ctx_for(scripted([["plan = [('pick', 'bottle3'), ('pick', 'bottle2')]"]]))
    result = IterativeReplanningPolicy(ctx, attempts=2).plan(p2.initial, 0, math.inf, ())
    assert not result.solved and ctx.llm.requests == 2
    assert [s.action.action for s in result.steps] == [act("pick", "bottle3")]


def test_llm_mcts_asks_the_llm_at_every_expanded_node(ctx_for, p2, config):
    ctx = ctx_for(make_plan_source("offline", seed=0), with_search(config, rollout_depth=0))
    result = LlmMctsPolicy(ctx, n_budget=4).plan(p2.initial, 0, math.inf, ())
    assert result.simulations == 4 and ctx.llm.requests >= 2
    assert result.steps and result.steps[0].action.action.op == "pick"


def test_uct_returns_a_feasible_root_action(ctx_for, p2, config):
    ctx = ctx_for(None, with_search(config, rollout_depth=1))
    result = UctPolicy(ctx, n_budget=6).plan(p2.initial, 0, math.inf, ())
    assert result.simulations == 6 and len(result.steps) == 1 and result.steps[0].action.feasible
