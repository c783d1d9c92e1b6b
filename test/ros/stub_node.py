"""A stand-in node program for the launcher tests: no ROS, only the process behaviour that matters.

    stub_node.py --marks DIR [--child] [--ignore-term] [--exit-when FILE [--code N]] --ros-args -r __node:=NAME

It writes ``DIR/NAME.pids`` (its pid, and with ``--child`` the pid of a child it keeps, which
shares its process group as a planner subprocess does), writes ``DIR/NAME.SIGINT`` or
``DIR/NAME.SIGTERM`` when those signals arrive and ends (SIGTERM is only noted with
``--ignore-term``), and exits with ``--code`` once ``--exit-when`` FILE exists. Run through the
venv's python it re-executes itself at start (the ROS wheels' bootstrapper does), as real nodes do.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    own = sys.argv[1:sys.argv.index("--ros-args")] if "--ros-args" in sys.argv else sys.argv[1:]
    ros = sys.argv[len(own) + 1:]
    name = next(a.split(":=", 1)[1] for a in ros if a.startswith("__node:="))
    parser = argparse.ArgumentParser()
    parser.add_argument("--marks", type=Path, required=True)
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--ignore-term", action="store_true")
    parser.add_argument("--exit-when", type=Path)
    parser.add_argument("--code", type=int, default=0)
    args = parser.parse_args(own)

    def on_signal(signum: int, _frame: object) -> None:
        sig = signal.Signals(signum).name
        (args.marks / f"{name}.{sig}").write_text(str(time.time()))
        if not (sig == "SIGTERM" and args.ignore_term):
            sys.exit(0)

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    pids = [os.getpid()]
    if args.child:
        pids.append(subprocess.Popen([sys.executable, "-S", "-c", "import time; time.sleep(600)"]).pid)
    ready = args.marks / f"{name}.pids"
    ready.with_suffix(".tmp").write_text(" ".join(map(str, pids)))
    ready.with_suffix(".tmp").rename(ready)
    while not (args.exit_when and args.exit_when.exists()):
        time.sleep(0.05)
    return args.code


if __name__ == "__main__":
    sys.exit(main())
