"""Backend ``openai``: any OpenAI-compatible chat-completions server (OpenAI, vLLM, Ollama,
llama.cpp server, LM Studio, ``transformers serve``) through the real ``openai`` client.

A client that knows its server (:mod:`llm_planner.llm.server_profile`): on first contact a few tiny
requests find out whether the server honours ``n``, samples at ``temperature`` > 0 or decodes
greedily, honours ``response_format`` and ``logprobs``; that is said once in the log and in
:meth:`OpenAIBackend.describe`, and the backend adapts:

* ``n`` ignored or refused: the M samples of a question are asked at once, one request each (with
  ``seed`` 0..M-1 so a server that honours seeds gives M different answers);
* greedy decoding: ONE sample per question, as M identical answers are one answer (a method that
  estimates a distribution from M samples then has one, and says so through the profile);
* structured output ignored or refused: questions are asked in plain text (no ``response_format``).

Requests in flight follow what the server sustains (:mod:`llm_planner.llm.in_flight`: an adaptive
limit on measured latency, halved on timeouts and overloads, shared by every question asked of one
server in a process), so questions never queue at the server into their own timeouts and retries
never pile onto a saturated server. Time a request waits for a slot in the client is not counted in
``openai.question_timeout_s`` (it has its own bound, ``openai.queue_timeout_s``).

Faults are bounded, never a crash and never a hang:

* every request has a timeout (``openai.timeout_s``: connect, read, write), and one question with
  all its retries and samples gives up after ``openai.question_timeout_s`` at the server;
* connection errors, timeouts, 429, 5xx and answers without choices are retried at most
  ``openai.max_retries`` times, sleeping ``min(backoff_initial_s * 2**k, backoff_max_s)`` before
  retry k (a server's Retry-After is honoured up to ``backoff_max_s``); the client's own retry
  machinery is switched off (``max_retries=0``) so this bound is the only one; a timeout names the
  server, its measured speed and the settings to change;
* other HTTP errors (401, 404, 400 ...) fail at once with a message that says what to fix;
* :meth:`OpenAIBackend.close` (and the end of the process) abandons the questions in flight: their
  connections are shut down and each raises at once, unasked again (:mod:`llm_planner.llm.connections`);
* answers that parse to nothing, or whose names ground to nothing in the scene, are asked again
  ``openai.parse_retries`` times, then raise :class:`~llm_planner.errors.ModelServerError` (an LLMError).

What a question asks and how its answer reads is its kind's ``openai`` answerer, registered by the
method that asks it (:mod:`llm_planner.llm.questions`; the household's: LLM-MCTS's
:mod:`llm_planner.methods.llm_mcts.openai_answers`): it builds the prompt, asks it with
:meth:`OpenAIBackend.ask` and reads the answer. Answers in any style: questions ask for structured
output (``response_format`` with the question's JSON schema, ``llm_planner.llm.answers.SCHEMAS``)
when ``openai.structured_output`` is ``auto`` or ``json_schema`` and the server honours it; in
``auto`` a server that refuses it (HTTP 400/422 naming it) is asked again in plain text, and
remembered. Either way the answer is read by the style-proof readers of ``llm_planner.llm.answers``
(JSON, lists, markdown, "Sure! ...", thinking preambles). Each question kind has its answer budget
(``max_tokens`` and ``stop`` of its section in config/llm.yaml, :meth:`OpenAIBackend.budget`).
The API key is read from the environment variable named by ``openai.api_key_env``; it is never
logged, cached or printed. Answers that parse are cached on disk (:mod:`llm_planner.llm.cache`).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlparse

from llm_planner.errors import LLMError, ModelServerError, UnusableAnswer
from llm_planner.llm.answers import response_format, schema_of
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.cache import AnswerCache, cache_key
from llm_planner.llm.config import LLMConfig
from llm_planner.llm.connections import (
    Connections,
    QuestionAbandoned,
    close_at_exit,
    exiting,
    tracked_http_client,
)
from llm_planner.llm.in_flight import AdaptiveLimiter, LimiterSettings, QuestionClock, limiter_for
from llm_planner.llm.openai_http import FormatRefused
from llm_planner.llm.openai_requests import OpenAIRequests
from llm_planner.llm.resources import Resources
from llm_planner.llm.server_profile import (
    IGNORED,
    REFUSED,
    ProbeSettings,
    ServerProfile,
    probe_server,
    server_profile,
)
from llm_planner.llm.waits import AnswerTimes, WaitSettings, answer_times

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletionMessageParam

T = TypeVar("T")

OPENAI_HOSTS = ("api.openai.com",)
LOG = logging.getLogger("llm_planner.llm.openai")


@dataclass
class _Reply:
    texts: list[str]
    cached: bool
    requests: int


class OpenAIBackend(OpenAIRequests, LanguageModel):
    """The ``openai`` client against ``openai.base_url`` (see the module docstring)."""

    name = "openai"

    def __init__(self, config: LLMConfig, resources: Resources, cache: AnswerCache | None = None) -> None:
        super().__init__(config, resources)
        self.cache = cache
        opts = config.section("openai")
        self.base_url: str = str(opts["base_url"]).rstrip("/")
        self._model: str = str(opts["model"])
        self.timeout_s = float(opts["timeout_s"])
        self.question_timeout_s = float(opts.get("question_timeout_s", 120.0))
        self.max_retries = int(opts["max_retries"])
        self.parse_retries = int(opts.get("parse_retries", 1))
        self.backoff_initial_s = float(opts["backoff_initial_s"])
        self.backoff_max_s = float(opts["backoff_max_s"])
        self.n_supported = bool(opts["n_in_one_request"])
        self.structured_mode = str(opts.get("structured_output", "auto"))
        self.structured_supported = self.structured_mode != "off"
        self.greedy = False
        self.key_env = str(opts["api_key_env"])
        self.probe_settings = ProbeSettings.from_config(opts)
        self.limiter: AdaptiveLimiter = limiter_for(self.base_url, self._model, LimiterSettings.from_config(opts))
        self.wait_settings = WaitSettings.from_config(config.section("waits"))
        self._profile: ServerProfile | None = None
        self._client: openai.OpenAI | None = None
        self._connections: Connections | None = None
        #: bumped by :meth:`close`: a question asked before it is abandoned (``QuestionClock.generation``)
        self._generation = 0
        self._closing = threading.Event()  # set by close(): a backoff sleep of an abandoned question ends
        self._client_lock = threading.Lock()
        self.sleep: Callable[[float], None] = self._sleep_unless_closed
        close_at_exit(self)

    @property
    def model(self) -> str:
        return self._model

    def describe(self) -> dict[str, Any]:
        """Backend, model, server and what the server honours (probed now if not yet), the in-flight
        limit and the server's measured speed."""
        profile = self.server_profile()
        return {"backend": self.name, "model": self.model, "base_url": self.base_url,
                "structured_output": self.structured_mode, "server": profile.summary(),
                "server_profile": profile.as_dict(), "in_flight": self.limiter.describe(),
                "samples": "one per question (greedy server)" if self.greedy else
                "n in one request" if self.n_supported else "one request each, at once"}

    # ------------------------------------------------------------------ server
    def server_url(self) -> str:
        return self.base_url

    def answer_times(self, kind: str) -> AnswerTimes:
        """How long questions of ``kind`` take at this server, shared by the process's backends
        (:mod:`llm_planner.llm.waits`)."""
        return answer_times(f"{self.model} at {self.base_url}", kind, self.wait_settings)

    def samples_in_one_request(self) -> bool:
        """False when the server ignores or refuses ``n`` (probed now if not yet): M samples are M requests."""
        self.server_profile()
        return self.n_supported or self.greedy

    def server_profile(self) -> ServerProfile:
        """What the server honours (:mod:`llm_planner.llm.server_profile`), probed on first call and
        cached per server in the process; the backend adapts to it (module docstring)."""
        profile = self._profile
        if profile is not None and (profile.probed or not self.probe_settings.enabled
                                    or time.monotonic() - profile.when < self.probe_settings.retry_after_s):
            return profile
        if not self.probe_settings.enabled:
            profile = ServerProfile(self.base_url, self.model, error="openai.probe.enabled is false",
                                    when=time.monotonic())
        else:
            client = self.client()
            profile = server_profile(self.base_url, self.model,
                                     lambda: probe_server(client, self.base_url, self.model, self.probe_settings),
                                     self.probe_settings, on_new=_log_profile)
        self._adapt(profile)
        self._profile = profile
        return profile

    def _adapt(self, profile: ServerProfile) -> None:
        if not profile.probed:
            return
        if profile.n in (IGNORED, REFUSED):
            self.n_supported = False
        if profile.structured_output in (IGNORED, REFUSED) and self.structured_mode == "auto":
            self.structured_supported = False
        self.greedy = profile.greedy and bool(self.config.get("openai.probe.greedy_one_sample"))

    # ------------------------------------------------------------------ client
    def _api_key(self) -> str:
        key = os.environ.get(self.key_env, "").strip()
        if key:
            return key
        host = urlparse(self.base_url).hostname or ""
        if host in OPENAI_HOSTS:
            raise ModelServerError(f"the openai backend needs an API key: set the environment variable {self.key_env} "
                           "(openai.api_key_env in config/llm.yaml names it)")
        return "no-key"  # local OpenAI-compatible servers usually ignore the key

    def client(self) -> openai.OpenAI:
        """The ``openai`` client, made on first use (and again after :meth:`close`); its connections
        are kept so that :meth:`close` can abandon the requests in flight
        (:mod:`llm_planner.llm.connections`)."""
        with self._client_lock:
            if self._client is None:
                try:
                    import openai  # noqa: PLC0415 - heavy optional: the openai client only on the served-model path
                except ImportError as exc:
                    raise ModelServerError(f"the openai package is not installed ({exc}); pip "
                                           "install -r requirements.txt") from None
                http_client, self._connections = tracked_http_client(self.timeout_s)
                self._client = openai.OpenAI(api_key=self._api_key(), base_url=self.base_url,
                                             timeout=self.timeout_s, max_retries=0, http_client=http_client)
            return self._client

    def close(self) -> None:
        """Abandon the questions in flight at once: their connections are shut down (the server sees
        the client gone), each raises :class:`~llm_planner.llm.connections.QuestionAbandoned` instead
        of asking again, and nothing waits for them. A question asked afterwards opens a new client.
        Called at interpreter exit for every backend (before question threads are joined)."""
        with self._client_lock:
            self._generation += 1
            client, connections, closing = self._client, self._connections, self._closing
            self._client, self._connections, self._closing = None, None, threading.Event()
        closing.set()
        if connections is not None:
            connections.abandon()
        if client is not None:
            client.close()

    def _sleep_unless_closed(self, seconds: float) -> None:
        """A backoff sleep, cut short by :meth:`close`."""
        self._closing.wait(seconds)

    def _client_for(self, clock: QuestionClock) -> openai.OpenAI:
        """The client for a request of the question timed by ``clock``; QuestionAbandoned once the
        backend was closed after the question began."""
        self.check_abandoned(clock)
        client = self.client()
        self.check_abandoned(clock)  # closed between the two: the request would go to the new client
        return client

    def check_abandoned(self, clock: QuestionClock) -> None:
        """Raise QuestionAbandoned when the backend was closed after the question of ``clock`` began."""
        if clock.generation != self._generation or exiting():
            raise QuestionAbandoned(f"openai backend: the question to model '{self.model}' at {self.base_url} "
                                    "was abandoned: the language model was closed")

    def ask(self, kind: str, prompt: str, n: int, params: dict[str, Any], parse: Callable[[list[str]], T],
            cache_extra: dict[str, Any] | None = None) -> tuple[T, _Reply]:
        """Ask ``prompt`` for ``n`` samples (one when the server decodes greedily) and parse them;
        cached by (backend, model, prompt, params). Structured output is asked for with the schema of
        ``kind`` (``answers.schema_of``: the layer's, or the one its method registered) while the
        server honours it (see the module docstring)."""
        profile = self.server_profile()
        if self.structured_mode == "json_schema" and profile.structured_output == REFUSED:
            raise ModelServerError(f"openai backend: {self.base_url} refused structured output "
                                   "(probed on first contact); "
                           "set openai.structured_output: auto (falls back to text) or off")
        if self.greedy:
            n = 1  # M identical answers are one answer (the profile says so)
        schema = schema_of(kind)
        if schema and self.structured_supported:
            try:
                return self._ask(kind, prompt, n, {**params, "response_format": response_format(schema)}, parse,
                                 cache_extra)
            except FormatRefused as exc:
                if self.structured_mode == "json_schema":
                    raise ModelServerError(f"openai backend: {self.base_url} refused structured output ({exc}); set "
                                   "openai.structured_output: auto (falls back to text) or off") from None
                self.structured_supported = False  # remembered for this backend's lifetime
        return self._ask(kind, prompt, n, params, parse, cache_extra)

    def _ask(self, kind: str, prompt: str, n: int, params: dict[str, Any], parse: Callable[[list[str]], T],
             cache_extra: dict[str, Any] | None = None) -> tuple[T, _Reply]:
        messages: list[ChatCompletionMessageParam] = [{"role": "user", "content": prompt}]
        key_params = {"kind": kind, "n": n, **params, **(cache_extra or {})}
        key = cache_key(self.name, self.model, messages, key_params)
        if self.cache is not None:
            texts = self.cache.get(key)
            if texts is not None:
                try:
                    parsed = parse(texts)
                except UnusableAnswer:
                    pass  # an older cache entry this parser no longer accepts: ask again
                else:
                    with self._usage_lock:
                        self._usage.cache_hits += 1
                    return parsed, _Reply(texts, True, 0)
        error: UnusableAnswer | None = None
        requests = 0
        clock = QuestionClock(self.question_timeout_s, self.limiter.settings.wait_s)
        clock.generation = self._generation
        times = self.answer_times(kind)
        ticket = times.send(n, len(prompt))  # the server's time for this question (llm/waits.py)
        try:
            for attempt in range(self.parse_retries + 1):
                if attempt:
                    with self._usage_lock:
                        self._usage.retries += 1
                texts, used = self._sample(kind, messages, n, params, clock)
                requests += used
                try:
                    parsed = parse(texts)
                except UnusableAnswer as exc:
                    error = exc
                    continue
                if self.cache is not None:
                    self.cache.put(key, texts, self.name, self.model)
                return parsed, _Reply(texts, False, requests)
        except FormatRefused:
            times.discard(ticket)  # asked again in plain text: that question is the one measured
            raise
        except QuestionAbandoned:
            times.discard(ticket)  # closed before its answer: it says nothing of the server's time
            raise
        except LLMError:
            times.land(ticket, failed=True)
            raise
        finally:
            times.land(ticket)  # answered (an answer that does not read came all the same)
        assert error is not None
        raise UnusableAnswer(f"openai backend: model '{self.model}' {error} (after {self.parse_retries + 1} answer(s))")

    def budget(self, section: str, **extra: Any) -> dict[str, Any]:
        """Sampling and answer budget of a question kind (its section of config/llm.yaml), for the
        ``openai`` answerers methods register (:mod:`llm_planner.llm.questions`)."""
        opts = self.config.section(section)
        params: dict[str, Any] = {"temperature": float(opts["temperature"]), "max_tokens": int(opts["max_tokens"])}
        if "top_p" in opts:
            params["top_p"] = float(opts["top_p"])
        if opts.get("stop"):
            params["stop"] = list(opts["stop"])
        params.update(extra)
        return params


def _log_profile(profile: ServerProfile) -> None:
    """Say once per server and process what it honours (a warning when the backend must adapt)."""
    adapted = profile.probed and (profile.greedy or IGNORED in (profile.n, profile.structured_output)
                                  or REFUSED in (profile.n, profile.structured_output))
    (LOG.warning if adapted or not profile.probed else LOG.info)("openai backend: %s", profile.summary())
