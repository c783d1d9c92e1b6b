"""The llm_planner node graph: simulator, perception, executor and planner, one process each, and
the lifecycle manager that brings them to active in that order (its ``autostart`` parameter).

With ROS 2 installed:   ros2 launch llm_planner llm_planner.launch.py [params_file:=FILE] [namespace:=robot1]
Here (PyPI wheels):     llm-planner launch [llm_planner] [params_file:=FILE] [namespace:=robot1]
The world is the ``domain`` parameter of the parameter file (household apartments by default;
launch/gtamp.launch.py is the same graph with config/gtamp_nodes.yaml). Every name is relative:
with ``namespace:=robot1`` the graph serves /robot1/plan_task, /robot1/execute_directive, ...
"""
import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def _default_params_file(name: str) -> str:
    try:
        from ament_index_python.packages import get_package_share_directory

        share = get_package_share_directory("llm_planner")
    except Exception:  # run from a source checkout
        share = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(share, "config", name)


def graph(params_file_name: str, roles: tuple[str, ...] = ("simulator", "perception", "executor", "planner"),
          manager: bool = True):
    """The nodes of ``roles`` with a parameter file of config/ and, with ``manager``, the lifecycle
    manager that brings the four lifecycle nodes to active in order (autostart), as
    nav2_lifecycle_manager does. gtamp.launch.py changes the file, the two robot_*_host launch files
    split the roles over two hosts."""
    params_file = LaunchConfiguration("params_file")
    namespace = LaunchConfiguration("namespace")
    nodes = [Node(package="llm_planner", executable=f"{role}_node", name=role, namespace=namespace,
                  parameters=[params_file], output="screen") for role in roles]
    if manager:  # node_names of the parameter file: all four (some may run on another host)
        nodes.append(Node(package="llm_planner", executable="lifecycle_manager_node", name="lifecycle_manager",
                          namespace=namespace, parameters=[params_file], output="screen"))
    return LaunchDescription(
        [DeclareLaunchArgument("params_file", default_value=_default_params_file(params_file_name),
                               description="ROS 2 parameter file for all llm_planner nodes (the same on every host)"),
         DeclareLaunchArgument("namespace", default_value="",
                               description="namespace of the whole graph (one robot per namespace)")]
        + nodes)


def generate_launch_description():
    return graph("llm_planner.yaml")
