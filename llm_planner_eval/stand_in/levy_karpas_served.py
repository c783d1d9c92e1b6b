"""Levy & Karpas' ``nl2pddl`` question as ``llm-planner serve`` answers it (seed 001, Phase I): it
recognises the openai channels' prompt (``openai_channels.INSTRUCTIONS``) and answers from it
alone: the household and state it describes (:mod:`llm_planner.methods.levy_karpas.prompt_scene`)
and its directive go to the offline channels; their ranked goals and templates are the n samples,
written as ``Goal: ...`` / ``Template: ...`` in every style; wrong answers:
:mod:`.levy_karpas_wrong_answers`. Registered with :mod:`.kinds` at import (``served_modules`` of
``config/methods.yaml``)."""
from __future__ import annotations

import random
import re
import weakref
from typing import Any

from llm_planner.domains.household.language.text import WorldInfo, goal_to_formal
from llm_planner.methods.levy_karpas.channels import KIND
from llm_planner.methods.levy_karpas.clause_classifier import trained_classifier
from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.offline_channels import OfflineChannels
from llm_planner.methods.levy_karpas.prompt_scene import UnreadableScene, read_household, read_state
from llm_planner_eval.stand_in.kinds import Sample, ServedKind, register
from llm_planner_eval.stand_in.levy_karpas_wrong_answers import WRONG
from llm_planner_eval.stand_in.served import UnreadablePrompt, prompt_line

_NL2PDDL = re.compile(r"(?:State:\s*(?P<state>[^\n]*)\n)?Directive:\s*(?P<directive>[^\n]*)\s*$", re.IGNORECASE)


def recognise(prompt: str) -> bool:
    """The openai channels' prompt (``openai_channels.INSTRUCTIONS``, then ``Directive: ...``)."""
    text = prompt.rstrip()
    return text.startswith("Translate a household robot's directive") and bool(_NL2PDDL.search(text))


def served_answer(model: Any, prompt: str, n: int, seed: int) -> list[Sample]:
    """Phase I by the offline channels (the rules and the trained clause classifier) over the
    household and state the prompt describes (:mod:`.prompt_scene`): sample ``i`` holds the
    ``i``-th ranked goal and template (the seed's beam output, best first; the best one again where
    a channel has fewer than ``n``), so the client's ranking of distinct answers by frequency is
    the offline ranking."""
    found = _NL2PDDL.search(prompt.rstrip())
    assert found is not None  # the prompt was recognised by this pattern
    try:
        household = read_household(*(prompt_line(prompt, label) for label in _SCENE_LINES))
        state = read_state(household, found.group("state")) if found.group("state") else None
    except UnreadableScene as exc:
        raise UnreadablePrompt(str(exc)) from exc
    channels = _served_channels(model, household)
    directive = found.group("directive").strip()
    goals, _goal_error = channels.goal_channel(directive, state)
    templates, _template_error = channels.template_channel(directive, state)
    goal_texts = [goal_to_formal(g) for g in goals[:n]] or ["none"]
    template_texts = [str(t) for t in templates[:n]] or ["none"]
    return [Sample(KIND, {"goal": goal_texts[i] if i < len(goal_texts) else goal_texts[0],
                          "template": template_texts[i] if i < len(template_texts) else template_texts[0]})
            for i in range(n)]


#: the prompt's scene lines (``openai_channels.INSTRUCTIONS``), in :func:`.prompt_scene.read_household`'s order
_SCENE_LINES = ("Rooms", "Containers", "Surfaces", "Object types")
_SERVED: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()


def _served_channels(model: Any, household: Any) -> Any:
    """The offline channels of ``model``'s backend for the prompt's household, built once per
    scene description; the classifier is trained on the train split of ``config/nl2pddl.yaml``
    (the served model's fine-tuning, as the seed's T5 is fine-tuned on its training split)."""
    key = WorldInfo.from_household(household).fingerprint()
    per_model = _SERVED.setdefault(model.backend, {})
    if key not in per_model:
        config = load_config()
        _train, classifier = trained_classifier(model.backend, config)
        per_model[key] = OfflineChannels(household, model.backend, classifier, config["channels"],
                                         int(config["consistency"]["tries"]))
    return per_model[key]


def _plain(d: dict[str, Any]) -> str:
    return f"Goal: {d['goal']}\nTemplate: {d['template']}"


def _markdown(d: dict[str, Any], rng: random.Random) -> str:
    return f"**Goal:** {d['goal']}\n**Template:** {d['template']}"


def _chatty(d: dict[str, Any], rng: random.Random) -> str:
    return f"Sure! Here is the translation:\n\n{_plain(d)}\n\nLet me know if you need anything else."


KIND_SERVED = register(ServedKind(KIND, recognise, served_answer, _plain, _chatty, _markdown,
                                  lambda d: {"goal": d["goal"], "template": d["template"]}, order=40, wrong=WRONG))
