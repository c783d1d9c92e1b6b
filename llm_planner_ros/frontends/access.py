"""Who may reach a front end over HTTP (``llm-planner web``, ``llm-planner mcp --http``): the host
names a server answers to, and the token it requires when it listens beyond loopback
(docs/guides/security.md).

A browser sends the name it resolved in the ``Host`` header; a page of another site that had its
name resolved to this machine (DNS rebinding) sends that other name, so a server answers only to
the names it serves: the loopback names, the address or name it listens on (with a wildcard
address, this machine's name and the addresses it resolves to and routes from), and the names
configured. The token is never logged: the command prints it once, to the terminal, in the URL
to open.
"""
from __future__ import annotations

import ipaddress
import os
import secrets
import socket
from collections.abc import Iterable, Mapping

from llm_planner.errors import ConfigError

#: The names of this machine's loopback interface, as a ``Host`` header spells them.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: Addresses meaning "every interface".
WILDCARDS = ("0.0.0.0", "::", "")
#: Random bytes of a generated token (43 URL-safe characters), as Jupyter's 24 and more.
TOKEN_BYTES = 32
#: A token from the environment shorter than this is refused: a guessable token is no token.
MIN_TOKEN_CHARS = 16
#: Addresses from the documentation ranges (RFC 5737, RFC 3849): connecting a UDP socket to one
#: sends nothing and tells which address this machine routes from.
ROUTE_PROBES = ((socket.AF_INET, "198.51.100.1"), (socket.AF_INET6, "2001:db8::1"))


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` reaches this machine only (``localhost`` or a loopback address)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def route_addresses() -> list[str]:
    """The addresses this machine sends from on its default routes (IPv4 first), as a phone on the
    same network reaches it; none without a route."""
    addresses = []
    for family, probe in ROUTE_PROBES:
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as udp:
                udp.connect((probe, 9))
                addresses.append(str(udp.getsockname()[0]))
        except OSError:  # no route in this family
            continue
    return [address for address in addresses if not is_loopback(address)]


def machine_names() -> list[str]:
    """This machine's name, the addresses it resolves to and :func:`route_addresses`, without
    loopback ones."""
    names = [socket.gethostname()]
    try:
        names += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None)]
    except OSError:
        pass
    return [name for name in names if not is_loopback(name)] + route_addresses()


def served_hosts(bind_host: str, configured: Iterable[str]) -> tuple[str, ...]:
    """The host names (no port, lower case) a server listening on ``bind_host`` answers to: the
    loopback names, ``bind_host`` itself (for a wildcard, :func:`machine_names`) and ``configured``."""
    own = machine_names() if bind_host in WILDCARDS else [bind_host]
    names = [name.strip("[]").lower() for name in (*LOOPBACK_NAMES, *own, *configured) if name]
    return tuple(dict.fromkeys(names))


def host_of(header: str) -> str:
    """The name in a ``Host`` header, without its port and brackets, lower case (``[::1]:8080`` ->
    ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def url_host(host: str) -> str:
    """``host`` as a URL spells it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def display_host(bind_host: str) -> str:
    """The name to print in the URL a person opens: for a wildcard, the address this machine routes
    from (127.0.0.1 when there is none)."""
    if bind_host not in WILDCARDS:
        return bind_host
    return next(iter(route_addresses()), "127.0.0.1")


def server_token(bind_host: str, token_env: str, environ: Mapping[str, str] = os.environ) -> tuple[str | None, bool]:
    """The token a server requires and whether it was generated: the value of ``$token_env`` when
    set (ConfigError when it is shorter than :data:`MIN_TOKEN_CHARS`), else a new random one when
    ``bind_host`` is beyond loopback, else none (loopback serves without a token)."""
    value = environ.get(token_env, "")
    if value:
        if len(value) < MIN_TOKEN_CHARS:
            raise ConfigError(f"${token_env} holds a token of {len(value)} characters; use at least {MIN_TOKEN_CHARS} "
                              "(python3 -c 'import secrets; print(secrets.token_urlsafe())'), or unset it to have "
                              "one generated")
        return value, False
    if is_loopback(bind_host):
        return None, False
    return secrets.token_urlsafe(TOKEN_BYTES), True


def same_token(given: str, token: str) -> bool:
    """Whether ``given`` is ``token``, compared in constant time."""
    return secrets.compare_digest(given.encode(), token.encode())
