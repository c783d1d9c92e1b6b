"""The names of one scene as a directive says them: the lexicons of its object types and furniture
(the scene's own words, singular and plural, and the commonsense file's other words) and the
grounding of an object phrase onto an object type (:meth:`SceneNames.ground_type`).

Names are grounded in three steps: the scene's own word (singular or plural), the commonsense
file's synonyms (refrigerator -> fridge, couch -> sofa, phone -> cellphone), then Sentence-BERT
cosine over the scene's names, accepted only when clearly the closest (``offline.goal_parser`` of
config/llm.yaml: ``object_match`` / ``place_match`` and a ``margin`` over the next name: "the
cabinet" in a flat with a kitchen and a bathroom cabinet is refused, not guessed). Before the
cosine, an object name said in several words goes to the type, ending in the word said last, that
matches the most words said ("the stand lamp" and "the floor lamp": floor_stand_lamp, never lamp);
two types matching as many words are asked about ("which stand lamp: floor stand lamp or desk stand
lamp?"). A name the apartment lacks is asked back, never taken: one garbled by speech ("did you
mean the remote control?" for "ultimately alt control") or a near name, the one type whose head
noun starts like the word said ("the notebook" where a notepad is: "did you mean the notepad?");
where nobody answers, the refusal names it. Never a thing the commonsense file knows as another
("remote control" is no game controller). Furniture is grounded by :mod:`.places`.
"""
from __future__ import annotations

import difflib
import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from llm_planner.clarification import WHICH
from llm_planner.domains.household.language.kinds import furniture_forms, same_kind
from llm_planner.domains.household.world.words import name_to_text, plural, singular
from llm_planner.errors import GoalError

if TYPE_CHECKING:
    from llm_planner.domains.household.language.grounding import Grounder
    from llm_planner.domains.household.language.text import WorldInfo
    from llm_planner.domains.household.world.commonsense import Commonsense

#: Words that stand for an object said before ("get the soap and leave it on the counter").
PRONOUNS = ("it", "them", "those", "these", "that", "this", "this one", "that one", "both of them", "all of them")
#: Words before a name that are not part of it.
DETERMINERS = re.compile(r"^(?:the|a|an|some|my|our|your|this|that|these|those|of)\s+")
#: Most options a question lists (the closest or likeliest first).
MAX_OPTIONS = 5


class Unclear(GoalError):
    """Raised inside the parser where one answer settles the directive: the phrase said (empty: a
    place that was not said), the options as (label, scene name or count, names, replacement) and
    the question; :meth:`GoalParser.parse` rewrites the directive per option (NeedsAnswer)."""

    def __init__(self, message: str, kind: str, said: str, options: list[tuple[str, str, tuple[str, ...], str]],
                 question: str, whole: bool = False) -> None:
        super().__init__(message)
        self.kind, self.said, self.options, self.question = kind, said, options, question
        self.whole = whole  # the replacement stands for the whole phrase said ("a few apples" -> "2 apples")



