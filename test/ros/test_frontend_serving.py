"""The front ends' server stops on SIGINT however early it comes and however busy the ROS graph
thread is (``llm_planner_ros/frontends/serving.py``). With uvicorn's own handlers alone,
``llm-planner web`` ignored a Ctrl-C sent 0.2 s after its start in about 1 run in 10 (measured: 2
of 20 in a row, each also ignoring a second Ctrl-C), because the graph thread cleared the
interpreter's signal flag before the main thread saw it."""
from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

VENV_BIN = Path(sys.executable).parent
STARTS = 8                 # processes started at once (the load makes the race likelier)
EARLY_S = 0.2              # the Ctrl-C this long after each printed its address
#: Bound on each exit: without a graph, the web front end's graph thread waits up to its server
#: timeout for the render service before the join gives up (shutdown_s + 5 s).
EXIT_S = 30.0


def _ports(n: int) -> list[int]:
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


@pytest.mark.ros
def test_web_stops_on_a_ctrl_c_right_after_it_starts(ros_env, tmp_path):
    processes = []
    for i, port in enumerate(_ports(STARTS)):
        out = (tmp_path / f"out{i}.txt").open("w")
        processes.append((subprocess.Popen([str(VENV_BIN / "llm-planner"), "web", "--port", str(port), "--work-dir",
                                            str(tmp_path / f"w{i}")], env=ros_env, stdout=out,
                                           stderr=subprocess.STDOUT), tmp_path / f"out{i}.txt"))
    try:
        for process, out in processes:
            deadline = time.monotonic() + 120
            while "http://" not in out.read_text() and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert "http://" in out.read_text(), out.read_text()[-2000:]
            time.sleep(EARLY_S)
            process.send_signal(signal.SIGINT)
        for process, out in processes:
            try:
                code = process.wait(timeout=EXIT_S)  # 130: stopped before the server started ("interrupted")
                assert code in (0, 130), out.read_text()[-2000:]
            except subprocess.TimeoutExpired:
                pytest.fail(f"llm-planner web ignored Ctrl-C: {out.read_text()[-2000:]}")
    finally:
        for process, _ in processes:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=30)
