"""ament_python package ``llm_planner``: the plain-Python core, the ROS nodes and the CLI.

The custom messages live in the sibling package ``llm_planner_interfaces`` (``interfaces/``),
generated from ``msg/``, ``srv/`` and ``action/`` of this repository.
"""
from glob import glob

from setuptools import find_packages, setup

PACKAGE = "llm_planner"

setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(exclude=["test", "test.*"]),
    package_data={PACKAGE: ["domains/household/language/prompts/*.txt", "reading/data/*.yaml",
                            "domains/household/world/data/*.yaml"],
                  "llm_planner_ros.frontends.web": ["static/*.html"]},
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        (f"share/{PACKAGE}/launch", glob("launch/*.launch.py")),
        (f"share/{PACKAGE}/config", glob("config/*.yaml") + glob("config/*.xml")),
        (f"share/{PACKAGE}/config/scenes", glob("config/scenes/*.yaml")),
        (f"share/{PACKAGE}/config/gtamp", glob("config/gtamp/*.yaml")),
    ],
    install_requires=["setuptools"],
    zip_safe=False,
    maintainer="llm_planner developers",
    maintainer_email="dev@llm-planner.invalid",
    description="Robot task planning with language models (LLM-MCTS, STaLM, NL-to-PDDL, SayCanPay).",
    license="Apache-2.0",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "llm-planner = llm_planner.cli:main",
            "planner_node = llm_planner_ros.nodes.planner_node:main",
            "executor_node = llm_planner_ros.nodes.executor_node:main",
            "simulator_node = llm_planner_ros.nodes.simulator_node:main",
            "perception_node = llm_planner_ros.nodes.perception_node:main",
            "lifecycle_manager_node = llm_planner_ros.nodes.lifecycle_manager_node:main",
        ],
        # the sub-commands of llm-planner (llm_planner/cli.py), each package's from its own side, in --help order
        "llm_planner.commands": [
            "launch = llm_planner_ros.commands.launch",
            "plan = llm_planner_ros.commands.plan",
            "cancel = llm_planner_ros.commands.cancel",
            "check_robot = llm_planner_ros.commands.check_robot",
            "status = llm_planner_ros.commands.status",
            "say = llm_planner_ros.commands.say",
            "answer = llm_planner_ros.commands.answer",
            "web = llm_planner_ros.commands.web",
            "voice = llm_planner_ros.commands.voice",
            "demo = llm_planner_ros.commands.demo",
            "translate = llm_planner.commands.translate",
            "serve = llm_planner_eval.commands.serve",
            "build_prior = llm_planner_eval.commands.build_prior",
            "dataset = llm_planner_eval.commands.dataset",
            "snapshot = llm_planner_ros.commands.snapshot",
            "mcp = llm_planner_ros.commands.mcp",
            "scene = llm_planner.commands.scene",
            "plot = llm_planner_eval.commands.plot",
            "train = llm_planner.commands.train",
            "bench = llm_planner_eval.commands.bench",
        ],
    },
)
