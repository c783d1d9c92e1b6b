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

from collections.abc import Callable
from typing import Any

from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor, ParameterType, SetParametersResult
from rclpy.exceptions import InvalidParameterTypeException, InvalidParameterValueException
from rclpy.node import Node
from rclpy.parameter import Parameter

from llm_planner.config import (
    PARAMS,
    Param,
    allowed_values,
    check_change,
    default_params_file,
    read_params_file,
    validate_params,
)
from llm_planner.errors import ConfigError

_TYPES = {str: ParameterType.PARAMETER_STRING, int: ParameterType.PARAMETER_INTEGER,
          float: ParameterType.PARAMETER_DOUBLE, bool: ParameterType.PARAMETER_BOOL}


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


def declare_params(node: Node, role: str, on_change: Callable[[str, Any], None] | None = None) -> dict[str, Any]:
    """Declare every parameter of the schema with its descriptor and validate them together; a
    parameter not given takes the default of the domain's file (config/llm_planner.yaml or
    config/gtamp_nodes.yaml). ConfigError names an invalid parameter. The returned dict is kept up to
    date with accepted changes; ``on_change(name, value)`` runs after each."""
    source = f"node '{node.get_name()}'"
    domain = _declare(node, PARAMS["domain"], read_params_file()["domain"], role, "household", source)
    defaults = read_params_file(default_params_file(domain))
    values = {name: _declare(node, p, defaults[name], role, domain, source) for name, p in PARAMS.items()
              if name != "domain"}
    params = validate_params({"domain": domain, **values}, source=source)

    def refuse(changes: list[Parameter]) -> SetParametersResult:
        for change in changes:
            reason = check_change(change.name, change.value, domain)
            if reason:
                return SetParametersResult(successful=False, reason=reason)
        return SetParametersResult(successful=True)

    def apply(changes: list[Parameter]) -> None:
        for change in changes:
            if change.name in PARAMS:
                value = validate_params({"domain": domain, change.name: change.value})[change.name]
                params[change.name] = value
                if on_change is not None:
                    on_change(change.name, value)
                node.get_logger().info(f"parameter {change.name} = {value!r}")

    node.add_on_set_parameters_callback(refuse)
    node.add_post_set_parameters_callback(apply)
    return params


def _declare(node: Node, param: Param, default: Any, role: str, domain: str, source: str) -> Any:
    try:
        return node.declare_parameter(param.name, default, descriptor(param, role, domain)).value
    except (InvalidParameterTypeException, InvalidParameterValueException) as exc:
        raise ConfigError(f"{source}: parameter '{param.name}' is invalid ({exc}): expected {param.accepts}") from None
