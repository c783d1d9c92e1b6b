"""Ray as the engine of every benchmark: the episodes of ``llm-planner bench household |
gtamp | nl2pddl | saycanpay`` as Ray tasks, on this machine or a cluster.

The seeds' tables are far larger than what two cores run: STaLM (seed 003, §5) gives each episode
300-600 s of planning, 50 trials per cell; LLM-MCTS (seed 002, §4) averages many episodes per suite
and apartment against a remote model. ``--ray`` runs the same episodes where the CPUs are:

* ``--ray`` (no address): a Ray instance started in this process (``--workers`` CPUs, bound to
  127.0.0.1 with ``local_loopback``); ``--ray auto``: the cluster ``ray start`` made on this machine;
  ``--ray HOST:PORT`` (or ``ray://HOST:10001``): a remote cluster. Every node needs the same install
  (``bash scripts/setup.sh``); nothing of the working tree is shipped.
* Each episode is one task holding ``cpus_per_episode`` CPUs (config/ray.yaml). A worker process is
  set up once, by the benchmark's ``init(*initargs)`` (the ``initializer`` of the process pool), the
  first time it runs an episode of this run; the set-up arguments go to the object store once.
* Episodes come back in the order they finish, into the same tables, JSON and progress bar as with
  ``--workers``; a record depends on its job's seed only, not on where it ran.
* A worker or node lost mid-episode: Ray runs the episode again (``max_retries``); every run of an
  episode is counted by a small actor, and the retries are in the header. An episode that fails
  anyway (its retries spent, or an exception that escaped the benchmark's own handling) is recorded
  through the benchmark's ``error_record(job, message)``: it is never lost.
* ``--llm-max-in-flight N``: one actor holds N slots; every Ray worker installs a
  :class:`RayRequestGate` as its process's request gate (:mod:`llm_planner.llm.request_gate`), so at
  most N requests are at the model server at once across the cluster; the header says how many
  requests had to wait (throttled).

``--workers`` (a process pool on one machine, :func:`llm_planner_eval.bench.report.process_map`) stays the
default; Ray is imported only when ``--ray`` is given.
"""
from __future__ import annotations

import argparse
import os
import threading
import threading as _threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from llm_planner.errors import ConfigError, LLMError
from llm_planner.paths import config_dir, read_yaml_mapping

Job = TypeVar("Job")
Result = TypeVar("Result")

LOCAL = ""  # --ray with no address: a Ray instance started in this process


# ------------------------------------------------------------------------------ settings
@dataclass(frozen=True)
class RaySettings:
    """config/ray.yaml (see the comments there)."""

    cpus_per_episode: float = 1.0
    max_retries: int = 2
    stall_timeout_s: float = 3600.0
    poll_s: float = 0.5
    init_timeout_s: float = 120.0
    local_loopback: bool = True
    usage_stats: bool = False
    gate_wait_s: float = 600.0


