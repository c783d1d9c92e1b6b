"""Lifecycle manager: brings the graph's managed nodes to active in order, as nav2_lifecycle_manager does.

Parameters (section ``/**/lifecycle_manager`` of config/llm_planner.yaml and config/gtamp_nodes.yaml,
declared with descriptors: :data:`llm_planner.config.MANAGER_PARAMS`): ``node_names`` (in start
order) and ``autostart`` are read-only (used at start); ``transition_timeout_s``,
``state_timeout_s``, ``service_wait_s``, ``watch_period_s`` and ``shutdown_timeout_s`` are read at
each use, so a change applies at once. With ``autostart`` it configures every node in order, then activates every
node in order, through each node's ``<node>/change_state`` service (relative names: the manager
runs in the graph's namespace). A node that leaves the graph and comes back (restarted after a
crash) is brought up again; a node a user deactivated or cleaned up is left as it is. A new process
is told from an old one by the DDS identity (GID) of its ``<node>/transition_event`` publisher, so a
restart is seen even within the DDS lease, while the dead process is still listed. A restarted node
stays on the manager's list until it is active: one that does not answer (still starting, or its
answer lost while DDS matches the new process's endpoints) is asked again at the next watch period;
one whose transition it refuses is left to its log.
Both launchers start it from launch/llm_planner.launch.py, so ``ros2 launch`` and ``llm-planner
launch`` bring the graph up the same way. ``ros2 lifecycle set /<node> deactivate|activate``
still works on each node by hand.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from lifecycle_msgs.msg import State, Transition
from lifecycle_msgs.srv import ChangeState
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.client import Client
from rclpy.node import Node

from llm_planner.config import SIMULATED_ROBOT
from llm_planner_ros.node_states import LifecycleStates
from llm_planner_ros.node_utils import run_node, wait_future
from llm_planner_ros.parameters import declare_manager_params

DONE, REFUSED, UNANSWERED = "done", "refused", "unanswered"  # how a transition the manager asked for ended


class LifecycleManager(Node):
    def __init__(self) -> None:
        super().__init__("lifecycle_manager")
        self.params = declare_manager_params(self)
        names = self.managed()
        self.states = LifecycleStates(self, names)  # the get_state clients the executor uses too
        group = ReentrantCallbackGroup()
        self.changes: dict[str, Client[Any, Any]] = {
            name: self.create_client(ChangeState, f"{name}/change_state", callback_group=group) for name in names}
        self.brought_up: set[str] = set()
        self.processes: dict[str, set[bytes]] = {}  # per node: the GIDs of its processes seen so far
        self.restarted: set[str] = set()  # nodes with a new process (or a first bring-up that failed) not up yet
        self.stopping = threading.Event()
        if self.params["autostart"]:
            threading.Thread(target=self.manage, name="lifecycle-manager", daemon=True).start()
        else:
            self.get_logger().info("autostart is false: the nodes wait for `ros2 lifecycle set /<node> configure`")

    # ------------------------------------------------------------------ transitions
    def state(self, name: str) -> int | None:
        """The lifecycle state id of ``name``; None when it is not running or does not answer within
        ``state_timeout_s``."""
        return self.states.query(name, self.params["state_timeout_s"]).id

    def transition(self, name: str, transition: int, label: str) -> str:
        """Ask ``name`` for one transition: DONE, REFUSED (the node said no) or UNANSWERED."""
        change = self.changes[name]
        if not change.wait_for_service(timeout_sec=self.params["service_wait_s"]):
            self.get_logger().error(f"{name}: no {change.srv_name} service after {self.params['service_wait_s']:g} s "
                                    "(service_wait_s); is the node running?")
            return UNANSWERED
        started = time.monotonic()
        response = wait_future(change.call_async(ChangeState.Request(transition=Transition(id=transition))),
                               self.params["transition_timeout_s"])
        if response is None or not response.success:
            why = (f"no answer within {self.params['transition_timeout_s']:g} s (transition_timeout_s)"
                   if response is None else "refused (see the node's log)")
            self.get_logger().error(f"{name}: {label} {why}")
            return UNANSWERED if response is None else REFUSED
        self.get_logger().info(f"{name}: {label}d in {time.monotonic() - started:.1f} s")
        return DONE

    def bring_up(self, names: list[str]) -> str:
        """Configure every node of ``names`` in order, then activate them in order: DONE, or how the
        first transition that did not happen ended."""
        for name in names:
            if self.state(name) in (State.PRIMARY_STATE_UNCONFIGURED, None):
                if (outcome := self.transition(name, Transition.TRANSITION_CONFIGURE, "configure")) != DONE:
                    return outcome
        for name in names:
            if self.state(name) == State.PRIMARY_STATE_INACTIVE:
                if (outcome := self.transition(name, Transition.TRANSITION_ACTIVATE, "activate")) != DONE:
                    return outcome
            self.brought_up.add(name)
        return DONE

    def process_ids(self, name: str) -> set[bytes]:
        """The GIDs of the ``<name>/transition_event`` publishers: one per process of that node in the graph."""
        topic = self.resolve_topic_name(f"{name}/transition_event")
        return {bytes(info.endpoint_gid) for info in self.get_publishers_info_by_topic(topic)}

    def watch(self, name: str) -> None:
        """Bring ``name`` up if a process of it started since the last look and is not active yet."""
        now = self.process_ids(name)
        if now - self.processes.get(name, set()):
            self.restarted.add(name)
        self.processes[name] = self.processes.get(name, set()) | now
        if name not in self.restarted:
            return
        state = self.state(name)
        if state is None:
            return  # starting, its answer lost, or the old process's entry: ask again at the next period
        if state in (State.PRIMARY_STATE_UNCONFIGURED, State.PRIMARY_STATE_INACTIVE):
            self.get_logger().info(f"{name} (re)started: bringing it up")
            if self.bring_up([name]) == UNANSWERED:
                return  # ask again at the next period
        self.restarted.discard(name)

    def managed(self) -> list[str]:
        """``node_names`` in order, without our simulated robot's nodes when ``robot`` is external."""
        external = self.params["robot"] == "external"
        return [n for n in self.params["node_names"] if not (external and n in SIMULATED_ROBOT)]

    def manage(self) -> None:
        names = self.managed()
        self.processes = {name: self.process_ids(name) for name in names}
        if self.bring_up(names) == DONE:
            self.get_logger().info(f"every node is active: {', '.join(names)}")
        else:  # the watch brings up, one by one, the nodes a transition did not reach
            self.restarted.update(name for name in names if name not in self.brought_up)
        while not self.stopping.wait(self.params["watch_period_s"]):  # read each time: a change applies at once
            for name in names:
                self.watch(name)

    def close(self) -> None:
        self.stopping.set()


def main() -> int:
    return run_node(LifecycleManager, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
