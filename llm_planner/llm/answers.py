"""Reading a chat model's answers, whatever their style: the one place that turns answer text (or a
structured JSON answer) into what each question asks for.

Real chat models wrap their answers: "Sure! Here are...", numbered or bulleted lists, markdown
bold and headers, code fences, JSON objects, trailing explanations, other casing and plurals of
the names, and thinking models a ``<think>...</think>`` preamble. Every reader here first cleans
the text (:func:`strip_reasoning`, :func:`json_payload`), then looks for the answer's own shape,
and returns nothing rather than guessing: a reader never turns prose into an action or a goal it
did not clearly state (the callers then say "unparsable" with the model's words).

=================  ===============================================  ===========================
question           reader                                           JSON schema (structured)
=================  ===============================================  ===========================
world model        :func:`read_positions`: (relation word, place)   ``positions``
policy / Say       :func:`first_action`: the first action phrase    ``next_actions``
translation        :func:`read_goal_tuples`: (REL, obj, dest, n)    ``formal_goal``
STaLM task plans   :func:`plan_text` (then gtamp.plan_parser)       ``task_plan``
Levy-Karpas        :func:`read_goal_template`: goal, template       ``goal_and_template``
=================  ===============================================  ===========================

Nothing a model writes is evaluated: JSON is read with :func:`json.loads`, everything else with
regular expressions, and names are grounded onto the scene by the callers.
"""
from __future__ import annotations

import json
import re
from typing import Any

MAX_ANSWER = 100_000  # characters of an answer that are read at all

# ----------------------------------------------------------------------------- JSON schemas
_STR = {"type": "string"}


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


SCHEMAS: dict[str, dict[str, Any]] = {
    "positions": _object({"positions": {"type": "array", "items": _object(
        {"relation": {"type": "string", "enum": ["inside", "on"]}, "place": _STR})}}),
    "next_actions": _object({"next_actions": {"type": "array", "items": _STR}}),
    "formal_goal": _object({"goal": {"type": "array", "items": _object(
        {"relation": {"type": "string", "enum": ["INSIDE", "ON"]}, "object": _STR, "destination": _STR,
         "count": {"type": "integer"}})}, "problem": _STR}),
    "task_plan": _object({"challenges": {"type": "array", "items": _STR},
                          "plan": {"type": "array", "items": {"type": "array", "items": _STR}}}),
    "goal_and_template": _object({"goal": _STR, "template": _STR}),
}
#: The schema each question asks for (question kind -> schema name).
SCHEMA_OF = {"world_model": "positions", "policy": "next_actions", "candidates": "next_actions",
             "translate": "formal_goal", "task_plans": "task_plan", "nl2pddl": "goal_and_template"}


def response_format(schema: str) -> dict[str, Any]:
    """The ``response_format`` of a chat request asking for ``schema`` (OpenAI, vLLM, Ollama, llama.cpp)."""
    return {"type": "json_schema", "json_schema": {"name": schema, "strict": True, "schema": SCHEMAS[schema]}}


# ----------------------------------------------------------------------------- cleaning
_THINK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.IGNORECASE | re.DOTALL)
_OPEN_THINK = re.compile(r"^\s*<(think|thinking|reasoning)>(?!.*</\1>).*", re.IGNORECASE | re.DOTALL)
_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+-]*)[ \t]*\n?(.*?)```", re.DOTALL)


def strip_reasoning(text: str) -> str:
    """The answer without thinking preambles (``<think>...</think>``, also ``<thinking>``); a thought
    that never ends leaves no answer. A lone ``</think>`` (servers that strip the opening tag) cuts
    everything before it."""
    text = str(text or "")[:MAX_ANSWER]
    text = _THINK.sub("", text)
    if _OPEN_THINK.match(text):
        return ""
    closing = re.search(r"</(think|thinking|reasoning)>", text, re.IGNORECASE)
    if closing:
        text = text[closing.end():]
    return text.strip()


def json_payload(text: str) -> Any:
    """The JSON value an answer consists of (bare, or in a ```json fence, or the one ``{...}`` in the
    text); None when there is none."""
    text = strip_reasoning(text)
    candidates = [text]
    candidates += [body for _lang, body in _FENCE.findall(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start:end + 1])
    start, end = text.find("["), text.rfind("]")
    if 0 <= start < end and text[:start].strip() == "":
        candidates.append(text[start:end + 1])
    for candidate in candidates:
        candidate = candidate.strip()
        if not candidate or candidate[0] not in "{[":
            continue
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    return None


def unfence(text: str) -> str:
    """Code fences replaced by their contents (their language tag dropped)."""
    return _FENCE.sub(lambda m: "\n" + m.group(2) + "\n", text)


_MARKUP = re.compile(r"(\*\*|__|\*|`)")
_LIST_MARK = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6]|\d{1,2}\s*[.)]|\(\d{1,2}\)|step\s*\d{1,2}\s*[:.)-]|[a-z]\))\s+",
                        re.IGNORECASE)
_HEADER = re.compile(r"^\s*#{1,6}\s*")


def plain_lines(text: str) -> list[str]:
    """The answer's lines without reasoning, fences, markdown emphasis, headers and list markers."""
    text = unfence(strip_reasoning(text))
    out = []
    for line in text.splitlines():
        line = _HEADER.sub("", line)
        line = _MARKUP.sub("", line)
        line = _LIST_MARK.sub("", line)
        out.append(line.strip())
    return out


def paragraphs(lines: list[str]) -> list[list[str]]:
    """Lines grouped into paragraphs (separated by blank lines)."""
    out: list[list[str]] = [[]]
    for line in lines:
        if line:
            out[-1].append(line)
        elif out[-1]:
            out.append([])
    return [p for p in out if p]


# ----------------------------------------------------------------------------- refusals
_REFUSAL = re.compile(r"^\s*(?:i'?m\s+sorry|i\s+am\s+sorry|sorry,|i\s+(?:cannot|can't|can\s*not|won't|am\s+unable|'m\s+unable)"
                      r"|as\s+an\s+ai|unfortunately,?\s+i)", re.IGNORECASE)


def looks_like_refusal(text: str) -> bool:
    """The answer opens by declining ("I'm sorry, but I can't ...")."""
    return bool(_REFUSAL.match(strip_reasoning(text)))
