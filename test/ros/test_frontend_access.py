"""The front ends' access rules without a server: the names a server answers to, the token it
needs, the SDK settings made of them, and the text fields refused before the graph is asked
(test/ros/nodes/test_frontend_security.py sends real requests to real servers)."""
from __future__ import annotations

import re

import anyio
import pytest

from llm_planner.errors import ConfigError
from llm_planner_ros.frontends.access import (
    MIN_TOKEN_CHARS,
    host_of,
    is_loopback,
    served_hosts,
    server_token,
    url_host,
)
from llm_planner_ros.frontends.inputs import BadInput, plain_text
from llm_planner_ros.frontends.mcp.http import StaticToken, explanations, transport_security


def test_loopback_names_and_host_headers() -> None:
    assert all(is_loopback(h) for h in ("localhost", "127.0.0.1", "127.0.0.2", "::1", "[::1]"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.20", "robot.local", "localhost.evil.example"))
    assert [host_of(h) for h in ("127.0.0.1:8080", "[::1]:8080", "[::1]", "Robot.Local", "evil.example:80")] == \
        ["127.0.0.1", "::1", "::1", "robot.local", "evil.example"]
    assert url_host("::1") == "[::1]" and url_host("192.0.2.2") == "192.0.2.2"


def test_a_server_answers_to_loopback_its_own_address_and_the_configured_names_only() -> None:
    assert served_hosts("127.0.0.1", []) == ("localhost", "127.0.0.1", "::1")
    assert served_hosts("192.168.1.20", ["Robot.local"]) == ("localhost", "127.0.0.1", "::1", "192.168.1.20",
                                                              "robot.local")
    every = served_hosts("0.0.0.0", [])
    assert "0.0.0.0" not in every and "evil.example" not in every and every[:3] == ("localhost", "127.0.0.1", "::1")


def test_a_token_is_needed_beyond_loopback_and_one_from_the_environment_must_be_long() -> None:
    assert server_token("127.0.0.1", "T", {}) == (None, False)
    token, generated = server_token("0.0.0.0", "T", {})
    assert generated and token is not None and len(token) >= MIN_TOKEN_CHARS
    assert server_token("0.0.0.0", "T", {})[0] != token  # a new one each start
    assert server_token("127.0.0.1", "T", {"T": "x" * MIN_TOKEN_CHARS}) == ("x" * MIN_TOKEN_CHARS, False)
    with pytest.raises(ConfigError, match=r"\$T holds a token of 5 characters"):
        server_token("0.0.0.0", "T", {"T": "short"})


def test_the_mcp_settings_name_each_host_on_any_port_and_the_token_is_checked() -> None:
    settings = transport_security(("localhost", "::1", "robot.local"))
    assert settings.enable_dns_rebinding_protection
    assert {"[::1]:*", "robot.local:*", "robot.local"} <= set(settings.allowed_hosts)
    origins = settings.allowed_origins
    assert "http://robot.local:*" in origins and "http://evil.example:*" not in origins
    verifier = StaticToken("s" * 43)
    assert anyio.run(verifier.verify_token, "s" * 43) is not None
    assert anyio.run(verifier.verify_token, "s" * 42) is None
    assert "s" * 43 not in repr(verifier)
    assert "max_body_bytes in config/mcp.yaml" in explanations(10, "config/mcp.yaml")["Request body too large"]


@pytest.mark.parametrize(("value", "message"), [
    (5, "'directive' must be text, got a number"),
    (None, "got null"),
    (["put one apple inside the fridge"], "got a list"),
    ("  ", "is empty"),
    ("\x00\x07\x1b", "3 control or non-text character(s) (first: U+0000)"),
    ("put one apple\u202e inside the fridge", "U+202E"),
    ("put one apple \ud800", "U+D800"),
])
def test_text_fields_refuse_what_a_person_could_not_type(value, message) -> None:
    with pytest.raises(BadInput, match=re.escape(message)) as refused:
        plain_text(value, "directive", "put one apple inside the fridge")
    assert "put one apple inside the fridge" in str(refused.value) or "must be text" not in message


def test_text_fields_keep_plain_text_and_whitespace() -> None:
    assert plain_text(" put one apple\tinside the fridge\n", "directive", "e") == "put one apple\tinside the fridge"
    assert plain_text("", "planner", "classical", required=False) == ""
    assert plain_text("mets une pomme dans le frigo, s'il te plaît", "directive", "e").endswith("plaît")
