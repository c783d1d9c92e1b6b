"""What a child process does between fork and exec so that it never outlives its starter: SIGINT
back to its default (a process started as a background job has it ignored, and exec would pass
that on) and, on Linux, a parent-death signal (``prctl(PR_SET_PDEATHSIG)``). Used by the launcher
for the nodes (``llm_planner_ros.launcher``) and by the local model server for ``transformers
serve`` (``llm_planner.llm.local_model``). Imports neither ROS nor a model."""
from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def libc_prctl() -> Callable[..., int] | None:
    """libc's prctl through ctypes (Linux only; None elsewhere)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


def die_with_parent(parent_pid: int, death_signal: int | None) -> Callable[[], None]:
    """A ``preexec_fn``: SIGINT to default and, unless ``death_signal`` is None, ``death_signal`` when
    the parent dies. The kernel sends it when the forking *thread* ends, so arm it only from a thread
    that lives as long as the child should. prctl is looked up here: the child only calls it."""
    prctl = libc_prctl() if death_signal is not None else None

    def setup() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if prctl is not None and death_signal is not None:
            prctl(PR_SET_PDEATHSIG, int(death_signal), 0, 0, 0)
            if os.getppid() != parent_pid:  # the parent died before the signal was armed
                os.kill(os.getpid(), int(death_signal))

    return setup
