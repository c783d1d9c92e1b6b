"""What both backends share, built once per backend and lazily: the Sentence-BERT embedder and
grounder, the expert data set D with its retrieval index (K-shot examples, LLM-MCTS §2.3), and a
table of further parts a backend builds once (:meth:`Resources.shared`)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from llm_planner.domains.household.language.grounding import Grounder
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.retrieval import FIXED_TRANSLATION_EXAMPLES, ExpertIndex, load_expert_data
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.domains.household.world.symbolic import Action, Goal
from llm_planner.errors import LLMError
from llm_planner.llm.config import LLMConfig
from llm_planner.llm.embeddings import Embedder, shared_embedder

T = TypeVar("T")


class Resources:
    """Shared, lazily built parts of the LLM layer (see the module docstring)."""

    def __init__(self, config: LLMConfig, dataset: Sequence | str | Path | None = None,
                 embedder: Embedder | None = None) -> None:
        self.config = config
        emb = config.section("embeddings")
        self.embedder = embedder or shared_embedder(config.embeddings_dir if emb["disk_cache"] else None,
                                                    int(emb["batch_size"]))
        self.grounder = Grounder(self.embedder)
        self._dataset_arg = dataset
        self._expert: ExpertIndex | None = None
        self._shared: dict[Hashable, Any] = {}
        self._warm: set[str] = set()
        self._lock = threading.RLock()

    def shared(self, key: Hashable, build: Callable[[], T]) -> T:
        """The part ``key`` of a backend built once per resources by ``build`` (the offline backend
        keeps its scene knowledge here, the directive reader its goal parsers)."""
        with self._lock:
            if key not in self._shared:
                self._shared[key] = build()
            return self._shared[key]

    def warm_actions(self, world: WorldInfo) -> None:
        """Encode every action sentence the world admits in one batch (once per world): a tree search
        then meets only cached embeddings instead of paying the model call per node."""
        key = world.fingerprint()
        if not self.config.get("embeddings.warm_actions"):
            return
        with self._lock:
            if key in self._warm:
                return
            self._warm.add(key)
        self.embedder.encode(all_action_texts(world))

    # ---------------------------------------------------------------- data set D
    def expert(self) -> ExpertIndex:
        """The retrieval index over D (loaded, or built on first use; see ``offline.dataset``)."""
        with self._lock:
            if self._expert is None:
                trajectories = load_expert_data(self.config, self._dataset_arg)
                self._expert = ExpertIndex(trajectories, self.grounder)
            return self._expert

    def has_expert(self) -> bool:
        try:
            self.expert()
        except LLMError:
            return False
        return True

    def policy_examples(self, query: PolicyQuery, k: int) -> list[str]:
        """K prompt blocks of the K expert trajectories most similar to the instruction (§2.3)."""
        if k <= 0:
            return []
        return self.expert().policy_examples(query, k)

    def translation_examples(self, directive: str, world: WorldInfo, k: int = 3) -> list[tuple[str, Goal]]:
        """K (instruction, goal) pairs from D most similar to the directive; fixed examples without D."""
        try:
            return self.expert().similar_goals(directive, k)
        except LLMError:
            return list(FIXED_TRANSLATION_EXAMPLES)


def all_action_texts(world: WorldInfo) -> list[str]:
    """The sentences of every action of the world, as grounding compares them (``Grounder`` cleans
    texts to lower case without underscores, which ``action_to_text`` already is)."""
    objects, containers, surfaces = world.objects, world.containers, world.surfaces
    actions = [Action("walk", (t,)) for t in (*world.rooms, *world.furniture, *objects)]
    actions += [Action("grab", (o,)) for o in objects]
    actions += [Action(v, (c,)) for c in containers for v in ("open", "close")]
    actions += [Action("putin", (o, c)) for o in objects for c in containers]
    actions += [Action("puton", (o, s)) for o in objects for s in surfaces]
    return [action_to_text(a) for a in actions]
