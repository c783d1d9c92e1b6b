"""The web page's link to the node graph: one :class:`PlannerClient` owned by a thread of its own.

rclpy objects are used from that thread only. Browsers hand it requests (:meth:`GraphBridge.call`)
and receive what it sees as events (:meth:`GraphBridge.subscribe`): every ``task_status`` message of
every task (whoever started it: this page, the CLI, a voice front end), a fresh picture of the world
from the simulator's ``sim/render`` service after each step, the answers to plan-only requests and
the results of the goals it sent. Each event carries a sequence number; the last
``history_events`` are replayed to a browser that connects late, so every browser sees the same task.
"""
from __future__ import annotations

import concurrent.futures
import itertools
import queue
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from llm_planner_interfaces.msg import TaskStatus

from llm_planner.errors import LlmPlannerError
from llm_planner.task_states import EXECUTING, FINAL_STATES
from llm_planner.viz.report import write_report
from llm_planner_ros.client import PlannerClient
from llm_planner_ros.conversions import belief_from_msg
from llm_planner_ros.frontends.settings import WebSettings
from llm_planner_ros.task_results import to_json

Event = dict[str, Any]
Listener = Callable[[Event], None]
Request = Callable[[PlannerClient], Any]


def status_event(msg: TaskStatus) -> Event:
    """A ``task_status`` message as the page's ``status`` event (belief as one line per object)."""
    return {"kind": "status", "task_id": msg.task_id, "directive": msg.directive, "state": msg.state,
            "step": msg.step, "action": msg.action, "outcome": msg.result, "message": msg.message,
            "llm_requests": msg.llm_requests, "decision_llm_requests": msg.decision_llm_requests,
            "belief": [b.describe() for b in belief_from_msg(msg.belief)], "question": msg.question,
            "options": list(msg.options)}


class GraphBridge:
    """The graph thread: spins the client, runs the browsers' requests in order, renders pictures.

    ``namespace`` selects the robot's graph; pictures and reports are written under ``work_dir``.
    """

    def __init__(self, namespace: str, settings: WebSettings, work_dir: Path) -> None:
        self.namespace = namespace
        self.settings = settings
        self.pictures = work_dir / "pictures"
        self.reports = work_dir / "reports"
        self.pictures.mkdir(parents=True, exist_ok=True)
        self.reports.mkdir(parents=True, exist_ok=True)
        self._requests: queue.Queue[tuple[Request, concurrent.futures.Future[Any]]] = queue.Queue()
        self._lock = threading.Lock()
        self._listeners: set[Listener] = set()
        self._history: deque[Event] = deque(maxlen=settings.history_events)
        self._seq = itertools.count(1)
        self._render_wanted = threading.Event()
        self._picture_count = itertools.count(1)
        self._goal_pending = False
        self._tasks: OrderedDict[str, Event] = OrderedDict()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="graph", daemon=True)

    # ------------------------------------------------------------------ life
    def start(self, wait_s: float) -> None:
        """Start the graph thread and wait until its client exists (LlmPlannerError if it failed)."""
        self._thread.start()
        if not self._ready.wait(wait_s) or self._failure is not None:
            raise LlmPlannerError(f"the web front end could not join the ROS graph: {self._failure or 'timed out'}")

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def recent_tasks(self) -> list[Event]:
        """The last ``recent_tasks`` tasks seen on ``task_status``, the newest last."""
        with self._lock:
            return list(self._tasks.values())

    def stop(self) -> bool:
        """Stop the graph thread; False if it had not ended within ``shutdown_s`` + 5 s (it may be in
        a ROS call, e.g. waiting for the render service of a graph that is not there)."""
        self._stop.set()
        self._thread.join(timeout=self.settings.shutdown_s + 5.0)
        return not self._thread.is_alive()

    def _run(self) -> None:
        try:
            client = PlannerClient("llm_planner_web", self.namespace)
        except BaseException as exc:  # noqa: BLE001 - reported by start()
            self._failure = exc
            self._ready.set()
            return
        self._ready.set()
        try:
            client.watch_status(self._on_status)
            self._render_wanted.set()
            while not self._stop.is_set():
                self._serve_requests(client)
                self._report_result(client)
                if self._render_wanted.is_set():
                    self._render_wanted.clear()
                    self._render(client)
                client.spin_for(self.settings.spin_s)
        finally:
            client.close()

    # ------------------------------------------------------------------ browsers
    def subscribe(self, listener: Listener) -> list[Event]:
        """Add ``listener`` (called on the graph thread with each new event); the events kept so far."""
        with self._lock:
            self._listeners.add(listener)
            return list(self._history)

    def unsubscribe(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.discard(listener)

    def publish(self, event: Event) -> None:
        with self._lock:
            event = {**event, "seq": next(self._seq)}
            self._history.append(event)
            listeners = list(self._listeners)
        for listener in listeners:
            listener(event)

    def call(self, request: Request) -> concurrent.futures.Future[Any]:
        """Run ``request(client)`` on the graph thread; its future."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._requests.put((request, future))
        return future

    def _serve_requests(self, client: PlannerClient) -> None:
        while True:
            try:
                request, future = self._requests.get_nowait()
            except queue.Empty:
                return
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(request(client))
            except Exception as exc:  # noqa: BLE001 - handed to the browser's request
                future.set_exception(exc)

    # ------------------------------------------------------------------ what the graph says
    def _on_status(self, msg: TaskStatus) -> None:
        event = status_event(msg)
        if msg.task_id:
            with self._lock:
                self._tasks[msg.task_id] = {k: event[k] for k in ("task_id", "directive", "state", "message")}
                self._tasks.move_to_end(msg.task_id)
                while len(self._tasks) > self.settings.recent_tasks:
                    self._tasks.popitem(last=False)
        self.publish(event)
        if (msg.state == EXECUTING and msg.step > 0) or msg.state in FINAL_STATES:
            self._render_wanted.set()

    def _render(self, client: PlannerClient) -> None:
        number = next(self._picture_count)
        path = self.pictures / f"world-{number}.png"
        written = client.render(str(path), self.settings.render_view, wait_s=self.settings.render_wait_s)
        if written is None:
            self.publish({"kind": "picture", "url": "", "message": "the simulator could not render the world"})
            return
        self.publish({"kind": "picture", "url": f"/picture/{number}.png"})
        for old in self.pictures.glob("world-*.png"):  # keep the few a slow browser may still load
            if int(old.stem.split("-")[1]) < number - 4:
                old.unlink(missing_ok=True)

    def execute(self, client: PlannerClient, directive: str, planner: str) -> str:
        """Send the directive to ``execute_directive`` (its result comes as a ``result`` event)."""
        client.execute(directive, planner)
        self._goal_pending = True
        return "accepted: the steps follow"

    def _report_result(self, client: PlannerClient) -> None:
        if self._goal_pending and client.is_task_complete(0.0):
            self._goal_pending = False
            result = to_json(client.result(timeout_s=self.settings.command_wait_s))
            self.publish({"kind": "result", **{k: result[k] for k in
                                                ("task_id", "success", "status", "message", "plan")}})

    def report(self, client: PlannerClient, task_id: str) -> Path:
        """The report folder of a task the executor kept (pictures and report.md)."""
        record = client.task_record(task_id)
        return Path(write_report(record, self.reports / record.task_id, gif=False)["report"]).parent

    def picture(self, number: int) -> Path:
        return self.pictures / f"world-{number}.png"
