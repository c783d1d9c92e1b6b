"""Fixtures of the LLM-layer tests: one Sentence-BERT model per session, isolated cache directories,
the two apartments, the offline backend, `llm-planner serve` stand-ins over it, and a local OpenAI-compatible HTTP server with scripted
answers, delays and errors (the openai client talks real HTTP to it)."""
from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

from llm_planner.llm.embeddings import Embedder
from llm_planner.llm.factory import make_backend
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household


@pytest.fixture(scope="session", autouse=True)
def _isolated_cache(tmp_path_factory) -> None:
    """Nothing a test does reaches ~/.cache/llm_planner."""
    mp = pytest.MonkeyPatch()
    mp.setenv("LLM_PLANNER_CACHE", str(tmp_path_factory.mktemp("llm_cache_default")))
    yield
    mp.undo()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The session's embedder (memory cache only); the model is loaded once."""
    e = Embedder(cache_dir=None)
    e.encode(["warm up"])
    return e


@pytest.fixture(scope="session")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


@pytest.fixture(scope="session")
def unseen() -> Household:
    return Household(load_scene("apartment_unseen"))


@pytest.fixture(scope="session")
def seen_world(seen) -> WorldInfo:
    return WorldInfo.from_household(seen)


@pytest.fixture(scope="session")
def dataset():
    """The expert data set D the backends use by default (200 training tasks, seen apartment)."""
    from llm_planner.llm.config import load_llm_config
    from llm_planner.domains.household.language.retrieval import load_expert_data

    return load_expert_data(load_llm_config())


@pytest.fixture(scope="session")
def offline(embedder, dataset, tmp_path_factory):
    # warm_actions off: a test meets a few hundred action sentences, not the thousand a search does
    return make_backend(backend="offline", embedder=embedder, dataset=dataset, embeddings__warm_actions=False,
                        cache__dir=str(tmp_path_factory.mktemp("offline_cache")))


# ---------------------------------------------------------------------------------- fake server
@dataclass
class Reply:
    """One scripted answer: HTTP status, JSON body (or raw bytes), extra headers, delay before it."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(texts: list[str], prompt_tokens: int = 11, completion_tokens: int = 7) -> dict:
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": "test-model",
        "choices": [{"index": i, "message": {"role": "assistant", "content": t}, "finish_reason": "stop"}
                    for i, t in enumerate(texts)],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }


def error_body(message: str, kind: str = "invalid_request_error") -> dict:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class FakeOpenAI:
    """A threaded HTTP server on 127.0.0.1 (random port) speaking /v1/chat/completions.

    ``script`` is a list of Reply consumed in order; when it is empty ``default(request)`` answers
    (by default: ``n`` copies of ``answer``). Every request is recorded (path, headers, JSON)."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.script: list[Reply] = []
        self.answer = "walk to the kitchen"
        self.default: Callable[[dict], Reply] = lambda req: Reply(body=completion([self.answer] * int(req.get("n") or 1)))
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    payload = json.loads(raw or b"{}")
                except ValueError:
                    payload = {}
                outer.requests.append({"path": self.path, "json": payload,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                reply = outer.script.pop(0) if outer.script else outer.default(payload)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def served(offline):
    """The served stand-in's model: the offline backend behind the chat-completion interface."""
    from llm_planner_eval.stand_in.served import ServedModel

    return ServedModel(offline)


@pytest.fixture
def server(served):
    """Start ``llm-planner serve`` stand-ins (HTTP, in this process) with options; each records the
    request bodies it was sent (``s.bodies``) and is stopped after the test."""
    from llm_planner_eval.stand_in.serve import ModelServer
    from llm_planner_eval.stand_in.serve_options import ServeOptions

    servers = []

    def start(**options) -> ModelServer:
        s = ModelServer(ServeOptions(warm_up=False, **options), served)
        s.bodies = []  # type: ignore[attr-defined]
        complete = s.complete

        def recording(body):
            s.bodies.append(body)  # type: ignore[attr-defined]
            return complete(body)

        s.complete = recording  # type: ignore[method-assign]
        servers.append(s.start())
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def fake_openai():
    server = FakeOpenAI()
    yield server
    server.close()


@pytest.fixture
def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def openai_backend(fake_openai, embedder, dataset, tmp_path, monkeypatch):
    """Factory: an openai backend against the fake server, fast timeouts and backoff, own cache dir."""
    monkeypatch.setenv("TEST_LLM_KEY", "sk-test-secret-123")

    def build(**overrides: Any):
        settings = {
            "backend": "openai", "cache__dir": str(tmp_path / "cache"),
            "openai__base_url": fake_openai.base_url, "openai__model": "test-model",
            "openai__api_key_env": "TEST_LLM_KEY", "openai__timeout_s": 1.0, "openai__max_retries": 2,
            "openai__backoff_initial_s": 0.01, "openai__backoff_max_s": 0.05, "embeddings__warm_actions": False,
            # the scripted server answers whatever is asked the same way: no first-contact probe (the probe
            # and the adaptation to what a server honours are tested against llm-planner serve)
            "openai__probe__enabled": False,
        }
        settings.update(overrides)
        backend = settings.pop("backend")
        return make_backend(backend=backend, embedder=embedder, dataset=dataset, **settings)

    return build


@pytest.fixture(scope="session")
def http():
    """Helpers to script the fake server: ``http.Reply``, ``http.completion``, ``http.error``."""
    from types import SimpleNamespace

    return SimpleNamespace(Reply=Reply, completion=completion, error=error_body)
