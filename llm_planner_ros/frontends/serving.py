"""Serving a front end's ASGI application with uvicorn until SIGINT or SIGTERM, however busy the
front end's other threads are.

uvicorn installs its SIGINT and SIGTERM handlers with ``signal.signal``. CPython 3.11 runs such a
handler only when the main thread sees the interpreter's eval breaker, and another thread that runs
Python code (a front end's ROS graph thread, spinning every few milliseconds) may see the breaker
first and clear it: the signal is then never handled. Measured: ``llm-planner web`` ignored a Ctrl-C
sent 0.2 s after its start in about 1 run in 10, and every Ctrl-C after it. The event loop's own
signal handling (``loop.add_signal_handler``) does not depend on the breaker: the C handler writes
the signal number to the loop's wake-up descriptor, and the loop calls the handler. So the server
is told of both signals through its loop.
"""
from __future__ import annotations

import asyncio
import signal
import socket

import uvicorn

#: The signals that stop a front end's server (the second SIGINT forces it: uvicorn's handle_exit).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class LoopSignalledServer(uvicorn.Server):
    """uvicorn's server, told of :data:`STOP_SIGNALS` by its event loop."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self.handle_exit, sig, None)
        await super().startup(sockets=sockets)


def run_server(config: uvicorn.Config) -> None:
    """Serve ``config``'s application until SIGINT or SIGTERM (KeyboardInterrupt passes a SIGINT on,
    as uvicorn does)."""
    LoopSignalledServer(config).run()
