"""The model server as the planner and executor nodes see it: reachable or not, how fast, and
whether questions go to the embedded provider meanwhile (``llm_fallback``).

A daemon thread probes ``GET <base_url>/models`` of the openai backend every diagnostics period,
bounded by ``llm_probe_timeout_s``; any HTTP answer means the server answers. While it does not, a
:class:`~llm_planner.llm.factory.FallbackBackend` is told (``primary_down``) so questions go
straight to the embedded offline provider instead of each waiting out the client's retries; once
the server answers again it is asked again. :meth:`diagnose` is the node's ``model server`` status
on /diagnostics (OK, WARN when slower than ``llm_latency_warn_s``, ERROR when not answering).
"""
from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from diagnostic_msgs.msg import DiagnosticStatus

from llm_planner.errors import LlmPlannerError
from llm_planner.llm.reachability import reach
from llm_planner_ros.managed_node import ERROR, OK, WARN, status


@dataclass
class Probe:
    reachable: bool
    latency_s: float
    detail: str
    at: float  # time.monotonic() of the probe


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
        return lm, str(lm.describe().get("base_url", ""))

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
        started = time.monotonic()
        reachable, detail = reach(base_url, self.params["llm_probe_timeout_s"])
        self.last = Probe(reachable, time.monotonic() - started, detail, time.monotonic())
        if hasattr(lm, "primary_down"):  # a FallbackBackend (llm_fallback: offline)
            lm.primary_down = "" if reachable else f"the model server {base_url} is {detail}"
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
        if not probe.reachable:
            then = ("planning on the embedded offline provider until it answers"
                    if self.params["llm_fallback"] == "offline"
                    else "tasks that ask it fail (llm_fallback: none)")
            return status(name, ERROR, f"{base_url} {probe.detail}; {then}", values)
        slow = max(probe.latency_s, usage.seconds / usage.questions if usage.questions else 0.0)
        if slow > self.params["llm_latency_warn_s"]:
            return status(name, WARN, f"{base_url} is slow: {slow:.1f} s (llm_latency_warn_s "
                          f"{self.params['llm_latency_warn_s']:g})", values)
        return status(name, OK, f"{base_url} {probe.detail} in {probe.latency_s * 1000:.0f} ms", values)
