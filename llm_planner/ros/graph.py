"""Who is who in the ROS graph: the node serving a service or publishing a topic, and whether a
node is still there. Used to name a node that stopped answering."""
from __future__ import annotations

from rclpy.node import Node


def qualified(name: str, namespace: str) -> str:
    """``/ns/name`` of a node (``/name`` in the root namespace)."""
    return f"{namespace.rstrip('/')}/{name}"


def server_of(node: Node, service: str) -> str | None:
    """The fully qualified name of the node serving ``service`` (a resolved name), if any."""
    for name, namespace in node.get_node_names_and_namespaces():
        try:
            served = node.get_service_names_and_types_by_node(name, namespace)
        except Exception:  # noqa: BLE001 - a node that vanished while we asked
            continue
        if any(s == service for s, _ in served):
            return qualified(name, namespace)
    return None


def publisher_of(node: Node, topic: str) -> str | None:
    """The fully qualified name of a node publishing ``topic`` (a resolved name), if any."""
    infos = node.get_publishers_info_by_topic(topic)
    return qualified(infos[0].node_name, infos[0].node_namespace) if infos else None


def is_alive(node: Node, qualified_name: str) -> bool:
    return qualified_name in {qualified(n, ns) for n, ns in node.get_node_names_and_namespaces()}


def presence(node: Node, qualified_name: str | None, role: str = "serving it") -> str:
    """A sentence on whether a node is still in the graph, for error messages."""
    if qualified_name is None:
        return f"no node was ever seen {role}: is that node running?"
    if is_alive(node, qualified_name):
        return f"'{qualified_name}' is still in the ROS graph but does not answer (busy, stopped or killed just now)"
    return f"'{qualified_name}' has left the ROS graph (it died or was stopped); restart it and send the task again"
