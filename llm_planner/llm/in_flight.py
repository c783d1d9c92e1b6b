"""How many requests a backend keeps in flight at one server: an adaptive limit that follows what the
server sustains, shared by every question of the server in a process.

A model server on a CPU often answers one request at a time (``transformers serve`` without
``--continuous-batching``); a batching server answers several at once, a little slower each. A
client that sends a fixed number of requests at once (LLM-MCTS asks 8 questions of M samples) either
leaves a batching server idle or queues its requests at a one-at-a-time server until they time out,
and every retry then adds to the queue. The limit here is TCP Vegas' rule (Brakmo and Peterson,
"TCP Vegas: end to end congestion avoidance on a global Internet", IEEE JSAC 1995) applied to
requests, as Netflix's concurrency-limits library does for RPCs:

* ``base`` is the least latency seen for a request of the same kind (the service time with no queue);
  with ``L`` requests in flight and a latency ``rtt``, about ``queue = L * (1 - base / rtt)`` of them
  are waiting at the server. Below ``queue_low`` the limit grows, above ``queue_high`` it shrinks, by
  ``1 / L`` per answer (about one per round of requests): a one-at-a-time server settles at two (one
  answered, one waiting, so it never idles), a batching server higher;
* a timeout, a 429 or a 5xx halves the limit (multiplicative decrease), so retries never pile onto a
  saturated server;
* time a request waits here for a slot is not time at the server: the caller's deadline does not
  count it (:class:`QuestionClock`), and the wait itself is bounded by ``openai.queue_timeout_s``.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from llm_planner.errors import LLMError, ModelServerError


@dataclass(frozen=True)
class LimiterSettings:
    """``openai.in_flight`` of config/llm.yaml (see the module docstring)."""

    initial: int = 2            # requests in flight before anything is measured
    ceiling: int = 16           # never more (also the most a batching server is given)
    queue_low: float = 0.9      # estimated requests waiting at the server below which the limit grows
    queue_high: float = 1.5     # ... above which it shrinks
    wait_s: float = 600.0       # longest wait for a slot (openai.queue_timeout_s)
    adaptive: bool = True       # False: always ``ceiling`` in flight (what a fixed pool of workers does)

    @staticmethod
    def from_config(opts: dict[str, Any]) -> LimiterSettings:
        section = dict(opts.get("in_flight") or {})
        return LimiterSettings(initial=int(section.get("initial", 2)), ceiling=int(opts.get("max_in_flight", 16)),
                               queue_low=float(section.get("queue_low", 0.9)),
                               queue_high=float(section.get("queue_high", 1.5)),
                               wait_s=float(opts.get("queue_timeout_s", 600.0)),
                               adaptive=bool(section.get("adaptive", True)))


class QueueTimeout(LLMError):
    """A request waited longer than ``openai.queue_timeout_s`` for a slot."""


class AnswerTimeout(ModelServerError):
    """The server took longer than the client's timeouts for a question and gave no other error: it is
    slow or busy (its queue is long), which a reachable server's fallback does not answer for."""


@dataclass
class Slot:
    """One request in flight: when it was sent and how many were in flight then."""

    kind: str
    sent: float
    in_flight: int
    waited: float


