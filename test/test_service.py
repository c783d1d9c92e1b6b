"""The /plan_task logic without ROS: directive checks and planner names."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError, GoalError
from llm_planner.service import check_directive, resolve_planner


def test_directive_is_cleaned():
    assert check_directive("  put one apple\n inside the fridge ", 100) == "put one apple inside the fridge"


@pytest.mark.parametrize("text, fragment", [("", "empty"), (" \n\t ", "empty"), ("x" * 101, "limit"),
                                            ("put \x00 apple", "non-text"), ("put \ufffd apple", "non-text")])
def test_bad_directives_say_what_is_wrong(text, fragment):
    with pytest.raises(GoalError, match=fragment):
        check_directive(text, 100)


def test_planner_names():
    assert resolve_planner("", "classical") == "classical"
    with pytest.raises(ConfigError, match="available"):
        resolve_planner("teleport", "classical")
