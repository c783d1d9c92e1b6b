"""The node graph as the MCP tools see it: one :class:`~llm_planner_ros.client.PlannerClient`
(plan_task, execute_directive, answer_task, cancel_task, task_status, task_record) and the
planner node's ``domain`` / ``scene`` / ``problem`` parameters, read once.

The tools run in worker threads; :class:`Robot` lets one thread at a time spin the client. A task
executed through it is followed by short polls (``poll_s``), so a ``cancel_task`` or
``task_status`` call gets its turn while an ``execute_directive`` call waits for the task.
"""
from __future__ import annotations

import io
import threading
import time
from collections import OrderedDict
from typing import Any

from PIL import Image
from rcl_interfaces.msg import ParameterType
from rcl_interfaces.srv import GetParameters
from rclpy.client import Client

from llm_planner.errors import LlmPlannerError
from llm_planner.task_states import FINAL_STATES
from llm_planner.viz.report import TaskRecord, recorder_of
from llm_planner.viz.topdown import render_rgb
from llm_planner_ros.client import PlannerClient, response_of
from llm_planner_ros.frontends.mcp.settings import McpSettings
from llm_planner_ros.task_results import Feedback, Reply, TaskQuestion, to_json

#: The TaskStatus fields task_status hands out (the belief stays in task_record).
STATUS_FIELDS = ("task_id", "directive", "state", "step", "action", "result", "message", "question")
#: The planner node parameters that name the graph's world.
WORLD_PARAMETERS = ("domain", "scene", "problem")


