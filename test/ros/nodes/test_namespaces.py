"""Names compose: two graphs launched side by side in namespaces robot1 and robot2 (one domain id,
other apartments), each planning and executing for its own robot at the same time."""
from __future__ import annotations

import time

import pytest

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
DIRECTIVE = "put one apple on the sofa"
DISCOVERY_S = 20.0  # one graph's client discovers the other graph's nodes in well under this


def _where(graph, obj: str) -> str:
    return next(args[1] for name, args in graph.full_state() if name in ("INSIDE", "ON") and args[0] == obj)


def test_two_namespaced_graphs_plan_and_execute_for_their_own_robot(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("robot1"), namespace="robot1") as one, \
            launch_graph(tmp_path_factory.mktemp("robot2"), namespace="robot2", scene="apartment_unseen") as two:
        expected = {(n, f"/robot{i}") for n in ("simulator", "perception", "executor", "planner") for i in (1, 2)}
        deadline = time.monotonic() + DISCOVERY_S  # each graph was up for its own client; discovery by the other's
        while not expected <= (nodes := set(one.client.node.get_node_names_and_namespaces())) \
                and time.monotonic() < deadline:
            one.client.spin_for(0.2)
        assert expected <= nodes
        assert ("planner", "/") not in nodes
        statuses: dict = {one: [], two: []}
        for graph in (one, two):
            graph.client.watch_status(statuses[graph].append)
            plan = graph.client.plan(DIRECTIVE, planner="classical")
            assert plan.success, plan
            grab = next(i for i, step in enumerate(plan.plan) if step.startswith("grab(apple_"))
            apple = plan.plan[grab][len("grab("):-1]
            assert plan.plan[grab - 1] == f"walk({_where(graph, apple)})"  # planned in its own apartment
        one.client.execute(DIRECTIVE, planner="classical")
        two.client.execute(DIRECTIVE, planner="classical")  # at the same time: another robot, not refused
        results = {graph: graph.client.result(timeout_s=300.0) for graph in (one, two)}
        for graph, result in results.items():
            assert result.status is TaskResult.SUCCEEDED, result
            assert any(n == "ON" and a[0].startswith("apple_") and a[1] == "sofa" for n, a in graph.full_state())
            graph.client.spin_for(0.5)
            assert {m.task_id for m in statuses[graph] if m.state == "succeeded"} == {result.task_id}
