"""The one reading of quantities, negations and self-corrections of a directive (the words are data:
``reading/data/reader_cues.yaml``).

A count is a positive whole number said as digits or number words ("two", "twenty one", "a
dozen"), a word that means one ("a", "an", "one of", "another"), two ("both", "a pair of", "a
couple of") or every instance in the apartment ("all the apples", "every apple", "the apples").
What else stands where a count stands is refused with what was read and what to say instead
(:func:`refused_count`: zero, negative numbers, fractions and decimals, scientific notation,
comparatives such as "at least two"), or asked where one answer settles it (:class:`Quantity`
``vague`` and ``choices``: "a few apples", "two or three apples"). Negations and reversals
(:func:`negation`, :func:`reversal`) are refused; "one apple, no wait, two" is read as two
(:func:`apply_corrections`).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from llm_planner.domains.household.world.words import singular
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.reading.phrasing import POLITE_START

CUES_FILE = Path(__file__).with_name("data") / "reader_cues.yaml"
DEFINITE = ("the", "my", "this", "that", "these", "those", "our", "your", "his", "her", "their")
FILLER_ADVERBS = re.compile(r"\b(?:away|back|up|down|over|please|carefully|gently|quickly|out)\b")
_ALLOWED = ("say how many as a positive whole number ('two apples', '3 plates'), 'a' or 'one', 'both', or "
            "'all the ...' for every one there is")


@dataclass(frozen=True)
class Cues:
    """The cue words of ``reader_cues.yaml``."""

    units: dict[str, int]
    tens: dict[str, int]
    multipliers: dict[str, int]
    one: tuple[str, ...]
    two: tuple[str, ...]
    every: tuple[str, ...]
    refused: dict[str, tuple[str, ...]]
    vague: tuple[str, ...]
    range_joiners: tuple[str, ...]
    negation: tuple[str, ...]
    reversal_verbs: tuple[str, ...]
    corrections: tuple[str, ...]

    @property
    def number_words(self) -> set[str]:
        return {*self.units, *self.tens, *self.multipliers}

    @property
    def count_words(self) -> set[str]:
        """Every single word that may stand in a count (for the reader's chunking)."""
        return {*self.number_words, *self.one, *self.two, *self.every, "pair", "pairs",
                *(w for v in self.vague for w in v.split())}


@lru_cache(maxsize=2)
def load_cues(path: str | Path = CUES_FILE) -> Cues:
    """The reader's cue words; a malformed file is a GoalError naming it."""
    try:
        data: Any = yaml.safe_load(Path(path).read_text())
        counts, refused, asked = data["counts"], data["refused_counts"], data["asked_counts"]
        return Cues({str(k): int(v) for k, v in counts["units"].items()},
                    {str(k): int(v) for k, v in counts["tens"].items()},
                    {str(k): int(v) for k, v in counts["multipliers"].items()},
                    tuple(counts["one"]), tuple(counts["two"]), tuple(counts["all"]),
                    {str(k): tuple(str(w) for w in v) for k, v in refused.items()},
                    tuple(asked["vague"]), tuple(asked["range_joiners"]), tuple(data["negation"]),
                    tuple(data["reversal"]["verbs"]), tuple(data["corrections"]))
    except (OSError, KeyError, TypeError, ValueError, AttributeError, yaml.YAMLError) as exc:
        raise GoalError(f"{path}: not the reader's cue file ({exc!r}); expected counts, refused_counts, "
                        "asked_counts, negation, reversal and corrections") from None


CUES = load_cues()
NUMBER_WORDS = CUES.number_words
ALL_WORDS = CUES.every
#: Single words that say a vague quantity ("some", "few"); multi-word ones are in CUES.vague.
VAGUE_COUNTS = tuple(sorted({w for v in CUES.vague for w in v.split()} - {"a", "of"}))
#: Words of a count that name a number (digits aside): number words and the words for one and two.
COUNT_WORDS = {**CUES.units, **CUES.tens, **CUES.multipliers, **{w: 1 for w in CUES.one},
               **{w: 2 for w in CUES.two}}
#: A clause's first word read as its count by the Levy-Karpas clause splitter ("the", "my": one).
NUMBERS = {**{w: 1 for w in ("the", "this", "that", "my")}, **COUNT_WORDS, "pair": 2}


def _phrases(words: tuple[str, ...]) -> str:
    """A regex alternation of cue phrases as whole words, longest first."""
    ordered = sorted(words, key=len, reverse=True)
    return "|".join(r"\s+".join(re.escape(p) for p in w.split()) for w in ordered)


_NUMBER = r"(?:\d+|" + _phrases(tuple(CUES.number_words) + ("a", "an")) + r")"
_NEGATION = re.compile(r"(?<![\w'])(?:" + _phrases(CUES.negation) + r")(?![\w'])")
_COMPARATIVE_BEFORE = re.compile(r"\b(" + _phrases(CUES.refused["comparatives"]) + r")\s+(?:of\s+)?(?:the\s+)?"
                                 + _NUMBER + r"\b")
_COMPARATIVE_AFTER = re.compile(r"\b" + _NUMBER + r"\s+(" + _phrases(CUES.refused["comparatives"]) + r")\b")
_FRACTION_WORDS = re.compile(r"\b(" + _phrases(CUES.refused["fractions"]) + r")\b")
_NEGATIVE_WORDS = re.compile(r"\b(" + _phrases(CUES.refused["negative"]) + r")\s+" + _NUMBER + r"\b")
_ZERO_WORDS = re.compile(r"\b(" + _phrases(tuple(w for w in CUES.refused["zero"] if w != "no")) + r")\b"
                         r"|\bno\b(?!\s*,|\s+(?:" + _phrases(CUES.corrections) + r")\b|\s+\d|\s*$)")
# digits that are no positive whole number, on the directive as written (normalizing drops '.', '-')
_RAW_NUMBERS = (
    (re.compile(r"(?<![\w.])[-\u2212\u2013]\s?\d+(?:[.,]\d+)?"), "a negative number"),
    (re.compile(r"\b\d+(?:\.\d+)?e[-+]?\d+\b"), "a number in scientific notation"),
    (re.compile(r"\b\d+\s*/\s*\d+\b|[\u00bc-\u00be\u2150-\u215e]"), "a fraction"),
    (re.compile(r"(?<![\d,])\d+\.\d+\b|(?<![\d,])\d+,(?!\d{3}\b)\d+\b|(?<![\w.])\.\d+\b"), "a decimal number"),
    (re.compile(r"(?<![\w.,-])0+(?![\w.,])"), "zero"),
)


@dataclass(frozen=True)
class Quantity:
    """A count as the words before an object say it: ``count`` None when none was said (one, or
    every instance for a plural), ``pairs`` counted in pairs, ``every`` all there are; ``vague``
    the vague words said ("a few") and ``choices`` a range's counts (both asked)."""

    count: int | None = None
    pairs: bool = False
    every: bool = False
    vague: str = ""
    choices: tuple[int, ...] = ()


def refused_count(directive: str, text: str) -> None:
    """DirectiveRefused when something that is no positive whole number stands where a count
    stands: checked on the ``directive`` as written (negative, decimal, fraction, scientific
    notation, zero as digits) and on its normalized ``text`` (zero, negative and fraction words,
    comparatives). The message names what was read and what to say instead."""
    raw = str(directive).lower()
    for pattern, what in _RAW_NUMBERS:
        match = pattern.search(raw)
        if match:
            _refuse_count(match.group(0).strip(), what)
    for pattern, what in ((_COMPARATIVE_BEFORE, "a comparison, not a count"),
                          (_COMPARATIVE_AFTER, "a comparison, not a count"),
                          (_NEGATIVE_WORDS, "a negative number"), (_FRACTION_WORDS, "a fraction"),
                          (_ZERO_WORDS, "zero: nothing to move")):
        match = pattern.search(text)
        if match:
            _refuse_count(match.group(0).strip(), what)


def _refuse_count(said: str, what: str) -> None:
    raise DirectiveRefused(f"'{said}' is {what}; the robot moves whole things: {_ALLOWED}")


def negation(text: str) -> None:
    """DirectiveRefused when the normalized ``text`` says not to do something (a cue of the data file)."""
    match = _NEGATION.search(text)
    if match:
        raise DirectiveRefused(f"'{match.group(0)}' says not to do something, or to leave something out; the robot "
                               "reads only requests to do something (put things somewhere, open, close, switch on or "
                               "off): say only what to do, e.g. 'put the banana and the milk inside the fridge'")


def reversal(clause: str) -> str:
    """The reversal cue a clause starts with ("remove ...", "take the milk out"), or "": the clause's
    verb, so that an adjective ("the empty bottle") is no cue."""
    clause = POLITE_START.sub("", clause.strip(" ,;:"))
    for verb in sorted(CUES.reversal_verbs, key=len, reverse=True):
        first, *rest = verb.split()
        if rest:  # "take out" is also "take the milk out"
            if re.match(rf"{re.escape(first)}\b(?:\s+\S+){{0,6}}?\s+{re.escape(' '.join(rest))}\b", clause):
                return verb
        elif re.match(rf"{re.escape(verb)}\b", clause):
            return verb
    return ""


def refuse_reversal(cue: str, obj: str) -> None:
    """DirectiveRefused for a clause that takes ``obj`` away without saying where it goes."""
    thing = obj or "milk"
    raise DirectiveRefused(f"'{cue}' takes the {obj or 'object'} away from where it is, and the directive does not say "
                           f"where it should go; the robot puts things somewhere: say where, e.g. 'take the {thing} "
                           "out of the fridge and put it on the kitchen table'")


def refuse_unsaid(directive: str, text: str, relations: re.Pattern[str]) -> str:
    """The normalized ``text`` of ``directive`` with its self-corrections applied; DirectiveRefused
    for a negation, a count that is no positive whole number, or a correction that cannot be followed
    (what every path refuses, with the same message, whatever reads the rest)."""
    text = apply_corrections(text, relations)
    negation(text)
    refused_count(directive, text)
    return text


# ------------------------------------------------------------------------------ counts
def quantity(words: list[str], trailing: bool = False) -> tuple[Quantity, list[str]]:
    """(the quantity, the other words) of the quantity words at the start of ``words``, or with
    ``trailing`` of the run of quantity words that ends ``words`` (what precedes an object's name).
    DirectiveRefused when the quantity words say no count."""
    words = [w for w in words if not FILLER_ADVERBS.fullmatch(w)]
    if trailing:
        i = len(words)
        while i > 0 and _quantity_word(words, i - 1):
            i -= 1
        return read_quantity(words[i:]), words[:i]
    i = 0
    while i < len(words) and _quantity_word(words, i):
        i += 1
    return read_quantity(words[:i]), words[i:]


def _quantity_word(words: list[str], i: int) -> bool:
    w = words[i]
    if w in DEFINITE or w == "of" or w.isdigit() or w in COUNT_WORDS or w in ALL_WORDS or w in VAGUE_COUNTS:
        return True
    if w in ("pair", "pairs") or re.fullmatch(r"\d+-\d+", w):
        return True
    between = 0 < i < len(words) - 1
    return between and w in CUES.range_joiners and _is_number(words[i - 1]) and _is_number(words[i + 1])


def _is_number(word: str) -> bool:
    return word.isdigit() or word in NUMBER_WORDS or word in ("one", "a", "an")


def read_quantity(phrase: list[str]) -> Quantity:
    """The quantity a run of quantity words says ("all the", "a couple of", "twenty one", "two
    pairs of", "a few", "two or three"); DirectiveRefused when it says no count."""
    said = " ".join(phrase)
    words = [w for w in phrase if w not in DEFINITE]
    one_of = words[:2] == ["one", "of"] and len(words) == 2
    words = [w for w in words if w != "of"]
    if not words:
        return Quantity()
    if one_of:
        return Quantity(1)
    vague = [v for v in CUES.vague if re.search(rf"\b{re.escape(v)}\b", " ".join(words))]
    if vague:
        return Quantity(vague=max(vague, key=len))
    ranged = _range(words)
    if ranged:
        return Quantity(choices=ranged)
    pairs = any(w in ("pair", "pairs") for w in words)
    every = any(w in ALL_WORDS for w in words)
    rest = [w for w in words if w not in ("pair", "pairs") and w not in ALL_WORDS]
    count = number(rest, said) if rest else None
    if pairs and count is None:
        count = 1  # "a pair of": one pair
    if every and count is not None:
        every = False  # "all three apples": three
    return Quantity(count, pairs, every)


def _range(words: list[str]) -> tuple[int, ...]:
    """The counts of a range ("two or three", "2-3", "two to four"), or ()."""
    if len(words) == 1 and re.fullmatch(r"\d+-\d+", words[0]):
        low, high = (int(p) for p in words[0].split("-"))
    else:
        joiners = [i for i, w in enumerate(words) if w in CUES.range_joiners]
        if not joiners:
            return ()
        j = joiners[0]
        low, high = number(words[:j], " ".join(words)), number(words[j + 1:], " ".join(words))
    if low < 1 or high < 1:
        _refuse_count(" ".join(words), "zero")
    return tuple(range(min(low, high), max(low, high) + 1))[:10]


def number(words: list[str], said: str) -> int:
    """The positive whole number of number words or digits ("twenty one", "a dozen", "3", "a",
    "both"); DirectiveRefused when they are no such number."""
    if len(words) == 1 and words[0].isdigit():
        value = int(words[0])
        if value < 1:
            _refuse_count(said, "zero")
        return value
    if words and all(w in CUES.one for w in words):  # "a", "a single", "another"
        return 1
    if words in (["a", "couple"], ["couple"], ["both"]) or (len(words) == 1 and words[0] in CUES.two):
        return 2
    total = current = 0
    for k, w in enumerate(words):
        if w in ("a", "an") and k + 1 < len(words) and words[k + 1] in CUES.multipliers:
            current = max(current, 1)
        elif w in CUES.units:
            current += CUES.units[w]
        elif w in CUES.tens:
            current += CUES.tens[w]
        elif w in CUES.multipliers:
            current = max(current, 1) * CUES.multipliers[w]
            if CUES.multipliers[w] >= 100:
                total, current = total + current, 0
        elif w.isdigit():
            current += int(w)
        else:
            raise DirectiveRefused(f"cannot tell how many from '{said}'; {_ALLOWED}")
    if total + current < 1:
        _refuse_count(said, "zero")
    return total + current


# ------------------------------------------------------------------------------ self-corrections
_CORRECTION = re.compile(r"(?:^|,\s*|\s)(" + _phrases(tuple(c for c in CUES.corrections if c != "no"))
                         + r"|no(?=\s*,))\s*,?\s*")
_RELATION_START = re.compile(r"^(?:on top of|inside of|inside|into|onto|upon|within|in|on|to|at)\b")


def apply_corrections(text: str, relations: re.Pattern[str]) -> str:
    """The normalized ``text`` with each self-correction applied: the words after a cue ("no
    wait", "sorry", "i mean") replace the count said just before it ("one apple, no wait, two"
    -> "two apple") or the place ("in the fridge, no wait, on the table" -> "on the table").
    DirectiveRefused for a correction that is neither (say the directive again as meant).
    ``relations`` finds the relation words that start a place."""
    while True:
        match = _CORRECTION.search(text)
        if match is None:
            return text
        before, after = text[:match.start()].strip(" ,"), text[match.end():].strip(" ,")
        if not before:
            text = after
            continue
        if not after:
            _refuse_correction(match.group(1))
        text = _corrected(before, after, match.group(1), relations)


def _corrected(before: str, after: str, cue: str, relations: re.Pattern[str]) -> str:
    head, *tail = after.split(",", 1)
    rest = (" " + tail[0].strip()) if tail else ""
    if _RELATION_START.match(head):  # a place: replace the last place said before the cue
        return _new_place(before, head, cue, relations) + rest
    words = head.split()
    n = 0
    while n < len(words) and (_is_number(words[n]) or words[n] in CUES.two or words[n] in ALL_WORDS):
        n += 1
    if n == 0:
        _refuse_correction(cue)
    place = relations.search(" ".join(words[n:]))
    noun = " ".join(words[n:])[:place.start()].split() if place else words[n:]
    new_place = " ".join(words[n:])[place.start():] if place else ""
    said = before.split()
    counted = [i for i, w in enumerate(said) if _is_number(w) or w in CUES.two or w in CUES.one or w in ALL_WORDS]
    if not counted:
        _refuse_correction(cue)
    i = counted[-1]
    j = i
    while j > 0 and (_is_number(said[j - 1]) or said[j - 1] in ALL_WORDS):
        j -= 1
    if noun and not {singular(w) for w in noun} & {singular(w) for w in said[i + 1:]}:
        _refuse_correction(cue)  # "one apple, sorry, a banana": another object, say it again
    text = " ".join([*said[:j], *words[:n], *said[i + 1:]])
    if new_place:
        text = _new_place(text, new_place, cue, relations) if relations.search(" ".join(said[i + 1:])) \
            else f"{text} {new_place}"
    return text + rest


def _new_place(before: str, place: str, cue: str, relations: re.Pattern[str]) -> str:
    """``before`` with its last place replaced by ``place`` (a relation word and a place)."""
    places = list(relations.finditer(before))
    if not places:
        _refuse_correction(cue)
    return f"{before[:places[-1].start()].rstrip()} {place}".strip()


def _refuse_correction(cue: str) -> str:
    raise DirectiveRefused(f"the directive corrects itself ('{cue}') in a way the robot cannot follow; say it again "
                           "as you mean it, e.g. 'put two apples inside the fridge'")
