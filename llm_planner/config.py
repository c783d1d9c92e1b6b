"""Node parameters: one schema for every node and both domains, validated in one place.

The household graph (``config/llm_planner.yaml``) and the G-TAMP graph (``config/gtamp_nodes.yaml``)
are two parameter files of this schema that differ only in values; ``domain`` picks the domain,
``scene`` or ``problem`` its world.
Every node declares every parameter (each uses the ones it needs). An invalid value stops a node at
start with a message naming the parameter and what it accepts.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from llm_planner.adapters import DOMAINS, get_domain
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

BACKENDS = ("offline", "openai")
FALLBACKS = ("offline", "none")
#: require_approval: ask before the robot moves
APPROVALS = ("none", "goal", "plan")
#: robot: the simulator of this graph, or any robot of the contract (docs/guides/robot.md)
ROBOTS = ("simulated", "external")
#: The roles of our simulated robot: with ``robot: external`` they are not started nor managed.
SIMULATED_ROBOT = ("simulator", "perception")
#: The four node programs of the graph (``<role>_node``), in the order a lifecycle manager starts them.
ROLES = ("simulator", "perception", "executor", "planner")


@dataclass(frozen=True)
class Param:
    """One node parameter: its type and check, what a valid value looks like (for messages), what
    it does (``ros2 param describe``), the range ROS tools show, and the nodes on which a change
    takes effect while the node runs (``live``); on the other nodes it is read-only."""

    name: str
    kind: type
    check: Callable[[Any], bool]
    accepts: str  # what a valid value looks like, for the error message
    description: str = ""
    low: float | None = None   # the range ROS tools show (the check may be stricter: > 0)
    high: float | None = None
    choices: tuple[str, ...] = ()
    live: tuple[str, ...] = ()  # roles on which a change at run time is used; read-only elsewhere

    def is_live(self, role: str) -> bool:
        return role in self.live


def _positive(v: Any) -> bool:
    return v > 0


def _known_domain(v: str) -> bool:
    return v in DOMAINS


_S = 86400.0  # the largest time any parameter accepts: a day, in seconds
_BOTH = ("planner", "executor")

PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("domain", str, _known_domain, "household or gtamp",
          "the domain the graph runs: household (apartments) or gtamp (STaLM's problems)",
          choices=("household", "gtamp")),
    Param("scene", str, lambda v: bool(v.strip()), "a scene name under config/scenes/ or a YAML path (household)",
          "household: a scene under config/scenes/ or a path to a scene YAML file"),
    Param("problem", str, lambda v: bool(v.strip()), "a G-TAMP problem (P1..P6) or a problem YAML path (gtamp)",
          "gtamp: a problem P1..P6 (config/gtamp/) or a path to a problem YAML file"),
    Param("robot", str, lambda v: v in ROBOTS, f"one of {', '.join(ROBOTS)}",
          "the robot the executor drives: simulated (the simulator and perception nodes of this graph, asked their "
          "lifecycle state before each goal) or external (any robot of the contract, docs/guides/robot.md)",
          choices=ROBOTS),
    Param("seed", int, lambda v: v >= 0, "an integer >= 0", "placement seed of the world; seed of the planners and "
          "the offline LLM", 0, 2 ** 31 - 1),
    Param("planner", str, lambda v: bool(v.strip()), "a planner of the domain",
          "default planner of plan_task, execute_directive and directive (a request may name another)",
          live=("planner",)),
    Param("llm_backend", str, lambda v: v in BACKENDS, f"one of {', '.join(BACKENDS)}",
          "offline (embedded provider, no model) or openai (any OpenAI-compatible server, llm_config)",
          choices=BACKENDS, live=_BOTH),
    Param("llm_config", str, lambda v: True, "a path to an LLM configuration file, or empty for config/llm.yaml",
          "LLM configuration file (base_url, model, samples); empty: config/llm.yaml", live=_BOTH),
    Param("llm_fallback", str, lambda v: v in FALLBACKS, f"one of {', '.join(FALLBACKS)}",
          "when the model server stops answering: offline = continue on the embedded provider until it answers "
          "again; none = the task ends with a message naming the server", choices=FALLBACKS, live=_BOTH),
    Param("max_steps", int, _positive, "an integer > 0", "steps per task before the executor gives up", 1, 100000,
          live=("executor",)),
    Param("plan_timeout_s", float, _positive, "a number of seconds > 0",
          "default time limit of one task (plan_task, execute_directive)", 0.0, _S, live=("planner",)),
    Param("max_directive_chars", int, _positive, "an integer > 0", "longer directives are refused with a message",
          1, 1000000, live=("planner",)),
    Param("geometry_rate_hz", float, _positive, "a rate in Hz > 0",
          "how often the simulator publishes its geometry when idle", 0.0, 1000.0, live=("simulator",)),
    Param("drive_speed_mps", float, _positive, "a speed in m/s > 0",
          "how fast the simulated base drives a navigate_to_pose goal", 0.0, 100.0, live=("simulator",)),
    Param("turn_speed_rps", float, _positive, "an angular speed in rad/s > 0",
          "how fast the simulated base turns on the spot", 0.0, 100.0, live=("simulator",)),
    Param("motion_feedback_hz", float, _positive, "a rate in Hz > 0",
          "while the simulated base moves (and a second after): navigation feedback and geometry at this rate",
          0.0, 1000.0, live=("simulator",)),
    Param("skill_timeout_s", float, _positive, "a number of seconds > 0",
          "a navigate_to_pose or robot/skill goal not ended within this is canceled and fails the task, naming "
          "the robot's node", 0.0, _S, live=("executor",)),
    Param("perception_wait_s", float, _positive, "a number of seconds > 0",
          "how long the executor waits for the observation after a skill", 0.0, _S, live=_BOTH),
    Param("node_timeout_s", float, _positive, "a number of seconds > 0",
          "a node silent this long (a skill unanswered, the executor gone) fails the task, named", 0.0, _S,
          live=_BOTH),
    Param("lifecycle_wait_s", float, _positive, "a number of seconds > 0",
          "before a skill and while perception is silent, the executor asks the simulator and perception their "
          "lifecycle state (get_state); an answer later than this calls the node not answering", 0.0, 600.0,
          live=("executor",)),
    Param("server_absent_s", float, _positive, "a number of seconds > 0",
          "the executor absent from the ROS graph this long during a task is gone", 0.0, _S, live=("planner",)),
    Param("discovery_settle_s", float, lambda v: v >= 0, "a number of seconds >= 0",
          "after the executor's action server appears, time for DDS discovery to complete both ways", 0.0, _S,
          live=("planner",)),
    Param("feedback_drain_s", float, lambda v: v >= 0, "a number of seconds >= 0",
          "after the executor's result, wait this long to relay the feedback of its last steps", 0.0, _S,
          live=("planner",)),
    Param("planning_workers", int, _positive, "an integer > 0",
          "planner node threads for translations and plan-only requests", 1, 256),
    Param("clarify_timeout_s", float, lambda v: v >= 0, "a number of seconds >= 0",
          "a task that asks (which table, how many, May I ...?) waits this long for the answer on directive, "
          "answer_task or the CLI, then ends refused with the question in its message; 0 = never ask (refuse at "
          "once)", 0.0, _S, live=("planner",)),
    Param("require_approval", str, lambda v: v in APPROVALS, f"one of {', '.join(APPROVALS)}",
          "ask 'May I ...?' before the robot moves: none; goal (the goal read from the directive); plan (the goal "
          "and, for planners that plan whole, the plan); 'no' cancels with nothing moved",
          choices=APPROVALS, live=("planner",)),
    Param("task_records", int, _positive, "an integer > 0",
          "the executor keeps the steps and geometry of this many last tasks (task_record)", 1, 100000),
    Param("diagnostics_rate_hz", float, _positive, "a rate in Hz > 0",
          "how often every node publishes its status on /diagnostics", 0.0, 100.0),
    Param("perception_stale_s", float, _positive, "a number of seconds > 0",
          "/diagnostics: a perception (or geometry) older than this is WARN, three times older ERROR", 0.0, _S,
          live=ROLES),
    Param("llm_latency_warn_s", float, _positive, "a number of seconds > 0",
          "/diagnostics: a model server answering slower than this is WARN", 0.0, _S, live=_BOTH),
    Param("llm_probe_timeout_s", float, _positive, "a number of seconds > 0",
          "how long a reachability probe of the model server (GET /models) may take", 0.0, 600.0, live=_BOTH),
    Param("shutdown_timeout_s", float, _positive, "a number of seconds > 0",
          "after SIGINT/SIGTERM or the launcher's death, a node still busy this long exits at once", 0.0, 600.0,
          live=ROLES),
    Param("stop_with_parent", bool, lambda v: True, "true or false",
          "stop the node when the process that started it (ros2 launch, llm-planner launch) dies"),
)}


#: The lifecycle manager's own parameters (section ``/**/lifecycle_manager`` of the parameter files);
#: ``live`` names the manager where a change is read at its next use.
MANAGER = "lifecycle_manager"
MANAGER_PARAMS: dict[str, Param] = {p.name: p for p in (
    Param("node_names", list, lambda v: bool(v) and all(isinstance(n, str) and n.strip() for n in v)
          and len(set(v)) == len(v), "a non-empty list of distinct node names",
          "the lifecycle nodes it brings to active, in this order (configure all, then activate all)"),
    Param("robot", str, lambda v: v in ROBOTS, f"one of {', '.join(ROBOTS)}",
          "with external, the simulator and perception of node_names are not managed (your robot replaces them)",
          choices=ROBOTS),
    Param("autostart", bool, lambda v: True, "true or false",
          "configure and activate the nodes at start; false leaves them unconfigured for `ros2 lifecycle set`"),
    Param("transition_timeout_s", float, _positive, "a number of seconds > 0",
          "one transition (configure loads the world and the models) takes at most this", 0.0, _S,
          live=(MANAGER,)),
    Param("state_timeout_s", float, _positive, "a number of seconds > 0",
          "one get_state question takes at most this; one not answered is asked again at the next watch period",
          0.0, _S, live=(MANAGER,)),
    Param("service_wait_s", float, _positive, "a number of seconds > 0",
          "how long to wait for a node's lifecycle services to appear", 0.0, _S, live=(MANAGER,)),
    Param("watch_period_s", float, _positive, "a number of seconds > 0",
          "how often it looks for a node that left the graph and came back (restarted) to bring it up", 0.0, 3600.0,
          live=(MANAGER,)),
    Param("shutdown_timeout_s", float, _positive, "a number of seconds > 0",
          "after SIGINT/SIGTERM or the launcher's death, the manager still busy this long exits at once", 0.0, 600.0,
          live=(MANAGER,)),
)}

def allowed_values(name: str, domain: str) -> tuple[str, ...]:
    """The values a string parameter may take on ``domain`` (planners, backends, ...); () for any."""
    if name == "planner":
        return tuple(get_domain(domain).accepted_planner_names())
    return PARAMS[name].choices


def check_change(name: str, value: Any, domain: str) -> str:
    """Why ``name`` may not take ``value`` at run time ("" when it may): names what is allowed."""
    if name not in PARAMS:
        return ""
    try:
        value = validate_param(name, value, source="set")
    except ConfigError as exc:
        return str(exc).removeprefix("set: ")
    if name == "planner":
        if value.strip() not in allowed_values("planner", domain):
            return f"planner {value!r} is not one of {', '.join(allowed_values('planner', domain))}"
        try:
            get_domain(domain).resolve_planner(value.strip())
        except ConfigError as exc:
            return f"planner {value!r}: {exc}"
    if name == "llm_config" and value:
        if not Path(value).is_file():
            return f"llm_config {value!r} is not a file; give a path to an LLM configuration YAML, or empty"
    return ""


#: The parameter file with each domain's defaults (what a node uses for a parameter it is not given).
DOMAIN_PARAMS_FILES = {"household": "llm_planner.yaml", "gtamp": "gtamp_nodes.yaml"}


def default_params_file(domain: str = "household") -> Path:
    return config_dir() / DOMAIN_PARAMS_FILES.get(domain, DOMAIN_PARAMS_FILES["household"])


#: The section of the parameter files that every node reads, and the lifecycle manager's own.
NODES_SECTION = "/**"
MANAGER_SECTION = "/**/lifecycle_manager"


def read_params_file(path: str | Path | None = None, section: str = NODES_SECTION) -> dict[str, Any]:
    """The raw ``ros__parameters`` of ``section`` of a ROS 2 parameter file (by default the
    wildcard one), not yet validated."""
    path = Path(path) if path else default_params_file()
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read parameters: {exc}") from None
    values = (data or {}).get(section, {}).get("ros__parameters") if isinstance(data, dict) else None
    if not isinstance(values, dict):
        raise ConfigError(f"{path}: expected a '{section}: ros__parameters:' mapping")
    return dict(values)


def load_params_file(path: str | Path | None = None) -> dict[str, Any]:
    """The ``ros__parameters`` of a parameter file, validated (unknown keys are kept)."""
    return validate_params(read_params_file(path), source=str(path or default_params_file()))


def validate_params(values: Mapping[str, Any], source: str = "parameters") -> dict[str, Any]:
    """Check every known parameter, and the default planner against the domain's planners (the
    domain from ``values`` or, when absent, the shipped file's); unknown keys are kept."""
    checked = dict(values)
    for name, value in values.items():
        if name in PARAMS:
            checked[name] = validate_param(name, value, source)
    if "planner" in checked:
        domain = checked.get("domain") or read_params_file()["domain"]
        try:
            checked["planner"] = get_domain(domain).resolve_planner(checked["planner"])
        except ConfigError as exc:
            raise ConfigError(f"{source}: parameter 'planner' = {checked['planner']!r} is invalid: {exc}") from None
    return checked


def validate_param(name: str, value: Any, source: str = "parameters",
                   schema: Mapping[str, Param] = PARAMS) -> Any:
    """``value`` checked against the parameter ``name`` of ``schema`` (an int given for a float is
    converted); ConfigError saying what it accepts."""
    param = schema[name]
    if param.kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, param.kind) or isinstance(value, bool) and param.kind is not bool:
        raise ConfigError(f"{source}: parameter '{name}' = {value!r} is invalid: expected {param.accepts}")
    if not param.check(value):
        raise ConfigError(f"{source}: parameter '{name}' = {value!r} is invalid: expected {param.accepts}")
    return value
