"""The process environment every llm_planner ROS process runs with (no ROS import here).

- DDS stays on this host: Fast DDS loads ``config/fastdds_localhost.xml`` (UDP on 127.0.0.1,
  no multicast, no shared memory) and ``ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT`` lets the
  profile decide (docs/guides/installing.md).
- ``AMENT_PREFIX_PATH`` points at the installation prefix (the venv), which the PyPI wheels do
  not set, so ``get_package_share_directory`` and the launcher find packages.
- ``ROS_LOG_DIR`` is set (rclpy.init fails without HOME or it).
- Sentence-BERT runs offline (``HF_HUB_OFFLINE=1``).
Values already present in the environment win, so a user's ROS_DOMAIN_ID is kept.
"""
from __future__ import annotations

import os
import random
import sys
import tempfile
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from llm_planner.paths import config_dir

RMW = "rmw_fastrtps_cpp"


def install_prefix() -> Path:
    """The prefix the interpreter runs from (the venv), where lib/<pkg> and share/ live."""
    return Path(sys.prefix)


def ros_environment(base: MutableMapping[str, str] | None = None, *, domain_id: int | None = None,
                    log_dir: str | Path | None = None) -> dict[str, str]:
    """A copy of ``base`` (default: os.environ) completed with what the nodes need."""
    env = dict(os.environ if base is None else base)
    prefix = str(install_prefix())
    paths = [p for p in env.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    if prefix not in paths:
        env["AMENT_PREFIX_PATH"] = os.pathsep.join([prefix, *paths])
    env.setdefault("RMW_IMPLEMENTATION", RMW)
    env.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "SYSTEM_DEFAULT")
    env.setdefault("FASTDDS_DEFAULT_PROFILES_FILE", str(config_dir() / "fastdds_localhost.xml"))
    env.setdefault("ROS_LOG_DIR", str(log_dir or Path(tempfile.gettempdir()) / "llm_planner_ros_logs"))
    env.setdefault("HF_HUB_OFFLINE", "1")
    env.setdefault("TRANSFORMERS_OFFLINE", "1")
    env.setdefault("PYTHONUNBUFFERED", "1")
    if domain_id is not None:
        env["ROS_DOMAIN_ID"] = str(domain_id)
    return env


def apply_ros_environment(**kwargs: Any) -> dict[str, str]:
    """Complete ``os.environ`` in place (call before ``rclpy.init`` in this process)."""
    env = ros_environment(**kwargs)
    os.environ.update(env)
    return env


def random_domain_id(rng: random.Random | None = None) -> int:
    """A domain id for an isolated test graph, from the ranges whose ports are safe on Linux (1-101, 215-232).

    Under pytest-xdist each worker draws from its own share of them (``PYTEST_XDIST_WORKER`` gwK of
    ``PYTEST_XDIST_WORKER_COUNT``), so the graphs of two test processes never meet."""
    ids = [*range(1, 102), *range(215, 233)]
    worker, count = os.environ.get("PYTEST_XDIST_WORKER", ""), int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if worker.startswith("gw") and worker[2:].isdigit() and count > 1:
        ids = ids[int(worker[2:]) % count::count]
    return (rng or random.Random()).choice(ids)
