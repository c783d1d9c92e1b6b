"""How LLM-MCTS's SEARCH runs its simulations and when it asks pi(a|h): the concurrent scheduler.

It is one piece because every mechanism below shares the state of one decision (the wave in
flight, the virtual losses, the budget's clock, the root's provisional pi, the late questions), and
:meth:`Scheduler.policy_at` weighs them all to decide whether a node's question is asked, waited
for, deferred or skipped.

Algorithm 1 (seed 000, §2.4; :mod:`~llm_planner.methods.llm_mcts.mcts`) runs its N simulations one
after the other and asks QUERYLLMPOLICY(h) (line 28) where a simulation needs it. The scheduler
keeps those semantics with ``max_in_flight=1`` and no bounds, and otherwise adds (each with a key
of ``config/llm_mcts.yaml``; docs/design.md, "What differs from a literal reading of Algorithm 1"):

- waves: up to ``max_in_flight`` simulations run until each waits for a node's question; the
  search waits for every question of that wave, then resumes the simulations in start order;
- virtual loss: an edge on the path of a waiting simulation counts in line 29 as one more visit
  with return 0 until the simulation is backed up;
- a bound per decision: after ``max_waves`` waves, or when the next question would end past
  ``decision_time_s``, a node below the root without pi is evaluated by ROLLOUT (lines 23-26);
- anytime: past ``decision_time_s`` such a node gets a provisional uniform pi and its question
  runs on (:mod:`~llm_planner.methods.llm_mcts.late_questions`);
- the root under anytime and ``decision_time_s``: its question (line 28 at h) is waited for at most
  ``root_wait_share`` of the budget; unanswered by then, the root gets the provisional uniform pi,
  the search runs on it as UCT would, and the question runs on as a late one. Without anytime or a
  budget the root's question is always waited for, as in Algorithm 1;
- waits that learn what they buy: the root's question is waited for only while the recent answers of
  the policy's kind at its server came within that wait and their median is within the budget
  (:mod:`llm_planner.llm.waits`); otherwise the root runs on the provisional uniform pi at once and its
  question runs as a late one, measured when it lands, so the waits come back when answers come in
  time again. Below the root, the measured latency predicts whether a question can end within the
  budget before this decision has measured one. With ``anytime`` every wait of a decision with a
  budget (the root's, a wave's, a kept root's) ends by the budget; a wave's questions still running
  then go on as late ones;
- no questions that cannot pay: once ``reliability_samples`` of the policy's samples are measured and
  the share that read is under ``reliability_floor``, only one search in ``unreliable_every`` asks;
  the others search every node without a pi as UCT does (line 29 with r = 0) and ask nothing;
- a stop request (the closed loop's cancel): asked before each simulation and, every
  :data:`~llm_planner.planners.base.STOP_POLL_S`, while a wave or the root waits for answers; it ends the decision with
  :class:`~llm_planner.errors.DecisionCanceled`, leaving the questions in flight to end within
  their timeouts. A sequential search (``max_in_flight=1``) asks it between questions only.

It knows nothing of the search's states and histories beyond what a question needs.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from enum import Enum
from typing import Protocol, TypeVar

from llm_planner.domains.household.world.symbolic import Action, Observation
from llm_planner.errors import DecisionCanceled
from llm_planner.methods.llm_mcts.late_questions import LateQuestions
from llm_planner.methods.llm_mcts.tree import Node, PolicyFn, SearchConfig, SearchStats, uniform
from llm_planner.planners.base import wait_unless_stopped

#: (samples measured, share that read) of the policy's answers so far
Reliability = Callable[[], tuple[int, float]]


class AnswerClock(Protocol):
    """What the scheduler reads of :class:`llm_planner.llm.waits.AnswerTimes` for the policy's questions."""

    def worth_waiting(self, bound_s: float, budget_s: float = ...) -> str: ...

    def latency(self, bound_s: float = ...) -> float | None: ...

#: A paused simulation (the scheduler only keeps it and hands it back).
SimT = TypeVar("SimT")


class Deferral(Enum):
    """What a simulation does at a node whose pi(a|h) it cannot have now."""

    WAIT = "wait"        # the node's question is in flight: the simulation waits for its wave
    ROLLOUT = "rollout"  # no question this decision: the node is evaluated by ROLLOUT (lines 23-26)


