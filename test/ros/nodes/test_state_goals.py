"""Directives about how things are, end to end: the household graph (simulator, perception, executor,
planner in their own processes) executes open/close and switch on/off directives, alone and mixed
with placements, through ``execute_directive`` with ``llm_mcts`` and with ``classical``.

One graph per planner, so each planner starts from the same world (the launch file's placement seed);
the tests run in file order and share it. The goal is checked on what perception publishes.
"""
from __future__ import annotations

import pytest

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]


@pytest.fixture(scope="module", params=["llm_mcts", "classical"])
def world(request, launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp(f"state_goals_{request.param}")) as graph:
        yield graph, request.param


def _run(world, directive: str):
    graph, planner = world
    result = graph.client.run(directive, planner=planner, timeout_s=600.0)
    assert result.success and result.status is TaskResult.SUCCEEDED, (planner, directive, result)
    return result


def _perceived(graph) -> set[tuple[str, tuple[str, ...]]]:
    return {(name, tuple(args)) for name, args in graph.full_state()}


def test_close_the_fridge_when_it_is_closed_takes_no_step_then_open_and_close_it(world):
    graph, _ = world
    first = _run(world, "close the fridge")
    assert first.goal == (("closed", "fridge", "", 1),)
    assert first.executed == ()  # the state already holds: no step
    opened = _run(world, "open the fridge")
    assert opened.executed and opened.plan[-1] == "open(fridge)"
    assert ("OPEN", ("fridge",)) in _perceived(graph)
    closed = _run(world, "close the fridge")
    assert closed.plan[-1] == "close(fridge)"
    assert ("CLOSED", ("fridge",)) in _perceived(graph)


def test_turn_on_the_tv_and_put_the_remote_on_the_sofa(world):
    graph, _ = world
    result = _run(world, "turn on the TV in the living room and put the remote on the sofa")
    assert set(result.goal) == {("on", "tv", "", 1), ("on", "remote_control", "sofa", 1)}
    state = _perceived(graph)
    assert ("ON", ("tv",)) in state
    assert any(name == "ON" and args[0].startswith("remote_control_") and args[1:] == ("sofa",)
               for name, args in state)


def test_open_the_dishwasher_put_two_plates_in_it_and_close_it(world):
    graph, _ = world
    result = _run(world, "open the dishwasher, put two plates in it and close it")
    assert set(result.goal) == {("inside", "plate", "dishwasher", 2), ("closed", "dishwasher", "", 1)}
    state = _perceived(graph)
    assert ("CLOSED", ("dishwasher",)) in state
    assert sum(1 for name, args in state if name == "INSIDE" and args[0].startswith("plate_")
               and args[1] == "dishwasher") == 2
