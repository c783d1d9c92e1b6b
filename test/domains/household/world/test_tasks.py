"""Task suites of LLM-MCTS §3.1 / Appendix A.2 (llm_planner/domains/household/world/tasks.py)."""
from __future__ import annotations

import hashlib
import json
import random
import re

import pytest
import yaml

from llm_planner.errors import ConfigError
from llm_planner.domains.household.world import tasks
from llm_planner.domains.household.world.symbolic import GoalItem, Household, state_goal


@pytest.fixture(scope="module")
def config() -> tasks.TaskConfig:
    return tasks.load_task_config()


def test_same_seed_same_tasks_other_seed_other_tasks():
    a = tasks.generate_tasks("apartment_seen", "comp", 30, seed=3)
    b = tasks.generate_tasks("apartment_seen", "comp", 30, seed=3)
    c = tasks.generate_tasks("apartment_seen", "comp", 30, seed=4)
    assert a == b
    assert [t.goal for t in a] != [t.goal for t in c]
    assert len({t.task_id for t in a}) == 30


def test_split_is_fixed_and_novel_pairs_use_seen_items(config):
    assert not config.train_pairs & config.novel_pairs
    train_types = {t for t, _ in config.train_pairs}
    train_dests = {d for _, d in config.train_pairs}
    for obj_type, dest in config.novel_pairs:
        assert obj_type in train_types and dest in train_dests
    pair = (("apple", "fridge"), ("plate", "kitchen_table"))
    assert config.is_training_composition(pair) == config.is_training_composition(pair[::-1])


@pytest.mark.parametrize("suite", tasks.SUITES)
def test_suites_follow_their_definition(household, config, suite):
    generated = tasks.generate_tasks(household.scene, suite, 60, seed=0)
    assert len(generated) == 60
    for task in generated:
        pairs = tasks.goal_pairs(task.goal)
        assert len(pairs) == tasks.SUITE_ITEMS[suite]
        assert len({t for t, _ in pairs}) == len(pairs)
        assert household.check_goal(task.goal) == task.goal
        if suite == "novel_simple":
            assert pairs[0] in config.novel_pairs
        else:
            assert all(p in config.train_pairs for p in pairs)
        if suite == "comp":
            assert config.is_training_composition(pairs)
        if suite == "novel_comp2":
            assert not config.is_training_composition(pairs)
        if suite in ("simple", "novel_simple"):
            assert task.goal[0].count == 1
        state = household.sample_initial_state(task.placement_seed)
        assert tasks.unsatisfied_everywhere(household, state, task.goal), task
        assert task.scene == household.scene.name and task.suite == suite


def test_compositions_ask_for_two_objects_sometimes():
    counts = {item.count for t in tasks.generate_tasks("apartment_seen", "comp", 200, seed=1) for item in t.goal}
    assert counts == {1, 2}


def _reference_parser(household: Household, phrasing: tasks.Phrasing):
    """A strict parser written from the grammar in the tasks module docstring."""
    nouns = {tasks.noun(t, c, phrasing): t for t in household.scene.object_types for c in (1, 2)}
    counts = {w: c for c, words in phrasing.count_words.items() for w in words} | {"an": 1, "the": 1, "one of the": 1}
    rels = {w: rel for rel, words in phrasing.relation_words.items() for w in words}
    rel_alt = "|".join(sorted(map(re.escape, rels), key=len, reverse=True))
    item = re.compile(rf"^(?:(?:{'|'.join(phrasing.verbs)}) )?(one of the|\w+) (.+?) ({rel_alt}) the (.+)$")
    openers = sorted((o for o in phrasing.openers if o), key=len, reverse=True)

    def parse(text: str) -> tuple[GoalItem, ...]:
        for opener in openers:
            if text.startswith(opener):
                text = text[len(opener):]
                break
        text = text.rstrip(".?")
        head, _, last = text.rpartition(" and ")
        clauses = (head.split(", ") if head else []) + [last]
        goal = []
        for clause in clauses:
            count, noun_text, rel, dest = item.match(clause).groups()
            goal.append(GoalItem(rels[rel], nouns[noun_text], dest.replace(" ", "_"), counts[count]))
        return tuple(goal)

    return parse


@pytest.mark.parametrize("suite", ["simple", "novel_comp2", "novel_comp3"])
def test_instructions_follow_the_documented_grammar(household, config, suite):
    parse = _reference_parser(household, config.phrasing)
    for task in tasks.generate_tasks(household.scene, suite, 80, seed=7):
        assert task.instruction == task.instruction.lower()
        assert parse(task.instruction) == task.goal, task.instruction


