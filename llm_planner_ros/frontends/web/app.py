"""``llm-planner web``: one page to direct and watch the robot, served by starlette on uvicorn.

Routes (JSON in and out, except the page, the pictures and the event stream):

- ``GET /``: the page (``static/index.html``: plain HTML with inline CSS and JS, nothing fetched
  from elsewhere);
- ``GET /events``: server-sent events, one JSON object each (``status``, ``picture``, ``result``,
  ``plan``): first the ones kept (:class:`GraphBridge`), then live ones;
- ``POST /api/execute`` and ``/api/plan`` ``{"directive", "planner"}``, ``/api/answer``
  ``{"text", "task_id"}``, ``/api/cancel`` ``{"task_id"}``: ``{"ok", "message"}``; a request the
  graph refuses is answered 200 with ``ok: false`` and its reason; a body over ``max_body_bytes``
  413; no JSON object, an unknown field, a field of the wrong type or text with control
  characters 400 (the graph is not asked); a graph that does not answer 503; always with a
  message saying what to do;
- ``GET /api/tasks``: the recent tasks; ``GET /report/{task_id}``: the executor's record of a task
  as a page with its pictures; ``GET /picture/{n}.png``: the n-th picture of the world.

Every request passes :class:`~llm_planner_ros.frontends.web.guard.Door` first (Host, Origin,
token, JSON content type, body size).
"""
from __future__ import annotations

import asyncio
import html
import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from llm_planner.errors import LlmPlannerError
from llm_planner_ros.client import PlannerClient
from llm_planner_ros.frontends.inputs import BadInput, plain_text
from llm_planner_ros.frontends.web.bridge import Event, GraphBridge
from llm_planner_ros.frontends.web.guard import BodyTooLarge, Door, GuardMiddleware, read_body
from llm_planner_ros.task_results import to_json

if TYPE_CHECKING:
    from llm_planner_ros.frontends.serving import StopSignals

TASK_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
REPORT_FILES = ("before.png", "after.png", "strip.png")


def page_html() -> str:
    return resources.files("llm_planner_ros.frontends.web").joinpath("static/index.html").read_text()


DIRECTIVE_EXAMPLE = "put one apple inside the fridge"


def _json(raw: bytes) -> Any:
    """``raw`` decoded as UTF-8 JSON; BadInput saying what to send when it is none."""
    try:
        return json.loads(raw)
    except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
        raise BadInput(f"the body is no JSON ({exc}): send e.g. {{\"directive\": \"{DIRECTIVE_EXAMPLE}\"}}") from None


def _fields(body: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    """``body`` when it is a JSON object of no other keys than ``allowed``; BadInput otherwise."""
    if not isinstance(body, dict):
        raise BadInput(f"send a JSON object with {', '.join(allowed)}, e.g. {{\"directive\": \"{DIRECTIVE_EXAMPLE}\"}}")
    unknown = sorted(set(body) - set(allowed))
    if unknown:
        raise BadInput(f"unknown field(s) {', '.join(map(repr, unknown))}: this request takes {', '.join(allowed)}")
    return body


def _task_id(body: dict[str, Any]) -> str:
    """The optional ``task_id`` of ``body`` ('' for the latest task); BadInput when it is no task id."""
    task_id = plain_text(body.get("task_id", ""), "task_id", "cc9a32ca11c8", required=False)
    if task_id and not TASK_ID.match(task_id):
        raise BadInput("'task_id' must be a task id such as 'cc9a32ca11c8' (letters, digits, _ and -, at most 64), "
                       "or empty for the latest task")
    return task_id


def create_app(bridge: GraphBridge, door: Door) -> Starlette:
    """The starlette application over a started :class:`GraphBridge`, every request checked by ``door``."""
    wait_s = bridge.settings.command_wait_s

    async def on_graph(request: Callable[[PlannerClient], Any]) -> Any:
        return await asyncio.wait_for(asyncio.wrap_future(bridge.call(request)), wait_s)

    Handler = Callable[[dict[str, Any]], Awaitable[tuple[bool, str]]]

    def api(handler: Handler, allowed: tuple[str, ...]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                body = _fields(_json(await read_body(request, door.max_body_bytes)), allowed)
                ok, message = await handler(body)
            except BodyTooLarge as exc:
                return JSONResponse({"ok": False, "message": str(exc)}, status_code=413)
            except BadInput as exc:
                return JSONResponse({"ok": False, "message": f"bad request: {exc}"}, status_code=400)
            except LlmPlannerError as exc:
                return JSONResponse({"ok": False, "message": str(exc)})
            except TimeoutError:
                return JSONResponse({"ok": False, "message": f"the graph did not answer within {wait_s:g} s; "
                                     "is it running (llm-planner launch)?"}, status_code=503)
            return JSONResponse({"ok": ok, "message": message})
        return endpoint

    def directive_of(body: dict[str, Any]) -> tuple[str, str]:
        return (plain_text(body.get("directive"), "directive", DIRECTIVE_EXAMPLE),
                plain_text(body.get("planner", ""), "planner", "classical", required=False))

    async def execute(body: dict[str, Any]) -> tuple[bool, str]:
        directive, planner = directive_of(body)
        return True, await on_graph(lambda c: bridge.execute(c, directive, planner))

    async def plan(body: dict[str, Any]) -> tuple[bool, str]:
        directive, planner = directive_of(body)
        result = to_json(await on_graph(lambda c: c.plan(directive, planner)))
        bridge.publish({"kind": "plan", **{k: result[k] for k in ("task_id", "success", "message", "plan")},
                        "directive": directive})
        return bool(result["success"]), str(result["message"])

    async def answer(body: dict[str, Any]) -> tuple[bool, str]:
        text, task_id = plain_text(body.get("text"), "text", "the coffee table"), _task_id(body)
        return tuple(await on_graph(lambda c: c.answer(text, task_id)))

    async def cancel(body: dict[str, Any]) -> tuple[bool, str]:
        task_id = _task_id(body)
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

    directive_fields = ("directive", "planner")
    return Starlette(routes=[
        Route("/", index), Route("/events", events), Route("/api/tasks", tasks),
        Route("/api/execute", api(execute, directive_fields), methods=["POST"]),
        Route("/api/plan", api(plan, directive_fields), methods=["POST"]),
        Route("/api/answer", api(answer, ("text", "task_id")), methods=["POST"]),
        Route("/api/cancel", api(cancel, ("task_id",)), methods=["POST"]),
        Route("/picture/{number:int}.png", picture), Route("/report/{task_id}", report),
        Route("/report/{task_id}/{name}", report_file),
    ], middleware=[Middleware(GuardMiddleware, door=door)])


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


def serve(bridge: GraphBridge, door: Door, host: str, port: int, stop: StopSignals) -> None:
    """Serve the page on ``host:port`` behind ``door`` until Ctrl-C or SIGTERM (taken by ``stop``),
    then stop ``bridge``. No request is logged (a URL may carry the token)."""
    import uvicorn  # noqa: PLC0415 - heavy optional: uvicorn only when the web front end serves

    from llm_planner_ros.frontends.serving import leave_now  # noqa: PLC0415 - imports uvicorn

    config = uvicorn.Config(create_app(bridge, door), host=host, port=port, log_level="warning", access_log=False,
                            timeout_graceful_shutdown=int(bridge.settings.shutdown_s))
    try:
        stop.run(config)
    finally:
        if not bridge.stop():
            leave_now()
