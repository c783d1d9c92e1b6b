"""The plan prompt (prompts/plan.txt): SayCanPay's Say when it plans offline from o_0 (seed 004 §4-5),
asked by the openai backend for a ``PolicyQuery.from_initial``: goal, initial observation, the
planned actions so far, the next action on one line or "done task"."""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from llm_planner.domains.household.language.questions import next_actions
from llm_planner.domains.household.language.model_resources import policy_examples
from llm_planner.domains.household.world.symbolic import Action, Household
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.prompts import plan_prompt
from llm_planner.domains.household.language.text import WorldInfo


def _plan_query(seen: Household, world: WorldInfo, planned: Sequence[Action] = (),
                instruction: str = "put one apple inside the fridge") -> PolicyQuery:
    state = seen.sample_initial_state(3)
    containers = frozenset(f for f in seen.furniture if seen.is_container[f])
    first = dataclasses.replace(seen.observe(state), relations=seen.facts(state), seen_places=frozenset(seen.furniture),
                                open_containers=frozenset(), closed_containers=containers)
    return PolicyQuery(world, instruction, first, tuple(planned), (), None, (), from_initial=True)


def test_the_plan_prompt_shows_o0_and_the_planned_actions_not_a_current_situation(offline: Any, seen: Household,
                                                                                  seen_world: WorldInfo) -> None:
    planned = (Action("walk", ("kitchen",)), Action("walk", ("fridge",)))
    query = _plan_query(seen, seen_world, planned)
    prompt = plan_prompt(seen_world, query.instruction, query.observation, planned,
                         policy_examples(offline.resources, query, 2))
    tail = prompt.rsplit("\n\n", 1)[1].splitlines()
    assert tail[0] == "Goal: put one apple inside the fridge"
    assert tail[1].startswith("Initial observation: you are in the living room, your hand is empty, "
                              "the fridge is closed")
    assert all(f"the {c.replace('_', ' ')} is closed" in tail[1] for c in seen_world.containers)  # every container
    assert tail[2] == "Planned actions so far: walk to the kitchen, walk to the fridge" and tail[3] == "Next action:"
    assert "Current observation" not in prompt and "Completed actions" not in prompt
    assert 'write "done task" when the planned actions reach the goal' in prompt
    assert prompt.count("Initial observation:") == 3  # two examples from D in the same form
    long_plan = _plan_query(seen, seen_world, (Action("walk", ("kitchen",)),) * 60)
    done = plan_prompt(seen_world, long_plan.instruction, long_plan.observation, long_plan.history,
                       policy_examples(offline.resources, long_plan, 2))
    assert done.count("Next action: done task.") == 2  # an expert plan cut after its last step ends with "done task"


def test_the_openai_backend_asks_a_from_initial_query_in_the_plan_form(openai_backend: Any, fake_openai: Any,
                                                                       seen: Household, seen_world: WorldInfo) -> None:
    fake_openai.answer = "done task."
    lm = openai_backend()
    answer = next_actions(lm, _plan_query(seen, seen_world, (Action("walk", ("kitchen",)),)), m=3, k=1)
    assert answer.done == 3 and answer.texts == ()
    request = fake_openai.requests[0]["json"]
    prompt = request["messages"][0]["content"]
    assert prompt.rstrip().endswith("Planned actions so far: walk to the kitchen\nNext action:")
    assert request["stop"] == ["\nInitial observation:", "\nPlanned actions so far:"]  # policy.plan_stop
    fake_openai.answer = "walk to the fridge"
    policy = next_actions(lm, PolicyQuery(seen_world, "put one apple inside the fridge",
                                         seen.observe(seen.sample_initial_state(3))), m=1, k=1)
    assert policy.texts == ("walk to the fridge",)
    assert "Current observation:" in fake_openai.requests[-1]["json"]["messages"][0]["content"]
