"""STaLM, Algorithm 1 of seed 003, as a policy that plans from a state::

    TaskPlans <- QueryLLM(CreatePrompt(s0, G), N_batch)
    success, Plans <- Concretize(TaskPlans, s0, h)
    if success: return Plans
    Q <- WarmStartedUCT(Plans, s0, h, N_budget).Q
    return argmax_{a, delta, kappa} Q(s, a(delta, kappa))

A :class:`Policy` returns the steps to execute: the whole plan when one reaches the goal in the
model, else the single best root action (the caller executes it and plans again from the new
state, as the seed's closed loop does). The baselines (``baselines.py``) share the
:class:`Context`: the world model, the predicate computer, the plan source and the parameters.
"""
from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field

from llm_planner.domains.gtamp.config import GTampConfig
from llm_planner.domains.gtamp.domain import GState, ProblemSpec, TaskAction
from llm_planner.domains.gtamp.operators import GTampModel
from llm_planner.domains.gtamp.predicates import Literals, PredicateComputer
from llm_planner.methods.stalm.asking import PlanQuestion, send
from llm_planner.methods.stalm.llm_source import PlanSource
from llm_planner.methods.stalm.plan_parser import ParsedPlan, Vocabulary, parse_plan
from llm_planner.methods.stalm.prompt import PromptOptions, create_prompt, plan_tokens
from llm_planner.methods.stalm.search import Deadline, HybridUCT, Step, as_deadline, concretize


@dataclass
class Context:
    """Everything a G-TAMP policy plans with (one per episode)."""

    problem: ProblemSpec
    model: GTampModel
    predicates: PredicateComputer
    llm: PlanSource | None
    config: GTampConfig
    rng: random.Random
    vocab: Vocabulary

    @classmethod
    def build(cls, problem: ProblemSpec, config: GTampConfig, llm: PlanSource | None, seed: int = 0) -> Context:
        model = GTampModel(problem, config, seed)
        vocab = Vocabulary(problem.object_names, problem.region_names, problem.door_names)
        # Three streams: the model's samples (the search), the policy's, the prompt predicates'.
        return cls(problem, model, PredicateComputer(model, seed=seed + 2), llm, config,
                   random.Random(seed + 1), vocab)

    def parse(self, texts: Sequence[str]) -> tuple[list[tuple[TaskAction, ...]], list[str]]:
        """Valid task plans (their valid prefixes) and the parse errors, per response."""
        plans, errors = [], []
        for k, text in enumerate(texts, 1):
            parsed: ParsedPlan = parse_plan(text, self.vocab, self.model.validate)
            if parsed.actions:
                plans.append(parsed.actions)
            elif parsed.complete:
                errors.append(f"plan {k}: empty plan")
            errors += [f"plan {k}: {e}" for e in parsed.errors]
        return plans, errors

    def ask(self, prompt: str, n: int) -> tuple[list[tuple[TaskAction, ...]], list[str]]:
        """Ask for up to ``n`` plans (as many as fit in ``search.question_bound_s``) and read them
        (:meth:`read`), waiting for the answer."""
        if self.llm is None:
            return self.read([])
        return self.read(self.llm.task_plans(prompt, n, self.config.search.question_bound_s))

    def plan_tokens(self, literals: Literals, options: PromptOptions) -> int:
        """The answer budget a plan needs from ``literals`` (:func:`.prompt.plan_tokens`)."""
        p = self.config.prompt
        return plan_tokens(self.problem, literals, options, p.tokens_per_action, p.challenge_tokens)

    def read(self, texts: Sequence[str]) -> tuple[list[tuple[TaskAction, ...]], list[str]]:
        """The task plans of an answer's texts and the parse errors; no texts: why there are none."""
        if self.llm is None:
            return [], ["no language model configured"]
        if not texts:
            return [], [f"the language model gave no answer ({'; '.join(self.llm.errors[-1:])})"]
        return self.parse(texts)


