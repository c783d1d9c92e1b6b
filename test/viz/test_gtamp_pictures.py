"""G-TAMP pictures: the occluders the geometric predicates name are drawn in red, the goal's object
highlighted; the problem check names the culprit of each fault; a recorded STaLM episode."""
from __future__ import annotations

import copy

import pytest
import yaml

from llm_planner.cli import main
from llm_planner.domains.gtamp.problems import check_problem_file, gtamp_dir, load_problem
from llm_planner.viz.gtamp import problem_view
from llm_planner.viz.topdown import GOAL_COLOR, PROBLEM_COLOR, save_png
from test.viz.conftest import colour_near, read_rgb


def test_occluders_of_the_goal_object_are_drawn_in_red(tmp_path):
    from llm_planner.domains.gtamp.operators import GTampModel
    from llm_planner.domains.gtamp.predicates import PredicateComputer

    problem = load_problem("P2")
    model = GTampModel(problem)
    try:
        literals = PredicateComputer(model).literals(problem.initial)
    finally:
        model.world.close()
    assert {occ for obj, occ in literals.pick_occluded if obj == "salter"} == {"bottle2", "bottle3"}
    view = problem_view(problem, literals=literals)
    picture = save_png(view, tmp_path / "p2.png")
    image = read_rgb(picture.path)
    poses = dict(zip(problem.object_names, problem.initial.poses))
    for name in ("bottle2", "bottle3"):
        p = poses[name]
        edge = picture.pixel(p.x + problem.objects[problem.obj_index(name)].shape.radius, p.y)
        assert colour_near(image, edge, PROBLEM_COLOR, radius=2), name
    salter = poses["salter"]
    assert colour_near(image, picture.pixel(salter.x + 0.03, salter.y), GOAL_COLOR, radius=2)
    assert any("bottle2 blocks pick salter" in n for n in view.notes)


def test_snapshot_of_a_problem(tmp_path, capsys):
    out = tmp_path / "p2.png"
    assert main(["snapshot", "--problem", "P2", "--out", str(out)]) == 0
    assert "occluders" in capsys.readouterr().out and read_rgb(out).shape[1] >= 1200


@pytest.mark.parametrize("name", ["P1", "P2", "P3", "P4", "P5", "P6"])
def test_shipped_problems_pass_the_check(name):
    report = check_problem_file(gtamp_dir() / f"{name}.yaml")
    assert report.problem is not None and report.errors == []


def _problem(tmp_path, mutate):
    data = yaml.safe_load((gtamp_dir() / "P2.yaml").read_text())
    data = copy.deepcopy(data)
    mutate(data)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.parametrize("mutate, expected", [
    (lambda d: d["goal"].append(["teapot", "on", "table1"]), "unknown object 'teapot' in goal"),
    (lambda d: d["goal"].append(["salter", "on", "garage"]), "'on' needs a region, got 'garage'"),
    (lambda d: d["objects"]["salter"].update(on="pantry"), "objects.salter: unknown region 'pantry'"),
    (lambda d: d["objects"]["salter"].update(shape="sphere"), "objects.salter: shape must be one of"),
    (lambda d: d["objects"]["bottle2"].update(at=d["objects"]["bottle3"]["at"]), "objects.bottle2: at ["),
    (lambda d: d.update(robot={"pose": [2.6, 2.2, 90]}), "robot: its start [2.60, 2.20] overlaps regions.counter2"),
    (lambda d: d["objects"]["salter"].update(colour=[1, 1, 1, 1]), "objects.salter: unknown key 'colour'"),
])
def test_problem_faults_name_the_culprit(tmp_path, mutate, expected):
    report = check_problem_file(_problem(tmp_path, mutate))
    assert any(expected in e for e in report.errors), report.errors


def test_scene_check_command_on_problems(tmp_path, capsys):
    assert main(["scene", "check", "P2", "--out", str(tmp_path / "p2.png")]) == 0
    assert "G-TAMP problem P2" in capsys.readouterr().out
    bad = _problem(tmp_path, lambda d: d.update(robot={"pose": [2.6, 2.2, 90]}))
    assert main(["scene", "check", str(bad), "--out", str(tmp_path / "bad.png")]) == 1
    out = capsys.readouterr().out
    assert "error: robot: its start [2.60, 2.20] overlaps regions.counter2" in out
    assert (tmp_path / "bad.png").is_file()


def test_loading_a_faulty_problem_refuses_it_with_the_checks_message(tmp_path):
    from llm_planner.errors import SceneError

    bad = _problem(tmp_path, lambda d: d.update(robot={"pose": [2.6, 2.2, 90]}))
    with pytest.raises(SceneError, match=r"mine\.yaml: robot: its start \[2\.60, 2\.20\] overlaps regions\.counter2"):
        load_problem(str(bad))


def test_markers_of_a_problem_match_its_layout_and_the_simulators_geometry():
    from llm_planner.domains.gtamp.sim import GTampSimulator
    from llm_planner.viz.markers import CUBE, DOOR_CLOSED_RGBA, markers_from_problem, yaw_of_marker

    problem = load_problem("P2")
    sim = GTampSimulator(problem)
    try:
        geometry = sim.geometry()
    finally:
        sim.close()
    markers = markers_from_problem(problem, geometry)
    regions = {m.text: m for m in markers if m.ns == "furniture_names"}
    assert set(regions) == {r.name for r in problem.layout.regions}
    for cube, region in zip((m for m in markers if m.ns == "furniture"), problem.layout.regions):
        assert cube.type == CUBE and cube.scale == (region.depth, region.width, region.height)
        assert cube.position[:2] == pytest.approx(region.center) and yaw_of_marker(cube) == pytest.approx(region.heading)
    assert len([m for m in markers if m.ns == "walls"]) == len(problem.layout.walls)
    doors = [m.text for m in markers if m.ns == "door_names"]
    closed = [d.name for d, is_open in zip(problem.layout.doors, problem.initial.doors_open) if not is_open]
    assert doors == [f"{d.name} ({'closed' if d.name in closed else 'open'})" for d in problem.layout.doors]
    assert [m.color == DOOR_CLOSED_RGBA for m in markers if m.ns == "doors"] == [
        d.name in closed for d in problem.layout.doors]
    objects = {m.text: m for m in markers if m.ns == "object_names"}
    assert set(objects) == set(problem.object_names)
    for name, pose in zip(problem.object_names, problem.initial.poses):
        assert objects[name].position[:2] == pytest.approx((pose.x, pose.y), abs=0.01)
    assert len({(m.ns, m.id) for m in markers}) == len(markers)
