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

State clauses (issue 44): "turn on / switch on / start the X", "turn / switch off the X", "turn the
X on", "leave the X open" always, and "open / close / shut the X" in a directive that lists no
walk or grab step, are goal clauses of state items: (on|off, X) for a switchable thing, (open|closed,
X) for a container ("put the milk in the fridge and close it": "it" is the fridge). The thing is
read only when the phrase is closest to a thing of that kind among every name of the scene ("turn
on the apple", "open the tv" are refused, naming what can); "the lamp in the bedroom" prefers the
things of that room. A clause that says what *not* to do ("don't close the fridge") makes both
channels refuse: it is never read as its verb. Directives without such clauses are read by the
rules above alone.

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
from llm_planner.domains.household.world.symbolic import (
    CLOSED,
    INSIDE,
    OFF,
    ON,
    OPEN,
    STATE_RELATIONS,
    SWITCHED_ON,
    Goal,
    GoalItem,
    Household,
    State,
    state_goal,
)
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
# State clauses: (relation, the thing's phrase); see the module docstring.
_SWITCH = re.compile(r"^(?:turn|switch)\s+(?P<rel>on|off)\s+(?P<thing>.+)$")
_SWITCH_AFTER = re.compile(r"^(?:turn|switch)\s+(?P<thing>.+?)\s+(?P<rel>on|off)$")
_START = re.compile(r"^start\s+(?:up\s+)?(?P<thing>(?:the|my|your)\s+.+)$")  # "start the dishwasher", not "start by"
_LEAVE = re.compile(r"^(?:leave|keep)\s+(?P<thing>.+?)\s+(?P<rel>open|closed|shut|on|off)$")
_OPEN_CLOSE = re.compile(r"^(?P<rel>open|close|shut)\s+(?:up\s+)?(?P<thing>.+)$")
_STATE_WORD = {"on": SWITCHED_ON, "off": OFF, "open": OPEN, "close": CLOSED, "closed": CLOSED, "shut": CLOSED}
_NEGATION = re.compile(r"(?:^|\s)(?:don't|dont|do\s+not|never|not|no\s+longer)(?:\s|$)")
_IN_ROOM = re.compile(r"^(?P<thing>.+?)\s+(?:in|of)\s+(?:the\s+)?(?P<room>[a-z ]+)$")


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
                      "room": list(household.rooms), "switchable": list(household.switchables)}
        self.pools["walk"] = self.pools["room"] + self.pools["furniture"] + self.pools["object"]
        self.pools["any"] = list(dict.fromkeys(self.pools["walk"] + self.pools["switchable"]))
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
        clauses; step clauses: the others (a directive with goal clauses gives a partial template).
        State clauses (:meth:`state_clauses`) are goal clauses, and open/close clauses that are
        state clauses make no directive step-by-step."""
        clauses = split_clauses(directive)
        labels = [self._with_destination(c, p)
                  for c, p in zip(clauses, self.classifier.predict(clauses, self.world), strict=True)]
        top = [max(p, key=p.__getitem__) if p else UNKNOWN for p in labels]
        states = self.state_clauses(clauses, top)
        stepwise = any(t in ("grab", "open", "close") for i, t in enumerate(top) if i not in states)
        goal_idx = [i for i, t in enumerate(top) if i in states or t == "bring" or (t == "put" and not stepwise)]
        step_idx = [i for i, t in enumerate(top) if i not in goal_idx]
        return clauses, labels, goal_idx, step_idx

    @staticmethod
    def state_clauses(clauses: Sequence[str], top: Sequence[str]) -> dict[int, tuple[str, str]]:
        """Clause index -> (state relation, the thing's phrase) of the state clauses (module docstring):
        switch, start and leave clauses always; open/close clauses when no clause is a walk or grab step."""
        found: dict[int, tuple[str, str]] = {}
        for i, clause in enumerate(clauses):
            match = _SWITCH.match(clause) or _SWITCH_AFTER.match(clause) or _LEAVE.match(clause)
            if match:
                found[i] = (_STATE_WORD[match.group("rel")], match.group("thing"))
            elif (start := _START.match(clause)) is not None:
                found[i] = (SWITCHED_ON, start.group("thing"))
        if any(t in ("walk", "grab") for i, t in enumerate(top) if i not in found):
            return found
        for i, clause in enumerate(clauses):
            match = _OPEN_CLOSE.match(clause)
            if match and i not in found:
                found[i] = (_STATE_WORD[match.group("rel")], match.group("thing"))
        return dict(sorted(found.items()))

    @staticmethod
    def negated(directive: str) -> str:
        """The first clause that says what not to do, or ''."""
        return next((c for c in split_clauses(directive) if _NEGATION.search(c)), "")

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
        negated = self.negated(goal_directive) or self.negated(step_directive)
        if negated:
            error = (f"'{negated}' says what not to do; a goal says what must hold and a template what to do "
                     "(say what you want done instead)")
            return ChannelOutput([], [], error, error, self.backend.usage.requests - before)
        goals, goal_error = self.goal_channel(goal_directive, state)
        templates, template_error = self.template_channel(step_directive, state)
        return ChannelOutput(goals, templates, goal_error, template_error, self.backend.usage.requests - before)

    # --------------------------------------------------------------- goal channel
    def goal_channel(self, directive: str, state: State | None) -> tuple[list[Goal], str]:
        clauses, labels, goal_idx, _steps = self.analyse(directive)
        if not goal_idx:
            return [], ""
        states = self.state_clauses(clauses, [max(p, key=p.__getitem__) if p else UNKNOWN for p in labels])
        if states:
            return self._goal_with_states(clauses, goal_idx, states, state)
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

    def _goal_with_states(self, clauses: Sequence[str], goal_idx: Sequence[int], states: Mapping[int, tuple[str, str]],
                          state: State | None) -> tuple[list[Goal], str]:
        """The goal channel of a directive with state clauses: the placements read as without them
        (the top reading the language model's), then one state item per state clause, read by the
        rules; "it" is the thing of the goal clause before. A thing asked in two states is left in
        the last ("open the dishwasher, put two plates in it and close it": closed)."""
        resolved = _resolve_pronouns([clauses[i] for i in goal_idx], [states.get(i) for i in goal_idx])
        placements = [c for i, c in zip(goal_idx, resolved, strict=True) if i not in states]
        per_clause: list[list[tuple[GoalItem, float]]] = []
        for i, clause in zip(goal_idx, resolved, strict=True):
            if i in states:
                things, error = self._state_readings(states[i][0], _thing_phrase(clause, states[i][1]))
                if error:
                    return [], error
                per_clause.append(things)
        slots = self._goal_slots(placements)
        bases: list[tuple[float, tuple[GoalItem, ...]]] = (self._goal_alternatives(slots, wide=state is not None)
                                                           if slots else [(0.0, ())])
        top = self._translated(placements)
        if top is not None:
            bases.insert(0, (0.0, top))
        scored = []
        for logp, items in bases:
            for combo in _products(per_clause, int(self.opts["beam"])):
                goal = items + _last_state_wins(tuple(item for item, _p in combo))
                logp_goal = logp + sum(math.log(p) for _i, p in combo)
                if state is not None:
                    logp_goal += self._goal_state_logp(goal, slots, state)
                scored.append((logp_goal, goal))
        ranked: list[Goal] = []
        for _logp, goal in sorted(scored, key=lambda x: -x[0]):
            if goal not in ranked:
                ranked.append(goal)
        if not ranked:
            return [], "the goal could not be read: no object or destination was recognised"
        return ranked[: self.n], ""

    def _translated(self, placements: Sequence[str]) -> Goal | None:
        """The language model's translation of the placement clauses, when it reads them as placements."""
        if not placements:
            return None
        try:
            answer = translate(self.backend, self.world, " and ".join(_SOURCE.sub("", c) for c in placements))
        except (GoalError, LLMError):
            return None
        items = [_goal_item(self.h, *item) for item in answer.items]
        placed = tuple(i for i in items if i is not None and not i.is_state)
        return placed if placed and len(placed) == len(items) else None

    def _state_readings(self, rel: str, phrase: str) -> tuple[list[tuple[GoalItem, float]], str]:
        """Ranked things of a state clause, or the refusal naming what can be so."""
        switch = rel in (SWITCHED_ON, OFF)
        pool = "switchable" if switch else "container"
        thing, room = _strip(phrase), None
        match = _IN_ROOM.match(thing)
        if match and _strip(match.group("room")) in self.names.room_words:
            thing, room = _strip(match.group("thing")), self.names.room_words[_strip(match.group("room"))]
        can = ", ".join(name_to_text(n) for n in self.names.pools[pool]) or "nothing here"
        refusal = (f"'{thing}' cannot be switched on or off (things that switch: {can})" if switch
                   else f"'{thing}' cannot be opened or closed (things that open: {can})")
        best = self.names.grounder.rank_names(thing, self.names.pools["any"])[:1]
        if not thing or not best or best[0].name not in self.names.pools[pool]:
            return [], refusal
        exact = self.names.exact(thing, "walk")
        if exact is not None and exact not in self.names.pools[pool]:
            return [], refusal
        cands = [(exact, 1.0)] if exact is not None else self.names.rank(thing, pool)
        if room is not None:
            w = float(self.opts["room_mismatch_weight"])
            at = self.h.switch_at if switch else {c: c for c in self.names.pools[pool]}
            cands = _normalise([(c, p * (1.0 if self.h.furniture_room[at[c]] == room else w)) for c, p in cands],
                               self.names.top)
        if not cands:
            return [], refusal
        return [(state_goal(rel, c), p) for c, p in cands], ""

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


def _goal_item(household: Household, rel: str, obj: str, dest: str, count: int) -> GoalItem | None:
    """A translated tuple as a goal item: a state item when it has no destination; None when it
    names a destination the scene does not have."""
    if not dest and rel in STATE_RELATIONS:
        return state_goal(rel, obj)
    if rel in (INSIDE, ON):
        return GoalItem(rel, obj, dest, count)
    return GoalItem(household.relation(dest), obj, dest, count) if dest in household.furniture_room else None


def _thing_phrase(clause: str, fallback: str) -> str:
    """The thing of a state clause after pronoun resolution (the clause re-read by the same rules)."""
    match = (_SWITCH.match(clause) or _SWITCH_AFTER.match(clause) or _LEAVE.match(clause) or _START.match(clause)
             or _OPEN_CLOSE.match(clause))
    return match.group("thing") if match else fallback


def _resolve_pronouns(clauses: Sequence[str], states: Sequence[tuple[str, str] | None]) -> list[str]:
    """Goal clauses with "it" replaced by the thing the goal clause before names (a state clause's
    thing, a placement's destination): "put the milk in the fridge and close it"."""
    out: list[str] = []
    last = ""
    for clause, asked in zip(clauses, states, strict=True):
        words = clause.split()
        if last and words and words[-1] in PRONOUNS:
            clause = " ".join(words[:-1] + ["the", last])
            words = clause.split()
        if asked is not None:
            last = _strip(_thing_phrase(clause, asked[1]))
        else:
            body = _SOURCE.sub("", " " + _drop_verb(clause)).strip()
            put = _PUT.match(body)
            last = _strip(put.group("dest")) if put else last
        out.append(clause)
    return out


def _last_state_wins(items: tuple[GoalItem, ...]) -> tuple[GoalItem, ...]:
    """The state items without those a later item overrides (the same thing, open/closed or on/off)."""
    def key(item: GoalItem) -> tuple[str, bool]:
        return item.obj_type, item.rel in (SWITCHED_ON, OFF)
    return tuple(item for k, item in enumerate(items) if all(key(later) != key(item) for later in items[k + 1:]))


def _products(readings: Sequence[Sequence[tuple[GoalItem, float]]],
              beam: int) -> list[tuple[tuple[GoalItem, float], ...]]:
    """The ``beam`` most probable combinations of one reading per state clause."""
    combos: list[tuple[tuple[GoalItem, float], ...]] = [()]
    for options in readings:
        combos = [c + (o,) for c in combos for o in options]
        combos = sorted(combos, key=lambda c: -math.prod(p for _i, p in c))[:beam]
    return combos


def make_channels(household: Household, backend: LanguageModel, config: Mapping[str, Any],
                  tries: int) -> OfflineChannels:
    """The offline channels of one scene, with the clause classifier trained once per process."""
    _train, classifier = trained_classifier(backend, config)
    return OfflineChannels(household, backend, classifier, config["channels"], tries)
