"""One small end-to-end STaLM solve with the offline backend, and the episode record."""
from __future__ import annotations

from llm_planner.gtamp.episode import run_episode


def test_stalm_solves_p2_end_to_end_within_its_budget():
    result = run_episode("P2", "stalm", seed=0, budget_s=60.0)
    assert result.success, (result.stop, result.errors)
    assert result.planning_time_s < 60.0 and result.llm_requests >= 1 and result.mp_calls > 0
    assert result.plan[-1] == "('place', 'salter', 'right_of', 'bottle1')"
    assert result.as_dict()["method"] == "stalm"

