"""A switch to the openai backend is checked against the real HTTP boundary: a server that does not
answer, or asks for a key the environment does not hold, is refused with what to do."""
from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import yaml

from llm_planner.llm.reachability import openai_unusable


@contextmanager
def http_server(status: int) -> Iterator[str]:
    """A local HTTP server answering every GET with ``status``; yields its /v1 base URL."""
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the http.server name)
            self.send_response(status)
            self.end_headers()
            self.wfile.write(b'{"data": []}')

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def llm_config(tmp_path, base_url: str) -> str:
    path = tmp_path / "llm.yaml"
    path.write_text(yaml.safe_dump({"backend": "openai", "openai": {
        "base_url": base_url, "model": "m", "api_key_env": "TEST_REACH_KEY"}}))
    return str(path)


def test_a_server_that_does_not_answer_is_refused_with_the_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("TEST_REACH_KEY", raising=False)
    url = f"http://127.0.0.1:{free_port()}/v1"
    why = openai_unusable(llm_config(tmp_path, url), timeout_s=1.0)
    assert f"the model server {url} is not answering" in why and "start it" in why, why


def test_a_server_that_asks_for_a_key_is_refused_until_the_key_is_set(tmp_path, monkeypatch):
    monkeypatch.delenv("TEST_REACH_KEY", raising=False)
    with http_server(401) as url:
        path = llm_config(tmp_path, url)
        why = openai_unusable(path, timeout_s=2.0)
        assert "HTTP 401" in why and "set TEST_REACH_KEY" in why, why
        monkeypatch.setenv("TEST_REACH_KEY", "k")
        assert openai_unusable(path, timeout_s=2.0) == ""


def test_a_server_that_answers_is_accepted(tmp_path, monkeypatch):
    monkeypatch.delenv("TEST_REACH_KEY", raising=False)
    with http_server(200) as url:
        assert openai_unusable(llm_config(tmp_path, url), timeout_s=2.0) == ""
