"""Random apartments ("any home, not just ours"): the generator's layouts pass the scene
check the simulator runs, their own task suites exist, a benchmark episode runs on them, and no
household planner moves an object its goal does not name."""
from __future__ import annotations

import json
import time

import pytest
import yaml

from llm_planner.domains.household.sim.check import check_layout
from llm_planner.domains.household.sim.world import check_in_pybullet
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.world.random_scene import load_vocabulary, random_scene, write_random_scene
from llm_planner.domains.household.world.scene import load_scene, parse_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.domains.household.world.tasks import generate_tasks, suite_pools, task_config_for
from llm_planner.errors import ConfigError
from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import run_episode
from llm_planner.planners.base import create

SEEDS = (0, 1, 2)  # a few apartments: the whole module stays well under a minute


@pytest.fixture(autouse=True)
def _isolated_llm_cache(tmp_path_factory, monkeypatch):
    """Priors and embeddings of the random apartments go to a temporary directory, not ~/.cache
    (the one the LLM-MCTS tests use, so a session builds the sentence embeddings once)."""
    monkeypatch.setenv("LLM_PLANNER_CACHE", str(tmp_path_factory.getbasetemp() / "llm_mcts_cache"))


@pytest.fixture(scope="module")
def apartments():
    return {seed: parse_scene(random_scene(seed, rooms=3 + seed % 2, object_types=12)) for seed in SEEDS}


def test_same_seed_same_apartment_other_seed_other_names():
    assert random_scene(5) == random_scene(5)
    a, b = random_scene(5), random_scene(6)
    assert a["furniture"] != b["furniture"] and set(a["objects"]) != set(b["objects"])
    vocab = load_vocabulary()
    words = {w for f in vocab.furniture.values() for w in f.names}
    for data in (a, b):  # every name comes from the vocabulary, numbered or named by its room when repeated
        for name, spec in data["furniture"].items():
            assert any(name == w or name.startswith(f"{w}_") or name == f"{spec['room']}_{w}"
                       or name.startswith(f"{spec['room']}_{w}_") for w in words), name
    with pytest.raises(ConfigError, match="at least 2 rooms"):
        random_scene(0, rooms=1)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_apartments_pass_the_scene_check(apartments, seed):
    scene = apartments[seed]
    cfg = load_sim_config()
    check = check_layout(scene, cfg)
    assert not check.errors, [str(e) for e in check.errors]
    assert not check_in_pybullet(scene, (0,), cfg)  # built in PyBullet with every object placed
    assert len(scene.rooms) == 3 + seed % 2 and len(scene.object_types) == 12
    # suites from the apartment's own file: seen pairs are its places, novel ones plausible others
    config = task_config_for(scene)
    assert config.train_pairs == {(t.name, p) for t in scene.object_types.values() for p, _ in t.places}
    assert config.novel_pairs and not config.novel_pairs & config.train_pairs
    for obj_type, dest in config.novel_pairs:
        rooms = {scene.furniture[p].room for p, _ in scene.object_types[obj_type].places}
        assert scene.furniture[dest].room in rooms
    pools = suite_pools(Household(scene), config)
    assert pools.train_comps and pools.novel_comps


def test_suites_of_a_scene_are_reproducible_and_a_tasks_file_overrides_them(apartments):
    scene = apartments[0]
    assert generate_tasks(scene, "novel_comp2", 5, 3) == generate_tasks(scene, "novel_comp2", 5, 3)
    own = {p for t in generate_tasks(scene, "simple", 40, 0) for p in [(g.obj_type, g.destination) for g in t.goal]}
    assert own <= task_config_for(scene).train_pairs and len(own) > 5
    with pytest.raises(ConfigError, match="too few usable task pairs in config/household_tasks.yaml"):
        generate_tasks(scene, "simple", 1, 0, "config/household_tasks.yaml")  # none of the shipped pairs


@pytest.mark.parametrize("seed", SEEDS)
def test_no_planner_moves_what_the_goal_does_not_name(apartments, seed):
    scene = apartments[seed]
    household = Household(scene)
    runs = {"simple": ("llm_mcts", "l_policy", "uniform_prior"), "comp": ("llm_mcts", "classical")}
    for suite, planners in runs.items():
        task = generate_tasks(scene, suite, 1, seed)[0]
        types = {g.obj_type for g in task.goal}
        others = [i for i, o in enumerate(household.objects) if household.object_type[o] not in types]
        for name in planners:
            start = household.sample_initial_state(task.placement_seed)
            world = SymbolicWorld(household, start)
            planner = create(name, backend="offline", seed=seed) if name != "classical" else create(name)
            result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, household, 30), world)
            assert result.steps, (name, result.message)
            assert result.unrelated_moves == 0, (name, result.plan)
            assert [world.state.placement[i] for i in others] == [start.placement[i] for i in others], name
            assert not any(s.action.verb == "grab" and household.object_type[s.action.args[0]] not in types
                           for s in result.steps), (name, result.plan)
            if name == "classical":
                assert result.success, result.message  # full state, Fast Downward: always solvable


def test_a_benchmark_episode_runs_on_a_random_apartment(tmp_path):
    from llm_planner.cli import main

    path = write_random_scene(tmp_path / "home.yaml", 7, rooms=4, object_types=14)
    assert load_scene(path).name == "random_7" and yaml.safe_load(path.read_text())["rooms"]
    out = tmp_path / "bench.json"
    started = time.monotonic()
    code = main(["bench", "household", "--scene", str(path), "--methods", "llm_mcts", "--suites", "simple,comp",
                 "--episodes", "1", "--seeds", "1", "--workers", "1", "--no-progress", "--json", str(out)])
    assert code == 0 and time.monotonic() - started < 60
    data = json.loads(out.read_text())
    assert len(data["episodes"]) == 2
    for episode in data["episodes"]:
        assert not episode.get("error"), episode["message"]
        assert episode["steps"] > 0 and episode["unrelated_moves"] == 0
        assert episode["task_id"].startswith("random_7-")
    assert all("unrelated_moves" in row for row in data["rows"])