def test_render_instruction_example(config):
    goal = (GoalItem("inside", "apple", "fridge", 1), GoalItem("on", "plate", "kitchen_table", 2))
    texts = {tasks.render_instruction(goal, random.Random(s), config.phrasing) for s in range(40)}
    assert any("two plates" in t and " and " in t for t in texts)
    assert all(re.search(r"\b(one|an) apple (inside|in|into) the fridge", t) for t in texts)
    assert len(texts) > 10


def test_nouns_counted_in_pairs_and_plural_names_read_as_english(config):
    """No "a scissors", "one headphones" or "one biscuits" (the foreign apartment)."""
    p = config.phrasing
    assert tasks.noun("scissors", 1, p) == "pair of scissors"
    assert tasks.noun("nail_clippers", 2, p) == "pairs of nail clippers"
    assert tasks.noun("frozen_peas", 2, p) == "frozen peas"
    assert tasks.noun("dental_floss", 2, p) == "dental flosses"
    rng = random.Random(0)
    one = [GoalItem("on", "biscuits", "worktop", 1)]
    assert re.search(r"\bthe biscuits on", tasks.render_instruction(one, rng, p, {"biscuits": 1}))
    assert "one of the biscuits" in tasks.render_instruction(one, rng, p, {"biscuits": 3})
    texts = {tasks.render_instruction([GoalItem("on", "headphones", "couch", 1)], random.Random(s), p)
             for s in range(20)}
    assert all(re.search(r"\b(a|one) pair of headphones on", t) for t in texts), texts
    # the words drawn for the other items do not move (same seed, same draws)
    goal = [GoalItem("on", "scissors", "worktop", 1), GoalItem("inside", "apple", "fridge", 2)]
    plain = [GoalItem("on", "plate", "worktop", 1), GoalItem("inside", "apple", "fridge", 2)]
    assert (tasks.render_instruction(goal, random.Random(5), p).split(" and ")[-1]
            == tasks.render_instruction(plain, random.Random(5), p).split(" and ")[-1])


def test_foreign_apartment_instructions_follow_the_grammar(config):
    from llm_planner.paths import config_dir

    scene = tasks.load_scene(str(config_dir() / "scenes" / "examples" / "long_flat.yaml"))
    household = Household(scene)
    parse = _reference_parser(household, config.phrasing)
    said = set()
    for suite in ("simple", "comp"):
        for task in tasks.generate_tasks(scene, suite, 60, seed=1):
            assert parse(task.instruction) == task.goal, task.instruction
            said.add(task.instruction)
    text = " ".join(said)
    assert " pair of " in text
    assert not re.search(r"\b(a|an|one) (scissors|headphones|reading glasses|biscuits|crisps|socks)\b", text)


def test_nouns_plural_rules(config):
    p = config.phrasing
    assert tasks.noun("cutlery_fork", 2, p) == "cutlery forks"
    assert tasks.noun("dish_bowl", 1, p) == "dish bowl"
    assert tasks.noun("wine_glass", 2, p) == "wine glasses"
    assert tasks.noun("cutlery_knife", 2, p) == "cutlery knives"
    assert tasks.noun("glasses", 1, p) == "pair of glasses"
    assert tasks.noun("strawberry", 2, p) == "strawberries"


def test_task_round_trips_through_dict():
    task = tasks.generate_tasks("apartment_seen", "novel_comp3", 1, seed=0)[0]
    assert tasks.HouseholdTask.from_dict(task.to_dict()) == task


def test_bad_requests_and_configs_fail_clearly(tmp_path):
    with pytest.raises(ConfigError, match="unknown task suite 'hard'"):
        tasks.generate_tasks("apartment_seen", "hard", 1, 0)
    data = yaml.safe_load(tasks.TASKS_CONFIG.read_text())
    data["pairs"]["apple"]["novel"] = ["fridge"]
    path = tmp_path / "overlap.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=r"overlap.yaml: pairs: \('apple', 'fridge'\) is listed as both"):
        tasks.load_task_config(path)
    data = yaml.safe_load(tasks.TASKS_CONFIG.read_text())
    data["pairs"]["apple"]["novel"] = ["garage_shelf"]
    path = tmp_path / "unseen_dest.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="pairs.apple.novel: destination 'garage_shelf' appears in no training"):
        tasks.load_task_config(path)


