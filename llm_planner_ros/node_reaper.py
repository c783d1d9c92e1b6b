"""Stops a launcher's node process groups when the launcher dies without stopping them.

The launcher runs this file as a small process of its own session (``python -S node_reaper.py
SIGTERM_TIMEOUT SIGKILL_TIMEOUT``, standard library only, so it starts in a few milliseconds) and
keeps a pipe to its stdin open. It writes one line per event:

    +PGID   a node's process group was started
    -PGID   a node's process group is gone (the launcher stopped and reaped it)
    stop    the launcher stopped the graph itself: exit without signalling anything

End of input without ``stop`` means the launcher died (SIGKILL, a crash): every group still listed
gets SIGTERM, and SIGKILL after SIGKILL_TIMEOUT seconds if it has not ended after
SIGTERM_TIMEOUT seconds. The nodes themselves already get a parent-death signal from the kernel;
this catches what that signal cannot reach: the nodes' own children (planner subprocesses), which
share their node's process group, and nodes that ignore or outlast the signal.
"""
from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterable

POLL_S = 0.1


def _group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies waiting to be reaped do not count)."""
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so split after the last ')'
        fields = stat[stat.rindex(b")") + 2:].split()
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _signal_groups(groups: set[int], sig: int) -> None:
    for pgid in groups:
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _wait_gone(groups: set[int], timeout_s: float) -> set[int]:
    deadline = time.monotonic() + timeout_s
    alive = {g for g in groups if _group_alive(g)}
    while alive and time.monotonic() < deadline:
        time.sleep(POLL_S)
        alive = {g for g in alive if _group_alive(g)}
    return alive


def read_groups(lines: Iterable[str]) -> tuple[set[int], bool]:
    """The groups still listed at the end of ``lines``, and whether the launcher said ``stop``."""
    groups: set[int] = set()
    for line in lines:
        line = line.strip()
        if line == "stop":
            return groups, True
        if line[:1] in "+-" and line[1:].isdigit():
            (groups.add if line[0] == "+" else groups.discard)(int(line[1:]))
    return groups, False


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C meant for the launcher is not for us
    sigterm_timeout, sigkill_timeout = (float(a) for a in argv[1:3])
    groups, stopped = read_groups(sys.stdin)
    if stopped:
        return 0
    alive = {g for g in groups if _group_alive(g)}
    if not alive:
        return 0
    print(f"[launch] the launcher is gone: stopping {len(alive)} node process group(s) {sorted(alive)}",
          file=sys.stderr, flush=True)
    _signal_groups(alive, signal.SIGTERM)
    alive = _wait_gone(alive, sigterm_timeout)
    if alive:
        _signal_groups(alive, signal.SIGKILL)
        alive = _wait_gone(alive, sigkill_timeout)
    if alive:
        print(f"[launch] process group(s) {sorted(alive)} survived SIGKILL", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