class AdaptiveLimiter:
    """The in-flight limit of one server (thread-safe; see the module docstring)."""

    def __init__(self, settings: LimiterSettings, server: str) -> None:
        self.settings = settings
        self.server = server
        start = settings.initial if settings.adaptive else settings.ceiling
        self.limit = float(max(1, min(start, settings.ceiling)))
        self.in_flight = 0
        self._cond = threading.Condition()
        self._base: dict[str, float] = {}
        # figures: answers, their latency and tokens, timeouts, overloads, time queued here
        self.answered = 0
        self.latency_total = 0.0
        self.tokens_total = 0
        self.token_seconds = 0.0
        self.timeouts = 0
        self.overloads = 0
        self.queued_s = 0.0
        self.peak = 0
        self.lowest = self.limit
        self.highest = self.limit

    # ------------------------------------------------------------------ slots
    def acquire(self, kind: str, max_wait_s: float | None = None) -> Slot:
        """Wait (at most ``queue_timeout_s``, or ``max_wait_s`` if smaller) for a slot."""
        bound = self.settings.wait_s if max_wait_s is None else min(self.settings.wait_s, max_wait_s)
        started = time.monotonic()
        with self._cond:
            while self.in_flight >= int(self.limit):
                left = bound - (time.monotonic() - started)
                if left <= 0:
                    raise QueueTimeout(
                        f"openai backend: a request waited {bound:g} s for one of the {int(self.limit)} requests "
                        f"{self.server} sustains at once ({self.speed()}); ask fewer questions at once (the "
                        "planner's max_in_flight) or raise openai.queue_timeout_s")
                self._cond.wait(min(left, 1.0))
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            waited = time.monotonic() - started
            self.queued_s += waited
            return Slot(kind, time.monotonic(), self.in_flight, waited)

    def release(self, slot: Slot, outcome: str, completion_tokens: int = 0) -> float:
        """End a request: ``ok`` (answered), ``timeout``, ``overload`` (429/5xx) or ``error`` (no
        signal about load); returns its latency."""
        latency = time.monotonic() - slot.sent
        with self._cond:
            self.in_flight -= 1
            if outcome == "ok":
                self._answered(slot, latency, completion_tokens)
            elif outcome in ("timeout", "overload"):
                if outcome == "timeout":
                    self.timeouts += 1
                else:
                    self.overloads += 1
                if self.settings.adaptive:
                    self.limit = max(1.0, self.limit / 2.0)
            self.lowest = min(self.lowest, self.limit)
            self._cond.notify_all()
        return latency

    def _answered(self, slot: Slot, latency: float, tokens: int) -> None:
        self.answered += 1
        self.latency_total += latency
        if tokens > 0:
            self.tokens_total += tokens
            self.token_seconds += latency
        base = min(self._base.get(slot.kind, latency), latency)
        self._base[slot.kind] = base
        if latency <= 0 or not self.settings.adaptive:
            return
        queue = slot.in_flight * (1.0 - base / latency)
        if queue < self.settings.queue_low and slot.in_flight >= int(self.limit):
            self.limit = min(float(self.settings.ceiling), self.limit + 1.0 / self.limit)  # the limit was used
        elif queue > self.settings.queue_high:
            self.limit = max(1.0, self.limit - 1.0 / self.limit)
        self.highest = max(self.highest, self.limit)

    # ---------------------------------------------------------------- figures
    def seconds_per_request(self) -> float:
        return self.latency_total / self.answered if self.answered else 0.0

    def tokens_per_s(self) -> float:
        return self.tokens_total / self.token_seconds if self.token_seconds > 0 else 0.0

    def speed(self) -> str:
        """``3.2 s/request, 11 tokens/s over 40 answers, limit 2 in flight`` (or that nothing answered yet)."""
        if not self.answered:
            return f"no answer measured yet ({self.timeouts} timeouts), limit {int(self.limit)} in flight"
        return (f"{self.seconds_per_request():.1f} s/request, {self.tokens_per_s():.0f} tokens/s over "
                f"{self.answered} answers, limit {int(self.limit)} in flight")

    def describe(self) -> dict[str, Any]:
        with self._cond:
            return {"limit": int(self.limit), "lowest": int(self.lowest), "highest": int(self.highest),
                    "peak": self.peak, "answered": self.answered, "timeouts": self.timeouts,
                    "overloads": self.overloads, "s_per_request": round(self.seconds_per_request(), 3),
                    "tokens_per_s": round(self.tokens_per_s(), 1), "queued_s": round(self.queued_s, 2)}


class QuestionClock:
    """The deadline of one question (``openai.question_timeout_s``), paused while every request the
    question has outstanding waits for a slot here (that wait has its own bound, and at most
    ``max_pause_s`` of it is not counted): a question never times out in the client's own queue,
    and a question with a request at the server is on the clock."""

    def __init__(self, timeout_s: float, max_pause_s: float) -> None:
        self.timeout_s = timeout_s
        self._start = time.monotonic()
        self._max_pause = max_pause_s
        self._paused = 0.0
        self._pause_started: float | None = None
        self._outstanding = 0
        self._queued = 0
        self._lock = threading.Lock()
        #: the backend's generation when the question began (a backend closed since abandons it)
        self.generation = 0

    def _update(self) -> None:
        now = time.monotonic()
        paused = self._outstanding > 0 and self._queued == self._outstanding
        if paused and self._pause_started is None:
            self._pause_started = now
        elif not paused and self._pause_started is not None:
            self._paused += now - self._pause_started
            self._pause_started = None

    def _count(self, outstanding: int = 0, queued: int = 0) -> None:
        with self._lock:
            self._outstanding += outstanding
            self._queued += queued
            self._update()

    @contextmanager
    def request(self) -> Iterator[None]:
        """One request of the question, from its first attempt to its last (backoff included)."""
        self._count(outstanding=1)
        try:
            yield
        finally:
            self._count(outstanding=-1)

    @contextmanager
    def queued(self) -> Iterator[None]:
        """A request of the question waiting for a slot."""
        self._count(queued=1)
        try:
            yield
        finally:
            self._count(queued=-1)

    def paused(self) -> float:
        with self._lock:
            running = time.monotonic() - self._pause_started if self._pause_started is not None else 0.0
            return min(self._max_pause, self._paused + running)

    def remaining(self) -> float:
        return self._start + self.timeout_s + self.paused() - time.monotonic()


_LIMITERS: dict[tuple[str, str, LimiterSettings], AdaptiveLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(base_url: str, model: str, settings: LimiterSettings) -> AdaptiveLimiter:
    """The limiter of one server in this process (every backend asking it shares it)."""
    with _LIMITERS_LOCK:
        key = (base_url, model, settings)
        if key not in _LIMITERS:
            _LIMITERS[key] = AdaptiveLimiter(settings, f"{model} at {base_url}")
        return _LIMITERS[key]
