"""Both launch files start the same four node programs and their lifecycle manager and differ only in the parameter file; the
``namespace`` argument puts the whole graph under one robot's namespace."""
from __future__ import annotations

from llm_planner.ros.environment import ros_environment
from llm_planner.ros.launch_files import describe, resolve_launch_file


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
