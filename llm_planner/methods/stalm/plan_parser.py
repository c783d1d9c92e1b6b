"""Safe parser of LLM task plans in the seed's tuple format (seed 003 Appendix E)::

    ## Plan ##
    plan = [('open', 'kitchen door'), # comment
            ('pick', 'bottle1'),
            ('place', 'bottle1', 'on', 'table1')]

Answers in other styles are read too (:func:`plan_text`): a thinking preamble
is dropped, code fences and markdown emphasis are opened, and a JSON plan (``{"plan": [["pick",
"x"], ...]}``, what structured output returns) is read as the same tuples.

Nothing is ever evaluated: a small scanner reads the tuples of the plan list as quoted strings
(straight or typographic quotes) or bare words, names are normalised ("kitchen door" ->
``kitchen_door``, "left of" -> ``left_of``) and checked against the problem's vocabulary and
the operators' arities. A plan is cut at its first bad step; the reason is kept, so a
benchmark can record skipped steps and plans. Input size, plan length and token length are
bounded.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from llm_planner.domains.gtamp.domain import DIRECTIONS, OPERATORS, TaskAction
from llm_planner.llm.answers import first_key, json_payload, strip_markup, strip_reasoning, unfence

MAX_TEXT = 100_000
MAX_STEPS = 64
MAX_TOKEN = 64
QUOTES = {"'": "'", '"': '"', "\u2018": "\u2019", "\u2019": "\u2019", "\u201c": "\u201d", "\u201d": "\u201d", "`": "`"}
_PLAN_HEADER = re.compile(r"#+\s*plan\s*#+", re.IGNORECASE)
_PLAN_ASSIGN = re.compile(r"\bplan\s*=\s*\[", re.IGNORECASE)
_BARE = re.compile(r"^[A-Za-z0-9_ \-]+$")
DIRECTION_SYNONYMS = {
    "on": "on", "on_top_of": "on", "onto": "on", "in": "on",
    "left": "left_of", "left_of": "left_of", "to_the_left_of": "left_of",
    "right": "right_of", "right_of": "right_of", "to_the_right_of": "right_of",
    "front": "front_of", "front_of": "front_of", "in_front_of": "front_of",
    "behind": "behind_of", "behind_of": "behind_of", "back_of": "behind_of",
}


@dataclass(frozen=True)
class ParsedPlan:
    """The valid prefix of one plan and why parsing stopped (``errors`` empty: the whole plan)."""

    actions: tuple[TaskAction, ...]
    errors: tuple[str, ...] = ()
    steps_seen: int = 0

    @property
    def complete(self) -> bool:
        return not self.errors


def normalize(token: str) -> str:
    """Lower case, spaces and hyphens to underscores, no surrounding punctuation."""
    token = token.strip().strip(".:;").lower()
    return re.sub(r"_+", "_", re.sub(r"[\s\-]+", "_", token)).strip("_")


def plan_section(text: str) -> tuple[str, bool]:
    """The text of the plan list (after the last ``## Plan ##`` header and ``plan = [``), and
    whether a ``plan = [`` assignment was found."""
    text = text[:MAX_TEXT]
    headers = list(_PLAN_HEADER.finditer(text))
    if headers:
        text = text[headers[-1].end():]
    assign = _PLAN_ASSIGN.search(text)
    return (text[assign.end():], True) if assign else (text, False)


def scan_tuples(section: str) -> Iterator[list[str] | str]:
    """Yield each top-level ``( ... )`` of the list as its tokens, or an error string; stops at
    the list's closing ``]``. Comments (``# ...``) are skipped."""
    i, n = 0, len(section)
    while i < n:
        ch = section[i]
        if ch == "#":
            nl = section.find("\n", i)
            i = n if nl < 0 else nl + 1
        elif ch == "]":
            return
        elif ch == "(":
            tokens, i, error = _read_tuple(section, i + 1)
            yield error if error else tokens
        else:
            i += 1


def _read_tuple(s: str, i: int) -> tuple[list[str], int, str]:
    tokens: list[str] = []
    bare = ""
    n = len(s)
    while i < n:
        ch = s[i]
        if ch in QUOTES:
            end = s.find(QUOTES[ch], i + 1)
            if ch in ("\u2019", "\u201d"):
                end = s.find(ch, i + 1)
            if end < 0 or "\n" in s[i + 1:end]:
                return tokens, n, "unterminated string"
            tokens.append(s[i + 1:end])
            i = end + 1
        elif ch == ",":
            if bare.strip():
                tokens.append(bare.strip())
            bare = ""
            i += 1
        elif ch == ")":
            if bare.strip():
                tokens.append(bare.strip())
            return tokens, i + 1, ""
        elif ch in "([{":
            close = s.find(")", i)
            return tokens, (n if close < 0 else close + 1), "nested brackets in a step"
        elif ch == "\n" and not tokens and not bare.strip():
            i += 1
        else:
            bare += ch
            i += 1
        if len(bare) > MAX_TOKEN or any(len(t) > MAX_TOKEN for t in tokens):
            close = s.find(")", i)
            return tokens, (n if close < 0 else close + 1), "token too long"
    return tokens, n, "unterminated step"


class Vocabulary:
    """The problem's names, reachable from their normalised spellings."""

    def __init__(self, objects: Iterable[str], regions: Iterable[str], doors: Iterable[str]) -> None:
        self.names: dict[str, str] = {}
        for name in (*objects, *regions, *doors):
            self.names[normalize(name)] = name
            self.names[normalize(name).replace("_", "")] = name

    def lookup(self, token: str) -> str | None:
        key = normalize(token)
        return self.names.get(key) or self.names.get(key.replace("_", ""))


def parse_plan(text: str, vocab: Vocabulary, validate: Callable[[TaskAction], str] | None = None) -> ParsedPlan:
    """Parse one LLM response into task actions (valid prefix) and errors."""
    if not isinstance(text, str):
        return ParsedPlan((), ("response is not text",))
    actions: list[TaskAction] = []
    seen = 0
    section, assigned = plan_section(plan_text(text))
    for item in scan_tuples(section):
        seen += 1
        if seen > MAX_STEPS:
            return ParsedPlan(tuple(actions), (f"plan longer than {MAX_STEPS} steps; cut",), seen)
        action, error = _to_action(item, vocab)
        if action is not None and not error and validate is not None:
            error = validate(action)
        if error or action is None:  # (_to_action gives an action or an error)
            return ParsedPlan(tuple(actions), (f"step {seen}: {error}",), seen)
        actions.append(action)
    if seen == 0 and not assigned:
        return ParsedPlan((), ("no plan found in the response",), 0)
    return ParsedPlan(tuple(actions), (), seen)      # ``plan = []`` is a (complete) empty plan


def _to_action(item: list[str] | str, vocab: Vocabulary) -> tuple[TaskAction | None, str]:
    if isinstance(item, str):
        return None, item
    if not item:
        return None, "empty step"
    if any(not _BARE.match(t) for t in item):
        return None, f"unexpected characters in step {tuple(item)!r}"[:200]
    op = normalize(item[0])
    if op not in OPERATORS:
        return None, f"unknown action '{op[:MAX_TOKEN]}' (actions: {', '.join(OPERATORS)})"
    kinds = OPERATORS[op]
    if len(item) - 1 != len(kinds):
        return None, f"'{op}' takes {len(kinds)} argument(s), got {len(item) - 1}"
    args = []
    for kind, token in zip(kinds, item[1:], strict=True):
        if kind == "direction":
            value = DIRECTION_SYNONYMS.get(normalize(token))
            if value is None:
                return None, f"unknown direction '{token}' (directions: {', '.join(DIRECTIONS)})"
        else:
            value = vocab.lookup(token)
            if value is None:
                return None, f"unknown name '{token}'"
        args.append(value)
    return TaskAction(op, tuple(args)), ""


def plan_text(text: str) -> str:
    """A STaLM answer made ready for :func:`parse_plan`: reasoning removed; a JSON plan
    (``{"plan": [["pick", "x"], ...]}``) written as ``plan = [('pick', 'x'), ...]``; code fences opened."""

    text = strip_reasoning(text)
    data = json_payload(text)
    if data is not None:
        steps = first_key(data, ("plan", "steps", "actions"))
        steps = data if isinstance(data, list) and steps is None else steps
        if isinstance(steps, list):
            rows = []
            for step in steps:
                if isinstance(step, (list, tuple)):
                    rows.append("(" + ", ".join(repr(str(x)) for x in step) + ")")
                elif isinstance(step, dict):
                    values = [step.get("action") or step.get("op") or "", *(step.get("args") or [])]
                    rows.append("(" + ", ".join(repr(str(x)) for x in values) + ")")
                else:
                    rows.append(f"({str(step)!r},)")
            return "## Plan ##\nplan = [" + ", ".join(rows) + "]"
    return "\n".join(strip_markup(line) for line in unfence(text).splitlines())
