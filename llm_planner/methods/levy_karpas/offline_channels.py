"""Phase I of Levy & Karpas (seed 001, "Phase I: From Natural Language to PDDL") for the offline
backend: the *goal channel* and the *plan-template channel*, each producing a ranked list of
predictions (the seed takes "the next prediction in the model's beam search output").

The seed fine-tunes T5/GPT-2 on the training split. Without a generative model, the offline
channels are a small trained model plus rules, on Sentence-BERT features (the LLM layer's shared
embedder):

* :class:`~llm_planner.methods.levy_karpas.clause_classifier.ClauseClassifier`, trained on the
  labelled clauses of the training split: k nearest neighbours over embeddings of clauses whose
  scene names are masked ("pick up the OBJECT from the FURNITURE"); it gives each clause a
  distribution over ``walk grab open close put bring`` and says when a clause resembles no training
  clause (an action the domain does not have).
* argument rules per label (where the object, the destination, the source, the "through" room
  are), and grounding of each phrase onto the scene's kinds: the scene's own words and the
  commonsense synonyms first (the directive reader's :class:`~llm_planner.reading.SceneNames`
  lexicons), else the Sentence-BERT ranking of names, whose next names are the alternative readings
  ("the fruit" -> banana, apple; "the table" -> kitchen table, coffee table).
* a beam over clauses combines the readings; probabilities multiply (label x arguments).

Goal channel: the top reading is the language model's translation (the household's ``translate``
question; offline, the directive reader) of the directive's goal clauses; the alternatives are the ranked
readings above. Template channel: the beam's templates; exact for step-by-step instructions,
*partial* for directives that also state a goal (the seed's future-work "mixed" directives).

Directive + state (the seed's D+S input): the state is read as context, never as an answer key:
the robot's room makes "the table" the one in that room, the objects at a named place make "the
fruit from the kitchen counter" the fruit that is there, a goal the state already satisfies is
unlikely to be meant. Directive only (D): the same, without the state (the room is known only
after the directive names one).
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from llm_planner.domains.household.language.grounding import Grounder
from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.language.questions import translate
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.symbolic import INSIDE, ON, Goal, GoalItem, Household, State
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import GoalError, LLMError
from llm_planner.llm.base import LanguageModel
from llm_planner.methods.levy_karpas.channels import ChannelOutput
from llm_planner.methods.levy_karpas.clause_classifier import ClauseClassifier, trained_classifier
from llm_planner.methods.levy_karpas.clauses import PRONOUNS, split_clauses
from llm_planner.methods.levy_karpas.template import PlanTemplate, TemplateStep
from llm_planner.reading import NUMBERS, SceneNames, scene_names

UNKNOWN = "unknown"
_DET = re.compile(r"^(?:the|a|an|one|two|three|four|some|my|this|that|your|these|those|of)\s+")
_REL_WORDS = r"on\s+top\s+of|inside\s+of|inside|into|in|onto|on|to|at"
_PUT = re.compile(rf"^(?P<obj>.+?)\s+(?P<rel>{_REL_WORDS})\s+(?P<dest>.+)$")
_SOURCE = re.compile(r"\s+\b(?:from|off|out\s+of)\s+(?:the\s+)?(?P<src>.+?)(?=\s+\b(?:" + _REL_WORDS + r")\b|$)")
_VIA = re.compile(r"\b(?:through|via)\s+(?P<via>.+?)(?=\s+\b(?:to|into|towards?)\b|$)")
_TO = re.compile(r"\b(?:to|into|towards?|approach|enter|reach)\s+(?P<to>.+?)(?=\s+\b(?:through|via)\b|$)")
_GRAB_SOURCE = re.compile(r"^(?P<obj>.+?)\s+\b(?:from|off|out\s+of|in|on|at)\b\s+(?P<src>.+)$")


def _strip(phrase: str) -> str:
    phrase = phrase.strip(" ,.")
    previous = None
    while previous != phrase:
        previous = phrase
        phrase = _DET.sub("", phrase).strip()
    return re.sub(r"\s+up$", "", phrase)


def _drop_verb(clause: str) -> str:
    """The clause without its leading verb (one word, or 'pick up')."""
    words = clause.split()
    if len(words) >= 2 and words[0] == "pick" and words[1] == "up":
        return " ".join(words[2:])
    return " ".join(words[1:])


# --------------------------------------------------------------------------- grounding
@dataclass(frozen=True)
class Context:
    """What a hypothesis knows at a clause: the robot's room and place, last mentioned things."""

    room: str | None = None
    near: str | None = None
    last_obj: str | None = None
    last_furniture: str | None = None
    holding: str | None = None


