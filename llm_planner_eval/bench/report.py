"""Shared output of every benchmark: paper-style tables (mean +- standard error over seeds) and the
JSON file format of DESIGN.md ("Machine-readable output")::

    {"benchmark": NAME, "backend": NAME, "config": {...},
     "rows": [{"method": M, "split": S, "episodes": N, "success_rate": 0..1, "stderr": x, ...}],
     "episodes": [...]}
"""
from __future__ import annotations

import concurrent.futures as cf
import json
import math
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from llm_planner.errors import ConfigError
from llm_planner_eval.bench.engine import active_engine

Job = TypeVar("Job")
Result = TypeVar("Result")


def mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (0 for fewer than two values)."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(var / n)


def fmt_pm(mean: float, stderr: float, scale: float = 1.0, digits: int = 1) -> str:
    if math.isnan(mean):
        return "-"
    return f"{mean * scale:.{digits}f} ± {stderr * scale:.{digits}f}"


@dataclass
class BenchReport:
    """Collects rows and per-episode records; prints tables; writes the JSON file."""

    benchmark: str
    backend: str
    config: dict[str, Any] = field(default_factory=dict)
    rows: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)

    def add_row(self, method: str, split: str, episodes: int, success_rate: float | None, stderr: float | None,
                **figures: Any) -> None:
        self.rows.append({"method": method, "split": split, "episodes": episodes,
                          "success_rate": success_rate, "stderr": stderr, **figures})

    def to_dict(self) -> dict[str, Any]:
        return {"benchmark": self.benchmark, "backend": self.backend, "config": self.config,
                "rows": self.rows, "episodes": self.episodes}

    def write_json(self, path: str | Path, plot: bool = True) -> Path:
        """Write the results file and (``plot``) its plot next to it (``.png``, :mod:`llm_planner_eval.plots`)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = self.to_dict()
        path.write_text(json.dumps(data, indent=1, default=str))
        if plot:
            from llm_planner_eval.plots import plot_path, plot_results  # noqa: PLC0415 - CLI start-up: plots and viz.topdown only when a figure is drawn

            try:
                print(f"plot: {plot_results(json.loads(json.dumps(data, default=str)), plot_path(path))}")
            except ConfigError as exc:  # results without a figure to plot: the JSON is what matters
                print(f"no plot: {exc}")
        return path

    def pivot(self, value: str = "success_rate", err: str | None = "stderr", scale: float = 100.0,
              digits: int = 1, title: str = "") -> str:
        """A methods x splits table of one figure, like the papers' tables."""
        splits = list(dict.fromkeys(r["split"] for r in self.rows))
        methods = list(dict.fromkeys(r["method"] for r in self.rows))
        cells: dict[tuple[str, str], str] = {}
        for r in self.rows:
            v = r.get(value)
            if v is None:
                continue
            cells[(r["method"], r["split"])] = (fmt_pm(v, r.get(err, 0.0), scale, digits) if err
                                                else f"{v * scale:.{digits}f}")
        header = ["method"] + splits
        body = [[m] + [cells.get((m, s), "-") for s in splits] for m in methods]
        return format_table(header, body, title=title or f"{self.benchmark}: {value} (backend: {self.backend})")


#: How :func:`format_table` writes a table: "text" (aligned columns for a terminal) or "markdown" (a
#: pipe table with its title as a paragraph above it, for the documentation site's results pages).
TABLE_STYLE: ContextVar[str] = ContextVar("table_style", default="text")
_NUMBER = re.compile(r"^[-+]?(\d|\.\d)")
#: Columns of one Markdown table; a wider one is split (each part keeps the columns that name a row).
MARKDOWN_COLUMNS = 8


@contextmanager
def table_style(style: str) -> Iterator[None]:
    """Every :func:`format_table` within the block writes ``style`` ("text" or "markdown"): the
    ``--markdown`` option of the ``bench`` commands (:mod:`llm_planner_eval.commands.bench`)."""
    if style not in ("text", "markdown"):
        raise ValueError(f"table style '{style}': text or markdown")
    token = TABLE_STYLE.set(style)
    try:
        yield
    finally:
        TABLE_STYLE.reset(token)


