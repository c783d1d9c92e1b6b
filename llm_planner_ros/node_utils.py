"""What every llm_planner node shares: validated parameters, QoS profiles, a worker pool that keeps
long work off the executor's threads, task status, and a clean spin loop."""
from __future__ import annotations

import atexit
import concurrent.futures as cf
import ctypes
import faulthandler
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypedDict, TypeVar, cast

import rclpy
from llm_planner_interfaces.msg import TaskStatus
from rclpy.action.server import GoalEvent
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSDurabilityPolicy, QoSHistoryPolicy, QoSProfile, QoSReliabilityPolicy
from rclpy.task import Future

from llm_planner.adapters import get_domain
from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.planners.base import ObjectBelief
from llm_planner.task_states import CANCELED, EXECUTING
from llm_planner_ros.conversions import belief_to_msg
from llm_planner_ros.environment import apply_ros_environment

T = TypeVar("T")
#: shutdown_timeout_s of a node without the parameter schema (the lifecycle manager): config/*.yaml's value
DEFAULT_SHUTDOWN_TIMEOUT_S = 3.0

#: Latched state topics (geometry, perception): a late subscriber gets the current message at once.
GEOMETRY_QOS = QoSProfile(depth=1, reliability=QoSReliabilityPolicy.RELIABLE,
                          durability=QoSDurabilityPolicy.TRANSIENT_LOCAL)
#: Services and action services, on servers and clients alike: the default (keep last 10) drops
#: requests beyond the tenth while the server is busy and their callers wait forever
#: (docs/guides/installing.md); 1000 queued requests are never dropped.
SERVICE_QOS = QoSProfile(depth=1000, history=QoSHistoryPolicy.KEEP_LAST, reliability=QoSReliabilityPolicy.RELIABLE)


class ActionQos(TypedDict):
    """The QoS keywords of an action server or client."""

    goal_service_qos_profile: QoSProfile
    result_service_qos_profile: QoSProfile
    cancel_service_qos_profile: QoSProfile


#: The keyword arguments that give an ActionServer or ActionClient deep, reliable service queues.
ACTION_QOS: ActionQos = {"goal_service_qos_profile": SERVICE_QOS, "result_service_qos_profile": SERVICE_QOS,
                         "cancel_service_qos_profile": SERVICE_QOS}
STATUS_QOS = QoSProfile(depth=100, reliability=QoSReliabilityPolicy.RELIABLE)


def make_domain(params: dict[str, Any]) -> Any:
    """The domain adapter the ``domain`` parameter names, built from the parameters. The adapter
    reads ``params`` itself (not a copy), so a parameter changed at run time
    (:mod:`llm_planner_ros.parameters`) is what its next use sees."""

    domain = get_domain(params["domain"])(params)
    domain.params = params
    return domain


