"""What a wait for a model's answer buys: per question kind and per model server, how long the
questions take, measured on the questions that went to the server.

A planner that waits for an answer within a bound (LLM-MCTS's root question, seed 000 §2.4
Algorithm 1 line 28; STaLM's plans, seed 003 §3.3) asks :meth:`AnswerTimes.worth_waiting` first:
a wait pays only when the answers of this kind come within it. Each question to the server is a
:class:`Ticket` from the first request to its last answer (the backend opens and closes it; an
answer from the disk cache opens none, as it says nothing of the server). The judgement reads the
last ``waits.window`` tickets of the kind that can be judged against the wait's bound: those that
came (their latency), and those still running past the bound (late whatever they take). A wait is
worth it while at least ``waits.in_time_share`` of them came within the bound, and while their
median latency is within the caller's whole budget. Questions sent without a wait keep being
measured when they land, so the waits come back when answers come in time again (a faster server,
a lighter load).

The same tickets give the time a question takes per sample and prompt character
(:meth:`AnswerTimes.seconds_per_sample_char`), by which a method sizes a batch of samples to its
bound when the server answers one sample per request (STaLM's N_batch against a server that
ignores ``n``).

This module knows no method and no server; one :class:`AnswerTimes` per (server, kind) is shared
by every backend of a process that asks that server (:func:`answer_times`).
"""
from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import median
from typing import Any

from llm_planner.errors import ConfigError

#: tickets kept per (server, kind): the judgement reads the last ``window`` of them
KEPT = 64


@dataclass(frozen=True)
class WaitSettings:
    """The ``waits`` section of config/llm.yaml (each value's source is given there)."""

    window: int = 4
    in_time_share: float = 0.5
    min_late: int = 2

    @staticmethod
    def from_config(section: Mapping[str, Any]) -> WaitSettings:
        settings = WaitSettings(window=section.get("window", 4), in_time_share=section.get("in_time_share", 0.5),
                                min_late=section.get("min_late", 2))
        window = settings.window
        if not isinstance(window, int) or isinstance(window, bool) or not 1 <= window <= KEPT:
            raise ConfigError(f"LLM configuration 'waits.window' must be an integer in 1..{KEPT}, got {window!r}")
        late = settings.min_late
        if not isinstance(late, int) or isinstance(late, bool) or not 1 <= late <= window:
            raise ConfigError(f"LLM configuration 'waits.min_late' must be an integer in 1..waits.window, got {late!r}")
        share = settings.in_time_share
        if not isinstance(share, (int, float)) or isinstance(share, bool) or not 0.0 < share <= 1.0:
            raise ConfigError(f"LLM configuration 'waits.in_time_share' must lie in (0, 1], got {share!r}")
        return settings


@dataclass(eq=False)
class Ticket:
    """One question at the server: when it was sent, how many samples it asked for and how long its
    prompt was; ``latency`` once it ended (answered or failed)."""

    sent: float
    samples: int = 1
    prompt_chars: int = 0
    latency: float | None = None
    failed: bool = False

    def seconds(self, now: float) -> float:
        """Its latency, or the time it has run so far."""
        return self.latency if self.latency is not None else now - self.sent


