"""The MCP server: the robot's task-level interfaces as tools, the world file as a resource, and a
prompt on phrasing directives (docs/guides/mcp.md).

Every tool goes through :class:`~llm_planner_ros.frontends.mcp.robot.Robot`, a client of the
graph's task interfaces. A directive is grounded, checked against its words, planned, approved
(``require_approval``) and executed by the planner node exactly as one from the command line or a
voice frontend; a tool reaches no topic, parameter or skill.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

from llm_planner.errors import LlmPlannerError
from llm_planner.task_states import ASKING, EXECUTING, PLANNING
from llm_planner_ros.frontends.inputs import BadInput, plain_text
from llm_planner_ros.frontends.mcp.http import StaticToken
from llm_planner_ros.frontends.mcp.robot import Robot
from llm_planner_ros.frontends.mcp.world import describe_world as names_of_world
from llm_planner_ros.frontends.mcp.world import world_file
from llm_planner_ros.task_results import Feedback, TaskQuestion, to_json

T = TypeVar("T")

INSTRUCTIONS = """\
This server directs one simulated household robot (a mobile manipulator) through its task planner.
Give it directives in plain words, such as "put one apple inside the fridge": the planner grounds
the directive in the apartment, refuses what it cannot read or what the words do not support, plans
and carries it out with its own skills, and reports each step. There is no way to drive the robot's
motors, topics or skills directly. Call describe_world first to use the apartment's own names.
When a task asks a question (which table? how many? "May I ...?"), put it to the person and pass
their answer to answer_task; never answer an approval question ("May I ...?") on the person's behalf.
"""

DIRECTIVE = Annotated[str, Field(description='one task in plain words, e.g. "put one apple inside the fridge"; '
                                             "name objects and places as describe_world does")]
PLANNER = Annotated[str, Field(description="planner name (household: llm_mcts, classical, pddl, saycanpay, uct, ...;"
                                           " empty: the graph's default)")]
TASK_ID = Annotated[str, Field(description="a task id from an earlier result (empty: the latest task)")]

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
MOVES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)


class Answer(BaseModel):
    """What the person answers to the robot's question (an elicitation form)."""

    answer: str = Field(description='e.g. "the coffee table", "two", "yes" or "no"')


def build_server(robot: Robot, auth: tuple[StaticToken, AuthSettings] | None = None) -> MCPServer:
    """An MCPServer with the tools, the ``llm-planner://world`` resource and the ``directive`` prompt;
    with ``auth`` (:func:`~llm_planner_ros.frontends.mcp.http.token_auth`) every HTTP request needs
    the token."""
    verifier, settings = auth if auth is not None else (None, None)
    server: MCPServer = MCPServer("llm-planner", instructions=INSTRUCTIONS, log_level="WARNING",
                                  token_verifier=verifier, auth=settings)
    _add_task_tools(server, robot)
    _add_looking_tools(server, robot)
    _add_world(server, robot)
    return server


