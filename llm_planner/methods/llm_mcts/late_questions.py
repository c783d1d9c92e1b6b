"""Questions that run past their decision (the ``anytime`` part of LLM-MCTS's scheduler).

When the decision's time budget (``decision_time_s``) cannot wait for a node's pi(a|h), the search
gives the node the uniform pi, marked provisional, and expands it as UCT would; the node's question
is sent here and keeps running. Its answer replaces the provisional pi when the search next looks
(:meth:`LateQuestions.harvest`, at the start of every simulation and of every decision), in this
decision or a later one: the tree is kept between decisions (``reuse_tree``), as in anytime MCTS,
where an evaluation that arrives late still improves the statistics it belongs to.

At most ``width`` questions run (or wait) here at once; a provisional node that finds no room is
sent again when a simulation passes it later. Each question is bounded by the backend's own
timeouts; one that fails leaves its node with the uniform pi and is counted, never raised (the
decision that needed it was already taken without it). This module knows nothing of Algorithm 1:
it holds futures per node and hands answers back.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from llm_planner.errors import LLMError
from llm_planner.methods.llm_mcts.tree import Node


@dataclass
class LateCounts:
    """What the late questions did, since the last :meth:`LateQuestions.take_counts`."""

    sent: int = 0
    answered: int = 0
    failed: int = 0


class LateQuestions:
    """A bounded pool of pi(a|h) questions whose answers are applied when they arrive."""

    def __init__(self, width: int) -> None:
        if width < 1:
            raise ValueError(f"late questions need a width of at least 1, got {width}")
        self.width = width
        self._pool: ThreadPoolExecutor | None = None
        self._pending: dict[int, tuple[Node, Future]] = {}
        self._sent: dict[int, float] = {}  # time.monotonic() each pending question left
        self.counts = LateCounts()

    def full(self) -> bool:
        """True when ``width`` questions (or more, counting adopted ones) run here: a new one would wait."""
        return len(self._pending) >= self.width

    def running_seconds(self) -> list[float]:
        """How long each question here has run so far."""
        now = time.monotonic()
        return [now - self._sent.get(key, now) for key in self._pending]

    def pending(self, node: Node) -> Future | None:
        """The question in flight for ``node``, if any."""
        entry = self._pending.get(id(node))
        return entry[1] if entry else None

    def send(self, node: Node, ask: Callable[[], list[float]]) -> bool:
        """Send ``node``'s question unless it is in flight already or ``width`` questions are; True
        when it is (now or before) in flight."""
        if id(node) in self._pending:
            return True
        if len(self._pending) >= self.width:
            return False
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.width, thread_name_prefix="llm-mcts-late")
        self._pending[id(node)] = (node, self._pool.submit(ask))
        self._sent[id(node)] = time.monotonic()
        self.counts.sent += 1
        return True

    def adopt(self, node: Node, future: Future, sent: float | None = None) -> None:
        """Keep ``node``'s question, already running outside this pool since ``sent`` (time.monotonic();
        None: now), the root's, which the search waited for as long as its budget allowed, or a wave's,
        as a late one; it counts towards ``width``."""
        self._pending[id(node)] = (node, future)
        self._sent[id(node)] = time.monotonic() if sent is None else sent
        self.counts.sent += 1

    def harvest(self) -> None:
        """Give every node whose question has ended its answer (a failed one keeps the uniform pi)."""
        done = [key for key, (_node, future) in self._pending.items() if future.done()]
        for key in done:
            node, future = self._pending.pop(key)
            self._sent.pop(key, None)
            self._apply(node, future)

    def wait_for(self, node: Node, timeout: float | None = None) -> bool:
        """Wait for ``node``'s question at most ``timeout`` seconds (None: until it ends, bounded by
        the backend's timeouts) and apply its answer if it ended; True when it did (a failed one
        counts as ended). A question still running stays pending."""
        entry = self._pending.get(id(node))
        if entry is None:
            return False
        done, _ = wait([entry[1]], timeout=timeout)
        if not done:
            return False
        del self._pending[id(node)]
        self._sent.pop(id(node), None)
        self._apply(*entry)
        return True

    def _apply(self, node: Node, future: Future) -> None:
        if future.cancelled() or future.exception() is not None:
            if not future.cancelled() and not isinstance(future.exception(), LLMError):
                raise future.exception()  # type: ignore[misc]  # a bug, not a model's failure
            self.counts.failed += 1
            return
        node.pi = future.result()
        node.provisional = False
        self.counts.answered += 1

    def take_counts(self) -> LateCounts:
        counts, self.counts = self.counts, LateCounts()
        return counts

    def close(self) -> None:
        """Cancel the questions not started; those running end within their timeouts, unwaited."""
        pool, self._pool, self._pending, self._sent = self._pool, None, {}, {}
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
