"""The llm_planner node graph on STaLM's G-TAMP problems: the same four node programs as
launch/llm_planner.launch.py, with the parameters of config/gtamp_nodes.yaml (problem P2 by default).

With ROS 2 installed:   ros2 launch llm_planner gtamp.launch.py [params_file:=FILE] [namespace:=robot1]
Here (PyPI wheels):     llm-planner launch gtamp [params_file:=FILE] [namespace:=robot1]
"""
import os
import runpy

graph = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "llm_planner.launch.py"))["graph"]


def generate_launch_description():
    return graph("gtamp_nodes.yaml")