def load_ray_settings(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> RaySettings:
    """config/ray.yaml (or ``path``) with ``overrides``; unknown keys and bad values are errors."""

    source = Path(path) if path else config_dir() / "ray.yaml"
    data = {**read_yaml_mapping(source, "the Ray engine settings"), **dict(overrides or {})}
    known = {f.name: f for f in fields(RaySettings)}
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) {unknown}; known: {sorted(known)}")
    values: dict[str, Any] = {}
    for name, value in data.items():
        kind = type(getattr(RaySettings(), name))
        try:
            values[name] = value if kind is bool and isinstance(value, bool) else kind(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{source}: {name}={value!r} is not a {kind.__name__}") from None
        if kind is bool and not isinstance(value, bool):
            raise ConfigError(f"{source}: {name}={value!r} must be true or false")
    settings = RaySettings(**values)
    if settings.cpus_per_episode <= 0 or settings.max_retries < 0 or settings.poll_s <= 0 \
            or settings.stall_timeout_s <= 0 or settings.init_timeout_s <= 0 or settings.gate_wait_s <= 0:
        raise ConfigError(f"{source}: cpus_per_episode, poll_s and the timeouts must be > 0 and max_retries >= 0 "
                          f"(got {settings})")
    return settings


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """``--ray [ADDRESS]`` and ``--llm-max-in-flight N`` of every ``bench`` command."""
    parser.add_argument("--ray", nargs="?", const=LOCAL, default=None, metavar="ADDRESS",
                        help="run the episodes as Ray tasks instead of --workers processes: no ADDRESS starts Ray "
                             "in this process (--workers CPUs, 127.0.0.1 only), 'auto' joins the cluster `ray start` "
                             "made here, HOST:PORT or ray://HOST:10001 a remote one (config/ray.yaml: retries, "
                             "timeouts)")
    parser.add_argument("--llm-max-in-flight", type=int, default=None, metavar="N",
                        help="with --ray: at most N requests at the model server at once across the whole cluster "
                             "(a Ray actor as the semaphore); the header says how many waited")


# ------------------------------------------------------------------------------ the engine
class RayEngine:
    """A Ray connection for one benchmark run: maps episodes to tasks, counts retries, lost
    episodes and throttled requests. Use through :func:`bench_engine` (or ``start``/``close``)."""

    def __init__(self, address: str | None = LOCAL, workers: int = 2, settings: RaySettings | None = None,
                 llm_max_in_flight: int | None = None) -> None:
        if llm_max_in_flight is not None and llm_max_in_flight < 1:
            raise ConfigError(f"--llm-max-in-flight must be >= 1 (got {llm_max_in_flight})")
        self.address = address or LOCAL
        self.workers = max(1, int(workers))
        self.settings = settings or load_ray_settings()
        self.llm_max_in_flight = llm_max_in_flight
        self.lost = 0               # episodes recorded with an error after their retries
        self.episodes = 0           # episodes that came back (a record or an error record)
        self._attempts: Any = None  # actor: runs per episode
        self._slots: Any = None     # actor: the cluster-wide request semaphore
        self._started_ray = False
        self._nodes = 0
        self._cpus = 0.0

    # -- life cycle
    def start(self) -> RayEngine:
        """Start or join Ray (bounded by ``init_timeout_s``) and create the counting actors."""
        if not self.settings.usage_stats:
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never report usage to Anyscale unasked
        local = self.address == LOCAL
        if local and self.settings.local_loopback:
            # Ray takes the node's address from the interface facing the internet unless this is off
            # (ray/_private/services.py get_node_ip_address); read when ray is imported, and below.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run
        from ray._private import ray_constants  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        if local and self.settings.local_loopback:
            ray_constants.ENABLE_RAY_CLUSTER = False  # ray may have been imported before the variable was set
        if ray.is_initialized():
            raise ConfigError("Ray is already initialised in this process; call ray.shutdown() first")
        kwargs: dict[str, Any] = {"logging_level": "warning", "log_to_driver": True}
        if local:
            kwargs.update(num_cpus=self.workers, include_dashboard=False)
        else:
            kwargs.update(address=self.address)
        failure: list[BaseException] = []
        ready = threading.Event()
        self._release = threading.Event()

        def init() -> None:
            # Ray starts its processes with PR_SET_PDEATHSIG: they die with the *thread* that started
            # them, so this thread lives until close() (a thread that returned killed the GCS).
            try:
                ray.init(**kwargs)
            except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
                failure.append(exc)
            finally:
                ready.set()
            self._release.wait()

        self._thread = threading.Thread(target=init, name="ray-init", daemon=True)
        self._thread.start()
        ready.wait(self.settings.init_timeout_s)
        where = "a local Ray instance" if local else f"the Ray cluster at {self.address}"
        if not ready.is_set():
            self._release.set()
            raise ConfigError(f"could not start or join {where} within init_timeout_s="
                              f"{self.settings.init_timeout_s:g} s (config/ray.yaml); is `ray start` running there "
                              f"(`ray status`)? A loaded machine may need a longer timeout")
        if failure:
            self._release.set()
            raise ConfigError(f"could not start or join {where}: {type(failure[0]).__name__}: {failure[0]}") \
                from failure[0]
        self._started_ray = True
        nodes = [n for n in ray.nodes() if n.get("Alive")]
        self._nodes = len(nodes)
        self._cpus = sum(float(n.get("Resources", {}).get("CPU", 0.0)) for n in nodes)
        actors = _actor_classes()
        self._attempts = actors["attempts"].options(num_cpus=0).remote()
        if self.llm_max_in_flight is not None:
            self._slots = actors["slots"].options(num_cpus=0).remote(int(self.llm_max_in_flight))
        return self

    def close(self) -> None:
        """Read the counters and disconnect (a local instance stops)."""
        if not self._started_ray:
            return
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        try:
            self._final = self._read_counters()
        finally:
            self._attempts = self._slots = None
            ray.shutdown()
            self._started_ray = False
            self._release.set()
            self._thread.join(self.settings.init_timeout_s)

    # -- running episodes
    def map(self, run_job: Callable[[Job], Result], jobs: Sequence[Job], *, init: Callable[..., None] | None = None,
            initargs: tuple = (), error_record: Callable[[Job, str], Result] | None = None) -> Iterator[Result]:
        """``run_job`` over ``jobs`` as Ray tasks, each worker set up once by ``init(*initargs)``; results
        in the order they finish. A task that fails (retries spent, or an exception ``run_job`` let
        out) gives ``error_record(job, message)``; without ``error_record`` the error is raised."""
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        if not self._started_ray:
            raise RuntimeError("RayEngine.map before start()")
        task = ray.remote(_run_episode).options(num_cpus=self.settings.cpus_per_episode,
                                                  max_retries=self.settings.max_retries, retry_exceptions=False,
                                                  name="episode")
        from ray import cloudpickle  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        # Everything of the benchmark goes as bytes, unpickled in the task after the run is counted:
        # unpickling imports the benchmark's modules (seconds), and a worker lost then must count too.
        run_id = uuid.uuid4().hex[:8]
        setup = ray.put(cloudpickle.dumps((init, tuple(initargs), self._slots, self.settings.gate_wait_s)))
        code = cloudpickle.dumps(run_job)
        refs = {task.remote(code, setup, f"{run_id}:{setup.hex()}", cloudpickle.dumps(job), f"{run_id}:{i}",
                            self._attempts): i
                for i, job in enumerate(jobs)}
        pending = list(refs)
        last = time.monotonic()
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=self.settings.poll_s)
                if not done:
                    if time.monotonic() - last > self.settings.stall_timeout_s:
                        raise TimeoutError("no episode finished for "
                                           f"stall_timeout_s={self.settings.stall_timeout_s:g} s "
                                           f"(config/ray.yaml); {len(pending)} still out, e.g. "
                                           f"{jobs[refs[pending[0]]]!r}; `ray status` shows the cluster")
                    continue
                last = time.monotonic()
                for ref in done:
                    index = refs[ref]
                    try:
                        result = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        if error_record is None:
                            raise
                        self.lost += 1
                        result = error_record(jobs[index], describe_failure(exc))
                    self.episodes += 1
                    yield result
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise

    def runs_started(self) -> int:
        """Episode runs begun so far in this engine (a retried episode counts each run)."""
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        return int(ray.get(self._attempts.started.remote(), timeout=self.settings.gate_wait_s)) if self._attempts else 0

    def counted_workers(self) -> list[int]:
        """Process ids of the workers running an episode whose run is counted (a worker lost now
        costs a counted retry; one lost before its count is not seen as a retry)."""
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        if self._attempts is None:
            return []
        return list(ray.get(self._attempts.workers.remote(), timeout=self.settings.gate_wait_s))

    # -- figures
    def _read_counters(self) -> dict[str, Any]:
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        out: dict[str, Any] = {"retries": 0, "throttled": 0, "llm_requests_gated": 0, "peak_in_flight": 0}
        if self._attempts is not None:
            out["retries"] = int(ray.get(self._attempts.retries.remote(), timeout=self.settings.gate_wait_s))
        if self._slots is not None:
            out.update(ray.get(self._slots.stats.remote(), timeout=self.settings.gate_wait_s))
        return out

    def summary(self) -> dict[str, Any]:
        """What the report's ``config["engine"]`` holds (call after the episodes, before or after close)."""
        counters = getattr(self, "_final", None) or (self._read_counters() if self._started_ray else {})
        return {"engine": "ray", "address": self.address or "local", "nodes": self._nodes, "cpus": self._cpus,
                "cpus_per_episode": self.settings.cpus_per_episode, "max_retries": self.settings.max_retries,
                "episodes": self.episodes, "lost": self.lost, "llm_max_in_flight": self.llm_max_in_flight,
                **counters}

    def header(self) -> str:
        """One line for the benchmark's output: where it ran, retries, lost episodes, throttled requests."""
        s = self.summary()
        where = "a local Ray instance" if s["address"] == "local" else f"Ray cluster {s['address']}"
        line = (f"engine: {where}, {s['nodes']} node(s), {s['cpus']:g} CPU(s); {s['episodes']} episode(s), "
                f"{s.get('retries', 0)} retried (max_retries {s['max_retries']}), {s['lost']} recorded with an error "
                f"after failing on a worker")
        if s["llm_max_in_flight"] is not None:
            line += (f"; LLM requests: {s.get('llm_requests_gated', 0)} through the cluster-wide limit of "
                     f"{s['llm_max_in_flight']} in flight, {s.get('throttled', 0)} throttled (waited for a slot)")
        return line


