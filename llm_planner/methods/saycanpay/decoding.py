"""SayCanPay inference (seed 004, §4-5): Greedy-Action and Beam-Action decoding with the Say,
SayCan and SayCanPay scores, and the Greedy-Token baseline (§4) where the backend offers token
log-probabilities.

Per step and per beam, **Say** gives the top-m candidate actions with probabilities (the admissible
set is the *whole* action space of the apartment, feasible or not, as the seed maps generations onto
"an exhaustive list of admissible actions (feasible and otherwise)", plus the "done task" action).
**Can** scores feasibility (the learned model, or the exact precondition check as the named oracle
Can), **Pay** the payoff. Scores (Eq. 3-5): ``say = log p_say``, ``saycan = log(p_say p_can)``,
``saycanpay = log(p_say p_can p_pay)``.

* Greedy-Action (§5.1): one sequence; the best-scoring candidate is appended at every step.
* Beam-Action (§5.2): k sequences, each expanded by its m candidates; the top k of the k x m by the
  accumulated score divided by the sequence length are kept (f_acc accumulates the step scores;
  "length-normalized", since beams differ in length); when every beam has terminated, the best
  length-normalized sequence is the plan (terminated ones first).
* Greedy-Token (§4, Planning LM): the model's greedy generation at every step, mapped onto the closest
  admissible action, until it generates "done task"; only where the backend offers token
  log-probabilities (:func:`token_logprobs_backend`).

Two decoders (``decoding.variant``):

``paper`` (the default; the seed's offline planning, §4): Say is asked with the goal, o_0 and the plan
so far only (``PolicyQuery.from_initial``: "O = {o_0} ... o_t = {} for all t > 0"); the model keeps
its own world state along the plan. A sequence terminates when the chosen action is "done task"
(Say proposes it, Can and Pay score it like any action: footnote 2, "the goal g is used to evaluate
the preconditions of done task") or at the horizon. No transition model is used, except by the
named oracle Can, which checks preconditions (and the goal, for "done task") in the true state along
the plan.

``oracle`` (the planner ``saycanpay_oracle``; this project's first decoder): the beams are stepped with
the true transition function T, Say is shown the observation the robot would have after each planned
step, and a sequence terminates when its true state satisfies the goal. ``say_input: full`` adds o_0
(every object), ``observations`` leaves it out (Say must search, as under partial observation).

o_0 is the full initial state in both (the seed's environments describe every object in the first
observation). Can and Pay read only their §6 input: goal, o_0, the plan so far and the next action.

Say's probabilities: from sampled answers (the §2.3 estimate over grounded samples; "done task" has
the share of answers that said the task is done), or, where the backend offers them, from token
log-probabilities (the seed's definition, p(a) = prod_i p(w_i | w_<i)).
"""
from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from llm_planner.domains.household.language.model_resources import grounder_of, warm_actions
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.questions import candidate_actions, next_actions
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.symbolic import Action, Goal, Household, Observation, State
from llm_planner.errors import ConfigError, LLMError
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.policy import say_candidates
from llm_planner.methods.saycanpay.features import Featurizer
from llm_planner.methods.saycanpay.formats import DONE, ExampleBuilder
from llm_planner.methods.saycanpay.models import Models

_ACTION_SPACES: dict[tuple[int, frozenset[str], tuple[str, ...]], tuple[Household, tuple[Action, ...]]] = {}
VARIANTS = ("paper", "oracle")


def action_space(household: Household, goal: Goal = ()) -> tuple[Action, ...]:
    """Every action of the apartment, feasible or not (the seed's exhaustive admissible list), with
    walks to, grabs and puts of the goal's objects only (of every object without a goal): a robot in
    someone's home moves nothing the task does not name. Switching on and off (VirtualHome's
    SWITCHON/SWITCHOFF, §7.2) is there for the switchable things the goal names, and only then."""
    types = frozenset(g.obj_type for g in goal)
    switchables = household.goal_switchables(goal)
    hit = _ACTION_SPACES.get((id(household), types, switchables))
    if hit is not None and hit[0] is household:
        return hit[1]
    h = household
    containers = [f for f in h.furniture if h.is_container[f]]
    surfaces = [f for f in h.furniture if not h.is_container[f]]
    movers = [h.objects[i] for i in h.goal_objects(goal)] if goal else list(h.objects)
    actions = [Action("walk", (x,)) for x in (*h.rooms, *h.furniture, *movers)]
    actions += [Action("grab", (o,)) for o in movers]
    actions += [Action(v, (c,)) for c in containers for v in ("open", "close")]
    actions += [Action("putin", (o, c)) for o in movers for c in containers]
    actions += [Action("puton", (o, s)) for o in movers for s in surfaces]
    actions += [Action(v, (d,)) for d in switchables for v in ("switchon", "switchoff")]
    _ACTION_SPACES[(id(household), types, switchables)] = (household, tuple(actions))
    return tuple(actions)


