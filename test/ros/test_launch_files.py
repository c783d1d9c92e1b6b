"""Both launch files start the same four node programs and their lifecycle manager and differ only in the parameter file; the
``namespace`` argument puts the whole graph under one robot's namespace."""
from __future__ import annotations

from llm_planner_ros.environment import ros_environment
from llm_planner_ros.launch_files import describe, resolve_launch_file


def _commands(name, arguments=None):
    return describe(resolve_launch_file(name), arguments or {}, ros_environment())


def test_the_two_graphs_are_the_same_programs_with_other_parameters():
    household, gtamp = _commands("llm_planner"), _commands("gtamp")
    assert [c.argv[0] for c in household] == [c.argv[0] for c in gtamp]
    assert [c.argv[0].rsplit("/", 1)[1] for c in household] == [
        "simulator_node", "perception_node", "executor_node", "planner_node", "lifecycle_manager_node"]
    for h, g in zip(household, gtamp):
        assert h.argv[-1].endswith("config/llm_planner.yaml") and g.argv[-1].endswith("config/gtamp_nodes.yaml")
        assert h.argv[:-1] == g.argv[:-1]


def test_a_namespace_argument_moves_every_node():
    for command in _commands("llm_planner", {"namespace": "robot1"}):
        assert command.argv[command.argv.index("__ns:=/robot1") - 1] == "-r"
    assert not any(a.startswith("__ns:=") for c in _commands("gtamp") for a in c.argv)


def test_node_parameters_given_as_launch_arguments_reach_the_four_nodes_and_empty_ones_keep_the_file():
    given = {"llm_backend": "openai", "llm_config": "/tmp/my llm.yaml", "planner": "classical",
             "scene": "apartment_unseen", "require_approval": "none"}
    for name in ("llm_planner", "robot_planner_host", "robot_sim_host"):
        for command in _commands(name, given):
            assignments = [command.argv[i + 1] for i, a in enumerate(command.argv) if a == "-p"]
            if command.name == "lifecycle_manager":
                assert not assignments
                continue
            assert "llm_backend:=openai" in assignments and "planner:=classical" in assignments, assignments
            assert "require_approval:=none" in assignments and "scene:=apartment_unseen" in assignments
            assert any(a.startswith("llm_config:=") and "my llm.yaml" in a for a in assignments), assignments
    assert not any("-p" in c.argv for c in _commands("gtamp", {"problem": ""}))  # empty: the file's value
    assert "problem:=P5" in _commands("gtamp", {"problem": "P5"})[0].argv


def test_robot_external_starts_neither_our_simulator_nor_perception_and_the_manager_leaves_them_out():
    commands = {c.name: c for c in _commands("llm_planner", {"robot": "external"})}
    assert set(commands) == {"executor", "planner", "lifecycle_manager"}
    for command in commands.values():
        assert "robot:=external" in [command.argv[i + 1] for i, a in enumerate(command.argv) if a == "-p"]
    assert {c.name for c in _commands("llm_planner", {"robot": ""})} == {
        "simulator", "perception", "executor", "planner", "lifecycle_manager"}


def test_an_undeclared_launch_argument_is_refused_naming_the_declared_ones():
    import pytest

    from llm_planner.errors import ConfigError

    with pytest.raises(ConfigError, match="unknown launch argument.*llm_backend, llm_config, namespace"):
        _commands("llm_planner", {"llm_backnd": "openai"})
