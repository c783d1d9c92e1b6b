"""A small ROS client run in its own process, as the ``ros2`` tool would be: it only has rclpy and
the interface packages. ``python ros_probe.py OPS_JSON`` runs each operation in order and prints one
JSON line with what it found (see ``run`` for its keys). Operations: ["describe", node, [names]], ["list", node],
["get", node, [names]], ["set", node, name, value], ["state", node],
["transition", node, activate|deactivate|shutdown], ["plan", directive, planner],
["diagnostics", seconds]. Node names are relative to the root namespace ("planner" is /planner).
"""
import json
import sys
import time

import rclpy
from diagnostic_msgs.msg import DiagnosticArray
from lifecycle_msgs.msg import Transition
from lifecycle_msgs.srv import ChangeState, GetState
from llm_planner_interfaces.srv import PlanTask
from rcl_interfaces.msg import Parameter, ParameterType, ParameterValue
from rcl_interfaces.srv import DescribeParameters, GetParameters, ListParameters, SetParameters

WAIT = 30.0
TRANSITIONS = {"activate": Transition.TRANSITION_ACTIVATE, "deactivate": Transition.TRANSITION_DEACTIVATE,
               "shutdown": Transition.TRANSITION_ACTIVE_SHUTDOWN}


def call(node, srv_type, name, request, attempt_s: float = 120.0):
    """One request to ``name``, asked again every ``attempt_s`` for an idempotent one (a short
    ``attempt_s``): a server that has just started may find no route back to this client yet (rmw:
    "failed to send response (timeout)") and the answer is lost."""
    client = node.create_client(srv_type, name)
    assert client.wait_for_service(timeout_sec=WAIT), f"no service {name}"
    deadline = time.monotonic() + 120.0
    while True:
        future = client.call_async(request)
        left = max(0.0, deadline - time.monotonic())
        rclpy.spin_until_future_complete(node, future, timeout_sec=min(attempt_s, left))
        if future.done() or time.monotonic() >= deadline:
            break
        client.remove_pending_request(future)
    assert future.done(), f"{name} did not answer"
    return future.result()


def plain(v):
    return {ParameterType.PARAMETER_BOOL: v.bool_value, ParameterType.PARAMETER_INTEGER: v.integer_value,
            ParameterType.PARAMETER_DOUBLE: v.double_value, ParameterType.PARAMETER_STRING: v.string_value,
            ParameterType.PARAMETER_STRING_ARRAY: list(v.string_array_value)}.get(v.type)


def value(v):
    if isinstance(v, list):
        return ParameterValue(type=ParameterType.PARAMETER_STRING_ARRAY, string_array_value=v)
    if isinstance(v, bool):
        return ParameterValue(type=ParameterType.PARAMETER_BOOL, bool_value=v)
    if isinstance(v, int):
        return ParameterValue(type=ParameterType.PARAMETER_INTEGER, integer_value=v)
    if isinstance(v, float):
        return ParameterValue(type=ParameterType.PARAMETER_DOUBLE, double_value=v)
    return ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=v)


def run(node, ops):
    out = {}
    for op in ops:
        kind = op[0]
        if kind == "describe":
            _, target, names = op
            r = call(node, DescribeParameters, f"/{target}/describe_parameters", DescribeParameters.Request(names=names))
            out.setdefault("describe", {})[target] = [
                {"name": d.name, "type": d.type, "description": d.description, "read_only": d.read_only,
                 "constraints": d.additional_constraints,
                 "range": [[x.from_value, x.to_value] for x in (*d.floating_point_range, *d.integer_range)]}
                for d in r.descriptors]
        elif kind == "list":
            r = call(node, ListParameters, f"/{op[1]}/list_parameters", ListParameters.Request())
            out.setdefault("list", {})[op[1]] = sorted(r.result.names)
        elif kind == "get":
            _, target, names = op
            r = call(node, GetParameters, f"/{target}/get_parameters", GetParameters.Request(names=names))
            values = {n: plain(v) for n, v in zip(names, r.values, strict=True)}
            out.setdefault("get", {})[target] = values  # the last get of each node
            out.setdefault("gets", []).append([target, values])  # every get, in order
        elif kind == "set":
            _, target, name, v = op
            r = call(node, SetParameters, f"/{target}/set_parameters",
                     SetParameters.Request(parameters=[Parameter(name=name, value=value(v))]))
            out.setdefault("set", []).append([target, name, v, r.results[0].successful, r.results[0].reason])
        elif kind == "state":
            state = call(node, GetState, f"/{op[1]}/get_state", GetState.Request(), attempt_s=5.0).current_state.label
            out.setdefault("state", {})[op[1]] = state
        elif kind == "transition":
            r = call(node, ChangeState, f"/{op[1]}/change_state",
                     ChangeState.Request(transition=Transition(id=TRANSITIONS[op[2]])))
            out.setdefault("transition", []).append([op[1], op[2], r.success])
        elif kind == "plan":
            r = call(node, PlanTask, "/plan_task", PlanTask.Request(directive=op[1], planner=op[2]))
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
    return out


def main():
    rclpy.init()
    node = rclpy.create_node("ros_tools_probe")
    print(json.dumps(run(node, json.loads(sys.argv[1]))))
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
