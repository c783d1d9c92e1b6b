"""The benchmarks' episodes as Ray tasks on a two-node Ray cluster on this machine.

One cluster (``ray.cluster_utils.Cluster``: a head and a second node, one CPU each, every address
127.0.0.1) serves every test of the module. ``bench household`` and ``bench gtamp`` with ``--ray
ADDRESS`` give the same episode records as ``--workers 2`` / ``--jobs 2`` (timing fields aside); a
worker SIGKILLed in the middle of an episode costs a retry (counted in the header), or, with no
retries left, an episode recorded with its error; ``--llm-max-in-flight`` holds the requests at an
HTTP server to the limit across both nodes.
"""
from __future__ import annotations

import ipaddress
import json
import os
import signal
import sys
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

# Before ray is imported: the nodes take 127.0.0.1, not the interface address (no test sends elsewhere).
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
ray = pytest.importorskip("ray")
psutil = pytest.importorskip("psutil")
pytestmark = pytest.mark.slow  # a two-node cluster: 30-45 s to start on a loaded machine

from llm_planner_eval.bench import gtamp as gtamp_bench  # noqa: E402
from llm_planner_eval.bench.engine import RayEngine, load_ray_settings  # noqa: E402
from llm_planner.cli import main  # noqa: E402

NODE_TIMEOUT_S = 120.0  # the machine may be loaded: starting two nodes took 30-45 s at load 15 on 2 cores
KILL_TIMEOUT_S = 90.0   # longest wait for an episode task to appear before killing it


@pytest.fixture(scope="module")
def cluster():
    from ray._private import ray_constants
    from ray.cluster_utils import Cluster

    if ray_constants.ENABLE_RAY_CLUSTER:
        pytest.fail("ray was imported before RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 was set: its nodes would bind the "
                    "interface address; run this module alone or set the variable in the environment")
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False,
                                                      "no_monitor": True, "include_log_monitor": False})
    try:
        c.add_node(num_cpus=1, include_log_monitor=False)
        c.wait_for_nodes(NODE_TIMEOUT_S)
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.shutdown()


def _timing(key: str) -> bool:
    """A field that measures time (seconds of wall or CPU time): the only fields allowed to differ."""
    return key == "seconds" or key.endswith(("_s", "_seconds"))


def _strip(records: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if not _timing(k)} for r in records]


def _bench(args: list[str], out: Path) -> dict:
    assert main(["bench", *args, "--json", str(out)]) == 0
    return json.loads(out.read_text())


def _loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)
    return (mapped or address).is_loopback


def _loopback_only() -> None:
    """Every socket of this test's Ray processes is on 127.0.0.1 (listening and connected)."""
    me = psutil.Process()
    for proc in [me, *me.children(recursive=True)]:
        try:
            conns = proc.net_connections(kind="inet")
        except psutil.Error:
            continue
        for conn in conns:
            for addr in (conn.laddr, conn.raddr):
                if addr and not _loopback(addr.ip):
                    raise AssertionError(f"{proc.name()} (pid {proc.pid}) uses {addr.ip}:{addr.port} ({conn.status})")


class _Killer(threading.Thread):
    """SIGKILLs a Ray worker of this test's cluster ``delay_s`` into an episode whose run the engine
    has counted (a worker titled ``ray::episode`` may not have counted its run yet: killing it
    would cost a retry that nobody counted)."""

    def __init__(self, engine=None, delay_s: float = 1.0) -> None:  # noqa: ANN001 - a RayEngine or the active one
        super().__init__(daemon=True)
        self.engine = engine
        self.delay_s = delay_s
        self.killed: list[int] = []
        self.stop = threading.Event()

    def run(self) -> None:
        from llm_planner_eval.bench.engine import active_engine

        me = os.getpid()
        deadline = time.monotonic() + KILL_TIMEOUT_S
        while not self.stop.is_set() and time.monotonic() < deadline:
            time.sleep(0.1)
            engine = self.engine or active_engine()
            try:
                if engine is None or not engine.counted_workers():
                    continue
                time.sleep(self.delay_s)  # in the episode: its imports, world, planning
                counted = set(engine.counted_workers())
            except Exception:  # noqa: BLE001 - the engine not started yet or closing
                continue
            for proc in psutil.Process(me).children(recursive=True):
                try:
                    if proc.pid in counted and "ray::episode" in " ".join(proc.cmdline()):
                        os.kill(proc.pid, signal.SIGKILL)
                        self.killed.append(proc.pid)
                        return
                except (psutil.Error, ProcessLookupError):
                    continue


def test_household_on_two_nodes_same_records_as_workers(cluster, tmp_path):
    size = ["household", "--methods", "uct", "--suites", "simple,comp", "--episodes", "2", "--seeds", "1",
            "--simulations", "10", "--no-progress"]
    on_ray = _bench([*size, "--ray", cluster.address], tmp_path / "ray.json")
    _loopback_only()
    local = _bench([*size, "--workers", "2"], tmp_path / "workers.json")
    assert len(on_ray["episodes"]) == 4
    assert _strip(on_ray["episodes"]) == _strip(local["episodes"])
    assert [r["success_rate"] for r in on_ray["rows"]] == [r["success_rate"] for r in local["rows"]]
    engine = on_ray["config"]["engine"]
    assert engine["engine"] == "ray" and engine["nodes"] == 2 and engine["episodes"] == 4 and engine["lost"] == 0
    assert local["config"]["engine"] == {"engine": "processes", "workers": 2}


