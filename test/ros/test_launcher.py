"""The own launcher: the launch file evaluates to the four node commands with the usual --ros-args."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError
from llm_planner.ros.launcher import describe, resolve_launch_file, use_real_launch
from llm_planner.ros.environment import ros_environment


def test_default_launch_file_describes_four_nodes():
    commands = describe(resolve_launch_file(None), {}, ros_environment())
    names = [c.name for c in commands]
    assert names == ["simulator", "perception", "executor", "planner"]
    for command in commands:
        assert "--ros-args" in command.argv
        assert f"__node:={command.name}" in command.argv
        params_file = command.argv[command.argv.index("--params-file") + 1]
        assert params_file.endswith("config/llm_planner.yaml")


def test_launch_argument_overrides_params_file(tmp_path):
    custom = tmp_path / "p.yaml"
    custom.write_text("/**:\n  ros__parameters:\n    seed: 3\n")
    commands = describe(resolve_launch_file("llm_planner"), {"params_file": str(custom)}, ros_environment())
    assert all(str(custom) in c.argv for c in commands)


def test_unknown_launch_file_and_argument_are_clear_errors():
    with pytest.raises(ConfigError, match=r"known: (.*, )?llm_planner"):
        resolve_launch_file("nonexistent_graph")
    with pytest.raises(ConfigError, match="unknown launch argument"):
        describe(resolve_launch_file(None), {"bogus": "1"}, ros_environment())


def test_real_launch_is_not_faked_here():
    # the stand-in modules must not leak into sys.modules after describe()
    describe(resolve_launch_file(None), {}, ros_environment())
    assert use_real_launch() is False
