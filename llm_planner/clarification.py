"""Questions a task asks before it goes on: a directive a person can settle in one reply
("which table: kitchen table or coffee table?", "this apartment has 2 apples: how many?", "where
in the bedroom?") and the approval "May I put one apple inside the fridge?".

The directive reader (:func:`llm_planner.reading.read_directive`) raises :class:`NeedsAnswer` where it
refused before: its message is the refusal (what callers that never answer get), its
:class:`Question` the text, the options and, for each option, the directive as if it had been
said clearly. An answer is read by :meth:`Question.read` (an option's name or room, "the second
one", "two", "yes"/"no"); the reader's own grounding reads the rest
(:func:`llm_planner.reading.read_answer`: "the dining table" is the kitchen table).

LLM-MCTS (seed 000) §2.2 grounds a directive into a goal; where the grounding is not unique the
planner asks instead of picking one (DESIGN.md, "duplicates are asked about").

    >>> q = Question("which table: kitchen table or coffee table?", (
    ...     Option("kitchen table (kitchen)", "kitchen_table", ("kitchen table", "kitchen"),
    ...            "put the mug on the kitchen table"),
    ...     Option("coffee table (living room)", "coffee_table", ("coffee table", "living room"),
    ...            "put the mug on the coffee table")),
    ...     kind=WHICH, refusal="which table: kitchen table (kitchen) or coffee table (living room)?")
    >>> q.read("the coffee table").value, q.read("the first one").value, q.read("a sandwich")
    ('coffee_table', 'kitchen_table', None)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from llm_planner.errors import GoalError

#: Kinds of question: which of several things, how many, where (a room, a place the apartment
#: lacks, none said), and the yes/no of an approval.
WHICH, COUNT, PLACE, CONFIRM = "which", "count", "place", "confirm"
YES, NO = "yes", "no"

_YES = {"yes", "yeah", "yep", "yup", "sure", "ok", "okay", "y", "please", "please do", "go ahead", "do it",
        "correct", "right", "affirmative", "of course", "certainly", "yes please", "that's right", "that one",
        "go", "do", "approve", "approved", "fine", "alright", "all right"}
_NO = {"no", "nope", "nah", "n", "don't", "do not", "stop", "cancel", "never", "no thanks", "no thank you",
       "negative", "not now", "abort", "deny", "denied", "wrong"}
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
             "fifth": 5, "5th": 5, "sixth": 6, "6th": 6}
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "both": 2, "a couple": 2, "a pair": 2, "single": 1, "just one": 1, "only one": 1}
_FILLER = re.compile(r"^(?:(?:i mean|i meant|i said|i'd say|i would say|let's say|um|uh|er|hmm|well|oh|so|"
                     r"please|the answer is|it's|it is|its|make it|put it|take|use|on|in|into|onto|inside|to|at)\s+)+")
_NUMBER_WORDS = {v: k for k, v in _NUMBERS.items() if " " not in k and k not in ("both", "single")}


def number_word(n: int) -> str:
    """``2`` -> ``"two"`` (digits above ten)."""
    return _NUMBER_WORDS.get(n, str(n))


@dataclass(frozen=True)
class Option:
    """One answer a question offers: how it is shown, what it resolves to (a scene name, a count,
    yes or no), the words that name it, and the directive as if it had been said clearly."""

    label: str
    value: str
    names: tuple[str, ...] = ()
    directive: str = ""


@dataclass(frozen=True)
class Question:
    """What the robot asks: the question, its options, its kind, the refusal a caller that does not
    answer gets, and the directive asked about."""

    text: str
    options: tuple[Option, ...]
    kind: str = WHICH
    refusal: str = ""
    directive: str = ""
    labels: tuple[str, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", tuple(o.label for o in self.options))

    def message(self) -> str:
        """The refusal with the question in it (plan-only calls, callers that never answer)."""
        if not self.refusal:
            return self.text
        if self.text.rstrip("?").lower() in self.refusal.lower():
            return self.refusal
        return f"{self.refusal}; {self.text}"

    def read(self, answer: str) -> Option | None:
        """The option an answer picks, or None when it picks none (or several): yes/no, an
        ordinal ("the second one"), a count ("two", "2", "both"), an option's name or room."""
        text = clean_answer(answer)
        if not text:
            return None
        by_value = {o.value: o for o in self.options}
        if text in _YES or text.split()[0] in ("yes", "yeah", "yep", "sure", "ok", "okay"):
            if YES in by_value:
                return by_value[YES]
            if len(self.options) == 1:  # "did you mean the remote control?" "yes"
                return self.options[0]
        if (text in _NO or text.split()[0] in ("no", "nope", "nah")) and NO in by_value:
            return by_value[NO]
        words = text.split()
        if self.kind == COUNT:
            for phrase in (text, *words):
                n = _NUMBERS.get(phrase) if not phrase.isdigit() else int(phrase)
                if n is not None:
                    return by_value.get(str(n))
            if text in ("all", "all of them", "every one", "everything", "as many as there are"):
                return max(self.options, key=lambda o: int(o.value)) if self.options else None
        if words and (words[-1] in ("one", "option") or len(words) == 1) and self.kind != COUNT:
            for w in words:
                if w in _ORDINALS and _ORDINALS[w] <= len(self.options):
                    return self.options[_ORDINALS[w] - 1]
                if w == "last":
                    return self.options[-1]
        if (words[:1] == ["option"] and len(words) == 2 and words[1].isdigit()
                and 0 < int(words[1]) <= len(self.options)):
            return self.options[int(words[1]) - 1]
        return self._by_name(text)

    def declined(self, answer: str) -> bool:
        """Whether the answer is a plain no to a question without a "no" option ("did you mean the
        remote control?" "no"): the task ends refused at once instead of asking again."""
        text = clean_answer(answer)
        return bool(text) and (text in _NO or text.split()[0] in ("no", "nope", "nah")) and \
            all(o.value != NO for o in self.options) and self.read(answer) is None

    def _by_name(self, text: str) -> Option | None:
        """The option whose longest name the answer says (as whole words); None on a tie."""
        padded = f" {text} "
        scores = []
        for option in self.options:
            names = (option.label.split(" (")[0], *option.names)
            best = max((len(n) for n in names if n and f" {n.lower()} " in padded), default=0)
            scores.append(best)
        top = max(scores, default=0)
        if top == 0 or scores.count(top) > 1:
            return None
        return self.options[scores.index(top)]

    def to_dict(self) -> dict:
        return {"question": self.text, "options": list(self.labels), "kind": self.kind}


class NeedsAnswer(GoalError):
    """A directive the goal reader would refuse, but that one answer settles: ``question`` holds
    what to ask; the message is the refusal with the question in it."""

    def __init__(self, question: Question) -> None:
        super().__init__(question.message())
        self.question = question


def approval_question(goal_text: str, plan: list[str] | tuple[str, ...] = ()) -> Question:
    """"May I put one apple inside the fridge?" (with the plan's steps when there are several)."""
    text = f"May I {goal_text}?"
    if len(plan) > 1:
        text += f" The plan: {', '.join(plan)}."
    return Question(text, (Option("yes", YES, ("yes",)), Option("no", NO, ("no",))), kind=CONFIRM,
                    refusal=f"not approved: {goal_text}")


def clean_answer(answer: str) -> str:
    text = str(answer).lower().replace("\u2019", "'")
    text = re.sub(r"[^\w' ]+", " ", text)
    text = " ".join(text.split())
    text = _FILLER.sub("", text)
    text = re.sub(r"^(?:the|a|an|my)\s+", "", text)
    text = re.sub(r"\s+(?:please|thanks|thank you|one please)$", "", text)
    return text.strip()
