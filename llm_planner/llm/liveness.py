"""Whether a model server is up at all: a TCP connection, no request. A server whose queue of
requests is long answers HTTP slowly but is not gone; the fallback to the embedded provider
(:class:`llm_planner.llm.factory.FallbackBackend`) and the nodes' model-server probe
(``llm_planner_ros.model_watch``) tell the two apart with it, without a request that would wait
behind the server's own work."""
from __future__ import annotations

import socket
import urllib.parse


def accepts_connections(base_url: str, timeout_s: float) -> tuple[bool, str]:
    """(whether a TCP connection to the server of ``base_url`` opens within ``timeout_s``, what happened).

    The kernel accepts a connection for a listening process however long its queue of requests is, so
    this tells a server that is up but busy (its HTTP answers slow) from one that is gone (refused, or
    no host), without a request that would wait behind the server's own work."""
    parsed = urllib.parse.urlparse(base_url)
    host = parsed.hostname or "localhost"
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True, "accepts connections"
    except OSError as exc:
        return False, f"does not accept connections ({getattr(exc, 'strerror', None) or exc})"
