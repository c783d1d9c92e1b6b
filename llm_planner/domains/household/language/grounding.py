"""Grounding free text onto admissible names and actions by Sentence-BERT cosine similarity
(LLM-MCTS seed 000, §2.2: "we encode the names of objects in the LLM's response into embeddings
using sentence-BERT ... and select the most similar expressions in D_obj"; §2.3: sampled actions
and admissible actions compared by CosineSim(alpha_i, a), following [18]).

Whatever a model writes, the result of grounding is always one of the admissible candidates that
the caller passed in (or nothing, below a threshold): model text can never name an action or an
object outside the admissible set, whatever it tries to say.

    >>> g = Grounder(Embedder())
    >>> g.ground_name("the refrigerator", ["fridge", "microwave"]).name
    'fridge'
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from llm_planner.domains.household.language.text import WorldInfo, action_phrases, action_to_text
from llm_planner.domains.household.world.symbolic import Action
from llm_planner.domains.household.world.words import clean_phrase as _clean
from llm_planner.domains.household.world.words import name_to_text, plural

if TYPE_CHECKING:
    from llm_planner.llm.embeddings import Embedder


@dataclass(frozen=True)
class Match:
    """The best candidate for a text: its name, position in the candidate list, and cosine."""

    name: str
    index: int
    score: float


class Grounder:
    """Cosine grounding with embeddings of candidate strings computed once (the Embedder caches
    every text it has seen; candidate matrices are kept per candidate tuple)."""

    def __init__(self, embedder: Embedder, max_indices: int = 4096) -> None:
        self.embedder = embedder
        self._indices: dict[tuple[str, ...], np.ndarray] = {}
        self._max_indices = max_indices

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        """Unit embeddings of ``texts`` as one matrix, cached per tuple of texts."""
        key = tuple(texts)
        mat = self._indices.get(key)
        if mat is None:
            mat = self.embedder.encode(list(key))
            if len(self._indices) >= self._max_indices:
                self._indices.pop(next(iter(self._indices)))
            self._indices[key] = mat
        return mat

    def similarities(self, queries: Sequence[str], candidates: Sequence[str]) -> np.ndarray:
        """Cosine matrix ``(len(queries), len(candidates))`` of cleaned texts."""
        if not queries or not candidates:
            return np.zeros((len(queries), len(candidates)), dtype=np.float32)
        return self.embedder.encode([_clean(q) for q in queries]) @ self.matrix([_clean(c) for c in candidates]).T

    # ------------------------------------------------------------------ names
    def rank_names(self, text: str, names: Sequence[str]) -> list[Match]:
        """Every candidate name by decreasing cosine to ``text`` (names are compared as words)."""
        if not names:
            return []
        rendered = [name_to_text(n) for n in names]
        clean = _clean(text)
        sims = self.similarities([clean], rendered)[0]
        if clean in rendered:  # the exact name wins ties against near-duplicates
            sims[rendered.index(clean)] = 1.0
        order = np.argsort(-sims, kind="stable")
        return [Match(names[i], int(i), float(sims[i])) for i in order]

    def ground_name(self, text: str, names: Sequence[str], min_score: float = 0.0) -> Match | None:
        """The most similar name, or None when none reaches ``min_score``."""
        ranked = self.rank_names(text, names)
        if not ranked or ranked[0].score < min_score:
            return None
        return ranked[0]

    # ---------------------------------------------------------------- actions
    def action_matrix(self, actions: Sequence[Action]) -> np.ndarray:
        return self.matrix([action_to_text(a) for a in actions])

    def action_similarities(self, texts: Sequence[str], actions: Sequence[Action]) -> np.ndarray:
        """CosineSim(alpha_i, a): one row per sampled text, one column per admissible action."""
        if not texts or not actions:
            return np.zeros((len(texts), len(actions)), dtype=np.float32)
        return self.embedder.encode([_clean(t) for t in texts]) @ self.action_matrix(actions).T

    # ------------------------------------------------------------- verification
    def refers_to(self, phrase: str, name: str, world: WorldInfo, min_score: float) -> bool:
        """Whether ``phrase`` (a model's words) names ``name``: the name itself, its object type (any
        instance; singular or plural), or the scene name or type it grounds to best (>= ``min_score``).
        "the apple 2 on the kitchen counter" is read as its head too ("apple 2")."""
        head = re.split(r"\s+(?:on|in|inside|at|near|by|from|next\s+to)\s+", _clean(phrase), maxsplit=1)[0]
        return any(self._refers_to(p, name, world, min_score) for p in dict.fromkeys((_clean(phrase), head)))

    def _refers_to(self, phrase: str, name: str, world: WorldInfo, min_score: float) -> bool:
        text = name_to_text(name)
        obj_type = world.object_type.get(name)
        type_text = name_to_text(obj_type) if obj_type else None
        if phrase in (text, text.replace(" ", "")) or (type_text and phrase in (type_text, plural(type_text))):
            return True
        if obj_type and re.search(r"\d+$", phrase):  # "plate 2" names plate_2 and no other plate
            return False
        candidates = [*world.rooms, *world.furniture, *world.object_types]
        if name in world.switch_at:  # a switchable thing: told apart from the furniture it stands at
            candidates += world.switchables
        best = self.ground_name(phrase, candidates, min_score)
        return best is not None and best.name in (name, obj_type)

    def names_action(self, text: str, action: Action, world: WorldInfo, min_score: float) -> bool:
        """Whether an action sentence (``llm_planner.llm.answers.first_action``) states ``action``: the
        same verb, every argument phrase naming the action's argument (:meth:`refers_to`)."""
        parsed = action_phrases(text)
        if parsed is None or parsed[0] != action.verb or len(parsed[1]) != len(action.args):
            return False
        return all(self.refers_to(p, a, world, min_score) for p, a in zip(parsed[1], action.args, strict=True))
