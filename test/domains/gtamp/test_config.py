"""Hyper-parameters come from config/gtamp/stalm.yaml with the seed's defaults."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError
from llm_planner.domains.gtamp.config import load_config


def test_seed_defaults():
    s = load_config().search
    assert (s.n_batch, s.n_budget, s.c, s.pw_k, s.pw_alpha, s.gamma, s.horizon) == (5, 30, 50.0, 1.5, 0.15, 0.99, 20)
    assert (s.reward_goal, s.reward_infeasible) == (3.0, -6.0)
    cfg = load_config()
    assert cfg.baseline("uct") == {"n_budget": 35} and cfg.baseline("stalm_no_uct") == {"n_budget": 0}


def test_overrides_and_unknown_keys():
    assert load_config(overrides={"search": {"n_budget": 4}}).search.n_budget == 4
    with pytest.raises(ConfigError, match="n_bugdet"):
        load_config(overrides={"search": {"n_bugdet": 4}})
    with pytest.raises(ConfigError, match="expected int"):
        load_config(overrides={"search": {"horizon": "many"}})
