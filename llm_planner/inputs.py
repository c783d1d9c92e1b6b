"""The check of what a person or an assistant sends before it reaches a planner: text fields must be
text a person could type, so a bad request is refused at the door with what to send instead, and no
task starts. The web and MCP front ends check their fields with it; the planning service checks
every directive with it, whichever way it came (``/plan_task``, ``execute_directive``, the
``directive`` topic)."""
from __future__ import annotations

import unicodedata
from typing import Any

from llm_planner.errors import LlmPlannerError

#: Unicode categories that are no text: controls, format characters, private use, surrogates,
#: unassigned. Space, tab and line breaks are whitespace and allowed.
NOT_TEXT = ("Cc", "Cf", "Co", "Cs", "Cn")
WHITESPACE = " \t\n\r"


class BadInput(LlmPlannerError):
    """A front end's request that cannot go to the graph; the message says what was wrong and what
    to send instead."""


def plain_text(value: Any, field: str, example: str, required: bool = True) -> str:
    """``value`` stripped, when it is text a person could type; BadInput naming ``field`` (and
    ``example`` of what to send) when it is no string, is empty while ``required``, or holds a
    control or other non-text character."""
    if not isinstance(value, str):
        raise BadInput(f"'{field}' must be text, got {_json_type(value)}: send e.g. {{\"{field}\": \"{example}\"}}")
    bad = [c for c in value if c == "\ufffd" or (c not in WHITESPACE and unicodedata.category(c) in NOT_TEXT)]
    if bad:
        raise BadInput(f"'{field}' holds {len(bad)} control or non-text character(s) (first: U+{ord(bad[0]):04X}): "
                       f"send plain text, e.g. \"{example}\"")
    if required and not value.strip():
        raise BadInput(f"'{field}' is empty: send e.g. \"{example}\"")
    return value.strip()


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type (a number, not a float)."""
    names = {bool: "true/false", int: "a number", float: "a number", list: "a list", dict: "an object",
             type(None): "null"}
    return names.get(type(value), type(value).__name__)
