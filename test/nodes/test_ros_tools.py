"""The graph as ROS 2 tools see it (issue 28), through the ROS interfaces from a separate process
(``ros2 param``, ``ros2 lifecycle`` and a robot monitor call these same services and topics):
parameters described and checked, changes used or refused as read-only, every node active after
launch, deactivate refusing new tasks with a clear message and activate serving again, and
``/diagnostics`` reporting every node.

The checks run in a child Python process (``_probe``) that is not part of the graph or of the
test's client: it only has rclpy and the interface packages, as ``ros2`` would.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from llm_planner.config import PARAMS, read_params_file

pytestmark = [pytest.mark.ros, pytest.mark.slow]
NODES = ("simulator", "perception", "executor", "planner")

# A small ROS client, run in its own process: prints one JSON line with what it found.
PROBE = textwrap.dedent('''
    import json, sys, time
    import rclpy
    from rcl_interfaces.msg import Parameter, ParameterValue, ParameterType
    from rcl_interfaces.srv import DescribeParameters, SetParameters
    from lifecycle_msgs.msg import Transition
    from lifecycle_msgs.srv import ChangeState, GetState
    from diagnostic_msgs.msg import DiagnosticArray
    from llm_planner_interfaces.srv import PlanTask

    rclpy.init()
    node = rclpy.create_node("ros_tools_probe")
    WAIT = 30.0

    def call(srv_type, name, request):
        client = node.create_client(srv_type, name)
        assert client.wait_for_service(timeout_sec=WAIT), f"no service {name}"
        future = client.call_async(request)
        rclpy.spin_until_future_complete(node, future, timeout_sec=120.0)
        assert future.done(), f"{name} did not answer"
        return future.result()

    def value(v):
        if isinstance(v, bool):
            return ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=v)
        if isinstance(v, int):
            return ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=v)
        if isinstance(v, float):
            return ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=v)
        return ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=v)

    out = {}
    for op in json.loads(sys.argv[1]):
        kind = op[0]
        if kind == "describe":
            _, target, names = op
            r = call(DescribeParameters, f"/{target}/describe_parameters", DescribeParameters.Request(names=names))
            out.setdefault("describe", {})[target] = [
                {"name": d.name, "type": d.type, "description": d.description, "read_only": d.read_only,
                 "constraints": d.additional_constraints,
                 "range": [[x.from_value, x.to_value] for x in (*d.floating_point_range, *d.integer_range)]}
                for d in r.descriptors]
        elif kind == "set":
            _, target, name, v = op
            r = call(SetParameters, f"/{target}/set_parameters",
                     SetParameters.Request(parameters=[Parameter(name=name, value=value(v))]))
            out.setdefault("set", []).append([target, name, v, r.results[0].successful, r.results[0].reason])
        elif kind == "state":
            out.setdefault("state", {})[op[1]] = call(GetState, f"/{op[1]}/get_state", GetState.Request()).current_state.label
        elif kind == "transition":
            ids = {"activate": Transition.TRANSITION_ACTIVATE, "deactivate": Transition.TRANSITION_DEACTIVATE}
            r = call(ChangeState, f"/{op[1]}/change_state", ChangeState.Request(transition=Transition(id=ids[op[2]])))
            out.setdefault("transition", []).append([op[1], op[2], r.success])
        elif kind == "plan":
            r = call(PlanTask, "/plan_task", PlanTask.Request(directive=op[1], planner=op[2]))
            out.setdefault("plan", []).append({"success": r.success, "message": r.message, "plan": list(r.plan)})
        elif kind == "diagnostics":
            seen = {}
            node.create_subscription(DiagnosticArray, "/diagnostics",
                                     lambda m: seen.update({s.name: [s.level[0], s.message,
                                                                     {k.key: k.value for k in s.values}]
                                                            for s in m.status}), 50)
            deadline = time.monotonic() + op[1]
            while time.monotonic() < deadline:
                rclpy.spin_once(node, timeout_sec=0.1)
            out["diagnostics"] = seen
    print(json.dumps(out))
    node.destroy_node()
    rclpy.shutdown()
''')


def _probe(graph, *ops: list) -> dict:
    proc = subprocess.run([sys.executable, "-c", PROBE, json.dumps(list(ops))], env=graph.runner.env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("ros_tools_graph")) as g:
        yield g


def test_every_node_is_active_after_launch(graph):
    states = _probe(graph, *[["state", n] for n in NODES])["state"]
    assert states == {n: "active" for n in NODES}


def test_every_parameter_is_described_with_a_type_a_description_and_what_it_accepts(graph):
    described = _probe(graph, *[["describe", n, sorted(PARAMS)] for n in NODES])["describe"]
    for node, descriptors in described.items():
        assert [d["name"] for d in descriptors] == sorted(PARAMS), node
        for d in descriptors:
            assert d["type"] != 0 and d["description"] and d["constraints"], (node, d)
    planner = {d["name"]: d for d in described["planner"]}
    assert planner["plan_timeout_s"]["range"] == [[0.0, 86400.0]] and not planner["plan_timeout_s"]["read_only"]
    assert "llm_mcts" in planner["planner"]["constraints"] and "classical" in planner["planner"]["constraints"]
    assert planner["scene"]["read_only"] and "restart" in planner["scene"]["description"]
    executor = {d["name"]: d for d in described["executor"]}
    assert executor["planner"]["read_only"] and "/planner" in executor["planner"]["description"]
    assert not executor["max_steps"]["read_only"] and planner["max_steps"]["read_only"]


def test_bad_values_are_refused_with_a_reason_naming_what_is_allowed(graph):
    results = _probe(graph, ["set", "planner", "planner", "nonsense"], ["set", "planner", "plan_timeout_s", -5.0],
                     ["set", "planner", "plan_timeout_s", 0.0], ["set", "planner", "llm_backend", "gpt"],
                     ["set", "executor", "planner", "classical"], ["set", "planner", "scene", "apartment_unseen"])["set"]
    by_name = {(target, name, str(v)): (ok, reason) for target, name, v, ok, reason in results}
    ok, reason = by_name[("planner", "planner", "nonsense")]
    assert not ok and "planner 'nonsense' is not one of" in reason and "llm_mcts" in reason and "classical" in reason
    ok, reason = by_name[("planner", "plan_timeout_s", "-5.0")]
    assert not ok and "out of range" in reason.lower(), reason
    ok, reason = by_name[("planner", "plan_timeout_s", "0.0")]
    assert not ok and "> 0" in reason, reason
    ok, reason = by_name[("planner", "llm_backend", "gpt")]
    assert not ok and "offline" in reason and "openai" in reason, reason
    for key in (("executor", "planner", "classical"), ("planner", "scene", "apartment_unseen")):
        ok, reason = by_name[key]
        assert not ok and "read-only" in reason, (key, reason)


def test_a_planner_change_is_used_by_the_next_request(graph):
    assert read_params_file()["planner"] == "llm_mcts"  # the graph's default, changed below for one request
    after = _probe(graph, ["set", "planner", "planner", "classical"], ["plan", "put one plate on the sofa", ""],
                   ["set", "planner", "planner", "llm_mcts"])
    assert [s[3] for s in after["set"]] == [True, True], after["set"]
    planned = after["plan"][0]
    assert planned["success"] and "planner classical" in planned["message"], planned
    assert planned["plan"][-1].startswith("puton(plate_")


def test_deactivate_refuses_new_tasks_with_a_clear_message_and_activate_serves_again(graph):
    found = _probe(graph, ["transition", "planner", "deactivate"], ["state", "planner"],
                   ["plan", "put one plate on the sofa", "classical"],
                   ["transition", "planner", "activate"], ["plan", "put one plate on the sofa", "classical"])
    assert found["transition"] == [["planner", "deactivate", True], ["planner", "activate", True]]
    assert found["state"]["planner"] == "inactive"
    refused, served = found["plan"]
    assert not refused["success"]
    assert "the planner is inactive; activate it with `ros2 lifecycle set /planner activate`" in refused["message"]
    assert served["success"], served


def test_diagnostics_report_every_node(graph):
    seen = _probe(graph, ["diagnostics", 4.0])["diagnostics"]
    for node in NODES:
        assert f"/{node}" in seen, sorted(seen)
        level, message, values = seen[f"/{node}"]
        assert level == 0 and values["lifecycle state"] == "active", (node, level, message)
    assert "geometry per s" in seen["/simulator"][2] and float(seen["/simulator"][2]["geometry per s"]) > 0
    assert float(seen["/perception"][2]["last perception age s"]) < 5.0
    assert "idle" in seen["/executor"][1] and "planning queue" in seen["/planner"][2]
    assert seen["/planner: model server"][0] == 0 and "embedded offline provider" in seen["/planner: model server"][1]
