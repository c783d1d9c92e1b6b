"""Lifecycle manager: brings the graph's managed nodes to active in order, as nav2_lifecycle_manager does.

Parameters (section ``/**/lifecycle_manager`` of config/llm_planner.yaml and config/gtamp_nodes.yaml):
``node_names`` (in start order), ``autostart``, ``transition_timeout_s``, ``service_wait_s``,
``watch_period_s``. With ``autostart`` it configures every node in order, then activates every
node in order, through each node's ``<node>/change_state`` service (relative names: the manager
runs in the graph's namespace). A node that leaves the graph and comes back (restarted after a
crash) is brought up again; a node a user deactivated or cleaned up is left as it is.
Both launchers start it from launch/llm_planner.launch.py, so ``ros2 launch`` and ``llm-planner
launch`` bring the graph up the same way. ``ros2 lifecycle set /<node> deactivate|activate``
still works on each node by hand.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState, GetState
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.node import Node

from llm_planner.config import default_params_file, read_params_file
from llm_planner.ros.node_utils import run_node, wait_future

MANAGER_SECTION = "/**/lifecycle_manager"


def manager_defaults() -> dict[str, Any]:
    """The manager's parameters in the shipped parameter file (its defaults)."""
    import yaml

    data = yaml.safe_load(default_params_file().read_text()) or {}
    return dict(data[MANAGER_SECTION]["ros__parameters"])


class LifecycleManager(Node):
    def __init__(self) -> None:
        super().__init__("lifecycle_manager")
        defaults = manager_defaults()
        self.params = {name: self.declare_parameter(name, value).value for name, value in defaults.items()}
        self.params["shutdown_timeout_s"] = read_params_file()["shutdown_timeout_s"]
        group = ReentrantCallbackGroup()
        self.clients_: dict[str, tuple[Client[Any, Any], Client[Any, Any]]] = {
            name: (self.create_client(GetState, f"{name}/get_state", callback_group=group),
                   self.create_client(ChangeState, f"{name}/change_state", callback_group=group))
            for name in self.params["node_names"]}
        self.brought_up: set[str] = set()
        self.present: dict[str, bool] = {}
        self.stopping = threading.Event()
        if self.params["autostart"]:
            threading.Thread(target=self.manage, name="lifecycle-manager", daemon=True).start()
        else:
            self.get_logger().info("autostart is false: the nodes wait for `ros2 lifecycle set /<node> configure`")

    # ------------------------------------------------------------------ transitions
    def state(self, name: str) -> int | None:
        get, _ = self.clients_[name]
        if not get.service_is_ready():
            return None
        response = wait_future(get.call_async(GetState.Request()), self.params["transition_timeout_s"])
        return None if response is None else response.current_state.id

    def transition(self, name: str, transition: int, label: str) -> bool:
        _, change = self.clients_[name]
        if not change.wait_for_service(timeout_sec=self.params["service_wait_s"]):
            self.get_logger().error(f"{name}: no {change.srv_name} service after {self.params['service_wait_s']:g} s "
                                    "(service_wait_s); is the node running?")
            return False
        started = time.monotonic()
        response = wait_future(change.call_async(ChangeState.Request(transition=Transition(id=transition))),
                               self.params["transition_timeout_s"])
        if response is None or not response.success:
            why = (f"no answer within {self.params['transition_timeout_s']:g} s (transition_timeout_s)"
                   if response is None else "refused (see the node's log)")
            self.get_logger().error(f"{name}: {label} {why}")
            return False
        self.get_logger().info(f"{name}: {label}d in {time.monotonic() - started:.1f} s")
        return True

    def bring_up(self, names: list[str]) -> bool:
        """Configure every node of ``names`` in order, then activate them in order."""
        for name in names:
            if self.state(name) == State.PRIMARY_STATE_UNCONFIGURED or self.state(name) is None:
                if not self.transition(name, Transition.TRANSITION_CONFIGURE, "configure"):
                    return False
        for name in names:
            if self.state(name) == State.PRIMARY_STATE_INACTIVE:
                if not self.transition(name, Transition.TRANSITION_ACTIVATE, "activate"):
                    return False
            self.brought_up.add(name)
        return True

    def manage(self) -> None:
        names = list(self.params["node_names"])
        if self.bring_up(names):
            self.get_logger().info(f"every node is active: {', '.join(names)}")
        self.present = {name: self.clients_[name][0].service_is_ready() for name in names}
        while not self.stopping.wait(self.params["watch_period_s"]):
            for name in names:
                here = self.clients_[name][0].service_is_ready()
                if here and not self.present.get(name, False) and self.state(name) == State.PRIMARY_STATE_UNCONFIGURED:
                    self.get_logger().info(f"{name} (re)started: bringing it up")
                    self.bring_up([name])
                self.present[name] = here

    def close(self) -> None:
        self.stopping.set()


def main() -> int:
    return run_node(LifecycleManager, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
