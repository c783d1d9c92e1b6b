"""Plans as behaviour trees: a household plan written as BehaviorTree.CPP v4 XML, for robots whose
executor is BehaviorTree.CPP (Nav2's is), carrying exactly the goals this planner's executor would
send the robot (the robot contract, ``docs/guides/robot.md``).

The file follows BehaviorTree.CPP's XML format, version 4
(https://www.behaviortree.dev/docs/learn-the-basics/xml_format): a ``<root BTCPP_format="4"
main_tree_to_execute="LlmPlannerPlan">`` with one ``<BehaviorTree>`` whose single child is a
``<Sequence>`` of one action node per plan step, and a ``<TreeNodesModel>`` that declares each node
ID with its ports (``<input_port name type>description</input_port>``, as BehaviorTree.CPP's
``writeTreeNodesModelXML`` writes them). Two node IDs:

- ``NavigateToPose`` (Nav2's BT node, ``nav2_behavior_tree``), port ``goal``: the pose of the place
  in the ``map`` frame, for a :class:`~llm_planner.domains.skill.Navigate`;
- ``RobotSkill``, ports ``skill``, ``args`` and ``poses``: one ``robot/skill`` goal, for a
  :class:`~llm_planner.domains.skill.SkillRequest`.

Port values are the strings BehaviorTree.CPP's ``convertFromString`` parses for the port's type:
a pose as Nav2 Kilted's ``nav2_behavior_tree/bt_utils.hpp`` reads a
``geometry_msgs::msg::PoseStamped``, nine fields ``stamp;frame_id;x;y;z;qx;qy;qz;qw`` (stamp 0
nanoseconds: the latest transform); a list of poses nine fields per pose, one after the other
(``std::vector<geometry_msgs::msg::PoseStamped>``, same header); a list of strings separated by
``;`` (BehaviorTree.CPP's ``std::vector<std::string>``).

A household plan becomes robot commands the way the executor makes them: each step is
:meth:`~llm_planner.adapters.household.HouseholdDomain.robot_command` of the observation before it.
Here that observation is the symbolic model's (:meth:`Household.observe`) of the state the plan
has reached, stepped forward from the full state the planner planned on
(:meth:`Household.transition`), so a walk to an object goes to the furniture the object is on or in
at that point of the plan. G-TAMP plans are refused (:data:`GTAMP_REFUSAL`).
"""
from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from llm_planner.adapters.base import Domain
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.domains.household.places import MAP_FRAME
from llm_planner.domains.household.world.symbolic import Action, Goal, State
from llm_planner.domains.skill import Navigate, Pose2D, SkillOutcome, SkillRequest
from llm_planner.errors import PlanningError

#: BehaviorTree.CPP's XML format version of the files written here.
BTCPP_FORMAT = "4"
#: The ID of the one tree of a file (``main_tree_to_execute``); no node type may have it.
TREE_ID = "LlmPlannerPlan"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'
#: Decimals of the numbers in a pose (micrometres, and quaternion components to 1e-6).
DECIMALS = 6
#: Attributes of a node that are no port: its instance name, and BehaviorTree.CPP's reserved ID and
#: pre- and post-conditions (``_skipIf``, ``_onSuccess``, ``_autoremap``, ...: a leading underscore).
NOT_PORTS = ("name", "ID")
#: The control nodes a written tree uses (BehaviorTree.CPP builtins: not in the TreeNodesModel).
CONTROL_NODES = ("Sequence",)

#: Why a G-TAMP plan is not written as a tree.
GTAMP_REFUSAL = (
    "G-TAMP plans are not written as behaviour trees: each pick and place carries a grasp, a base path and "
    "a placement that the planner computes against the geometry when it decides that step (robot/skill's "
    "args are their JSON), and a plan names only the operator and the object; run it with --execute, or write "
    "trees of the household graph (llm-planner launch)")


@dataclass(frozen=True)
class PortModel:
    """One port of a node model; an input without a ``default`` must be given on every node."""

    name: str
    type: str
    description: str
    direction: str = "input_port"  # input_port | output_port | inout_port (BehaviorTree.CPP's tags)
    default: str | None = None

    @property
    def required(self) -> bool:
        return self.direction != "output_port" and self.default is None


@dataclass(frozen=True)
class NodeModel:
    """One node type of a ``<TreeNodesModel>``: its kind (the element name), ID and ports."""

    id: str
    ports: tuple[PortModel, ...]
    kind: str = "Action"

    def port(self, name: str) -> PortModel | None:
        return next((p for p in self.ports if p.name == name), None)


