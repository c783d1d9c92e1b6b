"""What the heuristic policy is asked at a history h (LLM-MCTS seed 000, §2.3, App. F listing 1):
the question every backend answers with ``next_actions`` and ``candidate_actions``
(:class:`llm_planner.llm.base.LanguageModel`), and the retrieval of K-shot examples for it
(:mod:`llm_planner.domains.household.language.retrieval`) reads."""
from __future__ import annotations

from dataclasses import dataclass

from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.symbolic import OFF, SWITCHED_ON, Action, Goal, Observation


@dataclass(frozen=True)
class PolicyQuery:
    """What the heuristic policy is asked at a history h (LLM-MCTS §2.3, App. F listing 1).

    ``past_observations`` are the observations received before the current one, oldest first
    (optional, any number): the offline policy remembers from them which places it has already
    looked into; the prompt shows the completed actions and the current observation, as the paper.
    ``goal``, when given, spares the offline backend parsing ``instruction`` again.
    ``from_initial``: ``observation`` is the initial o_0 and ``history`` a plan not yet executed
    (SayCanPay's offline planning, seed 004 §4: o_t is empty for t > 0); the model must track the
    state along the plan itself."""

    world: WorldInfo
    instruction: str
    observation: Observation
    history: tuple[Action, ...] = ()
    admissible: tuple[Action, ...] = ()
    goal: Goal | None = None
    past_observations: tuple[Observation, ...] = ()
    from_initial: bool = False


def goal_switches(query: PolicyQuery) -> tuple[str, ...]:
    """The switchable things the query's goal asks on or off (what its observations must tell)."""
    return tuple(dict.fromkeys(g.obj_type for g in query.goal or () if g.is_state and g.rel in (SWITCHED_ON, OFF)
                               and g.obj_type in query.world.switch_at))
