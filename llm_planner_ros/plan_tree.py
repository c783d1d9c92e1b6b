"""``llm-planner plan --bt FILE``: the plan a running graph answers, written as a BehaviorTree.CPP v4
tree (:mod:`llm_planner.bt_export`, ``docs/guides/robot.md#plans-as-behaviour-trees``).

A tree carries the goals the executor would send the robot, so it needs what the planner planned
on: the graph's domain and world (the planner node's parameters, read before planning, so a G-TAMP
graph is refused before it plans) and the full state (``perception/full_state``, read after the
plan is answered; the household planners that answer a whole plan plan on it, and only the
simulator's perception publishes it).
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from llm_planner_interfaces.msg import PerceivedState
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from rclpy.client import Client

from llm_planner.adapters import get_domain
from llm_planner.adapters.base import Domain
from llm_planner.bt_export import check_domain, plan_tree
from llm_planner.config import load_params_file
from llm_planner.errors import LlmPlannerError
from llm_planner_ros.client import PlannerClient, response_of
from llm_planner_ros.conversions import percept_from_msg
from llm_planner_ros.node_utils import GEOMETRY_QOS
from llm_planner_ros.task_results import PlanResult

#: The planner node's parameters a tree depends on: the world, and the planner of a request that names none.
GRAPH_PARAMETERS = ("domain", "scene", "problem", "planner")
#: The privileged topic with the full state (relative name).
FULL_STATE_TOPIC = "perception/full_state"


class TreeWriter:
    """Writes the tree of one ``plan_task`` answer of the graph ``client`` talks to; made before the
    request is sent (LlmPlannerError, e.g. for a G-TAMP graph, before anything is planned)."""

    def __init__(self, client: PlannerClient, wait_s: float) -> None:
        self.client, self.wait_s = client, wait_s
        self.parameters = planner_parameters(client, GRAPH_PARAMETERS, wait_s)
        check_domain(self.parameters["domain"])
        params = load_params_file()
        params.update({k: v for k, v in self.parameters.items() if v})
        self.domain: Domain = get_domain(params["domain"])(params)

    def write(self, result: PlanResult, directive: str, planner: str, path: str | Path) -> str:
        """Write the tree of ``result`` (a successful plan-only answer) to ``path``; what was written."""
        percept = percept_from_msg(latest_message(self.client, FULL_STATE_TOPIC, self.wait_s))
        state = self.domain.full_state({"full_state": percept})
        text = plan_tree(self.domain, state, result.plan, result.goal, planner or self.parameters["planner"], directive)
        Path(path).write_text(text)
        return f"behaviour tree: {path} ({len(result.plan)} action node(s), BehaviorTree.CPP v4)"


def planner_parameters(client: PlannerClient, names: tuple[str, ...], wait_s: float) -> dict[str, str]:
    """String parameters of the planner node (``planner/get_parameters``); LlmPlannerError when it
    does not answer within ``wait_s``."""
    service: Client[Any, Any] = client.node.create_client(GetParameters, "planner/get_parameters")
    what = client.node.resolve_service_name("planner/get_parameters")
    try:
        if not service.wait_for_service(timeout_sec=wait_s):
            raise LlmPlannerError(f"{what} is not available within {wait_s:g} s: start the system first "
                                  "(llm-planner launch)")
        future = service.call_async(GetParameters.Request(names=list(names)))
        if not client.spin_until(future, wait_s):
            raise LlmPlannerError(f"{what} did not answer within {wait_s:g} s")
        values = response_of(future).values
    finally:
        client.node.destroy_client(service)
    return {name: v.string_value if v.type == ParameterType.PARAMETER_STRING else ""
            for name, v in zip(names, values, strict=True)}


def latest_message(client: PlannerClient, topic: str, wait_s: float) -> PerceivedState:
    """The latest message of a latched perception topic; LlmPlannerError naming the topic when none
    comes within ``wait_s``."""
    received: list[PerceivedState] = []
    subscription = client.node.create_subscription(PerceivedState, topic, received.append, GEOMETRY_QOS)
    deadline = time.monotonic() + wait_s
    try:
        while not received and time.monotonic() < deadline:
            client.executor.spin_once(timeout_sec=0.1)
    finally:
        client.node.destroy_subscription(subscription)
    if not received:
        raise LlmPlannerError(
            f"no message on {client.node.resolve_topic_name(topic)} within {wait_s:g} s: --bt steps the plan from the "
            "full state the planner planned on, which only the simulator's perception publishes (the household "
            "planners that answer a whole plan, classical, pddl and saycanpay, plan on it too)")
    return received[-1]
