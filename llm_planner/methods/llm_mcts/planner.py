"""The registered planners of the LLM-MCTS seed (000, §3.1 "Baselines", Tables 1 and 2).

It is one piece because the six planners of the table are one class, :class:`LLMMCTSPlanner`,
and the baselines are subclasses of at most 25 lines that each change only the belief or the action
selection, so the closed-loop methods, the scheduler's settings and the episode figures are
written once.

=======================  =====================  ===================  =================================
name                     belief b(s0)           action selection     paper
=======================  =====================  ===================  =================================
``llm_mcts``             LLM prior (App. C.2)   PUCT with LLM pi     GPT3.5-MCTS (Ours)
``uct``                  uniform                UCB1, no LLM         UCT [21]
``l_policy``             (none)                 argmax pi, no search GPT3.5 Policy [18]
``no_heuristic_policy``  LLM prior              UCB1, no LLM pi      Table 2, No Heuristic Policy
``uniform_prior``        uniform                PUCT with LLM pi     Table 2, Uniform State Prior
``fully_observable``     the true state         PUCT with LLM pi     Table 2, Fully Observable
=======================  =====================  ===================  =================================

All are driven by the closed loop of ``llm_planner.execution.run_episode``: ``start`` builds the
belief from the first observation, ``decide`` runs SEARCH (Algorithm 1) from the current history
and belief, ``record`` appends the action and updates the belief from the new observation (App.
C.2). Only ``fully_observable`` is given the full state (``needs_full_state``); the others see
observations, their belief and the language model's answers.

``create("llm_mcts")`` with no parameters works: the ``offline`` backend (config/llm.yaml), the
prior built on first use from it and cached as JSON under the LLM cache directory, the expert
data set D of the offline policy loaded or built by the LLM layer. Parameters::

    create("llm_mcts", backend=None | "offline" | "openai" | LanguageModel,
           config=None | {"simulations": 50, ...} | "my_llm_mcts.yaml",
           llm_config=None | {"policy": {"samples": 10}},  # overrides of config/llm.yaml
           prior=None | PriorBelief | "prior.json",
           seed=0, simulations=..., c=..., ...)            # any key of config/llm_mcts.yaml

With a model behind a server most of a decision's time is waiting for answers. The search asks up to
``max_in_flight`` policy questions at once (so does the prior, one object type per question),
expands a node after ``expand_after`` visits, waits for at most ``max_waves`` rounds of questions,
and keeps the subtree of the real step for the next decision (``reuse_tree``): the scheduler of
``llm_planner.methods.llm_mcts.scheduler``; docs/design.md says what each changes in Algorithm 1
and why. What the episodes cost comes as plain data: :meth:`LLMMCTSPlanner.episode_stats`.

Bad input ends the episode at once with a Decision saying why (never 30 steps of wandering): a
goal the apartment cannot satisfy, a belief that has no place left for a goal object, a zero
simulation budget, a missing LLM resource (naming the command that builds it), and an LLM error
during a search (with the decision step and simulation it happened at; an answer that names no
admissible action is no error: pi is uniform at that node, and the decision says so).
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import threading
import time
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import yaml

from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.episode import HouseholdPlanner, Task, goal_object_beliefs
from llm_planner.domains.household.world.symbolic import Action, Household, Observation, State
from llm_planner.errors import ConfigError, DecisionCanceled, GoalError, LLMError, LlmPlannerError, ModelServerError
from llm_planner.llm.openai_backend import UnusableAnswer
from llm_planner.methods.llm_mcts.belief import Belief
from llm_planner.methods.llm_mcts.config import load_config, search_config
from llm_planner.methods.llm_mcts.mcts import LLMMCTS, seen_switches
from llm_planner.methods.llm_mcts.policy import PolicyStats
from llm_planner.methods.llm_mcts.runtime import BUILD_HINT, LLMRuntime, llm_runtime, prior_for, warm_up_actions
from llm_planner.methods.llm_mcts.tree import SearchConfig, SearchResult, SearchStats, argmax_ties
from llm_planner.planners.base import BELIEF_PLACES, Decision, ObjectBelief, PlannerStats, register

if TYPE_CHECKING:
    from llm_planner.llm.base import Usage


def observed_state(household: Household, observation: Observation, opened: set[str] | frozenset[str],
                   switched_on: set[str] | frozenset[str] = frozenset()) -> State:
    """A state showing exactly what the observation shows (unseen objects have no place), with the
    containers ``opened`` and the things ``switched_on`` remembered: its admissible actions are
    those of every state consistent with the observation."""
    placement: list[str | None] = [None] * len(household.objects)
    for _rel, obj, place in observation.relations:
        i = household.index.get(obj)
        if i is not None:
            placement[i] = place
    return State(observation.room, observation.near, observation.holding, tuple(placement), frozenset(opened),
                 frozenset(switched_on))


@dataclass
class LLMMCTSStats(PlannerStats):
    """The figures of an LLM-MCTS planner's episodes beyond every planner's: what its searches did
    and what its decisions cost (the cost columns of ``llm-planner bench household``, App. E)."""

    search: SearchStats = field(default_factory=SearchStats)  # summed over the decisions' searches
    decision_llm_requests: int = 0   # model questions asked during decide (not the prior)
    decide_seconds: float = 0.0      # time spent in decide (planning_time_s also counts start: prior, warm-up)
    decision_seconds: list[float] = field(default_factory=list)  # wall time of each decision
    policy_seconds: float = 0.0      # time inside pi(a|h) (answering, grounding), summed over the questions
                                     # (concurrent questions overlap: see search.wait_seconds)
    unusable_answers: int = 0        # policy questions the model answered with nothing usable (pi uniform)
    decision_usage: Usage | None = None  # the backend's Usage spent inside decide: HTTP requests and tokens
    world_model_reliability: float | None = None  # of the prior's answers (None: no prior)
    policy_samples: PolicyStats = field(default_factory=PolicyStats)  # the policy's samples in these episodes
    policy_reliability: float | None = None  # the policy's reliability over the process's run (None: no samples)


# ------------------------------------------------------------------------------- planners
@register("llm_mcts")
class LLMMCTSPlanner(HouseholdPlanner):
    """LLM-MCTS: LLM prior belief + PUCT guided by the LLM policy (seed 000, Algorithm 1)."""

    #: b(s0) from the language model (App. C.2); False: uniform over containers and surfaces.
    uses_prior: bool = True
    #: pi(a|h) from the language model in PUCT; False: UCB1 without a policy (the UCT baselines).
    uses_policy: bool = True
    #: Algorithm 1 at every decision; False: act on argmax pi(a|h) directly (L-Policy).
    searches: bool = True
    label = "GPT3.5-MCTS (Ours) with the configured backend"
    #: settings a method keeps from the paper whatever config/llm_mcts.yaml says (a parameter overrides)
    paper_defaults: ClassVar[dict[str, Any]] = {}
    stats: LLMMCTSStats

    def __init__(self, backend: Any = None, config: Mapping[str, Any] | str | Path | None = None,
                 llm_config: Mapping[str, Any] | None = None, prior: Any = None, seed: int | None = None,
                 **params: Any) -> None:
        super().__init__(backend=backend, config=config, llm_config=llm_config, prior=prior, seed=seed, **params)
        self.cfg = load_config(config, **{**self.paper_defaults, **params})
        if seed is not None:
            self.cfg["seed"] = int(seed)
        self.search_cfg = search_config(self.cfg)
        if not self.uses_policy:
            self.search_cfg = dataclasses.replace(self.search_cfg, selection="uct")
        self.backend_param = backend
        self.llm_config = copy.deepcopy(dict(llm_config or {}))
        self.prior_param = prior
        self.runtime: LLMRuntime | None = None
        self.stats = LLMMCTSStats()
        self._figures_lock = threading.Lock()
        self.last_result: SearchResult | None = None
        self.mcts: LLMMCTS | None = None
        self._policy_counts_before: PolicyStats | None = None  # the runtime policy's counts at the first start
        self._reset_episode()

    def _reset_episode(self) -> None:
        if self.mcts is not None:
            self.mcts.close()  # questions of the last episode still running (anytime) end unwaited
        self.household: Household | None = None
        self.belief: Belief | None = None
        self.mcts = None
        self.history: list[Action] = []
        self.observations: list[Observation] = []
        self.failure = ""
        self.step = 0
        self.switches: tuple[str, ...] = ()  # the switchable things the goal names (their states are kept)
        self.world: WorldInfo | None = None
        #: the backend's usage when the last decision (or the prior) ended: questions that land after
        #: it, while the robot acts (an anytime search's late questions), count at the next decision
        self._usage_mark: Any = None

    # ------------------------------------------------------------------ description
    def describe(self) -> str:
        parts = [f"{self.name}: {self.label}"]
        if self.searches:
            s = self.search_cfg
            parts.append(f"Algorithm 1 with N={s.simulations} simulations, {s.selection.upper()} c={s.c:g}, "
                         f"gamma={s.gamma:g}, epsilon={s.epsilon:g} (depth {s.depth_cut()}), "
                         f"reward {s.goal_reward:g}, histories keyed by {s.history_key}")
        parts.append(f"belief: {self._belief_kind()}")
        if self.uses_policy or self.uses_prior:
            parts.append(f"language model: {self.runtime.describe() if self.runtime else self.backend_name()}")
            parts.append(self._describe_reliability())
        else:
            parts.append("no language model")
        return "; ".join(parts)

    def _describe_reliability(self) -> str:
        """How far the model's answers are trusted: its measured reliability per question kind, and
        how an answer naming no admissible action is read."""
        mix = bool(self.cfg.get("reliability_mix"))
        trust = "pi and prior mixed with uniform by" if mix else "trusted fully (reliability_mix off);"
        kinds = []
        if self.uses_policy:
            share = f"{self.runtime.policy.stats.reliability():.2f}" if self.runtime else "not measured yet"
            kinds.append(f"policy {share}")
        if self.uses_prior:
            wm = self.stats.world_model_reliability
            kinds.append(f"world model {'not measured yet' if wm is None else f'{wm:.2f}'}")
        text = f"{trust} the model's reliability (share of samples that read): {', '.join(kinds)}"
        if self.uses_policy and self.runtime is not None:
            config = self.runtime.backend.config
            mode = str(config.get("policy.inadmissible"))
            floor = f" (cosine >= {float(config.get('policy.inadmissible_floor')):g})" if mode == "nearest" else ""
            text += f"; an action naming no admissible one is {mode}{floor}"
        served = self.runtime is None or bool(self.runtime.backend.server_url())
        if self.searches and self.search_cfg.decision_time_s > 0 and served:
            text += (f"; past {self.search_cfg.decision_time_s:g} s a node gets "
                     + ("a provisional uniform pi (anytime)" if self.search_cfg.anytime else "a rollout"))
            if self.search_cfg.anytime:
                text += (f", the root too once its question is unanswered after "
                         f"{self.search_cfg.root_wait_share * self.search_cfg.decision_time_s:g} s, or at once "
                         "while the server's recent answers came later than that")
        if self.uses_policy and self.search_cfg.reliability_floor > 0:
            text += (f"; a policy under reliability {self.search_cfg.reliability_floor:g} (after "
                     f"{self.search_cfg.reliability_samples} samples) is asked by one search in "
                     f"{self.search_cfg.unreliable_every}")
        return text

    def backend_name(self) -> str:
        if self.backend_param is None:
            return str(self.cfg["backend"])
        return str(getattr(self.backend_param, "name", self.backend_param))

    def _belief_kind(self) -> str:
        return "LLM commonsense prior (App. C.2)" if self.uses_prior else "uniform"

    def belief_key(self) -> Hashable:
        """The belief b(s) as it is now: its probabilities (exact bytes) and the containers it
        believes open; None before an episode starts."""
        if self.belief is None:
            return None
        return hashlib.blake2b(self.belief.probs.tobytes(), digest_size=16).hexdigest(), frozenset(self.belief.opened)

    def describe_belief(self, k: int = BELIEF_PLACES) -> tuple[ObjectBelief, ...]:
        """The searched belief b(s) of the goal's objects (l_policy searches none: empty)."""
        if not self.searches or self.belief is None or self.household is None or self.task is None:
            return ()
        return goal_object_beliefs(self.household, self.task.goal, self.belief.top, self.belief.holding, k)

    # ---------------------------------------------------------------------- episode
    def start(self, task: Task, observation: Observation, full_state: State | None = None) -> None:
        self._reset_episode()
        self.task = task
        household = self.household = task.household
        self.switches = household.goal_switchables(task.goal)
        observation = seen_switches(observation, self.switches)
        self.observations = [observation]
        try:
            household.check_goal(task.goal)
        except GoalError as exc:
            self.failure = f"the goal cannot be achieved in this apartment: {exc}"
            return
        if self.searches and self.search_cfg.simulations == 0:
            self.failure = ("zero search budget: simulations = 0, so Algorithm 1 cannot estimate any action; "
                            "set simulations >= 1 (the paper uses 100)")
            return
        try:
            with self.stats.timing():
                self._prepare(task, observation, full_state)
        except DecisionCanceled:
            raise                   # the closed loop's stop request: the episode ends canceled, not failed
        except LlmPlannerError as exc:
            self.failure = f"{self.name} cannot start: {exc}"
            if isinstance(exc, LLMError) and not isinstance(exc, ModelServerError):
                self.failure += f"; {BUILD_HINT}"  # a server's failure names its own remedy
            return
        problem = self.belief.goal_support_problem(task.goal) if self.belief else ""
        if problem:
            self.failure = problem

    def _prepare(self, task: Task, observation: Observation, full_state: State | None) -> None:
        household = task.household
        if self.uses_prior or self.uses_policy:
            self.runtime = llm_runtime(self.backend_param, self.llm_config, str(self.cfg["backend"]),
                                       scope=self._scope())

            self.world = WorldInfo.from_household(household)
            if self.uses_policy:
                warm_up_actions(self.runtime, household, task.goal)
        before = self._usage()
        self.belief = self._initial_belief(household, full_state)
        self.belief.update(observation)
        self.stats.llm_requests += self._requests_since(before)
        self._usage_mark = self._usage()
        policy = self._policy_fn if self.uses_policy else None
        trust = self.runtime.policy.stats.reliability if policy and self.runtime and self.cfg.get("reliability_mix") \
            else None
        if self.runtime is not None and self._policy_counts_before is None:
            self._policy_counts_before = dataclasses.replace(self.runtime.policy.stats)
        clock = self.runtime.backend.answer_times("policy") if policy and self.runtime else None
        reliability = self._reliability if policy and self.runtime else None
        self.mcts = LLMMCTS(household, task.goal, self._episode_search_config(), policy, seed=int(self.cfg["seed"]),
                            trust=trust, answer_clock=clock, reliability=reliability)

    def _episode_search_config(self) -> SearchConfig:
        """The search settings of this episode: ``decision_time_s`` bounds the waits for a model
        server; a model that answers in this process (the offline backend) computes its answers as
        part of the search, whose simulations the budget does not bound either, so it has none."""
        if self.runtime is not None and not self.runtime.backend.server_url():
            return dataclasses.replace(self.search_cfg, decision_time_s=0.0)
        return self.search_cfg

    def _reliability(self) -> tuple[int, float]:
        """The policy's samples measured over the process's run and the share that read (the
        scheduler's ``reliability_floor``)."""
        assert self.runtime is not None
        stats = self.runtime.policy.stats
        return stats.samples, stats.reliability()

    def _scope(self) -> str:
        """The policy answers this planner shares: those of planners with the same name and settings
        (all but the seed), so a variant's cost figures never count answers another variant paid for."""
        settings = {k: v for k, v in self.cfg.items() if k != "seed"}
        return f"{self.name}:{yaml.safe_dump(settings, sort_keys=True)}"

    def _initial_belief(self, household: Household, full_state: State | None) -> Belief:
        if not self.uses_prior:
            return Belief.uniform(household)
        prior = self.prior_param
        if prior is None or isinstance(prior, (str, Path)):
            assert self.runtime is not None  # _prepare built it for a planner that uses the prior
            prior = prior_for(self.runtime, household, prior or self.cfg.get("prior_file"),
                              max_in_flight=self.search_cfg.max_in_flight, should_stop=self.should_stop)
        table = {t: prior.distribution(t) for t in household.scene.object_types if t in prior.probs}
        named = {t: [p for p, n in prior.counts.get(t, {}).items() if n > 0] for t in table}
        self.stats.world_model_reliability = prior.reliability()
        trust = {t: prior.reliability(t) for t in table} if self.cfg.get("reliability_mix") else None
        return Belief.from_prior(household, table, floor=float(prior.floor), named=named,
                                 room_floor_weight=float(self.cfg["room_floor_weight"]), trust=trust)

    def _policy_fn(self, history: tuple[Action, ...], past: tuple[Observation, ...], observation: Observation,
                   actions: Sequence[Action]) -> Sequence[float]:
        """QUERYLLMPOLICY(h) (line 28): the §2.3 empirical policy of the LLM layer for this history.

        A model that answers, but with nothing that names an admissible action (after its retries),
        gives pi uniform at that node: §2.3's estimate from zero usable samples, counted in
        ``unusable_answers`` and said in the decision. A model that does not answer (connection,
        HTTP errors, time-outs) raises: the search cannot go on without it."""

        assert self.task is not None and self.runtime is not None and self.world is not None
        query = PolicyQuery(self.world, self.task.directive, observation, history, tuple(actions), self.task.goal, past)
        started = time.perf_counter()
        try:
            return self.runtime.policy(query)
        except UnusableAnswer:
            with self._figures_lock:
                self.stats.unusable_answers += 1
            return [1.0 / len(actions)] * len(actions)
        finally:
            with self._figures_lock:  # called from the search's question threads
                self.stats.policy_seconds += time.perf_counter() - started

    def decide(self, observation: Observation, full_state: State | None = None) -> Decision:
        self.stats.decisions += 1
        self.step += 1
        observation = seen_switches(observation, self.switches)
        if self.failure:
            return Decision(None, self.failure)
        assert self.belief is not None and self.task is not None
        if observation != self.observations[-1]:  # a fresher observation than the one recorded
            self.observations[-1] = observation
            self.belief.update(observation)
        problem = self.belief.goal_support_problem(self.task.goal)
        if problem:
            self.failure = problem
            return Decision(None, problem)
        self.stats.llm_requests += self._requests_since(self._usage_mark)  # late ones that landed meanwhile
        before = self._usage()
        started = time.perf_counter()
        try:
            with self.stats.timing():
                decision = self._decide(observation, full_state)
        except LLMError as exc:
            where = (f" during simulation {self.mcts.simulation} of {self.search_cfg.simulations}"
                     if self.searches and self.mcts else "")
            self.failure = f"LLM error at step {self.step}{where}: {exc}"
            return Decision(None, self.failure)
        finally:
            elapsed = time.perf_counter() - started
            self.stats.decide_seconds += elapsed
            self.stats.decision_seconds.append(elapsed)
            if before is not None and self.runtime is not None:
                spent_usage = self.runtime.backend.usage - before
                if self.stats.decision_usage is None:
                    self.stats.decision_usage = spent_usage
                else:
                    self.stats.decision_usage.add(spent_usage)
            spent = self._requests_since(before)
            self.stats.llm_requests += spent
            self.stats.decision_llm_requests += spent
            self._usage_mark = self._usage()
        return decision

    def _decide(self, observation: Observation, full_state: State | None) -> Decision:
        assert self.mcts is not None and self.belief is not None
        unusable_before = self.stats.unusable_answers
        result = self.mcts.search(self.history, observation, self.belief, past=tuple(self.observations[:-1]),
                                  should_stop=self.should_stop)
        self.last_result = result
        self.stats.search.add(result.stats)
        self.stats.simulations += result.stats.simulations
        if result.action is None:
            return Decision(None, f"step {self.step}: no admissible action in the current observation")
        best = result.q_table()[:3]
        summary = ", ".join(f"{a} Q={q:.2f} N={n} pi={p:.2f}" for a, q, n, p in best)
        unusable = self.stats.unusable_answers - unusable_before
        note = f"; {unusable} policy answer(s) named no admissible action (pi uniform there)" if unusable else ""
        note += self._wait_note(result.stats)
        return Decision(result.action, f"step {self.step}: {result.stats.simulations} simulations; {summary}{note}")

    def _wait_note(self, stats: SearchStats) -> str:
        """What the decision did not wait for or did not ask, and why (the scheduler's reasons)."""
        assert self.mcts is not None
        if stats.gated:
            samples, share = self._reliability()
            return (f"; the policy was not asked: its reliability {share:.2f} over {samples} samples is under "
                    f"reliability_floor {self.search_cfg.reliability_floor:g}")
        if stats.root_unwaited:
            return f"; the root's question was not waited for: {self.mcts.scheduler.unwaited}"
        return ""

    def record(self, action: Action, success: bool, reason: str, observation: Observation) -> None:
        """The action's outcome and the observation after it: history and belief update (App. C.2)."""
        observation = seen_switches(observation, self.switches)
        if success:
            self.history.append(action)
        self.observations.append(observation)
        if self.belief is not None:
            self.belief.update(observation)
        if self.mcts is not None:  # the subtree the next search starts from (reuse_tree)
            self.mcts.advance(action if success else None, observation)

    # -------------------------------------------------------------------- accounting
    def _usage(self) -> Any:
        return self.runtime.backend.usage.copy() if self.runtime else None

    def _requests_since(self, before: Any) -> int:
        """Model questions not served from a cache since ``before`` (for ``openai``: requests
        without retries; for ``offline``: answers the commonsense/retrieval model computed)."""
        if before is None or self.runtime is None:
            return 0
        spent = self.runtime.backend.usage - before
        return int(spent.questions - spent.cache_hits)

    def episode_stats(self) -> LLMMCTSStats:
        """The figures of this planner's episodes so far, with the policy's samples counted up to now
        (its questions may be answered from a cache the planners of one scope share)."""
        if self.runtime is not None and self._policy_counts_before is not None:
            s, before = self.runtime.policy.stats, self._policy_counts_before
            self.stats.policy_samples = PolicyStats(samples=s.samples - before.samples, read=s.read - before.read,
                                                    mapped=s.mapped - before.mapped,
                                                    mapped_similarity=s.mapped_similarity - before.mapped_similarity)
            self.stats.policy_reliability = s.reliability() if s.samples else None
        return self.stats


