"""How a directive asks how a thing is, not where it goes (issue 44): "turn on the tv", "switch the
lamp in the bedroom off", "close the fridge", "leave the dishwasher open", "the fridge should be
closed" (the cue words are data: ``states`` of ``data/reader_cues.yaml``).

:func:`state_said` finds the state a clause asks and the words naming the thing;
:class:`SceneThings` grounds those words onto the scene's things that can take that state: a
container for open/closed, a switchable thing for on/off (``WorldInfo.switch_at``, the scene's
``switchable`` section). Things are named as places are: by their own words or other words for
them ("the television"), by room ("the lamp in the bedroom", "the bedroom lamp") or by the
furniture they stand at ("the lamp by the desk"); several left is asked ("which lamp: floor lamp
(living room) or desk lamp (bedroom)?"), never guessed. A thing that cannot take the state ("turn on
the apple", "open the sofa") is refused naming what can (the list of ``Household.check_goal``).

The goal item of a state is ``(rel, thing)`` with rel open, closed, on or off
(``symbolic.state_goal``), the goal that the thing ends that way (LLM-MCTS seed 000 §2.2 "Goal"
extended by states; SayCanPay seed 004 §7.2 lists VirtualHome's switch tasks).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from llm_planner.clarification import PLACE, WHICH
from llm_planner.domains.household.world.symbolic import CLOSED, OFF, OPEN, SWITCHED_ON
from llm_planner.domains.household.world.words import name_to_text, plural, singular
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.reading.names import DETERMINERS, MAX_OPTIONS, Unclear
from llm_planner.reading.phrasing import POLITE_END, POLITE_START
from llm_planner.reading.places import ScenePlaces
from llm_planner.reading.quantities import CUES_FILE, quantity

#: Words that stand for the thing said last that can take the state ("close it").
STATE_PRONOUNS = ("it", "that", "this", "this one", "that one")
_AT = re.compile(r"\s+(?:at|by|on|near|next\s+to|beside)\s+(?:the\s+|my\s+|our\s+)?(.+)$")


@dataclass(frozen=True)
class StateCues:
    """The ``states`` section of ``reader_cues.yaml``."""

    before: tuple[tuple[str, str], ...]   # (verb phrase, state), longest first: "turn on the tv"
    around: tuple[str, ...]               # verbs of "turn the tv off", "leave the fridge open"
    words: dict[str, str]                 # state word -> state ("shut" -> closed)
    copula: tuple[str, ...]               # "the fridge should be closed"
    thing_words: dict[str, str]           # other words for a thing's words ("television" -> tv)


@lru_cache(maxsize=2)
def load_state_cues(path: str | Path = CUES_FILE) -> StateCues:
    """The state cue words; a malformed file is a GoalError naming it."""
    try:
        data: Any = yaml.safe_load(Path(path).read_text())["states"]
        before = sorted(((str(v), str(rel)) for rel, verbs in data["before"].items() for v in verbs),
                        key=lambda p: -len(p[0]))
        return StateCues(tuple(before), tuple(str(v) for v in data["around"]),
                         {str(k): str(v) for k, v in data["words"].items()},
                         tuple(sorted((str(c) for c in data["copula"]), key=len, reverse=True)),
                         {str(k): str(v) for k, v in data["thing_words"].items()})
    except (OSError, KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError) as exc:
        raise GoalError(f"{path}: no 'states' section the reader reads ({exc!r}); expected before, around, words, "
                        "copula and thing_words") from None


STATE_CUES = load_state_cues()


def _alternation(words: tuple[str, ...] | list[str]) -> str:
    return "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w in sorted(words, key=len, reverse=True))


_STATE_WORD = _alternation(list(STATE_CUES.words))
_AROUND = re.compile(rf"^(?:{_alternation(STATE_CUES.around)})\s+(.+?)\s+({_STATE_WORD})$")
_BEFORE = [(re.compile(rf"^{_alternation([verb])}\s+(.+)$"), rel) for verb, rel in STATE_CUES.before]
_COPULA = re.compile(rf"^(.+?)\s+(?:{_alternation(STATE_CUES.copula)})\s+({_STATE_WORD})$")


@dataclass(frozen=True)
class StateSaid:
    """A clause that asks a state: the state and the words naming the thing ("the tv", "it")."""

    rel: str
    thing: str
    text: str = ""

    @property
    def switch(self) -> bool:
        """On/off (a switchable thing), not open/closed (a container)."""
        return self.rel in (SWITCHED_ON, OFF)


def state_said(clause: str) -> StateSaid | None:
    """The state a clause of a normalized directive asks, or None: "turn on the tv" -> (on, "the tv");
    "leave the fridge open" -> (open, "the fridge"); "close it" -> (closed, "it")."""
    text = " ".join(POLITE_START.sub("", clause.strip(" ,;:")).split())
    text = POLITE_END.sub("", text).strip(" ,;:")
    for pattern in (_AROUND, _COPULA):
        match = pattern.match(text)
        if match:
            return StateSaid(STATE_CUES.words[" ".join(match.group(2).split())], match.group(1).strip(), text)
    for pattern, rel in _BEFORE:
        match = pattern.match(text)
        if match:
            return StateSaid(rel, match.group(1).strip(), text)
    return None


def state_verb(rel: str) -> str:
    """How to ask a state: 'turn on', 'turn off', 'open', 'close'."""
    return {SWITCHED_ON: "turn on", OFF: "turn off", OPEN: "open", CLOSED: "close"}[rel]


def _one(words: str) -> str:
    """The words without a count of one said before the name ("one lamp" -> "lamp")."""
    try:
        amount, rest = quantity(words.split())
    except GoalError:
        return words
    return " ".join(rest) if rest and amount.count == 1 and not amount.pairs else words


class SceneThings(ScenePlaces):
    """The grounding of a thing's words onto the scene's switchable things and containers."""

    @property
    def switchables(self) -> tuple[str, ...]:
        return tuple(self.world.switch_at)

    def can_take(self, thing: str, switch: bool) -> bool:
        """``thing`` switches (``switch``) or opens and closes."""
        return thing in self.world.switch_at if switch else thing in self.world.containers

    def cannot(self, said: str, switch: bool) -> DirectiveRefused:
        """The refusal of a thing that cannot take a state, naming what can (``Household.check_goal``'s list)."""
        if switch:
            can = ", ".join(self.switchables) or "nothing in this scene"
            return DirectiveRefused(f"'{said}' cannot be switched on or off (things that switch: {can})")
        can = ", ".join(self.world.containers) or "nothing in this scene"
        return DirectiveRefused(f"'{said}' cannot be opened or closed (things that open: {can})")

    def ground_things(self, phrase: str, rel: str) -> list[str]:
        """The things a phrase names that can take the state ``rel`` (several for a plural: "the
        lamps"); Unclear where one answer settles it, DirectiveRefused for a thing that cannot."""
        switch = rel in (SWITCHED_ON, OFF)
        words = DETERMINERS.sub("", " ".join(phrase.split())).strip()
        if not words:
            raise GoalError(f"say what to {state_verb(rel)}")
        every = self._every(" ".join(phrase.split()), rel)
        if every is not None:
            return every
        words = _one(words)  # "a lamp", "one lamp": the lamp
        named = self.switchables_named(words)
        if named is not None:
            chosen, plural_said = named
            if not switch:
                refusals = [t for t in chosen if not self.can_take(t, switch)]
                if refusals:
                    raise self.cannot(words, switch)
            return chosen if plural_said else chosen[:1]
        try:
            self.ground_type(words)
        except GoalError:
            pass
        else:  # an object ("the apple") never switches nor opens
            raise self.cannot(words, switch)
        thing = self._furniture_thing(words, switch)
        if not self.can_take(thing, switch):
            raise self.cannot(name_to_text(thing) if words == name_to_text(thing) else words, switch)
        return [thing]

    def _every(self, words: str, rel: str) -> list[str] | None:
        """Every thing of a kind that can take the state, for "all the lamps", "every cabinet", "both
        lamps" or a count that is all of them ("two lamps" of two); None when no such quantity is said."""
        try:
            amount, rest = quantity(words.split())
        except GoalError:
            return None
        if amount.vague or amount.choices:  # "some lamps": which ones is not said
            raise GoalError(f"'{words}' does not say which; name each, or say 'all the {' '.join(rest)}'")
        plural_said = amount.count is None and not amount.vague and bool(rest) and singular(rest[-1]) != rest[-1]
        if not rest or not (amount.every or amount.pairs or (amount.count or 0) > 1 or plural_said):
            return None
        core, switch = " ".join(rest), rel in (SWITCHED_ON, OFF)
        named = self.switchables_named(core, every=True)
        if named is not None:
            found = named[0]
        else:
            group = self.place_groups.get(core) or self.place_groups.get(singular(core)) or ()
            found = [f for f in group if self.can_take(f, switch)]
        if not found:
            return None
        wanted = 2 if amount.pairs and amount.count is None else amount.count
        if wanted is not None and wanted != len(found):
            listed = " and ".join(name_to_text(t) for t in found)
            raise GoalError(f"'{words}' says {wanted}, and this apartment has {len(found)} that "
                            f"{'switch' if switch else 'open'}: {listed}; say which, or 'all the {core}'")
        return found

    def _furniture_thing(self, words: str, switch: bool) -> str:
        """The furniture the words name, as places are named; a question among those that can take
        the state where several fit."""
        try:
            return self.ground_place(words)
        except Unclear as unclear:
            if unclear.kind != PLACE or unclear.question.startswith("this apartment has no"):
                raise self._no_such(words, switch) from None
            values = [o for o in unclear.options if self.can_take(o[1], switch)]
            if len(values) == 1:
                return values[0][1]
            if not values:
                raise self.cannot(words, switch) from None
            options = [(label, value, names, name_to_text(value)) for label, value, names, _r in values]
            listed = " or ".join(label for label, *_rest in options)
            raise Unclear(f"which {words}: {listed}? say it, e.g. 'the {options[0][3]}'", WHICH, words, options,
                          unclear.question) from None
        except GoalError:
            raise self._no_such(words, switch) from None

    def _no_such(self, words: str, switch: bool) -> GoalError:
        what = "switches on and off" if switch else "opens and closes"
        can = ", ".join(name_to_text(t) for t in (self.switchables if switch else self.world.containers))
        return GoalError(f"this apartment has no '{words}' that {what}; the things that do: {can or 'none'}")

    def switchables_named(self, words: str, every: bool = False) -> tuple[list[str], bool] | None:
        """(the switchable things the words name, said as a plural or ``every`` one) or None when they
        name none: every word of the name said ("floor lamp"), its last word ("lamp": both lamps), with
        the room or the furniture it stands at ("the lamp in the bedroom", "the lamp by the desk")."""
        if not self.world.switch_at:
            return None
        at = None
        match = _AT.search(words)
        if match:
            try:
                at = self.ground_place(match.group(1))
            except GoalError:
                return None
            words = words[:match.start()].strip()
        core, room, _number, _ordinal, _positions = self._qualifiers(words)
        said = [STATE_CUES.thing_words.get(w, w) for w in core.split()]
        said = " ".join(said).split()
        if not said:
            return None
        last = said[-1]
        plural_said = every or singular(last) != last
        heads = {last, singular(last)}
        members = [d for d in self.switchables
                   if name_to_text(d).split()[-1] in heads and set(said[:-1]) <= set(name_to_text(d).split())]
        if not members:
            return None
        chosen = [d for d in members
                  if (room is None or self.world.furniture_room.get(self.world.switch_at[d]) == room)
                  and (at is None or self.world.switch_at[d] == at)]
        head = singular(last)
        listed = " or ".join(self._thing_where(d) for d in members)
        if not chosen:
            where = f" in the {name_to_text(room)}" if room else f" at the {name_to_text(at)}" if at else ""
            raise GoalError(f"this apartment has no {head}{where}; its {plural(head)}: {listed}")
        if len(chosen) > 1 and not plural_said:
            options: list[tuple[str, str, tuple[str, ...], str]] = [
                (self._thing_where(d), d, (name_to_text(d), d, self._room_text(d)), name_to_text(d))
                for d in chosen[:MAX_OPTIONS]]
            raise Unclear(f"which {head}: {' or '.join(self._thing_where(d) for d in chosen)}? say it, e.g. 'the "
                          f"{name_to_text(chosen[0])}' or 'the {head} in the "
                          f"{self._room_text(chosen[0])}'",
                          WHICH, core, options, f"which {head}")
        return chosen, plural_said

    def _room_text(self, thing: str) -> str:
        return name_to_text(self.world.furniture_room.get(self.world.switch_at.get(thing, thing), ""))

    def _thing_where(self, thing: str) -> str:
        room = self.world.furniture_room.get(self.world.switch_at.get(thing, thing))
        return f"{name_to_text(thing)} ({name_to_text(room)})" if room else name_to_text(thing)
