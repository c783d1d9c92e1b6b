"""Who may command the robot through ``llm-planner web`` and ``llm-planner mcp --http``, against one
launched graph: each front end as its own process twice, on loopback (no token) and on every
address (``--host 0.0.0.0``: a token), reached with a real HTTP client (httpx2), the MCP SDK's
client and headless Chromium.

Every refused request names the directive ATTACK; the graph's ``task_status`` is watched from the
start, so "no task started" is: after the refusals, a request the server takes (its own page's, a
client with the token) shows up on ``task_status`` and ATTACK never did, to the end of the module."""
from __future__ import annotations

import http.server
import json
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp.client import ClientSession
from mcp.client.streamable_http import streamable_http_client

pytestmark = [pytest.mark.ros, pytest.mark.slow]
VENV_BIN = Path(sys.executable).parent
CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")
ATTACK = "put one towel on the bed"  # never reaches the graph
EVIL = "http://evil.example"
MCP_TOKEN_ENV = "LLM_PLANNER_MCP_TOKEN"
START_S = 90.0  # a front end joins the graph and listens within this (seconds)
WAIT_S = 60.0   # a plan-only request with the classical planner is answered within this
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    """A front end process: its base URL as printed (without the token), its token, its output."""

    process: subprocess.Popen
    base: str
    token: str | None
    out: Path
    err: Path

    @property
    def port(self) -> int:
        return int(self.base.rsplit(":", 1)[1].split("/")[0])

    @property
    def origin(self) -> str:
        return re.match(r"http://[^/]+", self.base).group(0)

    def bearer(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def output(self) -> tuple[str, str]:
        return self.out.read_text(), self.err.read_text()


def start(argv: list[str], env: dict[str, str], folder: Path) -> tuple[subprocess.Popen, Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out, err = folder / "stdout.txt", folder / "stderr.txt"
    with open(out, "wb") as o, open(err, "wb") as e:
        process = subprocess.Popen([str(VENV_BIN / "llm-planner"), *argv], env=env, stdout=o, stderr=e,
                                   stdin=subprocess.DEVNULL)
    return process, out, err


def ready(process: subprocess.Popen, out: Path, err: Path, token: str | None = None) -> Server:
    """The server once it printed its URL and accepts connections (the token from the URL unless given)."""
    deadline = time.monotonic() + START_S
    while not (found := re.search(r"llm-planner \w+: (http://\S+)", out.read_text())):
        assert process.poll() is None and time.monotonic() < deadline, err.read_text()[-3000:]
        time.sleep(0.2)
    url = found.group(1)
    printed = re.search(r"[?]token=([\w-]+)|Bearer ([\w-]+)'", out.read_text())
    token = token or (printed and (printed.group(1) or printed.group(2))) or None
    base = url.split("?")[0]
    host, port = re.match(r"http://\[?([^\]/]+?)\]?:(\d+)", base).groups()
    while socket.socket().connect_ex((host, int(port))) != 0:
        assert process.poll() is None and time.monotonic() < deadline, err.read_text()[-3000:]
        time.sleep(0.2)
    return Server(process, base, token, out, err)


class Tasks:
    """Every task_status message the graph published since the module started."""

    def __init__(self, graph: Any) -> None:
        self.graph, self.seen = graph, []
        graph.client.watch_status(lambda msg: self.seen.append((msg.task_id, msg.directive, msg.state)), wait_s=30.0)

    def mark(self) -> int:
        return len(self.seen)

    def check(self, since: int, own: str) -> None:
        """A task of the directive ``own`` appeared after ``since``, and ATTACK never."""
        deadline = time.monotonic() + WAIT_S
        while not any(directive == own for _, directive, _ in self.seen[since:]):
            assert time.monotonic() < deadline, f"no task of {own!r} on task_status: {self.seen[since:]}"
            self.graph.client.spin_for(0.1)
        assert not [s for s in self.seen if "towel" in s[1]], f"a refused request started a task: {self.seen}"


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("security_graph")) as g:
        yield g


@pytest.fixture(scope="module")
def tasks(graph) -> Iterator[Tasks]:
    watch = Tasks(graph)
    yield watch
    graph.client.spin_for(1.0)  # what was published last
    assert not [s for s in watch.seen if "towel" in s[1]], f"a refused request started a task: {watch.seen}"


@pytest.fixture(scope="module")
def servers(graph, tasks, tmp_path_factory) -> Iterator[dict[str, Server]]:
    """web (loopback), web_open (every address, generated token), mcp (loopback), mcp_open (every
    address, token from the environment), started side by side."""
    tmp = tmp_path_factory.mktemp("frontends")
    env = {k: v for k, v in graph.runner.env.items() if k not in (MCP_TOKEN_ENV, "LLM_PLANNER_WEB_TOKEN")}
    mcp_token = secrets.token_urlsafe(32)
    started = {
        "web": start(["web", "--port", str(_free_port()), "--work-dir", str(tmp / "w1")], env, tmp / "web"),
        "web_open": start(["web", "--host", "0.0.0.0", "--port", str(_free_port()), "--work-dir", str(tmp / "w2")],
                          env, tmp / "web_open"),
        "mcp": start(["mcp", "--http", str(_free_port())], env, tmp / "mcp"),
        "mcp_open": start(["mcp", "--http", str(_free_port()), "--host", "0.0.0.0"], {**env, MCP_TOKEN_ENV: mcp_token},
                          tmp / "mcp_open"),
    }
    try:
        yield {name: ready(*parts, token=mcp_token if name == "mcp_open" else None) for name, parts in started.items()}
    finally:
        for process, _, _ in started.values():
            process.send_signal(signal.SIGINT)
        hung = []
        for process, _, err in started.values():
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:  # where it hangs: the command's faulthandler prints every thread
                process.send_signal(signal.SIGUSR1)
                time.sleep(2.0)
                process.kill()
                process.wait(timeout=30)
                hung.append(f"{process.args} did not exit within 30 s of Ctrl-C:\n{err.read_text()[-8000:]}")
        assert not hung, "\n".join(hung)


def own_post(server: Server, path: str, body: Any = None, content: bytes | None = None,
             **headers: str) -> httpx2.Response:
    """A POST as the page itself sends it (its Origin, JSON, the token), ``headers`` changed."""
    sent = {"Origin": server.origin, "Content-Type": "application/json", **server.bearer(), **headers}
    sent = {k: v for k, v in sent.items() if v}
    data = content if content is not None else json.dumps(body).encode()
    return httpx2.post(server.base.rstrip("/") + path, content=data, headers=sent, timeout=WAIT_S)


# ------------------------------------------------------------------ the web page
def test_the_web_page_refuses_other_sites_rebinding_names_and_requests_without_its_token(servers, tasks):
    web, open_ = servers["web"], servers["web_open"]
    since = tasks.mark()
    attack = {"directive": ATTACK, "planner": "classical"}
    port = web.port
    refused = {  # what, response
        "cross-site text/plain POST": own_post(web, "/api/execute", attack, Origin=EVIL,
                                               **{"Content-Type": "text/plain"}),
        "foreign Origin": own_post(web, "/api/execute", attack, Origin=EVIL),
        "a POST without Origin": own_post(web, "/api/execute", attack, Origin=""),
        "rebinding Host": own_post(web, "/api/execute", attack, Host=f"evil.example:{port}",
                                   Origin=f"{EVIL}:{port}"),
        "text/plain from the page": own_post(web, "/api/plan", attack, **{"Content-Type": "text/plain"}),
        "no token beyond loopback": own_post(open_, "/api/execute", attack, Authorization=""),
        "a wrong token": own_post(open_, "/api/execute", attack, Authorization="Bearer " + "x" * 43),
        "a foreign Origin with the token": own_post(open_, "/api/execute", attack, Origin=EVIL),
    }
    codes = {what: response.status_code for what, response in refused.items()}
    assert codes == {"cross-site text/plain POST": 403, "foreign Origin": 403, "a POST without Origin": 403,
                     "rebinding Host": 421, "text/plain from the page": 415, "no token beyond loopback": 401,
                     "a wrong token": 401, "a foreign Origin with the token": 403}, codes
    for what, response in refused.items():
        assert response.json()["ok"] is False and len(response.json()["message"]) > 40, (what, response.text)
    assert "Content-Type: application/json" in refused["text/plain from the page"].json()["message"]
    assert "?token=" in refused["no token beyond loopback"].json()["message"]

    page = httpx2.get(web.base, headers={"Host": f"evil.example:{port}"})
    assert page.status_code == 421 and "evil.example" in page.text
    assert httpx2.get(web.base).status_code == 200  # loopback: no token, as before
    for path in ("", "events", "api/tasks", "picture/1.png"):
        assert httpx2.get(open_.base + path).status_code == 401, path
    assert httpx2.get(open_.base + "?token=" + "y" * 43).status_code == 401
    stored = httpx2.get(f"{open_.base}?token={open_.token}")
    assert stored.status_code == 303 and stored.headers["location"] == "/", stored.headers
    cookies = httpx2.Cookies()
    cookies.extract_cookies(stored)
    assert httpx2.get(open_.base + "api/tasks", cookies=cookies).status_code == 200
    with httpx2.stream("GET", open_.base + "events", headers=open_.bearer(), timeout=WAIT_S) as events:
        assert events.status_code == 200 and events.headers["content-type"].startswith("text/event-stream")

    own = own_post(open_, "/api/plan", {"directive": "put one apple inside the fridge", "planner": "classical"})
    assert own.status_code == 200 and own.json()["ok"], own.text
    tasks.check(since, "put one apple inside the fridge")
    out, err = open_.output()
    assert out.count(open_.token) == 1 and open_.token not in err, "the token is printed once, never logged"


#: (what, body or raw bytes, extra headers, status, a part of the message)
WEB_BAD_INPUT = [
    ("an oversized body", {"directive": ATTACK, "planner": "p" * 20000}, {}, 413, "at most 16384"),
    ("no JSON", b"directive=put one towel on the bed", {}, 400, "no JSON"),
    ("not UTF-8", b'{"directive": "put one towel \xff on the bed"}', {}, 400, "no JSON"),
    ("a list, not an object", [ATTACK], {}, 400, "send a JSON object"),
    ("a number as directive", {"directive": 5}, {}, 400, "'directive' must be text, got a number"),
    ("a list as directive", {"directive": [ATTACK]}, {}, 400, "must be text, got a list"),
    ("a number as planner", {"directive": ATTACK, "planner": 3}, {}, 400, "'planner' must be text"),
    ("control characters", {"directive": "\x00\x07\x1b[2J\x7f"}, {}, 400, "control or non-text character(s)"),
    ("an escape inside", {"directive": "put one towel\x1b[31m on the bed"}, {}, 400, "U+001B"),
    ("an empty directive", {"directive": "  "}, {}, 400, "is empty"),
    ("an unknown field", {"directive": ATTACK, "execute": True}, {}, 400, "unknown field(s) 'execute'"),
    ("a form post", b"directive=put+one+towel+on+the+bed", {"Content-Type": "application/x-www-form-urlencoded"},
     415, "application/json"),
]


@pytest.mark.parametrize("path", ["/api/execute", "/api/plan"])
def test_the_web_page_answers_bad_input_with_what_to_send_and_starts_nothing(servers, tasks, path):
    server = servers["web_open"]
    since = tasks.mark()
    for what, body, headers, status, message in WEB_BAD_INPUT:
        raw = body if isinstance(body, bytes) else None
        response = own_post(server, path, body, content=raw, **headers)
        assert response.status_code == status, (what, response.status_code, response.text)
        assert response.json()["ok"] is False and message in response.json()["message"], (what, response.text)
    answers = [own_post(server, "/api/answer", {"text": "\x1b[2J", "task_id": ""}),
               own_post(server, "/api/cancel", {"task_id": "../../etc"}),
               own_post(server, "/api/answer", {"text": ["yes"]})]
    assert [r.status_code for r in answers] == [400, 400, 400], [r.text for r in answers]
    assert "task id such as" in answers[1].json()["message"]
    own_post(server, "/api/plan", {"directive": "put one plate on the coffee table", "planner": "classical"})
    tasks.check(since, "put one plate on the coffee table")


# ------------------------------------------------------------------ MCP over HTTP
def mcp_session(server: Server) -> dict[str, str]:
    """A session opened as a client with the token does (raw HTTP): the headers of later requests."""
    headers = {**MCP_ACCEPT, **server.bearer()}
    opened = httpx2.post(server.base, json=INIT, headers=headers, timeout=WAIT_S)
    assert opened.status_code == 200, opened.text
    session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    done = httpx2.post(server.base, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
    assert done.status_code == 202, done.text
    return session


def call_body(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


async def sdk_call(server: Server, tool: str, arguments: dict[str, Any]) -> Any:
    """``tool`` called through the SDK's streamable-HTTP client, with the server's token."""
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with httpx2.AsyncClient(headers=server.bearer(), timeout=timeout) as http, \
            streamable_http_client(server.base, http_client=http) as (read, write), \
            ClientSession(read, write) as session:
        await session.initialize()
        with anyio.fail_after(WAIT_S):
            return await session.call_tool(tool, arguments)


def test_mcp_over_http_refuses_foreign_origins_rebinding_names_and_requests_without_the_token(servers, tasks):
    open_, local = servers["mcp_open"], servers["mcp"]
    since = tasks.mark()
    attack = call_body("execute_directive", {"directive": ATTACK, "planner": "classical"})
    sessions = {"mcp_open": mcp_session(open_), "mcp": mcp_session(local)}
    port = local.port

    def send(server: Server, **changed: str) -> httpx2.Response:
        session = sessions["mcp" if server is local else "mcp_open"]
        headers = {k: v for k, v in {**session, **changed}.items() if v}
        return httpx2.post(server.base, json=attack, headers=headers, timeout=WAIT_S)

    refused = {
        "no token beyond loopback": send(open_, Authorization=""),
        "a wrong token": send(open_, Authorization="Bearer " + "x" * 43),
        "a foreign Origin": send(open_, Origin=EVIL),
        "a rebinding Host": send(open_, Host=f"evil.example:{open_.port}"),
        "a foreign Origin on loopback": send(local, Origin=EVIL),
        "a rebinding Host on loopback": send(local, Host=f"evil.example:{port}", Origin=f"{EVIL}:{port}"),
        "a cross-site text/plain POST": send(local, Origin=EVIL, **{"Content-Type": "text/plain"}),
    }
    codes = {what: response.status_code for what, response in refused.items()}
    assert codes == {"no token beyond loopback": 401, "a wrong token": 401, "a foreign Origin": 403,
                     "a rebinding Host": 421, "a foreign Origin on loopback": 403,
                     "a rebinding Host on loopback": 421, "a cross-site text/plain POST": 400}, codes
    assert "allowed_hosts in config/mcp.yaml" in refused["a rebinding Host"].text
    assert refused["no token beyond loopback"].headers["www-authenticate"].startswith("Bearer")

    async def own() -> None:
        for server in (open_, local):
            result = await sdk_call(server, "plan_task", {"directive": "put one cupcake on the kitchen table",
                                                          "planner": "classical"})
            assert not result.is_error and result.structured_content["success"], result.content

    anyio.run(own)
    tasks.check(since, "put one cupcake on the kitchen table")
    out, err = open_.output()
    assert open_.token not in out + err and f"${MCP_TOKEN_ENV}" in out, "a token from the environment is never shown"


#: (what, arguments of execute_directive, a part of the tool error)
MCP_BAD_ARGUMENTS = [
    ("a number as directive", {"directive": 5}, "valid string"),
    ("a list as directive", {"directive": [ATTACK]}, "valid string"),
    ("no directive", {}, "directive"),
    ("control characters", {"directive": "\x00\x07\x1b[2J"}, "control or non-text character(s)"),
    ("an escape inside", {"directive": "put one towel\x1b[31m on the bed"}, "U+001B"),
    ("a text as time limit", {"directive": ATTACK, "timeout_s": "soon"}, "timeout_s"),
    ("a negative time limit", {"directive": ATTACK, "timeout_s": -1}, "greater than or equal to 0"),
    ("a number as planner", {"directive": ATTACK, "planner": 3}, "planner"),
]


def test_mcp_over_http_answers_bad_input_with_what_to_send_and_starts_nothing(servers, tasks):
    server = servers["mcp_open"]
    since = tasks.mark()
    session = mcp_session(server)
    big = json.dumps(call_body("execute_directive", {"directive": ATTACK, "planner": "p" * 1_100_000}))
    http_level = {  # what: (body, extra headers, status, a part of the message)
        "an oversized body": (big.encode(), {}, 413, "at most 1048576 bytes"),
        "no JSON": (b"execute put one towel on the bed", {}, 400, "Parse error"),
        "text/plain": (json.dumps(call_body("execute_directive", {"directive": ATTACK})).encode(),
                       {"Content-Type": "text/plain"}, 400, "Content-Type: application/json"),
        "params of the wrong type": (json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                                 "params": "execute_directive"}).encode(), {}, 400, "valid dictionary"),
    }
    for what, (body, headers, status, message) in http_level.items():
        response = httpx2.post(server.base, content=body, headers={"Content-Type": "application/json", **session,
                                                                   **headers}, timeout=WAIT_S)
        assert response.status_code == status and message in response.text, (what, response.status_code,
                                                                              response.text[:500])

    async def tools() -> None:
        for what, arguments, message in MCP_BAD_ARGUMENTS:
            result = await sdk_call(server, "execute_directive", arguments)
            text = " ".join(getattr(c, "text", "") for c in result.content)
            assert result.is_error and message in text, (what, text)
        own = await sdk_call(server, "plan_task", {"directive": "put one book on the coffee table",
                                                   "planner": "classical"})
        assert not own.is_error, own.content

    anyio.run(tools)
    tasks.check(since, "put one book on the coffee table")


# ------------------------------------------------------------------ in a browser
ATTACK_PAGE = """<!doctype html><html><body><p id="state">attacking</p>
<form id="f" method="POST" action="{target}/api/execute" enctype="text/plain">
<input name='{{"directive": "{attack}", "planner": "classical", "x": "' value='"}}'></form>
<script>
window.results = {{}};
const body = JSON.stringify({{directive: "{attack}", planner: "classical"}});
Promise.allSettled([
  fetch("{target}/api/execute", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}}, body}}),
  fetch("{target}/api/plan", {{method: "POST", headers: {{"Content-Type": "application/json"}}, body}}),
]).then((outcomes) => {{
  window.results = outcomes.map((o) => o.status === "fulfilled" ? o.value.type : "refused");
  document.getElementById("state").textContent = "sent";
}});
</script></body></html>"""


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None or DRIVER is None:
        pytest.skip("chromium and chromium-driver are not installed (scripts/setup.sh installs them as root)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--host-resolver-rules=MAP evil.example 127.0.0.1, MAP attacker.example 127.0.0.1"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(DRIVER))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def attacker(servers) -> Iterator[str]:
    """A site of its own (attacker.example, resolved to this machine) serving ATTACK_PAGE aimed at
    the loopback web page; its URL."""
    page = ATTACK_PAGE.format(target=servers["web"].base.rstrip("/"), attack=ATTACK).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=site.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://attacker.example:{site.server_address[1]}/"
    finally:
        site.shutdown()
        site.server_close()


def _wait(browser, script: str, what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while not (value := browser.execute_script(script)):
        assert time.monotonic() < deadline, f"{what} within {WAIT_S:g} s; page: {browser.page_source[:2000]}"
        time.sleep(0.2)
    return value


def test_in_chromium_another_site_and_a_rebinding_name_are_refused_and_the_page_works_with_its_token(
        servers, tasks, browser, attacker):
    web, open_ = servers["web"], servers["web_open"]
    since = tasks.mark()
    browser.get(attacker)
    _wait(browser, "return document.getElementById('state').textContent === 'sent'", "the attack page's fetches")
    assert browser.execute_script("return window.results") == ["opaque", "refused"]  # no-cors hides the 403
    browser.execute_script("document.getElementById('f').submit()")  # a form: the browser shows the answer
    _wait(browser, "return location.href.includes('/api/execute')", "the form's answer")
    assert "refused: the request comes from http://attacker.example" in browser.find_element("tag name", "body").text

    browser.get(f"http://evil.example:{web.port}/")  # a name rebound to this machine
    assert "does not answer to the name 'evil.example'" in browser.find_element("tag name", "body").text
    browser.get(web.base)  # loopback: the page works without a token
    _wait(browser, "return document.body.dataset.connected === 'yes'", "the event stream on loopback")

    browser.get(open_.base)
    assert "needs its token" in browser.find_element("tag name", "body").text
    browser.get(f"{open_.base}?token={open_.token}")
    _wait(browser, "return document.body.dataset.connected === 'yes'", "the event stream with the token")
    assert "token" not in browser.current_url, browser.current_url
    browser.find_element("id", "directive").send_keys("put one apple on the sofa")
    browser.find_element("id", "planner").send_keys("classical")
    browser.find_element("id", "plan").click()
    _wait(browser, "return document.getElementById('state').textContent === 'planned'", "the page's plan")
    picture = _wait(browser, "return document.getElementById('picture').dataset.url", "a picture")
    assert browser.execute_script(f"return fetch('{picture}').then(r => r.status)") == 200  # the cookie goes along
    tasks.check(since, "put one apple on the sofa")
