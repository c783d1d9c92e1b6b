"""One small end-to-end STaLM solve with the offline backend, and the episode record."""
from __future__ import annotations

from llm_planner_eval.bench.gtamp_episode import run_benchmark_episode


def test_stalm_solves_p2_end_to_end_within_its_budget():
    result = run_benchmark_episode("P2", "stalm", seed=0, budget_s=60.0)
    assert result.success, (result.stop, result.errors)
    assert result.planning_time_s < 60.0 and result.llm_requests >= 1 and result.mp_calls > 0
    assert result.plan[-1] == "place(salter, right_of, bottle1)"
    assert result.as_dict()["method"] == "stalm"



def test_an_unreachable_goal_fails_cleanly_with_the_reason_recorded():
    from llm_planner.domains.gtamp.problems import load_problem, parse_goal

    p4 = load_problem("P4")
    impossible = p4.with_goal(parse_goal(p4, [["grill", "on", "minifridge"]]))   # 0.6 m grill, 0.6 m fridge top
    result = run_benchmark_episode(impossible, "stalm", seed=0, budget_s=4.0, clock="cpu")
    assert not result.success and result.stop
    assert any("no position on minifridge" in e for e in result.errors), result.errors
