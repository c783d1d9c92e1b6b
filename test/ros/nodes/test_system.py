"""End to end on the household world: the four node programs in their own processes, called from
this process and from other processes over Fast DDS on loopback.

One graph is launched for the module (node_timeout_s lowered to 5 s so the fault test is short);
the tests run in file order and share it, and the last one kills and restarts its simulator.
"""
from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llm_planner_ros.environment import install_prefix
from llm_planner_ros.task_results import Feedback, TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
NODE_TIMEOUT_S = 5.0
VENV_BIN = install_prefix() / "bin"


@pytest.fixture(scope="module")
def graph(launch_graph, tmp_path_factory):
    with launch_graph(tmp_path_factory.mktemp("household_graph"), node_timeout_s=NODE_TIMEOUT_S) as g:
        yield g


def _wait_for_step(client, step: int, timeout_s: float = 240.0) -> Feedback:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        latest = client.feedback()
        if latest and latest.step >= step:
            return latest
        assert not client.is_task_complete(), f"the task ended before step {step}: {client.result()}"
    raise AssertionError(f"no feedback of step {step} within {timeout_s} s")


# ------------------------------------------------------------------ plan only
def test_plan_without_execution_returns_a_plan(graph):
    result = graph.client.plan("put one plate on the sofa", planner="classical")
    assert result.success, result
    assert result.goal == (("on", "plate", "sofa", 1),)
    assert result.plan[-1].startswith("puton(plate_") and result.plan[-1].endswith(", sofa)")
    assert "not executed" in result.message and not result.executed


@pytest.mark.parametrize("directive, expected", [
    ("", "empty"),
    ("put the apple in the fridge " * 400, "limit"),
    ("put \x07\x1b the apple \x00 in the fridge", "non-text"),
    ("\x07\x1b\x7f", "control or non-text character(s) (first: u+0007)"),  # (a ROS string ends at a NUL)
    ("\x1b[2J put one apple on the sofa", "control or non-text character(s) (first: u+001b)"),
    ("put the unicorn inside the fridge", "unicorn"),
    ("put the fridge inside the apple", "fridge"),
])
def test_bad_input_is_refused_with_a_message_and_the_node_keeps_serving(graph, directive, expected):
    result = graph.client.plan(directive)
    assert result.success is False
    assert expected in result.message.lower(), result.message
    if "non-text" in expected:  # refused at the door, as the front ends refuse it: no task
        assert result.task_id == "", result
        executed = graph.client.plan_task(directive, execute=True, timeout_s=60)
        assert not executed.success and expected in executed.message.lower() and executed.task_id == "", executed


#: Directives that are no plain text, sent straight to the graph: refused at the door with the front
#: ends' message (llm_planner/inputs.py), no task id, no task status.
CONTROL_DIRECTIVES = ["\x07\x1b\x7f", "\x1b[2J put one apple on the sofa"]


def test_the_directive_topic_refuses_control_characters_at_the_door_and_nothing_moves(graph):
    def placed(after_ns: int = 0) -> set:
        return {(n, *a) for n, a in graph.full_state(after_ns) if n in ("ON", "INSIDE", "HOLDING")}

    before = placed()
    statuses: list = []
    graph.client.watch_status(statuses.append)
    for directive in CONTROL_DIRECTIVES:
        graph.client.say(directive)
    after_them = "put 0 apples in the fridge"  # said after them: a task, refused by the reader (nothing moves)
    graph.client.say(after_them)
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline and not any(m.directive == after_them and m.state == "failed" for m in statuses):
        graph.client.spin_for(0.2)
    assert any(m.directive == after_them and m.state == "failed" for m in statuses), statuses  # still serving
    assert not [m for m in statuses if m.directive in CONTROL_DIRECTIVES], "a task was made of a control directive"
    assert placed(time.time_ns()) == before  # nothing moved


#: Counts that are no positive whole number, negations and reversals: refused on every path with the
#: reader's message, which says what to say instead (reading/quantities.py).
REFUSED_WORDS = [
    ("put -1 apples in the fridge", "'-1' is a negative number"),
    ("put 0 apples in the fridge", "'0' is zero"),
    ("put zero apples in the fridge", "'zero' is zero"),
    ("put 1.5 apples in the fridge", "'1.5' is a decimal number"),
    ("put half the apples in the fridge", "'half' is a fraction"),
    ("put 1e1 apples in the fridge", "'1e1' is a number in scientific notation"),
    ("put at least one apple in the fridge", "'at least one' is a comparison"),
    ("put no apples in the fridge", "'no' is zero"),
    ("don't put the apple in the fridge", "'don't' says not to do something"),
    ("put everything except the apple in the fridge", "'except' says not to do something"),
    ("take the milk out of the fridge", "the directive does not say where it should go"),
]


