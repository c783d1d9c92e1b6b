"""A process-wide gate every HTTP request to a model server passes.

Many benchmark workers on a cluster may share one model server or one hosted API. The in-flight
limiter of a backend (:mod:`llm_planner.llm.in_flight`) limits what one process sends; a gate installed
here limits what all processes send together: ``bench ... --ray --llm-max-in-flight N`` installs, in
every Ray worker, a gate backed by one Ray actor (a semaphore of N slots). Without a gate the default lets every request
through at once and costs nothing.

A backend sends each request inside ``with request_gate().hold():``; the gate counts the requests
that had to wait for a slot (``throttled``), which the benchmark header reports. This module imports
neither Ray nor ROS.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol


class RequestGate(Protocol):
    """What a backend needs of a gate: hold a slot for the duration of one request."""

    def hold(self) -> AbstractContextManager[None]:  # pragma: no cover - a protocol
        ...


class OpenGate:
    """No limit (the default): every request goes at once; counts the requests it saw."""

    def __init__(self) -> None:
        self.requests = 0
        self._lock = threading.Lock()

    @contextmanager
    def hold(self) -> Iterator[None]:
        with self._lock:
            self.requests += 1
        yield


_GATE: RequestGate = OpenGate()


def request_gate() -> RequestGate:
    """The gate of this process (an :class:`OpenGate` unless one was installed)."""
    return _GATE


def set_request_gate(gate: RequestGate | None) -> RequestGate:
    """Install ``gate`` for this process (None: the open gate again); returns the previous one."""
    global _GATE
    previous, _GATE = _GATE, (gate if gate is not None else OpenGate())
    return previous
