"""``llm-planner serve``: an OpenAI-compatible chat-completions endpoint whose answers come from the
offline backend, on 127.0.0.1 only. It is the real boundary a user's model server sits on: the
nodes, the CLI and the benchmarks talk to it with ``--backend openai`` and ``openai.base_url``,
over real HTTP with the real ``openai`` client, its retries and its concurrency.

Endpoints: ``POST /v1/chat/completions`` (``messages``, ``n``, ``temperature``, ``max_tokens``,
``stop``, ``seed``, ``response_format`` ``json_schema``/``json_object``), ``GET /v1/models``,
``GET /stats`` (requests per question type, faults, latency; also printed by the CLI on exit) and
``GET /health``.

What a user's server does, on purpose and measurably:

* latency per request, fixed or drawn from a distribution (:class:`Latency`), spent while holding
  one of ``max_concurrency`` slots (requests beyond it queue, as on a GPU server);
* an answer style (``llm_planner_eval.stand_in.styles``) and, with ``response_format``, bare JSON of the
  question's schema (or HTTP 400 when structured output is switched off, as older servers do);
* ``max_tokens`` (the answer is cut, ``finish_reason: length``) and ``stop`` sequences honoured;
* what real servers silently do with a request's parameters, each on request: ``ignore_n`` (one
  choice whatever ``n``), ``greedy`` (the same answer to the same prompt whatever ``temperature``
  and ``seed``: a model without ``do_sample``), ``ignore_structured_output`` (``response_format``
  accepted, the answer in the style); ``transformers serve`` does all three. Otherwise ``seed`` is
  honoured (the samples of a request, and a random number asked without a seed, vary);
* wrong answers at ``error_rate`` (``--error-rate P --error-seed S [--error-correlation C]
  [--error-profile NAME]``): each sample is wrong with probability P, keyed by the prompt and the
  sample index (and, with C, its question's draw shared by its samples), the way language models
  are wrong: still readable in profile ``admissible`` (:mod:`llm_planner_eval.stand_in.wrong_answers`),
  unreadable, echoed, cut off or naming what is not there as a small real model's answers in profile
  ``smollm2`` (:mod:`llm_planner_eval.stand_in.inadmissible_answers`); ``GET /stats`` counts them
  under ``wrong`` by question and error kind;
* faults at ``fault_rate``: ``429`` (with Retry-After), ``500``, ``timeout`` (no answer for
  ``hang_s``), ``garbage`` (a body that is not JSON, or gibberish content) and ``refusal`` ("I'm
  sorry, I can't help with that", with ``message.refusal`` under structured output).

From Python::

    with ModelServer(ServeOptions(latency=Latency.fixed(0.2), style="chatty")) as server:
        backend = make_backend(server.client_config())
        ...
        server.stats()["answered"]         # {"policy": 120, "world_model": 30, "translate": 1, ...}

A launched node graph reaches it through ``server.write_client_config(FILE)`` and the environment
variable ``LLM_PLANNER_LLM_CONFIG=FILE`` (with ``llm_backend: openai``).

:class:`ServeProcess` runs the same server as a separate ``llm-planner serve`` process.
"""
from __future__ import annotations

import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import zlib
from collections.abc import Sequence
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.llm.client_config import ServedClientConfig
from llm_planner_eval.stand_in.inadmissible_answers import ANY_KIND
from llm_planner_eval.stand_in.serve_options import HOST, MAX_BODY, MODEL, ServeOptions, ServeStats
from llm_planner_eval.stand_in.served import ServedModel, classify, prompt_of
from llm_planner_eval.stand_in.styles import reasoning, render
from llm_planner_eval.stand_in.styles import structured as as_json
from llm_planner_eval.stand_in.wrong_answers import ErrorModel, load_error_settings


# ------------------------------------------------------------------------------ clients
class _ClientConfig(ServedClientConfig):
    """How a client reaches the stand-in (``base_url`` set by the subclass)."""

    model_name: str = MODEL


# ------------------------------------------------------------------------------ the server
class _BadRequest(Exception):
    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


