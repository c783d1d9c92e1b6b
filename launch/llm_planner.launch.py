"""The llm_planner node graph: simulator, perception, planner and executor, one process each.

With ROS 2 installed:   ros2 launch llm_planner llm_planner.launch.py [params_file:=FILE]
Here (PyPI wheels):     llm-planner launch [llm_planner] [--arg params_file=FILE]
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
    return os.path.join(share, "config", "llm_planner.yaml")


def generate_launch_description():
    params_file = LaunchConfiguration("params_file")
    nodes = [
        ("simulator_node", "simulator"),
        ("perception_node", "perception"),
        ("executor_node", "executor"),
        ("planner_node", "planner"),
    ]
    return LaunchDescription(
        [DeclareLaunchArgument("params_file", default_value=_default_params_file(),
                               description="ROS 2 parameter file for all llm_planner nodes")]
        + [Node(package="llm_planner", executable=exe, name=name, parameters=[params_file], output="screen")
           for exe, name in nodes]
    )
