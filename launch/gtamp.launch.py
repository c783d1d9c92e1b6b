"""The G-TAMP node graph: simulator (GTampSim), perception (geometric predicates), executor (STaLM
in the loop) and planner (/plan_task), one process each.

With ROS 2 installed:   ros2 launch llm_planner gtamp.launch.py [params_file:=FILE]
Here (PyPI wheels):     llm-planner launch gtamp [--arg params_file=FILE]
The problem is the ``problem`` parameter of config/gtamp_nodes.yaml (P2 by default).
"""
import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _default_params_file() -> str:
    try:
        from ament_index_python.packages import get_package_share_directory

        share = get_package_share_directory("llm_planner")
    except Exception:  # run from a source checkout
        share = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(share, "config", "gtamp_nodes.yaml")


def generate_launch_description():
    params_file = LaunchConfiguration("params_file")
    nodes = [
        ("gtamp_simulator_node", "simulator"),
        ("gtamp_perception_node", "perception"),
        ("gtamp_executor_node", "executor"),
        ("gtamp_planner_node", "planner"),
    ]
    return LaunchDescription(
        [DeclareLaunchArgument("params_file", default_value=_default_params_file(),
                               description="ROS 2 parameter file for the G-TAMP nodes")]
        + [Node(package="llm_planner", executable=exe, name=name, parameters=[params_file], output="screen")
           for exe, name in nodes]
    )
