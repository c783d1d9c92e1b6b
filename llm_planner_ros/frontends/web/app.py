"""``llm-planner web``: one page to direct and watch the robot, served by starlette on uvicorn.

Routes (JSON in and out, except the page, the pictures and the event stream):

- ``GET /``: the page (``static/index.html``: plain HTML with inline CSS and JS, nothing fetched
  from elsewhere);
- ``GET /events``: server-sent events, one JSON object each (``status``, ``picture``, ``result``,
  ``plan``): first the ones kept (:class:`GraphBridge`), then live ones;
- ``POST /api/execute`` and ``/api/plan`` ``{"directive", "planner"}``, ``/api/answer``
  ``{"text", "task_id"}``, ``/api/cancel`` ``{"task_id"}``: ``{"ok", "message"}``; a request the
  graph refuses is answered 200 with ``ok: false`` and its reason, bad JSON 400, a graph that
  does not answer 503, always with a message saying what to do;
- ``GET /api/tasks``: the recent tasks; ``GET /report/{task_id}``: the executor's record of a task
  as a page with its pictures; ``GET /picture/{n}.png``: the n-th picture of the world.
"""
from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from llm_planner.errors import LlmPlannerError
from llm_planner_ros.client import PlannerClient
from llm_planner_ros.frontends.web.bridge import Event, GraphBridge

TASK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
REPORT_FILES = ("before.png", "after.png", "strip.png")


def page_html() -> str:
    return resources.files("llm_planner_ros.frontends.web").joinpath("static/index.html").read_text()


class BadRequest(Exception):
    """A browser's request that cannot be sent to the graph (the message says why)."""


def _text(body: dict[str, Any], key: str, required: bool = True) -> str:
    value = body.get(key, "")
    if not isinstance(value, str):
        raise BadRequest(f"'{key}' must be text, got {type(value).__name__}")
    if required and not value.strip():
        raise BadRequest(f"'{key}' is empty: type what the robot should do, e.g. \"put one apple inside the fridge\"")
    return value.strip()


