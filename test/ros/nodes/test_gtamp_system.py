"""End to end on G-TAMP: the same four node programs as the household graph, with the parameters of
config/gtamp_nodes.yaml (launch/gtamp.launch.py, problem P2: STaLM solves it offline in about a
second), called from this process; the goal must hold in the perceived state afterwards."""
from __future__ import annotations

import time

import pytest

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
GOAL = [["AtPosition", "salter", "on", "table2"], ["AtPosition", "salter", "right_of", "bottle1"]]


@pytest.fixture(scope="module")
def gtamp_system(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("gtamp_graph"), launch="gtamp") as graph:
        yield graph.client


def _perceived_facts(client) -> set[tuple[str, ...]]:
    from llm_planner_ros.node_utils import GEOMETRY_QOS
    from llm_planner_interfaces.msg import PerceivedState

    got: list = []
    sub = client.node.create_subscription(PerceivedState, "perception/state", got.append, GEOMETRY_QOS)
    after = time.time_ns()
    deadline = time.monotonic() + 20.0
    while time.monotonic() < deadline and not any(m.header.stamp.sec * 10**9 + m.header.stamp.nanosec >= after
                                                  for m in got):
        client.executor.spin_once(timeout_sec=0.1)
    client.node.destroy_subscription(sub)
    assert got, "no /perception/state message"
    return {(p.name, *p.args) for p in got[-1].predicates}


def test_bad_directives_get_clear_errors_and_the_node_keeps_serving(gtamp_system):
    unknown = gtamp_system.plan_task("put the spoon on table 2", planner="stalm")
    assert unknown.success is False and "unknown object 'spoon'" in unknown.message
    assert "salter" in unknown.message                                  # says which objects exist
    planner = gtamp_system.plan_task("solve the problem", planner="teleport")
    assert planner.success is False and "unknown planner 'teleport' for the gtamp domain" in planner.message
    grammar = gtamp_system.plan_task("make me a sandwich", planner="stalm")
    assert grammar.success is False and "solve the problem" in grammar.message


def test_preview_plans_on_the_perceived_state(gtamp_system):
    result = gtamp_system.plan_task("put the salter on table 2 and right of bottle 1", planner="stalm")
    assert result.success is True, result
    assert result.goal == tuple(tuple(item) for item in GOAL)
    assert result.plan[-1] == "place(salter, right_of, bottle1)" and "not executed" in result.message
    assert not result.executed


def _skill(client, action: str, args: list[str]):
    """One robot/skill goal, as the executor sends it: its result."""
    from llm_planner_interfaces.action import RobotSkill
    from rclpy.action import ActionClient

    skill = ActionClient(client.node, RobotSkill, "robot/skill")
    try:
        assert skill.wait_for_server(timeout_sec=10.0)
        client.spin_for(0.5)  # let discovery settle: a response sent before the server knows us is lost
        sent = skill.send_goal_async(RobotSkill.Goal(skill=action, args=args))
        assert client.spin_until(sent, 30.0) and sent.result().accepted
        done = sent.result().get_result_async()
        assert client.spin_until(done, 30.0)
        return done.result().result
    finally:
        skill.destroy()


def test_skill_service_refuses_bad_requests(gtamp_system):
    assert "bad skill request: not JSON" in _skill(gtamp_system, "pick", ["{oops"]).reason
    assert "unknown G-TAMP skill 'fly'" in _skill(gtamp_system, "fly", ["{}"]).reason
    assert "unknown or missing __type__" in _skill(gtamp_system, "pick", ['{"__type__": "Popen"}']).reason


