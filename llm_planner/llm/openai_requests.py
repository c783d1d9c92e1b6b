"""The requests of the openai backend (:mod:`llm_planner.llm.openai_backend`): one chat completion
with bounded retries inside the server's in-flight limit, and M samples in one request or at once."""
from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from typing import TYPE_CHECKING, Any

from llm_planner.errors import ModelServerError
from llm_planner.llm.in_flight import AdaptiveLimiter, AnswerTimeout, QuestionClock
from llm_planner.llm.openai_http import (
    FormatRefused,
    NRefused,
    choice_text,
    cut_at_stop,
    refused_parameter,
    retry_after,
    server_message,
    short,
)
from llm_planner.llm.request_gate import request_gate

if TYPE_CHECKING:
    import threading

    import openai
    from openai.types.chat import ChatCompletionMessageParam

    from llm_planner.llm.base import Usage


class OpenAIRequests:
    """Request machinery mixed into :class:`~llm_planner.llm.openai_backend.OpenAIBackend` (which
    sets the attributes below from ``config/llm.yaml``'s ``openai`` section)."""

    base_url: str
    timeout_s: float
    question_timeout_s: float
    max_retries: int
    backoff_initial_s: float
    backoff_max_s: float
    n_supported: bool
    key_env: str
    limiter: AdaptiveLimiter
    sleep: Callable[[float], None]
    # (set by LanguageModel)
    _usage: Usage
    _usage_lock: threading.Lock

    if TYPE_CHECKING:
        @property
        def model(self) -> str: ...
        def client(self) -> openai.OpenAI: ...
        def _client_for(self, clock: QuestionClock) -> openai.OpenAI: ...
        def check_abandoned(self, clock: QuestionClock) -> None: ...

    def backoff(self, retry: int, retry_after_s: float | None = None) -> float:
        """Seconds to sleep before retry number ``retry`` (0-based)."""
        delay = min(self.backoff_initial_s * (2.0 ** retry), self.backoff_max_s)
        if retry_after_s is not None and retry_after_s > 0:
            delay = min(max(delay, retry_after_s), self.backoff_max_s)
        return delay

    def speed(self) -> str:
        """The server's measured speed, for error messages."""
        return f"measured at {self.base_url}: {self.limiter.speed()}"

    def _timed_out(self, what: str) -> str:
        return (f"{what}; {self.speed()}. A slow server needs more time per request (openai.timeout_s, now "
                f"{self.timeout_s:g} s) and per question (openai.question_timeout_s, now "
                f"{self.question_timeout_s:g} s), "
                "or fewer questions at once (the planner's max_in_flight; openai.max_in_flight, now "
                f"{self.limiter.settings.ceiling})")

    # ---------------------------------------------------------------- requests
    def _create(self, kind: str, messages: list[ChatCompletionMessageParam], n: int, params: dict[str, Any],
                clock: QuestionClock) -> list[str]:
        """One chat completion with bounded retries, each attempt holding a slot of the server's
        in-flight limit; returns the texts of its choices."""
        with clock.request():
            return self._attempts(kind, messages, n, params, clock)

    def _attempts(self, kind: str, messages: list[ChatCompletionMessageParam], n: int, params: dict[str, Any],
                  clock: QuestionClock) -> list[str]:
        import openai  # noqa: PLC0415 - heavy optional: the openai client only on the served-model path

        last = ""
        timeouts = 0
        others = 0  # failed attempts that were no timeout (connection, HTTP 429/5xx, unreadable)
        wait_after: float | None = None
        for attempt in range(self.max_retries + 1):
            self.check_abandoned(clock)  # closed: the failure was the abandonment, nothing asks again
            if attempt:
                with self._usage_lock:
                    self._usage.retries += 1
                self.sleep(min(self.backoff(attempt - 1, wait_after), max(0.0, clock.remaining())))
                self.check_abandoned(clock)
            wait_after = None
            gate = ExitStack()  # the process-wide gate (bench --llm-max-in-flight): one slot per request
            with clock.queued():
                slot = self.limiter.acquire(kind)
                gate.enter_context(request_gate().hold())
            remaining = clock.remaining()
            try:
                client = self._client_for(clock)
            except BaseException:
                gate.close()
                self.limiter.release(slot, "error")
                raise
            if remaining <= 0:
                gate.close()
                self.limiter.release(slot, "error")
                what = (f"openai backend: model '{self.model}' at {self.base_url} gave no usable answer within "
                        f"{clock.timeout_s:g} s (openai.question_timeout_s)" + (f"; last: {last}" if last else ""))
                if others:
                    raise ModelServerError(self._timed_out(what) if timeouts else what)
                raise AnswerTimeout(self._timed_out(what))
            with self._usage_lock:
                self._usage.requests += 1
            outcome, response = "error", None
            try:
                kwargs = dict(params)
                if n != 1:
                    kwargs["n"] = n
                response = client.chat.completions.create(model=self.model, messages=messages,
                                                                 timeout=min(self.timeout_s, remaining), **kwargs)
                outcome = "ok"
            except openai.APITimeoutError:
                outcome = "timeout"
                timeouts += 1
                last = f"no answer within the timeout of {self.timeout_s:g} s (openai.timeout_s)"
                continue
            except openai.APIConnectionError as exc:
                others += 1
                last = f"cannot connect to {self.base_url} ({short(exc)})"
                continue
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status == 429 or status >= 500:
                    others += 1
                    outcome = "overload"
                    last = f"HTTP {status} {server_message(exc)}"
                    wait_after = retry_after(exc)
                    continue
                if status in (400, 422):
                    refused = refused_parameter(exc, n, "response_format" in kwargs)
                    if refused == "response_format":
                        raise FormatRefused(f"HTTP {status} {server_message(exc)}") from None
                    if refused == "n":
                        raise NRefused(f"HTTP {status} {server_message(exc)}") from None
                if status in (401, 403):
                    raise ModelServerError(f"openai backend: {self.base_url} refused the API key (HTTP {status}); "
                                   f"check the environment variable {self.key_env}") from None
                if status == 404:
                    raise ModelServerError(f"openai backend: {self.base_url} has no model '{self.model}' or no chat "
                                   f"completions endpoint (HTTP 404 {server_message(exc)})") from None
                raise ModelServerError(f"openai backend: {self.base_url} rejected the request (HTTP {status} "
                               f"{server_message(exc)})") from None
            except Exception as exc:  # noqa: BLE001 - malformed JSON and any other client failure: never a crash
                others += 1
                last = f"unreadable answer ({type(exc).__name__}: {short(exc)})"
                continue
            finally:
                gate.close()
                tokens = int(getattr(getattr(response, "usage", None), "completion_tokens", 0) or 0)
                self.limiter.release(slot, outcome, tokens)
            usage = getattr(response, "usage", None)
            with self._usage_lock:
                self._usage.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
                self._usage.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)
            choices = list(getattr(response, "choices", None) or [])
            if not choices:
                others += 1
                last = "the answer has no choices"
                continue
            return [cut_at_stop(choice_text(c), params.get("stop")) for c in choices]
        self.check_abandoned(clock)
        what = (f"openai backend: model '{self.model}' at {self.base_url} failed after {self.max_retries + 1} "
                f"attempt(s): {last}")
        if others:
            raise ModelServerError(self._timed_out(what) if timeouts else what)
        raise AnswerTimeout(self._timed_out(what))

    def _sample(self, kind: str, messages: list[ChatCompletionMessageParam], n: int, params: dict[str, Any],
                clock: QuestionClock) -> tuple[list[str], int]:
        """n samples: one request with ``n`` when the server honours it, else the missing ones one
        request each, at once (seeds 0..n-1), within the server's in-flight limit."""
        texts: list[str] = []
        requests_before = self._usage.requests
        if n > 1 and self.n_supported:
            try:
                texts = self._create(kind, messages, n, params, clock)[:n]
            except NRefused:
                self.n_supported = False  # remembered for this backend's lifetime
        guard = 0
        while len(texts) < n and guard < 2:
            guard += 1
            missing = n - len(texts)
            if missing == 1:
                texts.extend(self._create(kind, messages, 1, params, clock)[:1])
                continue
            seeds = range(len(texts), len(texts) + missing)
            with ThreadPoolExecutor(max_workers=missing, thread_name_prefix="llm-sample") as pool:
                futures = [pool.submit(self._create, kind, messages, 1, {**params, "seed": s}, clock) for s in seeds]
                results = [f.result() for f in futures]
            texts.extend(t for r in results for t in r[:1])
        return texts[:n], self._usage.requests - requests_before

