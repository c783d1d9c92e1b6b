"""The nodes' model-server probe (llm_planner_ros/model_watch.py) tells a busy server from a gone one:
a server that accepts connections but does not answer ``GET /models`` within ``llm_probe_timeout_s``
(here a socket that listens and never answers: the kernel accepts its connections, as it does for
a server whose queue is long) is up, its questions still go to it, and /diagnostics says busy; a
port nothing listens on is gone, the fallback answers for it, and /diagnostics says ERROR."""
from __future__ import annotations

import socket

import yaml

from llm_planner.adapters import get_domain
from llm_planner.config import read_params_file
from llm_planner_ros.managed_node import ERROR, WARN
from llm_planner_ros.model_watch import ModelWatch


def test_a_busy_server_is_up_and_a_gone_one_is_down(tmp_path):
    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen(16)  # never accepts: connections complete in the kernel, requests are never answered
    port = listening.getsockname()[1]
    llm_config = tmp_path / "llm.yaml"
    llm_config.write_text(yaml.safe_dump({"openai": {"base_url": f"http://127.0.0.1:{port}/v1", "model": "m"},
                                          "cache": {"enabled": False}}))
    params = {**read_params_file(), "llm_backend": "openai", "llm_config": str(llm_config), "llm_fallback": "offline",
              "llm_probe_timeout_s": 0.5}
    domain = get_domain("household")(params)
    watch = ModelWatch(domain, params, "/executor")
    try:
        probe = watch.probe()
        assert probe is not None and probe.reachable and probe.busy, probe
        assert domain.language_model().primary_down == ""  # questions still go to the server
        level, message = watch.diagnose().level, watch.diagnose().message
        assert level == WARN and "is busy" in message and "GET /models" in message, message
    finally:
        listening.close()
    probe = watch.probe()
    assert probe is not None and not probe.reachable and not probe.busy, probe
    assert "does not accept connections" in domain.language_model().primary_down
    assert watch.diagnose().level == ERROR
