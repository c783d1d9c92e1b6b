"""``llm-planner launch [NAME] [KEY:=VALUE ...]``: start a launch file's node graph (stands in for ``ros2 launch``)."""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from llm_planner.errors import ConfigError

DESCRIPTION = """\
Runs launch/NAME.launch.py (default: llm_planner; `gtamp` for the G-TAMP graph, or a path): with the
real ROS 2 launch system where it is installed, else with llm_planner's own launcher, which starts
each node as its own process and prefixes its output with the node's name.

Launch arguments are given as in ros2 launch, KEY:=VALUE (or --arg KEY=VALUE), e.g.
  llm-planner launch gtamp params_file:=my_params.yaml
--show-args lists the arguments a launch file declares.

Stopping: Ctrl-C, SIGTERM or SIGHUP (also when the launcher runs as a background job `&`, which
ignores SIGINT by default) sends SIGINT to every node's process group, SIGTERM after
--sigterm-timeout seconds, SIGKILL after --sigkill-timeout more. If the launcher itself is killed,
the nodes get SIGTERM from the kernel and a reaper process stops what is left, so no node or node
child outlives it.

A node's death (--on-exit):
  shutdown  stop the graph, like a Node with on_exit=Shutdown() in ros2 launch; the other nodes
            first keep running for up to --exit-grace seconds, so a task in progress ends with a
            failure naming the dead node (the wait ends as soon as no task is running);
  continue  keep the other nodes running; the death is printed and published on task_status
            (state failed, empty task id, a message naming the node).
Defaults come from config/launch.yaml. Exit status: 0 when stopped by a signal, 1 when a node died."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("launch", help="start the ROS 2 node graph (simulator, perception, planner, executor)",
                       description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", nargs="?", default=None, help="launch file name or path (default: llm_planner)")
    p.add_argument("launch_arguments", nargs="*", default=[], metavar="KEY:=VALUE",
                   help="launch argument, as in ros2 launch (e.g. params_file:=my_params.yaml)")
    p.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE",
                   help="launch argument, another spelling (repeatable)")
    p.add_argument("--on-exit", choices=("shutdown", "continue"), default=None,
                   help="what a node's death does: stop the graph (shutdown) or report it and keep the others "
                        "running (continue) (default: config/launch.yaml, shutdown)")
    p.add_argument("--exit-grace", type=float, default=None, metavar="SECONDS", dest="exit_grace_s",
                   help="shutdown mode: how long a running task gets to end, naming the dead node, before the "
                        "graph stops (default: config/launch.yaml)")
    p.add_argument("--sigterm-timeout", type=float, default=None, metavar="SECONDS",
                   help="seconds after SIGINT before a node gets SIGTERM (ros2 launch: sigterm_timeout:=; "
                        "also accepted that way)")
    p.add_argument("--sigkill-timeout", type=float, default=None, metavar="SECONDS",
                   help="seconds after SIGTERM before a node gets SIGKILL (ros2 launch: sigkill_timeout:=)")
    p.add_argument("--settings", default=None, metavar="FILE",
                   help="launcher settings file (default: config/launch.yaml)")
    p.add_argument("-s", "--show-args", "--show-arguments", action="store_true",
                   help="list the launch file's arguments and exit")
    p.add_argument("-p", "--print", "--print-description", action="store_true", dest="print_description",
                   help="print each node's command line and exit")
    p.set_defaults(func=run)


#: ros2 launch reads these launch arguments itself (they are not declared by launch files)
LAUNCHER_ARGUMENTS = ("sigterm_timeout", "sigkill_timeout")


def parse_launch_arguments(name: str | None, positional: list[str],
                           options: list[str]) -> tuple[str | None, dict[str, str]]:
    """The launch file name and the KEY:=VALUE / KEY=VALUE arguments (a first positional with ':=' is an argument)."""

    if name is not None and ":=" in name:
        positional = [name, *positional]
        name = None
    arguments: dict[str, str] = {}
    for item, separator in [(i, ":=") for i in positional] + [(i, "=") for i in options]:
        key, sep, value = item.partition(separator)
        if not sep or not key:
            raise ConfigError(f"launch argument {item!r} must look like KEY{separator}VALUE")
        arguments[key] = value
    return name, arguments


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.environment import ros_environment
    from llm_planner_ros.launch_files import declared_arguments, describe, resolve_launch_file
    from llm_planner_ros.launcher import load_launch_settings
    from llm_planner_ros.supervision import run_launch_file

    name, arguments = parse_launch_arguments(args.name, args.launch_arguments, args.arg)
    given = {key: arguments.pop(key) for key in LAUNCHER_ARGUMENTS if key in arguments}
    try:
        timeouts = {key: float(value) for key, value in given.items()}
    except ValueError:
        raise ConfigError(f"launch arguments {', '.join(LAUNCHER_ARGUMENTS)} take a number of seconds, "
                          f"got {given}") from None
    flags = {"sigterm_timeout": args.sigterm_timeout, "sigkill_timeout": args.sigkill_timeout}
    timeouts.update({key: value for key, value in flags.items() if value is not None})
    settings = load_launch_settings(args.settings, on_exit=args.on_exit, exit_grace_s=args.exit_grace_s, **timeouts)
    launch_file = resolve_launch_file(name)
    params_file = arguments.get("params_file")
    if params_file is not None and not Path(params_file).is_file():
        raise ConfigError(f"params_file:={params_file} is not a file: give the path of a parameter file "
                          "(a copy of config/llm_planner.yaml, edited)")
    if args.show_args:
        print(f"Arguments (pass arguments as '<name>:=<value>') of {launch_file.name}:")
        for argument in declared_arguments(launch_file):
            print(f"\n    '{argument.name}':\n        {argument.description or 'no description given'}"
                  f"\n        (default: '{argument.default_value}')")
        return 0
    if args.print_description:
        for command in describe(launch_file, arguments, ros_environment()):
            print(f"{command.name}: {shlex.join(command.argv)}")
        return 0
    return run_launch_file(str(launch_file), arguments, settings)
