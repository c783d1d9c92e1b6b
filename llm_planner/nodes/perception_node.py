"""Perception node: predicates from the simulator's geometry, never from its bookkeeping.

Subscribes ``sim/geometry``; publishes, with the geometry's stamp, what the domain's perceiver
computes: for the household, ``perception/state`` (the robot's partial observation) and
``perception/full_state`` (the privileged full view, for fully observable planners and the goal
check); for G-TAMP, ``perception/state`` with the geometric predicates (AtPosition,
PickOccludedBy, PlaceOccludedBy, ...) and the object poses.
"""
from __future__ import annotations

from rclpy.node import Node

from llm_planner.errors import LlmPlannerError
from llm_planner.ros.conversions import geometry_from_msg, percept_to_msg
from llm_planner.ros.node_utils import GEOMETRY_QOS, declare_params, make_domain, run_node
from llm_planner_interfaces.msg import GeometrySnapshot, PerceivedState


class PerceptionNode(Node):
    def __init__(self) -> None:
        super().__init__("perception")
        domain = make_domain(declare_params(self))
        self.perceiver = domain.make_perceiver()
        self.pubs = {t: self.create_publisher(PerceivedState, f"perception/{t}", GEOMETRY_QOS)
                     for t in domain.perception_topics}
        self.create_subscription(GeometrySnapshot, "sim/geometry", self.on_geometry, GEOMETRY_QOS)
        self.get_logger().info(f"perceiving {domain.world_name} from sim/geometry")

    def on_geometry(self, msg: GeometrySnapshot) -> None:
        try:
            percepts = self.perceiver.perceive(geometry_from_msg(msg))
        except (LlmPlannerError, KeyError, ValueError) as exc:
            self.get_logger().warning(f"cannot perceive this geometry: {exc}")
            return
        for topic, percept in percepts.items():
            self.pubs[topic].publish(percept_to_msg(percept, msg.header))

    def close(self) -> None:
        self.perceiver.close()


def main() -> int:
    return run_node(PerceptionNode, threads=1)


if __name__ == "__main__":
    raise SystemExit(main())