@register("uct")
class UCTPlanner(LLMMCTSPlanner):
    """UCT [21]: uniform initial belief, UCB1 selection, no language model (§3.1 Baselines)."""

    uses_prior = False
    uses_policy = False
    label = "UCT [21] (uniform belief, UCB1, no language model)"
    # the seed's UCT baseline rolls out uniformly: goal-directed rollouts (rollout_greed) would give it
    # a hand-written heuristic policy (it then solved 79/46/4 % of simple/comp/novel_comp3 tasks)
    paper_defaults = {"rollout_greed": 0.0}


@register("no_heuristic_policy")
class NoHeuristicPolicyPlanner(LLMMCTSPlanner):
    """Table 2 "No Heuristic Policy": the LLM prior belief with plain UCT (no pi in selection)."""

    uses_policy = False
    label = "LLM-MCTS without the heuristic policy (LLM prior, UCB1)"


@register("uniform_prior")
class UniformPriorPlanner(LLMMCTSPlanner):
    """Table 2 "Uniform State Prior": PUCT with the LLM policy over a uniform belief."""

    uses_prior = False
    label = "LLM-MCTS with a uniform state prior (PUCT with the LLM policy)"


@register("fully_observable")
class FullyObservablePlanner(LLMMCTSPlanner):
    """Table 2 "Fully Observable": PUCT with the LLM policy, the belief a point mass on the true
    state at every decision (the one method allowed to read the full state)."""

    needs_full_state = True
    label = "LLM-MCTS, fully observable (belief = the true state)"

    def _belief_kind(self) -> str:
        return "the true state (fully observable ablation)"

    def _initial_belief(self, household: Household, full_state: State | None) -> Belief:
        if full_state is None:
            raise ConfigError("fully_observable needs the full state; the world did not provide it")
        return Belief.point(household, full_state)

    def _decide(self, observation: Observation, full_state: State | None) -> Decision:
        if full_state is None:
            return Decision(None, "fully_observable needs the full state; the world did not provide it")
        assert self.household is not None
        self.belief = Belief.point(self.household, full_state)
        return super()._decide(observation, full_state)


