"""The report of an executed task: labelled before/after pictures, the execution strip (PNG and
GIF) and ``report.md``, a table of the steps with the LLM requests of each decision and where the
planner believed the goal's objects were after each observation.

A :class:`TaskRecord` is plain data: what the executor node keeps of a task (``task_record``
service; :func:`llm_planner_ros.conversions.task_record_from_msg`) or what a closed loop in this
process recorded. :func:`write_report` draws it with the recorders of :mod:`llm_planner.viz.recorder`
(household apartments and G-TAMP problems alike) and writes the report::

    record = client.task_record(task_id)            # from a running graph
    files = write_report(record, "runs/report")     # before.png after.png strip.png strip.gif report.md
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llm_planner.domains.geometry import GeometrySnapshot
from llm_planner.domains.gtamp.perception import GeometryPerceiver, load_gtamp_problem
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.shapes import Point
from llm_planner.errors import LlmPlannerError
from llm_planner.planners.base import ObjectBelief, describe_beliefs


@dataclass(frozen=True)
class RecordedStep:
    """One executed step: the action, its outcome, the decision's cost and belief, the world after it."""

    step: int
    action: str
    success: bool
    reason: str
    observation: str
    llm_requests: int            # the planner's LLM requests so far
    decision_llm_requests: int   # of this step's decision
    belief: tuple[ObjectBelief, ...]
    path: tuple[Point, ...]      # the base path the skill drove
    geometry: GeometrySnapshot   # the world after the step


@dataclass(frozen=True)
class TaskRecord:
    task_id: str
    directive: str
    planner: str
    goal: list                   # the goal as JSON lists
    domain: str                  # household | gtamp
    world: str                   # scene (household) or problem (gtamp): a name or a YAML path
    state: str                   # executing | succeeded | failed | canceled
    message: str
    start: GeometrySnapshot      # the world before the first step
    steps: tuple[RecordedStep, ...] = field(default_factory=tuple)


def recorder_of(record: TaskRecord) -> Any:
    """A recorder (:mod:`llm_planner.viz.recorder`) holding the record's worlds: the start and the
    world after every step, with the paths driven. A step whose geometry did not reach the executor
    shows the world before it; LlmPlannerError when the record holds no geometry at all."""
    if not record.start.bodies:
        raise LlmPlannerError(f"task {record.task_id} has no pictures: the executor received no geometry on "
                              "sim/geometry when it started (is the simulator node running?)")
    title = f"{record.directive} ({record.planner})"
    if record.domain == "gtamp":
        recorder, world_of = _gtamp_recorder(record, title)
    else:
        from llm_planner.viz.recorder import HouseholdRecorder  # noqa: PLC0415 - heavy optional: recorder loads pybullet at import

        recorder = HouseholdRecorder(load_scene(record.world), lambda: record.start, record.goal, title=title)
        world_of = _same  # the household recorder draws geometry
    recorder.start()
    latest = record.start
    for s in record.steps:
        latest = s.geometry if s.geometry.bodies else latest
        recorder.add(s.step, s.action, s.success, s.reason, world=world_of(latest), path=list(s.path))
    return recorder


def _gtamp_recorder(record: TaskRecord, title: str) -> tuple[Any, Any]:
    """A G-TAMP recorder, and perception's state of a geometry (the pictures draw states)."""
    from llm_planner.viz.recorder import GTampRecorder  # noqa: PLC0415 - heavy optional: recorder loads pybullet at import

    problem = load_gtamp_problem(record.world)
    perceiver = GeometryPerceiver(problem)
    states = {}

    def state_of(geometry: GeometrySnapshot) -> Any:
        if id(geometry) not in states:
            states[id(geometry)] = perceiver.state(geometry)
        return states[id(geometry)]

    try:
        for geometry in (record.start, *(s.geometry for s in record.steps if s.geometry.bodies)):
            state_of(geometry)
    finally:
        perceiver.close()
    return GTampRecorder(problem, lambda: states[id(record.start)], title=title), state_of


def write_report(record: TaskRecord, directory: str | Path, gif: bool = True) -> dict[str, Path]:
    """before.png, after.png, strip.png (strip.gif) and report.md in ``directory``."""
    directory = Path(directory)
    written = recorder_of(record).write(directory, gif=gif)
    written["report"] = directory / "report.md"
    written["report"].write_text(report_markdown(record, {k: p.name for k, p in written.items()}))
    return written


def report_markdown(record: TaskRecord, pictures: dict[str, str]) -> str:
    """The report: the task, its result, the pictures and a table of the steps."""
    goal = "; ".join(" ".join(str(x) for x in item) for item in record.goal) if record.goal else "-"
    lines = [f"# {record.directive}", "",
             f"Task `{record.task_id}` with planner `{record.planner}` on `{record.world}`: **{record.state}**. "
             f"{record.message}", "", f"Goal: {goal}", "",
             f"![before]({pictures['before']}) ![after]({pictures['after']})", "", "## Steps", "",
             "| step | action | outcome | LLM requests: decision (total) | belief after the observation: "
             "the goal's objects, most likely places |",
             "| ---: | --- | --- | ---: | --- |"]
    for s in record.steps:
        outcome = "ok" if s.success else f"failed: {s.reason}"
        lines.append(f"| {s.step} | `{s.action}` | {_cell(outcome)} | {s.decision_llm_requests} ({s.llm_requests}) | "
                     f"{_cell(describe_beliefs(s.belief)) or '-'} |")
    if not record.steps:
        lines.append("| - | no step was executed | | | |")
    lines += ["", f"![execution strip]({pictures['strip']})", ""]
    return "\n".join(lines)


def _same(world: Any) -> Any:
    return world


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
