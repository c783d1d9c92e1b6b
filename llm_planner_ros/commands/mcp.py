"""``llm-planner mcp``: serve the running graph's task interfaces to AI assistants over the Model
Context Protocol (docs/guides/mcp.md); stdio by default, ``--http PORT`` for streamable HTTP."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from llm_planner.errors import ConfigError
from llm_planner_ros.commands.plan import add_graph_options

if TYPE_CHECKING:
    from llm_planner_ros.frontends.mcp.robot import Robot


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("mcp", help="serve the robot's task interfaces to AI assistants (Model Context Protocol)",
                       description="An MCP server that is a client of the running graph (start it with `llm-planner "
                       "launch`): tools plan_task, execute_directive (progress per step), answer_task, cancel_task, "
                       "task_status, task_record, snapshot and describe_world; no tool reaches a topic, parameter or "
                       "skill. Over stdio (an MCP client starts it) unless --http is given. Settings: config/mcp.yaml.")
    p.add_argument("--http", type=int, default=None, metavar="PORT",
                   help="serve streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio")
    p.add_argument("--host", default=None,
                   help="with --http: the address to listen on (default: http_host of config/mcp.yaml, 127.0.0.1); "
                   "beyond loopback every request needs the bearer token printed at start (docs/guides/security.md)")
    p.add_argument("--wait", type=float, default=30.0, help="seconds to wait for the planner node at start")
    add_graph_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner_ros.client import PlannerClient
    from llm_planner_ros.frontends.mcp.robot import Robot
    from llm_planner_ros.frontends.mcp.server import build_server
    from llm_planner_ros.frontends.mcp.settings import mcp_settings

    if args.http is not None and not 0 < args.http < 65536:
        raise ConfigError(f"--http takes a TCP port between 1 and 65535, got {args.http}")
    if args.host is not None and args.http is None:
        raise ConfigError("--host goes with --http PORT: over stdio the server listens on no address")
    settings = mcp_settings()
    with PlannerClient("llm_planner_mcp", args.namespace, args.server_timeout) as client:
        if not client.wait_for_planner(args.wait):
            raise ConfigError(f"no active planner node in namespace '{args.namespace or '/'}' within {args.wait:g} s: "
                              "start the graph first (llm-planner launch)")
        if args.http is None:
            build_server(Robot(client, settings)).run("stdio")
        else:
            serve_http(Robot(client, settings), args.host or settings.http_host, args.http)
    return 0


def serve_http(robot: Robot, host: str, port: int) -> None:
    """Serve ``robot`` over streamable HTTP on ``host:port``: Host and Origin checked, a bearer
    token beyond loopback (or from the environment), printed once to the terminal and never logged."""
    from llm_planner_ros.frontends.access import display_host, served_hosts, server_token, url_host
    from llm_planner_ros.frontends.mcp.http import ExplainRefusals, explanations, serve, token_auth, transport_security
    from llm_planner_ros.frontends.mcp.server import build_server

    settings = robot.settings
    token, generated = server_token(host, settings.token_env)
    hosts = served_hosts(host, settings.allowed_hosts)
    url = f"http://{url_host(display_host(host))}:{port}/mcp"
    server = build_server(robot, token_auth(token, url) if token is not None else None)
    shown = token if generated else f"${settings.token_env}"
    bearer = "" if token is None else f"; send 'Authorization: Bearer {shown}'"
    print(f"llm-planner mcp: {url} (answers to {', '.join(hosts)}{bearer}; Ctrl-C stops)", flush=True)
    app = server.streamable_http_app(transport_security=transport_security(hosts), host=host,
                                     max_request_body_size=settings.max_body_bytes)
    serve(ExplainRefusals(app, explanations(settings.max_body_bytes, "config/mcp.yaml")), host, port)
