"""What every llm_planner node shares: validated parameters, a clean spin loop, waiting on futures."""
from __future__ import annotations

import signal
import sys
import threading
from typing import Any, Callable, Iterable

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from rclpy.qos import QoSDurabilityPolicy, QoSProfile, QoSReliabilityPolicy

from llm_planner.config import PARAMS, load_params_file, validate_param
from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.ros.environment import apply_ros_environment


#: Latched state topics (geometry, perception): a late subscriber gets the current message at once.
GEOMETRY_QOS = QoSProfile(depth=1, reliability=QoSReliabilityPolicy.RELIABLE,
                          durability=QoSDurabilityPolicy.TRANSIENT_LOCAL)


def declare_params(node: Node, names: Iterable[str]) -> dict[str, Any]:
    """Declare the named parameters with the defaults of config/llm_planner.yaml and validate them.

    Raises ConfigError naming the parameter when a value is invalid.
    """
    defaults = load_params_file()
    values: dict[str, Any] = {}
    for name in names:
        param = node.declare_parameter(name, defaults[name])
        values[name] = validate_param(name, param.value, source=f"node '{node.get_name()}'")
    return values


def wait_future(future: Any, timeout_s: float) -> Any:
    """Block this (worker) thread until an rclpy future completes; None on timeout."""
    done = threading.Event()
    future.add_done_callback(lambda _: done.set())
    if future.done():
        done.set()
    if not done.wait(timeout_s):
        future.cancel()
        return None
    return future.result()


def run_node(make_node: Callable[[], Node], threads: int = 4) -> int:
    """Init rclpy, build the node, spin it until SIGINT/SIGTERM, shut down cleanly; return an exit code.

    A ``while rclpy.ok(): spin_once`` loop (not ``spin()``) stops promptly on a signal
    (../shared/notes/ros2-from-pypi.md).
    """
    apply_ros_environment()
    rclpy.init(args=sys.argv, signal_handler_options=rclpy.signals.SignalHandlerOptions.NO)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    node = None
    code = 0
    try:
        node = make_node()
        executor = MultiThreadedExecutor(num_threads=threads)
        executor.add_node(node)
        while rclpy.ok() and not stop.is_set():
            executor.spin_once(timeout_sec=0.1)
        executor.shutdown(timeout_sec=2.0)
    except (ConfigError, LlmPlannerError) as exc:
        print(f"[{getattr(node, 'get_name', lambda: 'node')()}] fatal: {exc}", file=sys.stderr, flush=True)
        code = 2
    except ExternalShutdownException:
        pass
    finally:
        if node is not None:
            closer = getattr(node, "close", None)
            if closer:
                closer()
            node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return code


__all__ = ["GEOMETRY_QOS", "PARAMS", "declare_params", "run_node", "wait_future"]