@register("l_policy")
class LPolicyPlanner(LLMMCTSPlanner):
    """L-Policy (GPT3.5 Policy [18]): the LLM policy acts directly, closed loop: at each step the
    action with the largest pi(a|h) given the instruction, the history of actions and the current
    observation (§3.1 Baselines). No belief is searched; no simulation is run."""

    searches = False
    uses_prior = False
    label = "L-Policy (the LLM's empirical policy acts directly, closed loop)"

    def _belief_kind(self) -> str:
        return "none (the policy reads observations only)"

    def _decide(self, observation: Observation, full_state: State | None) -> Decision:
        assert self.household is not None and self.belief is not None and self.mcts is not None
        state = observed_state(self.household, observation, self.belief.opened, self.belief.switched_on)
        actions = self.household.legal_actions(state, self.mcts.movable, self.mcts.switchables)
        if not actions:
            return Decision(None, f"step {self.step}: no admissible action in the current observation")
        probs = list(self._policy_fn(tuple(self.history), tuple(self.observations[:-1]), observation, actions))
        self.stats.search.policy_visits += 1
        self.stats.search.policy_queries += 1
        best = argmax_ties(probs, probs, [0] * len(probs), self.mcts.rng)
        return Decision(actions[best], f"step {self.step}: pi={probs[best]:.2f} for {actions[best]}")
