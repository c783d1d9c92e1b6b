"""Executor node: runs a planner on the robot, step by step, closing the loop through perception.

Serves ``/execute_task`` (ExecuteTask): for a grounded goal and a planner name it runs
:func:`llm_planner.execution.run_episode` against the robot: each action goes to ``/robot/skill``,
the observation after it is the first ``/perception/state`` message stamped at or after the skill's
outcome, and the planner updates its belief from it. Progress goes to ``/task_status``. One task
runs at a time (one robot); later requests wait for the robot.
"""
from __future__ import annotations

import threading
import time
import traceback

from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.node import Node

from llm_planner_interfaces.msg import PerceivedState, TaskStatus
from llm_planner_interfaces.srv import ExecuteTask, RobotSkill
from llm_planner.errors import LlmPlannerError
from llm_planner.execution import SkillOutcome, StepRecord, run_episode
from llm_planner.nodes.simulator_node import GEOMETRY_QOS
from llm_planner.planners.base import Task, create
from llm_planner.ros.conversions import goal_from_json, observation_from_msg, state_from_msg, time_to_ns
from llm_planner.ros.node_utils import declare_params, run_node, wait_future
from llm_planner.world.scene import load_scene
from llm_planner.world.symbolic import Action, Goal, Household, Observation, State


class RobotWorld:
    """The robot as a :class:`llm_planner.execution.World`: skills over a service, observations from topics."""

    def __init__(self, node: "ExecutorNode") -> None:
        self.node = node
        self.after_ns = 0  # perception must be at least this recent (stamp of the last skill's outcome)

    def execute(self, action: Action) -> SkillOutcome:
        client = self.node.skill_client
        if not client.wait_for_service(timeout_sec=10.0):
            return SkillOutcome(False, "the robot skill service /robot/skill is not available")
        response = wait_future(client.call_async(RobotSkill.Request(action=action.verb, args=list(action.args))),
                               self.node.params["perception_wait_s"] * 6)
        if response is None:
            return SkillOutcome(False, "the robot did not answer the skill call in time")
        self.after_ns = time_to_ns(response.stamp)
        return SkillOutcome(bool(response.success), response.reason)

    def _latest(self, full: bool) -> PerceivedState:
        msg = self.node.wait_perception(full, self.after_ns)
        if msg is None:
            raise LlmPlannerError("no perception message arrived in time; is the perception node running?")
        return msg

    def observe(self) -> Observation:
        return observation_from_msg(self._latest(False), self.node.household)

    def full_state(self) -> State:
        return state_from_msg(self._latest(True), self.node.household)

    def goal_reached(self, goal: Goal) -> bool:
        return self.node.household.satisfied(self.full_state(), goal)


class ExecutorNode(Node):
    def __init__(self) -> None:
        super().__init__("executor")
        self.params = declare_params(self, ("scene", "max_steps", "perception_wait_s", "llm_backend"))
        self.household = Household(load_scene(self.params["scene"]))
        self.robot_lock = threading.Lock()
        self.perception = {False: None, True: None}
        self.perception_changed = threading.Condition()
        topics = MutuallyExclusiveCallbackGroup()
        self.create_subscription(PerceivedState, "/perception/state", lambda m: self.on_perception(m, False),
                                 GEOMETRY_QOS, callback_group=topics)
        self.create_subscription(PerceivedState, "/perception/full_state", lambda m: self.on_perception(m, True),
                                 GEOMETRY_QOS, callback_group=topics)
        self.skill_client = self.create_client(RobotSkill, "/robot/skill", callback_group=ReentrantCallbackGroup())
        self.status_pub = self.create_publisher(TaskStatus, "/task_status", 20)
        self.create_service(ExecuteTask, "/execute_task", self.on_execute, callback_group=ReentrantCallbackGroup())
        self.get_logger().info("serving /execute_task")

    def on_perception(self, msg: PerceivedState, full: bool) -> None:
        with self.perception_changed:
            self.perception[full] = msg
            self.perception_changed.notify_all()

    def wait_perception(self, full: bool, after_ns: int) -> PerceivedState | None:
        deadline = time.monotonic() + self.params["perception_wait_s"]
        with self.perception_changed:
            while True:
                msg = self.perception[full]
                if msg is not None and time_to_ns(msg.header.stamp) >= after_ns:
                    return msg
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self.perception_changed.wait(remaining)

    def publish_status(self, task_id: str, directive: str, state: str, step: int = 0, action: str = "",
                       result: str = "", message: str = "") -> None:
        msg = TaskStatus(task_id=task_id, directive=directive, state=state, step=step, action=action,
                         result=result, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)

    def on_execute(self, request: ExecuteTask.Request, response: ExecuteTask.Response) -> ExecuteTask.Response:
        with self.robot_lock:
            try:
                self._execute(request, response)
            except (LlmPlannerError, ValueError, KeyError) as exc:
                response.success, response.message = False, f"execution failed: {exc}"
                self.publish_status(request.task_id, request.directive, "failed", message=response.message)
            except Exception as exc:  # noqa: BLE001 - a planner bug must not take the executor down
                self.get_logger().error(f"internal error on /execute_task: {traceback.format_exc()}")
                response.success = False
                response.message = f"execution failed with an internal error ({type(exc).__name__}: {exc})"
                self.publish_status(request.task_id, request.directive, "failed", message=response.message)
        return response

    def _execute(self, request: ExecuteTask.Request, response: ExecuteTask.Response) -> None:
        goal = self.household.check_goal(goal_from_json(request.goal))
        planner = create(request.planner)
        task = Task(directive=request.directive, goal=goal, household=self.household,
                    max_steps=self.params["max_steps"])
        deadline = time.monotonic() + request.timeout_s if request.timeout_s > 0 else None
        self.publish_status(request.task_id, request.directive, "executing", message=f"planner {request.planner}")

        def on_step(record: StepRecord) -> None:
            self.publish_status(request.task_id, request.directive, "executing", record.step, str(record.action),
                                "ok" if record.success else record.reason, record.describe())

        world = RobotWorld(self)
        world.after_ns = self.get_clock().now().nanoseconds  # start from a fresh observation
        result = run_episode(planner, task, world, on_step=on_step, deadline=deadline)
        response.success = result.success
        response.message = result.message
        response.plan = result.plan
        response.executed = [s.describe() for s in result.steps]
        response.llm_requests = result.stats.llm_requests
        response.planning_time_s = result.stats.planning_time_s
        self.publish_status(request.task_id, request.directive, "succeeded" if result.success else "failed",
                            len(result.steps), message=result.message)


def main() -> int:
    return run_node(ExecutorNode, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())
