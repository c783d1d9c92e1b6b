"""Questions in flight are abandoned when the openai backend is closed or the process ends (issue 45):
against a model server that takes a chat completion and never answers, a process that ends with a
question in flight ends at once, a closed backend's question raises at once, and the server sees
each connection closed."""
from __future__ import annotations

import select
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from llm_planner.llm.connections import QuestionAbandoned
from llm_planner.llm.factory import make_backend

STALL_S = 60.0


class StallingServer:
    """Takes each chat completion and answers nothing for ``STALL_S`` seconds; counts the requests
    it took and the connections the client closed while it stalled."""

    def __init__(self) -> None:
        self.taken = threading.Semaphore(0)
        self.closed = threading.Semaphore(0)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.taken.release()
                readable, _, _ = select.select([self.connection], [], [], STALL_S)  # a model generating
                if readable and self.connection.recv(1, socket.MSG_PEEK) == b"":
                    outer.closed.release()  # end of file: the client is gone
                self.close_connection = True

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stalling():
    server = StallingServer()
    yield server
    server.close()


def _settings(base_url: str, cache_dir: str) -> dict[str, Any]:
    return {"openai__base_url": base_url, "openai__model": "slow-model", "openai__timeout_s": STALL_S,
            "openai__question_timeout_s": 2 * STALL_S, "openai__max_retries": 3, "openai__probe__enabled": False,
            "cache__dir": cache_dir, "embeddings__warm_actions": False}


def test_a_process_that_ends_with_questions_in_flight_ends_at_once(stalling, tmp_path):
    # a planner's questions run on pool threads (LLM-MCTS's late questions) and on daemon threads
    # (STaLM's); Python joins the pool's threads at exit
    code = f"""
import threading
from concurrent.futures import ThreadPoolExecutor
from llm_planner.llm.factory import make_backend
lm = make_backend(backend="openai", **{_settings(stalling.base_url, str(tmp_path / 'cache'))!r})
pool = ThreadPoolExecutor(2, thread_name_prefix="late")
for i in range(2):
    pool.submit(lm.ask, "translate", f"question {{i}}", 1, {{}}, lambda texts: texts)
threading.Thread(target=lm.ask, args=("translate", "question 2", 1, {{}}, lambda t: t), daemon=True).start()
input()  # the test says when: its questions are at the server
"""
    proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, text=True)
    try:
        for _ in range(2):  # the in-flight limit starts at two requests: the third waits for a slot
            assert stalling.taken.acquire(timeout=60), "the question never reached the server"
        reached = time.monotonic()
        proc.communicate("end\n", timeout=STALL_S / 2)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)  # SIGKILL ends it; bounded all the same
    ended_s = time.monotonic() - reached
    assert ended_s < 5.0, f"the process ended {ended_s:.1f} s after its questions reached the server"
    assert proc.returncode == 0
    for _ in range(2):
        assert stalling.closed.acquire(timeout=5), "the server never saw the client close a connection"


def test_closing_the_backend_abandons_its_questions_and_it_answers_again(stalling, tmp_path, fake_openai):
    lm = make_backend(backend="openai", **_settings(stalling.base_url, str(tmp_path / "cache")))
    pool = ThreadPoolExecutor(3)
    try:
        futures = [pool.submit(lm.ask, "translate", f"question {i}", 1, {}, lambda texts: texts) for i in range(3)]
        for _ in range(2):  # the in-flight limit starts at two requests: the third waits for a slot
            assert stalling.taken.acquire(timeout=30)
        started = time.monotonic()
        lm.close()
        for future in futures:
            with pytest.raises(QuestionAbandoned, match="abandoned: the language model was closed"):
                future.result(timeout=5)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    assert time.monotonic() - started < 5.0
    for _ in range(2):
        assert stalling.closed.acquire(timeout=5)
    assert lm.usage.retries == 0 and lm.usage.requests == 2  # nothing was asked again
    # a question asked after the close is answered as ever (here by a server that answers)
    lm.base_url = fake_openai.base_url.rstrip("/")
    assert lm.ask("translate", "question 3", 1, {}, lambda texts: texts)[0] == ["walk to the kitchen"]