# ----------------------------------------------------------------------------- state suites
#: sha256 (first 16 hex digits) of each placement suite's 8 tasks (to_dict JSON, sorted keys) and the
#: placement of each task's start state, per apartment and seed, as generated before the state
#: suites existed: the placement suites must stay byte-identical
PLACEMENT_FINGERPRINTS = {
    "apartment_seen:simple:0": "a8fbc9895903b038",
    "apartment_seen:simple:1": "39554a2f570c3141",
    "apartment_seen:comp:0": "962d66272a332179",
    "apartment_seen:comp:1": "bb13cdea516c1e72",
    "apartment_seen:novel_simple:0": "25e31ec909033bc2",
    "apartment_seen:novel_simple:1": "169f735516d9e2b9",
    "apartment_seen:novel_comp2:0": "6ea77993b07ab449",
    "apartment_seen:novel_comp2:1": "1bb64fb99101538d",
    "apartment_seen:novel_comp3:0": "bce7cbd60d0464b3",
    "apartment_seen:novel_comp3:1": "80494596bf8c959e",
    "apartment_unseen:simple:0": "e32f8246cd6b4475",
    "apartment_unseen:simple:1": "480b615b3c7d2abe",
    "apartment_unseen:comp:0": "27edfa4aba78863e",
    "apartment_unseen:comp:1": "379633112928ce19",
    "apartment_unseen:novel_simple:0": "e330537941462780",
    "apartment_unseen:novel_simple:1": "c00c06f2b868cdc3",
    "apartment_unseen:novel_comp2:0": "3fc40b503b79c420",
    "apartment_unseen:novel_comp2:1": "6f7cd5671f02a051",
    "apartment_unseen:novel_comp3:0": "30719f7c44a22348",
    "apartment_unseen:novel_comp3:1": "da4b02a4175ab996",
}


def _fingerprint(scene: str, suite: str, seed: int) -> str:
    household = Household(tasks.load_scene(scene))
    digest = hashlib.sha256()
    for task in tasks.generate_tasks(scene, suite, 8, seed):
        digest.update(json.dumps(task.to_dict(), sort_keys=True).encode())
        digest.update(repr(household.sample_initial_state(task.placement_seed).placement).encode())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize("key", sorted(PLACEMENT_FINGERPRINTS))
def test_placement_suites_are_unchanged(key):
    scene, suite, seed = key.split(":")
    assert _fingerprint(scene, suite, int(seed)) == PLACEMENT_FINGERPRINTS[key]


@pytest.mark.parametrize("scene", ["apartment_seen", "apartment_unseen"])
@pytest.mark.parametrize("suite", tasks.STATE_SUITES)
def test_state_suites_are_never_satisfied_at_the_start(scene, suite):
    household = Household(tasks.load_scene(scene))
    generated = tasks.generate_tasks(scene, suite, 40, seed=2)
    assert generated == tasks.generate_tasks(scene, suite, 40, seed=2)
    for task in generated:
        state = household.sample_initial_state(task.placement_seed)
        household.check_goal(task.goal)
        assert not household.satisfied(state, task.goal), task
        states = [g for g in task.goal if g.is_state]
        assert states and len(task.goal) == (2 if suite == "states_mixed" else len(states)) <= 2
        for item in task.goal:  # every item but "close the destination again" needs work
            if not (item.rel == "closed" and any(g.destination == item.obj_type for g in task.goal)):
                assert household.count_satisfied(state, item) < item.count, (task, item)
    assert tasks.SUITES == ("simple", "comp", "novel_simple", "novel_comp2", "novel_comp3")


def test_state_instructions_follow_their_grammar():
    goals = {t.instruction: t.goal for s in tasks.STATE_SUITES
             for t in tasks.generate_tasks("apartment_seen", s, 60, seed=0)}
    clause = re.compile(r"^(?:turn on|switch on|turn off|switch off|open|close|shut) (?:the [a-z ]+|it)$"
                        r"|^(?:put|place|move) .+$")
    for text, goal in goals.items():
        body = re.sub(r"^(?:please |could you |can you )", "", text).rstrip(".?")
        parts = body.split(" and ")
        assert len(parts) == len(goal) and all(clause.match(p) for p in parts), text
        for part, item in zip(parts, goal, strict=True):
            if item.is_state:
                assert part.endswith(" it") or part.endswith(item.obj_type.replace("_", " ")), text
    assert any(t.endswith(("close it", "shut it", "close it.", "shut it.")) for t in goals)
    assert tasks.render_state_instruction((state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1)),
                                          random.Random(0)).split(" and ")[0].endswith("on the tv")


def test_unknown_suite_names_the_state_suites():
    with pytest.raises(ConfigError, match="states_mixed"):
        tasks.generate_tasks("apartment_seen", "state", 1, seed=0)
