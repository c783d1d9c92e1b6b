"""G-TAMP executor node: runs STaLM (or a G-TAMP baseline) on the robot, closing the loop through perception.

Serves ``/execute_task`` (ExecuteTask) for the G-TAMP graph: the goal is JSON
``[["AtPosition", obj, dir, ref], ...]``, the planner ``stalm`` (or ``stalm_no_uct``, ...,
``gtamp_uct`` / ``uct``, ``gtamp_saycan`` / ``saycan``, ...). The planner starts from the perceived
state (``/perception/state``); each concrete action it decides goes to ``/robot/skill`` as JSON;
the observation after it is the first perception message stamped at or after the skill's stamp,
and ``planner.record`` gets it: a failed step drops the plan and the next decision replans from
the newly observed state. Success is judged on the perceived predicates (every goal
``AtPosition`` atom holds). Progress goes to ``/task_status`` per step. One task at a time.
"""
from __future__ import annotations

from llm_planner_interfaces.msg import PerceivedState
from llm_planner_interfaces.srv import ExecuteTask
from llm_planner.errors import LlmPlannerError
from llm_planner.gtamp.domain import ConcreteAction, GoalAtom, GState
from llm_planner.gtamp_execution import run_gtamp
from llm_planner.nodes.gtamp_common import declare_gtamp_params, load_gtamp_problem, resolve_gtamp_planner
from llm_planner.ros.gtamp_conversions import encode, goal_from_json, goal_holds, state_from_perceived
from llm_planner.ros.executor_base import ExecutorBase
from llm_planner.ros.node_utils import run_node


class GTampExecutorNode(ExecutorBase):
    def __init__(self) -> None:
        super().__init__("executor", {"state": "/perception/state"})
        self.params = declare_gtamp_params(self, ("problem", "llm_backend", "seed", "max_steps", "perception_wait_s"))
        self.problem = load_gtamp_problem(self.params["problem"])
        self.serve()
        self.get_logger().info(f"G-TAMP problem '{self.problem.name}': serving /execute_task")

    def perceived_after(self, after_ns: int) -> PerceivedState:
        """The first perception message stamped at or after ``after_ns``; LlmPlannerError on timeout."""
        msg = self.wait_perception("state", after_ns)
        if msg is None:
            raise LlmPlannerError("no perception message arrived in time; is the perception node running?")
        return msg

    def run_skill(self, action: ConcreteAction) -> tuple[bool, str, int]:
        """Send a concrete action to /robot/skill: (success, reason, stamp of the geometry after it)."""
        return self.call_skill(action.action.op, [encode(action)])

    def status(self, request: ExecuteTask.Request, state: str, step: int = 0, action: str = "", result: str = "",
               message: str = "") -> None:
        self.publish_status(request.task_id, request.directive, state, step, action, result, message)

    def execute_task(self, request: ExecuteTask.Request, response: ExecuteTask.Response) -> None:
        from llm_planner.planners.base import create
        from llm_planner.planners.stalm import GTampTask

        goal = goal_from_json(request.goal, self.problem)
        name = resolve_gtamp_planner(request.planner)
        planner = create(name, backend=self.params["llm_backend"], seed=self.params["seed"])
        task = GTampTask(self.problem.with_goal(goal), time_budget_s=request.timeout_s or None,
                         max_steps=self.params["max_steps"], directive=request.directive)
        self.status(request, "executing", message=f"planner {name} on problem {self.problem.name}")
        robot = RobotWorld(self, goal, self.perceived_after(self.get_clock().now().nanoseconds))

        def on_step(step: int, action: str, ok: bool, reason: str) -> None:
            self.status(request, "executing", step, action, "ok" if ok else reason,
                                "" if ok else "replanning from the observed state")

        try:
            run = run_gtamp(planner, task, robot, self.params["max_steps"], on_step)
        finally:
            if getattr(planner, "ctx", None) is not None:
                planner.ctx.model.world.close()
        response.success, response.message = run.success, run.message
        response.plan, response.executed = run.plan, run.executed
        response.llm_requests = planner.stats.llm_requests
        response.planning_time_s = planner.stats.planning_time_s
        self.status(request, "succeeded" if run.success else "failed", len(run.executed),
                            message=response.message)


class RobotWorld:
    """The robot as a :class:`llm_planner.gtamp_execution.GTampWorld`: skills over /robot/skill,
    the state and the goal test from the latest /perception/state message."""

    def __init__(self, node: GTampExecutorNode, goal: tuple[GoalAtom, ...], first: PerceivedState) -> None:
        self.node, self.goal, self.msg = node, goal, first

    def observe(self) -> GState:
        return state_from_perceived(self.msg, self.node.problem)

    def execute(self, action: ConcreteAction) -> tuple[bool, str]:
        ok, reason, stamp = self.node.run_skill(action)
        self.msg = self.node.perceived_after(stamp)
        return ok, reason

    def is_goal(self) -> bool:
        return goal_holds(self.msg, self.goal)


def main() -> int:
    return run_node(GTampExecutorNode, threads=4)


if __name__ == "__main__":
    raise SystemExit(main())
