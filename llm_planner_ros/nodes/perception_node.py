"""Perception node: predicates from the simulator's geometry, never from its bookkeeping.

Subscribes ``sim/geometry``; publishes, with the geometry's stamp, what the domain's perceiver
computes: for the household, ``perception/state`` (the robot's partial observation) and
``perception/full_state`` (the privileged full view, for fully observable planners and the goal
check); for G-TAMP, ``perception/state`` with the geometric predicates (AtPosition,
PickOccludedBy, PlaceOccludedBy, ...) and the object poses.
"""
from __future__ import annotations

import threading
import time
from typing import Any

from llm_planner_interfaces.msg import GeometrySnapshot, PerceivedState
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup

from llm_planner.errors import LlmPlannerError
from llm_planner_ros.conversions import geometry_from_msg, percept_to_msg
from llm_planner_ros.managed_node import ERROR, OK, WARN, ManagedNode
from llm_planner_ros.node_utils import GEOMETRY_QOS, run_node


class PerceptionNode(ManagedNode):
    """Lifecycle: configure builds the perceiver and its publishers, activate perceives every
    geometry message, deactivate ignores them, cleanup closes the perceiver.

    Geometry is perceived in a callback group of its own, so ``get_state`` and the transitions
    (the node's default group) are answered while a message is perceived: a G-TAMP scene's first
    occlusion predicates took 3.1 s on P1 and 7.9 s on P3 on a quiet 2-core machine, longer than
    the executor's ``lifecycle_wait_s``. A lock keeps cleanup from closing the perceiver under a
    perception."""

    def __init__(self) -> None:
        super().__init__("perception")
        self.perceiver = None
        self.pubs: dict = {}
        self.last_geometry = 0.0  # time.monotonic() of the last geometry received and perceived
        self.last_published = 0.0
        self.perceiving = threading.Lock()  # held while a geometry message is perceived and by release()
        self.create_subscription(GeometrySnapshot, "sim/geometry", self.on_geometry, GEOMETRY_QOS,
                                 callback_group=MutuallyExclusiveCallbackGroup())

    def configure(self) -> None:
        if self.perceiver is None:
            self.perceiver = self.domain.make_perceiver()
        if not self.pubs:
            self.pubs = {t: self.create_publisher(PerceivedState, f"perception/{t}", GEOMETRY_QOS)
                         for t in self.domain.perception_topics + self.domain.privileged_topics}

    def activate(self) -> None:
        self.get_logger().info(f"perceiving {self.domain.world_name} from sim/geometry")

    def release(self) -> None:
        with self.perceiving:
            if self.perceiver is not None:
                self.perceiver.close()
                self.perceiver = None

    def on_geometry(self, msg: GeometrySnapshot) -> None:
        with self.perceiving:
            if not self.active or self.perceiver is None:
                return
            self.last_geometry = time.monotonic()
            try:
                percepts = self.perceiver.perceive(geometry_from_msg(msg))
            except (LlmPlannerError, KeyError, ValueError) as exc:
                self.get_logger().warning(f"cannot perceive this geometry: {exc}")
                return
        for topic, percept in percepts.items():
            self.pubs[topic].publish(percept_to_msg(percept, msg.header))
        self.last_published = time.monotonic()

    def diagnose(self) -> tuple[bytes, str, dict[str, Any], list]:
        now, stale = time.monotonic(), self.params["perception_stale_s"]
        if not self.last_published:
            return WARN, "no perception published yet (is the simulator active?)", {}, []
        age, geometry_age = now - self.last_published, now - self.last_geometry
        values = {"last perception age s": f"{age:.1f}", "last geometry age s": f"{geometry_age:.1f}",
                  "perception_stale_s": stale}
        level = OK if age <= stale else WARN if age <= 3 * stale else ERROR
        message = f"last perception {age:.1f} s ago" + ("" if level == OK else " (stale: is the simulator active?)")
        return level, message, values, []

    def close(self) -> None:
        self.release()


def main() -> int:
    return run_node(PerceptionNode, threads=2)


if __name__ == "__main__":
    raise SystemExit(main())
