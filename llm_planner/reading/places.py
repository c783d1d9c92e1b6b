"""The furniture a place phrase names in one scene (:meth:`ScenePlaces.ground_place`): its own
name or another word for it, a kind with its room, number, position or rank ("the nightstand in the
guest room", "nightstand 2", "the second nightstand", "the left dresser"), a name covering the words
said, or the clearly closest name by Sentence-BERT; where one answer settles it, the question
(``Unclear``): which of several, where in a room, a place the apartment lacks."""
from __future__ import annotations

import re

from llm_planner.clarification import PLACE
from llm_planner.domains.household.language.kinds import POSITION_WORDS
from llm_planner.domains.household.world.words import name_to_text, plural, singular
from llm_planner.errors import GoalError
from llm_planner.reading.names import DETERMINERS, PRONOUNS, SceneNames, Unclear, covering

_VAGUE_PLACE = ("somewhere", "anywhere", "wherever", "away", "there", "here", "place", "it", "them", "the right place",
                "its place", "where it belongs", "where they belong")
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
             "5th": 5}
_ORDINALS_TEXT = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


class ScenePlaces(SceneNames):
    """A scene's names and the grounding of place phrases onto its furniture (see the module docstring)."""

    def ground_place(self, phrase: str) -> str:
        """The furniture a place phrase names; Unclear (a GoalError) where one answer settles it."""
        try:
            return self._ground_place(phrase)
        except Unclear as unclear:
            if unclear.kind == PLACE and not unclear.said:
                unclear.said = phrase
            raise

    def _ground_place(self, phrase: str) -> str:
        if phrase in self.place_words:
            return self.place_words[phrase]
        one = singular(phrase)
        if one in self.place_words:
            return self.place_words[one]
        for room in self.world.rooms:  # "the table in the kitchen" -> "the table" + room context
            suffix = f" in the {name_to_text(room)}"
            if phrase.endswith(suffix):
                phrase = f"{name_to_text(room)} {phrase[:-len(suffix)]}"
                if phrase in self.place_words:
                    return self.place_words[phrase]
        chosen = self._one_of_kind(phrase)
        if chosen is not None:
            return chosen
        covered = covering(phrase, self.furniture)
        if len(covered) == 1:  # "the big coffee table": the coffee table, never the table
            return covered[0]
        if len(covered) > 1:
            listed = " or ".join(self._where(f) for f in covered)
            raise Unclear(f"'{phrase}' may be the {listed}; say which", PLACE, "",
                           [self._place_option(f) for f in covered], f"which {phrase}")
        rooms = {name_to_text(r): r for r in self.world.rooms}
        if phrase in rooms:
            message = (f"'{phrase}' is a room; say on or in which furniture to put it "
                       f"(e.g. {self._closest(phrase, self.furniture)})")
            inside = [f for f in self.furniture if self.world.furniture_room.get(f) == rooms[phrase]]
            if inside:
                raise Unclear(message, PLACE, "", [self._place_option(f, room=False) for f in inside],
                               f"where in the {phrase}")
            raise GoalError(message)
        if phrase in _VAGUE_PLACE or not phrase:
            raise GoalError(f"say where to put it: on or in which furniture (e.g. {', '.join(self.furniture[:3])})")
        match = self._clear_match(phrase, self.furniture, self.place_match, heads=True)
        if match is None:
            message = (f"this apartment has no '{phrase}' to put things in or on; the closest are "
                       f"{self._closest(phrase, self.furniture)}")
            if len(phrase.split()) <= 3 and phrase not in PRONOUNS:
                closest = [m.name for m in self.grounder.rank_names(phrase, self.furniture)[:3]]
                raise Unclear(message, PLACE, "", [self._place_option(f) for f in closest],
                               f"this apartment has no {phrase}; which place do you mean")
            raise GoalError(message)
        return match

    def _place_option(self, furniture: str, room: bool = True) -> tuple[str, str, tuple[str, ...], str]:
        """(label, name, names, replacement) of a furniture option."""
        text = name_to_text(furniture)
        prep = "in" if furniture in self.world.containers else "on"
        label = self._where(furniture) if room else text
        return label, furniture, (text, furniture), f"{prep} the {text}"

    def _one_of_kind(self, phrase: str) -> str | None:
        """Furniture named by its kind ("the nightstand", "the bedside table") and, when the scene
        has several of that kind, by room, number or position ("the nightstand in the guest
        room", "nightstand 2", "the second nightstand", "the left dresser"); several left: which
        one is asked, never guessed. None when the phrase names no kind of the scene."""
        core, room, number, ordinal, positions = self._qualifiers(phrase)
        members = list(self.place_groups.get(core) or self.place_groups.get(singular(core)) or ())
        if not members:
            if core in self.place_words and (room or number is not None or ordinal is not None or positions):
                members = [self.place_words[core]]
            else:
                return None
        chosen = members
        said = []
        if room is not None:
            chosen = [f for f in chosen if self.world.furniture_room.get(f) == room]
            said.append(f"in the {name_to_text(room)}")
        if number is not None:
            chosen = [f for f in chosen if _number_of(f) == number]
            said.append(f"number {number}")
        if positions:
            chosen = [f for f in chosen if positions <= set(name_to_text(f).split())]
            said.append(" ".join(sorted(positions)))
        if ordinal is not None:
            ranked = sorted(chosen, key=lambda f: (_number_of(f) is None, _number_of(f) or 0))
            chosen = [ranked[ordinal - 1]] if 0 < ordinal <= len(ranked) else []
            said.append(_ORDINALS_TEXT.get(ordinal, str(ordinal)))
        if len(chosen) == 1:
            return chosen[0]
        listed = " or ".join(self._where(f) for f in (chosen or members))
        if not chosen:
            raise GoalError(f"this apartment has no {core} {' '.join(said)}; its {plural(core)}: {listed}")
        rooms = [self.world.furniture_room.get(f) for f in chosen]
        options = []
        for f, room in zip(chosen, rooms, strict=True):
            label, name, names, replacement = self._place_option(f)
            extra: tuple[str, ...] = (name_to_text(room),) if room and rooms.count(room) == 1 else ()
            number = _number_of(f)
            extra += (f"{core} {number}", f"number {number}") if number is not None else ()
            options.append((label, name, names + extra, replacement))
        raise Unclear(f"which {core}: {listed}? say it, e.g. {self._how_to_say(core, chosen)}", PLACE, "", options,
                       f"which {core}")

    def _how_to_say(self, core: str, chosen: list[str]) -> str:
        """Two ways to name the first of several furniture of one kind: its name, and its room, number,
        position or rank among them, whichever tells it apart."""
        first = chosen[0]
        prep = "in" if first in self.world.containers else "on"
        rooms = [self.world.furniture_room.get(f) for f in chosen]
        if rooms.count(rooms[0]) == 1 and rooms[0]:
            other = f"the {core} in the {name_to_text(rooms[0])}"
        elif _number_of(first) is not None:
            other = f"{core} {_number_of(first)}"
        else:
            words = [w for w in name_to_text(first).split() if w in POSITION_WORDS]
            other = f"the {words[0]} {core}" if words else f"the first {core}"
        return f"'{prep} the {name_to_text(first)}' or '{prep} {other}'"

    def _where(self, furniture: str) -> str:
        room = self.world.furniture_room.get(furniture)
        return f"{name_to_text(furniture)} ({name_to_text(room)})" if room else name_to_text(furniture)

    def _qualifiers(self, phrase: str) -> tuple[str, str | None, int | None, int | None, set[str]]:
        """(kind words, room, number, ordinal, position words) of a furniture phrase."""
        words = phrase.split()
        room = None
        match = re.search(r"\s+(?:in|of|inside|from)\s+(?:the\s+|my\s+|our\s+)?(.+)$", phrase)
        if match:
            room = self._room(match.group(1))
            if room is not None:
                words = phrase[:match.start()].split()
        if room is None and words and words[0].endswith("'s"):
            room = self._room(words[0][:-2])
            if room is not None:
                words = words[1:]
        if room is None:  # leading room words: "guest room nightstand", "the guest bed"
            for n in range(min(3, len(words) - 1), 0, -1):
                found = self._room(" ".join(words[:n]), exact_words=True)
                if found is not None:
                    room, words = found, words[n:]
                    break
        number = None
        if len(words) >= 2 and re.fullmatch(r"#?\d+", words[-1]):
            number = int(words[-1].lstrip("#"))
            words = words[:-1]
            if words and words[-1] in ("number", "no", "no.", "nr"):
                words = words[:-1]
        ordinal = None
        if len(words) >= 2 and words[0] in _ORDINALS:
            ordinal = _ORDINALS[words[0]]
            words = words[1:]
        positions = {w for w in words[:-1] if w in POSITION_WORDS}
        words = [w for w in words if w not in positions] or words
        return " ".join(words), room, number, ordinal, positions

    def _room(self, text: str, exact_words: bool = False) -> str | None:
        """The scene room a phrase names ("guest bedroom" -> guest_room, "the kitchen"), or None."""
        text = DETERMINERS.sub("", text.strip())
        said = {singular(w) for w in text.split()}
        if not said:
            return None
        best: str | None = None
        best_score: float = 0
        for room in self.world.rooms:
            words = {singular(w) for w in name_to_text(room).split()}
            if text == name_to_text(room):
                return room
            shared = len(said & words) - (0.5 if said - words - {"bedroom", "room"} else 0)
            if exact_words and not said <= words:
                continue
            if shared > best_score:
                best, best_score = room, shared
            elif shared == best_score and shared > 0:
                best = None  # two rooms fit as well: not this way
        return best if best_score >= 1 else None


def _number_of(furniture: str) -> int | None:
    """The number a furniture name ends with (nightstand_2 -> 2), or None."""
    match = re.search(r"_(\d+)$", furniture)
    return int(match.group(1)) if match else None
