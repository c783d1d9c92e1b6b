"""Half of one robot's node graph for two hosts (README "The graph across hosts", issue 24):
simulator and perception (the simulation host). The other half is launch/robot_planner_host.launch.py; both hosts use
config/fastdds_multihost.xml (unicast peers, no multicast) with the same ROS_DOMAIN_ID.

With ROS 2 installed:   ros2 launch llm_planner robot_sim_host.launch.py [params_file:=FILE] [namespace:=robot1]
Here (PyPI wheels):     llm-planner launch robot_sim_host [params_file:=FILE] [namespace:=robot1]
"""
import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node

ROLES = ("simulator", "perception")
MANAGER = False


def _default_params_file() -> str:
    try:
        from ament_index_python.packages import get_package_share_directory

        share = get_package_share_directory("llm_planner")
    except Exception:  # run from a source checkout
        share = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(share, "config", "llm_planner.yaml")


def generate_launch_description():
    params_file = LaunchConfiguration("params_file")
    namespace = LaunchConfiguration("namespace")
    nodes = [Node(package="llm_planner", executable=f"{role}_node", name=role, namespace=namespace,
                  parameters=[params_file], output="screen") for role in ROLES]
    if MANAGER:  # node_names of the parameter file: all four, two of them on the other host
        nodes.append(Node(package="llm_planner", executable="lifecycle_manager_node", name="lifecycle_manager",
                          namespace=namespace, parameters=[params_file], output="screen"))
    return LaunchDescription(
        [DeclareLaunchArgument("params_file", default_value=_default_params_file(),
                               description="ROS 2 parameter file for all llm_planner nodes (the same on both hosts)"),
         DeclareLaunchArgument("namespace", default_value="", description="the robot's namespace (one per robot)")]
        + nodes)