def describe_failure(exc: BaseException) -> str:
    """``error: Kind: message`` of a failed task (the cause of a task error, the first line of a
    system error such as a lost worker)."""
    cause = getattr(exc, "cause", None)
    if cause is not None and not isinstance(cause, type(exc)):
        return f"error: {type(cause).__name__}: {cause}"
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"error: {type(exc).__name__}: {first}"


# ------------------------------------------------------------------------------ the active engine
_ACTIVE: RayEngine | None = None


def active_engine() -> RayEngine | None:
    """The engine of the running ``bench`` command (None: ``--workers`` processes)."""
    return _ACTIVE


@contextmanager
def bench_engine(args: argparse.Namespace, workers: int | None = None) -> Iterator[RayEngine | None]:
    """The engine ``args`` ask for, active for :func:`llm_planner_eval.bench.report.process_map` and
    :func:`~llm_planner_eval.bench.report.parallel_records` inside the ``with`` (None without ``--ray``)."""
    global _ACTIVE
    address = getattr(args, "ray", None)
    limit = getattr(args, "llm_max_in_flight", None)
    if address is None:
        if limit is not None:
            raise ConfigError("--llm-max-in-flight needs --ray (the limit is an actor of the Ray cluster); "
                              "without Ray, set openai.max_in_flight in config/llm.yaml per process")
        yield None
        return
    engine = RayEngine(address, workers if workers is not None else int(getattr(args, "workers", 2) or 2),
                       llm_max_in_flight=limit)
    engine.start()
    previous, _ACTIVE = _ACTIVE, engine
    try:
        yield engine
    finally:
        _ACTIVE = previous
        engine.close()