def format_table(header: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "", keys: int = 1) -> str:
    """A plain-text table with aligned columns, or a Markdown table under :func:`table_style` (split
    when wide, each part repeating the ``keys`` first columns that name a row)."""
    if TABLE_STYLE.get() == "markdown":
        return markdown_table(header, rows, title, keys=keys)
    rows = [[str(c) for c in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h)) for i, h in enumerate(header)]
    line = "  ".join("-" * w for w in widths)
    out = [title] if title else []
    out.append("  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True)))
    out.append(line)
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) for r in rows]
    return "\n".join(out)


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[Any]], title: str = "", keys: int = 1,
                   max_columns: int = MARKDOWN_COLUMNS) -> str:
    """A Markdown pipe table: the title (its leading blank lines kept) as a paragraph above it, a
    column of numbers ("1.00 (1.6)", "87.5 ± 12.5", "-") aligned right, ``|`` in a cell escaped, and
    a blank line after it, so that a note printed next stays outside the table. A table of more than
    ``max_columns`` columns is written as several, each with the ``keys`` first columns (those that
    name a row), so that it fits a page."""
    def cell(value: Any) -> str:
        return str(value).replace("|", "\\|").replace("\n", " ").strip()

    body = [[cell(c) for c in row] + [""] * (len(header) - len(row)) for row in rows]
    n = len(header)
    step = max(max_columns - keys, 1)
    parts = [list(range(n))] if n <= max_columns else [[*range(keys), *range(i, min(i + step, n))]
                                                        for i in range(keys, n, step)]
    out = [title.rstrip(), ""] if title.strip() else []
    for k, columns in enumerate(parts):
        numeric = [bool(body) and all(_is_number(r[i]) or r[i] in ("-", "") for r in body)
                   and any(_is_number(r[i]) for r in body) for i in columns]
        out += [""] if k else []
        out.append("| " + " | ".join(cell(header[i]) for i in columns) + " |")
        out.append("| " + " | ".join("---:" if right else "---" for right in numeric) + " |")
        out += ["| " + " | ".join(r[i] for i in columns) + " |" for r in body]
    return "\n".join(out) + "\n"


def _is_number(cell: str) -> bool:
    """A figure, perhaps with its unit or a count beside it ("0.5 s", "0.193 (33/33 due)"), not a sentence."""
    return bool(_NUMBER.match(cell)) and sum(c.isalpha() for c in cell) <= 4


# ------------------------------------------------------------------ parallel episodes
def process_map(run_job: Callable[[Job], Result], jobs: Sequence[Job], workers: int, *,
                init: Callable[..., None] | None = None, initargs: tuple = (),
                start_method: str = "spawn",
                error_record: Callable[[Job, str], Result] | None = None) -> Iterator[Result]:
    """``run_job`` over ``jobs`` in up to ``workers`` processes (each set up once by ``init``), the
    results in the order they finish; the one process pool of every benchmark.

    Under ``--ray`` (an active :class:`llm_planner_eval.bench.engine.RayEngine`) the jobs are Ray tasks
    instead (``workers`` is then the engine's business); a job that fails on a worker, its retries
    spent, comes back as ``error_record(job, message)`` (raised without one).

    The pool ends with ``shutdown(wait=True)``: every worker leaves through its own shutdown, so
    the semaphores a worker made (tqdm's lock is one) are released, and Python's resource tracker
    does not warn about "leaked semaphore objects" at exit as it does after ``Pool.terminate`` (the
    ``with Pool`` exit), which kills workers still starting up. A worker that dies (a crash in a
    native library) raises ``BrokenProcessPool`` here instead of leaving the caller waiting. On an
    error or an interrupt the workers are stopped at once (tqdm in the workers uses a thread lock,
    so at least its lock is not left behind).
    """
    import multiprocessing  # noqa: PLC0415 - CLI start-up: multiprocessing only while a benchmark runs

    engine = active_engine()
    if engine is not None:
        yield from engine.map(run_job, jobs, init=init, initargs=initargs, error_record=error_record)
        return
    pool = cf.ProcessPoolExecutor(max(1, min(workers, len(jobs))), mp_context=multiprocessing.get_context(start_method),
                                  initializer=_init_pool_worker, initargs=(init, initargs))
    try:
        for future in cf.as_completed([pool.submit(run_job, job) for job in jobs]):
            yield future.result()
    except BaseException:
        running = list((getattr(pool, "_processes", None) or {}).values())  # shutdown() forgets them
        pool.shutdown(wait=False, cancel_futures=True)
        for process in running:
            process.terminate()  # the executor has no public way to stop a running job
        raise
    finally:
        pool.shutdown(wait=True)


def _init_pool_worker(init: Callable[..., None] | None, initargs: tuple) -> None:
    from tqdm import tqdm  # noqa: PLC0415 - CLI start-up: the progress bar only while a benchmark runs

    tqdm.set_lock(threading.RLock())  # tqdm's default multiprocessing lock would be a named semaphore
    if init is not None:
        init(*initargs)


def parallel_records(jobs: Sequence[Any], run_job: Callable[[Any], dict], init: Callable[..., None],
                     initargs: tuple, workers: int, desc: str, progress: bool,
                     error_record: Callable[[Any, str], dict] | None = None) -> list[dict]:
    """``run_job`` over ``jobs`` in ``workers`` spawned processes (each set up by ``init``; in this
    process when ``workers`` is 1 and no ``--ray`` engine is active), with a progress bar."""
    from tqdm import tqdm  # noqa: PLC0415 - CLI start-up: the progress bar only while a benchmark runs

    records: list[dict] = []
    bar = tqdm(total=len(jobs), unit="job", desc=desc, disable=not progress, leave=False)
    if workers > 1 or active_engine() is not None:
        results: Iterable[dict] = process_map(run_job, jobs, workers, init=init, initargs=initargs,
                                              error_record=error_record)
    else:
        init(*initargs)
        results = map(run_job, jobs)
    for record in results:
        records.append(record)
        bar.update(1)
    bar.close()
    return records