@pytest.mark.parametrize("directive, expected", REFUSED_WORDS)
def test_counts_that_are_no_whole_number_and_negations_are_refused_on_plan_task(graph, directive, expected):
    for execute in (False, True):
        result = graph.client.plan_task(directive, execute=execute, timeout_s=60)
        assert result.success is False and expected in result.message, result
        assert "say " in result.message and not result.executed, result  # what to say instead


def test_the_directive_topic_refuses_them_the_same_way_and_nothing_moves(graph):
    def placed(after_ns: int = 0) -> set:
        return {(n, *a) for n, a in graph.full_state(after_ns) if n in ("ON", "INSIDE", "HOLDING")}

    before = placed()
    statuses: list = []
    graph.client.watch_status(statuses.append)
    ended: dict = {}
    for directive, _ in REFUSED_WORDS:  # one at a time: the robot takes one task at a time
        graph.client.say(directive)
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline and directive not in ended:
            graph.client.spin_for(0.2)
            ended = {m.directive: m for m in statuses if m.state in ("failed", "refused", "succeeded")}
    for directive, expected in REFUSED_WORDS:
        assert directive in ended and ended[directive].state == "failed", [(m.directive, m.state) for m in statuses]
        assert expected in ended[directive].message and "say " in ended[directive].message
    assert placed(time.time_ns()) == before  # nothing moved


def test_a_negative_time_limit_is_refused_as_the_parameter_is(graph):
    result = graph.client.plan_task("put one apple inside the fridge", timeout_s=-5)
    assert result.success is False and "the request's timeout_s = -5.0 is invalid: expected a number of " \
        "seconds > 0" in result.message, result


def test_unknown_planner_is_refused_naming_the_planners_of_the_domain(graph):
    result = graph.client.plan("put one apple inside the fridge", planner="stalm")
    assert not result.success and "for the household domain (available: classical" in result.message


