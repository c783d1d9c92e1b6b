"""The llm_planner node graph: simulator, perception, executor and planner, one process each, and
the lifecycle manager that brings them to active in that order (its ``autostart`` parameter).

With ROS 2 installed:   ros2 launch llm_planner llm_planner.launch.py [params_file:=FILE] [namespace:=robot1]
Here (PyPI wheels):     llm-planner launch [llm_planner] [params_file:=FILE] [namespace:=robot1]
Node parameters as launch arguments (empty: the parameter file's value): llm_backend, llm_config,
planner, scene, problem, require_approval, robot, e.g. ``llm-planner launch llm_backend:=openai llm_config:=FILE``.
With ``robot:=external`` the graph drives your robot (docs/guides/robot.md): the simulator and
perception nodes are not started, and the executor uses navigate_to_pose, robot/skill and
perception/state as your robot serves them.
The world is the ``domain`` parameter of the parameter file (household apartments by default;
launch/gtamp.launch.py is the same graph with config/gtamp_nodes.yaml). Every name is relative:
with ``namespace:=robot1`` the graph serves /robot1/plan_task, /robot1/execute_directive, ...
"""
import os

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch_ros.actions import Node

#: Node parameters that can be given as launch arguments (``llm_backend:=openai``); an argument left
#: empty keeps the parameter file's value.
NODE_ARGUMENTS = {
    "llm_backend": "LLM backend of every node: offline (embedded) or openai (the server of llm_config)",
    "llm_config": "LLM configuration file (base_url, model, samples) of the openai backend",
    "planner": "default planner of plan_task, execute_directive and directive",
    "scene": "household: a scene under config/scenes/ or a path to a scene YAML file",
    "problem": "gtamp: a problem P1..P6 or a path to a problem YAML file",
    "require_approval": "none, goal or plan: ask 'May I ...?' before the robot moves",
    "robot": "simulated (this graph's simulator and perception) or external (your robot: the two are not started)",
}
#: The roles our simulated robot adds to a graph (llm_planner.config.SIMULATED_ROBOT); with
#: robot:=external they are left out, and the lifecycle manager does not manage them.
SIMULATED_ROBOT = ("simulator", "perception")


def _file_value(params_file: str, key: str) -> str:
    """The value of ``key`` in the node section of a parameter file ("" when it has none)."""
    import yaml

    if not os.path.isfile(params_file):
        raise FileNotFoundError(f"params_file:={params_file} is not a file: give the path of a parameter file "
                                "(a copy of config/llm_planner.yaml, edited)")
    with open(params_file, encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    return str(data.get("/**", {}).get("ros__parameters", {}).get(key, ""))


def _default_params_file(name: str) -> str:
    try:
        from ament_index_python.packages import get_package_share_directory

        share = get_package_share_directory("llm_planner")
    except Exception:  # run from a source checkout
        share = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.join(share, "config", name)


def graph(params_file_name: str, roles: tuple[str, ...] = ("simulator", "perception", "executor", "planner"),
          manager: bool = True):
    """The nodes of ``roles`` with a parameter file of config/ (and the NODE_ARGUMENTS given) and, with
    ``manager``, the lifecycle manager that brings the four lifecycle nodes to active in order
    (autostart), as nav2_lifecycle_manager does. gtamp.launch.py changes the file, the two
    robot_*_host launch files split the roles over two hosts."""

    def nodes(context):
        given = {key: context.launch_configurations.get(key, "") for key in NODE_ARGUMENTS}
        overrides = {key: value for key, value in given.items() if value}
        params_file = context.launch_configurations["params_file"]
        namespace = context.launch_configurations.get("namespace", "")
        parameters = [params_file, overrides] if overrides else [params_file]
        external = (given["robot"] or _file_value(params_file, "robot")) == "external"
        ours = [r for r in roles if not (external and r in SIMULATED_ROBOT)]
        started = [Node(package="llm_planner", executable=f"{role}_node", name=role, namespace=namespace,
                        parameters=parameters, output="screen") for role in ours]
        if manager:  # node_names of the parameter file (some may run on another host), as robot says
            robot = {"robot": given["robot"]} if given["robot"] else {}
            started.append(Node(package="llm_planner", executable="lifecycle_manager_node", name="lifecycle_manager",
                                namespace=namespace, parameters=[params_file, robot] if robot else [params_file],
                                output="screen"))
        return started

    return LaunchDescription(
        [DeclareLaunchArgument("params_file", default_value=_default_params_file(params_file_name),
                               description="ROS 2 parameter file for all llm_planner nodes (the same on every host)"),
         DeclareLaunchArgument("namespace", default_value="",
                               description="namespace of the whole graph (one robot per namespace)")]
        + [DeclareLaunchArgument(key, default_value="", description=f"{text} (empty: the parameter file's value)")
           for key, text in NODE_ARGUMENTS.items()]
        + [OpaqueFunction(function=nodes)])


def generate_launch_description():
    return graph("llm_planner.yaml")
