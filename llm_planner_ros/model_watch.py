"""The model server as the planner and executor nodes see it: up or gone, busy or answering, how
fast, and whether questions go to the embedded provider meanwhile (``llm_fallback``).

A daemon thread probes the server of the openai backend every diagnostics period, each step bounded
by ``llm_probe_timeout_s``: first a TCP connection (:func:`~llm_planner.llm.liveness.accepts_connections`:
the kernel accepts it however long the server's queue is), then ``GET <base_url>/models`` (any HTTP
answer means the server answers). A server that accepts connections but does not answer the request
in time is busy, not gone: questions still go to it. Only while it accepts no connection is a
:class:`~llm_planner.llm.factory.FallbackBackend` told (``primary_down``) so questions go straight to
the embedded offline provider instead of each waiting out the client's retries; once the server is
up again it is asked again. The probe never goes through the backend's own requests (no server
profile, no in-flight slot), so it is not stuck behind the search's questions. :meth:`diagnose` is the
node's ``model server`` status on /diagnostics (OK; WARN when busy or slower than
``llm_latency_warn_s``; ERROR when gone).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diagnostic_msgs.msg import DiagnosticStatus

from llm_planner.errors import LlmPlannerError
from llm_planner.llm.liveness import accepts_connections
from llm_planner.llm.reachability import reach
from llm_planner_ros.managed_node import ERROR, OK, WARN, status


@dataclass
class Probe:
    reachable: bool  # the server accepts connections (up, busy or not)
    latency_s: float
    detail: str
    at: float  # time.monotonic() of the probe
    busy: bool = False  # up, but GET /models got no answer within llm_probe_timeout_s


class ModelWatch:
    """Probes the model server of ``domain.language_model()`` while the node is configured."""

    def __init__(self, domain: Any, params: Mapping[str, Any], name: str) -> None:
        self.domain = domain
        self.params = params
        self.name = name
        self.last: Probe | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._loop, name="model-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _server(self) -> tuple[Any, str]:
        """(the LanguageModel, its server's base URL or "" for the embedded provider)."""
        if self.params["llm_backend"] != "openai":
            return None, ""
        lm = self.domain.language_model()
        return lm, lm.server_url()

    def _loop(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                self.probe()
            except Exception as exc:  # noqa: BLE001 - a probe must not end the watch
                self.last = Probe(False, 0.0, f"probe failed: {type(exc).__name__}: {exc}", time.monotonic())
            period = 1.0 / self.params["diagnostics_rate_hz"]
            self._stop.wait(max(0.0, period - (time.monotonic() - started)))

    def probe(self) -> Probe | None:
        lm, base_url = self._server()
        if not base_url:
            self.last = None
            return None
        timeout = self.params["llm_probe_timeout_s"]
        started = time.monotonic()
        up, detail = accepts_connections(base_url, timeout)
        answers = False
        if up:
            answers, said = reach(base_url, timeout)
            detail = said if answers else f"accepts connections but did not answer GET /models within {timeout:g} s"
        self.last = Probe(up, time.monotonic() - started, detail, time.monotonic(), busy=up and not answers)
        if hasattr(lm, "primary_down"):  # a FallbackBackend (llm_fallback: offline): only a gone server
            lm.primary_down = "" if up else f"the model server {base_url} {detail}"
        return self.last

    def diagnose(self) -> DiagnosticStatus:
        name = f"{self.name}: model server"
        if self.params["llm_backend"] != "openai":
            return status(name, OK, "embedded offline provider (no model server)", {"backend": "offline"})
        try:
            lm, base_url = self._server()
        except LlmPlannerError as exc:  # no key for a server that needs one, a bad configuration file
            return status(name, ERROR, f"the openai backend cannot be used: {exc}", {"backend": "openai"})
        usage = lm.usage
        values: dict[str, Any] = {"base_url": base_url, "model": lm.model, "llm_fallback": self.params["llm_fallback"],
                                  "requests": usage.requests, "failures": usage.failures,
                                  "fallback answers": usage.fallbacks}
        if usage.questions:
            values["mean answer s"] = f"{usage.seconds / usage.questions:.2f}"
        probe = self.last
        if probe is None:
            return status(name, WARN, f"{base_url}: not probed yet", values)
        values.update({"probe latency s": f"{probe.latency_s:.3f}",
                       "probe age s": f"{time.monotonic() - probe.at:.1f}"})
        state = getattr(lm, "fallback_state", "")
        if state:
            values["last fallback"] = state
        if not probe.reachable:
            then = ("planning on the embedded offline provider until it answers"
                    if self.params["llm_fallback"] == "offline"
                    else "tasks that ask it fail (llm_fallback: none)")
            return status(name, ERROR, f"{base_url} {probe.detail}; {then}", values)
        if probe.busy:
            return status(name, WARN, f"{base_url} is busy: it {probe.detail}; questions still go to it", values)
        slow = max(probe.latency_s, usage.seconds / usage.questions if usage.questions else 0.0)
        if slow > self.params["llm_latency_warn_s"]:
            return status(name, WARN, f"{base_url} is slow: {slow:.1f} s (llm_latency_warn_s "
                          f"{self.params['llm_latency_warn_s']:g})", values)
        return status(name, OK, f"{base_url} {probe.detail} in {probe.latency_s * 1000:.0f} ms", values)
