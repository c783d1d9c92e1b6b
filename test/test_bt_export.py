"""Plans as behaviour trees (llm_planner/bt_export.py): household plans of the classical planner
(Fast Downward) written as BehaviorTree.CPP v4 XML, loaded by the real BehaviorTree.CPP through
behaviortreepy, and checked port by port against their own TreeNodesModel."""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET

import behaviortreepy
import pytest

from llm_planner.adapters.household import HouseholdDomain, state_predicates
from llm_planner.bt_export import (
    NODE_MODELS,
    TREE_ID,
    check_domain,
    household_steps,
    plan_tree,
    pose_text,
    tree_problems,
    tree_xml,
)
from llm_planner.config import load_params_file
from llm_planner.domains.household.sim.perception import predicates
from llm_planner.domains.household.world.symbolic import Action, GoalItem
from llm_planner.domains.household.world.tasks import SUITES, generate_tasks, load_task_config
from llm_planner.domains.percept import Percept, Translation
from llm_planner.errors import PlanningError
from llm_planner.service import PlanningService, PreparedTask

#: The apartments of the household test tasks (config/household_tasks.yaml ``scenes``).
SCENES = sorted(load_task_config().scenes)
#: Tasks per suite and apartment: the first of seed 0, as ``bench household`` draws them.
TASKS_PER_SUITE = 1


def household(scene: str) -> HouseholdDomain:
    return HouseholdDomain({**load_params_file(), "scene": scene})


def percepts_of(domain: HouseholdDomain, state) -> dict[str, Percept]:
    """What the perception node publishes for ``state``: the observation and the full state."""
    observation = domain.household.observe(state)
    return {"state": Percept(domain.scene.name, observation.room, tuple(predicates(observation))),
            "full_state": Percept(domain.scene.name, state.room, tuple(state_predicates(domain.household, state)),
                                  full_observation=True)}


def without_ports(text: str) -> str:
    """A copy of a tree with every port removed from its action nodes (their names kept), for
    behaviortreepy, whose registration declares no ports."""
    root = ET.fromstring(text)
    declared = {model.id for model in NODE_MODELS}
    for tree in root.findall("BehaviorTree"):
        for node in tree.iter():
            if node.tag in declared:
                node.attrib = {k: v for k, v in node.attrib.items() if k == "name"}
    return ET.tostring(root, encoding="unicode")


def ticked_in_behaviortreepy(text: str) -> list[str]:
    """Load a copy of the tree without ports in BehaviorTree.CPP (behaviortreepy), with each node ID
    of its TreeNodesModel registered as an action that succeeds, tick it to the end, and return the
    names of the action nodes in the order they ran."""
    factory, ran = behaviortreepy.BehaviorTreeFactory(), []

    def succeed(node) -> behaviortreepy.NodeStatus:
        ran.append(node.name())
        return behaviortreepy.NodeStatus.SUCCESS

    for model in ET.fromstring(text).find("TreeNodesModel"):
        factory.register_simple_action(model.get("ID"), succeed)
    tree = factory.create_tree_from_text(without_ports(text))
    assert tree.tick_while_running(0) == behaviortreepy.NodeStatus.SUCCESS
    return ran


def walk_target(name: str) -> str:
    """The place a NavigateToPose node named ``walk(x)`` or ``walk(object) at furniture`` goes to."""
    walk = re.fullmatch(r"walk\((\w+)\)(?: at (\w+))?", name)
    assert walk, name
    return walk[2] or walk[1]


def classical_tree(domain: HouseholdDomain, instruction: str, goal, state) -> tuple[str, list[str]]:
    """Plan with ``classical`` as /plan_task does (PlanningService.preview on the percepts of
    ``state``), and write the answer as ``llm-planner plan --bt`` does: (the tree, the plan)."""
    percepts = percepts_of(domain, state)
    task = PreparedTask("bt-test", instruction, "classical", Translation(goal), timeout_s=300.0)
    result = PlanningService(domain).preview(task, percepts)
    assert result.success, result.message
    full_state = domain.full_state(percepts)
    return plan_tree(domain, full_state, result.plan, result.goal, "classical", instruction), result.plan