class SceneNames:
    """The lexicons of one scene and the grounding of object phrases (see the module docstring)."""

    def __init__(self, world: WorldInfo, commonsense: Commonsense, grounder: Grounder, min_score: float,
                 thresholds: Mapping[str, float]) -> None:
        self.world = world
        self.commonsense = commonsense
        self.grounder = grounder
        self.min_score = min_score
        self.object_match = float(thresholds["object_match"])
        self.place_match = float(thresholds["place_match"])
        self.new_word_match = float(thresholds["new_word_match"])
        self.margin = float(thresholds["margin"])
        match, margin, spelling = (thresholds.get(k) for k in ("propose_match", "propose_margin", "propose_spelling"))
        self.propose_match: float | None = None  # without all three: no proposals
        self.propose_margin, self.propose_spelling = 0.0, 1.0
        if match is not None and margin is not None and spelling is not None:
            self.propose_match, self.propose_margin = float(match), float(margin)
            self.propose_spelling = float(spelling)
        self.types = list(world.object_types)
        self.furniture = list(world.furniture)
        self.type_words = self._type_words(commonsense)
        self.name_words = _name_words_by_head(self.types)
        self.place_words = self._place_words(commonsense)
        self.place_groups = self._place_groups(commonsense)
        self._longest_type = max((len(w.split()) for w in self.type_words), default=1)

    # ---------------------------------------------------------------- lexicons
    def _type_words(self, cs: Commonsense) -> dict[str, tuple[str, bool]]:
        """Surface word -> (scene type, plural?): the scene's own names first, then the aliases."""
        words: dict[str, tuple[str, bool]] = {}
        index = cs.alias_index()
        by_entry: dict[str, list[str]] = {}
        for word, entry in index.items():
            by_entry.setdefault(entry, []).append(word)
        for t in self.types:
            text = name_to_text(t)
            for w in (text, t, text.replace(" ", "")):
                words.setdefault(w, (t, False))
            words.setdefault(plural(text), (t, True))
        for t in self.types:
            text = name_to_text(t)
            alias_entry = index.get(text) or index.get(text.replace(" ", ""))
            for word in by_entry.get(alias_entry, []) if alias_entry else []:
                words.setdefault(word, (t, False))
                words.setdefault(plural(word), (t, True))
        return words

    def _place_words(self, cs: Commonsense) -> dict[str, str]:
        words: dict[str, str] = {}
        for f in self.furniture:
            text = name_to_text(f)
            for w in (text, f, text.replace(" ", ""), plural(text)):
                words.setdefault(w, f)
        for place, aliases in cs.place_aliases.items():
            target = words.get(place)
            if target is None:
                continue
            for w in aliases:
                words.setdefault(w, target)
        return words

    def _place_groups(self, cs: Commonsense) -> dict[str, tuple[str, ...]]:
        """Word -> every furniture of that kind, in the scene's order: a furniture's name without its
        number, room or position words and its head noun ("nightstand" for nightstand_1 and
        nightstand_2, "table" for every table), and a general place's name and aliases for the
        furniture whose name says that place ("bedside table" for both nightstands)."""
        rooms = list(self.world.rooms)
        groups: dict[str, list[str]] = {}
        forms = {f: furniture_forms(f, rooms) for f in self.furniture}
        for f, fs in forms.items():
            for form in fs[1:]:
                groups.setdefault(form, []).append(f)
        for place in cs.places:
            words = (place, *cs.place_aliases.get(place, ()))
            members = [f for f in self.furniture if any(w in words for w in forms[f])]
            for w in words:
                for f in members:
                    if f not in groups.setdefault(w, []):
                        groups[w].append(f)
        order = {f: i for i, f in enumerate(self.furniture)}
        return {w: tuple(sorted(fs, key=order.__getitem__)) for w, fs in groups.items()}

    # -------------------------------------------------------------- grounding
    def ground_type(self, phrase: str) -> tuple[str, bool]:
        """(scene type, whether the phrase was plural)."""
        phrase = DETERMINERS.sub("", phrase.strip())
        for candidate in (phrase, singular(phrase)):
            if candidate in self.type_words:
                obj_type, is_plural = self.type_words[candidate]
                return obj_type, is_plural or candidate != phrase
        if phrase in self.place_words or singular(phrase) in self.place_words:
            furniture = self.place_words.get(phrase) or self.place_words[singular(phrase)]
            raise GoalError(f"'{phrase}' is furniture ({furniture}) and cannot be moved; the robot moves objects "
                            f"such as {', '.join(self.types[:3])} into or onto furniture")
        if phrase in (name_to_text(r) for r in self.world.rooms):
            raise GoalError(f"'{phrase}' is a room; say which object to move and where, e.g. 'put the mug inside "
                            "the dishwasher'")
        if phrase in PRONOUNS:
            raise GoalError(f"cannot tell what '{phrase}' is; name the object, e.g. 'put the mug on the desk'")
        covered = self._covering(phrase)
        if covered:
            return covered, phrase.endswith("s") and not name_to_text(covered).endswith("s")
        match = self._clear_match(phrase, self.types, self.object_match)
        named = self.type_words.get(plural(phrase))
        if match is not None and named is not None and named[0] != match and same_kind(phrase, match):
            # "the glass": a wine glass, or the glasses? (a word whose plural names another type)
            both = (match, named[0])
            raise Unclear(f"this apartment has no '{phrase}'; it may be {' or '.join(name_to_text(t) for t in both)}",
                           WHICH, phrase, [(name_to_text(t), t, (name_to_text(t), t), name_to_text(t)) for t in both],
                           f"which {phrase}")
        if match is None:
            self._propose(phrase, self._proposal(phrase))
            raise GoalError(f"this apartment has no '{phrase}'; the closest objects are "
                            f"{self._closest(phrase, self.types)}")
        if not same_kind(phrase, match):  # never swap one thing for another
            self._propose(phrase, self._near_name(phrase))
            raise GoalError(f"this apartment has no '{phrase}'; the closest objects are "
                            f"{self._closest(phrase, self.types)}, which are other things: name one of them "
                            "to move it")
        text = name_to_text(match)
        return match, phrase.endswith("s") and not text.endswith("s")

    def _covering(self, phrase: str) -> str | None:
        """The object type whose name matches the most of the phrase's words, ending in its head noun
        ("the red desk lamp": desk lamp, never lamp; "the stand lamp": floor stand lamp, never lamp);
        None when no name matches, or when a furniture name accounts for more ("coffee table" is no
        coffee); Unclear when two types tie on the words matched."""
        types, places = covering(phrase, self.types, partial=True), covering(phrase, self.furniture)
        if not types or (places and _words_said(phrase, places[0]) > _words_said(phrase, types[0])):
            return None
        if len(types) == 1:
            return types[0]
        listed = " or ".join(name_to_text(t) for t in types)
        raise Unclear(f"'{phrase}' may be the {listed}; say which", WHICH, phrase,
                       [(name_to_text(t), t, (name_to_text(t), t), name_to_text(t)) for t in types], f"which {phrase}")

    def _propose(self, phrase: str, proposed: str | None) -> None:
        """Unclear asking "did you mean the <proposed>?" (its refusal names it); nothing for None."""
        if proposed is None:
            return
        text = name_to_text(proposed)
        raise Unclear(f"this apartment has no {phrase}; did you mean the {text}? say 'the {text}' to move it",
                       WHICH, phrase, [(text, proposed, (text, proposed), text)],
                       f"this apartment has no {phrase}; did you mean")

    def _proposal(self, phrase: str) -> str | None:
        """The one object type to propose for a name the apartment lacks: a name speech garbled
        ("remote control" said as "ultimately alt control"; clearly the closest by Sentence-BERT,
        ``propose_match`` and ``propose_margin``, and the same kind of thing or spelled alike,
        ``propose_spelling``), else a near name (:meth:`_near_name`); never asked for another kind
        of thing that merely sounds related."""
        if self.propose_match is None or not phrase or len(phrase.split()) > 5:
            return None
        index = self.commonsense.alias_index()
        if phrase in index or singular(phrase) in index:
            return self._near_name(phrase)  # a thing the commonsense file knows: only a near name of it
        ranked = self.grounder.rank_names(phrase, self.types)
        if not ranked or ranked[0].score < self.propose_match:
            return None
        if len(ranked) > 1 and ranked[0].score - ranked[1].score < self.propose_margin:
            return None
        best = ranked[0].name

        def letters(s: str) -> str:
            return "".join(ch for ch in s if ch.isalpha())

        spelled = difflib.SequenceMatcher(None, letters(phrase), letters(name_to_text(best))).ratio()
        if same_kind(phrase, best) or spelled >= self.propose_spelling:
            return best
        return self._near_name(phrase)

    def _near_name(self, phrase: str) -> str | None:
        """The object type under a near name of the word said, to ask about, never to take: the
        one type whose head noun shares the stem of the phrase's head noun ("notebook" and notepad:
        at least four first letters, half the shorter word), at least ``propose_match`` by
        Sentence-BERT; None when several share it, or when the commonsense file knows the phrase and
        the type as two things ("remote control" is no game controller)."""
        if self.propose_match is None or not phrase or len(phrase.split()) > 5:
            return None
        near = [m.name for m in self.grounder.rank_names(phrase, self.types)
                if m.score >= self.propose_match and _shares_stem(phrase, m.name)]
        if len(near) != 1:
            return None
        index = self.commonsense.alias_index()
        said = index.get(phrase) or index.get(singular(phrase))
        text = name_to_text(near[0])
        named = index.get(text) or index.get(text.replace(" ", ""))
        return None if said is not None and named is not None and said != named else near[0]

    def _clear_match(self, phrase: str, names: list[str], threshold: float, heads: bool = False) -> str | None:
        """The name the phrase grounds to when it is clearly the closest (see the module docstring);
        ``heads``: only the names' last words count as shared words (furniture: "table", "cabinet")."""
        if len(phrase.split()) > 4:
            return None
        ranked = self.grounder.rank_names(phrase, names)
        if not ranked:
            return None
        best = ranked[0]
        words = name_to_text(best.name).split()
        shared = set(phrase.split()) & ({words[-1]} if heads else set(words) | {plural(w) for w in words})
        if best.score < max(threshold if shared else self.new_word_match, self.min_score):
            return None
        if len(ranked) > 1 and best.score - ranked[1].score < self.margin:
            return None
        return best.name

    def _closest(self, phrase: str, names: list[str], k: int = 3) -> str:
        return ", ".join(m.name for m in self.grounder.rank_names(phrase, names)[:k])