# ------------------------------------------------------------------------------ in the workers
_READY: set[str] = set()  # set-ups done in this worker process


def _run_episode(run_job: bytes, setup: bytes, key: str, job: bytes, episode: str, attempts: Any) -> Any:
    """One episode in a Ray worker: count the run, set the worker up once per benchmark run, run
    (``run_job``, ``setup`` and ``job`` pickled: see :meth:`RayEngine.map`)."""
    import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

    if attempts is not None:
        ray.get(attempts.start.remote(episode, os.getpid()))
    try:
        return _run_counted(run_job, setup, key, job)
    finally:
        if attempts is not None:
            attempts.end.remote(os.getpid())


def _run_counted(run_job: bytes, setup: bytes, key: str, job: bytes) -> Any:
    """The episode's run once counted: the worker's set-up (once per benchmark run), then the job."""
    from ray import cloudpickle  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

    if key not in _READY:
        from tqdm import tqdm  # noqa: PLC0415 - CLI start-up: the progress bar only while a benchmark runs

        init, initargs, slots, gate_wait_s = cloudpickle.loads(setup)
        tqdm.set_lock(_threading.RLock())  # as in the process pool: no multiprocessing lock
        from llm_planner.llm.request_gate import set_request_gate  # noqa: PLC0415 - CLI start-up: the request gate only in a ray worker

        set_request_gate(RayRequestGate(slots, gate_wait_s) if slots is not None else None)
        if init is not None:
            init(*initargs)
        _READY.clear()  # one benchmark run at a time per worker: older set-ups are stale
        _READY.add(key)
    return cloudpickle.loads(run_job)(cloudpickle.loads(job))


