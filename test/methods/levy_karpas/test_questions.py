"""The ``nl2pddl`` question served by ``llm-planner serve`` (questions.py): at error rate 0 Phase I
over HTTP (openai channels) gives the offline channels' ranked goals and templates, for pairs, a
category word only the state resolves, and mixed directives; the prompt's scene and state lines
read back into the same household and state (prompt_scene.py)."""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import GoalItem, Household
from llm_planner.errors import ConfigError
from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.prompt_scene import read_household, read_state, scene_lines, state_text
from llm_planner.methods.levy_karpas.system import LevyKarpasSystem
from llm_planner.methods.levy_karpas.template import parse_template


@pytest.fixture(scope="module")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


@pytest.fixture(scope="module")
def systems() -> Iterator[tuple[LevyKarpasSystem, LevyKarpasSystem]]:
    """(offline system, system asking a served model at error rate 0 over HTTP), one configuration."""
    from llm_planner.llm.factory import make_backend
    from llm_planner_eval.stand_in.serve import ModelServer
    from llm_planner_eval.stand_in.serve_options import ServeOptions
    from llm_planner_eval.stand_in.served import ServedModel

    config = load_config()
    offline = make_backend(backend="offline")  # the embeddings' disk cache: the classifier trains in seconds
    server = ModelServer(ServeOptions(warm_up=False, structured_output=False), ServedModel(offline)).start()
    served = make_backend(backend="openai", embedder=offline.resources.embedder, openai__base_url=server.base_url,
                          openai__model="served", cache__enabled=False)
    yield LevyKarpasSystem(offline, config), LevyKarpasSystem(served, config)
    server.stop()


def test_the_prompt_lines_read_back_into_the_household_and_state(seen: Household) -> None:
    state = seen.sample_initial_state(3)
    lines = scene_lines(seen)
    assert "fridge (kitchen)" in lines["containers"] and "apple (" in lines["types"]
    rebuilt = read_household(lines["rooms"], lines["containers"], lines["surfaces"], lines["types"])
    assert rebuilt.objects == seen.objects and rebuilt.rooms == seen.rooms
    assert rebuilt.furniture_room == seen.furniture_room and rebuilt.is_container == seen.is_container
    assert state.switched_on  # the prompt's state line tells where things are, not what is switched on
    assert read_state(rebuilt, state_text(seen, state)) == dataclasses.replace(state, switched_on=frozenset())


# (goal directive, step directive, whose answers to compare): a pair whose goal names a category
# ("the reading material": the book or the magazine), mixed directives (a goal and a partial template
# in one sentence), and step-by-step instructions with a pronoun
CASES = [
    ("place the reading material from the nightstand onto the coffee table",
     "head to the bedroom and then go to the book, grab it, go to the living room, then walk to the table, "
     "after that set the book on the coffee table"),
    ("go to the living room through the bedroom, then take the candle to the nightstand", None),
    ("walk through the kitchen to the bathroom and put the mug in the dishwasher", None),
]


@pytest.mark.parametrize("goal_directive,step_directive", CASES)
def test_served_at_rate_0_answers_as_the_offline_channels(systems: tuple[LevyKarpasSystem, LevyKarpasSystem],
                                                          seen: Household, goal_directive: str,
                                                          step_directive: str | None) -> None:
    offline, served = systems
    state = seen.sample_initial_state(5)
    for given in (None, state):  # D, then D+S
        a = offline.translate(seen, goal_directive, step_directive, given)
        b = served.translate(seen, goal_directive, step_directive, given)
        assert (b.goals, b.templates) == (a.goals, a.templates), (given is not None, b.goal_error)
        assert b.goals and b.templates and b.requests >= 1


def test_a_mixed_directive_served_gives_its_goal_and_partial_template(
        systems: tuple[LevyKarpasSystem, LevyKarpasSystem], seen: Household) -> None:
    _offline, served = systems
    out = served.translate(seen, "go to the living room through the bedroom, then take the candle to the nightstand")
    assert out.goals[0] == (GoalItem("on", "candle", "nightstand", 1),)
    assert out.templates[0] == parse_template("partial: walk(bedroom), walk(living_room)")


def test_error_correlation_0_makes_a_questions_samples_wrong_on_their_own(systems: tuple[LevyKarpasSystem, ...],
                                                                           seen: Household) -> None:
    """``llm-planner serve --error-correlation 0``: some questions get right and wrong samples at once
    (what validation with B tries can recover from); at 1 a question's samples are all right or all wrong."""
    from types import SimpleNamespace

    from llm_planner_eval.stand_in.serve import ModelServer
    from llm_planner_eval.stand_in.serve_options import ServeOptions
    from llm_planner_eval.stand_in.served import ServedModel
    from llm_planner.methods.levy_karpas.openai_channels import OpenAIChannels

    offline = systems[0].backend
    model = ServedModel(offline)
    channels = OpenAIChannels(seen, offline, [], load_config()["openai"], asker=SimpleNamespace(ask=None))
    prompts = [channels.prompt(f"put {n} {what}", None) for n in ("one", "two")
               for what in ("apple in the fridge", "plates on the kitchen table", "books on the sofa", "mugs in the "
                            "dishwasher", "towels in the bathroom cabinet")]
    mixed = {}
    for correlation in (0.0, 1.0):
        errors = ModelServer(ServeOptions(warm_up=False, error_rate=0.5, error_correlation=correlation), model).errors
        assert errors is not None and errors.settings.correlation == correlation
        right = [model.answer(p, 5)[1] for p in prompts]
        wrong = [errors.apply(model, "nl2pddl", p, samples) for p, samples in zip(prompts, right, strict=True)]
        mixed[correlation] = sum(0 < sum(w != r for w, r in zip(ws, rs, strict=True)) < 5
                                 for ws, rs in zip(wrong, right, strict=True))
    assert mixed[1.0] == 0 and mixed[0.0] >= 3, mixed
    with pytest.raises(ConfigError, match="error-correlation"):
        ServeOptions(error_correlation=1.5).validate()
