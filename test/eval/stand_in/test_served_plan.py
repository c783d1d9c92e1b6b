"""The served stand-in asked SayCanPay's offline Say in the plan form (seed 004 §4-5; prompts/plan.txt):
it reads o_0 and the planned actions, answers as the offline backend answers the same
``PolicyQuery.from_initial``, says "done task" when the plan reaches the goal, and its wrong answers
(``--error-rate``) are drawn in the situation the plan leads to."""
from __future__ import annotations

import dataclasses
import random
from typing import Any

from llm_planner.domains.household.language.questions import next_actions
from llm_planner.domains.household.language.model_resources import policy_examples
from llm_planner.domains.household.world.symbolic import INSIDE, Action, GoalItem, Household, Observation, State
from llm_planner.llm.answers import first_action
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner_eval.stand_in.served import (
    ServedModel,
    classify,
    plan_question,
    policy_question,
    read_initial_observation,
)
from llm_planner_eval.stand_in.styles import STYLES, render
from llm_planner_eval.stand_in.wrong_answers import ErrorModel
from llm_planner.domains.household.language.prompts import initial_observation_to_text, plan_prompt
from llm_planner.domains.household.language.text import WorldInfo

INSTRUCTION = "put one apple inside the fridge"
GOAL = (GoalItem(INSIDE, "apple", "fridge", 1),)


def _initial(seen: Household, seed: int = 3) -> tuple[State, Observation]:
    """The initial state and o_0 as the paper decoder shows it for a placement instruction (every object,
    every container's state; nothing of what is switched on, which only a goal naming it shows)."""
    state = seen.sample_initial_state(seed)
    containers = frozenset(f for f in seen.furniture if seen.is_container[f])
    opened = frozenset(state.opened) & containers
    first = dataclasses.replace(seen.observe(state), relations=seen.facts(state), seen_places=frozenset(seen.furniture),
                                open_containers=opened, closed_containers=containers - opened,
                                switched_on=frozenset(), switched_off=frozenset())
    return state, first


def _prompt(offline: Any, world: WorldInfo, first: Observation, planned: Any) -> str:
    query = PolicyQuery(world, INSTRUCTION, first, tuple(planned), (), None, (), from_initial=True)
    return plan_prompt(world, INSTRUCTION, first, tuple(planned), policy_examples(offline.resources, query, 2))


def test_o0_reads_back_from_its_text(seen: Household, seen_world: WorldInfo) -> None:
    _state, first = _initial(seen)
    text = initial_observation_to_text(first, seen_world)
    assert "the fridge is closed" in text or "the fridge is open" in text  # every container, not only the room's
    assert read_initial_observation(text, seen_world) == first


def test_served_plan_from_o0_answers_as_offline_and_ends_with_done_task(served: ServedModel, offline: Any,
                                                                        seen: Household, seen_world: WorldInfo) -> None:
    state, first = _initial(seen)
    planned: list[Action] = []
    for _step in range(20):
        prompt = _prompt(offline, seen_world, first, planned)
        assert classify(prompt) == "policy"
        assert plan_question(prompt) == (seen_world, INSTRUCTION, first, tuple(planned))
        kind, samples = served.answer(prompt, 3, seed=0)
        query = PolicyQuery(seen_world, INSTRUCTION, first, tuple(planned), (), None, (), from_initial=True)
        own = next_actions(offline, query, m=3, seed=0)
        said = [first_action(render(s, "plain", random.Random(0))) for s in samples]
        assert said == list(own.texts) + ["done"] * own.done, (planned, said, own)
        if own.done:
            assert render(samples[-1], "plain", random.Random(0)) == "done task."
            break
        planned.append(Action.parse(_action_call(said[0], seen_world)))
    else:
        raise AssertionError(f"no 'done task' after 20 planned actions: {planned}")
    for action in planned:  # the plan made from o_0 alone holds in the true world
        assert seen.why_not(state, action) is None, (action, planned)
        state = seen.transition(state, action)
    assert seen.satisfied(state, GOAL)


def test_wrong_answers_apply_in_the_situation_the_plan_leads_to(served: ServedModel, offline: Any, seen: Household,
                                                                seen_world: WorldInfo) -> None:
    _state, first = _initial(seen)
    planned = (Action("walk", ("kitchen",)), Action("walk", ("fridge",)), Action("open", ("fridge",)))
    prompt = _prompt(offline, seen_world, first, planned)
    believed = policy_question(prompt)[2]
    assert believed.room == "kitchen" and believed.near == "fridge" and "fridge" in believed.open_containers
    errors = ErrorModel(1.0, seed=0)
    right = served.answer(prompt, 4, seed=0)[1]
    kind, wrong = served.answer(prompt, 4, seed=0, errors=errors)
    assert kind == "policy" and all(w != r for w, r in zip(wrong, right, strict=True))
    counts = errors.counts()
    assert sum(counts.values()) == 4 and all(k.startswith("policy/") for k in counts)
    assert "policy/none fits" not in counts
    for sample in wrong:  # still an action in every style
        for i, style in enumerate(STYLES):
            assert first_action(render(sample, style, random.Random(i))) == sample.data["next_actions"][0]


def _action_call(text: str, world: WorldInfo) -> str:
    """``put the apple 1 inside the fridge`` -> ``putin(apple_1, fridge)`` (the served reader's grammar)."""
    from llm_planner_eval.stand_in.served import read_actions

    (action,) = read_actions(text)
    return str(action)