def test_stalm_plans_on_the_perceived_state_executes_and_the_goal_holds(gtamp_system):
    from llm_planner.domains.gtamp.domain import TaskAction
    from llm_planner.domains.gtamp.operators import GTampModel
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.domains.gtamp.codec import encode

    statuses: list = []
    gtamp_system.watch_status(statuses.append)
    facts = _perceived_facts(gtamp_system)
    assert ("PickOccludedBy", "salter", "bottle2") in facts and ("HandAvailable",) in facts
    # someone else moves bottle3 away (a concrete action sampled in this process): the world is no
    # longer the problem file's initial state, and STaLM must plan on what perception reports
    model = GTampModel(load_problem("P2"), seed=1)
    try:
        state = model.problem.initial
        for action in (TaskAction.of("pick", "bottle3"), TaskAction.of("place", "bottle3", "on", "counter1")):
            ca = next(c for c in (model.sample(state, action) for _ in range(20)) if c.feasible)
            assert _skill(gtamp_system, action.op, [encode(ca)]).success
            state = model.apply(state, ca)
    finally:
        model.world.close()
    assert ("AtPosition", "bottle3", "on", "counter1") in _perceived_facts(gtamp_system)
    result = gtamp_system.plan_task("solve the problem", planner="stalm", execute=True, timeout_s=120.0)
    assert result.success is True, result
    assert "the goal of problem P2" in result.message
    assert "pick(bottle3)" not in result.plan, result.plan
    assert result.plan[-1].startswith("place(salter, ") and len(result.executed) == len(result.plan)
    facts = _perceived_facts(gtamp_system)
    assert all(tuple(atom) in facts for atom in GOAL), sorted(f for f in facts if f[0] == "AtPosition")
    again = gtamp_system.plan_task("solve the problem", planner="stalm")
    assert again.success is True and "already holds" in again.message
    gtamp_system.spin_for(1.0)
    mine = [m for m in statuses if m.task_id == result.task_id]
    assert [m.step for m in mine if m.action] == list(range(1, len(result.executed) + 1))
    assert mine[-1].state == "succeeded", [m.state for m in mine]


def test_execute_directive_runs_stalm_in_the_same_loop_with_feedback_for_every_step(gtamp_system, tmp_path):
    from llm_planner.viz.report import write_report

    feedback: list = []
    result = gtamp_system.run("put the salter on table 2 and left of bottle 1", planner="stalm",
                              on_feedback=feedback.append)
    assert result.success and result.status is TaskResult.SUCCEEDED, result
    steps = [f for f in feedback if f.state == "executing"]
    assert [f.step for f in steps] == list(range(1, len(result.executed) + 1))
    assert [f.action for f in steps] == list(result.plan) and steps[-1].observation.startswith("hand empty")
    assert ("AtPosition", "salter", "left_of", "bottle1") in _perceived_facts(gtamp_system)
    assert all(f.belief == () for f in steps)  # STaLM keeps no belief over object places
    record = gtamp_system.task_record(result.task_id)  # what the executor kept, drawn as for the household
    assert record.domain == "gtamp" and [s.action for s in record.steps] == list(result.plan)
    assert any(len(s.path) > 1 for s in record.steps)  # the base paths driven
    picks = [s for s in record.steps if s.action.startswith("pick(salter")]
    assert picks and all(s.geometry.held_object == "salter" for s in picks)
    assert record.steps[-1].geometry.held_object is None
    written = write_report(record, tmp_path, gif=False)
    assert sorted(p.name for p in written.values()) == ["after.png", "before.png", "report.md", "strip.png"]


def test_voice_directive_is_executed_and_reported(gtamp_system):
    text = "put the salter on table 2 and right of bottle 1"
    statuses: list = []
    gtamp_system.watch_status(statuses.append)
    gtamp_system.say(text)
    deadline = time.monotonic() + 120.0
    while time.monotonic() < deadline and not any(m.directive == text and m.state in ("succeeded", "failed")
                                                  for m in statuses):
        gtamp_system.spin_for(0.2)
    final = [m for m in statuses if m.directive == text and m.state in ("succeeded", "failed")]
    assert final and final[-1].state == "succeeded", [(m.state, m.message) for m in statuses]
    assert ("AtPosition", "salter", "right_of", "bottle1") in _perceived_facts(gtamp_system)


def test_the_simulator_publishes_the_problem_as_rviz_markers(gtamp_system):
    from visualization_msgs.msg import MarkerArray

    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner_ros.conversions import geometry_from_msg, time_to_ns
    from llm_planner_ros.node_utils import GEOMETRY_QOS
    from llm_planner_interfaces.msg import GeometrySnapshot

    arrays: list = []
    geometries: list = []  # the robot is idle: the world is the one the latched markers show
    subs = [gtamp_system.node.create_subscription(MarkerArray, "markers", arrays.append, GEOMETRY_QOS),
            gtamp_system.node.create_subscription(GeometrySnapshot, "sim/geometry", geometries.append, GEOMETRY_QOS)]
    deadline = time.monotonic() + 30.0
    while time.monotonic() < deadline and not (arrays and geometries):
        gtamp_system.spin_for(0.2)
    for sub in subs:
        gtamp_system.node.destroy_subscription(sub)
    markers = arrays[-1].markers
    geometry = geometry_from_msg(geometries[-1])
    assert time_to_ns(markers[0].header.stamp) <= time_to_ns(geometries[-1].header.stamp)
    problem = load_problem("P2")
    labels = {m.text: m for m in markers if m.ns == "object_names"}
    assert set(labels) == set(problem.object_names)
    for body in geometry.bodies:
        if body.name in labels:
            assert abs(labels[body.name].pose.position.x - body.aabb_center[0]) < 1e-6
            assert abs(labels[body.name].pose.position.y - body.aabb_center[1]) < 1e-6
    assert {m.text for m in markers if m.ns == "furniture_names"} == {r.name for r in problem.layout.regions}
    assert [m.text.split(" (")[0] for m in markers if m.ns == "door_names"] == list(problem.door_names)