class WorkerPool:
    """A bounded pool of threads for blocking work (LLM calls, tree search, waits on the robot).

    An ``async`` callback awaits :meth:`run`: rclpy suspends the coroutine without holding an
    executor thread, so feedback, cancel requests and new calls are served meanwhile."""

    def __init__(self, node: Node, size: int, name: str) -> None:
        self.node = node
        self.pool = cf.ThreadPoolExecutor(max_workers=size, thread_name_prefix=name)
        self._waiting = 0  # work submitted that no thread has started yet
        self._lock = threading.Lock()

    def backlog(self) -> int:
        """How many calls wait for a thread of the pool (submitted, not started)."""
        with self._lock:
            return self._waiting

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        future: Future[T] = Future(executor=self.node.executor)

        def work() -> None:
            with self._lock:
                self._waiting -= 1
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting callback
                # rclpy's annotation says Exception; it stores any, and a KeyboardInterrupt must reach the caller too
                future.set_exception(exc)  # type: ignore[arg-type]

        with self._lock:
            self._waiting += 1
        try:
            self.pool.submit(work)
        except RuntimeError:  # the pool is shut down: nothing waits
            with self._lock:
                self._waiting -= 1
            raise
        # rclpy types the awaited value T | None (None for a cancelled future); this one is never cancelled
        return cast(T, await future)

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class StatusPublisher:
    """``task_status``: one TaskStatus message per state change and executed step."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.pub = node.create_publisher(TaskStatus, "task_status", STATUS_QOS)

    def __call__(self, task_id: str, directive: str, state: str, step: int = 0, action: str = "",
                 result: str = "", message: str = "", llm_requests: int = 0, decision_llm_requests: int = 0,
                 belief: Sequence[ObjectBelief] = (), question: str = "", options: Sequence[str] = ()) -> None:
        msg = TaskStatus(task_id=task_id, directive=directive[:200], state=state, step=step, action=action,
                         result=result, message=message, llm_requests=llm_requests,
                         decision_llm_requests=decision_llm_requests, belief=belief_to_msg(belief),
                         question=question, options=list(options))
        msg.header.stamp = self.node.get_clock().now().to_msg()
        self.pub.publish(msg)

    def step(self, directive: str, fields: dict[str, Any]) -> None:
        """The ``executing`` status of one step, from its feedback fields."""
        self(fields["task_id"], directive, EXECUTING, fields["step"], fields["action"], fields["outcome"],
             fields["observation"], fields["llm_requests"], fields["decision_llm_requests"], fields["belief"])


def end_goal(goal_handle: Any, outcome: str, success: bool) -> None:
    """Put an action goal in its final state: CANCELED when its task was canceled (by the goal's
    cancel, by ``cancel_task``, by an approval answered "no"), SUCCEEDED when the task succeeded,
    ABORTED otherwise (failed, refused). A task canceled by another route than the goal's own cancel
    request is first marked canceling on the server's side: ROS 2 actions let only a canceling goal
    end CANCELED, and rclpy has no public call for a cancel the server itself decides."""
    if outcome == CANCELED:
        if not goal_handle.is_cancel_requested:
            goal_handle._update_state(GoalEvent.CANCEL_GOAL)
        goal_handle.canceled()
    elif success:
        goal_handle.succeed()
    else:
        goal_handle.abort()


def wait_future(future: Any, timeout_s: float) -> Any:
    """Block this (worker) thread until an rclpy future completes; None on timeout."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if future.done():
        done.set()
    if not done.wait(timeout_s):
        return None
    return future.result()


def stop_executor(executor: SingleThreadedExecutor | MultiThreadedExecutor, timeout_s: float = 2.0) -> None:
    """Shut an executor down once the callbacks it handed to its threads have run.

    rclpy's MultiThreadedExecutor.shutdown destroys its guard condition before it waits for its
    thread pool; a callback that starts in between fails ("cannot use Destroyable because
    destruction was requested") and the failure is printed as "The following exception was never
    retrieved" at exit. Waiting for the pool first (its ``_executor``) closes that window."""
    pool = getattr(executor, "_executor", None)
    if pool is not None:
        pool.shutdown(wait=True)
    executor.shutdown(timeout_sec=timeout_s)


#: How often a node checks that the process that started it is still its parent (a polling period).
PARENT_POLL_S = 0.2
#: Exit code of a node that was still busy ``shutdown_timeout_s`` after it was asked to stop.
EXIT_FORCED = 3


