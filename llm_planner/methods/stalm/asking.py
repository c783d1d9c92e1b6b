"""STaLM's one batched question (seed 003 §3.3, QueryLLM) running beside the search.

Algorithm 1 waits for the N_batch plans and then searches. Against a slow model that wait is the
whole time budget, and the warm-started search gets no simulations. So the question runs in a
background thread (:func:`send`) and the caller decides how long to wait for it
(:meth:`PlanQuestion.wait`); the question is given up once it has run ``bound_s`` seconds (wall
time) without an answer (:meth:`PlanQuestion.expired`). Its thread then ends within the backend's
own timeouts, unwaited (a daemon thread never holds a process open).
"""
from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from llm_planner.planners.base import wait_unless_stopped


@dataclass
class PlanQuestion:
    """One question in flight: the answer's texts (a future), when it was sent and its bound."""

    future: Future[list[str]]
    step: int               # actions the robot had executed when the question was sent
    bound_s: float          # seconds after which the question is given up (inf: never)
    sent: float = 0.0       # time.monotonic() at sending

    def done(self) -> bool:
        """True once the answer (or the backend's failure) is there."""
        return self.future.done()

    def elapsed(self) -> float:
        return time.monotonic() - self.sent

    def expired(self) -> bool:
        """Unanswered after ``bound_s`` seconds."""
        return not self.done() and self.elapsed() > self.bound_s

    def time_left(self) -> float:
        return max(0.0, self.bound_s - self.elapsed())

    def wait(self, seconds: float, stop: Callable[[], bool] | None = None) -> list[str] | None:
        """The answer's texts, waiting at most ``seconds`` (``inf``: until the backend ends the
        question) and, with ``stop``, only while it is False
        (:func:`~llm_planner.planners.base.wait_unless_stopped`); None if the answer has not come
        by then. A bug in the asking code is raised."""
        if not wait_unless_stopped([self.future], None if math.isinf(seconds) else max(0.0, seconds), stop):
            return None
        return self.future.result()


def send(ask: Callable[[], list[str]], step: int, bound_s: float) -> PlanQuestion:
    """Run ``ask`` (the question; it returns the answer's texts) in a daemon thread."""
    future: Future[list[str]] = Future()

    def run() -> None:
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(ask())
            except Exception as exc:  # noqa: BLE001 - handed to the caller, who raises it
                future.set_exception(exc)

    question = PlanQuestion(future, step, bound_s, time.monotonic())
    threading.Thread(target=run, name="stalm-question", daemon=True).start()
    return question
