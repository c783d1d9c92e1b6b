"""Shared fixtures: an isolated ROS 2 environment (random domain id, own log dir, DDS on loopback)."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from llm_planner.ros.environment import random_domain_id, ros_environment

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def ros_env(tmp_path_factory) -> dict[str, str]:
    """Environment for ROS processes of this test session; also applied to this process."""
    domain = random_domain_id(random.SystemRandom())
    base = {k: v for k, v in os.environ.items() if k != "ROS_DOMAIN_ID"}
    env = ros_environment(base, domain_id=domain, log_dir=tmp_path_factory.mktemp("ros_logs"))
    os.environ.update(env)
    return env
