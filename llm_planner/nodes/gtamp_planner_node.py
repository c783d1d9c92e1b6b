"""G-TAMP planner node: ``/plan_task`` for the G-TAMP graph (launch/gtamp.launch.py).

The directive must name the running problem's goal: ``solve the problem``, or clauses such as
``put the salter on table 2 and right of bottle 1`` read by the tiny grammar of
:mod:`llm_planner.gtamp_directive` (unknown object, region or direction names answer
success=false naming what the problem knows). No language model translates here; the response
message says which goal was used. With ``execute`` the goal goes to the G-TAMP executor
(``/execute_task``); without, the planner plans once on the perceived state and the response
lists the concrete plan it would start with. The response ``goal`` is JSON
``[["AtPosition", obj, dir, ref], ...]``.

``/directive`` (std_msgs/String): a voice frontend's directive is planned and executed with the
default planner; the executor reports progress on ``/task_status`` (a directive refused before
execution is reported there as failed).
"""
from __future__ import annotations

import threading
import time

from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from std_msgs.msg import String

from llm_planner_interfaces.msg import PerceivedState, TaskStatus
from llm_planner_interfaces.srv import ExecuteTask, PlanTask
from llm_planner.errors import LlmPlannerError
from llm_planner.gtamp.domain import GoalAtom
from llm_planner.gtamp_directive import parse_directive
from llm_planner.nodes.gtamp_common import declare_gtamp_params, load_gtamp_problem, resolve_gtamp_planner
from llm_planner.ros.node_utils import GEOMETRY_QOS
from llm_planner.ros.gtamp_conversions import goal_holds, goal_to_json, state_from_perceived
from llm_planner.ros.node_utils import run_node, wait_future
from llm_planner.service import check_directive, new_task_id


class GTampPlannerNode(Node):
    def __init__(self) -> None:
        super().__init__("planner")
        self.params = declare_gtamp_params(self, ("problem", "planner", "llm_backend", "seed", "max_directive_chars",
                                                  "plan_timeout_s", "perception_wait_s"))
        self.problem = load_gtamp_problem(self.params["problem"])
        self.perception: PerceivedState | None = None
        self.lock = threading.Lock()
        group = ReentrantCallbackGroup()
        self.create_subscription(PerceivedState, "/perception/state", self._store, GEOMETRY_QOS, callback_group=group)
        self.execute_client = self.create_client(ExecuteTask, "/execute_task", callback_group=group)
        self.status_pub = self.create_publisher(TaskStatus, "/task_status", 20)
        self.create_service(PlanTask, "/plan_task", self.on_plan_task, callback_group=group)
        self.create_subscription(String, "/directive", self.on_directive, 10, callback_group=group)
        self.get_logger().info(f"G-TAMP problem '{self.problem.name}': serving /plan_task "
                               f"(default planner {self.params['planner']}, LLM backend {self.params['llm_backend']})")

    def _store(self, msg: PerceivedState) -> None:
        with self.lock:
            self.perception = msg

    def latest_perception(self) -> PerceivedState:
        deadline = time.monotonic() + self.params["perception_wait_s"]
        while time.monotonic() < deadline:
            with self.lock:
                if self.perception is not None:
                    return self.perception
            time.sleep(0.1)
        raise LlmPlannerError("no perception message yet; is the G-TAMP perception node running?")

    def on_plan_task(self, request: PlanTask.Request, response: PlanTask.Response) -> PlanTask.Response:
        response.task_id = new_task_id()
        try:
            directive = check_directive(request.directive, self.params["max_directive_chars"])
            planner = resolve_gtamp_planner((request.planner or self.params["planner"]).strip())
            goal, how = parse_directive(directive, self.problem)
            response.goal = goal_to_json(goal)
            timeout = min(request.timeout_s or self.params["plan_timeout_s"], self.params["plan_timeout_s"])
            if request.execute:
                self._execute(directive, planner, goal, timeout, how, response)
            else:
                self._preview(planner, goal, timeout, how, response)
        except (LlmPlannerError, ValueError, KeyError) as exc:
            response.success, response.message = False, str(exc)
        self.get_logger().info(f"/plan_task {request.directive[:80]!r}: {response.message}")
        return response

    def on_directive(self, msg: String) -> None:
        """Plan and execute a voice directive with the default planner, in its own thread."""
        threading.Thread(target=self._run_directive, args=(msg.data,), daemon=True).start()

    def _run_directive(self, text: str) -> None:
        response = self.on_plan_task(PlanTask.Request(directive=text, execute=True), PlanTask.Response())
        if not response.success and not response.executed:
            status = TaskStatus(task_id=response.task_id, directive=text[:200], state="failed",
                                message=response.message)
            status.header.stamp = self.get_clock().now().to_msg()
            self.status_pub.publish(status)

    def _execute(self, directive: str, planner: str, goal: tuple[GoalAtom, ...], timeout: float, how: str,
                 response: PlanTask.Response) -> None:
        if not self.execute_client.wait_for_service(timeout_sec=10.0):
            raise LlmPlannerError("/execute_task is not available; is the G-TAMP executor running?")
        request = ExecuteTask.Request(task_id=response.task_id, directive=directive, goal=response.goal,
                                      planner=planner, timeout_s=float(timeout))
        result = wait_future(self.execute_client.call_async(request), timeout * 3 + 120.0)
        if result is None:
            raise LlmPlannerError("the executor did not answer in time")
        response.success = bool(result.success)
        response.message = f"goal: {how}; planner {planner}: {result.message}"
        response.plan, response.executed = list(result.plan), list(result.executed)
        response.llm_requests, response.planning_time_s = result.llm_requests, result.planning_time_s

    def _preview(self, planner_name: str, goal: tuple[GoalAtom, ...], timeout: float, how: str,
                 response: PlanTask.Response) -> None:
        from llm_planner.planners.base import create
        from llm_planner.planners.stalm import GTampTask

        msg = self.latest_perception()
        if goal_holds(msg, goal):
            response.success, response.message = True, f"goal: {how}; it already holds: nothing to do"
            return
        planner = create(planner_name, backend=self.params["llm_backend"], seed=self.params["seed"])
        state = state_from_perceived(msg, self.problem)
        try:
            planner.start(GTampTask(self.problem.with_goal(goal), time_budget_s=timeout), state)
            decision = planner.decide(state)
            steps = [str(a.action) for a in planner.preview()] or ([str(decision.action.action)] if decision.action else [])
        finally:
            if getattr(planner, "ctx", None) is not None:
                planner.ctx.model.world.close()
        if not steps:
            raise LlmPlannerError(f"{planner_name} found no plan: {decision.message}")
        response.success, response.plan = True, steps
        response.llm_requests, response.planning_time_s = planner.stats.llm_requests, planner.stats.planning_time_s
        response.message = f"goal: {how}; planner {planner_name} plans {len(steps)} step(s) (not executed)"


def main() -> int:
    return run_node(GTampPlannerNode, threads=6)


if __name__ == "__main__":
    raise SystemExit(main())
