"""The graph as ROS 2 tools see it, through the ROS interfaces from a separate process
(``ros2 param``, ``ros2 lifecycle`` and a robot monitor call these same services and topics):
parameters described and checked, changes used or refused as read-only, every node active after
launch, deactivate refusing new tasks with a clear message and activate serving again, and
``/diagnostics`` reporting every node.

The checks run in a child Python process (``ros_probe.py``) that is not part of the graph or of the
test's client: it only has rclpy and the interface packages, as ``ros2`` would.
"""
from __future__ import annotations

import pytest

from llm_planner.config import PARAMS, read_params_file

pytestmark = [pytest.mark.ros, pytest.mark.slow]
NODES = ("simulator", "perception", "executor", "planner")

@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("ros_tools_graph")) as g:
        yield g


def test_every_node_is_active_after_launch(graph, probe):
    states = probe(graph, *[["state", n] for n in NODES])["state"]
    assert states == {n: "active" for n in NODES}


def test_every_parameter_is_described_with_a_type_a_description_and_what_it_accepts(graph, probe):
    described = probe(graph, *[["describe", n, sorted(PARAMS)] for n in NODES])["describe"]
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


def test_bad_values_are_refused_with_a_reason_naming_what_is_allowed(graph, probe):
    results = probe(graph, ["set", "planner", "planner", "nonsense"], ["set", "planner", "plan_timeout_s", -5.0],
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


def test_a_planner_change_is_used_by_the_next_request(graph, probe):
    assert read_params_file()["planner"] == "llm_mcts"  # the graph's default, changed below for one request
    after = probe(graph, ["set", "planner", "planner", "classical"], ["plan", "put one plate on the sofa", ""],
                   ["set", "planner", "planner", "llm_mcts"])
    assert [s[3] for s in after["set"]] == [True, True], after["set"]
    planned = after["plan"][0]
    assert planned["success"] and "planner classical" in planned["message"], planned
    assert planned["plan"][-1].startswith("puton(plate_")


def test_deactivate_refuses_new_tasks_with_a_clear_message_and_activate_serves_again(graph, probe):
    found = probe(graph, ["transition", "planner", "deactivate"], ["state", "planner"],
                   ["plan", "put one plate on the sofa", "classical"],
                   ["transition", "planner", "activate"], ["plan", "put one plate on the sofa", "classical"])
    assert found["transition"] == [["planner", "deactivate", True], ["planner", "activate", True]]
    assert found["state"]["planner"] == "inactive"
    refused, served = found["plan"]
    assert not refused["success"]
    assert "the planner is inactive; activate it with `ros2 lifecycle set /planner activate`" in refused["message"]
    assert served["success"], served


def test_diagnostics_report_every_node(graph, probe):
    seen = probe(graph, ["diagnostics", 4.0])["diagnostics"]
    for node in NODES:
        assert f"/{node}" in seen, sorted(seen)
        level, message, values = seen[f"/{node}"]
        assert level == 0 and values["lifecycle state"] == "active", (node, level, message)
    assert "geometry per s" in seen["/simulator"][2] and float(seen["/simulator"][2]["geometry per s"]) > 0
    assert float(seen["/perception"][2]["last perception age s"]) < 5.0
    assert "idle" in seen["/executor"][1] and "planning queue" in seen["/planner"][2]
    assert seen["/planner: model server"][0] == 0 and "embedded offline provider" in seen["/planner: model server"][1]


# rcl_interfaces/msg/ParameterType
BOOL, INTEGER, DOUBLE, STRING, STRING_ARRAY = 1, 2, 3, 4, 9
#: rclpy's own parameters: described, but not set here (use_sim_time without a /clock stops the node's clock)
RCLPY_OWN = ("use_sim_time", "start_type_description_service")


def _another_value(descriptor: dict, current):
    """A valid value of a writable parameter other than ``current``, from its descriptor."""
    kind, bounds = descriptor["type"], descriptor["range"]
    if kind == BOOL:
        return not current
    if kind in (INTEGER, DOUBLE):
        new = current * 2 if current else 1
        new = new if not bounds or new <= bounds[0][1] else (current + bounds[0][0]) / 2
        return int(new) if kind == INTEGER else float(new)
    if kind == STRING and descriptor["constraints"].startswith("one of "):
        return next(c for c in descriptor["constraints"].removeprefix("one of ").split(", ") if c != current)
    assert kind == STRING and descriptor["name"] == "llm_config", descriptor  # the one free string that is live
    from llm_planner.paths import config_dir

    return str(config_dir() / "llm.yaml")


def test_every_parameter_of_the_five_nodes_is_described_and_a_writable_one_takes_a_set(graph, probe):
    """``ros2 param describe`` of every parameter of the five nodes shows a description and what it
    accepts; every writable one, set to another valid value, reads back that value (then it is set
    back), except a switch to the openai backend without a server, which is refused with the reason."""
    nodes = (*NODES, "lifecycle_manager")
    names = probe(graph, *[["list", n] for n in nodes])["list"]
    assert {"watch_period_s", "node_names", "autostart"} <= set(names["lifecycle_manager"])
    found = probe(graph, *[["describe", n, names[n]] for n in nodes], *[["get", n, names[n]] for n in nodes])
    ops, expected, writable = [], [], 0
    for node in nodes:
        for d in found["describe"][node]:
            assert d["type"] != 0 and d["description"], (node, d)
            if d["name"] not in RCLPY_OWN:
                assert d["constraints"] or d["range"] or d["type"] == BOOL, (node, d)
            if d["read_only"] or d["name"] in RCLPY_OWN:
                continue
            writable += 1
            current = found["get"][node][d["name"]]
            new = _another_value(d, current)
            ops += [["set", node, d["name"], new], ["get", node, [d["name"]]], ["set", node, d["name"], current]]
            expected.append((node, d["name"], new, current))
    done = probe(graph, *ops)
    sets, gets = iter(done["set"]), iter(done["gets"])
    print(f"{writable} writable parameters set and set back on 5 nodes")
    for node, name, new, current in expected:
        changed, restored, (_, read_back) = next(sets), next(sets), next(gets)
        if name == "llm_backend" and new == "openai":
            assert not changed[3] and "llm_backend openai refused: the model server" in changed[4], changed
            assert "needs an API key: set OPENAI_API_KEY" in changed[4] or "not answering" in changed[4], changed
            continue
        assert changed[3], (node, name, new, changed[4])
        assert read_back[name] == new, (node, name, new, read_back)
        assert restored[3], (node, name, current, restored[4])
    assert probe(graph, *[["get", n, names[n]] for n in nodes])["get"] == found["get"]  # everything set back


def test_the_lifecycle_managers_parameters_are_checked_and_read_only_where_used_at_start(graph, probe):
    results = probe(graph, ["set", "lifecycle_manager", "watch_period_s", -1.0],
                     ["set", "lifecycle_manager", "node_names", ["planner"]],
                     ["set", "lifecycle_manager", "autostart", False],
                     ["set", "planner", "llm_backend", "openai"])["set"]
    (_, _, _, ok1, why1), (_, _, _, ok2, why2), (_, _, _, ok3, why3), (_, _, _, ok4, why4) = results
    assert not ok1 and "out of range" in why1.lower(), why1
    assert not ok2 and "read-only" in why2 and not ok3 and "read-only" in why3, (why2, why3)
    assert not ok4 and "llm_backend openai refused: the model server https://api.openai.com/v1" in why4, why4
