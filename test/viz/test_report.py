"""The report of an executed task (llm_planner.viz.report), from a record as the executor keeps it:
the pictures show the robot's start and end and the path it drove, report.md the steps with the
LLM requests and belief of each decision."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_planner.errors import LlmPlannerError
from llm_planner.planners.base import ObjectBelief
from llm_planner.viz.report import RecordedStep, TaskRecord, recorder_of, report_markdown, write_report
from llm_planner.viz.topdown import PATH_COLOR, ROBOT_COLOR, START_COLOR, crop, save_png
from llm_planner.domains.household.world.symbolic import Action
from test.viz.conftest import colour_near, read_rgb

BELIEF = (ObjectBelief("cutlery_fork_1", (("kitchen_cabinet", 0.71), ("dishwasher", 0.28))),)


def _record(start, steps) -> TaskRecord:
    return TaskRecord("abc123", "put one fork inside the dishwasher", "llm_mcts",
                      [["inside", "cutlery_fork", "dishwasher", 1]], "household", "apartment_seen", "failed",
                      "canceled after 2 step(s)", start, tuple(steps))


def test_the_report_draws_the_recorded_worlds_and_tables_the_steps(seen_sim, tmp_path):
    seen_sim.reset(seen_sim.scene.sample_placement(0), seed=0)
    start = seen_sim.geometry()
    steps = []
    try:
        for k, (verb, args) in enumerate((("walk", ("kitchen",)), ("grab", ("cutlery_fork_1",))), 1):
            outcome = seen_sim.execute(Action(verb, args))
            steps.append(RecordedStep(k, f"{verb}({', '.join(args)})", outcome.success, outcome.reason, "in kitchen",
                                      11 * k, 11, BELIEF, tuple(seen_sim.last_path), seen_sim.geometry()))
    finally:
        seen_sim.reset(seen_sim.scene.sample_placement(0), seed=0)  # the session's apartment, as it was
    assert steps[0].success and not steps[1].success  # the fork is in a closed cabinet, far away
    record = _record(start, steps)
    written = write_report(record, tmp_path, gif=False)
    assert sorted(p.name for p in written.values()) == ["after.png", "before.png", "report.md", "strip.png"]
    recorder = recorder_of(record)
    extent = recorder.report_extent()  # after.png shows the rooms the episode used
    picture = save_png(crop(recorder.after_view(), extent), tmp_path / "again.png")
    image = read_rgb(written["after"])
    s, e = start.robot_position, steps[0].geometry.robot_position
    assert colour_near(image, picture.pixel(s[0], s[1]), START_COLOR)
    assert colour_near(image, picture.pixel(e[0], e[1]), ROBOT_COLOR)
    middle = steps[0].path[len(steps[0].path) // 2]
    assert colour_near(image, picture.pixel(*middle), PATH_COLOR, radius=4)
    view = crop(recorder.after_view(), extent)  # the goal's destination is named: its text is drawn there
    bare = dataclasses.replace(view, furniture=[dataclasses.replace(p, label=None) for p in view.furniture])
    dishwasher = next(p for p in view.furniture if p.name == "dishwasher")
    assert dishwasher.style == "goal" and dishwasher.label.startswith("dishwasher")
    col, row = picture.pixel(dishwasher.rect.cx, dishwasher.rect.cy)
    box = (slice(row - 8, row + 8), slice(col - 40, col + 40))
    assert (np.abs(image[box] - read_rgb(save_png(bare, tmp_path / "bare.png").path)[box]).max(axis=2) > 60).sum() > 40
    report = written["report"].read_text()
    assert "| 1 | `walk(kitchen)` | ok | 11 (11) | cutlery_fork_1: kitchen_cabinet 0.71, dishwasher 0.28 |" in report
    assert f"| 2 | `grab(cutlery_fork_1)` | failed: {steps[1].reason} | 11 (22) |" in report
    assert "**failed**. canceled after 2 step(s)" in report and "![execution strip](strip.png)" in report


def test_a_record_without_geometry_is_refused_with_the_reason(seen_sim):
    from llm_planner.domains.geometry import GeometrySnapshot

    empty = GeometrySnapshot("", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0), None)
    with pytest.raises(LlmPlannerError, match="received no geometry on sim/geometry"):
        recorder_of(_record(empty, ()))
    text = report_markdown(_record(empty, ()), {"before": "b.png", "after": "a.png", "strip": "s.png"})
    assert "| - | no step was executed | | | |" in text