class Robot:
    """The graph through one PlannerClient, used by one thread at a time."""

    def __init__(self, client: PlannerClient, settings: McpSettings) -> None:
        self.client, self.settings = client, settings
        self.lock = threading.Lock()
        self.statuses: OrderedDict[str, dict[str, Any]] = OrderedDict()
        self.events: list[Feedback] = []   # feedback of the running goal not handed out yet
        self._world: tuple[str, str] | None = None
        client.watch_status(self._on_status)

    # ------------------------------------------------------------------ task_status
    def _on_status(self, msg: Any) -> None:
        fields = {name: getattr(msg, name) for name in STATUS_FIELDS}
        fields["options"] = list(msg.options)
        self.statuses[msg.task_id] = fields
        self.statuses.move_to_end(msg.task_id)
        while len(self.statuses) > self.settings.status_tasks:
            self.statuses.popitem(last=False)

    def status(self, task_id: str = "") -> list[dict[str, Any]]:
        """The latest status of ``task_id`` (empty: of every task seen, the newest last); LlmPlannerError
        when this server has seen no status of that task."""
        with self.lock:
            self.client.spin_for(self.settings.poll_s)
            if not task_id:
                return list(self.statuses.values())
            if task_id not in self.statuses:
                raise LlmPlannerError(f"no status of task {task_id!r} since this server started; tasks seen: "
                                      f"{', '.join(self.statuses) or 'none'} (task_status with no task_id lists them)")
            return [self.statuses[task_id]]

    # ------------------------------------------------------------------ plan and execute
    def plan(self, directive: str, planner: str) -> dict[str, Any]:
        """The plan_task answer as the tool's JSON (the ``llm-planner plan --json`` fields)."""
        with self.lock:
            return to_json(self.client.plan(directive, planner))

    def start(self, directive: str, planner: str, timeout_s: float) -> None:
        """Send the directive to execute_directive; LlmPlannerError while a task this server started runs."""
        with self.lock:
            if not self.client.is_task_complete(0.0):
                latest = self.client.feedback()
                running = f"task {latest.task_id}" if latest else "a task"
                raise LlmPlannerError(f"{running} started here is still running: follow it with task_status, "
                                      "or stop it with cancel_task, then send the directive again")
            self.events = []
            self.client.execute(directive, planner, timeout_s, on_feedback=self._on_feedback)

    def _on_feedback(self, fields: Feedback) -> None:
        self.events.append(fields)

    def running(self) -> bool:
        """Whether a task this server started has not ended yet."""
        with self.lock:
            return not self.client.is_task_complete(0.0)

    def poll(self) -> tuple[list[Feedback], bool]:
        """Spin ``poll_s``: the feedback that came since the last poll, and whether the goal ended."""
        with self.lock:
            done = self.client.is_task_complete(self.settings.poll_s)
            events, self.events = self.events, []
        return events, done

    def result(self) -> tuple[dict[str, Any], list[Feedback]]:
        """The ended goal's result as the tool's JSON (the plan_task fields, the action's ``status``
        and the task's own final ``state`` from task_status: a task the person did not approve ends
        canceled although its action ends aborted) and the feedback of its last steps."""
        with self.lock:
            result = self.client.result(timeout_s=self.client.server_timeout_s)
            deadline = time.monotonic() + self.client.settings.feedback_drain_s
            while self._state(result.task_id) not in FINAL_STATES and time.monotonic() < deadline:
                self.client.spin_for(self.settings.poll_s)
            events, self.events = self.events, []
        return {"state": self._state(result.task_id) or result.status.value, **to_json(result)}, events

    def _state(self, task_id: str) -> str:
        state = self.statuses.get(task_id, {}).get("state", "")
        return state if state in FINAL_STATES else ""

    def latest(self) -> Feedback | None:
        """The latest feedback of the goal this server sent last (None before any)."""
        with self.lock:
            return self.client.feedback()

    def question(self) -> TaskQuestion | None:
        with self.lock:
            return self.client.question()

    def answer(self, text: str, task_id: str) -> Reply:
        with self.lock:
            return self.client.answer(text, task_id)

    def cancel(self, task_id: str) -> Reply:
        """Stop a task: the goal this server sent is canceled through the action (its result then
        says ``canceled``), any other task through cancel_task. (done, message)."""
        with self.lock:
            latest = self.client.feedback()
            if latest is not None and not self.client.is_task_complete(0.0) and task_id in ("", latest.task_id):
                if self.client.cancel():
                    return Reply(True, f"task {latest.task_id}: canceled; the robot stops (the walk or skill under "
                                       "way is canceled)")
            return self.client.cancel_task(task_id)

    # ------------------------------------------------------------------ records, pictures, the world
    def record(self, task_id: str) -> TaskRecord:
        with self.lock:
            return self.client.task_record(task_id)

    def snapshot_png(self, task_id: str) -> tuple[bytes, TaskRecord]:
        """A labelled top-down PNG of the world after the task's last step (drawn here from the
        geometry the executor kept), and the task's record."""
        record = self.record(task_id)
        rgb, _ = render_rgb(recorder_of(record).after_view(), self.settings.snapshot_scale)
        buffer = io.BytesIO()
        Image.fromarray(rgb).save(buffer, format="PNG", optimize=True)
        return buffer.getvalue(), record

    def world(self) -> tuple[str, str]:
        """The graph's (domain, scene or problem), read once from the planner node's parameters."""
        if self._world is None:
            values = self._planner_parameters(WORLD_PARAMETERS)
            domain = values["domain"]
            self._world = (domain, values["problem"] if domain == "gtamp" else values["scene"])
        return self._world

    def _planner_parameters(self, names: tuple[str, ...]) -> dict[str, str]:
        with self.lock:
            client: Client[Any, Any] = self.client.node.create_client(GetParameters, "planner/get_parameters")
            what = self.client.node.resolve_service_name("planner/get_parameters")
            try:
                if not client.wait_for_service(timeout_sec=self.client.server_timeout_s):
                    raise LlmPlannerError(f"{what} is not available: is the planner node running?")
                future = client.call_async(GetParameters.Request(names=list(names)))
                if not self.client.spin_until(future, self.client.server_timeout_s):
                    raise LlmPlannerError(f"{what} did not answer within {self.client.server_timeout_s:g} s")
                values = response_of(future).values
            finally:
                self.client.node.destroy_client(client)
        return {name: v.string_value if v.type == ParameterType.PARAMETER_STRING else ""
                for name, v in zip(names, values, strict=True)}
