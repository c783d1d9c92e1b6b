"""The planner node's one open question: a task in state ``asking`` waits here for the
answer that comes on ``directive`` (what a voice frontend publishes next), the ``answer_task``
service or the CLI. One question at a time per robot (one robot runs one task); every wait is
bounded (``clarify_timeout_s``), and a cancel of the task ends the wait at once.

The wait is an rclpy future awaited by the task's coroutine: no executor thread and no planning
thread is held while the person thinks, so plan-only calls, feedback and cancels are served.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from rclpy.node import Node
from rclpy.task import Future

from llm_planner.clarification import Question

#: What :meth:`QuestionDesk.ask` returns when the task was canceled while it asked.
CANCELED_WHILE_ASKING = "\x00canceled"


@dataclass
class _Open:
    task_id: str
    question: Question
    answer: Future           # the text said, None on timeout, CANCELED_WHILE_ASKING on cancel
    reply: Future | None = None  # (taken, message) for the caller of answer_task


class QuestionDesk:
    """Holds the robot's open question and hands it the answer that arrives."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self._lock = threading.Lock()
        self._open: _Open | None = None

    def asking(self, task_id: str = "") -> Question | None:
        """The open question (of ``task_id`` when given), or None."""
        with self._lock:
            if self._open is None or (task_id and task_id != self._open.task_id):
                return None
            return self._open.question

    def asking_task(self) -> str:
        with self._lock:
            return self._open.task_id if self._open is not None else ""

    def open(self, task_id: str, question: Question) -> Future:
        """Open ``question`` for answers now, before anyone is told of it, so that an answer sent the
        moment the question is published finds it open; returns the future :meth:`wait` awaits."""
        answer: Future = Future(executor=self.node.executor)
        with self._lock:
            if self._open is not None and self._open.task_id != task_id:
                raise RuntimeError(f"task {self._open.task_id} is already asking; one question at a time per robot")
            self._open = _Open(task_id, question, answer)
        return answer

    def close(self, answer: Future) -> None:
        """Close the question :meth:`open` returned ``answer`` for, without waiting (telling of it failed)."""
        with self._lock:
            if self._open is not None and self._open.answer is answer:
                self._open = None

    async def wait(self, answer: Future, timeout_s: float) -> tuple[str | None, Future | None]:
        """Wait for the answer of the question :meth:`open` returned ``answer`` for: (text, reply
        future for the answer_task caller), (None, None) after ``timeout_s``, (CANCELED_WHILE_ASKING,
        None) when the task is canceled."""
        timer = threading.Timer(timeout_s, self._resolve, args=(answer, None))
        timer.daemon = True
        timer.start()
        try:
            text = await answer
        finally:
            timer.cancel()
            with self._lock:
                record, self._open = self._open, None
        return text, (record.reply if record is not None and record.answer is answer else None)

    def deliver(self, text: str, task_id: str = "", reply_timeout_s: float = 30.0) -> tuple[Future | None, str]:
        """Hand ``text`` to the open question (of ``task_id``, or whichever): (a future of
        (taken, message) resolved once the task has read it, ""), or (None, why not)."""
        with self._lock:
            record = self._open
            if record is None:
                return None, "no task is asking a question"
            if task_id and task_id != record.task_id:
                return None, f"task {task_id} is not asking (task {record.task_id} is: {record.question.text})"
            if record.answer.done():
                return None, f"task {record.task_id} already has an answer it is reading"
            record.reply = Future(executor=self.node.executor)
            reply = record.reply
            record.answer.set_result(text)
        timer = threading.Timer(reply_timeout_s, self._resolve,
                                args=(reply, (True, f"task {record.task_id} took the answer; it is still reading it")))
        timer.daemon = True
        timer.start()
        return reply, ""

    def cancel(self, task_id: str = "") -> bool:
        """End the wait of the open question (of ``task_id``) because its task was canceled."""
        with self._lock:
            record = self._open
            if record is None or (task_id and task_id != record.task_id) or record.answer.done():
                return False
            record.answer.set_result(CANCELED_WHILE_ASKING)
            return True

    def _resolve(self, future: Future, value: Any) -> None:
        with self._lock:
            if not future.done():
                future.set_result(value)


def answer_reply(reply: Future | None, taken: bool, message: str) -> None:
    """Tell the answer_task caller how its answer was read (a topic answer has nobody waiting)."""
    if reply is not None and not reply.done():
        reply.set_result((taken, message))