POSE_FORMAT = "stamp;frame_id;x;y;z;qx;qy;qz;qw"
NAVIGATE_MODEL = NodeModel("NavigateToPose", (
    PortModel("goal", "geometry_msgs::msg::PoseStamped",
              f"where to go: the pose of the room or furniture in the map frame ({POSE_FORMAT})"),))
SKILL_MODEL = NodeModel("RobotSkill", (
    PortModel("skill", "std::string",
              "the skill: grab, open, close, putin, puton, switchon, switchoff (RobotSkill.action goal skill)"),
    PortModel("args", "std::vector<std::string>", "the plan step's arguments, separated by ';' (goal args)"),
    PortModel("poses", "std::vector<geometry_msgs::msg::PoseStamped>",
              f"one pose per argument, {POSE_FORMAT} each, one after the other: where the robot works at that "
              "furniture (map frame); an empty frame_id for an object (goal poses)"),
))
#: The node types of every written tree, as its ``<TreeNodesModel>`` declares them.
NODE_MODELS = (NAVIGATE_MODEL, SKILL_MODEL)


@dataclass(frozen=True)
class TreeStep:
    """One action node: the plan step it comes from (the node's name) and what it sends the robot."""

    name: str
    command: Navigate | SkillRequest


# ------------------------------------------------------------------ port values
def number_text(value: float) -> str:
    text = f"{value:.{DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def pose_text(pose: Pose2D | None, frame: str = MAP_FRAME) -> str:
    """A planar pose (x, y, yaw) as Nav2's PoseStamped string, stamp 0; None: the empty pose the
    executor sends for an object (no frame, identity orientation)."""
    if pose is None:
        values: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0)
        frame = ""
    else:
        x, y, yaw = pose
        values = (x, y, 0.0, 0.0, 0.0, math.sin(yaw / 2.0), math.cos(yaw / 2.0))
    return ";".join(["0", frame, *(number_text(v) for v in values)])


def ports_of(command: Navigate | SkillRequest) -> tuple[str, dict[str, str]]:
    """The node ID and port values of one robot command."""
    if isinstance(command, Navigate):
        return NAVIGATE_MODEL.id, {"goal": pose_text(command.pose)}
    for arg in command.args:
        if ";" in arg:
            raise PlanningError(f"the argument {arg!r} of skill {command.name} contains ';', the separator of "
                                "BehaviorTree.CPP's list ports; it cannot be written as a RobotSkill node")
    return SKILL_MODEL.id, {"skill": command.name, "args": ";".join(command.args),
                            "poses": ";".join(pose_text(p) for p in command.poses)}


# ------------------------------------------------------------------ the XML
def tree_xml(steps: Sequence[TreeStep], title: str, tree_id: str = TREE_ID) -> str:
    """The BehaviorTree.CPP v4 XML of a plan: a Sequence (named ``title``) of one action node per
    step, and the TreeNodesModel of :data:`NODE_MODELS`. PlanningError for an empty plan (a Sequence
    needs a child)."""
    if not steps:
        raise PlanningError("the plan has no step, so there is no tree to write (does the goal already hold?)")
    root = ET.Element("root", {"BTCPP_format": BTCPP_FORMAT, "main_tree_to_execute": tree_id})
    sequence = ET.SubElement(ET.SubElement(root, "BehaviorTree", {"ID": tree_id}), "Sequence", {"name": title})
    for step in steps:
        node_id, ports = ports_of(step.command)
        ET.SubElement(sequence, node_id, {"name": step.name, **ports})
    root.append(models_element(NODE_MODELS))
    ET.indent(root)
    return XML_DECLARATION + ET.tostring(root, encoding="unicode") + "\n"


def models_element(models: Sequence[NodeModel]) -> ET.Element:
    """``<TreeNodesModel>`` as BehaviorTree.CPP writes it: per node ``<Action ID>`` with one
    ``<input_port name type [default]>description</input_port>`` per port."""
    element = ET.Element("TreeNodesModel")
    for model in models:
        node = ET.SubElement(element, model.kind, {"ID": model.id})
        for port in model.ports:
            attributes = {"name": port.name, "type": port.type}
            if port.default is not None:
                attributes["default"] = port.default
            ET.SubElement(node, port.direction, attributes).text = port.description
    return element


# ------------------------------------------------------------------ household plans
def check_domain(name: str) -> None:
    """Nothing for the household domain, whose plans become trees; PlanningError saying why for any
    other (:data:`GTAMP_REFUSAL`)."""
    if name != HouseholdDomain.name:
        raise PlanningError(GTAMP_REFUSAL if name == "gtamp" else
                            f"plans of the {name} domain are not written as behaviour trees")


