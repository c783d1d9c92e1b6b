"""The paper's decoder (seed 004 §4): Say is asked with the goal, o_0 and the plan so far only, and a
sequence ends when "done task" is chosen -- not at the true goal test (scripted Say, no LLM)."""
from __future__ import annotations

import math

import pytest

from llm_planner.errors import ConfigError
from llm_planner.domains.household.language.retrieval_policy import imagined_observation
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.methods.saycanpay.config import load_config
from llm_planner.methods.saycanpay.decoding import Decoder, Episode, token_logprobs_backend
from llm_planner.methods.saycanpay.formats import DONE, ExampleBuilder, model_input
from llm_planner.domains.household.world.symbolic import Action, GoalItem

from .conftest import ScriptedSay, ScriptedTokens

GOAL = (GoalItem("on", "book", "sofa", 1),)
PLAN = [Action("walk", ("bookshelf",)), Action("grab", ("book_1",)), Action("walk", ("sofa",)),
        Action("puton", ("book_1", "sofa"))]


def _episode(seen):
    state = seen.sample_initial_state(3)  # book_1 on the bookshelf, robot in the living room
    assert seen.location(state, "book_1") == "bookshelf"
    return Episode(seen, "put one book on the sofa", GOAL, state)


def _decoder(backend, score="say", can="oracle", **kw):
    return Decoder(backend, dict(load_config()["decoding"], score=score, can=can, **kw))


def says_done_after(n):
    """Say proposes the expert's next step, and "done task" once the plan has ``n`` steps."""
    def script(query):
        t = len(query.history)
        return ([], 4) if t >= n else ([action_to_text(PLAN[t])] * 4, 0)
    return script


def test_the_paper_decoder_is_the_default_and_plans_from_o0_until_done_task(seen):
    assert load_config()["decoding"]["variant"] == "paper"
    say = ScriptedSay(plan_script=says_done_after(4))
    ep = _episode(seen)
    result = _decoder(say).decode(ep, "greedy_action")
    assert result.done and result.plan == PLAN and DONE not in result.plan
    assert result.say_calls == 5 and result.say_source == "samples"  # four steps, then "done task"
    first = say.queries[0].observation
    for t, query in enumerate(say.queries):  # nothing observed after o_0: the same o_0 and the plan so far
        assert query.from_initial and query.observation == first and query.past_observations == ()
        assert list(query.history) == PLAN[:t]
    assert ("on", "book_1", "bookshelf") in first.relations and len(first.relations) == len(seen.objects)


def test_a_plan_ends_when_the_model_says_done_not_at_the_true_goal(seen):
    early = _decoder(ScriptedSay(plan_script=says_done_after(2))).decode(_episode(seen), "greedy_action")
    assert early.done and early.plan == PLAN[:2]  # the book is still in hand: the model's word ends the plan
    late = ScriptedSay(plan_script=lambda q: ([action_to_text(PLAN[min(len(q.history), 3)])] * 4, 0))
    never = _decoder(late, max_steps=6).decode(_episode(seen), "greedy_action")
    assert not never.done and len(never.plan) == 6  # the goal held after step 4; Say never said "done task"
    assert "done task" in never.message


def test_the_oracle_can_vetoes_a_premature_done_task(seen):
    def eager(query):  # "done task" from the start on half of the answers
        t = len(query.history)
        return ([], 4) if t >= 4 else ([action_to_text(PLAN[t])] * 2, 2)
    say_only = _decoder(ScriptedSay(plan_script=eager), score="say").decode(_episode(seen), "greedy_action")
    assert say_only.plan == []  # ties go to "done task" first: Say alone stops at once
    result = _decoder(ScriptedSay(plan_script=eager), score="saycan").decode(_episode(seen), "greedy_action")
    assert result.done and result.plan == PLAN
    assert result.trace[0][-1].action == DONE and result.trace[0][-1].can == 1e-6  # goal not reached: infeasible
    assert result.trace[-1][0].action == DONE and result.trace[-1][0].can == 1.0


