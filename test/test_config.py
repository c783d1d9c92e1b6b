"""Parameters: one schema for both worlds; the shipped files are valid; an invalid value is refused
naming the parameter."""
from __future__ import annotations

import pytest

from llm_planner.config import PARAMS, load_params_file, read_params_file, validate_params
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir


def test_the_two_parameter_files_are_the_same_schema_with_other_values():
    household, gtamp = load_params_file(), load_params_file(config_dir() / "gtamp_nodes.yaml")
    assert set(household) == set(gtamp) == set(PARAMS)
    assert (household["domain"], household["planner"], household["max_steps"]) == ("household", "llm_mcts", 30)
    assert (gtamp["domain"], gtamp["planner"], gtamp["problem"]) == ("gtamp", "stalm", "P2")


@pytest.mark.parametrize("name, value", [("seed", -1), ("planner", "teleport"), ("max_steps", 0),
                                         ("plan_timeout_s", "soon"), ("llm_backend", "gpt"), ("domain", "mars"),
                                         ("node_timeout_s", 0.0), ("planning_workers", 0)])
def test_invalid_value_names_the_parameter(name, value):
    with pytest.raises(ConfigError, match=f"parameter '{name}'"):
        validate_params({name: value})


def test_the_planner_is_checked_against_the_domain():
    assert validate_params({"domain": "gtamp", "planner": "uct"})["planner"] == "gtamp_uct"
    with pytest.raises(ConfigError, match="parameter 'planner' = 'stalm'.*household domain"):
        validate_params({"domain": "household", "planner": "stalm"})


def test_unwrapped_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "p.yaml"
    bad.write_text("scene: apartment_seen\n")
    with pytest.raises(ConfigError, match="ros__parameters"):
        read_params_file(bad)


def test_a_planner_change_is_accepted_exactly_for_the_names_the_descriptor_lists():
    from llm_planner.config import allowed_values, check_change

    gtamp = allowed_values("planner", "gtamp")
    assert "stalm" in gtamp and "uct" in gtamp and "gtamp_uct" in gtamp and "llm_mcts" in gtamp
    assert all(check_change("planner", name, "gtamp") == "" for name in gtamp)
    for name in ("classical", "pddl", "nonsense"):  # household planners are not G-TAMP ones
        assert f"planner '{name}' is not one of" in check_change("planner", name, "gtamp")
    household = allowed_values("planner", "household")
    assert all(check_change("planner", name, "household") == "" for name in household)
    assert "is not one of" in check_change("planner", "stalm", "household")


def test_the_lifecycle_managers_parameters_are_a_checked_schema_with_the_files_defaults():
    from llm_planner.config import MANAGER_PARAMS, MANAGER_SECTION, validate_param

    for name in ("llm_planner.yaml", "gtamp_nodes.yaml"):
        section = read_params_file(config_dir() / name, section=MANAGER_SECTION)
        assert set(section) == set(MANAGER_PARAMS) - {"shutdown_timeout_s"}, name
        for key, value in section.items():
            assert validate_param(key, value, schema=MANAGER_PARAMS) == value
    assert all(p.description for p in MANAGER_PARAMS.values())
    for key, value in (("watch_period_s", -1.0), ("node_names", []), ("node_names", ["planner", "planner"]),
                       ("autostart", "yes")):
        with pytest.raises(ConfigError, match=key):
            validate_param(key, value, schema=MANAGER_PARAMS)