def household_steps(domain: HouseholdDomain, start: State, plan: Sequence[Action], goal: Goal,
                    planner: str) -> list[TreeStep]:
    """The robot commands of a household plan from the full state ``start`` (see the module
    docstring). PlanningError when a step cannot be done in the state the plan has reached (the
    world changed since it was planned), or when the plan ends before ``goal`` holds (``planner``
    answered only its first steps)."""
    household, state, steps = domain.household, start, []
    for number, action in enumerate(plan, 1):
        why = household.why_not(state, action)
        command = domain.robot_command(action, household.observe(state)) if why is None else SkillOutcome(False, why)
        if isinstance(command, SkillOutcome):
            raise PlanningError(f"step {number}, {action}, cannot be done where the plan has brought the robot "
                                f"({command.reason}): the world is not the one the plan was made for; plan again")
        name = str(action) if not isinstance(command, Navigate) or command.target in action.args \
            else f"{action} at {command.target}"
        steps.append(TreeStep(name, command))
        state = household.transition(state, action)
    if not household.satisfied(state, goal):
        raise PlanningError(
            f"planner {planner} answered {len(plan)} step(s), which do not reach the goal: it decides one step at a "
            "time after seeing each outcome (LLM-MCTS and its baselines do), so planning without executing gives "
            "only its first step; use --planner classical (Fast Downward on the full state) for a whole plan")
    return steps


def plan_tree(domain: Domain, full_state: Any, plan: Sequence[str], goal_lists: Any, planner: str,
              title: str) -> str:
    """The tree of a plan as ``/plan_task`` answers it (step texts, goal lists), planned by
    ``planner`` on ``full_state``; PlanningError saying why it cannot be written."""
    check_domain(domain.name)
    household = cast(HouseholdDomain, domain)  # the domain registered under the household name
    try:
        actions = [Action.parse(text) for text in plan]
    except ValueError as exc:
        raise PlanningError(f"the plan has a step that is no household action: {exc}") from None
    goal = household.goal_from_lists(goal_lists)
    return tree_xml(household_steps(household, full_state, actions, goal, planner), title)


# ------------------------------------------------------------------ checking a tree
def tree_problems(text: str) -> list[str]:
    """What is wrong with a tree written here, checked against its own ``<TreeNodesModel>``: the
    XML, the root (``BTCPP_format="4"``, ``main_tree_to_execute`` naming a tree), and each node of
    the trees: a control node of :data:`CONTROL_NODES` or a declared node ID, using only declared
    ports and giving every required one. Empty when the tree is sound."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        return [f"not well-formed XML: {exc}"]
    problems = []
    if root.tag != "root" or root.get("BTCPP_format") != BTCPP_FORMAT:
        problems.append(f'the root element is <{root.tag} BTCPP_format="{root.get("BTCPP_format")}">, '
                        f'not <root BTCPP_format="{BTCPP_FORMAT}">')
    trees = {tree.get("ID"): tree for tree in root.findall("BehaviorTree")}
    if root.get("main_tree_to_execute") not in trees:
        problems.append(f"main_tree_to_execute={root.get('main_tree_to_execute')!r} names none of the trees "
                        f"{sorted(str(t) for t in trees)}")
    models = read_models(root)
    if models is None:
        return [*problems, "no <TreeNodesModel>"]
    for tree in trees.values():
        for node in tree.iter():
            if node is not tree:
                problems += node_problems(node, models)
    return problems


def read_models(root: ET.Element) -> dict[str, NodeModel] | None:
    """The node models of a tree file's ``<TreeNodesModel>`` by ID (None when it has none)."""
    element = root.find("TreeNodesModel")
    if element is None:
        return None
    models = {}
    for node in element:
        ports = tuple(PortModel(p.get("name", ""), p.get("type", ""), p.text or "", p.tag, p.get("default"))
                      for p in node)
        models[node.get("ID", "")] = NodeModel(node.get("ID", ""), ports, node.tag)
    return models


def node_problems(node: ET.Element, models: dict[str, NodeModel]) -> list[str]:
    """A node's ports against its model: each one given is declared, each required one is given."""
    if node.tag in CONTROL_NODES:
        return []
    where = f"<{node.tag} name={node.get('name', '')!r}>"
    model = models.get(node.tag)
    if model is None:
        return [f"{where}: node ID {node.tag!r} is not declared in the TreeNodesModel"]
    given = {a for a in node.attrib if a not in NOT_PORTS and not a.startswith("_")}
    problems = [f"{where}: port {a!r} is not declared for {model.id} in the TreeNodesModel"
                for a in sorted(given) if model.port(a) is None]
    problems += [f"{where}: the required port {p.name!r} of {model.id} is not given"
                 for p in model.ports if p.required and p.name not in given]
    return problems
