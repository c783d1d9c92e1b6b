"""STaLM, Algorithm 1: one query for N plans, Concretize, then warm-started UCT."""
from __future__ import annotations

import math

from llm_planner.domains.gtamp.config import with_search
from llm_planner.methods.stalm.llm_source import make_plan_source
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


def test_deadline_stops_planning(p2, config, scripted):
    ctx = Context.build(p2, with_search(config, n_budget=1000), scripted([["plan = []"]]), seed=0)
    try:
        result = StalmPolicy(ctx).plan(p2.initial, 0, 0.0, ())               # deadline already passed
        assert result.simulations == 0 and not result.solved
    finally:
        ctx.model.world.close()
