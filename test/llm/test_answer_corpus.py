"""The answer-style corpus (test/llm/data/answers_*.yaml): realistic chat-model answers to each
question type must read to the right result or to a clear "unparsable", never to a wrong action,
place, goal or plan step. Each answer goes through the same reading as the openai backend's
(llm/answers.py readers, then grounding onto the scene)."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.errors import GoalError, UnusableAnswer
from llm_planner.llm.answers import first_action
from llm_planner.methods.llm_mcts.openai_answers import admissible_texts, goal_items, parse_positions
from llm_planner.reading import UnsupportedGoal, check_model_goal, ground_goal
from llm_planner.domains.household.world.symbolic import Action

DATA = Path(__file__).parent / "data"


def _corpus(name: str) -> dict:
    return yaml.safe_load((DATA / f"answers_{name}.yaml").read_text())


def _cases(name: str) -> list:
    answers = _corpus(name)["answers"]
    return [pytest.param(a, id=f"{i}-{str(a['answer'])[:40]}") for i, a in enumerate(answers)]


@pytest.fixture(scope="module")
def lm(openai_backend_module):
    return openai_backend_module


@pytest.fixture(scope="module")
def openai_backend_module(embedder, dataset, tmp_path_factory):
    """An openai backend (no server needed: only its reading of answers is used)."""
    from llm_planner.llm.factory import make_backend

    return make_backend(backend="openai", embedder=embedder, dataset=dataset, embeddings__warm_actions=False,
                        cache__dir=str(tmp_path_factory.mktemp("corpus_cache")),
                        openai__base_url="http://127.0.0.1:9/v1")


@pytest.mark.parametrize("name", ["policy", "say", "prior", "translate", "stalm"])
def test_each_corpus_has_at_least_30_answers_with_unparsable_ones(name):
    answers = _corpus(name)["answers"]
    assert len(answers) >= 30
    assert any(a["expect"] == "unparsable" or a.get("error") for a in answers)


# ------------------------------------------------------------------------------ policy and Say
def _situation(seen, name: str, corpus: str):
    spec = _corpus(corpus)["situations"][name]
    state = seen.sample_initial_state(spec["seed"])
    for text in spec["history"]:
        state = seen.transition(state, Action.parse(text))
    return spec["goal"], seen.observe(state), tuple(seen.legal_actions(state))


def _read_action(lm, seen, seen_world, case: dict, corpus: str) -> str:
    _goal, _obs, admissible = _situation(seen, case["situation"], corpus)
    text = first_action(case["answer"])
    if text is None:
        return "unparsable"
    if text == "done":
        return "done"
    kept = admissible_texts(lm, [text], seen_world, admissible)
    if not kept:
        return "unparsable"
    sims = grounder_of(lm.resources).action_similarities(kept, list(admissible))[0]
    action = admissible[int(sims.argmax())]
    return f"{action.verb}({', '.join(action.args)})"


@pytest.mark.parametrize("case", _cases("policy"))
def test_policy_answers(lm, seen, seen_world, case):
    assert _read_action(lm, seen, seen_world, case, "policy") == case["expect"], case["answer"]


@pytest.mark.parametrize("case", _cases("say"))
def test_say_answers(lm, seen, seen_world, case):
    assert _read_action(lm, seen, seen_world, case, "say") == case["expect"], case["answer"]


# ------------------------------------------------------------------------------ world model
@pytest.mark.parametrize("case", _cases("prior"))
def test_prior_answers(lm, seen_world, case):
    places = parse_positions(lm, case["answer"], seen_world, float(lm.config.get("grounding.min_name_score")))
    read = sorted(f"{rel} {place}" for rel, place in places)
    expect = [] if case["expect"] == "unparsable" else sorted(case["expect"])
    assert read == expect, case["answer"]


# ------------------------------------------------------------------------------ translation
@pytest.mark.parametrize("case", _cases("translate"))
def test_translation_answers(lm, seen, seen_world, case):
    """Read, grounded, checked against the directive (a sub-goal it does not ask for is refused,
    ``support`` names the difference), then validated, as ``translate_directive`` does."""
    refusal = ""
    try:
        items = goal_items(case["answer"])
        goal = ground_goal(tuple(items), seen_world, grounder_of(lm.resources),
                           float(lm.config.get("grounding.min_name_score")))
        check_model_goal(case["directive"], goal, seen_world, lm.resources)
        goal = seen.check_goal(goal)
        read = sorted([g.rel, g.obj_type, g.destination, g.count] for g in goal)
    except (UnusableAnswer, GoalError) as exc:
        assert str(exc)  # a clear message
        refusal = "; ".join(exc.differences) if isinstance(exc, UnsupportedGoal) else ""
        read = "unparsable"
    expect = case["expect"] if case["expect"] == "unparsable" else sorted(case["expect"])
    assert read == expect, case["answer"]
    assert refusal == case.get("support", ""), case["answer"]


# ------------------------------------------------------------------------------ STaLM plans
@pytest.mark.parametrize("case", _cases("stalm"))
def test_stalm_answers(case):
    from llm_planner.methods.stalm.plan_parser import Vocabulary, parse_plan
    from llm_planner.domains.gtamp.problems import load_problem

    problem = load_problem("P2")
    parsed = parse_plan(case["answer"], Vocabulary(problem.object_names, problem.region_names, problem.door_names))
    assert [" ".join((a.op, *a.args)) for a in parsed.actions] == case["expect"], case["answer"]
    assert bool(parsed.errors) == bool(case.get("error")), parsed.errors


def test_a_translation_answer_may_hold_state_items_without_destination():
    assert goal_items("(CLOSED, fridge)-(INSIDE, milk, fridge, 1)") == [("closed", "fridge", "", 1),
                                                                         ("inside", "milk", "fridge", 1)]
    assert goal_items('{"goal": [["on", "tv"], {"relation": "off", "object": "desk lamp"}]}') == [
        ("on", "tv", "", 1), ("off", "desk lamp", "", 1)]
    assert goal_items("(CLOSED, fridge, , 1)") == [("closed", "fridge", "", 1)]  # the offline answer's form
    with pytest.raises(UnusableAnswer):
        goal_items("(apple, fridge)")  # two words that are no state: no goal tuple
    with pytest.raises(UnusableAnswer, match="only INSIDE and ON exist"):
        goal_items("(NEXT_TO, apple, fridge, 1)")