@pytest.mark.slow
@pytest.mark.parametrize("scene", SCENES)
def test_every_plan_of_the_household_test_tasks_loads_in_behaviortree_cpp(scene):
    """The first task of seed 0 of each of the 5 suites, in each of the 2 apartments (10 plans of
    Fast Downward, 0.2-0.5 s each on an idle machine): its tree has no port problem, and
    BehaviorTree.CPP loads it and runs its nodes in the plan's order."""
    domain = household(scene)
    places = domain.place_poses()
    for suite in SUITES:
        for task in generate_tasks(domain.scene, suite, TASKS_PER_SUITE, seed=0):
            state = domain.household.sample_initial_state(task.placement_seed)
            text, plan = classical_tree(domain, task.instruction, task.goal, state)
            assert tree_problems(text) == [], task
            names = ticked_in_behaviortreepy(text)
            assert [name.split(" at ")[0] for name in names] == plan, task
            walk = ET.fromstring(text).find("BehaviorTree/Sequence/NavigateToPose")
            pose = places[walk_target(walk.get("name"))]
            assert walk.get("goal") == pose_text((pose.x, pose.y, pose.yaw)), task


@pytest.fixture(scope="module")
def seen():
    return household("apartment_seen")


@pytest.fixture(scope="module")
def plate(seen):
    """"put one plate on the sofa" from the first start state where no plate is on it: (start
    state, goal, tree, plan)."""
    goal = (GoalItem("on", "plate", "sofa", 1),)
    model = seen.household
    state = next(s for s in map(model.sample_initial_state, range(50)) if not model.satisfied(s, goal))
    return (state, goal, *classical_tree(seen, "put one plate on the sofa", goal, state))


def test_the_root_sequence_and_model_are_behaviortree_cpp_v4(seen, plate):
    _, _, text, plan = plate
    root = ET.fromstring(text)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<root BTCPP_format="4" main_tree_to_execute')
    assert root.get("main_tree_to_execute") == TREE_ID and root.find("BehaviorTree").get("ID") == TREE_ID
    sequence = root.find("BehaviorTree/Sequence")
    assert sequence.get("name") == "put one plate on the sofa" and len(sequence) == len(plan)
    skills = sequence.findall("RobotSkill")
    last = skills[-1]
    assert last.get("skill") == "puton" and last.get("args") == ";".join(Action.parse(plan[-1]).args)
    assert last.get("args").endswith(";sofa")
    sofa = seen.place_pose("sofa")
    assert last.get("poses") == pose_text(None) + ";" + pose_text((sofa.x, sofa.y, sofa.yaw))
    models = {m.get("ID"): {p.get("name"): p.get("type") for p in m} for m in root.find("TreeNodesModel")}
    assert models == {"NavigateToPose": {"goal": "geometry_msgs::msg::PoseStamped"},
                      "RobotSkill": {"skill": "std::string", "args": "std::vector<std::string>",
                                     "poses": "std::vector<geometry_msgs::msg::PoseStamped>"}}


def test_poses_are_nine_fields_as_nav2_reads_a_pose_stamped():
    assert pose_text((1.5, -2.0, math.pi / 2)) == "0;map;1.5;-2;0;0;0;0.707107;0.707107"
    assert pose_text(None) == "0;;0;0;0;0;0;0;1"  # an object: no frame, as the executor sends it
    assert len(pose_text((0.1234567, 0.0, -math.pi)).split(";")) == 9