#: One reading of a clause: its template steps, their probability and the context after them.
Reading = tuple[tuple[TemplateStep, ...], float, Context]


@dataclass(frozen=True)
class Hypothesis:
    steps: tuple[TemplateStep, ...] = ()
    logp: float = 0.0
    context: Context = field(default_factory=Context)


class Names:
    """Phrase -> ranked scene names (lexicon, then Sentence-BERT), as probabilities."""

    def __init__(self, household: Household, parser: SceneNames, grounder: Grounder, opts: Mapping[str, Any]) -> None:
        self.h = household
        self.parser = parser
        self.grounder = grounder
        self.top = int(opts["alternatives_per_slot"])
        self.min_score = float(opts["min_name_score"])
        self.temperature = float(opts["name_temperature"])
        self.pools = {"object": list(household.scene.object_types), "furniture": list(household.furniture),
                      "container": [f for f in household.furniture if household.is_container[f]],
                      "room": list(household.rooms)}
        self.pools["walk"] = self.pools["room"] + self.pools["furniture"] + self.pools["object"]
        self.room_words = {name_to_text(r): r for r in household.rooms}
        self.heads: dict[str, list[str]] = {}
        for f in household.furniture:
            self.heads.setdefault(name_to_text(f).split()[-1], []).append(f)

    def shared_head(self, phrase: str, pool: str) -> list[str]:
        """Furniture of the pool whose names end in ``phrase`` when several do ("the counter")."""
        allowed = set(self.pools[pool])
        sharing = [f for f in self.heads.get(phrase, []) if f in allowed]
        return sharing if len(sharing) >= 2 else []

    def exact(self, phrase: str, pool: str) -> str | None:
        allowed = set(self.pools[pool])
        candidates = [self.room_words.get(phrase), self.parser.place_words.get(phrase),
                      (self.parser.type_words.get(phrase) or (None,))[0]]
        if phrase.endswith("s"):
            candidates.append((self.parser.type_words.get(phrase[:-1]) or (None,))[0])
        return next((c for c in candidates if c in allowed), None)

    def rank(self, phrase: str, pool: str, wide: bool = False) -> list[tuple[str, float]]:
        """Ranked readings of ``phrase``; ``wide`` keeps three times as many (context re-weights them)."""
        phrase = _strip(phrase)
        if not phrase:
            return []
        shared = self.shared_head(phrase, pool)
        if shared:
            return [(f, 1.0 / len(shared)) for f in shared]
        hit = self.exact(phrase, pool)
        if hit is not None:
            return [(hit, 1.0)]
        top = self.top * (3 if wide else 1)
        ranked = [m for m in self.grounder.rank_names(phrase, self.pools[pool])[:top] if m.score >= self.min_score]
        if not ranked:
            return []
        scores = np.array([m.score for m in ranked])
        probs = np.exp((scores - scores.max()) / self.temperature)
        probs /= probs.sum()
        return [(m.name, float(p)) for m, p in zip(ranked, probs, strict=True)]


def _normalise(cands: list[tuple[str, float]], top: int | None = None) -> list[tuple[str, float]]:
    """Probabilities summing to one, best first, at most ``top`` of them."""
    cands = sorted(cands, key=lambda x: -x[1])[:top]
    total = sum(p for _n, p in cands)
    return [(n, p / total) for n, p in cands] if total > 0 else []


# ----------------------------------------------------------------------------- channels
@dataclass(frozen=True)
class _GoalSlot:
    count: int
    obj: str
    dest: str
    source: str


