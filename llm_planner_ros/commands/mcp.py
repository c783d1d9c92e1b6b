"""``llm-planner mcp``: serve the running graph's task interfaces to AI assistants over the Model
Context Protocol (docs/guides/mcp.md); stdio by default, ``--http PORT`` for streamable HTTP."""
from __future__ import annotations

import argparse

from llm_planner_ros.commands.plan import add_graph_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the robot's task interfaces to AI assistants (Model Context Protocol)",
                       description="An MCP server that is a client of the running graph (start it with `llm-planner "
                       "launch`): tools plan_task, execute_directive (progress per step), answer_task, cancel_task, "
                       "task_status, task_record, snapshot and describe_world; no tool reaches a topic, parameter or "
                       "skill. Over stdio (an MCP client starts it) unless --http is given. Settings: config/mcp.yaml.")
    p.add_argument("--http", type=int, default=None, metavar="PORT",
                   help="serve streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio")
    p.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the planner node at start")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.errors import ConfigError
    from llm_planner_ros.client import PlannerClient
    from llm_planner_ros.frontends.mcp.robot import Robot
    from llm_planner_ros.frontends.mcp.server import build_server
    from llm_planner_ros.frontends.mcp.settings import mcp_settings

    if args.http is not None and not 0 < args.http < 65536:
        raise ConfigError(f"--http takes a TCP port between 1 and 65535, got {args.http}")
    settings = mcp_settings()
    with PlannerClient("llm_planner_mcp", args.namespace, args.server_timeout) as client:
        if not client.wait_for_planner(args.wait):
            raise ConfigError(f"no active planner node in namespace '{args.namespace or '/'}' within {args.wait:g} s: "
                              "start the graph first (llm-planner launch)")
        server = build_server(Robot(client, settings))
        if args.http is None:
            server.run("stdio")
        else:
            server.run("streamable-http", host=settings.http_host, port=args.http)
    return 0
