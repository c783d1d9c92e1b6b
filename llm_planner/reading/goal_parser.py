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
* objects listed before one shared destination ("an apple and a banana in the fridge");
* states, alone or mixed with placements (:mod:`.states`): "close the fridge", "turn the tv off",
  "put the milk in the fridge and close it" ("it" is the thing said last that can take the state),
  "open the dishwasher, put two plates in it and close it" ("in it": the furniture said last; the
  last state said of a thing wins). A directive without a state clause is read as placements only.

Names are grounded by :mod:`.names` (object types), :mod:`.places` (furniture) and :mod:`.states`
(switchable things and containers).

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
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_planner.clarification import COUNT, PLACE, WHICH, NeedsAnswer, Option, Question, number_word
from llm_planner.domains.household.language.model_resources import grounder_of
from llm_planner.domains.household.world.commonsense import load_commonsense
from llm_planner.domains.household.world.pair_nouns import is_pair_noun
from llm_planner.domains.household.world.symbolic import INSIDE, ON
from llm_planner.domains.household.world.words import name_to_text, plural, singular
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.reading.names import DETERMINERS, MAX_OPTIONS, PRONOUNS, SceneNames, Unclear
from llm_planner.reading.phrasing import GERUNDS as _GERUNDS
from llm_planner.reading.phrasing import POLITE_END as _POLITE_END
from llm_planner.reading.phrasing import POLITE_START as _POLITE_START
from llm_planner.reading.phrasing import normalize
from llm_planner.reading.quantities import (
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
from llm_planner.reading.states import STATE_PRONOUNS, SceneThings, StateSaid, state_said, state_verb

if TYPE_CHECKING:
    from llm_planner.domains.household.language.text import WorldInfo
    from llm_planner.llm.resources import Resources


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
_ENGLISH = {"the", "a", "an", "in", "into", "on", "onto", "put", "please", "to", "and", "of", "it", "my", "you",
            "could",
            "can", "inside", "place", "move", "with", "for", "me", "is", "get", "take"}
_FOREIGN = {"le", "la", "les", "dans", "une", "des", "du", "sur", "et", "mets", "mettre", "plaît", "plait", "frigo",
            "el", "los", "las", "pon", "ponga", "nevera", "mesa", "por", "favor", "der", "die", "das", "den", "dem",
            "ein", "eine", "und", "auf", "bitte", "stell", "stelle", "leg", "lege", "kühlschrank", "il", "lo", "gli",
            "sulla", "sul", "nel", "nella", "metti", "per", "di", "della", "uma", "um", "na", "coloque", "geladeira",
            "zet", "het", "een", "op", "koelkast", "alsjeblieft"}
#: The relation words that may stand before a place phrase, longest first (replaced with the place).
_PLACE_PREFIX = (r"(?:\b(?:on top of|inside of|back into|back inside|back in|back onto|back on|back to|over to|"
                 r"inside|into|onto|upon|within|in|on|to|at|by|beside)\s+)?(?:(?:the|my|our|your|a|an)\s+)?")


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


class GoalParser(SceneThings):
    """Rules + embeddings goal parser for one scene (see the module docstring)."""

    def parse(self, directive: str, ask: bool = True) -> list[ParsedItem]:
        """The goal items of a directive; GoalError saying why not, NeedsAnswer where one answer
        settles it. ``ask=False`` reads as before questions existed (the check of a model's goal
        against the directive): counts above what the apartment has are read as said."""
        try:
            return self._parse(directive, ask)
        except Unclear as unclear:
            if not ask:
                raise GoalError(str(unclear)) from None
            raise self._needs_answer(directive, unclear) from None

    def _needs_answer(self, directive: str, unclear: Unclear) -> GoalError:
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
            except Unclear:
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
        if any(state_said(raw) for raw, _body in pieces):
            return self._parse_with_states(directive, pieces, ask)
        clauses = [self._split_clause(raw, body) for raw, body in pieces if body and not _FILLER_CLAUSE.match(body)]
        if not clauses:
            raise GoalError(f"'{directive.strip()}' says nothing to move; say what to move where, "
                            "e.g. 'put one apple inside the fridge'")
        return self._placements(clauses, ask)

    def _parse_with_states(self, directive: str, pieces: list[tuple[str, str]], ask: bool) -> list[ParsedItem]:
        """A directive with state clauses ("close the fridge"), mixed with placements or not: each
        state clause's thing grounded (:mod:`.states`), "it" the thing said last that can take the
        state ("put the milk in the fridge and close it") or, as a place, the furniture said last
        ("open the dishwasher and put two plates in it"); a noun phrase after a state clause takes
        its state ("turn on the tv and the floor lamp"). A thing asked in several states of one kind
        keeps the last ("open the dishwasher, put two plates in it and close it": closed)."""
        mentions: list[str] = []  # the scene things said, in order
        states: dict[tuple[str, bool], ParsedItem] = {}
        clauses: list[_Clause] = []
        previous: StateSaid | None = None
        for raw, body in pieces:
            if not body or _FILLER_CLAUSE.match(body):
                continue
            said = state_said(raw)
            if said is None and previous is not None and not _leading_verb(raw):
                said = self.same_state(previous, body)
            if said is None:
                previous = None
                clause = self._split_clause(raw, body)
                if clause.dest in STATE_PRONOUNS:
                    clause = dataclasses.replace(clause, dest=self._place_pronoun(clause, mentions))
                mentions.extend(self.said_place(clause.dest))
                clauses.append(clause)
                continue
            previous = said
            for thing in self.state_things(said, mentions):
                states.pop((thing, said.switch), None)  # the last state said wins
                states[(thing, said.switch)] = ParsedItem(said.rel, thing, "", 1)
                mentions.append(thing)
        placed = self._placements(clauses, ask) if clauses else []
        return placed + list(states.values())

    def same_state(self, previous: StateSaid, body: str) -> StateSaid | None:
        """"turn on the tv and the floor lamp": a clause that is a thing's name alone (a switchable
        thing's words, or a furniture name) takes the state before it; anything else is no state."""
        words = DETERMINERS.sub("", " ".join(body.split()))
        try:
            named = self.switchables_named(words)
        except Unclear:
            return StateSaid(previous.rel, body, body)
        except GoalError:
            return None
        if named is not None or words in self.place_words or singular(words) in self.place_words:
            return StateSaid(previous.rel, body, body)
        return None

    def state_things(self, said: StateSaid, mentions: list[str]) -> list[str]:
        """The things a state clause names; "it": the thing said last that can take the state."""
        phrase = DETERMINERS.sub("", said.thing)
        if phrase in PRONOUNS:
            if phrase not in STATE_PRONOUNS:
                raise GoalError(f"cannot tell which things '{phrase}' are in '{said.text}'; name each, e.g. "
                                f"'{state_verb(said.rel)} the {self._example_thing(said.switch)}'")
            able = [m for m in mentions if self.can_take(m, said.switch)]
            if not able:
                raise GoalError(f"cannot tell what '{phrase}' is in '{said.text}': nothing said before it can be "
                                f"{'switched on or off' if said.switch else 'opened or closed'}; name it, e.g. "
                                f"'{state_verb(said.rel)} the {self._example_thing(said.switch)}'")
            return [able[-1]]
        return self.ground_things(said.thing, said.rel)

    def _example_thing(self, switch: bool) -> str:
        things = self.switchables if switch else self.world.containers
        return name_to_text(things[0]) if things else "fridge"

    def _place_pronoun(self, clause: _Clause, mentions: list[str]) -> str:
        """"put two plates in it": the furniture said last (a thing that is no furniture is no place)."""
        if not mentions or mentions[-1] not in self.world.furniture_room:
            raise GoalError(f"cannot tell where '{clause.rel} {clause.dest}' is in '{clause.text}'; name the place, "
                            "e.g. 'put the plates inside the dishwasher'")
        return name_to_text(mentions[-1])

    def said_place(self, phrase: str) -> list[str]:
        """The furniture a place phrase names, for later pronouns ([] when it names none clearly)."""
        if not phrase:
            return []
        try:
            return [self.ground_place(phrase)]
        except GoalError:
            return []

    def _placements(self, clauses: list[_Clause], ask: bool) -> list[ParsedItem]:
        """The placement items of a directive's clauses (pronouns, implied and shared places, counts)."""
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
                    raise Unclear(message, PLACE, "", [self._place_option(f) for f in places],
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
                raise Unclear(f"the goal needs {count} {obj_type}(s) but the scene has {have}", COUNT, clause.obj,
                               [(number_word(n), str(n), (number_word(n), str(n)), str(n))
                                for n in range(1, min(have, MAX_OPTIONS) + 1)],
                               f"this apartment has {have} {plural(type_text) if have > 1 else type_text}, not "
                               f"{count}: how many should go {rel} the {name_to_text(destination)}")
            key = (rel, obj_type, destination)
            items[key] = items.get(key, 0) + count
        parsed = [ParsedItem(r, o, d, c) for (r, o, d), c in items.items()]
        self._one_place_each(parsed, ask)
        return parsed

    def _ask_count(self, clause: _Clause, obj_type: str, rel: str, destination: str) -> None:
        """Unclear (how many?) for a vague quantity or a range: the counts it allows that the
        apartment has; DirectiveRefused when the apartment has none of them."""
        have = self.world.count(obj_type)
        allowed = [n for n in (clause.choices or range(1, have + 1)) if 1 <= n <= have][:MAX_OPTIONS]
        type_text = name_to_text(obj_type)
        message = (f"'{clause.said}' does not say how many; say a number, e.g. "
                   f"'{number_word(allowed[-1] if allowed else 2)} {plural(type_text)}'")
        if not allowed:
            raise DirectiveRefused(f"{message} (this apartment has {have} {plural(type_text)})")
        raise Unclear(message, COUNT, clause.said,
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
        return found[:MAX_OPTIONS]


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
    phrase = DETERMINERS.sub("", " ".join(phrase.split()))
    phrase = re.sub(r"^(?:top of|the top of|inside of)\s+(?:the\s+)?", "", phrase)
    phrase = re.sub(r"\s+(?:too|as well|again|for me|to (?:chill|cool|keep cold|warm up|heat up))$", "", phrase)
    return " ".join(phrase.split())



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


def refuse_what_words_say(directive: str) -> str:
    """The directive as the reader reads it (normalized, self-corrections applied); DirectiveRefused
    for what every path refuses (a negation, a count that is no positive whole number, a correction
    that cannot be followed), for goal channels that read the rest their own way (Levy-Karpas)."""
    return refuse_unsaid(directive, normalize(directive), _REL_PATTERN)


def goal_parser(resources: Resources, world: WorldInfo) -> GoalParser:
    """The goal parser of one scene, built once per backend resources and scene."""

    def build() -> GoalParser:
        return GoalParser(world, load_commonsense(resources.config.get("offline.commonsense")), grounder_of(resources),
                          float(resources.config.get("grounding.min_name_score")),
                          resources.config.get("offline.goal_parser"))

    return resources.shared(("goal_parser", world.fingerprint(), tuple(sorted(world.switch_at.items()))), build)


def scene_names(resources: Resources, world: WorldInfo) -> SceneNames:
    """The names of one scene as the reader grounds them (its lexicons, :meth:`~SceneNames.ground_type`,
    :meth:`~.places.ScenePlaces.ground_place`), for a goal channel that reads directives its own way."""
    return goal_parser(resources, world)