def test_a_hundred_concurrent_plan_only_calls_from_four_processes_are_all_answered(graph):
    good, bad = "put one apple on the kitchen table", ["", "put \x00 it", "put the unicorn inside the fridge"]
    batch = ([good] * 7 + bad * 6)[:25]
    started = time.monotonic()
    procs = [subprocess.Popen([sys.executable, str(Path(__file__).with_name("plan_burst.py")), graph.namespace,
                               "420", json.dumps(batch)], env=graph.runner.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(4)]
    answers = []
    for proc in procs:
        out, err = proc.communicate(timeout=480)
        answers += json.loads(out.strip().splitlines()[-1])
    print(f"100 concurrent plan-only calls from 4 processes answered in {time.monotonic() - started:.1f} s")
    assert len(answers) == 100 and None not in answers, f"{answers.count(None)} call(s) got no answer"
    assert [a["success"] for a in answers] == [d == good for d in batch] * 4, [a["message"] for a in answers]
    assert len({a["task_id"] for a in answers}) == 100


# ------------------------------------------------------------------ other planners (before the LLM-MCTS tasks:
# a task canceled while the robot holds something leaves it to the next task where to put it)
def test_pddl_planner_takes_a_mixed_directive_through_plan_task(graph):
    result = graph.client.plan_task("go to the bedroom through the kitchen and bring the book to the sofa",
                                    planner="pddl", execute=True, timeout_s=300)
    assert result.success, result
    assert result.goal == (("on", "book", "sofa", 1),)
    assert "Levy-Karpas" in result.message
    assert result.plan[-1].startswith("puton(book_") and result.plan[-1].endswith(", sofa)")


def test_saycanpay_planner_executes_through_the_executor(graph):
    from llm_planner.methods.saycanpay.config import load_config, model_dir

    trained = (model_dir(load_config()) / "models.npz").is_file()
    result = graph.client.plan_task("put one candle on the nightstand", planner="saycanpay", execute=True,
                                    timeout_s=300)
    if trained:  # the executor process reads the same model directory
        assert result.success, result
        assert result.plan[-1].startswith("puton(candle_")
    else:
        assert not result.success and "llm-planner train saycanpay" in result.message, result


# ------------------------------------------------------------------ execute_directive
def test_execute_directive_with_llm_mcts_gives_feedback_for_every_step(graph, tmp_path):
    from llm_planner_ros.conversions import belief_from_msg

    statuses: list = []
    graph.client.watch_status(statuses.append)
    feedback: list = []
    result = graph.client.run("put one book on the coffee table and a mug inside the fridge", planner="llm_mcts",
                              on_feedback=feedback.append)
    assert result.success and result.status is TaskResult.SUCCEEDED, result
    assert result.goal == (("on", "book", "coffee_table", 1), ("inside", "mug", "fridge", 1))
    assert result.llm_requests > 0  # the offline backend answered the policy questions (counted, not hidden)
    assert feedback[0].state == "planning" and feedback[0].task_id == result.task_id
    steps = [f for f in feedback if f.state == "executing"]
    assert [f.step for f in steps] == list(range(1, len(result.executed) + 1))
    assert [f.action for f in steps] == list(result.plan) and all(f.observation.startswith("in ") for f in steps)
    assert steps[-1].llm_requests > 0
    predicates = graph.full_state()
    assert any(n == "ON" and a[0].startswith("book_") and a[1] == "coffee_table" for n, a in predicates)
    assert any(n == "INSIDE" and a[0].startswith("mug_") and a[1] == "fridge" for n, a in predicates)
    for f in steps:  # per step: the LLM requests of the decision, the belief about the goal's objects
        assert sorted(b.obj.rsplit("_", 1)[0] for b in f.belief) == ["book"] * 2 + ["mug"] * 2, f.belief
        for b in f.belief:
            probabilities = [p for _, p in b.places]
            assert probabilities == sorted(probabilities, reverse=True) and 0 < sum(probabilities) <= 1 + 1e-9
    assert sum(f.decision_llm_requests for f in steps) > 0
    assert any(len(b.places) > 1 for b in steps[0].belief)  # not everything seen after the first step
    graph.client.spin_for(0.5)
    mine = [m for m in statuses if m.task_id == result.task_id]
    assert [m.step for m in mine if m.action] == list(range(1, len(result.executed) + 1))
    assert [belief_from_msg(m.belief) for m in mine if m.action] == [f.belief for f in steps]
    assert mine[-1].state == "succeeded"
    _check_the_task_record_and_its_report(graph, result, steps, tmp_path)


def _check_the_task_record_and_its_report(graph, result, steps, tmp_path):
    """The executor's record of the task (task_record) holds every step with the world after it; the
    report drawn from it shows the robot's start and end, the path it drove and the goal."""
    from llm_planner.viz.report import recorder_of, write_report
    from llm_planner.viz.topdown import GOAL_COLOR, PATH_COLOR, ROBOT_COLOR, START_COLOR, crop, save_png
    from llm_planner.domains.household.world.scene import load_scene
    from test.viz.conftest import colour_near, read_rgb

    record = graph.client.task_record(result.task_id)
    assert (record.task_id, record.state, record.planner) == (result.task_id, "succeeded", "llm_mcts")
    assert [s.action for s in record.steps] == list(result.plan)
    assert [(s.belief, s.decision_llm_requests) for s in record.steps] == [
        (f.belief, f.decision_llm_requests) for f in steps]
    book = next(s for s in record.steps if s.action.startswith("puton(book_")).action[len("puton("):].split(",")[0]
    on_table = next(b for b in record.steps[-1].geometry.bodies if b.name == book).aabb_center
    scene = load_scene(record.world)
    table = scene.furniture["coffee_table"]
    assert abs(on_table[0] - table.position[0]) < 1.0 and abs(on_table[1] - table.position[1]) < 1.0
    written = write_report(record, tmp_path / "report", gif=False)
    report = written["report"].read_text()
    assert f"| 1 | `{record.steps[0].action}` | ok | {steps[0].decision_llm_requests} (" in report
    assert steps[0].belief[0].describe() in report
    recorder = recorder_of(record)  # after.png shows the rooms the episode used: the same crop here
    picture = save_png(crop(recorder.after_view(), recorder.report_extent()), tmp_path / "again.png")
    image = read_rgb(written["after"])
    start, end = record.start.robot_position, record.steps[-1].geometry.robot_position
    assert colour_near(image, picture.pixel(start[0], start[1]), START_COLOR)
    assert colour_near(image, picture.pixel(end[0], end[1]), ROBOT_COLOR)
    walk = next(s for s in record.steps if s.action.startswith("walk") and len(s.path) > 4)
    assert colour_near(image, picture.pixel(*walk.path[len(walk.path) // 2]), PATH_COLOR, radius=4)
    assert colour_near(image, picture.pixel(table.position[0] + table.size[0] / 2 * math.cos(table.yaw),
                                            table.position[1] + table.size[0] / 2 * math.sin(table.yaw)),
                       GOAL_COLOR, radius=5)
    proc = graph.cli("snapshot", "--task", "last", "--out-dir", str(tmp_path / "cli"), "--no-gif")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"task {record.task_id} (llm_mcts, succeeded" in proc.stdout
    assert {p.name for p in (tmp_path / "cli").iterdir()} == {"before.png", "after.png", "strip.png", "report.md"}


def test_the_simulator_publishes_the_world_as_rviz_markers_after_every_skill(graph):
    from rclpy.qos import QoSProfile
    from visualization_msgs.msg import Marker, MarkerArray

    from llm_planner_ros.conversions import geometry_from_msg, time_to_ns
    from llm_planner_ros.node_utils import GEOMETRY_QOS
    from llm_planner.domains.geometry import ROBOT, yaw_of
    from llm_planner_interfaces.msg import GeometrySnapshot

    client = graph.client
    arrays: list = []
    geometries: dict = {}
    # The publishers keep the last message for late joiners (depth 1, transient local); this
    # subscriber queues every message it is sent, so none is lost while the client is busy.
    qos = QoSProfile(depth=100, reliability=GEOMETRY_QOS.reliability, durability=GEOMETRY_QOS.durability)
    subs = [client.node.create_subscription(MarkerArray, "markers", arrays.append, qos),
            client.node.create_subscription(GeometrySnapshot, "sim/geometry",
                                            lambda m: geometries.setdefault(time_to_ns(m.header.stamp), m), qos)]
    client.spin_for(1.0)
    assert len(arrays) == 1, "markers is latched: a late subscriber gets the current world at once"
    result = client.run("put one bread slice inside the fridge", planner="classical")
    client.spin_for(1.0)
    for sub in subs:
        client.node.destroy_subscription(sub)
    assert result.success and result.executed, result
    assert len(arrays) - 1 == len(result.executed) >= 3, "one update after every skill and no other"
    last = arrays[-1]
    stamp = time_to_ns(last.markers[0].header.stamp)
    assert stamp in geometries, "the markers carry the stamp of the geometry published after the skill"
    geometry = geometry_from_msg(geometries[stamp])
    by_ns: dict = {}
    for m in last.markers:
        assert m.header.frame_id == "map" and m.action == Marker.ADD
        by_ns.setdefault(m.ns, []).append(m)
    objects = {b.name: b for b in geometry.bodies if b.type not in ("wall", "container", "surface", ROBOT)}
    labels = {m.text: m for m in by_ns["object_names"]}
    assert set(labels) == set(objects) and all(m.type == Marker.TEXT_VIEW_FACING for m in labels.values())
    for name, body in objects.items():
        assert abs(labels[name].pose.position.x - body.aabb_center[0]) < 1e-6
        assert abs(labels[name].pose.position.y - body.aabb_center[1]) < 1e-6
    bread = next(a[0] for n, a in graph.full_state() if n == "INSIDE" and a[0].startswith("bread_slice_") and a[1] == "fridge")
    fridge = next(b for b in geometry.bodies if b.name == "fridge")
    assert all(fridge.aabb_min[i] <= objects[bread].aabb_center[i] <= fridge.aabb_max[i] for i in range(3))
    opened = {j.body for j in geometry.joints if j.is_open}
    furniture = [m.text for m in by_ns["furniture_names"]]
    assert ("fridge (open)" if "fridge" in opened else "fridge (closed)") in furniture
    assert len(by_ns["furniture"]) == len(furniture) == len([b for b in geometry.bodies if b.type in ("container", "surface")])
    arrow = next(m for m in by_ns["robot"] if m.type == Marker.ARROW)
    o = arrow.pose.orientation
    assert abs(yaw_of((o.x, o.y, o.z, o.w)) - geometry.robot_yaw) < 1e-6
    assert (arrow.pose.position.x, arrow.pose.position.y) == geometry.robot_position[:2]
    assert len(by_ns["walls"]) == len([b for b in geometry.bodies if b.type == "wall"])


def test_cancel_after_the_first_step_stops_the_robot_and_other_requests_are_refused_meanwhile(graph):
    from llm_planner_ros.client import PlannerClient
    from llm_planner_ros.conversions import time_to_ns

    statuses: list = []
    graph.client.watch_status(statuses.append)
    with PlannerClient("test_second_client", graph.namespace) as second:
        assert second.wait_for_planner(30.0)
        graph.client.execute("put one towel on the bed and a toothbrush on the desk", planner="llm_mcts")
        task_id = _wait_for_step(graph.client, 0).task_id
        refused = graph.client.plan_task("put one apple on the sofa", execute=True)         # the service
        assert not refused.success and f"busy with task {task_id}" in refused.message, refused
        second.execute("put one apple on the sofa")                                          # the action
        other = second.result(timeout_s=30.0)
        assert other.status is TaskResult.FAILED and f"busy with task {task_id}" in other.message, other
        _wait_for_step(graph.client, 1)
        asked = time.monotonic()
        assert graph.client.cancel()
        canceled_ns = time.time_ns()  # the planner has forwarded the cancel to the executor by now
        result = graph.client.result(timeout_s=120.0)
    took = time.monotonic() - asked
    graph.client.spin_for(0.5)
    mine = [m for m in statuses if m.task_id == task_id]
    late = [m.step for m in mine if m.action and time_to_ns(m.header.stamp) > canceled_ns]
    print(f"canceled {took:.2f} s after the request, after {len(result.executed)} step(s); "
          f"steps reported after the cancel: {late}")
    assert result.status is TaskResult.CANCELED and not result.success, result
    assert "canceled after" in result.message and took < 60.0
    assert len(late) <= 1  # the skill under way may finish; none starts after the cancel
    assert mine[-1].state == "canceled", [(m.state, m.message) for m in mine]
    assert max(m.step for m in mine) == len(result.executed) >= 1
    assert any(m.state == "refused" and task_id in m.message for m in statuses)


def test_the_cancel_command_and_the_time_limit_stop_the_robot(graph):
    graph.client.execute("put one magazine on the bed and a cellphone on the kitchen table", planner="llm_mcts")
    task_id = _wait_for_step(graph.client, 1).task_id
    assert graph.client.cancel_task("0123456789ab") == (False, f"task 0123456789ab is not running (the running task "
                                                             f"is {task_id})")
    done, message = graph.client.cancel_task(task_id)  # what `llm-planner cancel TASK_ID` calls
    assert done and message.startswith(f"canceling task {task_id}"), message
    result = graph.client.result(timeout_s=120.0)
    assert not result.success and "canceled after" in result.message, result  # ABORTED: not the goal's cancel
    proc = graph.cli("cancel")
    assert proc.returncode == 1 and proc.stdout.strip() == "no task is running", proc.stdout + proc.stderr
    # a limit shorter than the planner's start (the robot may hold the magazine by the bed after the
    # cancel, and the 7 steps left took less than 0.5 s)
    timed = graph.client.run("put one magazine on the bed and a cellphone on the kitchen table", planner="llm_mcts",
                             timeout_s=0.005)
    assert timed.status is TaskResult.FAILED and "time limit reached after" in timed.message, timed


def test_ctrl_c_in_the_cli_cancels_the_task(graph):
    import signal

    cli = subprocess.Popen([str(VENV_BIN / "llm-planner"), "plan", "put one glasses on the sofa and a book on the bed",
                            "--planner", "llm_mcts", "--execute"], env=graph.runner.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
    lines = []
    for line in cli.stdout:
        lines.append(line)
        if " step 1: " in line:
            cli.send_signal(signal.SIGINT)
            break
    out, _ = cli.communicate(timeout=120)
    assert cli.returncode == 130, "".join(lines) + out
    assert "success: False (canceled)" in out and "canceled after" in out


def test_the_guide_examples_of_calling_it_from_a_node_run_against_the_graph(graph, tmp_path):
    guide = (Path(__file__).resolve().parents[3] / "docs" / "guides" / "ros.md").read_text()
    section = guide[guide.index("## Call it from your node"):]
    blocks = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(blocks) == 3
    outputs = []
    for i, code in enumerate(blocks):
        script = tmp_path / f"example_{i}.py"
        script.write_text(code)
        proc = subprocess.run([sys.executable, str(script)], env=graph.runner.env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, f"guide example {i + 1} failed:\n{code}\n{proc.stdout}\n{proc.stderr}"
        outputs.append(proc.stdout)
    assert outputs[0].startswith("True ") and "putin(apple_" in outputs[0]
    assert re.search(r"^4 .*goal reached in \d+ steps$", outputs[1], re.M) and "putin(apple_" in outputs[1]
    assert outputs[2].splitlines()[-1].startswith("True "), outputs[2]  # status is TaskResult.SUCCEEDED, message


def test_cli_executes_through_the_action_and_prints_json(graph):
    # classical: a whole plan that always reaches the goal; the default, llm_mcts, wandered 30 steps
    # once in the world the earlier tests leave behind (the CLI is under test here, not the planner)
    proc = graph.cli("plan", "put one banana inside the fridge", "--execute", "--json", "--planner", "classical")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["success"] is True and result["status"] == "succeeded", result
    assert result["goal"] == [["inside", "banana", "fridge", 1]] and result["executed"]
    assert any(step.startswith("putin(banana_") for step in result["plan"])
    inside = [args for name, args in graph.full_state() if name == "INSIDE" and args[1] == "fridge"]
    assert any(obj.startswith("banana_") for obj, _ in inside), inside
    text = graph.cli("plan", "put one plate on the coffee table", "--execute", "--planner", "classical")
    assert text.returncode == 0 and "step 1: " in text.stdout and "success: True (succeeded)" in text.stdout, text


def test_voice_topic_directive_is_executed_and_reported(graph):
    proc = graph.cli("say", "put one candle on the sofa", "--follow", "120")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "succeeded" in proc.stdout and "executing step 1" in proc.stdout
    # the executor reports the end on task_status a moment before the planner frees the robot
    # (known race, see the closing note); the next test must not meet a robot still marked busy
    deadline = time.monotonic() + 30.0
    while graph.client.cancel_task()[1] != "no task is running" and time.monotonic() < deadline:
        time.sleep(0.2)


# ------------------------------------------------------------------ faults (last: they kill and restart nodes)
def _kill_during_a_task(graph, node: str, directive: str) -> tuple[dict, float]:
    """Start an llm_mcts task, kill ``node`` after its first step: (the task's result, seconds it took to end)."""
    graph.client.execute(directive, planner="llm_mcts")
    _wait_for_step(graph.client, 1)
    killed = time.monotonic()
    graph.kill(node)
    result = graph.client.result(timeout_s=120.0)
    took = time.monotonic() - killed
    print(f"the task failed {took:.1f} s after the {node} was killed: {result.message}")
    return result, took


def test_a_killed_simulator_fails_the_task_by_name_and_after_a_restart_the_next_task_succeeds(graph):
    result, took = _kill_during_a_task(graph, "simulator", "put one pillow on the sofa and a teddybear on the desk")
    assert result.status is TaskResult.FAILED and "the simulator node '/simulator'" in result.message, result
    assert ("'/simulator' left the ROS graph during the" in result.message  # DDS noticed within its 4 s lease
            or "/simulator/get_state" in result.message)  # killed between two goals: asked before the next
    assert took < NODE_TIMEOUT_S + 60.0  # the bound plus one planning decision, on a loaded machine
    assert graph.client.plan("put one apple on the sofa").success  # the planner node keeps serving
    graph.wait_gone("simulator")  # a restart before DDS drops the old one is not seen as a restart by the manager
    restarted = time.time_ns()
    graph.restart("simulator")
    graph.full_state(after_ns=restarted)  # the new simulator feeds perception again
    again = graph.client.run("put one apple inside the fridge", planner="classical")
    assert again.success and again.status is TaskResult.SUCCEEDED, again


def test_a_killed_executor_is_named_and_a_client_gives_up_on_a_killed_planner(graph):
    from llm_planner.errors import LlmPlannerError
    from llm_planner_ros.client import PlannerClient

    result, took = _kill_during_a_task(graph, "executor", "put one towel on the sofa and a cellphone on the bed")
    assert result.status is TaskResult.FAILED and "the executor node '/executor' left the ROS graph" in result.message
    assert took < NODE_TIMEOUT_S + 30.0
    graph.restart("executor")
    with PlannerClient("test_orphan_client", graph.namespace, server_timeout_s=2.0) as orphan:
        orphan.execute("put one remote control on the bed", planner="llm_mcts")
        killed = time.monotonic()
        graph.kill("planner")
        with pytest.raises(LlmPlannerError, match="execute_directive left the ROS graph and has not come back for 2 s"):
            orphan.result()
    print(f"the client gave up {time.monotonic() - killed:.1f} s after the planner node was killed")
    assert time.monotonic() - killed < 2.0 + 30.0  # DDS drops a killed process after 4 s (config/fastdds_localhost.xml)
    graph.restart("planner")
    assert graph.client.wait_for_planner(120.0)
    assert graph.client.plan("put one apple on the sofa").success
