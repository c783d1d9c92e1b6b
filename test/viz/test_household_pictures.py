"""Labelled household pictures, read back as images: the robot's start and end, the path it drove,
the goal highlighted, the names drawn; the execution strip and its GIF; the recorder as the
closed loop's callback."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_planner.viz.topdown import (GOAL_COLOR, PATH_COLOR, PROBLEM_COLOR, ROBOT_COLOR, START_COLOR, crop,
                                     render_rgb, save_png)
from test.viz.conftest import colour_near, read_rgb


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    """A comp task run by l_policy in PyBullet through the closed loop, recorded step by step."""
    from llm_planner.domains.household.sim.world import PyBulletWorld
    from llm_planner.adapters.household import HouseholdDomain
    from llm_planner.execution import run_episode
    from llm_planner.domains.household.world.episode import Task
    from llm_planner.planners.base import create
    from llm_planner.viz.recorder import HouseholdRecorder
    from llm_planner.domains.household.world.scene import load_scene
    from llm_planner.domains.household.world.symbolic import Household
    from llm_planner.domains.household.world.tasks import generate_tasks

    household = Household(load_scene("apartment_seen"))
    task = generate_tasks(household.scene, "comp", 1, 0)[0]
    world = PyBulletWorld(household, task.placement_seed)
    try:
        recorder = HouseholdRecorder.for_sim(world.sim, goal=task.goal, title=task.instruction)
        recorder.start()
        result = run_episode(HouseholdDomain, create("l_policy", seed=0),
                             Task(task.instruction, task.goal, household, 30), world,
                             on_step=recorder.on_step)
        layouts = dict(world.sim.layouts)
    finally:
        world.close()
    assert result.success, result.message
    out = tmp_path_factory.mktemp("report")
    return task, result, recorder, recorder.write(out), layouts


def test_after_picture_shows_start_end_path_and_goal(episode):
    task, result, recorder, written, layouts = episode
    view = crop(recorder.after_view(), recorder.report_extent())  # what after.png shows
    picture = save_png(view, written["after"].with_name("again.png"))
    image = read_rgb(written["after"])
    assert image.shape[:2] == (picture.height, picture.width)
    start, end = recorder.steps[0].world.robot_position, recorder.steps[-1].world.robot_position
    assert colour_near(image, picture.pixel(start[0], start[1]), START_COLOR)
    assert colour_near(image, picture.pixel(end[0], end[1]), ROBOT_COLOR)
    walk = next(s for s in recorder.steps if s.action.startswith("walk") and len(s.path) > 4)
    mid = walk.path[len(walk.path) // 2]
    assert colour_near(image, picture.pixel(*mid), PATH_COLOR, radius=4)
    destination = layouts[task.goal[0].destination].footprint
    edge = (destination.cx + destination.hx * np.cos(destination.yaw), destination.cy + destination.hx * np.sin(destination.yaw))
    assert colour_near(image, picture.pixel(*edge), GOAL_COLOR, radius=5)
    moved = [p.name for p in view.ghosts]
    assert moved and all(p.label for p in view.objects if p.name in moved)  # what moved is named


def test_names_are_drawn_where_the_labels_are(episode):
    _, _, recorder, _, _ = episode
    view = recorder.before_view()
    rgb, (scale, offset) = render_rgb(view)
    bare = dataclasses.replace(view, furniture=[dataclasses.replace(p, label=None) for p in view.furniture])
    rgb_bare, _ = render_rgb(bare)
    fridge = next(p for p in view.furniture if p.name == "fridge").rect
    col = int(round(scale[0] * fridge.cx + offset[0]))
    row = rgb.shape[0] - int(round(scale[1] * fridge.cy + offset[1]))
    box = (slice(row - 8, row + 8), slice(col - 30, col + 30))
    changed = (np.abs(rgb[box].astype(int) - rgb_bare[box].astype(int)).max(axis=2) > 60).sum()
    assert changed > 40  # the letters of "fridge" are there, and only with the label


def test_strip_has_a_frame_per_step_and_a_red_caption_for_a_failure(episode, tmp_path):
    from llm_planner.viz.strip import COLUMNS, FRAME_INCHES, write_gif
    from llm_planner.viz.topdown import DPI

    _, result, recorder, written, _ = episode
    frames = recorder.frames()
    assert len(frames) == len(result.steps) + 1 and frames[1].caption == f"1. {result.steps[0].action}"
    image = read_rgb(written["strip"])
    assert image.shape[1] == int(round(min(COLUMNS, len(frames)) * FRAME_INCHES * DPI))
    from PIL import Image

    assert Image.open(written["gif"]).n_frames == len(frames)
    recorder.add(len(frames), "grab(apple_1)", False, "not close to apple_1", world=recorder.steps[-1].world)
    path = tmp_path / "strip.png"
    from llm_planner.viz.strip import write_strip

    write_strip(recorder.frames(), path)
    strip = read_rgb(path)
    red = (np.abs(strip - np.array(PROBLEM_COLOR) * 255).max(axis=2) < 40)
    assert red[int(strip.shape[0] * 0.5):].any()  # the failed step's caption, in the last row
    assert write_gif(recorder.frames()[:2], tmp_path / "two.gif").stat().st_size > 0
    recorder.steps.pop()


def test_snapshot_command_writes_a_labelled_plan(tmp_path, capsys):
    from llm_planner.cli import main

    out = tmp_path / "plan.png"
    assert main(["snapshot", "--scene", "apartment_seen", "--seed", "1", "--out", str(out)]) == 0
    assert "plan view" in capsys.readouterr().out and read_rgb(out).shape[1] >= 1000


def test_markers_match_the_simulators_geometry(seen_sim):
    from llm_planner.viz.markers import CONTAINER_CLOSED_RGBA, CONTAINER_OPEN_RGBA, CUBE, TEXT_VIEW_FACING, \
        markers_from_geometry, yaw_of_marker

    scene = seen_sim.scene
    seen_sim.reset(scene.sample_placement(0), seed=0)
    seen_sim.host.set_door("fridge", seen_sim.layouts["fridge"].door.travel)
    try:
        geometry = seen_sim.geometry()
        markers = markers_from_geometry(geometry, scene)
    finally:
        seen_sim.host.set_door("fridge", 0.0)
    cubes = {m.id: m for m in markers if m.ns == "furniture"}
    names = [m for m in markers if m.ns == "furniture_names"]
    assert len(cubes) == len(names) == len(scene.furniture)
    for marker, label in zip(cubes.values(), names):
        name = label.text.split(" (")[0]
        f = scene.furniture[name]
        assert marker.type == CUBE and marker.scale == f.size
        assert marker.position[:2] == pytest.approx(f.position)
        assert abs(np.sin(yaw_of_marker(marker) - f.yaw)) < 1e-6
        if f.kind == "container":
            assert marker.color == (CONTAINER_OPEN_RGBA if name == "fridge" else CONTAINER_CLOSED_RGBA)
    object_names = {m.text for m in markers if m.ns == "object_names" and m.type == TEXT_VIEW_FACING}
    assert object_names == set(scene.object_names)
    arrow = next(m for m in markers if m.ns == "robot" and m.type == "ARROW")
    assert yaw_of_marker(arrow) == pytest.approx(geometry.robot_yaw)
    assert len({(m.ns, m.id) for m in markers}) == len(markers)  # ids are unique per namespace


# ------------------------------------------------------------------ pictures of a 40 m flat
def test_a_long_flat_is_cropped_to_the_rooms_used_and_names_do_not_overlap():
    """A plan of config/scenes/examples/long_flat.yaml (40 x 7 m) keeps one inch per metre, and a
    view of an episode that stayed in the lounge is cropped to the lounge; the names drawn overlap
    no other name (read back from the label boxes matplotlib drew)."""
    from llm_planner.domains.household.world.scene import load_scene
    from llm_planner.paths import config_dir
    from llm_planner.viz.household import base_view
    from llm_planner.viz.topdown import Piece, draw, new_figure, plan_axes, used_extent

    scene = load_scene(config_dir() / "scenes/examples/long_flat.yaml")
    view = base_view(scene)
    width, height = view.figure_size()
    assert width >= 38  # 40 m at about an inch (100 pixels) per metre, not squeezed into 16 inches
    fig = new_figure(width, height)
    ax = plan_axes(fig, view)
    draw(ax, view)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    names = {p.label for p in view.furniture}
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text() in names]
    assert len(boxes) == len(scene.furniture)
    overlaps = [(a, b) for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b)]
    assert not overlaps
    lounge = scene.rooms["lounge"].rect
    couch = next(p for p in view.furniture if p.name == "couch")
    episode = dataclasses.replace(view, robot_start=(9.0, 3.5), path=[(9.0, 3.5), (11.8, 5.5)],
                                  furniture=[dataclasses.replace(couch, style="goal")])
    xmin, ymin, xmax, ymax = used_extent([episode])
    assert xmin == pytest.approx(lounge[0] - 0.3) and xmax == pytest.approx(lounge[2] + 0.3)
    assert isinstance(couch, Piece)


def test_a_switched_on_thing_is_named_on_not_open(seen_sim):
    """A power reading is no door: a microwave that is on and closed is labelled (on), drawn closed
    in RViz, and a TV that is on names itself at its stand; a state goal reads as the thing's state."""
    from llm_planner.domains.household.world.symbolic import GoalItem
    from llm_planner.viz.household import snapshot_view
    from llm_planner.viz.markers import CONTAINER_CLOSED_RGBA, markers_from_geometry

    scene = seen_sim.scene
    seen_sim.reset(scene.sample_placement(0), seed=0, switched_on=("microwave", "tv"))
    try:
        geometry = seen_sim.geometry()
    finally:
        seen_sim.reset(scene.sample_placement(0), seed=0)
    view = snapshot_view(scene, geometry, goal=[GoalItem("off", "tv", "", 1)])
    labels = {p.name: p.label for p in view.furniture}
    assert labels["microwave"].endswith("(on)") and labels["tv_stand"].endswith("(tv on)")
    assert "(" not in labels["fridge"] and "(" not in labels["stove"]
    assert "goal: tv off" in view.notes
    markers = markers_from_geometry(geometry, scene)
    microwave = next(m for m in markers if m.ns == "furniture" and m.id == list(scene.furniture).index("microwave"))
    assert microwave.color == CONTAINER_CLOSED_RGBA
