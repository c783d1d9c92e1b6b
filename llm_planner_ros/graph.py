"""Who is who in the ROS graph: the node serving a service or publishing a topic, and whether a
node is still there. Used to name a node that stopped answering."""
from __future__ import annotations

from typing import Any

from rclpy.node import Node

#: The name rclpy reports for an endpoint whose node DDS has not described yet (discovery under way).
UNKNOWN_NODE = "_NODE_NAME_UNKNOWN_"
UNKNOWN_NAMESPACE = "_NODE_NAMESPACE_UNKNOWN_"


def qualified(name: str, namespace: str) -> str:
    """``/ns/name`` of a node (``/name`` in the root namespace)."""
    return f"{namespace.rstrip('/')}/{name}"


def server_of(node: Node, service: str) -> str | None:
    """The fully qualified name of the node serving ``service`` (a resolved name), if any."""
    for name, namespace in node.get_node_names_and_namespaces():
        if name == UNKNOWN_NODE or namespace == UNKNOWN_NAMESPACE:
            continue
        try:
            served = node.get_service_names_and_types_by_node(name, namespace)
        except Exception:  # noqa: BLE001 - a node that vanished while we asked
            continue
        if any(s == service for s, _ in served):
            return qualified(name, namespace)
    return None


def publisher_of(node: Node, topic: str, gid: Any = None) -> str | None:
    """The fully qualified name of the node publishing ``topic`` (a resolved name): the publisher with
    ``gid`` (a received message's ``publisher_gid``) when given and known, else any one. None while
    DDS has not told which node it is (rclpy's placeholder name is never returned)."""
    infos = [i for i in node.get_publishers_info_by_topic(topic)
             if i.node_name != UNKNOWN_NODE and i.node_namespace != UNKNOWN_NAMESPACE]
    if gid is not None:
        wanted = _gid_bytes(gid)
        matching = [i for i in infos if wanted and _gid_bytes(i.endpoint_gid) == wanted]
        infos = matching or infos
    return qualified(infos[0].node_name, infos[0].node_namespace) if infos else None


def _gid_bytes(gid: Any) -> bytes:
    """The bytes of a GID as rclpy gives it (a message's ``{'data': [...]}`` or an endpoint's list)."""
    data = gid.get("data", b"") if isinstance(gid, dict) else gid
    try:
        return bytes(data or b"").rstrip(b"\0")
    except (TypeError, ValueError):
        return b""


def is_alive(node: Node, qualified_name: str) -> bool:
    return qualified_name in {qualified(n, ns) for n, ns in node.get_node_names_and_namespaces()}


def presence(node: Node, qualified_name: str | None, role: str = "serving it") -> str:
    """A sentence on whether a node is still in the graph, for error messages."""
    if qualified_name is None:
        return f"the node {role} is unknown (none was seen, or DDS had not named it yet): is that node running?"
    if is_alive(node, qualified_name):
        return f"'{qualified_name}' is still in the ROS graph but does not answer (busy, stopped or killed just now)"
    return f"'{qualified_name}' has left the ROS graph (it died or was stopped); restart it and send the task again"
