"""``llm-planner web``: a web page for people, a client of a running graph (llm_planner_ros/frontends/web/;
docs/guides/web-and-voice.md)."""
from __future__ import annotations

import argparse
from pathlib import Path

from llm_planner_ros.commands.plan import add_graph_options

WORK_DIR = Path("runs/web")


def register(sub: argparse._SubParsersAction) -> None:
    web = sub.add_parser("web", help="serve a web page to direct, watch and answer the robot",
                         description="One page: type a directive and execute or plan it, watch the steps live "
                         "with their observation, belief and LLM requests, see the apartment redrawn after each step, "
                         "answer the robot's questions (approval included), cancel, open the last tasks' reports. "
                         "Every browser sees the same task. Settings: config/frontends.yaml (web).")
    web.add_argument("--host", default="127.0.0.1",
                     help="address to listen on (default 127.0.0.1: this machine only); beyond loopback (0.0.0.0: "
                     "every address) the page needs a token, printed at start as the URL to open "
                     "(docs/guides/security.md)")
    web.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    web.add_argument("--work-dir", type=Path, default=WORK_DIR,
                     help=f"where pictures and reports are written (default {WORK_DIR})")
    add_graph_options(web)
    web.set_defaults(func=run_web)


def run_web(args: argparse.Namespace) -> int:
    from llm_planner_ros.frontends.serving import StopSignals, leave_now

    stop = StopSignals()  # first, while this is the only thread: every later thread leaves the signals to it
    from llm_planner_ros.frontends.access import display_host, served_hosts, server_token, url_host
    from llm_planner_ros.frontends.settings import load_settings
    from llm_planner_ros.frontends.web.app import serve
    from llm_planner_ros.frontends.web.bridge import GraphBridge
    from llm_planner_ros.frontends.web.guard import Door

    settings = load_settings()[0]
    token, generated = server_token(args.host, settings.token_env)
    hosts = served_hosts(args.host, settings.allowed_hosts)
    door = Door(frozenset(hosts), token, settings.max_body_bytes, "config/frontends.yaml (web: allowed_hosts)")
    bridge = GraphBridge(args.namespace, settings, args.work_dir.resolve())
    bridge.start(wait_s=args.server_timeout * 3)
    if stop.stopping:  # Ctrl-C while joining the graph
        if not bridge.stop():
            leave_now()
        return 0
    url = f"http://{url_host(display_host(args.host))}:{args.port}/"
    if token is not None:  # printed once, to the terminal only: never logged
        url += f"?token={token}" if generated else f"?token=${settings.token_env}"
    print(f"llm-planner web: {url} (graph namespace '{args.namespace or '/'}'; answers to {', '.join(hosts)}; "
          "Ctrl-C stops)", flush=True)
    serve(bridge, door, args.host, args.port, stop)
    return 0