def test_beam_action_keeps_the_best_sequence_that_said_done(seen):
    result = _decoder(ScriptedSay(plan_script=says_done_after(4)), score="saycan", beam_size=3).decode(
        _episode(seen), "beam_action")
    assert result.done and result.plan == PLAN


def test_say_probabilities_of_samples_give_done_task_its_share(seen):
    say = ScriptedSay(plan_script=lambda q: ([action_to_text(PLAN[0])] * 3, 1))
    decoder = _decoder(say)
    cands = decoder.say_offline_plan(_episode(seen), WorldInfo.from_household(seen),
                                     decoder_beam(seen), decoder.full_observation(_episode(seen)))
    probs = dict(cands)
    assert probs[DONE] == pytest.approx(0.25) and max(probs, key=probs.get) == PLAN[0]
    assert sum(probs.values()) == pytest.approx(1.0)


def decoder_beam(seen):
    from llm_planner.methods.saycanpay.decoding import Beam

    return Beam((), seen.sample_initial_state(3), (), 0.0, False)


def test_greedy_token_and_say_from_token_logprobs_where_the_backend_offers_them(seen):
    assert not token_logprobs_backend(ScriptedSay(plan_script=says_done_after(4)))
    with pytest.raises(ConfigError, match="token log-probabilities"):
        _decoder(ScriptedSay(plan_script=says_done_after(4))).decode(_episode(seen), "greedy_token")

    def tokens(query, n, greedy):
        t = len(query.history)
        if t >= 4:
            return [("done task", -0.1)]
        right = action_to_text(PLAN[t])
        return [(right + ".", -0.2)] if greedy else [(right, -0.5), ("walk to the kitchen", -1.5), (right, -0.5)]
    backend = ScriptedTokens(tokens)
    assert token_logprobs_backend(backend)
    token = _decoder(backend).decode(_episode(seen), "greedy_token")
    assert token.done and token.plan == PLAN and token.say_source == "token_logprobs"
    decoder = _decoder(backend)  # say_probabilities: auto -> token log-probabilities
    result = decoder.decode(_episode(seen), "greedy_action")
    assert result.done and result.plan == PLAN and result.say_source == "token_logprobs"
    first = {c.action: c.say for c in result.trace[0]}
    assert first[PLAN[0]] == pytest.approx(math.exp(-0.5) / (math.exp(-0.5) + math.exp(-1.5)))


def test_the_offline_models_belief_follows_the_plan_without_observations(seen):
    state = seen.sample_initial_state(0)
    world = WorldInfo.from_household(seen)
    ep = Episode(seen, "put one apple inside the fridge", (GoalItem("inside", "apple", "fridge", 1),), state)
    o0 = _decoder(ScriptedSay(plan_script=says_done_after(0))).full_observation(ep)
    apple_place = seen.location(state, "apple_1")
    plan = (Action("walk", ("apple_1",)), Action("grab", ("apple_1",)), Action("walk", ("fridge",)),
            Action("open", ("fridge",)))
    belief = imagined_observation(world, o0, plan)
    assert belief.holding == "apple_1" and belief.near == "fridge" and belief.room == seen.furniture_room["fridge"]
    assert "fridge" in belief.open_containers and all(o != "apple_1" for _r, o, _f in belief.relations)
    walked = imagined_observation(world, o0, plan[:1])
    assert walked.near == apple_place  # walking to an object brings the robot to its place
    after = imagined_observation(world, o0, (*plan, Action("putin", ("apple_1", "fridge"))))
    assert after.holding is None and ("inside", "apple_1", "fridge") in after.relations
    # effects only: a grab from afar is believed (the model's optimism that Can must correct)
    assert imagined_observation(world, o0, (Action("grab", ("apple_1",)),)).holding == "apple_1"


def test_can_and_pay_read_done_task_in_the_seeds_format(seen):
    build = ExampleBuilder(seen, GOAL, seen.sample_initial_state(3))
    text = model_input(build(PLAN, DONE))
    assert text.endswith("<Step 4> put the book 1 on the sofa <NXT> done task")
