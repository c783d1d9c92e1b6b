"""``llm-planner mcp --http``: who may reach the MCP server over streamable HTTP, in the SDK's own
terms (docs/guides/security.md).

- :func:`transport_security`: the SDK's transport security settings, always on: the ``Host`` must
  be a name the server serves (else 421) and a browser's ``Origin`` one of those names on any
  port (else 403); a POST must be ``application/json`` (else 400).
- :class:`StaticToken` and :func:`token_auth`: the bearer token the SDK's auth middleware asks of
  every request when the server listens beyond loopback (else 401).
- ``max_body_bytes`` of ``config/mcp.yaml`` goes to the SDK's body limit (413).
- :class:`ExplainRefusals`: each of the SDK's one-line refusals says what to do instead.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from llm_planner_ros.frontends.access import same_token, url_host
from llm_planner_ros.frontends.serving import run_server

#: The client id a request that carried the token is known by (one token, one client).
TOKEN_CLIENT = "llm-planner-token"
#: The statuses of the SDK's one-line refusals (:class:`ExplainRefusals`).
REFUSALS = (400, 403, 413, 421)


def transport_security(hosts: Iterable[str]) -> TransportSecuritySettings:
    """DNS rebinding protection for the names ``hosts`` (without ports): each on any port, as a
    ``Host`` and as an ``http://`` Origin."""
    spelled = [url_host(host) for host in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*spelled, *(f"{host}:*" for host in spelled)],
        allowed_origins=[*(f"http://{host}" for host in spelled), *(f"http://{host}:*" for host in spelled)])


@dataclass(frozen=True)
class StaticToken:
    """The SDK's ``TokenVerifier`` for one fixed token (compared in constant time)."""

    token: str = field(repr=False)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The access of a request bearing the token; None (401) for any other."""
        if not same_token(token, self.token):
            return None
        return AccessToken(token=token, client_id=TOKEN_CLIENT, scopes=[])


def token_auth(token: str, server_url: str) -> tuple[StaticToken, AuthSettings]:
    """The token verifier and auth settings of a server at ``server_url`` that issues its own
    token: no authorization server, no protected-resource metadata, every request needs the token."""
    return StaticToken(token), AuthSettings(issuer_url=server_url, resource_server_url=None)  # type: ignore[arg-type]


class ExplainRefusals:
    """ASGI middleware that adds what to do to the SDK's one-line refusals (``Invalid Host
    header``, ...): ``explanations`` maps each line to the advice appended to it."""

    def __init__(self, app: ASGIApp, explanations: Mapping[str, str]) -> None:
        self.app, self.explanations = app, explanations

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def explained(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in REFUSALS:
                held.append(message)
                return
            if not held:
                await send(message)
                return
            held.append(message)
            if message.get("more_body", False):
                return
            start, body = held[0], b"".join(m.get("body", b"") for m in held[1:])
            advice = self.explanations.get(body.decode(errors="replace").strip())
            if advice is not None:
                body = f"{body.decode().strip()}: {advice}".encode()
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, explained)


def explanations(max_body_bytes: int, config: str) -> dict[str, str]:
    """The advice for each of the SDK's one-line refusals, naming ``config`` where to change a setting."""
    return {
        "Invalid Host header": f"open the server by a name it answers to (printed at start), or add the name to "
                               f"allowed_hosts in {config}",
        "Invalid Origin header": "a browser page may call this server only when it is served from a name the "
                                 f"server answers to (allowed_hosts in {config}); other clients send no Origin",
        "Invalid Content-Type header": "send each JSON-RPC message as a POST with 'Content-Type: application/json'",
        "Request body too large": f"this server takes at most {max_body_bytes} bytes a request (max_body_bytes in "
                                  f"{config}): send a shorter directive",
    }


def serve(app: ASGIApp, host: str, port: int) -> None:
    """Serve ``app`` (the SDK's streamable HTTP application) on ``host:port`` until Ctrl-C or
    SIGTERM. No request is logged."""
    run_server(uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False))
