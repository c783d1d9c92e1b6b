"""The HTTP connections of the openai backend, so that questions still in flight can be abandoned.

A question runs on a thread (a planner's late question, a sample of M asked at once) and waits for
its HTTP answer, which a slow model server may take minutes to give. When the backend is closed
(:meth:`OpenAIBackend.close <llm_planner.llm.openai_backend.OpenAIBackend.close>`, or the process
ends) nothing waits for those answers any more:

* :class:`Connections` is the network backend of the backend's HTTP client: it keeps the sockets it
  opened, and :meth:`Connections.abandon` shuts each one down (``SHUT_RDWR``): a thread blocked
  reading its answer gets end-of-file at once, and the server sees the client gone (a FIN), so it
  can stop generating. Closing a socket would not do: a read blocked on it in another thread goes
  on, and the connection stays open until that read ends;
* the request then fails, and the backend raises :class:`QuestionAbandoned` (an LLMError: a method
  counts it as an answer that did not come) instead of asking again;
* at interpreter exit every backend is closed before Python joins the question threads
  (:func:`close_at_exit`), and no question asks any more (:func:`exiting`), so a process that ends
  with questions in flight ends at once.
"""
from __future__ import annotations

import concurrent.futures.thread  # noqa: F401 - its exit hook (joining pool threads) must be registered first
import socket
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from llm_planner.errors import LLMError


class QuestionAbandoned(LLMError):
    """The backend was closed while the question was in flight: nothing waits for its answer."""


class Connections:
    """An httpcore network backend (it wraps the default one) that keeps the sockets it opens, so that
    :meth:`abandon` can shut them down from any thread; after it, no connection is opened."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._sockets: weakref.WeakSet[socket.socket] = weakref.WeakSet()
        self._lock = threading.Lock()
        self.abandoned = False

    def connect_tcp(self, *args: Any, **kwargs: Any) -> Any:
        stream = self._inner.connect_tcp(*args, **kwargs)
        self._keep(stream)
        return stream

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> Any:
        stream = self._inner.connect_unix_socket(*args, **kwargs)
        self._keep(stream)
        return stream

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)

    def _keep(self, stream: Any) -> None:
        sock = stream.get_extra_info("socket")
        with self._lock:
            abandoned = self.abandoned
            if not abandoned and sock is not None:
                self._sockets.add(sock)
        if abandoned:
            stream.close()
            raise ConnectionAbortedError("the language model was closed")

    def abandon(self) -> None:
        """Shut down every socket opened here (requests in flight end at once, the server sees the
        client gone); no new connection is opened afterwards."""
        with self._lock:
            self.abandoned = True
            sockets = list(self._sockets)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # closed already, or the peer is gone


def tracked_http_client(timeout_s: float) -> tuple[Any, Connections]:
    """An httpx client (the one the ``openai`` client takes as ``http_client``) whose connections a
    :class:`Connections` keeps; returns both."""
    import httpx2  # noqa: PLC0415 - the openai client's HTTP library, only on the served-model path

    transport = httpx2.HTTPTransport(limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=100))
    pool = transport._pool
    connections = Connections(pool._network_backend)
    pool._network_backend = connections  # type: ignore[assignment]  # read when each connection is opened
    client = httpx2.Client(transport=transport, timeout=timeout_s, follow_redirects=True)
    return client, connections


# ------------------------------------------------------------------------------- process exit
_OPEN: weakref.WeakSet[Any] = weakref.WeakSet()
_OPEN_LOCK = threading.Lock()
_HOOKED = False
_EXITING = threading.Event()


def exiting() -> bool:
    """True once the interpreter exits (:func:`close_at_exit`'s hook ran): a question no longer asks."""
    return _EXITING.is_set()


def close_at_exit(backend: Any) -> None:
    """Close ``backend`` (its ``close()``) when the interpreter exits, before the threads of
    ``concurrent.futures`` pools are joined (a question in flight would otherwise hold the exit
    until its answer came)."""
    global _HOOKED
    with _OPEN_LOCK:
        _OPEN.add(backend)
        if _HOOKED:
            return
        _HOOKED = True
    register: Callable[[Callable[[], None]], None] | None = getattr(threading, "_register_atexit", None)
    if register is not None:
        try:
            # threading's exit hooks run in reverse order of registration: this one before the pools'
            register(_close_open)
        except RuntimeError:
            pass  # the interpreter is exiting already


def _close_open() -> None:
    _EXITING.set()
    with _OPEN_LOCK:
        backends: Iterable[Any] = list(_OPEN)
    for backend in backends:
        try:
            backend.close()
        except Exception:  # noqa: BLE001 - nothing can be reported any more at exit
            pass
