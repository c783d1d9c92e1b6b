"""The spoken loop: what is heard goes out on ``directive``; the robot's questions and results are
spoken back (docs/guides/asking.md, "A voice frontend's loop", with a real recogniser and voice).

Each utterance is recognised with the directive grammar, or with the answer grammar of the
question the task asks. An utterance heard below the confidence floor, or fitting no phrase, is
never published: the robot says "I did not catch that" (and the question again) and takes the
next utterance for the same turn. One heard above the floor but below ``confirm_below`` is read
back first ("Did you say: put the mug on the kitchen counter?"): "yes" sends it, "no" asks for it
again. Every utterance is logged with its confidence.
"""
from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from llm_planner_interfaces.msg import TaskStatus
from std_msgs.msg import String

from llm_planner.errors import LlmPlannerError
from llm_planner.task_states import ASKING, FINAL_STATES, SUCCEEDED
from llm_planner_ros.client import PlannerClient
from llm_planner_ros.frontends.settings import VoiceSettings
from llm_planner_ros.frontends.voice.audio import Utterance
from llm_planner_ros.frontends.voice.recognizer import Heard, Recognizer
from llm_planner_ros.frontends.voice.speaker import Speaker

NOT_CAUGHT = "I did not catch that."
YES_NO = ("yes", "no")


@dataclass
class Exchange:
    """One directive's dialogue: what was heard (with confidences), what the robot asked, how the
    task ended and, for a task the robot executed, its goal (the executor's record)."""

    heard: list[dict[str, Any]] = field(default_factory=list)
    directive: str = ""
    task_id: str = ""
    questions: list[str] = field(default_factory=list)
    confirmed: list[str] = field(default_factory=list)  # "Did you say: ...?" asked of what was heard unsurely
    state: str = ""
    message: str = ""
    goal: list = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class VoiceLoop:
    """Turns utterances into directives and answers on the graph of ``client``, speaking back with ``speaker``."""

    def __init__(self, client: PlannerClient, recognizer: Recognizer, speaker: Speaker,
                 settings: VoiceSettings) -> None:
        self.client, self.recognizer, self.speaker, self.settings = client, recognizer, speaker, settings
        self.statuses: list[TaskStatus] = []
        self.exchanges: list[Exchange] = []
        self.publisher = client.node.create_publisher(String, "directive", 10)
        self._watching = False

    def run(self, utterances: Iterable[Utterance]) -> list[Exchange]:
        """Go through ``utterances`` (a directive, then answers while its task asks, then the next
        directive); the exchanges, also kept in ``exchanges``."""
        self._wait_listener()
        exchange: Exchange | None = None
        asking: TaskStatus | None = None
        confirming: Heard | None = None
        pending = iter(utterances)
        while True:
            print(f"listening for {'a directive' if asking is None and confirming is None else 'the answer'}",
                  flush=True)
            utterance = next(pending, None)
            if utterance is None:
                break
            options = list(YES_NO) if confirming is not None else list(asking.options) if asking is not None else None
            heard = self.recognizer.hear(utterance, options)
            sure = heard.sure(self.settings.confidence_floor)
            print(f"heard ({utterance.source}): {heard.text or '(nothing the grammar fits)'!r} "
                  f"confidence {heard.confidence}{'' if sure else ' (below the floor: not used)'}", flush=True)
            if exchange is None:
                exchange = Exchange()
                self.exchanges.append(exchange)
            exchange.heard.append({"source": utterance.source, "text": heard.text, "confidence": heard.confidence,
                                   "used": sure})
            pending_question = (f" Did you say: {confirming.text}?" if confirming is not None else
                                f" {asking.question}" if asking is not None else " Please say it again.")
            if not sure:
                self.speaker.say(NOT_CAUGHT + pending_question)
                continue
            if confirming is not None:
                said_yes, heard, confirming = heard.text.startswith("yes"), confirming, None
                if not said_yes:
                    self.speaker.say("Please say it again." + (f" {asking.question}" if asking is not None else ""))
                    continue
            elif heard.confidence < self.settings.confirm_below:
                confirming = heard
                exchange.confirmed.append(heard.text)
                self.speaker.say(f"Did you say: {heard.text}?")
                continue
            if asking is None:
                exchange.directive = heard.text
            asking = self._send(heard, exchange)
            if asking is None:
                exchange = None
        return self.exchanges

    def _wait_listener(self) -> None:
        """Wait, at most ``start_wait_s``, until the planner listens on the directive topic, then until
        this process has matched every task_status publisher (the planner's and the executor's: a
        status sent before its publisher is matched is lost, and with it a question or a task's end)."""
        deadline = time.monotonic() + self.settings.start_wait_s
        while self.publisher.get_subscription_count() == 0:
            if time.monotonic() > deadline:
                raise LlmPlannerError(f"nobody listens on {self.client.node.resolve_topic_name('directive')} after "
                                      f"{self.settings.start_wait_s:g} s: start the graph first (llm-planner launch)")
            self.client.spin_for(0.1)
        if not self._watching:
            self._watching = True
            self.client.watch_status(self.statuses.append, wait_s=max(0.0, deadline - time.monotonic()))

    def _send(self, heard: Heard, exchange: Exchange) -> TaskStatus | None:
        """Publish ``heard`` and follow its task until it asks (the question, spoken) or ends (None)."""
        seen = len(self.statuses)
        self.publisher.publish(String(data=heard.text))
        status = self._next_turn(seen, exchange)
        if status is None:
            self.speaker.say(f"The robot did not answer within {self.settings.task_wait_s:g} seconds.")
            exchange.state = "no answer"
            return None
        if status.state == ASKING:
            exchange.questions.append(status.question)
            self.speaker.say(status.question)
            return status
        exchange.state, exchange.message = status.state, status.message
        if status.state != "refused":
            exchange.goal = self._goal(status.task_id)
        self.speaker.say(("Done. " if status.state == SUCCEEDED else f"The task {status.state}. ") + status.message)
        return None

    def _next_turn(self, seen: int, exchange: Exchange) -> TaskStatus | None:
        """The first status after ``seen`` of the exchange's task that asks or ends (None: none in time)."""
        deadline = time.monotonic() + self.settings.task_wait_s
        while time.monotonic() < deadline:
            self.client.spin_for(0.1)
            for status in self.statuses[seen:]:
                seen += 1
                if not exchange.task_id and " ".join(status.directive.split()) == exchange.directive[:200]:
                    exchange.task_id = status.task_id
                if status.task_id == exchange.task_id and (status.state == ASKING or status.state in FINAL_STATES):
                    return status
        return None

    def _goal(self, task_id: str) -> list:
        """The goal of an executed task, from the executor's record ([] when it kept none)."""
        try:
            return list(self.client.task_record(task_id, wait_s=self.settings.start_wait_s).goal)
        except LlmPlannerError:
            return []


def summary(exchanges: list[Exchange]) -> dict[str, int]:
    """Counts of the exchanges: by how the task ended, and how many asked a question."""
    counts: dict[str, int] = {"directives": len(exchanges), "asked": sum(bool(e.questions) for e in exchanges)}
    for e in exchanges:
        counts[e.state or "not sent"] = counts.get(e.state or "not sent", 0) + 1
    return counts
