"""A client process for the system tests: sends N plan-only plan_task requests at once and prints
one JSON line with every answer (or null for a request that got none within the time limit).

    python plan_burst.py NAMESPACE TIMEOUT_S '["DIRECTIVE", ...]' [PLANNER]   (a JSON list: any text, even NUL;
                                                                     PLANNER: empty = the node's default)
"""
from __future__ import annotations

import json
import sys
import time

import rclpy
from rclpy.node import Node

from llm_planner_ros import client_settings
from llm_planner_ros.conversions import plan_result_from_msg
from llm_planner_ros.environment import apply_ros_environment
from llm_planner_ros.node_utils import SERVICE_QOS
from llm_planner_ros.task_results import to_json
from llm_planner_interfaces.srv import PlanTask


def main() -> int:
    namespace, timeout_s, directives = sys.argv[1], float(sys.argv[2]), json.loads(sys.argv[3])
    planner = sys.argv[4] if len(sys.argv) > 4 else ""
    apply_ros_environment()
    rclpy.init()
    node = Node("plan_burst", namespace=namespace)
    client = node.create_client(PlanTask, "plan_task", qos_profile=SERVICE_QOS)
    if not client.wait_for_service(timeout_sec=60.0):
        print(json.dumps({"error": "plan_task never appeared"}))
        return 1
    deadline = time.monotonic() + client_settings().discovery_settle_s
    while time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    futures = [client.call_async(PlanTask.Request(directive=d, planner=planner)) for d in directives]
    deadline = time.monotonic() + timeout_s
    while not all(f.done() for f in futures) and time.monotonic() < deadline:
        rclpy.spin_once(node, timeout_sec=0.1)
    print(json.dumps([to_json(plan_result_from_msg(f.result())) if f.done() else None for f in futures]))
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