class AnswerTimes:
    """The recent questions of one kind at one server (thread-safe; the module docstring)."""

    def __init__(self, settings: WaitSettings, server: str, kind: str) -> None:
        self.settings = settings
        self.server = server
        self.kind = kind
        self._tickets: deque[Ticket] = deque(maxlen=KEPT)
        self._lock = threading.Lock()
        self.answered = 0
        self.failed = 0

    # ------------------------------------------------------------------ tickets
    def send(self, samples: int = 1, prompt_chars: int = 0) -> Ticket:
        """A question of this kind leaves for the server now."""
        ticket = Ticket(time.monotonic(), max(1, samples), max(0, prompt_chars))
        with self._lock:
            self._tickets.append(ticket)
        return ticket

    def land(self, ticket: Ticket, failed: bool = False) -> None:
        """The question ended: answered, or ``failed`` (an error; it counts as an answer that never came)."""
        with self._lock:
            if ticket.latency is not None:
                return
            ticket.latency = time.monotonic() - ticket.sent
            ticket.failed = failed
            if failed:
                self.failed += 1
            else:
                self.answered += 1

    def discard(self, ticket: Ticket) -> None:
        """Forget a question that says nothing of the server's time (refused for its format and asked again)."""
        with self._lock:
            if ticket in self._tickets:
                self._tickets.remove(ticket)

    # ------------------------------------------------------------------ judgement
    def _judged(self, bound_s: float) -> list[tuple[float, bool]]:
        """(seconds, in time) of the last ``window`` tickets that can be judged against ``bound_s``:
        those that ended, and those still running past it (late, their seconds a lower bound)."""
        now = time.monotonic()
        out: list[tuple[float, bool]] = []
        with self._lock:
            for ticket in reversed(self._tickets):
                seconds = ticket.seconds(now)
                if ticket.latency is None and seconds <= bound_s:
                    continue  # still running, and may yet come in time
                out.append((seconds, ticket.latency is not None and not ticket.failed and seconds <= bound_s))
                if len(out) == self.settings.window:
                    break
        return out

    def in_time_share(self, bound_s: float) -> float | None:
        """The share of the recent questions that came within ``bound_s`` (None: none to judge yet)."""
        judged = self._judged(bound_s)
        return sum(1 for _, ok in judged if ok) / len(judged) if judged else None

    def latency(self, bound_s: float = float("inf")) -> float | None:
        """The median seconds of the recent questions judged against ``bound_s`` (None: none yet)."""
        judged = self._judged(bound_s)
        return median(s for s, _ in judged) if judged else None

    def worth_waiting(self, bound_s: float, budget_s: float = float("inf")) -> str:
        """"" when a wait of ``bound_s`` seconds for an answer of this kind pays, else why not: fewer than
        ``in_time_share`` of the recent answers came within ``bound_s``, or their median latency is
        beyond ``budget_s`` (the caller's whole budget). Until ``min_late`` of them came late (nothing
        measured yet, or one slow answer of a server warming up) the wait pays."""
        judged = self._judged(bound_s)
        came = sum(1 for _, ok in judged if ok)
        if len(judged) - came < self.settings.min_late:
            return ""
        middle = median(s for s, _ in judged)
        if came / len(judged) < self.settings.in_time_share:
            return (f"{came} of the last {len(judged)} {self.kind} answers came within a wait of {bound_s:.1f} s "
                    f"(median {middle:.1f} s)")
        if middle > budget_s:
            return f"the {self.kind} answers take {middle:.1f} s (median), beyond the budget of {budget_s:.1f} s"
        return ""

    def seconds_per_sample_char(self) -> float | None:
        """Seconds an answered question took per sample and per character of its prompt, the largest of
        the last ``window`` answered questions (None: none answered yet): the cost of a sample where
        the server reads the prompt again for each."""
        with self._lock:
            rates = [t.latency / (t.samples * max(1, t.prompt_chars)) for t in reversed(self._tickets)
                     if t.latency is not None and not t.failed][:self.settings.window]
        return max(rates) if rates else None

    def running(self) -> int:
        """Questions of this kind at the server now (sent, not ended)."""
        with self._lock:
            return sum(1 for t in self._tickets if t.latency is None)

    def describe(self) -> dict[str, Any]:
        """Figures for logs and benchmark headers."""
        latency = self.latency()
        return {"server": self.server, "kind": self.kind, "answered": self.answered, "failed": self.failed,
                "running": self.running(), "median_latency_s": None if latency is None else round(latency, 3)}


_TIMES: dict[tuple[str, str], AnswerTimes] = {}
_TIMES_LOCK = threading.Lock()


def answer_times(server: str, kind: str, settings: WaitSettings) -> AnswerTimes:
    """The :class:`AnswerTimes` of ``kind`` at ``server`` in this process (every backend asking that
    server shares it; the settings of the first caller stand)."""
    with _TIMES_LOCK:
        key = (server, kind)
        if key not in _TIMES:
            _TIMES[key] = AnswerTimes(settings, server, kind)
        return _TIMES[key]
