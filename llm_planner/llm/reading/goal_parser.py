"""The offline goal parser: a household directive to goal tuples from rules plus embeddings, the
offline answer to the goal-interpretation question of LLM-MCTS (seed 000, §2.2 "Goal", App. F
listing 3: "put one apple into the fridge" -> (apple, inside, fridge)).

What it reads:

* polite and chatty wrappers ("could you ... please", "I'd like ...", "would it be possible to",
  "hi! ... thanks!", "okay so, um, ..."), clauses joined by "and", "then" or commas;
* counts after them: digits and number words, "a couple of", "a pair of", "both", "one of the",
  "all (of) the" / "every" / "each" (every instance in the apartment), a plural with "the" (all of
  them); "some", "a few", "several" have no count and are refused;
* relations (in/inside/into -> INSIDE, on/onto/on top of -> ON, "to"/"at" -> by the furniture's
  kind) and states said with a verb of being ("the towel should be in the cabinet");
* verbs that imply a place when none is said ("chill" -> fridge, "heat up" -> microwave, "wash" ->
  dishwasher for things kept there, "hang up" -> wardrobe, "shelve" -> bookshelf; data in
  ``commonsense.yaml`` ``verb_places``);
* pronouns: "get the soap and leave it on the counter" ("it" is the last object without a place,
  "them" every such object since the last place);
* objects listed before one shared destination ("an apple and a banana in the fridge").

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
("remote control" is no game controller).

Where one answer would settle a directive (which of several tables or glasses, how many when the
apartment has fewer than said, where in a room, a place the apartment lacks, no place said) it
raises ``NeedsAnswer`` (a GoalError whose message is the refusal) with the question, its options and
each option's directive as if said clearly (``llm_planner.clarification``). Where it cannot
read a directive it raises GoalError saying why, never a guess: a count it cannot
tell, a word after the object it does not understand, a pronoun without an object before it, a
negation or exception ("everything except the apple"), a question, a room as destination, and
a directive in another language (the offline backend reads English; a configured model reads more).
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_planner.clarification import COUNT, PLACE, WHICH, NeedsAnswer, Option, Question, number_word
from llm_planner.domains.household.world.symbolic import INSIDE, ON
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.llm.commonsense import POSITION_WORDS, Commonsense, furniture_forms, load_commonsense
from llm_planner.llm.grounding import Grounder, same_kind
from llm_planner.llm.phrasing import GERUNDS as _GERUNDS
from llm_planner.llm.phrasing import POLITE_END as _POLITE_END
from llm_planner.llm.phrasing import POLITE_START as _POLITE_START
from llm_planner.llm.phrasing import normalize
from llm_planner.llm.reading.quantities import (
    ALL_WORDS,
    COUNT_WORDS,
    FILLER_ADVERBS,
    NUMBER_WORDS,
    VAGUE_COUNTS,
    Quantity,
    quantity,
    refuse_reversal,
    refuse_unsaid,
    reversal,
)
from llm_planner.llm.text import WorldInfo, is_pair_noun, name_to_text, plural, singular

if TYPE_CHECKING:
    from llm_planner.llm.resources import Resources


PRONOUNS = ("it", "them", "those", "these", "that", "this", "this one", "that one", "both of them", "all of them")
VERBS = (
    "put", "place", "move", "bring", "take", "store", "set", "leave", "carry", "get", "drop", "stash",
    "load", "keep", "pop", "stick", "transfer", "return", "lay", "stack", "position", "relocate", "hang",
    "toss", "throw", "slide", "stow", "tidy", "deliver", "fetch", "rearrange", "arrange", "shift", "insert",
    "grab", "find", "pick", "give", "chill", "refrigerate", "cool", "heat", "warm", "reheat", "microwave",
    "wash", "shelve", "clean",
)
_FILLER_CLAUSE = re.compile(r"^(?:hi|hey|hello|thanks|thank you|thx|ok|okay|please|pls|great|cheers|robot|so|um|uh|"
                            r"when you get a chance|if you can|if you could|when you can|you|me)$")
_SPLIT = re.compile(r"\s*(?:,|;|\band\s+then\b|\bthen\b|\bafter\s+that\b|\balso\b|\bas\s+well\s+as\b|\band\b|&)\s*")
# Prepositions that start the destination, longest first.
_RELATIONS = (
    ("on top of", ON), ("inside of", INSIDE), ("back into", INSIDE), ("back inside", INSIDE),
    ("back in", INSIDE), ("back onto", ON), ("back on", ON), ("back to", ""), ("over to", ""),
    ("inside", INSIDE), ("into", INSIDE), ("in", INSIDE), ("onto", ON), ("on", ON), ("to", ""),
    ("at", ""), ("upon", ON), ("within", INSIDE), ("beside", ""), ("by", ""),
)
_REL_PATTERN = re.compile(r"\b(" + "|".join(re.escape(w) for w, _ in _RELATIONS) + r")\b")
_REL_OF = dict(_RELATIONS)
_DETERMINERS = re.compile(r"^(?:the|a|an|some|my|our|your|this|that|these|those|of)\s+")
_COPULA = re.compile(r"\s+(?:is|are|should\s+be|must\s+be|has\s+to\s+(?:be|go)|have\s+to\s+(?:be|go)|"
                     r"needs?\s+to\s+(?:be|go)"
                     r"|goes|go|belongs?|stays?|ends?\s+up)$")
_GOES_TO = re.compile(r"\s+(?:needs?|has|have|ought|wants?)\s+to\s+(?:be|go|end\s+up|get)\s+")
#: Words that may follow the object without changing the goal ("keep the milk cold in the fridge").
_AFTER_OBJECT = {"too", "again", "also", "as", "well", "back", "away", "up", "down", "over", "out", "there", "here",
                 "cold", "cool", "warm", "hot", "clean", "safe", "fresh", "please", "for", "me", "us", "now", "first",
                 "later", "then", "carefully", "gently", "quickly", "somewhere", "anywhere"}
_SOURCE = re.compile(r"\s+(?:from|off|out\s+of)\s+.*$")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_QUESTION = re.compile(r"^(?:what|what's|whats|where|where's|which|who|why|how|is|are|does|did|has|have)\b")
_VAGUE_PLACE = ("somewhere", "anywhere", "wherever", "away", "there", "here", "place", "it", "them", "the right place",
                "its place", "where it belongs", "where they belong")
_ENGLISH = {"the", "a", "an", "in", "into", "on", "onto", "put", "please", "to", "and", "of", "it", "my", "you",
            "could",
            "can", "inside", "place", "move", "with", "for", "me", "is", "get", "take"}
_FOREIGN = {"le", "la", "les", "dans", "une", "des", "du", "sur", "et", "mets", "mettre", "plaît", "plait", "frigo",
            "el", "los", "las", "pon", "ponga", "nevera", "mesa", "por", "favor", "der", "die", "das", "den", "dem",
            "ein", "eine", "und", "auf", "bitte", "stell", "stelle", "leg", "lege", "kühlschrank", "il", "lo", "gli",
            "sulla", "sul", "nel", "nella", "metti", "per", "di", "della", "uma", "um", "na", "coloque", "geladeira",
            "zet", "het", "een", "op", "koelkast", "alsjeblieft"}


class _Unclear(GoalError):
    """Raised inside the parser where one answer settles the directive: the phrase said (empty: a
    place that was not said), the options as (label, scene name or count, names, replacement) and
    the question; :meth:`GoalParser.parse` rewrites the directive per option (NeedsAnswer)."""

    def __init__(self, message: str, kind: str, said: str, options: list[tuple[str, str, tuple[str, ...], str]],
                 question: str, whole: bool = False) -> None:
        super().__init__(message)
        self.kind, self.said, self.options, self.question = kind, said, options, question
        self.whole = whole  # the replacement stands for the whole phrase said ("a few apples" -> "2 apples")


#: The relation words that may stand before a place phrase, longest first (replaced with the place).
_PLACE_PREFIX = (r"(?:\b(?:on top of|inside of|back into|back inside|back in|back onto|back on|back to|over to|"
                 r"inside|into|onto|upon|within|in|on|to|at|by|beside)\s+)?(?:(?:the|my|our|your|a|an)\s+)?")
#: Most options a question lists (the closest or likeliest first).
_MAX_OPTIONS = 5


@dataclass(frozen=True)
class ParsedItem:
    rel: str            # INSIDE / ON
    obj_type: str       # scene type name
    destination: str    # scene furniture name
    count: int


@dataclass(frozen=True)
class _Clause:
    count: int | None   # None: not said (1, or all of them for a plural noun)
    obj: str            # object phrase
    rel: str            # relation word ("" when none was said)
    dest: str           # destination phrase ("" when none was said)
    pairs: bool         # counted in pairs ("two pairs of glasses")
    verb: str = ""      # the clause's verb ("chill" may imply the destination)
    every: bool = False  # "all the", "every": every instance in the apartment
    text: str = ""      # the clause as said, for messages
    vague: str = ""     # a vague quantity said ("a few"): asked
    choices: tuple[int, ...] = ()  # a range's counts ("two or three"): asked
    said: str = ""      # the quantity and the object as said ("a few apples")
    reversal: str = ""  # a cue that takes the object away ("remove", "take ... out"): its place is a source


class GoalParser:
    """Rules + embeddings goal parser for one scene (see the module docstring)."""

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

    # ------------------------------------------------------------------ parse
    def parse(self, directive: str, ask: bool = True) -> list[ParsedItem]:
        """The goal items of a directive; GoalError saying why not, NeedsAnswer where one answer
        settles it. ``ask=False`` reads as before questions existed (the check of a model's goal
        against the directive): counts above what the apartment has are read as said."""
        try:
            return self._parse(directive, ask)
        except _Unclear as unclear:
            if not ask:
                raise GoalError(str(unclear)) from None
            raise self._needs_answer(directive, unclear) from None

    def _needs_answer(self, directive: str, unclear: _Unclear) -> GoalError:
        """The question of an unclear directive: each option's directive is the directive with the
        option in place of what was said, kept when it reads (or asks a further question)."""
        text = _THOUSANDS.sub("", refuse_unsaid(directive, normalize(directive), _REL_PATTERN))
        options = []
        for label, value, names, replacement in unclear.options:
            rewritten = _rewrite(text, WHICH if unclear.whole else unclear.kind, unclear.said, replacement)
            if not rewritten or rewritten == text:
                continue
            try:
                self._parse(rewritten)
            except _Unclear:
                pass  # a further question once this one is answered
            except GoalError:
                continue
            options.append(Option(label, value, names, rewritten))
        if not options:
            return GoalError(str(unclear))
        listed = " or ".join(o.label for o in options)
        if unclear.question.endswith("did you mean"):
            question = f"{unclear.question} the {listed}?"
        else:
            question = f"{unclear.question}: {listed}?" if unclear.question else f"{listed}?"
        return NeedsAnswer(Question(question, tuple(options), unclear.kind, str(unclear), directive))

    def _parse(self, directive: str, ask: bool = True) -> list[ParsedItem]:
        check_english(directive)
        text = normalize(directive)
        if not text:
            raise GoalError("the directive is empty; say what to move where, e.g. 'put one apple inside the fridge'")
        if _QUESTION.match(text) and str(directive).strip().endswith("?"):
            raise GoalError(f"'{directive.strip()}' is a question; the robot takes requests to move objects, e.g. "
                            "'put the milk inside the fridge'")
        text = _THOUSANDS.sub("", refuse_unsaid(directive, text, _REL_PATTERN))
        pieces = [(c, _strip_clause(c)) for c in _SPLIT.split(text)]
        clauses = [self._split_clause(raw, body) for raw, body in pieces if body and not _FILLER_CLAUSE.match(body)]
        if not clauses:
            raise GoalError(f"'{directive.strip()}' says nothing to move; say what to move where, "
                            "e.g. 'put one apple inside the fridge'")
        clauses = self._resolve_pronouns(clauses)
        clauses = [self._implied_place(c) for c in clauses]
        # Objects listed before a shared destination take the next destination (else the previous).
        rooms = {name_to_text(r) for r in self.world.rooms}
        for i, clause in enumerate(clauses):
            if clause.dest:
                continue
            if clause.obj in rooms:
                raise GoalError(f"'{clause.obj}' is a room; say which objects to move and where, e.g. 'put the "
                                "plates inside the dishwasher'")
            source = next((c for c in clauses[i + 1:] if c.dest), None) or \
                next((c for c in reversed(clauses[:i]) if c.dest), None)
            if clause.reversal:  # "take the milk out": where it comes from, not where it goes
                refuse_reversal(clause.reversal, clause.obj)
            if source is None:
                message = (f"say where to put the {clause.obj or 'object'} (e.g. 'inside the fridge' or "
                           f"'on the kitchen table')")
                places = self._likely_places(clause.obj) if clause.obj and len(clauses) == 1 else []
                if places:
                    raise _Unclear(message, PLACE, "", [self._place_option(f) for f in places],
                                   f"where should the {clause.obj} go")
                raise GoalError(message)
            clauses[i] = dataclasses.replace(clause, rel=source.rel, dest=source.dest)
        items: dict[tuple[str, str, str], int] = {}
        for clause in clauses:
            if not clause.obj:
                raise GoalError(f"say which object to put {clause.rel} the {clause.dest}")
            obj_type, is_plural = self.ground_type(clause.obj)
            destination = self.ground_place(clause.dest)
            rel = _REL_OF.get(clause.rel, "") or self.world.relation(destination)
            if clause.vague or clause.choices:
                self._ask_count(clause, obj_type, rel, destination)
            count = self._count(clause, obj_type, is_plural)
            have = self.world.count(obj_type)
            if ask and 1 <= have < count and clause.count is not None and not clause.pairs:
                type_text = name_to_text(obj_type)
                raise _Unclear(f"the goal needs {count} {obj_type}(s) but the scene has {have}", COUNT, clause.obj,
                               [(number_word(n), str(n), (number_word(n), str(n)), str(n))
                                for n in range(1, min(have, _MAX_OPTIONS) + 1)],
                               f"this apartment has {have} {plural(type_text) if have > 1 else type_text}, not "
                               f"{count}: how many should go {rel} the {name_to_text(destination)}")
            key = (rel, obj_type, destination)
            items[key] = items.get(key, 0) + count
        parsed = [ParsedItem(r, o, d, c) for (r, o, d), c in items.items()]
        self._one_place_each(parsed, ask)
        return parsed

    def _ask_count(self, clause: _Clause, obj_type: str, rel: str, destination: str) -> None:
        """_Unclear (how many?) for a vague quantity or a range: the counts it allows that the
        apartment has; DirectiveRefused when the apartment has none of them."""
        have = self.world.count(obj_type)
        allowed = [n for n in (clause.choices or range(1, have + 1)) if 1 <= n <= have][:_MAX_OPTIONS]
        type_text = name_to_text(obj_type)
        message = (f"'{clause.said}' does not say how many; say a number, e.g. "
                   f"'{number_word(allowed[-1] if allowed else 2)} {plural(type_text)}'")
        if not allowed:
            raise DirectiveRefused(f"{message} (this apartment has {have} {plural(type_text)})")
        raise _Unclear(message, COUNT, clause.said,
                       [(number_word(n), str(n), (number_word(n), str(n)), f"{n} {clause.obj}") for n in allowed],
                       f"how many {plural(type_text)} should go {rel} the {name_to_text(destination)}", whole=True)

    def _one_place_each(self, items: list[ParsedItem], ask: bool) -> None:
        """DirectiveRefused when a directive puts more of a type in several places than the
        apartment has ("the mug in the dishwasher and the mug on the desk", with one mug), or, with
        ``ask``, more of a type in one place than it has, said in several clauses or as pairs."""
        for obj_type in dict.fromkeys(i.obj_type for i in items):
            mine = [i for i in items if i.obj_type == obj_type]
            have, total = self.world.count(obj_type), sum(i.count for i in mine)
            text = name_to_text(obj_type)
            if ask and len(mine) == 1 and total > have:
                raise DirectiveRefused(
                    f"the directive asks for {number_word(total)} {plural(text)} {mine[0].rel} the "
                    f"{name_to_text(mine[0].destination)} in all, and this apartment has {number_word(have)}; say how "
                    f"many in one count, e.g. 'put {number_word(have)} {text if have == 1 else plural(text)} "
                    f"{mine[0].rel} the {name_to_text(mine[0].destination)}'")
            if len(mine) > 1 and total > have:
                places = " and ".join(f"{i.rel} the {name_to_text(i.destination)}" for i in mine)
                raise DirectiveRefused(
                    f"this apartment has {number_word(have)} {text if have == 1 else plural(text)}, and the directive "
                    f"puts {number_word(total)} {places}: one {text} cannot be in two places; say one place for "
                    f"each {text}, e.g. 'put the {text} {mine[0].rel} the {name_to_text(mine[0].destination)}'")

    def _count(self, clause: _Clause, obj_type: str, is_plural: bool) -> int:
        type_text = name_to_text(obj_type)
        pair_noun = is_pair_noun(type_text)
        if clause.every or (clause.count is None and is_plural and not pair_noun):
            count = self.world.count(obj_type)
            if count < 1:
                raise GoalError(f"this apartment has no {type_text}")
            return count
        count = 1 if clause.count is None else clause.count
        if clause.pairs and not pair_noun:
            count *= 2  # "a pair of apples" is two apples; "a pair of glasses" one pair of glasses
        return count

    def _split_clause(self, raw: str, body: str) -> _Clause:
        verb = _leading_verb(raw)
        body = _GOES_TO.sub(" ", body)  # "the milk needs to go in the fridge": a state, as "the milk in the fridge"
        match = _REL_PATTERN.search(body)
        if match is None:
            head, rel, dest = body, "", ""
        else:
            head, rel, dest = body[:match.start()].strip(), match.group(1), body[match.end():].strip()
        head = _COPULA.sub("", head)
        cue = reversal(raw)
        if cue:  # "remove the apple in the fridge": the place is where it is, not where it goes
            head, rel, dest = _SOURCE.sub("", " " + body).strip(), "", ""
            head = " ".join(w for w in head.split() if w not in cue.split())
            match = _REL_PATTERN.search(head)
            head = head[:match.start()].strip() if match else head
        amount, obj, said = self._count_and_object(head)
        return _Clause(amount.count, obj, rel, _clean_place(dest), amount.pairs, verb, amount.every, body,
                       amount.vague, amount.choices, said, cue)

    # -------------------------------------------------------------- the object phrase
    def _count_and_object(self, head: str) -> tuple[Quantity, str, str]:
        """(quantity, object phrase, quantity and object as said) of the words before the relation;
        the object is the last name of the scene in them, the count the words just before it
        (``quantities.quantity``); anything after the name must be harmless ("cold", "too", "from
        the table")."""
        head = _SOURCE.sub("", " " + head).strip()
        words = head.split()
        span = self._last_type_span(words)
        if span is None:  # no known name: the phrase after the quantity words, for grounding
            amount, rest = quantity(words)
            obj = " ".join(w for w in rest if w not in _AFTER_OBJECT) or " ".join(rest)
            return amount, obj, " ".join(words)
        start, end = span
        named = self.name_words.get(words[end - 1]) or self.name_words.get(singular(words[end - 1])) or set()
        while start > 0 and words[start - 1] in named:  # "the stand lamp": floor stand lamp, not lamp
            start -= 1
        after = [w for w in words[end:] if w not in _AFTER_OBJECT]
        if after:
            raise GoalError(f"cannot tell what '{' '.join(words[end:])}' after '{' '.join(words[start:end])}' means; "
                            "say only which object to move and where, e.g. 'put the mug inside the dishwasher'")
        amount, before = quantity(words[:start], trailing=True)
        stray = [w for w in before if w.isdigit() or w in COUNT_WORDS or w in ALL_WORDS or w in VAGUE_COUNTS]
        if stray:
            raise GoalError(f"cannot tell how many {' '.join(words[start:end])} from '{head}'; say a number, e.g. "
                            f"'two {plural(words[end - 1]) if not words[end - 1].endswith('s') else words[end - 1]}'")
        return amount, " ".join(words[start:end]), " ".join(words[len(before):end])

    def _last_type_span(self, words: list[str]) -> tuple[int, int] | None:
        """(start, end) of the last, longest run of words that is a known object word."""
        best = None
        for end in range(len(words), 0, -1):
            for start in range(max(0, end - self._longest_type), end):
                if " ".join(words[start:end]) in self.type_words:
                    best = (start, end)
                    break
            if best:
                return best
        return None

    # ---------------------------------------------------------------- pronouns and verbs
    def _resolve_pronouns(self, clauses: list[_Clause]) -> list[_Clause]:
        """"get the soap and leave it on the counter": "it" is the last object said without a place,
        "them" every such object since the last place; those objects then go where the pronoun goes."""
        out: list[_Clause] = []
        pending: list[_Clause] = []
        for clause in clauses:
            if clause.obj in PRONOUNS:
                if not pending:
                    raise GoalError(f"cannot tell what '{clause.obj}' is in '{clause.text}'; name the object, e.g. "
                                    "'put the mug on the desk'")
                refers = pending[-1:] if clause.obj in ("it", "that", "this", "this one", "that one") else pending
                if not clause.dest and not clause.verb:
                    raise GoalError(f"say where to put {clause.obj}")
                out.extend(dataclasses.replace(c, rel=clause.rel, dest=clause.dest, verb=clause.verb or c.verb)
                           for c in refers)
                pending = [c for c in pending if c not in refers]
                continue
            if clause.dest:
                out.extend(pending)
                pending = []
                out.append(clause)
            else:
                pending.append(clause)
        return out + pending

    def _implied_place(self, clause: _Clause) -> _Clause:
        """A clause without a place whose verb implies one ("chill the milk": the fridge)."""
        if clause.dest or not clause.verb or clause.verb not in self.commonsense.verb_places:
            return clause
        place, kept_there = self.commonsense.verb_places[clause.verb]
        furniture = self.place_words.get(place)
        if furniture is None:
            raise GoalError(f"'{clause.verb}' needs a {place}, and this apartment has none; say where to put the "
                            f"{clause.obj}")
        if kept_there:
            obj_type, _ = self.ground_type(clause.obj)
            entry = self.commonsense.alias_index().get(name_to_text(obj_type))
            if entry is None or place not in self.commonsense.objects.get(entry, {}):
                raise GoalError(f"cannot tell where to {clause.verb} the {clause.obj}; say where to put it")
        return dataclasses.replace(clause, rel=INSIDE if furniture in self.world.containers else ON,
                                   dest=name_to_text(furniture))

    # -------------------------------------------------------------- grounding
    def ground_type(self, phrase: str) -> tuple[str, bool]:
        """(scene type, whether the phrase was plural)."""
        phrase = _DETERMINERS.sub("", phrase.strip())
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
            raise _Unclear(f"this apartment has no '{phrase}'; it may be {' or '.join(name_to_text(t) for t in both)}",
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
        coffee); _Unclear when two types tie on the words matched."""
        types, places = _covering(phrase, self.types, partial=True), _covering(phrase, self.furniture)
        if not types or (places and _words_said(phrase, places[0]) > _words_said(phrase, types[0])):
            return None
        if len(types) == 1:
            return types[0]
        listed = " or ".join(name_to_text(t) for t in types)
        raise _Unclear(f"'{phrase}' may be the {listed}; say which", WHICH, phrase,
                       [(name_to_text(t), t, (name_to_text(t), t), name_to_text(t)) for t in types], f"which {phrase}")

    def _propose(self, phrase: str, proposed: str | None) -> None:
        """_Unclear asking "did you mean the <proposed>?" (its refusal names it); nothing for None."""
        if proposed is None:
            return
        text = name_to_text(proposed)
        raise _Unclear(f"this apartment has no {phrase}; did you mean the {text}? say 'the {text}' to move it",
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

    def ground_place(self, phrase: str) -> str:
        """The furniture a place phrase names; _Unclear (a GoalError) where one answer settles it."""
        try:
            return self._ground_place(phrase)
        except _Unclear as unclear:
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
        covered = _covering(phrase, self.furniture)
        if len(covered) == 1:  # "the big coffee table": the coffee table, never the table
            return covered[0]
        if len(covered) > 1:
            listed = " or ".join(self._where(f) for f in covered)
            raise _Unclear(f"'{phrase}' may be the {listed}; say which", PLACE, "",
                           [self._place_option(f) for f in covered], f"which {phrase}")
        rooms = {name_to_text(r): r for r in self.world.rooms}
        if phrase in rooms:
            message = (f"'{phrase}' is a room; say on or in which furniture to put it "
                       f"(e.g. {self._closest(phrase, self.furniture)})")
            inside = [f for f in self.furniture if self.world.furniture_room.get(f) == rooms[phrase]]
            if inside:
                raise _Unclear(message, PLACE, "", [self._place_option(f, room=False) for f in inside],
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
                raise _Unclear(message, PLACE, "", [self._place_option(f) for f in closest],
                               f"this apartment has no {phrase}; which place do you mean")
            raise GoalError(message)
        return match

    def _place_option(self, furniture: str, room: bool = True) -> tuple[str, str, tuple[str, ...], str]:
        """(label, name, names, replacement) of a furniture option."""
        text = name_to_text(furniture)
        prep = "in" if furniture in self.world.containers else "on"
        label = self._where(furniture) if room else text
        return label, furniture, (text, furniture), f"{prep} the {text}"

    def _likely_places(self, obj_phrase: str) -> list[str]:
        """The scene furniture where the commonsense file keeps an object, likeliest first."""
        try:
            obj_type, _ = self.ground_type(obj_phrase)
        except GoalError:
            return []
        entry = self.commonsense.alias_index().get(name_to_text(obj_type))
        weights = self.commonsense.objects.get(entry, {}) if entry else {}
        found: list[str] = []
        for place, _w in sorted(weights.items(), key=lambda kv: -kv[1]):
            furniture = self.place_words.get(place)
            if furniture and furniture not in found:
                found.append(furniture)
        return found[:_MAX_OPTIONS]

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
        raise _Unclear(f"which {core}: {listed}? say it, e.g. {self._how_to_say(core, chosen)}", PLACE, "", options,
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
        text = _DETERMINERS.sub("", text.strip())
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


def check_english(directive: str) -> None:
    """GoalError for a directive in another language (letters outside Latin script, or mostly
    function words of other European languages)."""
    text = str(directive)
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return
    latin = sum(1 for ch in letters if "LATIN" in unicodedata.name(ch, ""))
    words = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text.lower())
    foreign = sum(1 for w in words if w in _FOREIGN)
    english = sum(1 for w in words if w in _ENGLISH)
    if latin < 0.7 * len(letters) or (foreign >= 2 and foreign > english):
        raise GoalError(f"'{text.strip()}' does not look like English: the offline backend reads English directives "
                        "only; write it in English, or configure a language model (backend: openai, "
                        "config/llm.yaml), which reads other languages")


def _leading_verb(clause: str) -> str:
    """The first verb of a clause (after polite wrappers), or ""."""
    words = _POLITE_START.sub("", clause.strip(" ,;:")).split()
    for w in words[:3]:
        w = _GERUNDS.get(w, w)
        if w in VERBS:
            return w
    return ""


def _strip_clause(clause: str) -> str:
    clause = clause.strip(" ,;:")
    clause = _POLITE_START.sub("", clause).strip()
    clause = _POLITE_END.sub("", clause).strip(" ,;:")
    words = clause.split()
    while words and (words[0] in VERBS or words[0] in _GERUNDS or (words[0] in ("up", "away", "out", "me", "us")
                                                                      and len(words) > 1)):
        words = words[1:]
    return " ".join(words)


def _clean_place(phrase: str) -> str:
    phrase = FILLER_ADVERBS.sub(" ", phrase)
    phrase = _POLITE_END.sub("", " ".join(phrase.split())).strip()
    phrase = _DETERMINERS.sub("", " ".join(phrase.split()))
    phrase = re.sub(r"^(?:top of|the top of|inside of)\s+(?:the\s+)?", "", phrase)
    phrase = re.sub(r"\s+(?:too|as well|again|for me|to (?:chill|cool|keep cold|warm up|heat up))$", "", phrase)
    return " ".join(phrase.split())


_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4, "fifth": 5,
             "5th": 5}
_ORDINALS_TEXT = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}


def _rewrite(text: str, kind: str, said: str, replacement: str) -> str:
    """The normalized directive ``text`` with ``replacement`` for what was said: a place phrase with
    its relation word ("on the table" -> "on the coffee table"; none said: appended), an object's
    name ("glass" -> "wine glass"), or the count said before an object ("three apples" -> "2 apples")."""
    if kind == PLACE:
        if not said:
            return f"{text} {replacement}"
        match = re.search(_PLACE_PREFIX + re.escape(said) + r"\b", text)
        return f"{text[:match.start()]}{replacement}{text[match.end():]}" if match else ""
    if kind == WHICH:
        match = re.search(r"\b" + re.escape(said) + r"\b", text)
        return f"{text[:match.start()]}{replacement}{text[match.end():]}" if match else ""
    if kind == COUNT:
        words = text.split()
        said_words = said.split()
        for i in range(len(words) - len(said_words), -1, -1):
            if words[i:i + len(said_words)] == said_words:
                for j in range(i - 1, max(-1, i - 4), -1):
                    if words[j].isdigit() or words[j] in COUNT_WORDS:
                        first = j  # the whole number said: "twenty one", "a dozen"
                        while first > 0 and (words[first - 1] in NUMBER_WORDS or words[first - 1] in ("a", "an")):
                            first -= 1
                        return " ".join([*words[:first], replacement, *words[j + 1:]])
                return ""
    return ""


def _covering(phrase: str, names: list[str], partial: bool = False) -> list[str]:
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


def _number_of(furniture: str) -> int | None:
    """The number a furniture name ends with (nightstand_2 -> 2), or None."""
    match = re.search(r"_(\d+)$", furniture)
    return int(match.group(1)) if match else None


def refuse_what_words_say(directive: str) -> str:
    """The directive as the reader reads it (normalized, self-corrections applied); DirectiveRefused
    for what every path refuses (a negation, a count that is no positive whole number, a correction
    that cannot be followed), for goal channels that read the rest their own way (Levy-Karpas)."""
    return refuse_unsaid(directive, normalize(directive), _REL_PATTERN)


def goal_parser(resources: Resources, world: WorldInfo) -> GoalParser:
    """The goal parser of one scene, built once per backend resources and scene."""

    def build() -> GoalParser:
        return GoalParser(world, load_commonsense(resources.config.get("offline.commonsense")), resources.grounder,
                          float(resources.config.get("grounding.min_name_score")),
                          resources.config.get("offline.goal_parser"))

    return resources.shared(("goal_parser", world.fingerprint()), build)
