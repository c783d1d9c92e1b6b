"""The household's parts of a language model's shared resources (:class:`~llm_planner.llm.resources.Resources`),
each built once per resources and lazily through :meth:`Resources.shared`: the grounder (Sentence-BERT
names and actions, over the resources' embedder) and the expert data set D with its retrieval index
(K-shot examples, LLM-MCTS §2.3), loaded from the data set the resources were given (``dataset``) or
the configured one.

    grounder_of(backend.resources).action_similarities(texts, admissible)
    policy_examples(backend.resources, query, k)
"""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from llm_planner.domains.household.language.grounding import Grounder
from llm_planner.domains.household.language.retrieval import FIXED_TRANSLATION_EXAMPLES, ExpertIndex, load_expert_data
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.domains.household.world.symbolic import Action, Goal
from llm_planner.errors import LLMError

if TYPE_CHECKING:
    from llm_planner.domains.household.language.policy_query import PolicyQuery
    from llm_planner.llm.resources import Resources


def grounder_of(resources: Resources) -> Grounder:
    """The grounder over the resources' embedder, one per resources."""
    return resources.shared("household.grounder", lambda: Grounder(resources.embedder))


def expert(resources: Resources) -> ExpertIndex:
    """The retrieval index over D (loaded, or built on first use; see ``load_expert_data``); a load
    that fails is tried again at the next call."""
    return resources.shared("household.expert", lambda: ExpertIndex(
        load_expert_data(resources.config, resources.dataset), grounder_of(resources)))


def has_expert(resources: Resources) -> bool:
    """Whether D loads (it is loaded now if not yet)."""
    try:
        expert(resources)
    except LLMError:
        return False
    return True


def policy_examples(resources: Resources, query: PolicyQuery, k: int) -> list[str]:
    """K prompt blocks of the K expert trajectories most similar to the instruction (§2.3)."""
    if k <= 0:
        return []
    return expert(resources).policy_examples(query, k)


def translation_examples(resources: Resources, directive: str, world: WorldInfo,
                         k: int = 3) -> list[tuple[str, Goal]]:
    """K (instruction, goal) pairs from D most similar to the directive; fixed examples without D."""
    try:
        return expert(resources).similar_goals(directive, k)
    except LLMError:
        return list(FIXED_TRANSLATION_EXAMPLES)


def warm_actions(resources: Resources, world: WorldInfo) -> None:
    """Encode every action sentence the world admits in one batch (once per world and resources): a
    tree search then meets only cached embeddings instead of paying the model call per node
    (``embeddings.warm_actions`` of config/llm.yaml)."""
    if not resources.config.get("embeddings.warm_actions"):
        return
    warmed, lock = resources.shared("household.warm_actions", lambda: (set(), threading.Lock()))
    key = world.fingerprint()
    with lock:
        if key in warmed:
            return
        warmed.add(key)
    resources.embedder.encode(all_action_texts(world))


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