@dataclass
class PlanResult:
    """What a policy decided from one state."""

    steps: list[Step]
    solved: bool
    task_plans: list[tuple[TaskAction, ...]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    simulations: int = 0


class Policy(ABC):
    """Plans from a state; ``h`` is the number of steps already executed (the search depth offset)."""

    name = ""

    def __init__(self, ctx: Context, **params: object) -> None:
        self.ctx = ctx
        self.params = params

    @abstractmethod
    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        """Steps to execute from ``s`` (empty: nothing feasible found)."""

    def questions_open(self) -> int:
        """Questions sent and not answered yet (policies that wait for their answers have none)."""
        return 0

    def _tree_result(self, tree: HybridUCT, plans: list, errors: list[str]) -> PlanResult:
        if tree.solution is not None:
            return PlanResult(tree.solution, True, plans, errors, tree.simulations)
        best = tree.best()
        return PlanResult([best] if best else [], False, plans, errors, tree.simulations)


class StalmPolicy(Policy):
    """Algorithm 1 (with ``n_budget=0``: STaLM without UCT, seed Table 3; with ``options``: the
    prompt ablations of Table 4), with its question running beside the search.

    The question is sent in the background (:mod:`.asking`). An answer that comes within
    ``search.question_patience_s`` (offline, cached, a fast server) is used as Algorithm 1 uses it:
    Concretize, then WarmStartedUCT with N_budget simulations. Otherwise the decision searches
    without plans, which is the no-LLM hybrid UCT of seed §4.2, and when the answer arrives it
    concretizes the plans and warms the tree up with them (Algorithm 4) before the rest of the
    N_budget simulations. A decision that ends without plans (none came in time, none could be
    read) spends ``search.n_budget_without_plans`` simulations (35, the UCT baseline's N_budget of
    seed §4.2), so it is that baseline's search on the same random stream: a model that gives
    nothing leaves STaLM where UCT is. A decision whose simulations are done returns the tree's
    best root action and leaves the question running for the next decision; only a tree with no
    feasible root action (``n_budget=0``) waits for it. The answer to a question sent at an earlier state
    is read from the current one: a plan that starts with the actions executed since has them
    removed, and Concretize checks every step in the model either way. A question is bounded by
    ``search.question_bound_s`` (or ``search.question_share`` of the time budget left when it was
    sent, whichever is less): against a server that answers each plan as a request of its own, it asks
    for only as many of the N_batch plans as fit in that bound at the measured time per plan
    (:meth:`.llm_source.PlanSource.batch`), each for no more tokens than a plan needs
    (:func:`.prompt.plan_tokens`); unanswered by then it is given up (counted in
    ``PlanSource.unanswered``) and the next decision asks again.
    """

    name = "stalm"

    def __init__(self, ctx: Context, n_budget: int | None = None, options: PromptOptions | None = None,
                 n_batch: int | None = None) -> None:
        super().__init__(ctx)
        search = ctx.config.search
        self.n_budget = search.n_budget if n_budget is None else int(n_budget)
        self.n_batch = n_batch or search.n_batch
        self.options = options or PromptOptions(ctx.config.prompt.occlusion_info, ctx.config.prompt.ask_challenges)
        # STaLM without UCT (n_budget 0) has no search to fall back on
        self.n_budget_without_plans = max(self.n_budget, search.n_budget_without_plans) if self.n_budget else 0
        self.question_share = search.question_share
        self.patience_s = search.question_patience_s
        self._pending: PlanQuestion | None = None

    def plan(self, s: GState, h: int, deadline: float | Deadline, history: Sequence[TaskAction]) -> PlanResult:
        ctx = self.ctx
        deadline = as_deadline(deadline)
        errors: list[str] = []
        question = self._question(s, len(history), deadline, errors)
        tree = HybridUCT(ctx.model, s, h, rng=ctx.rng, deadline=deadline)
        texts = question.wait(min(self.patience_s, deadline.remaining()), deadline.stop)
        if texts is None:  # search beside the question until it answers or N_budget is spent
            tree.search(self.n_budget, until=question.done)
            if tree.solution is None and (question.done() or tree.best() is None):
                texts = question.wait(min(question.time_left(), deadline.remaining()), deadline.stop)
        if texts is None:  # no plans: the UCT baseline's budget
            tree.search(self.n_budget_without_plans - tree.simulations)
            self._keep_or_give_up(question, errors)
            return self._tree_result(tree, [], errors)
        self._pending = None
        task_plans, read_errors = ctx.read(texts)
        task_plans = [_unexecuted(p, history[question.step:]) for p in task_plans]
        errors += read_errors
        success, plans = concretize(task_plans, s, h, ctx.model, deadline)
        if success:
            return PlanResult(plans[-1].steps, True, task_plans, errors, tree.simulations)
        errors += [f"plan {k}: {p.failure}" for k, p in enumerate(plans, 1)]
        budget = self.n_budget if task_plans else self.n_budget_without_plans
        tree.run(plans, budget - tree.simulations)
        return self._tree_result(tree, task_plans, errors)

    def _question(self, s: GState, step: int, deadline: Deadline, errors: list[str]) -> PlanQuestion:
        """The question in flight, or a new one for ``s``, bounded by the share of the budget left."""
        if self._pending is not None and self._pending.expired():
            self._give_up(self._pending, errors)
        if self._pending is None:
            literals = self.ctx.predicates.literals(s)
            prompt = create_prompt(self.ctx.problem, literals, self.options)
            tokens = self.ctx.plan_tokens(literals, self.options)
            bound = min(self.question_share * deadline.remaining(), self.ctx.config.search.question_bound_s)
            llm = self.ctx.llm
            self._pending = send(lambda: llm.task_plans(prompt, self.n_batch, bound, tokens) if llm is not None
                                 else [], step, bound)
        return self._pending

    def questions_open(self) -> int:
        return int(self._pending is not None and not self._pending.done())

    def _keep_or_give_up(self, question: PlanQuestion, errors: list[str]) -> None:
        if question.expired():
            self._give_up(question, errors)
        else:
            errors.append(f"the plan question has run {question.elapsed():.0f} s; the search went on "
                          "without its plans, which a later decision uses when they arrive")

    def _give_up(self, question: PlanQuestion, errors: list[str]) -> None:
        self._pending = None
        if self.ctx.llm is not None:
            self.ctx.llm.unanswered += 1
        errors.append(f"the plan question got no answer within {question.bound_s:.0f} s (search.question_bound_s, "
                      f"or search.question_share {self.question_share:g} of the time budget left when it was sent); "
                      "given up")


def _unexecuted(plan: tuple[TaskAction, ...], executed: Sequence[TaskAction]) -> tuple[TaskAction, ...]:
    """``plan`` without the actions executed since it was asked for, when it starts with them."""
    k = len(executed)
    return plan[k:] if k and plan[:k] == tuple(executed) else plan