class OfflineChannels:
    """Both channels of the offline backend for one scene (see the module docstring)."""

    def __init__(self, household: Household, backend: LanguageModel, classifier: ClauseClassifier,
                 options: Mapping[str, Any], max_predictions: int = 5) -> None:
        self.h = household
        self.world = WorldInfo.from_household(household)
        self.backend = backend
        self.classifier = classifier
        self.opts = dict(options)
        self.n = max_predictions
        self.names = Names(household, scene_names(backend.resources, self.world), grounder_of(backend.resources),
                           options)

    # ------------------------------------------------------------------ analysis
    def analyse(self, directive: str) -> tuple[list[str], list[dict[str, float]], list[int], list[int]]:
        """Clauses, label distributions, indices of goal clauses and of step clauses.

        Goal clauses: ``bring`` clauses, and ``put`` clauses of a directive without grab/open/close
        clauses; step clauses: the others (a directive with goal clauses gives a partial template)."""
        clauses = split_clauses(directive)
        labels = [self._with_destination(c, p)
                  for c, p in zip(clauses, self.classifier.predict(clauses, self.world), strict=True)]
        top = [max(p, key=p.__getitem__) if p else UNKNOWN for p in labels]
        stepwise = any(t in ("grab", "open", "close") for t in top)
        goal_idx = [i for i, t in enumerate(top) if t == "bring" or (t == "put" and not stepwise)]
        step_idx = [i for i, t in enumerate(top) if i not in goal_idx]
        return clauses, labels, goal_idx, step_idx

    def _with_destination(self, clause: str, probs: dict[str, float]) -> dict[str, float]:
        """Rule over the classifier: a clause that puts an object *in/on* a piece of furniture is not
        a grab ("set the cup from the cabinet in the dishwasher"); its grab share goes to put."""
        if not probs or max(probs, key=probs.__getitem__) != "grab":
            return probs
        body = _SOURCE.sub("", " " + _drop_verb(clause)).strip()
        match = _PUT.match(body)
        if match is None or match.group("rel") in ("to", "at") or not self.names.rank(match.group("dest"), "furniture"):
            return probs
        out = dict(probs)
        out["put"] = out.get("put", 0.0) + out.pop("grab")
        return out

    def predict(self, goal_directive: str, step_directive: str, state: State | None) -> ChannelOutput:
        """Both channels; the same text may feed both (a single directive)."""
        before = self.backend.usage.requests
        goals, goal_error = self.goal_channel(goal_directive, state)
        templates, template_error = self.template_channel(step_directive, state)
        return ChannelOutput(goals, templates, goal_error, template_error, self.backend.usage.requests - before)

    # --------------------------------------------------------------- goal channel
    def goal_channel(self, directive: str, state: State | None) -> tuple[list[Goal], str]:
        clauses, _labels, goal_idx, _steps = self.analyse(directive)
        if not goal_idx:
            return [], ""
        slots = self._goal_slots([clauses[i] for i in goal_idx])
        readings: list[tuple[float, Goal]] = []
        top_error = ""
        try:
            text = " and ".join(_SOURCE.sub("", clauses[i]) for i in goal_idx)
            answer = translate(self.backend, self.world, text)
            top = tuple(GoalItem(r if r in (INSIDE, ON) else self.h.relation(d), o, d, c)
                        for r, o, d, c in answer.items)
            readings.append((0.0, top))
        except (GoalError, LLMError) as exc:
            top_error = str(exc)
        readings += self._goal_alternatives(slots, wide=state is not None)
        scored = []
        for logp, goal in readings:
            if state is not None:
                logp += self._goal_state_logp(goal, slots, state)
            scored.append((logp, goal))
        ranked: list[Goal] = []
        for _logp, goal in sorted(scored, key=lambda x: -x[0]):
            if goal and goal not in ranked:
                ranked.append(goal)
        if not ranked:
            return [], f"the goal could not be read: {top_error or 'no object or destination was recognised'}"
        return ranked[: self.n], ""

    def _goal_slots(self, clauses: Sequence[str]) -> list[_GoalSlot]:
        slots: list[_GoalSlot] = []
        for clause in clauses:
            body = _drop_verb(clause) if clause.split()[0] not in NUMBERS else clause
            source = ""
            match = _SOURCE.search(" " + body)
            if match:
                source = match.group("src")
                body = _SOURCE.sub("", " " + body).strip()
            put = _PUT.match(body)
            obj, dest = (put.group("obj"), put.group("dest")) if put else (body, "")
            words = obj.split()
            count = NUMBERS.get(words[0], 1) if words else 1
            slots.append(_GoalSlot(max(count, 1), obj, dest, source))
        for i, slot in enumerate(slots):  # "an apple and a banana in the fridge": shared destination
            if not slot.dest:
                nxt = next((s.dest for s in slots[i + 1:] if s.dest), "") or next(
                    (s.dest for s in reversed(slots[:i]) if s.dest), "")
                slots[i] = replace(slot, dest=nxt)
        return slots

    def _goal_alternatives(self, slots: Sequence[_GoalSlot], wide: bool) -> list[tuple[float, Goal]]:
        beams: list[tuple[float, tuple[GoalItem, ...]]] = [(0.0, ())]
        for slot in slots:
            objs = self.names.rank(slot.obj, "object", wide=wide and bool(slot.source))
            dests = self.names.rank(slot.dest, "furniture")
            nxt = [(lp + math.log(po) + math.log(pd), items + (GoalItem(self.h.relation(d), o, d, slot.count),))
                   for lp, items in beams for o, po in objs for d, pd in dests]
            beams = sorted(nxt, key=lambda x: -x[0])[: int(self.opts["beam"])]
        return [(lp, items) for lp, items in beams if items]

    def _goal_state_logp(self, goal: Goal, slots: Sequence[_GoalSlot], state: State) -> float:
        """D+S: a named source must hold the object; a goal already true is unlikely to be asked."""
        penalty = math.log(float(self.opts["state_mismatch_weight"]))
        logp = 0.0
        for k, item in enumerate(goal):
            if self.h.count_satisfied(state, item) >= item.count:
                logp += penalty
            source = slots[k].source if k < len(slots) else ""
            ranked = self.names.rank(source, "furniture") if source else []
            place = ranked[0][0] if ranked else None
            if place and not self._type_at(state, item.obj_type, place):
                logp += penalty
        return logp

    def _type_at(self, state: State, obj_type: str, place: str) -> bool:
        return any(self.h.object_type[o] == obj_type and self.h.location(state, o) == place for o in self.h.objects)

    # ----------------------------------------------------------- template channel
    def template_channel(self, directive: str, state: State | None) -> tuple[list[PlanTemplate], str]:
        clauses, labels, goal_idx, step_idx = self.analyse(directive)
        if not step_idx:
            return [], ""
        for i in step_idx:
            if not labels[i]:
                return [], (f"the instruction '{clauses[i]}' names no action of the household domain "
                            f"(walk, grab, open, close, put)")
        start = Context(room=state.room if state is not None else None)
        beams = [Hypothesis((), 0.0, start)]
        floor = float(self.opts["label_floor"])
        for i in step_idx:
            allowed = [(lab, p) for lab, p in labels[i].items() if p >= floor and lab != "bring"
                       and (lab != "put" or not goal_idx)]
            expanded = [h2 for lab, p in allowed for h2 in self._expand(beams, clauses[i], lab, p, state)]
            if not expanded:
                return [], f"could not read the instruction '{clauses[i]}' (which object or place is meant?)"
            beams = sorted(expanded, key=lambda hyp: -hyp.logp)[: int(self.opts["beam"])]
        partial = bool(goal_idx)
        ranked: list[PlanTemplate] = []
        for hyp in beams:
            template = PlanTemplate(hyp.steps, partial)
            if template not in ranked:
                ranked.append(template)
        return ranked[: self.n], ""

    def _expand(self, beams: Sequence[Hypothesis], clause: str, label: str, p_label: float,
                state: State | None) -> list[Hypothesis]:
        out = []
        for hyp in beams:
            for steps, p, ctx in self._readings(clause, label, hyp.context, state):
                out.append(Hypothesis(hyp.steps + steps, hyp.logp + math.log(p_label) + math.log(p), ctx))
        return out

    def _readings(self, clause: str, label: str, ctx: Context,
                  state: State | None) -> list[tuple[tuple[TemplateStep, ...], float, Context]]:
        if label == "walk":
            return self._walk(clause, ctx, state)
        if label == "grab":
            return self._grab(clause, ctx, state)
        if label in ("open", "close"):
            phrase = _drop_verb(clause)
            cands = [(ctx.last_furniture, 1.0)] if _strip(phrase) in PRONOUNS and ctx.last_furniture else \
                self._room_weighted(self.names.rank(phrase, "container", wide=True), ctx)
            return [((TemplateStep(label, (c,)),), p, replace(ctx, last_furniture=c)) for c, p in cands]
        if label == "put":
            return self._put(clause, ctx)
        return []

    def _room_weighted(self, cands: list[tuple[str, float]], ctx: Context) -> list[tuple[str, float]]:
        """Furniture outside the robot's room (when known) made less likely; the best few kept."""
        w = float(self.opts["room_mismatch_weight"]) if ctx.room is not None else 1.0
        return _normalise([(n, p * (w if n in self.h.furniture_room and self.h.furniture_room[n] != ctx.room else 1.0))
                           for n, p in cands], self.names.top)

    def _walk(self, clause: str, ctx: Context, state: State | None) -> list[Reading]:
        via = _VIA.search(clause)
        to = _TO.search(clause)
        target = to.group("to") if to else _drop_verb(clause)
        if via and not to and clause.startswith(("walk through", "go through", "pass through")):
            target = ""
        out: list[Reading] = []
        via_cands: Sequence[tuple[str | None, float]] = (self.names.rank(via.group("via"), "room") if via
                                                         else [(None, 1.0)])
        for room, p_via in via_cands:
            c1 = replace(ctx, room=room, near=None) if room else ctx
            steps1: tuple[TemplateStep, ...] = (TemplateStep("walk", (room,)),) if room else ()
            if not target:
                out.append((steps1, p_via, c1))
                continue
            if _strip(target) in PRONOUNS and ctx.last_obj:
                cands = [(ctx.last_obj, 1.0)]
            else:
                cands = self._room_weighted(self.names.rank(target, "walk", wide=True), c1)
            for name, p in cands:
                out.append((steps1 + (TemplateStep("walk", (name,)),), p_via * p, self._after_walk(c1, name, state)))
        return out

    def _after_walk(self, ctx: Context, name: str, state: State | None) -> Context:
        if name in self.h.rooms:
            return replace(ctx, room=name, near=None)
        if name in self.h.furniture_room:
            return replace(ctx, room=self.h.furniture_room[name], near=name, last_furniture=name)
        near = None
        if state is not None:  # D+S: the place where an instance of the type is, in the robot's room
            places = [self.h.location(state, o) for o in self.h.objects if self.h.object_type[o] == name]
            here = [p for p in places if p and (ctx.room is None or self.h.furniture_room[p] == ctx.room)]
            near = here[0] if here else None
        return replace(ctx, near=near, last_obj=name, room=self.h.furniture_room[near] if near else ctx.room)

    def _grab(self, clause: str, ctx: Context, state: State | None) -> list[Reading]:
        body = _drop_verb(clause)
        match = _GRAB_SOURCE.match(body)
        obj, source = (match.group("obj"), match.group("src")) if match else (body, "")
        if _strip(obj) in PRONOUNS and ctx.last_obj:
            cands = [(ctx.last_obj, 1.0)]
        else:
            ranked = self.names.rank(source, "furniture") if source else []
            place = (ranked[0][0] if ranked else None) if source else ctx.near
            if state is not None and place:
                w = float(self.opts["state_mismatch_weight"])
                cands = _normalise([(t, p * (1.0 if self._type_at(state, t, place) else w))
                                    for t, p in self.names.rank(obj, "object", wide=True)], self.names.top)
            else:
                cands = self.names.rank(obj, "object")
        return [((TemplateStep("grab", (t,)),), p, replace(ctx, holding=t, last_obj=t)) for t, p in cands]

    def _put(self, clause: str, ctx: Context) -> list[Reading]:
        body = _drop_verb(clause)
        match = _PUT.match(body)
        if match is None:
            return []
        obj, dest = match.group("obj"), match.group("dest")
        if _strip(obj) in PRONOUNS:
            held = ctx.holding or ctx.last_obj
            objs = [(held, 1.0)] if held else []
        else:
            objs = self.names.rank(obj, "object")
        dests = self._room_weighted(self.names.rank(dest, "furniture", wide=True), ctx)
        out: list[Reading] = []
        for t, po in objs:
            for f, pf in dests:
                verb = "putin" if self.h.is_container[f] else "puton"
                out.append(((TemplateStep(verb, (t, f)),), po * pf,
                            replace(ctx, holding=None, last_obj=t, last_furniture=f)))
        return out


def make_channels(household: Household, backend: LanguageModel, config: Mapping[str, Any],
                  tries: int) -> OfflineChannels:
    """The offline channels of one scene, with the clause classifier trained once per process."""
    _train, classifier = trained_classifier(backend, config)
    return OfflineChannels(household, backend, classifier, config["channels"], tries)
