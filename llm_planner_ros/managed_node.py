"""What the four nodes share as ROS 2 managed (lifecycle) nodes, and their ``/diagnostics``.

A :class:`ManagedNode` is an ``rclpy.lifecycle.LifecycleNode`` with the parameter schema declared
(:mod:`llm_planner_ros.parameters`). Its services and action servers exist from the start, so a
caller of an inactive node is told so ("the planner is inactive; activate it with ...") instead of
waiting for a service that never comes:

- start: the parameters are declared and the domain adapter is built (the scene or problem read:
  an invalid one stops the node, naming it);
- configure: the node's own ``configure`` builds what it serves with (the simulator's PyBullet
  world, the perceiver, the robot and executor links) and reaches the model server;
- activate: the node serves; deactivate: it takes no new task (a running one is canceled before
  its next skill); cleanup and shutdown release what configure built.

The lifecycle manager (:mod:`llm_planner_ros.nodes.lifecycle_manager_node`) brings the graph to active
in order. Every node publishes on ``/diagnostics`` at ``diagnostics_rate_hz`` one status named by
its fully qualified name (OK, WARN, ERROR as rqt_robot_monitor reads them), plus what its
``diagnose`` adds.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup
from rclpy.lifecycle import LifecycleNode, LifecycleState, TransitionCallbackReturn

from llm_planner.errors import LlmPlannerError
from llm_planner.llm.reachability import openai_unusable
from llm_planner_ros.node_states import fix
from llm_planner_ros.node_utils import make_domain
from llm_planner_ros.parameters import declare_params

OK, WARN, ERROR = DiagnosticStatus.OK, DiagnosticStatus.WARN, DiagnosticStatus.ERROR  # bytes, as the message
DIAGNOSTICS_TOPIC = "/diagnostics"  # absolute, as diagnostic aggregators and rqt_robot_monitor expect


def status(name: str, level: bytes, message: str, values: dict[str, Any] | None = None) -> DiagnosticStatus:
    """One DiagnosticStatus (``level`` OK, WARN or ERROR) with its key-values as text."""
    return DiagnosticStatus(level=level, name=name, message=message, hardware_id="llm_planner",
                            values=[KeyValue(key=k, value=str(v)) for k, v in (values or {}).items()])


class ManagedNode(LifecycleNode):
    """A lifecycle node of the graph (see the module docstring); subclasses fill the hooks."""

    def __init__(self, role: str) -> None:
        super().__init__(role)
        self.role = role
        self.params = declare_params(self, role, self._on_parameter, self._vet)
        # the scene or problem is read now, so an invalid one stops the node at start, naming it;
        # configure builds what is heavy (the PyBullet world, the perceiver, the model server's client)
        self.domain: Any = make_domain(self.params)
        self.active = False
        self.configured = False
        self.state_label = "unconfigured"
        self._diag_pub = self.create_publisher(DiagnosticArray, DIAGNOSTICS_TOPIC, 10)
        self.create_timer(1.0 / self.params["diagnostics_rate_hz"], self._publish_diagnostics,
                          callback_group=MutuallyExclusiveCallbackGroup())

    # ----------------------------------------------------------------- what callers are told
    def inactive_message(self) -> str:
        """What a caller of a node that is not active is told: its state and the fix that works from
        there (:func:`llm_planner_ros.node_states.fix`)."""
        name = self.get_fully_qualified_name()
        return f"the {self.role} is {self.state_label}; {fix(name, self.state_label)}"

    # ----------------------------------------------------------------- transitions
    def on_configure(self, state: LifecycleState) -> TransitionCallbackReturn:
        try:
            self.configure()
        except LlmPlannerError as exc:
            self.get_logger().error(f"configure failed: {exc}")
            return TransitionCallbackReturn.FAILURE
        self.configured, self.state_label = True, "inactive"
        self.get_logger().info(f"configured ({self.domain.world_name})")
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.activate()
        self.active, self.state_label = True, "active"
        self.get_logger().info("active")
        return super().on_activate(state)

    def on_deactivate(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.active, self.state_label = False, "inactive"
        self.deactivate()
        self.get_logger().info("inactive: taking no new task")
        return super().on_deactivate(state)

    def on_cleanup(self, state: LifecycleState) -> TransitionCallbackReturn:
        self.release()
        self.configured, self.state_label = False, "unconfigured"
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state: LifecycleState) -> TransitionCallbackReturn:
        if self.active:
            self.active = False
            self.deactivate()
        if self.configured:
            self.release()
        self.configured, self.state_label = False, "finalized"
        return TransitionCallbackReturn.SUCCESS

    # ----------------------------------------------------------------- hooks
    def configure(self) -> None:
        """Build what the node serves with (self.domain exists); LlmPlannerError refuses the transition."""

    def activate(self) -> None:
        """Start serving."""

    def deactivate(self) -> None:
        """Stop taking tasks; cancel a running one safely."""

    def release(self) -> None:
        """Release what configure built."""

    def on_parameter(self, name: str, value: Any) -> None:
        """A parameter changed at run time (already in self.params, which the domain reads)."""

    def diagnose(self) -> tuple[bytes, str, dict[str, Any], list[DiagnosticStatus]]:
        """(level, message, key-values) of this node while active, and any further statuses."""
        return OK, "active", {}, []

    # ----------------------------------------------------------------- internals
    def _on_parameter(self, name: str, value: Any) -> None:
        if name in ("llm_backend", "llm_config", "llm_fallback") and self.domain is not None:
            self.domain.reset_language_model()
        self.on_parameter(name, value)

    def _vet(self, changes: Mapping[str, Any]) -> str:
        """Why a set of parameter changes is refused here, or "": a switch to the openai backend (or
        another llm_config while on it) needs a server that answers now (llm_probe_timeout_s)."""
        if not {"llm_backend", "llm_config"} & set(changes):
            return ""
        settings = {**self.params, **changes}
        if settings["llm_backend"] != "openai":
            return ""
        reason = openai_unusable(settings["llm_config"], settings["llm_probe_timeout_s"])
        return f"llm_backend openai refused: {reason}" if reason else ""

    def _publish_diagnostics(self) -> None:
        name = self.get_fully_qualified_name()
        extra: list[DiagnosticStatus] = []
        try:
            if self.active:
                level, message, values, extra = self.diagnose()
            else:
                level, message, values = WARN, self.inactive_message(), {}
        except Exception as exc:  # noqa: BLE001 - a report must never take the node down
            level, message, values = ERROR, f"diagnostics failed: {type(exc).__name__}: {exc}", {}
        values = {"lifecycle state": self.state_label, **values}
        msg = DiagnosticArray(status=[status(name, level, message, values), *extra])
        msg.header.stamp = self.get_clock().now().to_msg()
        self._diag_pub.publish(msg)
