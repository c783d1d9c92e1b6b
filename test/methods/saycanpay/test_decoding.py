"""Greedy-Action and Beam-Action with the say / saycan / saycanpay scores (scripted Say, no LLM), with
the oracle decoder (``variant: oracle``: beams stepped with the true transition model, Say shown the
observation after each step); the paper's decoder is pinned in test_done_task.py."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from llm_planner.methods.saycanpay.config import load_config
from llm_planner.methods.saycanpay.decoding import Decoder, Episode, action_space
from llm_planner.domains.household.world.expert import expert_plan
from llm_planner.domains.household.world.symbolic import Action, GoalItem, state_goal

from .conftest import ScriptedSay

GOAL = (GoalItem("on", "book", "sofa", 1),)


def _episode(seen):
    state = seen.sample_initial_state(3)  # book_1 on the bookshelf, robot in the living room
    assert seen.location(state, "book_1") == "bookshelf" and state.room == "living_room"
    return Episode(seen, "put one book on the sofa", GOAL, state)


def expert_say(query):
    """Prefers an infeasible grab, then the right next step; both probable."""
    obs, hist = query.observation, query.history
    if obs.holding == "book_1":
        right = Action("walk", ("sofa",)) if obs.near != "sofa" else Action("puton", ("book_1", "sofa"))
    else:
        right = Action("walk", ("bookshelf",)) if obs.near != "bookshelf" else Action("grab", ("book_1",))
    return [(Action("grab", ("book_1",)), 0.6), (right, 0.4)] if right != Action("grab", ("book_1",)) else [(right, 1.0)]


def _decoder(score, can="oracle", models=None, **kw):
    opts = dict(load_config()["decoding"], score=score, can=can, variant="oracle", **kw)
    return Decoder(ScriptedSay(expert_say), opts, models)


def test_say_alone_keeps_choosing_the_infeasible_action(seen):
    result = _decoder("say").decode(_episode(seen), "greedy_action")
    assert not result.done and result.plan[:3] == [Action("grab", ("book_1",))] * 3


def test_saycan_with_the_oracle_can_reaches_the_goal_greedily(seen):
    decoder = _decoder("saycan")
    result = decoder.decode(_episode(seen), "greedy_action")
    assert result.done and [str(a) for a in result.plan] == [
        "walk(bookshelf)", "grab(book_1)", "walk(sofa)", "puton(book_1, sofa)"]
    assert result.trace[0][0].can == 1.0 and result.trace[0][-1].can == 1e-6  # the infeasible grab, vetoed
    query = decoder.backend.queries[0]
    # Say maps onto the whole action space of the goal's objects (nothing else is moved)
    assert query.admissible == action_space(seen, GOAL) and len(action_space(seen)) > 500 > len(query.admissible) > 50
    assert {seen.object_type[a.args[0]] for a in query.admissible if a.verb in ("grab", "putin", "puton")} == {"book"}


class KitchenAverse(Decoder):
    """Pay that rates the detour to the kitchen low and everything else high."""

    def pay_probs(self, pairs, x):
        return np.array([0.01 if a == Action("walk", ("kitchen",)) else 0.9 for _b, a, _p in pairs])


class AnyModels:
    can = staticmethod(lambda x: np.ones(len(x)))
    pay = staticmethod(lambda x: np.full(len(x), 0.5))


def test_pay_changes_the_choice_and_beam_k1_equals_greedy(seen, embedder):
    from llm_planner.methods.saycanpay.features import Featurizer

    ep = _episode(seen)
    say = lambda q: [(Action("walk", ("kitchen",)), 0.5), *expert_say(q)[-1:]]  # noqa: E731 - a tempting detour
    opts = dict(load_config()["decoding"], score="saycan", can="oracle", variant="oracle")
    plain = Decoder(ScriptedSay(say), opts).decode(ep, "greedy_action")
    assert plain.plan[0] == Action("walk", ("kitchen",))  # Say prefers the detour; Can cannot object
    decoder = KitchenAverse(ScriptedSay(say), dict(opts, score="saycanpay"), AnyModels(), Featurizer(embedder))
    result = decoder.decode(ep, "greedy_action")
    assert result.done and result.plan[0] == Action("walk", ("bookshelf",)) and len(result.plan) == 4
    assert result.trace[0][0].pay == 0.9 and decoder.beam_action(ep, k=1).plan == result.plan


def test_beam_keeps_k_sequences_and_prefers_a_finished_one(seen):
    ep = _episode(seen)
    decoder = _decoder("saycan", beam_size=3, candidates=6)
    result = decoder.decode(ep, "beam_action")
    assert result.done and len(result.plan) == 4
    assert result.say_calls > len(result.plan)  # several beams asked Say at some step


TV_ON = (state_goal("on", "tv"),)
TV_AND_REMOTE = (state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1))


def tempted_expert_say(household, initial, goal):
    """Say of the expert's next step (from the true state after the plan so far), tempted by switching
    the tv on from wherever the robot stands, which Can must veto until the robot is at the tv stand."""
    def script(query):
        state = initial
        for action in query.history:
            state = household.transition(state, action)
        right = expert_plan(household, state, goal)[0]
        lure = Action("switchon", ("tv",))
        return [(right, 1.0)] if right == lure else [(lure, 0.6), (right, 0.4)]
    return script


@pytest.mark.parametrize("goal", [TV_ON, TV_AND_REMOTE])
def test_saycan_switches_state_goals_on_with_the_oracle_can(seen, goal):
    initial = dataclasses.replace(seen.sample_initial_state(3), switched_on=frozenset())
    ep = Episode(seen, "turn on the tv", goal, initial)
    opts = dict(load_config()["decoding"], score="saycan", can="oracle", variant="oracle")
    decoder = Decoder(ScriptedSay(tempted_expert_say(seen, initial, goal)), opts)
    result = decoder.decode(ep, "greedy_action")
    assert result.done and result.plan.count(Action("switchon", ("tv",))) == 1
    state = initial
    for action in result.plan:  # the plan runs in the symbolic model to the goal
        assert seen.why_not(state, action) is None, action
        state = seen.transition(state, action)
    assert seen.satisfied(state, goal) and len(result.plan) == len(expert_plan(seen, initial, goal))
    assert result.trace[0][-1].action == Action("switchon", ("tv",)) and result.trace[0][-1].can == 1e-6
    admissible = decoder.backend.queries[0].admissible
    assert admissible == action_space(seen, goal)
    assert {a for a in admissible if a.verb.startswith("switch")} == {Action("switchon", ("tv",)),
                                                                      Action("switchoff", ("tv",))}


def test_switching_enters_the_action_space_only_for_the_things_a_goal_names(seen):
    assert not [a for a in action_space(seen, GOAL) if a.verb.startswith("switch")]
    assert not [a for a in action_space(seen) if a.verb.startswith("switch")]
    closed = action_space(seen, (state_goal("closed", "microwave"),))
    on = action_space(seen, (state_goal("on", "microwave"),))
    assert Action("switchon", ("microwave",)) in on and Action("switchon", ("microwave",)) not in closed
    assert on[:len(closed)] == closed and len(on) == len(closed) + 2
