"""Executor node: runs a planner on the robot, step by step, closing the loop through perception.

Serves ``/execute_task`` (ExecuteTask): for a grounded goal and a planner name it runs
:func:`llm_planner.execution.run_episode` against the robot: each action goes to ``/robot/skill``,
the observation after it is the first ``/perception/state`` message stamped at or after the skill's
outcome, and the planner updates its belief from it. Progress goes to ``/task_status``. One task
runs at a time (one robot); later requests wait for the robot.
"""
from __future__ import annotations

import time

from llm_planner_interfaces.msg import PerceivedState
from llm_planner_interfaces.srv import ExecuteTask
from llm_planner.errors import LlmPlannerError
from llm_planner.execution import SkillOutcome, StepRecord, run_episode
from llm_planner.planners.base import Task, create
from llm_planner.ros.conversions import goal_from_json, observation_from_msg, state_from_msg
from llm_planner.ros.executor_base import ExecutorBase
from llm_planner.ros.node_utils import declare_params, run_node
from llm_planner.world.scene import load_scene
from llm_planner.world.symbolic import Action, Goal, Household, Observation, State


class RobotWorld:
    """The robot as a :class:`llm_planner.execution.World`: skills over a service, observations from topics."""

    def __init__(self, node: "ExecutorNode") -> None:
        self.node = node
        self.after_ns = 0  # perception must be at least this recent (stamp of the last skill's outcome)

    def execute(self, action: Action) -> SkillOutcome:
        success, reason, self.after_ns = self.node.call_skill(action.verb, list(action.args))
        return SkillOutcome(success, reason)

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


class ExecutorNode(ExecutorBase):
    def __init__(self) -> None:
        super().__init__("executor", {False: "/perception/state", True: "/perception/full_state"})
        self.params = declare_params(self, ("scene", "max_steps", "perception_wait_s", "llm_backend"))
        self.household = Household(load_scene(self.params["scene"]))
        self.serve()
        self.get_logger().info("serving /execute_task")

    def execute_task(self, request: ExecuteTask.Request, response: ExecuteTask.Response) -> None:
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
