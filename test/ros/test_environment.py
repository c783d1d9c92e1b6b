"""The process environment of the ROS processes and the DDS profiles it points Fast DDS at."""
from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from llm_planner.paths import config_dir
from llm_planner_ros.environment import random_domain_id, ros_environment

NS = {"dds": "http://www.eprosima.com"}
PROFILES = ("fastdds_localhost.xml", "fastdds_multihost.xml")

# A service answered once in a process of its own, with the environment the nodes get.
SERVE_AND_CALL = """
import rclpy
from lifecycle_msgs.srv import GetState
from rclpy.node import Node
rclpy.init()
node = Node("profile_check")
node.create_service(GetState, "profile_check/get_state", lambda request, response: response)
client = node.create_client(GetState, "profile_check/get_state")
assert client.wait_for_service(timeout_sec=30.0)
future = client.call_async(GetState.Request())
rclpy.spin_until_future_complete(node, future, timeout_sec=30.0)
print("answered" if future.done() else "no answer")
"""


@pytest.mark.parametrize("profile", PROFILES)
def test_a_service_answer_waits_seconds_not_100_ms_for_its_client_to_be_matched(profile):
    """rmw_fastrtps drops an answer whose client reader is not matched within the response writer's
    max_blocking_time (100 ms by default): the first answer of a restarted node was lost that way."""
    root = ET.parse(config_dir() / profile).getroot()
    writer = root.find("dds:profiles/dds:data_writer[@profile_name='service']", NS)
    assert writer is not None, f"{profile} has no data_writer profile named 'service'"
    wait = writer.find("dds:qos/dds:reliability/dds:max_blocking_time", NS)
    seconds = float(wait.findtext("dds:sec", "0", NS)) + float(wait.findtext("dds:nanosec", "0", NS)) * 1e-9
    assert seconds >= 1.0


def test_fast_dds_loads_the_localhost_profile_without_an_error(tmp_path):
    env = ros_environment({k: v for k, v in ros_environment().items() if k != "FASTDDS_DEFAULT_PROFILES_FILE"},
                          domain_id=random_domain_id(), log_dir=tmp_path)
    assert env["FASTDDS_DEFAULT_PROFILES_FILE"] == str(config_dir() / "fastdds_localhost.xml")
    proc = subprocess.run([sys.executable, "-c", SERVE_AND_CALL], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().endswith("answered")
    assert "XMLPARSER" not in proc.stderr and "Error" not in proc.stderr, proc.stderr[-2000:]


# A node started in a process of its own, listing its threads (Linux: /proc/self/task/*/comm).
LIST_THREADS = """
import json
import pathlib
import rclpy
from rclpy.node import Node
rclpy.init()
node = Node("profile_threads")
print(json.dumps(sorted(path.read_text().strip() for path in pathlib.Path("/proc/self/task").glob("*/comm"))))
"""


def _thread_names(profile, tmp_path) -> list[str]:
    env = ros_environment({**ros_environment(), "FASTDDS_DEFAULT_PROFILES_FILE": str(profile)},
                          domain_id=random_domain_id(), log_dir=tmp_path)
    proc = subprocess.run([sys.executable, "-c", LIST_THREADS], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("profile", PROFILES)
def test_type_propagation_is_off_in_every_profile(profile):
    """Fast DDS 3.2's type lookup reply thread crashed a starting node; ROS 2 does not need the service."""
    root = ET.parse(config_dir() / profile).getroot()
    values = [prop.findtext("dds:value", "", NS) for prop in root.iterfind(
        "dds:profiles/dds:participant/dds:rtps/dds:propertiesPolicy/dds:properties/dds:property", NS)
        if prop.findtext("dds:name", "", NS) == "fastdds.type_propagation"]
    assert values == ["disabled"], f"{profile}: fastdds.type_propagation is {values}"


def test_a_node_with_the_localhost_profile_starts_no_type_lookup_threads(tmp_path):
    """The property takes effect: no dds.tls.* thread, which the same profile without it starts."""
    profile = config_dir() / "fastdds_localhost.xml"
    assert not [name for name in _thread_names(profile, tmp_path) if name.startswith("dds.tls")]
    root = ET.parse(profile).getroot()
    rtps = root.find("dds:profiles/dds:participant/dds:rtps", NS)
    rtps.remove(rtps.find("dds:propertiesPolicy", NS))
    without = tmp_path / "without_property.xml"
    ET.register_namespace("", NS["dds"])
    ET.ElementTree(root).write(without)
    assert [name for name in _thread_names(without, tmp_path) if name.startswith("dds.tls")]
