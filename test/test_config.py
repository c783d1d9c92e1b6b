"""Parameters: the shipped file is valid; an invalid value is refused naming the parameter."""
from __future__ import annotations

import pytest

from llm_planner.config import load_params_file, validate_params
from llm_planner.errors import ConfigError


def test_shipped_parameter_file_is_valid():
    params = load_params_file()
    assert params["planner"] in ("classical", "llm_mcts", "stalm", "pddl", "saycanpay")
    assert params["max_steps"] == 30


@pytest.mark.parametrize("name, value", [("seed", -1), ("planner", "teleport"), ("max_steps", 0),
                                         ("plan_timeout_s", "soon"), ("llm_backend", "gpt")])
def test_invalid_value_names_the_parameter(name, value):
    with pytest.raises(ConfigError, match=f"parameter '{name}'"):
        validate_params({name: value})


def test_unwrapped_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "p.yaml"
    bad.write_text("scene: apartment_seen\n")
    with pytest.raises(ConfigError, match="ros__parameters"):
        load_params_file(bad)
