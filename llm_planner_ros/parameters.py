"""Node parameters as ROS tools expect them (``ros2 param describe|set``, rqt_reconfigure).

Every parameter of the schema (:data:`llm_planner.config.PARAMS`) is declared with a
ParameterDescriptor: its description, type, range or allowed values, and ``read_only`` on the nodes
where a change would need a restart or would not be used (the default planner only matters to the
planner node, ``max_steps`` only to the executor). A change at run time is checked by a
set-parameters callback, which refuses a bad value with a reason naming what is allowed
("planner 'nonsense' is not one of ..."), and then applied: the node's parameter dict, which the
domain adapter and the links read at use, is updated, and a node hook (``on_parameter``) rebuilds
what depends on it (the LLM backend, the geometry timer). Nothing reports success and is ignored.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, ParameterType, SetParametersResult
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.node import Node
from rclpy.parameter import Parameter

from llm_planner.config import (
    MANAGER,
    MANAGER_PARAMS,
    MANAGER_SECTION,
    PARAMS,
    Param,
    allowed_values,
    check_change,
    default_params_file,
    read_params_file,
    validate_param,
    validate_params,
)
from llm_planner.errors import ConfigError

_TYPES = {str: ParameterType.PARAMETER_STRING, int: ParameterType.PARAMETER_INTEGER,
          float: ParameterType.PARAMETER_DOUBLE, bool: ParameterType.PARAMETER_BOOL,
          list: ParameterType.PARAMETER_STRING_ARRAY}


def descriptor(param: Param, role: str, domain: str) -> ParameterDescriptor:
    """The descriptor ``ros2 param describe`` shows for ``param`` on the node of ``role``."""
    live = param.is_live(role)
    where = ", ".join(f"/{r}" for r in param.live)
    note = ("; takes effect at once" if live else
            f"; read-only here (used at run time by {where})" if param.live else "; read-only: restart the graph")
    choices = allowed_values(param.name, domain) if param.kind is str else ()
    constraints = f"one of {', '.join(choices)}" if choices else param.accepts
    desc = ParameterDescriptor(name=param.name, type=_TYPES[param.kind], description=param.description + note,
                               additional_constraints=constraints, read_only=not live)
    if param.kind is float and param.low is not None and param.high is not None:
        desc.floating_point_range = [FloatingPointRange(from_value=float(param.low), to_value=float(param.high),
                                                        step=0.0)]
    elif param.kind is int and param.low is not None and param.high is not None:
        desc.integer_range = [IntegerRange(from_value=int(param.low), to_value=int(param.high), step=0)]
    return desc


#: rclpy's own use_sim_time (every node declares it; rclpy's TimeSource applies a change at once)
USE_SIM_TIME = ParameterDescriptor(
    type=ParameterType.PARAMETER_BOOL, additional_constraints="true or false",
    description="take the time from the /clock topic instead of the system clock (rclpy); takes effect at once")


def describe_rclpy_parameters(node: Node) -> None:
    """Give rclpy's own ``use_sim_time`` the description ``ros2 param describe`` shows for ours."""
    if node.has_parameter("use_sim_time"):
        node.set_descriptor("use_sim_time", USE_SIM_TIME)


def declare_params(node: Node, role: str, on_change: Callable[[str, Any], None] | None = None,
                   vet: Callable[[Mapping[str, Any]], str] | None = None) -> dict[str, Any]:
    """Declare every parameter of the schema with its descriptor and validate them together; a
    parameter not given takes the default of the domain's file (config/llm_planner.yaml or
    config/gtamp_nodes.yaml). ConfigError names an invalid parameter. The returned dict is kept up to
    date with accepted changes; ``on_change(name, value)`` runs after each. ``vet`` sees the
    changes of one set together after each passed its own check and may refuse them with a reason
    (the nodes check a switch to the openai backend against its server)."""
    source = f"node '{node.get_name()}'"
    describe_rclpy_parameters(node)
    domain = _declare(node, PARAMS["domain"], read_params_file()["domain"], role, "household", source)
    defaults = read_params_file(default_params_file(domain))
    values = {name: _declare(node, p, defaults[name], role, domain, source) for name, p in PARAMS.items()
              if name != "domain"}
    params = validate_params({"domain": domain, **values}, source=source)

    follow_changes(node, params, lambda name, value: check_change(name, value, domain),
                   lambda name, value: validate_params({"domain": domain, name: value})[name], on_change, vet)
    return params


def declare_manager_params(node: Node) -> dict[str, Any]:
    """Declare the lifecycle manager's parameters (:data:`llm_planner.config.MANAGER_PARAMS`) with
    their descriptors, defaults from the shipped parameter file (its ``/**/lifecycle_manager``
    section, ``shutdown_timeout_s`` from ``/**``); the returned dict follows accepted changes.
    ConfigError names an invalid parameter."""
    source = f"node '{node.get_name()}'"
    describe_rclpy_parameters(node)
    defaults = {**read_params_file(), **read_params_file(default_params_file(), section=MANAGER_SECTION)}
    params = {name: _declare(node, p, defaults[name], MANAGER, "household", source)
              for name, p in MANAGER_PARAMS.items()}
    for name, value in params.items():
        params[name] = _checked(name, value, source, MANAGER_PARAMS)

    def check(name: str, value: Any) -> str:
        if name not in MANAGER_PARAMS:
            return ""
        try:
            _checked(name, value, "set", MANAGER_PARAMS)
        except ConfigError as exc:
            return str(exc).removeprefix("set: ")
        return ""

    follow_changes(node, params, check, lambda name, value: _checked(name, value, "set", MANAGER_PARAMS))
    return params


def _checked(name: str, value: Any, source: str, schema: Mapping[str, Param]) -> Any:
    """``value`` of ``name`` validated (a ROS string array as a list), or ConfigError."""
    if schema[name].kind is list and not isinstance(value, str):
        value = list(value)
    return validate_param(name, value, source, schema)


def follow_changes(node: Node, params: dict[str, Any], check: Callable[[str, Any], str],
                   convert: Callable[[str, Any], Any], on_change: Callable[[str, Any], None] | None = None,
                   vet: Callable[[Mapping[str, Any]], str] | None = None) -> None:
    """Refuse a change ``check`` (or ``vet``, given all changes of one set) gives a reason against
    (the reason is what ``ros2 param set`` prints); apply an accepted one to ``params`` (what the
    node reads at use), then ``on_change``."""

    def refuse(changes: list[Parameter]) -> SetParametersResult:
        for change in changes:
            reason = check(change.name, change.value)
            if reason:
                return SetParametersResult(successful=False, reason=reason)
        reason = vet({c.name: c.value for c in changes if c.name in params}) if vet is not None else ""
        return SetParametersResult(successful=not reason, reason=reason)

    def apply(changes: list[Parameter]) -> None:
        for change in changes:
            if change.name in params:
                value = convert(change.name, change.value)
                params[change.name] = value
                if on_change is not None:
                    on_change(change.name, value)
                node.get_logger().info(f"parameter {change.name} = {value!r}")

    node.add_on_set_parameters_callback(refuse)
    node.add_post_set_parameters_callback(apply)


def _declare(node: Node, param: Param, default: Any, role: str, domain: str, source: str) -> Any:
    try:
        return node.declare_parameter(param.name, default, descriptor(param, role, domain)).value
    except (InvalidParameterTypeException, InvalidParameterValueException) as exc:
        raise ConfigError(f"{source}: parameter '{param.name}' is invalid ({exc}): expected {param.accepts}") from None