class RayRequestGate:
    """A request gate (:mod:`llm_planner.llm.request_gate`) backed by the cluster's slot actor: one
    slot per request in flight, at most ``--llm-max-in-flight`` across all workers."""

    def __init__(self, slots: Any, wait_s: float) -> None:
        self.slots = slots
        self.wait_s = wait_s

    @contextmanager
    def hold(self) -> Iterator[None]:
        import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run
        from ray.exceptions import GetTimeoutError  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

        token = uuid.uuid4().hex
        try:
            ray.get(self.slots.acquire.remote(token), timeout=self.wait_s)
        except GetTimeoutError:
            self.slots.cancel.remote(token)  # the slot, if it comes, goes straight back
            raise LLMError(f"no slot for an LLM request within gate_wait_s={self.wait_s:g} s (config/ray.yaml): "
                           "the cluster-wide --llm-max-in-flight limit is held by others; "
                           "raise it or the wait") from None
        try:
            yield
        finally:
            self.slots.release.remote(token)


@lru_cache(maxsize=1)
def _actor_classes() -> dict[str, Any]:
    import asyncio  # noqa: PLC0415 - CLI start-up: asyncio only inside the ray actors

    import ray  # noqa: PLC0415 - heavy optional: ray starts only for a parallel benchmark run

    @ray.remote
    class Attempts:
        """Runs of each episode (a retried episode runs more than once)."""

        def __init__(self) -> None:
            self.runs: dict[str, int] = {}
            self.running: dict[int, str] = {}  # worker pid -> the episode whose counted run it runs

        def start(self, episode: str, pid: int = 0) -> int:
            self.runs[episode] = self.runs.get(episode, 0) + 1
            self.running[pid] = episode
            return self.runs[episode]

        def end(self, pid: int) -> None:
            self.running.pop(pid, None)

        def workers(self) -> list[int]:
            return list(self.running)

        def retries(self) -> int:
            return sum(n - 1 for n in self.runs.values())

        def started(self) -> int:
            return sum(self.runs.values())

    @ray.remote
    class Slots:
        """A semaphore of ``n`` slots for LLM requests, shared by the cluster (async actor)."""

        def __init__(self, n: int) -> None:
            self.free = asyncio.Semaphore(n)
            self.held: set[str] = set()
            self.cancelled: set[str] = set()
            self.granted = 0
            self.throttled = 0
            self.peak = 0

        async def acquire(self, token: str) -> bool:
            if self.free.locked():
                self.throttled += 1
            await self.free.acquire()
            if token in self.cancelled:  # its caller gave up waiting
                self.cancelled.discard(token)
                self.free.release()
                return False
            self.held.add(token)
            self.granted += 1
            self.peak = max(self.peak, len(self.held))
            return True

        async def release(self, token: str) -> None:
            if token in self.held:
                self.held.discard(token)
                self.free.release()

        async def cancel(self, token: str) -> None:
            if token in self.held:
                await self.release(token)
            else:
                self.cancelled.add(token)

        async def stats(self) -> dict[str, int]:
            return {"llm_requests_gated": self.granted, "throttled": self.throttled, "peak_in_flight": self.peak}

    return {"attempts": Attempts, "slots": Slots}


def with_settings(engine: RayEngine, **changes: Any) -> RayEngine:
    """``engine`` with some settings changed (tests: ``max_retries=0``); before ``start``."""
    engine.settings = replace(engine.settings, **changes)
    return engine