def create_app(bridge: GraphBridge) -> Starlette:
    """The starlette application over a started :class:`GraphBridge`."""
    wait_s = bridge.settings.command_wait_s

    async def on_graph(request: Callable[[PlannerClient], Any]) -> Any:
        return await asyncio.wait_for(asyncio.wrap_future(bridge.call(request)), wait_s)

    Handler = Callable[[dict[str, Any]], Awaitable[tuple[bool, str]]]

    def api(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                body = await request.json()
                if not isinstance(body, dict):
                    raise BadRequest("send a JSON object")
                ok, message = await handler(body)
            except (BadRequest, json.JSONDecodeError) as exc:
                return JSONResponse({"ok": False, "message": f"bad request: {exc}"}, status_code=400)
            except LlmPlannerError as exc:
                return JSONResponse({"ok": False, "message": str(exc)})
            except TimeoutError:
                return JSONResponse({"ok": False, "message": f"the graph did not answer within {wait_s:g} s; "
                                     "is it running (llm-planner launch)?"}, status_code=503)
            return JSONResponse({"ok": ok, "message": message})
        return endpoint

    async def execute(body: dict[str, Any]) -> tuple[bool, str]:
        directive, planner = _text(body, "directive"), _text(body, "planner", required=False)
        return True, await on_graph(lambda c: bridge.execute(c, directive, planner))

    async def plan(body: dict[str, Any]) -> tuple[bool, str]:
        directive, planner = _text(body, "directive"), _text(body, "planner", required=False)
        result = await on_graph(lambda c: c.plan(directive, planner))
        bridge.publish({"kind": "plan", **{k: result.get(k) for k in ("task_id", "success", "message", "plan")},
                        "directive": directive})
        return bool(result["success"]), str(result["message"])

    async def answer(body: dict[str, Any]) -> tuple[bool, str]:
        text, task_id = _text(body, "text"), _text(body, "task_id", required=False)
        return tuple(await on_graph(lambda c: c.answer(text, task_id)))

    async def cancel(body: dict[str, Any]) -> tuple[bool, str]:
        task_id = _text(body, "task_id", required=False)
        return tuple(await on_graph(lambda c: c.cancel_task(task_id)))

    async def events(request: Request) -> Response:
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[Event] = asyncio.Queue()

        def listener(event: Event) -> None:
            loop.call_soon_threadsafe(inbox.put_nowait, event)

        kept = bridge.subscribe(listener)

        async def stream() -> AsyncIterator[str]:
            try:
                for event in kept:
                    yield f"id: {event['seq']}\ndata: {json.dumps(event)}\n\n"
                while not bridge.stopping:
                    try:
                        event = await asyncio.wait_for(inbox.get(), bridge.settings.heartbeat_s)
                    except TimeoutError:
                        yield ": still here\n\n"
                        continue
                    yield f"id: {event['seq']}\ndata: {json.dumps(event)}\n\n"
            finally:
                bridge.unsubscribe(listener)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def tasks(request: Request) -> Response:
        return JSONResponse({"tasks": bridge.recent_tasks()})

    async def picture(request: Request) -> Response:
        path = bridge.picture(int(request.path_params["number"]))
        if not path.is_file():
            return JSONResponse({"message": "that picture is gone: reload the page"}, status_code=404)
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "no-store"})

    async def report(request: Request) -> Response:
        task_id = request.path_params["task_id"]
        if not TASK_ID.match(task_id):
            return HTMLResponse(f"<p>no such task id: {html.escape(task_id)}</p>", status_code=400)
        try:
            folder = await on_graph(lambda c: bridge.report(c, task_id))
        except LlmPlannerError as exc:
            return HTMLResponse(f"<p>no report of task {html.escape(task_id)}: {html.escape(str(exc))}</p>",
                                status_code=404)
        return HTMLResponse(report_html(task_id, folder))

    async def report_file(request: Request) -> Response:
        task_id, name = request.path_params["task_id"], request.path_params["name"]
        path = bridge.reports / task_id / name
        if not TASK_ID.match(task_id) or name not in REPORT_FILES or not path.is_file():
            return JSONResponse({"message": "no such report picture"}, status_code=404)
        return FileResponse(path, media_type="image/png")

    async def index(request: Request) -> Response:
        return HTMLResponse(page_html())

    return Starlette(routes=[
        Route("/", index), Route("/events", events), Route("/api/tasks", tasks),
        Route("/api/execute", api(execute), methods=["POST"]), Route("/api/plan", api(plan), methods=["POST"]),
        Route("/api/answer", api(answer), methods=["POST"]), Route("/api/cancel", api(cancel), methods=["POST"]),
        Route("/picture/{number:int}.png", picture), Route("/report/{task_id}", report),
        Route("/report/{task_id}/{name}", report_file),
    ])


def report_html(task_id: str, folder: Path) -> str:
    """The report page: the report's text and its pictures."""
    text = (folder / "report.md").read_text()
    pictures = "".join(f'<figure><img src="/report/{task_id}/{name}" alt="{name[:-4]} of task {task_id}">'
                       f"<figcaption>{name[:-4]}</figcaption></figure>"
                       for name in REPORT_FILES if (folder / name).is_file())
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Task {task_id}</title>'
            '<style>body{font-family:sans-serif;margin:1em}img{max-width:100%}figure{display:inline-block}'
            'pre{white-space:pre-wrap}</style></head>'
            f'<body><p><a href="/">back to the robot</a></p><pre>{html.escape(text)}</pre>{pictures}</body></html>')


def serve(bridge: GraphBridge, host: str, port: int) -> None:
    """Serve the page on ``host:port`` until Ctrl-C or SIGTERM, then stop ``bridge``."""
    import uvicorn

    config = uvicorn.Config(create_app(bridge), host=host, port=port, log_level="warning",
                            timeout_graceful_shutdown=int(bridge.settings.shutdown_s))
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:  # uvicorn shut down cleanly and passes Ctrl-C on: the way to stop
        pass
    finally:
        bridge.stop()
