"""SayCanPay inference (seed 004, §4-5): Greedy-Action and Beam-Action decoding with the Say,
SayCan and SayCanPay scores.

Per step and per beam, **Say** gives the top-m candidate actions with probabilities (the LLM
layer's ``candidate_actions``; the admissible set is the *whole* action space of the apartment,
feasible or not, as the seed maps generations onto "an exhaustive list of admissible actions
(feasible and otherwise)"). **Can** scores feasibility (the learned model, or the exact
precondition check of the symbolic model as the named oracle variant), **Pay** the payoff. Scores
(Eq. 3-5): ``say = log p_say``, ``saycan = log(p_say p_can)``, ``saycanpay = log(p_say p_can p_pay)``.

* Greedy-Action (§5.1): one sequence; the best-scoring candidate is appended at every step.
* Beam-Action (§5.2): k sequences, each expanded by its m candidates; the top k of the k x m by the
  accumulated score divided by the sequence length are kept (f_acc accumulates the step scores;
  the division is by |h|, "length-normalized", since beams differ in length); when every beam has
  terminated, the best length-normalized sequence is the plan (terminated ones first).

What the planner sees (the seed plans *offline* from the goal and the initial observation o_0,
"while maintaining an internal world state"): o_0 is the full initial state, as the seed's
environments describe every object in the first observation (needs the full state, said so by the
planner). The internal world state follows the plan through the known transition function T of
the seed's POMDP (§3; an infeasible action changes nothing). Say is asked with the plan so far and
the observation the robot would have after it: the offline backend's Say is a retrieval policy
over observations that cannot track the state from the history alone (asked with o_0 only, it
repeats its first action; measured), so the internal state shows it where the plan has got to.
``say_input: full`` adds o_0 (every object; the seed's Say input), ``observations`` leaves it out
(Say must search, as under partial observation). A sequence terminates when its internal state
satisfies the goal (the known reward R of §3; the seed's "done task" action) or at the horizon.
Can and Pay read only their §6 input: goal, o_0, the plan so far and the next action.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from llm_planner.errors import ConfigError, LLMError
from llm_planner.llm.base import LanguageModel, PolicyQuery
from llm_planner.llm.text import WorldInfo
from llm_planner.methods.saycanpay.features import Featurizer
from llm_planner.methods.saycanpay.formats import ExampleBuilder
from llm_planner.methods.saycanpay.models import Models
from llm_planner.domains.household.world.symbolic import Action, Goal, Household, Observation, State

_ACTION_SPACES: dict[int, tuple[Household, tuple[Action, ...]]] = {}


def action_space(household: Household) -> tuple[Action, ...]:
    """Every action of the apartment, feasible or not (the seed's exhaustive admissible list)."""
    hit = _ACTION_SPACES.get(id(household))
    if hit is not None and hit[0] is household:
        return hit[1]
    h = household
    containers = [f for f in h.furniture if h.is_container[f]]
    surfaces = [f for f in h.furniture if not h.is_container[f]]
    actions = [Action("walk", (x,)) for x in (*h.rooms, *h.furniture, *h.objects)]
    actions += [Action("grab", (o,)) for o in h.objects]
    actions += [Action(v, (c,)) for c in containers for v in ("open", "close")]
    actions += [Action("putin", (o, c)) for o in h.objects for c in containers]
    actions += [Action("puton", (o, s)) for o in h.objects for s in surfaces]
    _ACTION_SPACES[id(household)] = (household, tuple(actions))
    return tuple(actions)


@dataclass(frozen=True)
class Candidate:
    action: Action
    say: float
    can: float
    pay: float
    score: float


@dataclass(frozen=True)
class Beam:
    """One action sequence with its internal world state and the observations along it."""

    history: tuple[Action, ...]
    state: State
    observations: tuple[Observation, ...]
    f_acc: float
    done: bool

    @property
    def normalised(self) -> float:
        return self.f_acc / max(1, len(self.history))


@dataclass
class DecodeResult:
    plan: list[Action]
    done: bool                      # the internal state satisfies the goal at the end of the plan
    say_calls: int = 0
    llm_requests: int = 0
    seconds: float = 0.0
    trace: list[list[Candidate]] = field(default_factory=list)   # candidates per step (greedy) / best beam
    message: str = ""


@dataclass(frozen=True)
class Episode:
    """What one planning problem gives the decoder: instruction, goal, o_0 (full) and the model."""

    household: Household
    instruction: str
    goal: Goal
    initial: State


class Decoder:
    """Say/Can/Pay scoring and the two decoding strategies (see the module docstring)."""

    def __init__(self, backend: LanguageModel, options: Mapping[str, Any], models: Models | None = None,
                 featurizer: Featurizer | None = None) -> None:
        self.backend = backend
        self.opts = dict(options)
        self.score = str(self.opts["score"])
        self.can_kind = str(self.opts["can"])
        self.models = models
        self.featurizer = featurizer or Featurizer(backend.resources.embedder, float(self.opts["max_steps"]))
        self.floor = float(self.opts["probability_floor"])
        if self.needs_models and models is None:
            raise ConfigError(f"the {self.score} score with the {self.can_kind} Can needs the trained Can/Pay models")

    @property
    def needs_models(self) -> bool:
        return self.score == "saycanpay" or (self.score == "saycan" and self.can_kind == "learned")

    # ------------------------------------------------------------------------ Say
    def say(self, ep: Episode, world: WorldInfo, beam: Beam, first: Observation) -> list[tuple[Action, float]]:
        """Top-m candidates of the language model at this beam (§5 "Say")."""
        current = beam.observations[-1] if beam.observations else ep.household.observe(beam.state)
        past: tuple[Observation, ...] = tuple(beam.observations[:-1])
        if self.opts["say_input"] == "full":
            past = (first, ep.household.observe(ep.initial), *past)
        query = PolicyQuery(world, ep.instruction, current, beam.history, action_space(ep.household), ep.goal, past)
        return list(self.backend.candidate_actions(query, m=int(self.opts["candidates"])).actions)

    def full_observation(self, ep: Episode) -> Observation:
        """o_0 as an observation that shows every object where it is (fully observed initial state)."""
        first = ep.household.observe(ep.initial)
        return dataclasses.replace(first, relations=ep.household.facts(ep.initial),
                                   seen_places=frozenset(ep.household.furniture))

    # ------------------------------------------------------------------- scoring
    def scored(self, ep: Episode, builder: ExampleBuilder, beams: Sequence[Beam],
               proposals: Sequence[Sequence[tuple[Action, float]]]) -> list[list[Candidate]]:
        """Can and Pay for every (beam, candidate) in one batch, and the decoding score."""
        pairs = [(b, a, p) for b, cands in zip(beams, proposals) for a, p in cands]
        x = None
        if pairs and self.models is not None and self.needs_models:
            x = self.featurizer.transform([builder(b.history, a) for b, a, _p in pairs])
        can = self.can_probs(ep, pairs, x) if self.score != "say" else np.ones(len(pairs))
        pay = self.pay_probs(pairs, x) if self.score == "saycanpay" else np.ones(len(pairs))
        out: list[list[Candidate]] = [[] for _ in beams]
        index = {id(b): i for i, b in enumerate(beams)}
        for (b, a, p_say), c, q in zip(pairs, can, pay):
            terms = [p_say] + ([c] if self.score in ("saycan", "saycanpay") else []) + ([q] if self.score == "saycanpay" else [])
            score = sum(math.log(max(float(t), self.floor)) for t in terms)
            out[index[id(b)]].append(Candidate(a, float(p_say), float(c), float(q), score))
        return out

    def can_probs(self, ep: Episode, pairs: Sequence[tuple[Beam, Action, float]], x: np.ndarray | None) -> np.ndarray:
        """p_can: the learned model (§6.1), or the exact precondition check of the internal state (oracle)."""
        if self.can_kind == "oracle":
            floor = float(self.opts["oracle_floor"])
            return np.array([1.0 if ep.household.why_not(b.state, a) is None else floor for b, a, _p in pairs])
        assert self.models is not None and x is not None
        return self.models.can(x)

    def pay_probs(self, pairs: Sequence[tuple[Beam, Action, float]], x: np.ndarray | None) -> np.ndarray:
        """p_pay = f_heur (§6.2)."""
        assert self.models is not None and x is not None
        return self.models.pay(x)

    def extend(self, ep: Episode, beam: Beam, cand: Candidate) -> Beam:
        """Append an action; the internal state follows the known transition (no change if infeasible)."""
        h = ep.household
        state = beam.state if h.why_not(beam.state, cand.action) is not None else h.transition(beam.state, cand.action)
        return Beam(beam.history + (cand.action,), state, beam.observations + (h.observe(state),),
                    beam.f_acc + cand.score, h.satisfied(state, ep.goal))

    # ------------------------------------------------------------------ decoding
    def decode(self, ep: Episode, strategy: str | None = None) -> DecodeResult:
        strategy = strategy or str(self.opts["strategy"])
        if strategy == "greedy_action":
            return self.beam_action(ep, k=1, keep_trace=True)
        if strategy == "beam_action":
            return self.beam_action(ep, k=int(self.opts["beam_size"]))
        raise ConfigError(f"unknown decoding strategy '{strategy}' (greedy_action, beam_action)")

    def greedy_action(self, ep: Episode) -> DecodeResult:
        """§5.1: Beam-Action with k = 1 ("setting k = 1 results in Greedy-Action decoding")."""
        return self.beam_action(ep, k=1, keep_trace=True)

    def beam_action(self, ep: Episode, k: int | None = None, keep_trace: bool = False) -> DecodeResult:
        """§5.2 (see the module docstring); k = 1 is Greedy-Action."""
        k = int(k or self.opts["beam_size"])
        started = time.perf_counter()
        requests = self.backend.usage.requests
        world = WorldInfo.from_household(ep.household)
        builder = ExampleBuilder(ep.household, ep.goal, ep.initial)
        first = self.full_observation(ep)
        beams = [Beam((), ep.initial, (), 0.0, ep.household.satisfied(ep.initial, ep.goal))]
        calls, trace, message = 0, [], ""
        for _step in range(int(self.opts["max_steps"])):
            live = [b for b in beams if not b.done]
            if not live:
                break
            try:
                proposals = [self.say(ep, world, b, first) for b in live]
            except LLMError as exc:
                message = f"Say failed: {exc}"
                break
            calls += len(live)
            scored = self.scored(ep, builder, live, proposals)
            if keep_trace:
                trace.append(sorted(scored[0], key=lambda c: -c.score))
            pool = [b for b in beams if b.done] + [self.extend(ep, b, c) for b, cands in zip(live, scored) for c in cands]
            if not pool:
                message = "Say proposed no candidate action"
                break
            beams = sorted(pool, key=lambda b: -b.normalised)[:k]
        finished = [b for b in beams if b.done]
        best = max(finished or beams, key=lambda b: b.normalised)
        if not best.done and not message:
            message = f"no sequence reached the goal within {self.opts['max_steps']} steps"
        return DecodeResult(list(best.history), best.done, calls, self.backend.usage.requests - requests,
                            time.perf_counter() - started, trace, message)