def covering(phrase: str, names: list[str], partial: bool = False) -> list[str]:
    """The names ending in the phrase's last word (its head noun) that match the most of its words
    (several: a tie): names all of whose words the phrase says, and with ``partial`` also names of
    which it says two words or more ("stand lamp" matches floor_stand_lamp on two words, lamp on one)."""
    words = phrase.split()
    if not words:
        return []
    said: dict[str, int] = {}
    for n in names:
        name_words = name_to_text(n).split()
        if name_words[-1] not in (words[-1], singular(words[-1])):  # no "apple pie"
            continue
        count = _words_said(phrase, n)
        if count == len(name_words) or (partial and count >= 2):
            said[n] = count
    most = max(said.values(), default=0)
    return [n for n, count in said.items() if count == most]


def _shares_stem(phrase: str, name: str) -> bool:
    """Whether the head nouns of a phrase and a name start alike and differ ("notebook" and notepad
    share "note"): at least four first letters in common, and half of the shorter word."""
    said, named = singular(phrase.split()[-1]), singular(name_to_text(name).split()[-1])
    if said == named:
        return False
    common = len(os.path.commonprefix([said, named]))
    return common >= 4 and 2 * common >= min(len(said), len(named))


def _words_said(phrase: str, name: str) -> int:
    """How many of a name's words the phrase says ("apples" says apple; "glass" does not say glasses)."""
    words = phrase.split()
    said = set(words) | {singular(w) for w in words}
    return len(set(name_to_text(name).split()) & said)


def _name_words_by_head(types: list[str]) -> dict[str, set[str]]:
    """Head noun -> the other words of the object names of two words or more ending in it
    ("lamp" -> {"floor", "stand"} for floor_stand_lamp): words said before a shorter name that belong
    to the longer one ("the stand lamp")."""
    out: dict[str, set[str]] = {}
    for t in types:
        words = name_to_text(t).split()
        if len(words) >= 2:
            out.setdefault(words[-1], set()).update(w for w in words[:-1] if w.isalpha())
    return out