@runtime_checkable
class TokenLogprobs(Protocol):
    """What a backend offers when it returns token log-probabilities (``logprobs``/``top_logprobs`` of
    the OpenAI API): ``n`` answers to the policy question (``greedy``: one answer at temperature 0),
    each the first action's text and the sum of its tokens' log-probabilities; the text "done task"
    (any answer the backend reads as done) when the answer says the task is done."""

    def next_action_logprobs(self, query: PolicyQuery, n: int = 1, greedy: bool = False) -> list[tuple[str, float]]:
        ...  # pragma: no cover - a protocol


def token_logprobs_backend(backend: Any) -> bool:
    """Whether ``backend`` offers token log-probabilities now (the method, and its own
    ``offers_token_logprobs`` when it has one: a model server may ignore ``logprobs``)."""
    if not isinstance(backend, TokenLogprobs):
        return False
    offers = getattr(backend, "offers_token_logprobs", True)
    return bool(offers() if callable(offers) else offers)


@dataclass(frozen=True)
class Candidate:
    action: Action
    say: float
    can: float
    pay: float
    score: float


@dataclass(frozen=True)
class Beam:
    """One action sequence; ``state`` and ``observations`` follow it through the true transition
    (read by the oracle decoder and the oracle Can only); ``said_done``: it ended with "done task"."""

    history: tuple[Action, ...]
    state: State
    observations: tuple[Observation, ...]
    f_acc: float
    done: bool
    said_done: bool = False

    @property
    def normalised(self) -> float:
        return self.f_acc / max(1, len(self.history) + int(self.said_done))


@dataclass
class DecodeResult:
    plan: list[Action]
    done: bool                      # paper: the plan ends with "done task"; oracle: its true state satisfies the goal
    say_calls: int = 0
    llm_requests: int = 0
    seconds: float = 0.0
    trace: list[list[Candidate]] = field(default_factory=list)   # candidates per step (greedy) / best beam
    message: str = ""
    say_source: str = "samples"     # samples | token_logprobs: what Say's probabilities came from


@dataclass(frozen=True)
class Episode:
    """What one planning problem gives the decoder: instruction, goal, o_0 (full) and the model."""

    household: Household
    instruction: str
    goal: Goal
    initial: State