def _say(line: str) -> None:
    """Print to stderr if it can still be written (the launcher that read it may be gone)."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def watch_parent(stop: threading.Event, name: str) -> None:
    """Set ``stop`` when the process that started this one dies (the kernel re-parents us): a node
    of ``ros2 launch`` killed with SIGTERM or SIGKILL, or of our launcher, is never left running."""
    parent = os.getppid()

    def watch() -> None:
        while not stop.wait(PARENT_POLL_S):
            if os.getppid() != parent:
                stop.set()
                _say(f"[{name}] the process that started this node (pid {parent}) is gone: stopping")
                return

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def exit_after(stop: threading.Event, timeout_s: Callable[[], float], name: str) -> None:
    """Once ``stop`` is set, end this process ``timeout_s()`` later if it has not ended by itself (a
    thread busy with an LLM call or a search, or a blocked callback, would otherwise keep it alive)."""

    def hard_exit() -> None:
        stop.wait()
        timeout = timeout_s()
        time.sleep(timeout)
        _say(f"[{name}] still busy {timeout:g} s after being asked to stop (shutdown_timeout_s): exiting now")
        os._exit(EXIT_FORCED)

    threading.Thread(target=hard_exit, name="exit-after", daemon=True).start()


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


class _Itimerspec(ctypes.Structure):
    _fields_ = [("it_interval", _Timespec), ("it_value", _Timespec)]


class _Sigevent(ctypes.Structure):  # struct sigevent of Linux: value, signo, notify, 48 bytes of union
    _fields_ = [("sigev_value", ctypes.c_void_p), ("sigev_signo", ctypes.c_int), ("sigev_notify", ctypes.c_int),
                ("_rest", ctypes.c_byte * 48)]


class TeardownWatchdog:
    """A SIGINT the kernel delivers ``timeout_s`` after :meth:`arm`, with SIGINT's default action:
    the process ends as if stopped by Ctrl-C (exit status -2) unless :meth:`disarm` comes first.

    It bounds the rcl/DDS teardown of a stopping node (``destroy_node``, ``rclpy.shutdown``). That
    teardown can block inside rmw while holding the GIL (seen: the lifecycle manager in
    ``destroy_when_not_in_use`` until the launcher's SIGKILL, in 2 of 11 runs of the test suite; the
    same class of hang as ros2/rclpy#456), and then no Python thread runs, so neither the signal
    handlers nor :func:`exit_after` can end the process. A POSIX timer needs no Python to fire."""

    def __init__(self) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._timer = ctypes.c_void_p()
        self._armed = False

    def arm(self, timeout_s: float) -> bool:
        """Start the timer (after SIGINT's default action is restored); False where POSIX timers are missing."""
        event = _Sigevent(sigev_signo=signal.SIGINT, sigev_notify=0)  # SIGEV_SIGNAL
        when = _Itimerspec(it_value=_Timespec(int(timeout_s), int((timeout_s % 1) * 1e9)))
        try:
            create, settime = self._libc.timer_create, self._libc.timer_settime
        except AttributeError:
            return False
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if create(time.CLOCK_MONOTONIC, ctypes.byref(event), ctypes.byref(self._timer)) != 0:
            return False
        self._armed = settime(self._timer, 0, ctypes.byref(when), None) == 0
        return self._armed

    def disarm(self) -> None:
        if self._armed:
            self._libc.timer_delete(self._timer)
            self._armed = False


def run_node(make_node: Callable[[], Node], threads: int = 4) -> int:
    """Init rclpy, build the node, spin it until SIGINT/SIGTERM (or until the process that started
    it dies, ``stop_with_parent``), shut down within ``shutdown_timeout_s``, and end the process
    with the exit code (:func:`finish`).

    A ``while rclpy.ok(): spin_once`` loop (not ``spin()``) stops promptly on a signal
    (docs/guides/installing.md). One thread: a SingleThreadedExecutor.
    """
    apply_ros_environment()
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 PID` prints where a hung node is
    faulthandler.enable(all_threads=True)  # a crash (SIGSEGV in rcl or DDS) prints the Python threads into the log
    rclpy.init(args=sys.argv, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    node = None
    code = 0
    try:
        node = make_node()
        params = getattr(node, "params", {})
        if params.get("stop_with_parent", True):
            watch_parent(stop, node.get_name())
        exit_after(stop, lambda: params.get("shutdown_timeout_s", DEFAULT_SHUTDOWN_TIMEOUT_S), node.get_name())
        executor = SingleThreadedExecutor() if threads == 1 else MultiThreadedExecutor(num_threads=threads)
        executor.add_node(node)
        while rclpy.ok() and not stop.is_set():
            executor.spin_once(timeout_sec=0.1)
        stop.set()  # rclpy shut down by itself: the bounded exit applies too
        stop_executor(executor)
    except (ConfigError, LlmPlannerError) as exc:
        print(f"[{getattr(node, 'get_name', lambda: 'node')()}] fatal: {exc}", file=sys.stderr, flush=True)
        code = 2
    except ExternalShutdownException:
        pass
    finally:
        watchdog = TeardownWatchdog()
        if node is not None:
            closer = getattr(node, "close", None)
            if closer:
                closer()
            watchdog.arm(getattr(node, "params", {}).get("shutdown_timeout_s", DEFAULT_SHUTDOWN_TIMEOUT_S))
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
        watchdog.disarm()
    return finish(code)


def finish(code: int) -> int:
    """End the process now, with ``code``, once the node is shut down: the atexit handlers run (a
    local model server stopped) and the output is flushed, but the interpreter's own finalization
    is skipped. With a language model loaded it garbage-collects for many seconds (measured: an
    executor still "Garbage-collecting" 5 s after SIGINT), past any launcher's stop timeout, and
    worker threads still busy would be waited for without bound."""

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
