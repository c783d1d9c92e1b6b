"""Perception stub node: predicates from the simulator's geometry, never from its bookkeeping.

Subscribes ``/sim/geometry``; publishes, with the geometry's stamp:
- ``/perception/state``: the robot's partial observation (LLM-MCTS seed, App. A.5): IN_ROOM, CLOSE,
  HOLDING, OPEN/CLOSED of the room's containers, INSIDE/ON of what is visible, with object poses;
- ``/perception/full_state``: the privileged full view (``full_observation=true``), used only by the
  fully observable strategies and to judge whether a goal holds, as a simulator's success check would.
"""
from __future__ import annotations

from rclpy.node import Node

from llm_planner_interfaces.msg import GeometrySnapshot, PerceivedState
from llm_planner.ros.conversions import body_to_msg, geometry_from_msg, predicates_to_msgs, state_predicates
from llm_planner.ros.node_utils import declare_params, run_node
from llm_planner.ros.node_utils import GEOMETRY_QOS
from llm_planner.world.scene import load_scene
from llm_planner.world.symbolic import Household


class PerceptionNode(Node):
    def __init__(self) -> None:
        super().__init__("perception")
        params = declare_params(self, ("scene",))
        self.scene = load_scene(params["scene"])
        self.household = Household(self.scene)
        self.state_pub = self.create_publisher(PerceivedState, "/perception/state", GEOMETRY_QOS)
        self.full_pub = self.create_publisher(PerceivedState, "/perception/full_state", GEOMETRY_QOS)
        self.create_subscription(GeometrySnapshot, "/sim/geometry", self.on_geometry, GEOMETRY_QOS)
        self.get_logger().info(f"perceiving scene '{self.scene.name}' from /sim/geometry")

    def on_geometry(self, msg: GeometrySnapshot) -> None:
        from llm_planner.sim.perception import perceive, perceive_full, predicates

        geometry = geometry_from_msg(msg)
        observation = perceive(self.scene, geometry)
        visible = {o for _, o, _ in observation.relations} | ({observation.holding} if observation.holding else set())
        partial = PerceivedState(header=msg.header, scene=msg.scene, robot_room=observation.room,
                                 full_observation=False, predicates=predicates_to_msgs(predicates(observation)),
                                 objects=[body_to_msg(b) for b in geometry.bodies if b.name in visible])
        self.state_pub.publish(partial)
        state = perceive_full(self.scene, geometry, self.household)
        full = PerceivedState(header=msg.header, scene=msg.scene, robot_room=state.room, full_observation=True,
                              predicates=predicates_to_msgs(state_predicates(self.household, state)),
                              objects=[body_to_msg(b) for b in geometry.bodies])
        self.full_pub.publish(full)


def main() -> int:
    return run_node(PerceptionNode, threads=1)


if __name__ == "__main__":
    raise SystemExit(main())