def _perceived_after(client, stamp_ns: int, timeout_s: float = 60.0, during=None) -> None:
    """Spin (calling ``during()`` between spins) until perception/state carries a stamp >= ``stamp_ns``."""
    from llm_planner_ros.conversions import time_to_ns
    from llm_planner_ros.node_utils import GEOMETRY_QOS
    from llm_planner_interfaces.msg import PerceivedState

    got: list = []
    sub = client.node.create_subscription(PerceivedState, "perception/state", got.append, GEOMETRY_QOS)
    try:
        deadline = time.monotonic() + timeout_s
        while not any(time_to_ns(m.header.stamp) >= stamp_ns for m in got):
            assert time.monotonic() < deadline, f"perception published nothing stamped after it in {timeout_s:g} s"
            if during is not None:
                during()
            client.spin_for(0.05)
    finally:
        client.node.destroy_subscription(sub)


def test_perception_answers_its_lifecycle_state_while_it_perceives_a_new_geometry(gtamp_system):
    """The executor asks perception's state before each skill within lifecycle_wait_s (1 s); a new
    G-TAMP geometry takes perception seconds to perceive, and that answer must not wait for it."""
    import copy

    from lifecycle_msgs.msg import State
    from lifecycle_msgs.srv import GetState

    from llm_planner.config import read_params_file
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.paths import config_dir
    from llm_planner_ros.node_utils import GEOMETRY_QOS
    from llm_planner_interfaces.msg import GeometrySnapshot

    client = gtamp_system
    wait_s = read_params_file(config_dir() / "gtamp_nodes.yaml")["lifecycle_wait_s"]
    geometries: list = []
    sub = client.node.create_subscription(GeometrySnapshot, "sim/geometry", geometries.append, GEOMETRY_QOS)
    deadline = time.monotonic() + 30.0
    while not geometries and time.monotonic() < deadline:
        client.spin_for(0.1)
    client.node.destroy_subscription(sub)
    original = geometries[-1]
    moved = copy.deepcopy(original)  # every object 2 mm to the side: poses perception has not seen
    objects = set(load_problem("P2").object_names)
    for body in (b for b in moved.bodies if b.name in objects):
        for point in (body.pose.position, body.aabb_min, body.aabb_max):
            point.y += 0.002
    states = client.node.create_client(GetState, "perception/get_state")
    publisher = client.node.create_publisher(GeometrySnapshot, "sim/geometry", GEOMETRY_QOS)
    answers: list[float] = []

    def ask() -> None:
        future = states.call_async(GetState.Request())
        asked = time.monotonic()
        answered = client.spin_until(future, wait_s)
        answers.append(time.monotonic() - asked if answered else float("inf"))
        assert answered and future.result().current_state.id == State.PRIMARY_STATE_ACTIVE, answers

    try:
        assert states.wait_for_service(timeout_sec=10.0)
        client.spin_for(0.5)  # let discovery settle: a response sent before the server knows us is lost
        ask()
        for snapshot in (moved, original):  # the original last: the graph's later tests see the real world
            snapshot.header.stamp = client.node.get_clock().now().to_msg()
            publisher.publish(snapshot)
            _perceived_after(client, snapshot.header.stamp.sec * 10**9 + snapshot.header.stamp.nanosec, during=ask)
    finally:
        client.node.destroy_publisher(publisher)
        client.node.destroy_client(states)
    print(f"perception answered {len(answers)} get_state calls while perceiving, the slowest in {max(answers):.2f} s")
    assert len(answers) >= 3  # it did ask while perceiving
