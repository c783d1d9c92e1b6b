"""The web page's door: each request is checked, in this order, before a route sees it
(docs/guides/security.md).

1. ``Host`` must name this server (:func:`~llm_planner_ros.frontends.access.served_hosts`), else
   421: a page whose name was resolved to this machine (DNS rebinding) is not served.
2. An ``Origin``, when sent, must be the page's own (``http://`` and the ``Host``), else 403; a
   request that changes anything (any method but GET and HEAD) must send it, as browsers do, else
   403. A page of another site can therefore send nothing the server acts on.
3. With a token, the request carries it, else 401: the cookie that opening ``/?token=TOKEN`` sets
   (the answer is a redirect to the same page without the token), or ``Authorization: Bearer TOKEN``.
4. A request that changes anything sends ``Content-Type: application/json`` (else 415, so no
   form or ``text/plain`` post passes) and a body of at most ``max_body_bytes`` (else 413).

Every refusal says what was wrong and what to send instead; none names the token or the names
served.
"""
from __future__ import annotations

import html
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from llm_planner_ros.frontends.access import host_of, same_token

READS = ("GET", "HEAD")
JSON_TYPE = "application/json"


class BodyTooLarge(Exception):
    """A request body over the limit (the message says how large it may be)."""


@dataclass(frozen=True)
class Door:
    """What the door lets in: the host names served, the token (None: no token needed), the
    largest body, and where more host names are configured (for the 421 message)."""

    hosts: frozenset[str]
    token: str | None
    max_body_bytes: int
    hosts_setting: str

    def cookie_name(self, port: int) -> str:
        """The token's cookie (one per port: cookies do not tell ports apart)."""
        return f"llm_planner_web_{port}"

    def check(self, request: Request) -> Response | None:
        """The refusal of ``request`` (steps 1 to 4 of the module), a redirect that stores a token
        given in the URL, or None to let it in."""
        host = request.headers.get("host", "")
        if host_of(host) not in self.hosts:
            return refuse(request, 421, f"this server does not answer to the name '{host_of(host)}' (Host header): "
                          f"open it by its address or a name listed in {self.hosts_setting}")
        own = f"http://{host.lower()}"
        origin = request.headers.get("origin")
        changes = request.method not in READS
        if origin is not None and origin.lower() != own:
            return refuse(request, 403, f"refused: the request comes from {origin}, not from this page ({own}); "
                          "only the page itself may send requests here")
        if changes and origin is None:
            return refuse(request, 403, f"refused: a request that changes anything must carry the page's Origin "
                          f"header ({own}); browsers send it, a script must add 'Origin: {own}'")
        if self.token is not None:
            passed = self._token_check(request, self.token)
            if passed is not None:
                return passed
        if changes:
            kind = request.headers.get("content-type", "")
            if kind.split(";")[0].strip().lower() != JSON_TYPE:
                return refuse(request, 415, f"the body must be JSON sent with 'Content-Type: {JSON_TYPE}' "
                              f"(got '{kind or 'none'}')")
            length = request.headers.get("content-length", "")
            if length.isdigit() and int(length) > self.max_body_bytes:
                return refuse(request, 413, too_large(int(length), self.max_body_bytes))
        return None

    def _token_check(self, request: Request, token: str) -> Response | None:
        """None when ``request`` carries ``token``; else the redirect storing a token given in the
        URL, or the 401."""
        cookie_name = self.cookie_name(request.scope["server"][1])
        given = request.query_params.get("token")
        if given is not None and request.method in READS:
            if not same_token(given, token):
                return refuse(request, 401, "that token is not this server's: open the URL printed when "
                              "`llm-planner web` started")
            rest = urlencode([(k, v) for k, v in parse_qsl(request.url.query) if k != "token"])
            response = RedirectResponse(request.url.path + (f"?{rest}" if rest else ""), status_code=303)
            response.set_cookie(cookie_name, token, httponly=True, samesite="lax")
            return response
        cookie = request.cookies.get(cookie_name, "")
        bearer = request.headers.get("authorization", "")
        bearer = bearer[7:] if bearer.lower().startswith("bearer ") else ""
        if any(value and same_token(value, token) for value in (cookie, bearer)):
            return None
        return refuse(request, 401, "this server needs its token: open the URL with ?token=... printed when "
                      "`llm-planner web` started (the page keeps it in a cookie), or send "
                      "'Authorization: Bearer TOKEN'")


def too_large(size: int, limit: int) -> str:
    return (f"the request body has {size} bytes or more; this server takes at most {limit} "
            "(max_body_bytes): send one directive as {\"directive\": \"put one apple inside the fridge\"}")


def refuse(request: Request, status: int, message: str) -> Response:
    """The refusal: JSON ``{"ok": false, "message"}`` for the API and the event stream, a page
    otherwise."""
    if request.url.path.startswith(("/api/", "/events")):
        return JSONResponse({"ok": False, "message": message}, status_code=status)
    return HTMLResponse(f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{status}</title>'
                        f"</head><body><p>{html.escape(message)}</p></body></html>", status_code=status)


async def read_body(request: Request, limit: int) -> bytes:
    """The request body, read up to ``limit`` bytes; BodyTooLarge beyond (a body sent without a
    length too)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge(too_large(len(body), limit))
    return bytes(body)


class GuardMiddleware:
    """ASGI middleware putting :class:`Door` before every HTTP request of ``app``."""

    def __init__(self, app: ASGIApp, door: Door) -> None:
        self.app, self.door = app, door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            stop = self.door.check(Request(scope))
            if stop is not None:
                await stop(scope, receive, send)
                return
        await self.app(scope, receive, send)