class Decoder:
    """Say/Can/Pay scoring and the decoding strategies (see the module docstring)."""

    def __init__(self, backend: LanguageModel, options: Mapping[str, Any], models: Models | None = None,
                 featurizer: Featurizer | None = None) -> None:
        self.backend = backend
        self.opts = dict(options)
        self.score = str(self.opts["score"])
        self.can_kind = str(self.opts["can"])
        self.variant = str(self.opts.get("variant", "paper"))
        if self.variant not in VARIANTS:
            raise ConfigError(f"unknown SayCanPay decoder variant '{self.variant}' ({', '.join(VARIANTS)})")
        self.models = models
        self.featurizer = featurizer or Featurizer(backend.resources.embedder, float(self.opts["max_steps"]))
        self.floor = float(self.opts["probability_floor"])
        self.say_source = str(self.opts.get("say_probabilities", "auto"))
        if self.say_source == "auto":
            self.say_source = "token_logprobs" if token_logprobs_backend(backend) else "samples"
        if self.say_source == "token_logprobs" and not token_logprobs_backend(backend):
            raise ConfigError(f"say_probabilities: token_logprobs, but the {getattr(backend, 'name', '?')} backend "
                              "offers no token log-probabilities; use samples or auto")
        if self.needs_models and models is None:
            raise ConfigError(f"the {self.score} score with the {self.can_kind} Can needs the trained Can/Pay models")

    @property
    def needs_models(self) -> bool:
        return self.score == "saycanpay" or (self.score == "saycan" and self.can_kind == "learned")

    # ------------------------------------------------------------------------ Say
    def say(self, ep: Episode, world: WorldInfo, beam: Beam, first: Observation) -> list[tuple[Action, float]]:
        """Top-m candidates of the language model at this beam (§5 "Say")."""
        if self.variant == "paper":
            return self.say_offline_plan(ep, world, beam, first)
        current = beam.observations[-1] if beam.observations else ep.household.observe(beam.state)
        past: tuple[Observation, ...] = tuple(beam.observations[:-1])
        if self.opts["say_input"] == "full":
            past = (first, ep.household.observe(ep.initial), *past)
        query = PolicyQuery(world, ep.instruction, current, beam.history, action_space(ep.household, ep.goal), ep.goal,
                            past)
        candidates = candidate_actions(self.backend, query, m=int(self.opts["candidates"])).actions
        return cast("list[tuple[Action, float]]", list(candidates))  # the query's actions: household ones

    def plan_query(self, ep: Episode, world: WorldInfo, history: tuple[Action, ...], first: Observation) -> PolicyQuery:
        """The paper's Say input: goal, o_0 and the plan so far, nothing observed after o_0 (§4)."""
        return PolicyQuery(world, ep.instruction, first, history, action_space(ep.household, ep.goal), ep.goal, (),
                           from_initial=True)

    def say_offline_plan(self, ep: Episode, world: WorldInfo, beam: Beam,
                         first: Observation) -> list[tuple[Action, float]]:
        """Say of the paper's decoder: the top-m of the admissible actions and "done task"."""
        query = self.plan_query(ep, world, beam.history, first)
        m = int(self.opts["candidates"])
        section = self.backend.config.section("candidates")
        if self.say_source == "token_logprobs":
            backend = self.backend
            assert isinstance(backend, TokenLogprobs)  # checked when say_source was chosen (__init__)
            answers = backend.next_action_logprobs(query, n=int(section["samples"]))
            return self.say_from_logprobs(answers, query, m)
        samples = next_actions(self.backend, query, m=int(section["samples"]), k=int(section["shots"]))
        return self.say_from_samples(list(samples.texts), int(samples.done), query, m,
                                     float(section.get("softmax_scale", 1.0)))

    def say_from_samples(self, texts: list[str], done: int, query: PolicyQuery, m: int,
                         scale: float) -> list[tuple[Action, float]]:
        """The §2.3 estimate over grounded samples (as ``candidate_actions``), with "done task" at the
        share of the answers that said the task is done; top-m, renormalised."""

        total = len(texts) + done
        if total == 0:
            raise LLMError("Say gave neither an action nor 'done task'")
        p_done = done / total
        out: list[tuple[Action, float]] = [(DONE, p_done)] if done else []
        if texts:
            resources = self.backend.resources
            warm_actions(resources, query.world)
            sims = grounder_of(resources).action_similarities(texts, list(query.admissible))
            ranked = say_candidates(sims, list(query.admissible), max(1, m - 1) if done else m, scale)
            out += [(a, (1.0 - p_done) * p) for a, p in ranked]
        out.sort(key=lambda c: -c[1])
        return _renormalised(out[:m])

    def say_from_logprobs(self, answers: Sequence[tuple[str, float]], query: PolicyQuery,
                          m: int) -> list[tuple[Action, float]]:
        """The seed's Say: p(a) = exp(sum of the answer's token log-probabilities), each distinct answer
        mapped onto its closest admissible action ("done task" kept as such); top-m, renormalised."""
        best: dict[Action, float] = {}
        for text, logprob in dict(answers).items():
            action = self.closest(text, query)
            best[action] = best.get(action, 0.0) + math.exp(float(logprob))
        if not best:
            raise LLMError("Say gave no answer with token log-probabilities")
        return _renormalised(sorted(best.items(), key=lambda c: -c[1])[:m])

    def closest(self, text: str, query: PolicyQuery) -> Action:
        """The admissible action closest to a generated text (the seed maps generations onto the
        admissible list; here by the grounder's sentence similarity), or "done task"."""
        clean = " ".join(text.lower().strip().rstrip(".").split())
        if clean in ("done", "done task") or clean.startswith("done"):
            return DONE
        resources = self.backend.resources
        warm_actions(resources, query.world)
        sims = grounder_of(resources).action_similarities([clean], list(query.admissible))
        return query.admissible[int(np.argmax(sims[0]))]

    def full_observation(self, ep: Episode) -> Observation:
        """o_0 as an observation that shows every object where it is (fully observed initial state);
        the paper's decoder's o_0 also shows the on/off state of every switchable thing the goal names."""
        first = ep.household.observe(ep.initial)
        h = ep.household
        containers = frozenset(f for f in h.furniture if h.is_container[f])
        opened = frozenset(ep.initial.opened) & containers
        full = dataclasses.replace(first, relations=h.facts(ep.initial), seen_places=frozenset(h.furniture),
                                   open_containers=opened if self.variant == "paper" else first.open_containers,
                                   closed_containers=(containers - opened) if self.variant == "paper"
                                   else first.closed_containers)
        switches = frozenset(h.goal_switchables(ep.goal))
        if self.variant != "paper" or not switches:
            return full
        on = switches & ep.initial.switched_on
        return dataclasses.replace(full, switched_on=on, switched_off=switches - on)

    # ------------------------------------------------------------------- scoring
    def scored(self, ep: Episode, builder: ExampleBuilder, beams: Sequence[Beam],
               proposals: Sequence[Sequence[tuple[Action, float]]]) -> list[list[Candidate]]:
        """Can and Pay for every (beam, candidate) in one batch, and the decoding score."""
        pairs = [(b, a, p) for b, cands in zip(beams, proposals, strict=True) for a, p in cands]
        x = None
        if pairs and self.models is not None and self.needs_models:
            x = self.featurizer.transform([builder(b.history, a) for b, a, _p in pairs])
        can = self.can_probs(ep, pairs, x) if self.score != "say" else np.ones(len(pairs))
        pay = self.pay_probs(pairs, x) if self.score == "saycanpay" else np.ones(len(pairs))
        out: list[list[Candidate]] = [[] for _ in beams]
        index = {id(b): i for i, b in enumerate(beams)}
        for (b, a, p_say), c, q in zip(pairs, can, pay, strict=True):
            terms = ([p_say] + ([c] if self.score in ("saycan", "saycanpay") else [])
                     + ([q] if self.score == "saycanpay" else []))
            score = sum(math.log(max(float(t), self.floor)) for t in terms)
            out[index[id(b)]].append(Candidate(a, float(p_say), float(c), float(q), score))
        return out

    def can_probs(self, ep: Episode, pairs: Sequence[tuple[Beam, Action, float]], x: np.ndarray | None) -> np.ndarray:
        """p_can: the learned model (§6.1), or the exact check in the true state along the plan (oracle
        Can: preconditions; for "done task" the goal, footnote 2)."""
        if self.can_kind == "oracle":
            floor = float(self.opts["oracle_floor"])
            h = ep.household
            return np.array([(1.0 if h.satisfied(b.state, ep.goal) else floor) if a == DONE else
                             (1.0 if h.why_not(b.state, a) is None else floor) for b, a, _p in pairs])
        assert self.models is not None and x is not None
        return self.models.can(x)

    def pay_probs(self, pairs: Sequence[tuple[Beam, Action, float]], x: np.ndarray | None) -> np.ndarray:
        """p_pay = f_heur (§6.2)."""
        assert self.models is not None and x is not None
        return self.models.pay(x)

    def extend(self, ep: Episode, beam: Beam, cand: Candidate) -> Beam:
        """Append an action. The paper's decoder: "done task" ends the sequence; the oracle decoder:
        the true state ends it when it satisfies the goal. The true state follows the plan (no change
        where infeasible) for the oracle decoder's Say and the oracle Can."""
        h = ep.household
        if cand.action == DONE:
            return dataclasses.replace(beam, f_acc=beam.f_acc + cand.score, done=True, said_done=True)
        state = beam.state if h.why_not(beam.state, cand.action) is not None else h.transition(beam.state, cand.action)
        observations = beam.observations + (h.observe(state),) if self.variant == "oracle" else ()
        done = h.satisfied(state, ep.goal) if self.variant == "oracle" else False
        return Beam(beam.history + (cand.action,), state, observations, beam.f_acc + cand.score, done)

    # ------------------------------------------------------------------ decoding
    def decode(self, ep: Episode, strategy: str | None = None) -> DecodeResult:
        strategy = strategy or str(self.opts["strategy"])
        if strategy == "greedy_action":
            return self.beam_action(ep, k=1, keep_trace=True)
        if strategy == "beam_action":
            return self.beam_action(ep, k=int(self.opts["beam_size"]))
        if strategy == "greedy_token":
            return self.greedy_token(ep)
        raise ConfigError(f"unknown decoding strategy '{strategy}' (greedy_action, beam_action, greedy_token)")

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
        at_goal = self.variant == "oracle" and ep.household.satisfied(ep.initial, ep.goal)
        beams = [Beam((), ep.initial, (), 0.0, at_goal)]
        calls, trace, message = 0, [], ""
        for _step in range(int(self.opts["max_steps"]) + (1 if self.variant == "paper" else 0)):
            live = [b for b in beams if not b.done]
            if not live:
                break
            try:
                proposals = [self.say(ep, world, b, first) for b in live]
            except LLMError as exc:
                message = f"Say failed: {exc}"
                break
            calls += len(live)
            if self.variant == "paper" and len(live[0].history) >= int(self.opts["max_steps"]):
                proposals = [[c for c in cands if c[0] == DONE] for cands in proposals]  # the horizon: only "done"
                if not any(proposals):
                    break
            scored = self.scored(ep, builder, live, proposals)
            if keep_trace:
                trace.append(sorted(scored[0], key=lambda c: -c.score))
            pool = [b for b in beams if b.done] + [self.extend(ep, b, c) for b, cands in zip(live, scored, strict=True)
                                                   for c in cands]
            if not pool:
                message = "Say proposed no candidate action"
                break
            beams = sorted(pool, key=lambda b: -b.normalised)[:k]
        finished = [b for b in beams if b.done]
        best = max(finished or beams, key=lambda b: b.normalised)
        if not best.done and not message:
            ending = "said 'done task'" if self.variant == "paper" else "reached the goal"
            message = f"no sequence {ending} within {self.opts['max_steps']} steps"
        return DecodeResult(list(best.history), best.done, calls, self.backend.usage.requests - requests,
                            time.perf_counter() - started, trace, message, self.say_source)

    def greedy_token(self, ep: Episode) -> DecodeResult:
        """Greedy-Token (§4, Planning LM): the greedy generation at every step, mapped onto the closest
        admissible action, appended, until "done task"; needs token log-probabilities."""
        logprobs = self.backend
        if not isinstance(logprobs, TokenLogprobs) or not token_logprobs_backend(logprobs):
            raise ConfigError(f"Greedy-Token needs a backend with token log-probabilities (logprobs); the "
                              f"{getattr(self.backend, 'name', '?')} backend offers none")
        started = time.perf_counter()
        requests = self.backend.usage.requests
        world = WorldInfo.from_household(ep.household)
        first = self.full_observation(ep)
        plan: list[Action] = []
        message, done, calls = "", False, 0
        for _step in range(int(self.opts["max_steps"]) + 1):
            query = self.plan_query(ep, world, tuple(plan), first)
            try:
                answers = logprobs.next_action_logprobs(query, n=1, greedy=True)
            except LLMError as exc:
                message = f"Say failed: {exc}"
                break
            calls += 1
            if not answers:
                message = "the model generated nothing"
                break
            action = self.closest(answers[0][0], query)
            if action == DONE:
                done = True
                break
            plan.append(action)
        if not done and not message:
            message = f"the model did not say 'done task' within {self.opts['max_steps']} steps"
        return DecodeResult(plan, done, calls, self.backend.usage.requests - requests, time.perf_counter() - started,
                            [], message, "token_logprobs")


def _renormalised(cands: list[tuple[Action, float]]) -> list[tuple[Action, float]]:
    total = sum(p for _a, p in cands)
    return [(a, p / total) for a, p in cands] if total > 0 else [(a, 1.0 / len(cands)) for a, _p in cands]