@pytest.fixture(scope="module")
def gtamp_reference(cluster, tmp_path_factory):
    """``bench gtamp`` with two fork processes: the records the Ray runs must reproduce."""
    out = tmp_path_factory.mktemp("gtamp") / "jobs.json"
    return _bench(["gtamp", "--problems", "P1", "--methods", "stalm", "--trials", "2", "--budget-scale", "0.05",
                   "--jobs", "2"], out)


def test_gtamp_on_two_nodes_a_killed_worker_costs_a_retry_not_an_episode(cluster, gtamp_reference, tmp_path,
                                                                          capsys):
    """The same records as ``--jobs 2``, though a worker is SIGKILLed in the middle of an episode."""
    killer = _Killer(delay_s=1.0)
    killer.start()
    try:
        on_ray = _bench(["gtamp", "--problems", "P1", "--methods", "stalm", "--trials", "2", "--budget-scale", "0.05",
                         "--ray", cluster.address], tmp_path / "ray.json")
    finally:
        killer.stop.set()
        killer.join(timeout=30)
        assert not killer.is_alive(), "the worker-killing thread did not stop within 30 s"
    assert killer.killed, "no Ray worker ran an episode to kill"
    assert all(e["success"] for e in on_ray["episodes"])  # within budget: nothing depends on the clock
    key = lambda r: r["seed"]  # noqa: E731
    assert _strip(sorted(on_ray["episodes"], key=key)) == _strip(sorted(gtamp_reference["episodes"], key=key))
    engine = on_ray["config"]["engine"]
    assert engine["nodes"] == 2 and engine["retries"] == 1 and engine["lost"] == 0, engine
    assert "2 episode(s), 1 retried" in capsys.readouterr().out


def test_with_no_retries_left_the_episode_is_recorded_with_its_error(cluster):
    engine = RayEngine(cluster.address, settings=replace(load_ray_settings(), max_retries=0))
    engine.start()
    killer = _Killer(engine, delay_s=1.0)
    killer.start()
    try:
        jobs = [("P1", "stalm", 0, 15.0, "offline", None, "cpu")]
        records = list(engine.map(gtamp_bench._episode, jobs, error_record=gtamp_bench._error_record))
    finally:
        killer.stop.set()
        killer.join(timeout=30)
        assert not killer.is_alive(), "the worker-killing thread did not stop within 30 s"
        engine.close()
    assert killer.killed
    assert len(records) == 1 and not records[0]["success"]
    assert records[0]["stop"].startswith("error: ") and "worker" in records[0]["stop"].lower(), records[0]["stop"]
    assert engine.summary()["lost"] == 1


class _Counting(BaseHTTPRequestHandler):
    """A model server stand-in that only counts how many requests it holds at once."""

    lock = threading.Lock()
    now = 0
    peak = 0
    total = 0
    arrived = 0

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        cls = type(self)
        if self.path == "/arrive":  # a worker says it is running (not an LLM request, not gated)
            with cls.lock:
                cls.arrived += 1
            self._answer(str(cls.arrived).encode())
            return
        if self.path == "/arrived":
            self._answer(str(cls.arrived).encode())
            return
        with cls.lock:
            cls.now += 1
            cls.total += 1
            cls.peak = max(cls.peak, cls.now)
        time.sleep(0.2)
        with cls.lock:
            cls.now -= 1
        self._answer(b"ok")

    def _answer(self, body: bytes) -> None:
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:  # quiet
        pass


def _ask(job: tuple[str, int]) -> int:
    """Three requests through this worker's request gate (the cluster-wide slot actor), once both
    workers run: without that meeting point a loaded machine may start the second job after the first
    ended, and nothing would ever wait for a slot."""
    import urllib.request

    from llm_planner.llm.request_gate import request_gate

    url, n = job
    urllib.request.urlopen(url + "arrive", timeout=30).read()
    deadline = time.monotonic() + 60
    while int(urllib.request.urlopen(url + "arrived", timeout=30).read()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    for _ in range(n):
        with request_gate().hold():
            urllib.request.urlopen(url, timeout=30).read()
    return n


def test_llm_max_in_flight_limits_requests_across_the_cluster(cluster):
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers do not import this test
    engine = RayEngine(cluster.address, llm_max_in_flight=1)
    engine.start()
    try:
        assert sum(engine.map(_ask, [(url, 3), (url, 3)])) == 6
    finally:
        engine.close()
        server.shutdown()
        ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    summary = engine.summary()
    assert _Counting.total == 6 and _Counting.peak == 1
    assert summary["llm_requests_gated"] == 6 and summary["peak_in_flight"] == 1 and summary["throttled"] >= 1
    assert "throttled" in engine.header()


def test_settings_and_flags_are_checked_before_anything_starts(tmp_path):
    import argparse

    from llm_planner_eval.bench.engine import bench_engine
    from llm_planner.errors import ConfigError

    bad = tmp_path / "ray.yaml"
    bad.write_text("max_retry: 3\n")
    with pytest.raises(ConfigError, match="unknown key.*max_retry.*max_retries"):
        load_ray_settings(bad)
    bad.write_text("max_retries: -1\n")
    with pytest.raises(ConfigError, match="max_retries >= 0"):
        load_ray_settings(bad)
    assert load_ray_settings().max_retries >= 1  # the shipped file: lost workers are retried
    with pytest.raises(ConfigError, match="--llm-max-in-flight needs --ray"):
        with bench_engine(argparse.Namespace(ray=None, llm_max_in_flight=4, workers=2)):
            pass
    with bench_engine(argparse.Namespace(ray=None, llm_max_in_flight=None, workers=2)) as engine:
        assert engine is None  # --workers: no Ray at all
