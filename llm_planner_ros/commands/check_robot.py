"""``llm-planner check-robot``: check a running robot against the robot contract (docs/guides/robot.md)."""
from __future__ import annotations

import argparse

from llm_planner.adapters import get_domain
from llm_planner.config import load_params_file


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "check-robot", help="check a running robot against the robot contract (like ros2 doctor)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Checks the robot in a namespace against what the planner needs of it (docs/guides/robot.md): "
        "robot/skill and navigate_to_pose served with the right types, perception/state published with the "
        "scene's names, a pose for every place of the scene, and two probes that move nothing (a navigation goal "
        "to where the robot stands, a skill it does not have). Prints one table with a fix per failure.\n\n"
        "Exit code 0 when every check passes (warnings allowed), 1 when one fails.\n\n"
        "examples:\n"
        "  llm-planner check-robot                         # the robot of `llm-planner launch`\n"
        "  llm-planner check-robot namespace:=robot1 --scene my_flat.yaml")
    p.add_argument("arguments", nargs="*", metavar="namespace:=NS",
                   help="the robot's namespace, as the launch argument (also --namespace)")
    p.add_argument("--namespace", default="", help="the robot's namespace (default: the root namespace)")
    p.add_argument("--scene", default="", help="the household scene the robot lives in (a name under config/scenes/ "
                   "or a YAML path; default: the params file's)")
    p.add_argument("--params-file", default="", metavar="FILE",
                   help="the graph's parameter file (default: config/llm_planner.yaml): domain and scene")
    p.add_argument("--wait", type=float, default=10.0, metavar="SECONDS",
                   help="how long to wait for each interface and the first perception message (default 10)")
    p.add_argument("--probe-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="how long a probe goal may take to end (default 60)")
    p.set_defaults(func=run)


def namespace_of(args: argparse.Namespace) -> str:
    """The namespace from ``namespace:=NS`` or --namespace; SystemExit naming a malformed argument."""
    namespace = args.namespace
    for item in args.arguments:
        key, sep, value = item.partition(":=")
        if not sep or key != "namespace":
            raise SystemExit(f"llm-planner check-robot: unknown argument {item!r}; give namespace:=NS")
        namespace = value
    return namespace


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.robot_check import RobotChecker

    params = load_params_file(args.params_file or None)
    if args.scene:
        params["scene"] = args.scene
    domain = get_domain(params["domain"])(params)
    namespace = namespace_of(args)
    world = domain.world_name
    print(f"check-robot: namespace '/{namespace.strip('/')}', {world} ({domain.name})", flush=True)
    with RobotChecker(domain, namespace, args.wait, args.probe_timeout) as checker:
        report = checker.run()
    print(report.table())
    return 1 if report.failed else 0