class ModelServer(_ClientConfig):
    """The threaded HTTP server on 127.0.0.1 (a context manager; see the module docstring)."""

    def __init__(self, options: ServeOptions = ServeOptions(), model: Any = None) -> None:
        self.options = options.validate()
        self.model_name = options.model
        self.model = model or ServedModel()
        self.errors = None  # --error-rate: wrong answers, the way models are wrong (wrong_answers.py)
        if options.error_rate > 0:

            settings = load_error_settings(profile=options.error_profile)
            if options.error_correlation is not None:  # --error-correlation over config/serve_errors.yaml's
                settings = replace(settings, correlation=float(options.error_correlation))
            self.errors = ErrorModel(options.error_rate, options.error_seed, settings, any_kind=ANY_KIND)
        self.stats_ = ServeStats()
        self._rng = random.Random(options.seed)
        self._rng_lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(options.max_concurrency) if options.max_concurrency else None
        self._closing = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- life cycle
    def start(self) -> ModelServer:
        if self.options.warm_up:
            self.model.warm_up()
        handler = _handler_class(self)
        try:
            self._httpd = ThreadingHTTPServer((HOST, self.options.port), handler)
        except OSError as exc:
            raise ConfigError(f"cannot listen on {HOST}:{self.options.port} ({exc}); choose another --port "
                              "(0 picks a free one)") from None
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="llm-planner-serve", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ModelServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def wait(self) -> None:
        """Block until the server stops (Ctrl-C in the CLI)."""
        while self._thread is not None and self._thread.is_alive():
            self._thread.join(0.5)

    @property
    def port(self) -> int:
        assert self._httpd is not None, "the server is not running"
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        stats = self.stats_.snapshot()
        stats.update(error_rate=self.options.error_rate, error_profile=self.options.error_profile,
                     wrong=self.errors.counts() if self.errors else {})
        return stats

    # -- one request
    def draw(self, fn: str, *args: Any) -> Any:
        with self._rng_lock:
            return getattr(self._rng, fn)(*args)

    def complete(self, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes | None]:
        """(status, headers, body) of one chat completion request (None body: close without answer)."""

        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise _BadRequest("'messages' must be a non-empty list of chat messages", "messages")
        if body.get("stream"):
            raise _BadRequest("streaming is not supported by llm-planner serve; send stream=false", "stream")
        n = body.get("n", 1) or 1
        if not isinstance(n, int) or isinstance(n, bool) or n < 1 or n > 128:
            raise _BadRequest(f"'n' must be an integer in 1..128, got {n!r}", "n")
        if self.options.max_n and n > self.options.max_n:
            raise _BadRequest(f"'n' must be at most {self.options.max_n} for this model", "n")
        structured = _wants_json(body.get("response_format"))
        if structured and not self.options.structured_output:
            raise _BadRequest("response_format is not supported by this server; ask for plain text", "response_format")
        if self.options.ignore_structured_output:
            structured = ""
        if self.options.ignore_n:
            n = 1
        prompt = prompt_of(messages)
        kind = classify(prompt)
        self.stats_.count("by_kind", kind)
        self.stats_.add(requests=1)
        fault = self._fault()
        if fault in ("429", "500", "timeout", "garbage-body"):
            self.stats_.count("faults", fault.split("-")[0])
            return self._fault_reply(fault)
        given_seed = body.get("seed")
        seed = given_seed if isinstance(given_seed, int) else 0
        if kind == "random" and not isinstance(given_seed, int):
            seed = self.draw("getrandbits", 32)  # a sampling model's answer to "a random number" varies
        started = time.perf_counter()
        self._acquire()
        queued = time.perf_counter() - started
        try:
            self.stats_.add(in_flight=1)
            if self.options.greedy:  # one answer per prompt, written the same way every time
                _kind, samples = self.model.answer(prompt, 1, 0, errors=self.errors)
                samples = samples[:1] * n
            else:
                _kind, samples = self.model.answer(prompt, n, seed, errors=self.errors)
            delay = self.options.latency.draw(self._seeded())
            if delay:
                self._closing.wait(delay)
            choices = [self._choice(i, s, body, structured, fault, prompt) for i, s in enumerate(samples)]
        finally:
            self.stats_.add(in_flight=-1, latency_s=time.perf_counter() - started - queued, queue_s=queued)
            self._release()
        if fault:
            self.stats_.count("faults", fault.split("-")[0])
        else:
            self.stats_.count("answered", kind)
        self.stats_.add(choices=len(choices), structured=int(bool(structured)))
        prompt_tokens = _tokens(prompt)
        completion_tokens = sum(_tokens(c["message"].get("content") or "") for c in choices)
        reply = {"id": f"chatcmpl-{self.draw('getrandbits', 48):012x}", "object": "chat.completion",
                 "created": int(time.time()), "model": str(body.get("model") or self.options.model),
                 "choices": choices, "system_fingerprint": f"llm-planner-serve-{self.options.style}",
                 "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                           "total_tokens": prompt_tokens + completion_tokens}}
        return 200, {}, json.dumps(reply).encode()

    def _seeded(self) -> random.Random:
        """A generator seeded from the server's own (one draw), for a request's choices."""
        return random.Random(self.draw("getrandbits", 64))

    def _fault(self) -> str:
        if not self.options.fault_rate or self.draw("random") >= self.options.fault_rate:
            return ""
        fault = self.draw("choice", self.options.faults)
        if fault == "garbage":
            return self.draw("choice", ("garbage-body", "garbage-content"))
        return fault

    def _fault_reply(self, fault: str) -> tuple[int, dict[str, str], bytes | None]:
        if fault == "429":
            return 429, {"Retry-After": f"{self.options.retry_after_s:g}"}, _error(
                "Rate limit reached for requests; please retry after a moment.", "rate_limit_exceeded")
        if fault == "500":
            return 500, {}, _error("The server had an error while processing your request.", "server_error")
        if fault == "timeout":
            self._closing.wait(self.options.hang_s)
            return 0, {}, None
        return 200, {}, b'{"id": "chatcmpl-x", "object": "chat.completion", "choices": [{"index": 0, "mess'

    def _choice(self, index: int, sample: Any, body: dict[str, Any], structured: str, fault: str,
                prompt: str = "") -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant"}
        if fault == "refusal":
            message.update(content=None if structured else "I'm sorry, but I can't help with that request.",
                           refusal="I'm sorry, but I can't help with that request.")
            return {"index": index, "message": message, "finish_reason": "stop"}
        if fault == "garbage-content":
            junk = " ".join(self.draw("choice", ("lorem", "ipsum", "}{", "null", "###", "\u2588", "qwz", "[[", "..."))
                            for _ in range(12))
            message["content"] = junk
            return {"index": index, "message": message, "finish_reason": "stop"}
        if structured and as_json(sample) is not None:
            text = json.dumps(as_json(sample))
            if self.options.style in ("thinking", "mixed"):
                message["reasoning_content"] = reasoning(sample)
        else:
            rng = random.Random(zlib.crc32(prompt.encode())) if self.options.greedy else self._seeded()
            text = render(sample, self.options.style, rng)
        text, finish = _limit(text, body.get("max_tokens") or body.get("max_completion_tokens"), body.get("stop"))
        message["content"] = text
        return {"index": index, "message": message, "finish_reason": finish}

    def _acquire(self) -> None:
        if self._slots is not None:
            while not self._slots.acquire(timeout=0.5):
                if self._closing.is_set():
                    raise _BadRequest("the server is shutting down")

    def _release(self) -> None:
        if self._slots is not None:
            self._slots.release()


def _wants_json(response_format: Any) -> str:
    if not isinstance(response_format, dict):
        return ""
    kind = response_format.get("type")
    return kind if kind in ("json_schema", "json_object") else ""


def _error(message: str, code: str, param: str | None = None) -> bytes:
    kind = {"rate_limit_exceeded": "rate_limit_error", "server_error": "server_error"}.get(code,
                                                                                           "invalid_request_error")
    return json.dumps({"error": {"message": message, "type": kind, "param": param, "code": code}}).encode()


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _tokens(text: str) -> int:
    """Token count, approximately (words and punctuation marks)."""
    return len(_TOKEN.findall(text or ""))


def _limit(text: str, max_tokens: Any, stop: Any) -> tuple[str, str]:
    """The answer cut at the first stop sequence, then at ``max_tokens`` tokens; and the finish reason."""
    stops = [stop] if isinstance(stop, str) else [s for s in (stop or []) if isinstance(s, str) and s]
    cut = min((i for i in (text.find(s) for s in stops) if i >= 0), default=-1)
    if cut >= 0:
        text = text[:cut]
    if isinstance(max_tokens, int) and max_tokens > 0:
        matches = list(_TOKEN.finditer(text))
        if len(matches) > max_tokens:
            return text[:matches[max_tokens - 1].end()], "length"
    return text, "stop"


def _handler_class(server: ModelServer) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "llm-planner-serve"
        disable_nagle_algorithm = True  # headers and body go out at once (else +40 ms per request: delayed ACK)

        def log_message(self, *args: Any) -> None:  # the CLI prints statistics instead
            pass

        def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout)

        def do_GET(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            if path in ("/v1/models", "/models"):
                self._send(200, json.dumps({"object": "list", "data": [
                    {"id": server.options.model, "object": "model", "created": int(server.stats_.started),
                     "owned_by": "llm-planner"}]}).encode())
            elif path == "/stats":
                self._send(200, json.dumps(server.stats()).encode())
            elif path == "/health":
                self._send(200, b'{"status": "ok"}')
            else:
                self._send(404, _error(f"no endpoint {self.path}; try /v1/chat/completions, /v1/models, /stats",
                                       "not_found"))

        def do_POST(self) -> None:
            path = self.path.split("?")[0].rstrip("/")
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BODY:
                self._send(413, _error(f"request body over {MAX_BODY} bytes", "request_too_large"))
                self.close_connection = True
                return
            raw = self.rfile.read(length) if length else b""
            if path not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, _error(f"no endpoint {self.path}; the chat API is /v1/chat/completions", "not_found"))
                return
            try:
                body = json.loads(raw or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("not a JSON object")
                status, headers, reply = server.complete(body)
            except ValueError as exc:
                server.stats_.add(bad_requests=1)
                self._send(400, _error(f"the request body is not a JSON object ({exc})", "invalid_json"))
                return
            except _BadRequest as exc:
                server.stats_.add(bad_requests=1)
                self._send(400, _error(str(exc), "invalid_request", exc.param))
                return
            except Exception as exc:  # noqa: BLE001 - the server keeps serving; the client sees a 500
                self._send(500, _error(f"internal error: {type(exc).__name__}: {exc}", "server_error"))
                return
            if reply is None:  # a "timeout" fault: no answer at all
                self.close_connection = True
                return
            self._send(status, reply, headers)
            if reply.endswith(b"mess"):  # truncated garbage: the connection cannot be reused
                self.close_connection = True

    return Handler


# ------------------------------------------------------------------------------ as a process
class ServeProcess(_ClientConfig):
    """``llm-planner serve`` in its own process (a context manager): ``base_url`` once it listens,
    ``stats()`` over HTTP, stopped with SIGINT (it prints its statistics) and killed if it lingers."""

    base_url: str

    def __init__(self, args: Sequence[str] = (), start_timeout_s: float = 120.0,
                 env: dict[str, str] | None = None) -> None:
        self.args = list(args)
        self.start_timeout_s = start_timeout_s
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.base_url = ""
        self.output: list[str] = []

    def start(self) -> ServeProcess:
        cmd = [sys.executable, "-m", "llm_planner.cli", "serve", "--port", "0", *self.args]
        env = {**os.environ, **(self.env or {}), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        found = threading.Event()

        def read() -> None:
            assert self.proc is not None and self.proc.stdout is not None
            for line in self.proc.stdout:
                self.output.append(line.rstrip("\n"))
                match = re.search(r"(http://127\.0\.0\.1:\d+/v1)", line)
                if match and not self.base_url:
                    self.base_url = match.group(1)
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(self.start_timeout_s) or not self.base_url:
            self.stop()
            raise LlmPlannerError(f"llm-planner serve did not start within {self.start_timeout_s:g} s: "
                                  + " | ".join(self.output[-5:]))
        return self

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.base_url.removesuffix("/v1") + "/stats", timeout=10) as response:
            return json.loads(response.read())

    def stop(self, timeout_s: float = 15.0) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def __enter__(self) -> ServeProcess:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