async def _call(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking Robot method in a worker thread. An LlmPlannerError (the graph's refusal or
    absence, with what to do instead) reaches the client as the tool's error with its message; any
    other exception stays a crash whose text the SDK keeps on the server."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except LlmPlannerError as exc:
        raise ToolError(str(exc)) from exc


#: What to send instead, per text argument (the message of a refused argument shows it).
EXAMPLES = {"directive": "put one apple inside the fridge", "planner": "classical", "text": "the coffee table",
            "task_id": "cc9a32ca11c8"}


def _text(value: str, field: str, required: bool = True) -> str:
    """``value`` stripped when it is plain text; the tool's error, saying what to send instead, when
    it is empty (and ``required``) or holds control characters, so no such request reaches the graph."""
    try:
        return plain_text(value, field, EXAMPLES[field], required)
    except BadInput as exc:
        raise ToolError(str(exc)) from exc


def _add_task_tools(server: MCPServer, robot: Robot) -> None:
    @server.tool(annotations=READ_ONLY)
    async def plan_task(directive: DIRECTIVE, planner: PLANNER = "") -> dict[str, Any]:
        """Plan a directive WITHOUT moving the robot (plan_task). Returns success, a message (the
        refusal and its reason when the directive cannot be read, e.g. an unknown object or a count
        that is not a whole number), the formal goal, the plan steps and a task id. LLM-MCTS decides
        one step at a time, so its plan is the first step; `classical` answers a whole plan. A
        directive that needs a question answered returns the question instead of planning."""
        return await _call(robot.plan, _text(directive, "directive"), _text(planner, "planner", required=False))

    @server.tool(annotations=MOVES)
    async def execute_directive(directive: DIRECTIVE, ctx: Context, planner: PLANNER = "",
                                timeout_s: Annotated[float, Field(ge=0.0, allow_inf_nan=False,
                                                                  description="time limit in seconds "
                                                                  "(0: the graph's plan_timeout_s)")] = 0.0,
                                ) -> dict[str, Any]:
        """Carry a directive out on the robot (execute_directive). The robot moves, opens, picks and
        places only as the planner's own skills do, only the objects the goal names, and only after
        the directive passed the same checks as plan_task; the graph may ask for approval first.
        Sends a progress notification per step (action, outcome, what the robot observed) and
        returns the result: state succeeded, failed (with the reason, a refusal included) or
        canceled, the goal, the executed steps and the task id. When the task asks a question
        (which table? how many? "May I ...?") it is put to the person through elicitation when the
        client offers it; otherwise this returns state `asking` with the question, its options and
        the task id, and answer_task continues the task. One task at a time."""
        await _call(robot.start, _text(directive, "directive"), _text(planner, "planner", required=False), timeout_s)
        return await _follow(robot, ctx)

    @server.tool(annotations=MOVES)
    async def answer_task(text: Annotated[str, Field(description='the person\'s answer, e.g. "the coffee table", '
                                                                 '"two", "yes", "no"')],
                          ctx: Context, task_id: TASK_ID = "") -> dict[str, Any]:
        """Answer the question of a task in state `asking` with what the PERSON said (answer_task),
        then follow the task as execute_directive does and return its result (or its next
        question). Do not answer approval questions ("May I ...?") yourself: "no" ends the task
        with nothing moved. Returns taken false and the reason when no task asks or the text
        answers nothing (the task then asks once more)."""
        taken, message = await _call(robot.answer, _text(text, "text"), _text(task_id, "task_id", required=False))
        if not taken or not await _call(robot.running):
            return {"taken": taken, "message": message}
        return {"taken": taken, "answer_read_as": message, **await _follow(robot, ctx)}

    @server.tool(annotations=MOVES)
    async def cancel_task(task_id: TASK_ID = "") -> dict[str, Any]:
        """Stop the running task (cancel_task): the walk or skill under way is canceled and the task
        ends `canceled`; a running execute_directive call then returns that result. Returns done
        and the planner's message ("no task is running" when there is none)."""
        done, message = await _call(robot.cancel, _text(task_id, "task_id", required=False))
        return {"done": done, "message": message}


def _add_looking_tools(server: MCPServer, robot: Robot) -> None:
    @server.tool(annotations=READ_ONLY)
    async def task_status(task_id: TASK_ID = "") -> dict[str, Any]:
        """The latest status of a task (task_status: planning, asking, planned, executing,
        succeeded, failed, canceled or refused, with its step, action, outcome, message and, while
        it asks, its question and options), or of every task seen since this server started."""
        return {"tasks": await _call(robot.status, task_id)}

    @server.tool(annotations=READ_ONLY)
    async def task_record(task_id: TASK_ID = "") -> dict[str, Any]:
        """What the executor kept of an executed task (task_record): the directive, the planner,
        the goal, the final state and message, and each step with its action, outcome, what the
        robot observed and the language-model requests of its decision."""
        record = await _call(robot.record, task_id)
        steps = [{"step": s.step, "action": s.action, "outcome": "ok" if s.success else f"failed: {s.reason}",
                  "observation": s.observation, "decision_llm_requests": s.decision_llm_requests}
                 for s in record.steps]
        return {"task_id": record.task_id, "directive": record.directive, "planner": record.planner,
                "goal": record.goal, "world": record.world, "state": record.state, "message": record.message,
                "steps": steps}

    @server.tool(annotations=READ_ONLY, structured_output=False)
    async def snapshot(task_id: TASK_ID = "") -> list[str | Image]:
        """A labelled top-down picture (PNG) of the apartment after an executed task's last step:
        rooms, furniture, the goal's objects highlighted, the robot and the path it drove. Needs a
        task the executor has recorded (execute one first)."""
        png, record = await _call(robot.snapshot_png, task_id)
        return [f"task {record.task_id} ({record.state}): {record.directive}", Image(data=png, format="png")]

    @server.tool(annotations=READ_ONLY)
    async def describe_world() -> dict[str, Any]:
        """The apartment the robot works in: its rooms, the furniture in each (with `inside` for
        containers and `on` for surfaces) and the object types with how many there are. Use these
        names in directives. It does not say where objects are: the robot finds them."""
        domain, world = await _call(robot.world)
        return await _call(names_of_world, domain, world)


def _add_world(server: MCPServer, robot: Robot) -> None:
    @server.resource("llm-planner://world", name="world", mime_type="application/yaml",
                     description="the YAML file of the apartment (scene) or G-TAMP problem the graph runs")
    async def world_yaml() -> str:
        domain, world = await _call(robot.world)
        return world_file(domain, world).read_text()

    @server.prompt(name="directive", description="how to phrase a directive this robot reads")
    async def directive(wish: Annotated[str, Field(description="what the person wants done")]) -> str:
        domain, world = await _call(robot.world)
        names = await _call(names_of_world, domain, world)
        return DIRECTIVE_PROMPT.format(wish=wish, rooms=names["rooms"], objects=names["objects"])


DIRECTIVE_PROMPT = """\
Turn this wish into directives for the household robot: {wish}

Write one directive per task, as "put <count> <object> <inside|on> the <place>", e.g. "put one apple
inside the fridge" or "put two plates on the kitchen table". Use a whole number (one, two, ...), an
object type and a place from this apartment; "inside" for containers, "on" for surfaces.
Rooms and their furniture: {rooms}
Object types and counts: {objects}
The robot refuses counts that are not whole positive numbers, negations ("don't ...", "except"),
objects or places the apartment does not have, and anything that is not a placing task. It asks
back when one answer settles a directive ("which table?"): ask the person, then call answer_task.
Execute with execute_directive; plan_task only previews.
"""


async def _follow(robot: Robot, ctx: Context) -> dict[str, Any]:
    """Follow the running goal: a progress notification per feedback, the question asked through
    elicitation (when the client offers it and ``elicit`` is set), and the result; state
    ``asking`` (with the question) when the person must answer through answer_task, state
    ``executing`` after ``task_wait_s``."""
    settings = robot.settings
    deadline, sent, asked = time.monotonic() + settings.task_wait_s, 0, 0
    while True:
        events, done = await _call(robot.poll)
        if done:
            result, late = await _call(robot.result)
            sent = await _progress(ctx, events + late, sent)
            return result
        sent = await _progress(ctx, events, sent)
        asked_now = sent if any(e.state == ASKING for e in events) else asked
        question = await _call(robot.question)
        if question is not None and asked_now != asked:
            asked = asked_now
            text = await _elicit(ctx, question, settings.elicit_wait_s) if settings.elicit else None
            if text is not None:
                await _call(robot.answer, text, question.task_id)
                continue
            return {"state": ASKING, **to_json(question), "message": "the robot waits for the person's answer: call "
                    "answer_task with it (the task ends refused after the graph's clarify_timeout_s)"}
        if time.monotonic() > deadline:
            latest = await _call(robot.latest)
            return {"state": latest.state if latest else EXECUTING, "task_id": latest.task_id if latest else "",
                    "message": f"still running after {settings.task_wait_s:g} s: follow it with task_status, "
                               "stop it with cancel_task"}


async def _progress(ctx: Context, events: list[Feedback], sent: int) -> int:
    """One progress notification per feedback message; returns how many were sent in all."""
    for fields in events:
        sent += 1
        await ctx.report_progress(sent, None, _describe_feedback(fields))
    return sent


def _describe_feedback(fields: Feedback) -> str:
    if fields.state == PLANNING:
        return f"[{fields.task_id}] planning ({fields.llm_requests} LLM request(s) so far)"
    if fields.state == ASKING:
        return f"[{fields.task_id}] asking: {fields.question} (answers: {' | '.join(fields.options)})"
    text = f"[{fields.task_id}] step {fields.step}: {fields.action} -> {fields.outcome}"
    return text + (f"; observed: {fields.observation}" if fields.observation else "")


async def _elicit(ctx: Context, question: TaskQuestion, wait_s: float) -> str | None:
    """Put the task's question to the person through the client's elicitation: the answer, or None
    when the client offers no elicitation, the person declined, or ``wait_s`` passed."""
    capabilities = ctx.client_capabilities
    if capabilities is None or capabilities.elicitation is None:
        return None
    options = " | ".join(question.options)
    with anyio.move_on_after(wait_s):
        try:
            reply = await ctx.elicit(f"The robot asks: {question.question}" + (f" ({options})" if options else ""),
                                     Answer)
        except (MCPError, ValueError):
            return None
        return reply.data.answer if reply.action == "accept" else None
    return None
