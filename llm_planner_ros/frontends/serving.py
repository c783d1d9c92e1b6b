"""Serving a front end's ASGI application with uvicorn until SIGINT or SIGTERM, however busy the
front end's other threads are.

uvicorn installs its SIGINT and SIGTERM handlers with ``signal.signal``, and CPython runs such a
handler in the main thread only when the interpreter notices the signal there. With another thread
running Python code (the web page's ROS graph thread spins every 50 ms), that can fail: measured,
``llm-planner web`` ignored a Ctrl-C sent 0.2 s after its start in 2 of 20 runs, and a second one
too, with Python's C handler installed and uvicorn's handler never called. Two ways round it:

- :class:`StopSignals` (the web page): both signals are blocked in every thread and one thread takes
  them with ``signal.sigwait``, so no Python signal handler is involved at all. It must be created in
  the main thread before any other thread starts (threads inherit the blocked mask; so would a child
  process, and the web front end starts none).
- :class:`LoopSignalledServer` (also used alone, by ``mcp --http``, whose ROS client lives in the
  main thread): the event loop is told of both signals too (``loop.add_signal_handler``: the C
  handler writes the signal to the loop's wake-up descriptor).
"""
from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import threading

import uvicorn

#: The signals that stop a front end's server (a second SIGINT forces it, as in uvicorn).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class LoopSignalledServer(uvicorn.Server):
    """uvicorn's server, told of :data:`STOP_SIGNALS` by its event loop."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        await super().startup(sockets=sockets)


class StopSignals:
    """SIGINT and SIGTERM blocked in this process's threads and taken by one waiting thread, which
    stops the server being run (:meth:`run`) or, before it runs, remembers that a stop came."""

    def __init__(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("StopSignals must be created in the main thread, before any other thread")
        signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        self.received: list[signal.Signals] = []
        self._lock = threading.Lock()
        self._server: uvicorn.Server | None = None
        threading.Thread(target=self._wait, name="stop-signals", daemon=True).start()

    def _wait(self) -> None:
        while True:
            sig = signal.Signals(signal.sigwait(STOP_SIGNALS))
            with self._lock:
                self.received.append(sig)
                server = self._server
            if server is not None:
                _stop(server, sig)

    @property
    def stopping(self) -> bool:
        with self._lock:
            return bool(self.received)

    def run(self, config: uvicorn.Config) -> None:
        """Serve ``config``'s application until a stop signal (at once if one came already)."""
        server = LoopSignalledServer(config)
        with self._lock:
            self._server = server
            for sig in self.received:
                _stop(server, sig)
        server.run()


def _stop(server: uvicorn.Server, sig: int) -> None:
    """What uvicorn's handler does, without re-raising the signal at the end: the first stops the
    server gracefully, a second SIGINT at once. A plain flag the server looks at every 0.1 s."""
    if server.should_exit and sig == signal.SIGINT:
        server.force_exit = True
    else:
        server.should_exit = True


def run_server(config: uvicorn.Config) -> None:
    """Serve ``config``'s application until SIGINT or SIGTERM, the event loop told of them too
    (KeyboardInterrupt then passes a SIGINT on, as uvicorn does)."""
    LoopSignalledServer(config).run()


def leave_now(code: int = 0) -> None:
    """Exit at once, without the interpreter's finalisation: used when a thread is still inside ROS
    code at the end (a daemon thread there aborts the process with "terminate called without an
    active exception" while the interpreter tears the ROS objects down under it)."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)
