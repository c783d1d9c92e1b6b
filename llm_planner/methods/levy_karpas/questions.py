"""Levy & Karpas' question to a language model (seed 001, Phase I): ``nl2pddl``, a directive
(optionally with the state) as a goal and a plan template, asked by the openai channels
(:mod:`.openai_channels`, prompt ``INSTRUCTIONS``).

Registered with the LLM layer's question registry (:mod:`llm_planner.llm.questions`) at import:

=========  ==========================================================================================
backend    how it answers a :class:`~.channels.Phase1Question` (``backend.answer("nl2pddl", question)``)
=========  ==========================================================================================
offline    the offline channels (:mod:`.offline_channels`: rules + the trained clause classifier)
openai     the model's channels (:mod:`.openai_channels`: K-shot prompt, n samples, ranked answers)
served     ``llm-planner serve`` recognises the openai channels' prompt and answers from it alone:
           the household and state it describes (:mod:`.prompt_scene`) and its directive go to the
           offline channels; their ranked goals and templates are the n samples, written as
           ``Goal: ...`` / ``Template: ...`` in every style
=========  ==========================================================================================

The channels of a scene are built once per backend and scene (the classifier trained, the K-shot
examples embedded) and kept while the backend lives.
"""
from __future__ import annotations

import random
import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

from llm_planner.llm.answers import object_schema
from llm_planner.llm.questions import QuestionKind, Sample, ServedKind, register
from llm_planner.llm.text import WorldInfo, goal_to_formal
from llm_planner_eval.stand_in.levy_karpas_wrong_answers import WRONG
from llm_planner_eval.stand_in.served import UnreadablePrompt, prompt_line

KIND = "nl2pddl"
_NL2PDDL = re.compile(r"(?:State:\s*(?P<state>[^\n]*)\n)?Directive:\s*(?P<directive>[^\n]*)\s*$", re.IGNORECASE)


_CHANNELS: weakref.WeakKeyDictionary[Any, dict[tuple, Any]] = weakref.WeakKeyDictionary()
_CHANNELS_LOCK = threading.Lock()


def _predict(backend: Any, question: Any, make: Callable[..., Any]) -> Any:
    """Phase I by the channels ``make`` builds for the question's scene (once per backend and scene)."""
    key = (question.household.scene.name, id(question.household), id(question.config), question.tries)
    with _CHANNELS_LOCK:
        per_backend = _CHANNELS.setdefault(backend, {})
        if key not in per_backend:
            per_backend[key] = make(question.household, backend, question.config, question.tries)
        channels = per_backend[key]
    return channels.predict(question.goal_directive, question.step_directive, question.state)


def offline_phase1(backend: Any, question: Any, n: int | None = None, seed: int | None = None) -> Any:
    """Phase I by the offline channels (a :class:`~.channels.ChannelOutput`)."""
    from llm_planner.methods.levy_karpas.offline_channels import make_channels

    return _predict(backend, question, make_channels)


def openai_phase1(backend: Any, question: Any, n: int | None = None, seed: int | None = None) -> Any:
    """Phase I by the model (a :class:`~.channels.ChannelOutput`)."""
    from llm_planner.methods.levy_karpas.openai_channels import make_channels

    return _predict(backend, question, make_channels)


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
    from llm_planner.methods.levy_karpas.prompt_scene import UnreadableScene, read_household, read_state

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
    from llm_planner.methods.levy_karpas.clause_classifier import trained_classifier
    from llm_planner.methods.levy_karpas.config import load_config
    from llm_planner.methods.levy_karpas.offline_channels import OfflineChannels

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


QUESTION = register(QuestionKind(
    KIND, {"offline": offline_phase1, "openai": openai_phase1},
    ServedKind(recognise, served_answer, _plain, _chatty, _markdown,
                         lambda d: {"goal": d["goal"], "template": d["template"]}, order=40,
                         wrong=WRONG),  # wrong answers: wrong_answers.py (llm-planner serve --error-rate)
    source="Levy & Karpas Phase I (seed 001)",
    schema=("goal_and_template", object_schema({"goal": {"type": "string"}, "template": {"type": "string"}}))))
