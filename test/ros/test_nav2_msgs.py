"""nav2_msgs/action/NavigateToPose is Nav2 Kilted's, field for field, so a robot with Nav2 Kilted talks
to this planner: the definition in interfaces/nav2_msgs is navigation2 1.4.2's file byte for byte,
its type hash (REP 2011, computed here by rosidl's own generator from that text) is the one below,
and the NavigateToPose this install imports (built from it where no nav2_msgs is installed) has it.

The expected hashes were computed with rosidl_generator_type_description 4.9.5 (ROS 2 Kilted) from
navigation2 tag 1.4.2 (commit 3478badb7e2802c9ff1f805fb5493dc1d0792a5a, the Kilted release),
nav2_msgs/action/NavigateToPose.action, git blob 14272c5663a7e48d7cfc8d665aef41ae145de392. Newer
releases add feedback fields (position_tracking_error, heading_tracking_error) and hash otherwise.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEFINITION = REPO / "interfaces" / "nav2_msgs" / "action" / "NavigateToPose.action"
#: git blob id of navigation2 1.4.2's nav2_msgs/action/NavigateToPose.action
UPSTREAM_BLOB = "14272c5663a7e48d7cfc8d665aef41ae145de392"
#: REP 2011 type hashes of that definition (see the module docstring)
ACTION_HASH = "RIHS01_a56dba8a3234a1215e610180dc703ae25bbf406dded8b54887891c9732857eab"
FEEDBACK_MESSAGE_HASH = "RIHS01_9d1f6fa2eb975ce733b419ac2e97b134d8ff92b6478b6559feed9a50bdfd82b3"
DEPENDENCIES = ("builtin_interfaces", "geometry_msgs", "std_msgs", "action_msgs", "unique_identifier_msgs",
                "service_msgs")


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_the_definition_is_navigation2_1_4_2s_file_byte_for_byte():
    assert git_blob_id(DEFINITION.read_bytes()) == UPSTREAM_BLOB


def test_rosidl_hashes_the_definition_as_nav2_kilted_does(tmp_path):
    from rosidl_adapter.action import convert_action_to_idl
    from rosidl_generator_type_description import generate_type_hash

    share = Path(sys.prefix) / "share"
    package = tmp_path / "nav2_msgs"
    (package / "action").mkdir(parents=True)
    (package / "action" / "NavigateToPose.action").write_bytes(DEFINITION.read_bytes())
    idl = convert_action_to_idl(package, "nav2_msgs", Path("action/NavigateToPose.action"), tmp_path / "idl")
    arguments = tmp_path / "arguments.json"
    arguments.write_text(json.dumps({
        "package_name": "nav2_msgs", "output_dir": str(tmp_path / "out"),
        "idl_tuples": [f"{tmp_path / 'idl'}:{idl.relative_to(tmp_path / 'idl')}"],
        "include_paths": [f"{name}:{share / name}" for name in DEPENDENCIES]}))
    (out,) = [Path(p) for p in generate_type_hash(str(arguments)) if str(p).endswith("NavigateToPose.json")]
    hashes = {h["type_name"]: h["hash_string"] for h in json.loads(out.read_text())["type_hashes"]}
    assert hashes["nav2_msgs/action/NavigateToPose"] == ACTION_HASH
    assert hashes["nav2_msgs/action/NavigateToPose_FeedbackMessage"] == FEEDBACK_MESSAGE_HASH


def test_the_installed_navigate_to_pose_has_that_hash_on_the_wire(ros_env):
    """What a peer sees: the type hash of the feedback topic of a NavigateToPose action server."""
    import rclpy
    from nav2_msgs.action import NavigateToPose
    from rclpy.action import ActionServer
    from rclpy.node import Node

    context = rclpy.Context()
    rclpy.init(context=context)
    try:
        node = Node("nav2_hash_check", context=context)
        ActionServer(node, NavigateToPose, "navigate_to_pose", lambda handle: NavigateToPose.Result())
        (info,) = node.get_publishers_info_by_topic("/navigate_to_pose/_action/feedback")
        assert info.topic_type == "nav2_msgs/action/NavigateToPose_FeedbackMessage"
        assert str(info.topic_type_hash) == FEEDBACK_MESSAGE_HASH
        node.destroy_node()
    finally:
        rclpy.shutdown(context=context)
