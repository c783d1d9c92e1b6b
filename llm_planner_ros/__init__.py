"""The thin ROS layer: message codecs, the node helpers, the launcher and the client facade.

Importing this package imports no ROS (the CLI reads its defaults without loading rclpy).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, read_yaml_mapping


@dataclass(frozen=True)
class ClientSettings:
    """How long the client waits for the node graph (``config/client.yaml``, seconds)."""

    server_timeout_s: float
    discovery_settle_s: float
    plan_only_answer_s: float
    plan_only_attempts: int
    feedback_drain_s: float


@lru_cache(maxsize=4)
def client_settings(path: Path | None = None) -> ClientSettings:
    """``config/client.yaml`` (or ``path``); ConfigError naming a missing or unknown key."""
    path = path or config_dir() / "client.yaml"
    data = dict(read_yaml_mapping(path, "the client settings"))
    known = [f.name for f in fields(ClientSettings)]
    unknown = sorted(set(data) - set(known))
    missing = [k for k in known if k not in data]
    if unknown or missing:
        raise ConfigError(f"{path}: unknown keys {unknown}, missing keys {missing} (known: {', '.join(known)})")
    return ClientSettings(float(data["server_timeout_s"]), float(data["discovery_settle_s"]),
                          float(data["plan_only_answer_s"]), int(data["plan_only_attempts"]),
                          float(data["feedback_drain_s"]))
