"""The benchmarks' process pool (``process_map``), run as a benchmark runs it: a script in its own
interpreter with spawned workers, so the resource tracker's warnings and a worker's crash are real."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import multiprocessing, os, sys
    from tqdm import tqdm
    from llm_planner_eval.bench.report import process_map

    KEPT = []

    def job(x):
        # what libraries do in workers: a tqdm bar, a named semaphore (a spawned worker's default
        # context is spawn, so the resource tracker follows it) kept until the worker ends
        KEPT.extend([tqdm(total=1, disable=True), multiprocessing.RLock()])
        if sys.argv[1] == "raise" and x == 2:
            raise ValueError(f"job {x} failed")
        if sys.argv[1] == "crash" and x == 2:
            os._exit(3)
        return x * x

    if __name__ == "__main__":
        print(sorted(process_map(job, list(range(5)), 2)))
""")


def _run(tmp_path, mode: str) -> subprocess.CompletedProcess:
    script = tmp_path / "pool_script.py"
    script.write_text(SCRIPT)
    return subprocess.run([sys.executable, str(script), mode], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_every_job_runs_and_no_semaphore_is_left_behind(tmp_path):
    done = _run(tmp_path, "ok")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[0, 1, 4, 9, 16]"
    assert "leaked semaphore" not in done.stderr and "Warning" not in done.stderr, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize("mode, error", [("raise", "ValueError: job 2 failed"), ("crash", "BrokenProcessPool")])
def test_a_failing_or_dying_worker_ends_the_run_with_its_error(tmp_path, mode, error):
    done = _run(tmp_path, mode)
    assert done.returncode != 0 and error in done.stderr, done.stderr
