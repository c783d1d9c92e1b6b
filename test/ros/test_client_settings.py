"""The client's waits come from config/client.yaml; a file with a wrong key is refused, naming it."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError
from llm_planner_ros import client_settings


def test_shipped_client_settings():
    settings = client_settings()
    assert settings.server_timeout_s == 10.0 and settings.plan_only_attempts == 3
    assert settings.discovery_settle_s > 0 and settings.feedback_drain_s > 0


def test_unknown_and_missing_keys_are_named(tmp_path):
    path = tmp_path / "client.yaml"
    path.write_text("server_timeout_s: 5\nserver_timout: 3\n")
    with pytest.raises(ConfigError, match=r"unknown keys \['server_timout'\], missing keys \['discovery_settle_s'"):
        client_settings(path)
