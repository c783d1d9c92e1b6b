"""PyBullet, imported without its banner: ``from llm_planner.domains.bullet import pybullet as p``.

Importing pybullet prints "pybullet build time: ..." from C on the process's stderr, in every
process (each node, each benchmark worker), which reads like a fault in a normal run. The first
import in a process goes through :func:`import_quietly`, which points file descriptors 1 and 2 at
``/dev/null`` for the duration of the import; every later ``import pybullet`` gets the loaded module.
"""
from __future__ import annotations

import ctypes
import os
import sys
from types import ModuleType


def import_quietly() -> ModuleType:
    """Import pybullet with the C-level stdout and stderr silenced (errors still raise)."""
    if "pybullet" in sys.modules:
        return sys.modules["pybullet"]
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for fd in saved:
            os.dup2(devnull, fd)
        import pybullet  # noqa: PLC0415 - heavy optional: PyBullet only where a simulation runs

        ctypes.CDLL(None).fflush(None)  # what C buffered goes to /dev/null too
    finally:
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)
    return pybullet


pybullet = import_quietly()