def test_a_walk_to_an_object_goes_to_the_furniture_where_the_plan_has_put_it(seen):
    """The furniture comes from the state the plan has reached, not the start: after the plate moves
    to another surface of the room, a walk to it goes there."""
    model = seen.household
    state = model.sample_initial_state(0)
    obj, surface = next((o, f) for o, f in zip(model.objects, state.placement, strict=True)
                        if f and not model.is_container[f])
    room = model.furniture_room[surface]
    other = next(f for f, r in model.furniture_room.items() if r == room and f != surface and not model.is_container[f])
    plan = [Action.parse(a) for a in (f"walk({room})", f"walk({obj})", f"grab({obj})", f"walk({other})",
                                      f"puton({obj}, {other})", f"walk({room})", f"walk({obj})")]
    goal = (GoalItem("on", model.object_type[obj], other, 1),)
    steps = household_steps(seen, state, plan, goal, "classical")
    assert [s.name for s in steps][1::5] == [f"walk({obj}) at {surface}", f"walk({obj}) at {other}"]
    assert [steps[1].command.target, steps[6].command.target] == [surface, other]
    assert steps[-1].command.pose == steps[3].command.pose  # the pose of the other surface


def test_a_first_step_alone_is_refused_naming_the_classical_planner(seen, plate):
    state, goal, _, plan = plate
    with pytest.raises(PlanningError, match=r"llm_mcts answered 1 step\(s\), which do not reach the goal.*"
                                            r"--planner classical"):
        household_steps(seen, state, [Action.parse(plan[0])], goal, "llm_mcts")


def test_a_plan_that_does_not_fit_the_state_is_refused(seen):
    state = seen.household.sample_initial_state(0)
    with pytest.raises(PlanningError, match=r"step 1, open\(fridge\), cannot be done .*not close to fridge"):
        household_steps(seen, state, [Action("open", ("fridge",))], (), "classical")
    with pytest.raises(PlanningError, match="no household action"):
        plan_tree(seen, state, ["teleport(fridge)"], [], "classical", "x")
    with pytest.raises(PlanningError, match="no step"):
        tree_xml([], "nothing to do")


def test_g_tamp_plans_are_refused_saying_why():
    with pytest.raises(PlanningError, match="G-TAMP plans are not written as behaviour trees: each pick and place "
                                            "carries a grasp"):
        check_domain("gtamp")
    check_domain("household")


def test_the_check_and_behaviortree_cpp_catch_broken_trees(plate):
    """An undeclared port, a missing required one, an undeclared node and malformed XML each fail the
    check; BehaviorTree.CPP itself refuses the tree with its ports (hence the stripped copy) and
    malformed XML."""
    text = plate[2]
    first = re.search(r"<NavigateToPose [^>]*/>", text)[0]
    extra = text.replace(first, first.replace(" goal=", ' speed="2" goal='), 1)
    missing = text.replace(first, re.sub(r' goal="[^"]*"', "", first), 1)
    unknown = text.replace(first, first.replace("<NavigateToPose ", "<Teleport "), 1)
    assert len(tree_problems(extra)) == 1
    assert tree_problems(extra)[0].endswith("port 'speed' is not declared for NavigateToPose in the TreeNodesModel")
    assert len(tree_problems(missing)) == 1 and "required port 'goal'" in tree_problems(missing)[0]
    assert len(tree_problems(unknown)) == 1 and "'Teleport' is not declared" in tree_problems(unknown)[0]
    assert tree_problems(text[:-40])[0].startswith("not well-formed XML")
    assert "BTCPP_format" in tree_problems(text.replace('BTCPP_format="4"', 'BTCPP_format="3"'))[0]
    factory = behaviortreepy.BehaviorTreeFactory()
    for model in NODE_MODELS:
        factory.register_simple_action(model.id, lambda node: behaviortreepy.NodeStatus.SUCCESS)
    with pytest.raises(RuntimeError, match=r"a port with name \[goal\] is found in the XML"):
        factory.create_tree_from_text(text)
    with pytest.raises(RuntimeError, match="Error parsing the XML"):
        factory.create_tree_from_text(without_ports(text)[:-40])
