"""Half of one robot's node graph for two hosts (docs/guides/multihost.md):
executor and planner, and the lifecycle manager that brings all four nodes of the robot to active across both hosts (the planning host). The other half is launch/robot_sim_host.launch.py; both hosts use
config/fastdds_multihost.xml (unicast peers, no multicast) with the same ROS_DOMAIN_ID.

With ROS 2 installed:   ros2 launch llm_planner robot_planner_host.launch.py [params_file:=FILE] [namespace:=robot1]
Here (PyPI wheels):     llm-planner launch robot_planner_host [params_file:=FILE] [namespace:=robot1]
"""
import os
import runpy

graph = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "llm_planner.launch.py"))["graph"]


def generate_launch_description():
    return graph("llm_planner.yaml", roles=("executor", "planner"), manager=True)