class Scheduler:
    """The order of one episode's simulations and the questions to the policy (line 28).

    ``policy`` None means pi uniform over the admissible actions. The policy is called from
    ``config.max_in_flight`` threads at once when that is above 1 (and from the late questions'
    threads with ``config.anytime``), so it must be safe to call concurrently. What it does is
    counted in the :class:`SearchStats` given to :meth:`begin`."""

    def __init__(self, config: SearchConfig, policy: PolicyFn | None, answer_clock: AnswerClock | None = None,
                 reliability: Reliability | None = None) -> None:
        self.config = config
        self.policy = policy
        #: how long the policy's questions take at its server (None: an in-process model; every wait pays)
        self.answer_clock = answer_clock
        #: the policy's measured reliability (None: never measured, always asked)
        self.reliability = reliability
        self.stats = SearchStats()
        self._asking = True  # this SEARCH asks the policy (reliability_floor)
        self._gated = 0  # searches in a row under the reliability floor
        self._skipped: set[int] = set()  # nodes counted in skipped_unreliable / skipped_busy this SEARCH
        self._busy: set[int] = set()
        self._abandoned = False  # a wave's question still ran when the budget ended its wait
        #: why the last SEARCH did not wait for its root's question ("" when it did)
        self.unwaited = ""
        #: questions of provisional nodes running past their decision (``anytime`` only)
        self.late = LateQuestions(config.late_questions) if config.anytime and policy is not None else None
        self._started = 0.0  # perf_counter at the start of the running SEARCH (decision_time_s)
        #: seconds this SEARCH waited for its root's question in vain: a question takes at least that
        self._root_waited: float | None = None
        self._root_pool: ThreadPoolExecutor | None = None  # root questions (anytime with a budget)
        self._pool: ThreadPoolExecutor | None = None  # questions in flight (concurrent search only)
        self._pending: dict[int, tuple[Node, Future]] = {}
        self._should_stop: Callable[[], bool] | None = None  # the running SEARCH's stop request
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()

    # ------------------------------------------------------------------ one SEARCH
    def begin(self, stats: SearchStats, should_stop: Callable[[], bool] | None = None) -> None:
        """A SEARCH starts now (its time budget too); what it does is counted in ``stats``;
        ``should_stop`` True ends it with :class:`DecisionCanceled` (module docstring)."""
        self.stats = stats
        self._started = time.perf_counter()
        self._root_waited = None
        self._should_stop = should_stop
        self._skipped, self._busy = set(), set()
        self.unwaited = ""
        self._asking = self._may_ask()
        if not self._asking:
            stats.gated += 1

    def _may_ask(self) -> bool:
        """Whether this SEARCH asks the policy: always, unless ``reliability_samples`` samples are
        measured and the share that read is under ``reliability_floor``; then one search in
        ``unreliable_every`` does (so a better model is noticed)."""
        cfg = self.config
        if self.policy is None or self.reliability is None or cfg.reliability_floor <= 0.0:
            return True
        samples, share = self.reliability()
        if samples < cfg.reliability_samples or share >= cfg.reliability_floor:
            self._gated = 0
            return True
        self._gated += 1
        return self._gated % cfg.unreliable_every == 0

    def check_stop(self) -> None:
        """Raise :class:`DecisionCanceled` when the running SEARCH's stop request says so."""
        if self._should_stop is not None and self._should_stop():
            raise DecisionCanceled(f"the decision under way was stopped after {self.stats.simulations} "
                                   "simulation(s)")

    def _wait(self, futures: Sequence[Future], timeout: float | None = None) -> bool:
        """Wait until every future ended (True) or ``timeout`` seconds passed (False; None: no
        bound); raises :class:`DecisionCanceled` when the stop request ends the wait."""
        done = wait_unless_stopped(futures, timeout, self._should_stop)
        if not done:
            self.check_stop()
        return done

    def settle_root(self, root: Node) -> None:
        """A kept root whose pi is provisional gets its answer before the search if it comes in time:
        its late question is waited for up to the root's bound (:meth:`_root_wait`; without one, until
        it ends) while such waits pay (:meth:`_why_not_wait`), or, if none is running, asked anew (by
        :meth:`policy_at`). A root whose question is still running after the bound keeps the
        provisional uniform pi for this search."""
        if self.late is None:
            return
        self.late.harvest()
        if root.provisional and self._asking and self.late.pending(root) is not None and not self._why_not_wait():
            started = time.perf_counter()
            came = self.late.wait_for(root, self._root_wait())
            self._count_wait(started, came)
        if root.provisional and self.late.pending(root) is None:
            root.pi, root.provisional = None, False
        elif root.provisional:
            self._root_ran_provisional()

    def end(self) -> None:
        """The SEARCH is over: the late questions' counts since the last one go to its figures."""
        if self.late is None:
            return
        counts = self.late.take_counts()
        self.stats.late_questions += counts.sent
        self.stats.late_answers += counts.answered
        self.stats.late_failures += counts.failed

    def close(self) -> None:
        """The episode is over: questions still running are left to end within their timeouts."""
        if self.late is not None:
            self.late.close()
        pool, self._root_pool = self._root_pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ waves
    def run(self, simulations: Iterable[SimT], simulate: Callable[[SimT], bool]) -> None:
        """``simulate`` each simulation, up to ``max_in_flight`` at once; ``simulate`` returns False
        when the simulation waits for a question (it is called again with it after the wave).

        One at a time, each simulation runs to its end before the next starts (Algorithm 1). Else
        simulations start until ``max_in_flight`` of them wait for a question; then the search waits
        for every question of that wave and resumes the waiting simulations in start order."""
        concurrent = self.config.max_in_flight > 1 and self.policy is not None
        width = self.config.max_in_flight if concurrent else 1
        pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="llm-mcts-pi") if concurrent else None
        self._pool, self._pending = pool, {}
        self._abandoned = False
        stopped = False
        try:
            waiting: list[SimT] = []
            upcoming = iter(simulations)
            more = True
            while True:
                while more and len(waiting) < width:
                    sim = next(upcoming, None)
                    if sim is None:
                        more = False
                        break
                    if self.late is not None:
                        self.late.harvest()  # answers that came while the search ran
                    self.check_stop()
                    if not simulate(sim):
                        waiting.append(sim)
                if not waiting:
                    return
                self._answer_wave()
                waiting = [sim for sim in waiting if not simulate(sim)]
        except DecisionCanceled:
            stopped = True
            raise
        finally:
            self._pool, self._pending = None, {}
            if pool is not None:  # a stopped decision, or one whose budget ended a wait, leaves its questions
                pool.shutdown(wait=not (stopped or self._abandoned), cancel_futures=True)

    def _answer_wave(self) -> None:
        """Wait for every question in flight and give the nodes their pi. Without a budget the wait
        ends when all have ended (each is bounded by the backend's timeouts); with ``decision_time_s``
        and ``anytime`` it ends by the budget at the latest, and a question still running then goes
        on as a late one, its node on the provisional uniform pi. Without ``anytime`` (the ablation
        that evaluates nodes the budget cannot wait for by ROLLOUT, :meth:`_question_bound`) a wave
        is waited for to its end, as the root's question is there. The first error of an ended
        question is raised once the others are applied."""
        started = time.perf_counter()
        pending = list(self._pending.values())
        budget = self.config.decision_time_s
        bounded = budget > 0 and self.late is not None
        timeout = max(0.0, budget - (started - self._started)) if bounded else None
        done = self._wait([f for _, f in pending], timeout)
        self._pending = {}
        self.stats.waves += 1
        self._count_wait(started, done)
        error: BaseException | None = None
        for node, future in pending:
            if not future.done():
                self._left_running(node, future)
                continue
            self.stats.answered += 1
            failure = future.exception()
            if failure is not None:
                error = error or failure
                continue
            node.pi = future.result()
        if error is not None:
            raise error

    def _left_running(self, node: Node, future: Future) -> None:
        """A wave's question the budget did not wait for (``anytime``): a late one, the node on the
        provisional uniform pi until its answer lands."""
        assert self.late is not None  # only a wave of an anytime search ends by the budget
        self._abandoned = True
        self.stats.out_of_time = 1
        node.pi = uniform(len(node.actions))
        node.provisional = True
        self.stats.provisional += 1
        self.late.adopt(node, future)  # run since its wave was sent: counted from now, the longer remainder

    def _count_wait(self, started: float, came: bool) -> None:
        """A wait of the search ended at ``started`` + now: its time, and whether its answers came."""
        self.stats.wait_seconds += time.perf_counter() - started
        self.stats.waits += 1
        self.stats.waits_in_time += int(came)

    # ------------------------------------------------------------------ virtual loss
    def enter(self, node: Node, i: int) -> None:
        """A simulation took edge (h, a_i): while simulations run at once, a visit with return 0
        there until :meth:`leave` (its virtual loss)."""
        if self._pool is None:
            return
        if node.loss is None:
            node.loss = [0] * len(node.actions)
        node.loss[i] += 1
        node.loss_n += 1

    def leave(self, node: Node, i: int) -> None:
        """The simulation through edge (h, a_i) is backed up: its virtual loss ends."""
        if self._pool is None:
            return
        assert node.loss is not None  # enter made it
        node.loss[i] -= 1
        node.loss_n -= 1

    # ------------------------------------------------------------------ pi(a|h)
    def policy_at(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...],
                  below_root: bool) -> list[float] | Deferral:
        """pi(a|h) of line 28 at ``node`` (asked once per node and kept in it), or why the simulation
        cannot have it now. ``below_root``: the node is not the search's root, whose question is
        waited for up to :meth:`_root_wait` (LLM-MCTS §2.4, Algorithm 1 line 28 at h; see
        :meth:`_root_policy`), or until it is answered when there is no such bound. A search that
        does not ask (:meth:`_may_ask`) gives a node without an answer the uniform pi for this visit."""
        if node.pi is None and not self._asking and self.policy is not None:
            return self._skip(node)
        if not below_root and node.pi is None and self._root_wait() is not None and node.actions \
                and node.obs is not None:
            return self._root_policy(node, history, past)
        bound = self._question_bound() if node.pi is None and below_root else ""
        if bound == "time" and self.late is not None:  # anytime: uniform pi now, the answer later
            return self._provisional(node, history, past)
        if bound:  # not expanded in this decision
            return Deferral.ROLLOUT
        if node.provisional and self.late is not None and self._asking:  # sent again if there was no room before
            self._send_late(node, history, past)
        if node.pi is not None:
            return node.pi
        pi = self._policy_of(node, history, past)
        return Deferral.WAIT if pi is None else pi

    def _skip(self, node: Node) -> list[float]:
        """The uniform pi for a node this search does not ask about (reliability under the floor);
        nothing is kept, so a later search that asks can still ask it."""
        if id(node) not in self._skipped:
            self._skipped.add(id(node))
            self.stats.skipped_unreliable += 1
        return uniform(len(node.actions))

    def _policy_of(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...]) -> list[float] | None:
        """pi(a|h) of a node without one: uniform without a policy; asked at once in a sequential
        search; in a concurrent one sent (once per node) and None returned: the caller waits."""
        if self.policy is None or not node.actions or node.obs is None:
            node.pi = uniform(len(node.actions))
            return node.pi
        if self._pool is None:
            node.pi = self._query_policy(history, past, node.obs, node.actions)
            return node.pi
        if id(node) not in self._pending:
            self.stats.policy_queries += 1
            future = self._pool.submit(self._ask, history, past, node.obs, tuple(node.actions))
            self._pending[id(node)] = (node, future)
        return None

    def _question_bound(self) -> str:
        """Why nothing more is asked and waited for this decision ('' when a question may be): "waves"
        when a concurrent search has waited ``max_waves`` times, "time" when the next question (a
        wave, or one question in a sequential search) would, at the mean time the questions of this
        decision took, end after ``decision_time_s``."""
        stats = self.stats
        if self._pool is not None and 0 < self.config.max_waves <= stats.waves:
            return "waves"
        budget = self.config.decision_time_s
        if budget <= 0:
            return ""
        elapsed = time.perf_counter() - self._started
        if self.unwaited or (not stats.answered and self._why_not_wait()):
            stats.out_of_time = 1  # the policy's answers come too late to wait for, here as at the root
            return "time"
        if stats.answered:
            rounds = stats.waves if self._pool is not None else stats.answered
            estimate = stats.wait_seconds / max(1, rounds)
        else:  # nothing answered in this search: the root's vain wait, or the server's measured latency
            known = [t for t in (self._root_waited, self._measured_latency()) if t is not None]
            if not known and elapsed < budget:
                return ""
            estimate = max(known, default=0.0)
        if elapsed + estimate <= budget and elapsed < budget:
            return ""
        stats.out_of_time = 1
        return "time"

    def _measured_latency(self) -> float | None:
        """The median latency of the policy's recent questions at its server (None: not measured)."""
        budget = self.config.decision_time_s
        if self.answer_clock is None or budget <= 0:
            return None
        return self.answer_clock.latency(self.config.root_wait_share * budget)

    def _late_full(self) -> str:
        """Why the root's question would come too late behind this search's own (""): ``late_questions``
        earlier questions still run, and a server answering one question after another would answer
        the root's after them beyond the root's wait, a question taking the measured latency (or as
        long as the longest of them has run, if longer). Nothing measured yet, the running question
        is one that did not come within its own wait, and the root's is not waited for behind it. A
        fast server (0.5 s against a 5 s wait) is asked at once, whatever runs there."""
        assert self.late is not None
        if not self.late.full():
            return ""
        latency = self._measured_latency()
        if latency is None:
            return f"{self.config.late_questions} earlier question(s) still run at the server (late_questions)"
        running = self.late.running_seconds()
        takes = max([latency, *running])
        behind = sum(max(0.0, takes - seconds) for seconds in running) + takes
        if behind <= (self._root_wait() or 0.0):
            return ""
        return (f"{self.config.late_questions} earlier question(s) still run at the server (late_questions): "
                f"its answer would come in about {behind:.1f} s, after the root's wait")

    def _why_not_wait(self) -> str:
        """Why the root's question is not worth waiting for in this SEARCH ("" when it is): its recent
        answers at the server did not come within the root's wait, or take longer than the budget."""
        budget = self.config.decision_time_s
        if self.answer_clock is None or budget <= 0:
            return ""
        return self.answer_clock.worth_waiting(self.config.root_wait_share * budget, budget)

    def _root_wait(self) -> float | None:
        """Seconds the root's question may still be waited for in this SEARCH: ``root_wait_share`` of
        ``decision_time_s`` from its start (never below 0); None (no bound: the root's question is
        always answered, Algorithm 1) without ``anytime``, a policy or a budget."""
        budget = self.config.decision_time_s
        if self.late is None or budget <= 0:
            return None
        return max(0.0, self.config.root_wait_share * budget - (time.perf_counter() - self._started))

    def _root_policy(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...]) -> list[float]:
        """pi(a|h) at the root under a time bound (LLM-MCTS §2.4, Algorithm 1 line 28 at h).

        When the wait does not pay (:meth:`_why_not_wait`: the recent answers came too late; or
        :meth:`_late_full`: the search's own earlier questions still hold the server), the root gets
        the provisional uniform pi at once and its question is sent as a late one, where there is room.
        Otherwise the question is sent and waited for up to :meth:`_root_wait`. Answered in time, its pi is
        the root's, counted as a question answered inline (sequential) or as a wave of one
        (concurrent: the root's question is alone in the search's first wave), so the search is the
        one without the bound. Unanswered, the root gets the uniform pi, marked provisional, the
        search runs on it as UCT would, and the question is kept as a late one: its answer replaces
        the uniform pi when it arrives, in this decision or a later one. A failed question raises
        (as a wave's does)."""
        assert self.late is not None  # _root_wait is None without it
        why = self._why_not_wait() or self._late_full()
        if why:  # the question runs as a late one, measured when it lands; the root runs on at once
            self.unwaited = why
            self.stats.root_unwaited += 1
            node.pi = uniform(len(node.actions))
            node.provisional = True
            self.stats.root_provisional += 1
            self._send_late(node, history, past)
            return node.pi
        if self._root_pool is None:  # room for the late root questions besides this one
            self._root_pool = ThreadPoolExecutor(max_workers=self.config.late_questions + 1,
                                                 thread_name_prefix="llm-mcts-root")
        obs, actions = node.obs, tuple(node.actions)
        assert obs is not None
        started = time.perf_counter()
        self.stats.policy_queries += 1
        future = self._root_pool.submit(self._ask, history, past, obs, actions)
        sent = time.monotonic()
        done = self._wait([future], timeout=self._root_wait())
        self._count_wait(started, done)
        if done:
            node.pi = future.result()
            self.stats.answered += 1
            if self._pool is not None:
                self.stats.waves += 1
            return node.pi
        self.late.adopt(node, future, sent)
        node.pi = uniform(len(node.actions))
        node.provisional = True
        self._root_ran_provisional()
        return node.pi

    def _root_ran_provisional(self) -> None:
        """This SEARCH's root runs on the provisional uniform pi: counted, and the time waited for
        its question so far is what a question takes at least (:meth:`_question_bound`)."""
        self.stats.root_provisional += 1
        self.stats.out_of_time = 1
        self._root_waited = time.perf_counter() - self._started

    def _provisional(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...]) -> list[float]:
        """The uniform pi for a node the decision's time cannot wait for, marked provisional; its
        question is sent to run on (``anytime``)."""
        assert self.late is not None
        node.pi = uniform(len(node.actions))
        node.provisional = True
        self.stats.provisional += 1
        if node.actions and node.obs is not None:
            self._send_late(node, history, past)
        return node.pi

    def _send_late(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...]) -> None:
        """Send ``node``'s question to run as a late one; one that finds ``late_questions`` running is
        counted (once per node and search) and sent when a simulation passes the node with room."""
        assert self.late is not None
        if not self.late.send(node, self._late_question(node, history, past)) and id(node) not in self._busy:
            self._busy.add(id(node))
            self.stats.skipped_busy += 1

    def _late_question(self, node: Node, history: tuple[Action, ...],
                       past: tuple[Observation, ...]) -> Callable[[], list[float]]:
        obs, actions = node.obs, tuple(node.actions)
        assert obs is not None

        def ask() -> list[float]:
            return self._ask(history, past, obs, actions)
        return ask

    def _query_policy(self, history: tuple[Action, ...], past: tuple[Observation, ...],
                      observation: Observation, actions: Sequence[Action]) -> list[float]:
        """QUERYLLMPOLICY(h) of line 28 asked inline (a sequential search), its wait counted."""
        self.stats.policy_queries += 1
        started = time.perf_counter()
        try:
            answer = self._ask(history, past, observation, actions)
        finally:
            self.stats.wait_seconds += time.perf_counter() - started
        self.stats.answered += 1
        return answer

    def _ask(self, history: tuple[Action, ...], past: tuple[Observation, ...], observation: Observation,
             actions: Sequence[Action]) -> list[float]:
        """One question to the policy (from any thread), counted while in flight.

        Raises ValueError when the policy's answer does not give one probability per action."""
        with self._in_flight_lock:
            self._in_flight += 1
            self.stats.peak_in_flight = max(self.stats.peak_in_flight, self._in_flight)
        try:
            assert self.policy is not None  # asked only with a policy (_policy_of)
            probs = [float(p) for p in self.policy(history, past, observation, actions)]
        finally:
            with self._in_flight_lock:
                self._in_flight -= 1
        if len(probs) != len(actions):
            raise ValueError(f"the policy returned {len(probs)} probabilities for {len(actions)} actions")
        return probs


def with_virtual_loss(node: Node) -> tuple[int, Sequence[float], Sequence[int]]:
    """N(h), Q(h, .) and N(h, .) as line 29 reads them: each simulation in flight below the node
    counts as a visit with return 0 (its virtual loss); without any, the node's own figures."""
    if not node.loss_n or node.loss is None:
        return node.n, node.q, node.na
    na = [n + v for n, v in zip(node.na, node.loss, strict=True)]
    q = [qj * nj / vj if vj else qj for qj, nj, vj in zip(node.q, node.na, na, strict=True)]
    return node.n + node.loss_n, q, na
