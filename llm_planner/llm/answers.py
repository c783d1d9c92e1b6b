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
=================  ===============================================  ===========================

A method's own question kinds bring their reader and schema with them (STaLM's ``plan_text`` in
``methods/stalm/plan_parser.py``, schema ``task_plan``; Levy-Karpas' ``read_goal_template`` in
``methods/levy_karpas/openai_channels.py``, schema ``goal_and_template``), built on the cleaning
helpers here (:func:`strip_reasoning`, :func:`json_payload`, :func:`plain_lines`, :func:`first_key` ...).

Nothing a model writes is evaluated: JSON is read with :func:`json.loads`, everything else with
regular expressions, and names are grounded onto the scene by the callers.
"""
from __future__ import annotations

import json
import re
from typing import Any

from llm_planner.errors import LLMError
from llm_planner.llm.questions import get, load_registered, registered

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
}
#: The schema each question asks for (question kind -> schema name); a method's kinds name theirs
#: where they register (``QuestionKind.schema``, :mod:`llm_planner.llm.questions`).
SCHEMA_OF = {"world_model": "positions", "policy": "next_actions", "candidates": "next_actions",
             "translate": "formal_goal"}


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """A JSON schema of an object with exactly these properties, all required (for a method's schema)."""
    return _object(properties)


def schema_of(kind: str) -> str | None:
    """The name of the schema a question kind asks for: :data:`SCHEMA_OF`, else the one its method
    registered; None for a kind without one."""
    if kind in SCHEMA_OF:
        return SCHEMA_OF[kind]
    try:
        registered = get(kind).schema
    except LLMError:
        return None
    return registered[0] if registered else None


def _schema(name: str) -> dict[str, Any]:
    if name in SCHEMAS:
        return SCHEMAS[name]
    load_registered()
    for kind in registered():
        if kind.schema and kind.schema[0] == name:
            return dict(kind.schema[1])
    raise KeyError(f"no JSON schema named '{name}' (known: {', '.join(SCHEMAS)} and the registered kinds')")


def response_format(schema: str) -> dict[str, Any]:
    """The ``response_format`` of a chat request asking for ``schema`` (OpenAI, vLLM, Ollama, llama.cpp)."""
    return {"type": "json_schema", "json_schema": {"name": schema, "strict": True, "schema": _schema(schema)}}


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
_LIST_MARK = re.compile(r"^\s*(?:[-*+\u2022\u2023\u25e6]|\d{1,2}\s*[.)]|\(\d{1,2}\)|"
                        r"step\s*\d{1,2}\s*[:.)-]|[a-z]\))\s+",
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
_REFUSAL = re.compile(r"^\s*(?:i'?m\s+sorry|i\s+am\s+sorry|sorry,|"
                      r"i\s+(?:cannot|can't|can\s*not|won't|am\s+unable|'m\s+unable)"
                      r"|as\s+an\s+ai|unfortunately,?\s+i)", re.IGNORECASE)


def looks_like_refusal(text: str) -> bool:
    """The answer opens by declining ("I'm sorry, but I can't ...")."""
    return bool(_REFUSAL.match(strip_reasoning(text)))


class Unparsable(ValueError):
    """An answer whose text does not clearly state what the question asks (the message says what was read)."""


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _first_key(data: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(data, dict):
        lowered = {str(k).lower().replace(" ", "_"): v for k, v in data.items()}
        for key in keys:
            if key in lowered:
                return lowered[key]
    return None


# ----------------------------------------------------------------------------- world model
_REL_WORD = r"inside\s+of|inside|in|into|on\s+top\s+of|onto|on|within|under"
_REL_START = re.compile(rf"^(?:the\s+)?(?P<rel>{_REL_WORD})\b\s*(?:the\s+|a\s+|an\s+)?(?P<place>.*)$", re.IGNORECASE)
_REL_IN_PROSE = re.compile(rf"\b(?P<rel>{_REL_WORD})\s+(?:the\s+|a\s+|an\s+)(?P<place>[a-z][a-z ]*?)"
                           rf"(?=\s*(?:[,.;:!?)]|\b(?:or|and|where|which|if|but|to|for|when|because|so|since|as|after|before|"
                           rf"during|while|near|next|often|usually|{_REL_WORD})\b|$))",
                           re.IGNORECASE)
_NOT_A_PLACE = re.compile(r"\b(?:typical|usual|most|many|some|every|any|home|homes|house|household|apartment|room|"
                          r"place|places|spot|spots|case|cases|general|order)\b", re.IGNORECASE)


_LEAD_TO_RELATION = re.compile(rf"^[^,;:]*?\b(?:are|is)\s+(?=(?:{_REL_WORD})\b)", re.IGNORECASE)


def _own_answer(text: str) -> str:
    """The answer to the question asked: a small model may go on with the prompt's next
    "Question: ..." (a server that ignores ``stop`` lets it), or start by repeating a question and
    then answer it ("Question: ...?\nAnswer: Inside ..."): the text before the first question,
    else the first answer after one."""
    head = text.split("Question:")[0]
    if head.strip() or "Answer:" not in text:
        return head
    return text.split("Answer:", 1)[1].split("Question:")[0]


def read_positions(text: str) -> list[tuple[str, str]]:
    """(relation word, place phrase) pairs of a world-model answer ("Inside fridge, On kitchen table";
    a list; JSON ``{"positions": [{"relation": "inside", "place": "fridge"}]}``; or prose "in the fridge or
    on the counter"). Relation words are lower case ("" when the answer gave none); places are the
    model's words, for the caller to ground; phrases about homes in general are left out."""
    data = json_payload(text)
    if data is not None:
        entries = _first_key(data, ("positions", "possible_positions", "answer", "places", "locations"))
        entries = data if isinstance(data, list) and entries is None else entries
        found: list[tuple[str, str]] = []
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict):
                rel = str(_first_key(entry, ("relation", "rel")) or "").lower()
                place = str(_first_key(entry, ("place", "furniture", "location", "destination")) or "")
                if place:
                    found.append((rel, place.strip().lower()))
            elif isinstance(entry, str):
                found.extend(read_positions(entry))
        return found
    out: list[tuple[str, str]] = []
    for line in plain_lines(_own_answer(text)):
        line = re.sub(r"^(?:answer|possible positions?(?: of [^:]+)?)\s*:\s*", "", line, flags=re.IGNORECASE)
        # "The possible positions of a towel are inside bathroom cabinet, on ...": the list after the verb
        line = _LEAD_TO_RELATION.sub("", line)
        if not line or line.endswith(":") or line.endswith("?"):
            continue
        phrases = [p.strip(" .!") for p in re.split(r"[,;]|\band\b|\bor\b|\s+-\s+", line) if p.strip(" .!")]
        if all(_REL_START.match(p) or len(p.split()) <= 3 for p in phrases):
            for phrase in phrases:
                match = _REL_START.match(phrase)
                rel, place = (match.group("rel").lower(), match.group("place")) if match else ("", phrase)
                place = re.sub(r"\s*\(.*$", "", place).strip(" .")
                if place and not _NOT_A_PLACE.search(place):
                    out.append((rel, place.lower()))
            continue
        for match in _REL_IN_PROSE.finditer(line):  # a sentence: "usually in the fridge or on the counter"
            place = match.group("place").strip()
            if not _NOT_A_PLACE.search(place):
                out.append((match.group("rel").lower(), place.lower()))
    return out


# ----------------------------------------------------------------------------- policy and Say
_VERBS = [  # (pattern of the words a model uses, canonical form); most specific first
    (r"walk(?:\s+over)?\s+to|go(?:\s+back)?\s+to|head\s+(?:over\s+)?to|move\s+to|navigate\s+to|approach|come\s+to",
     "walk to"),
    (r"pick\s+up|grab|take|get|grasp", "grab"),
    (r"open", "open"),
    (r"close|shut", "close"),
    (r"put|place|set|store|leave|drop", "put"),
]
_VERB_RE = re.compile(r"(?<![\w'])(?P<verb>" + "|".join(f"(?:{p})" for p, _ in _VERBS) + r")\b", re.IGNORECASE)
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno\s+need\s+to|\bwithout|\binstead\s+of|\bavoid|\bbefore\s+you)\s+"
                      r"(?:\w+\s+){0,2}$", re.IGNORECASE)
_ADJECTIVE = re.compile(r"\b(?:is|are|am|was|were|be|been|being|stays?|remains?|still|the|an?|already|now|"
                        r"it's|its)\s+$",
                        re.IGNORECASE)  # "is close to", "the open fridge": not the verbs
_DONE_RE = re.compile(r"^(?:the\s+)?(?:task\s+(?:is\s+)?)?(?:done|finished|complete[d]?|all\s+done)\b(?!\s*actions?\b)|"
                      r"^(?:the\s+)?(?:goal|task)\s+(?:is|has\s+been)\s+(?:already\s+)?(?:done|achieved|complete[d]?|"
                      r"finished|satisfied)|^done!?$|^\W*done\W*$", re.IGNORECASE)
_DONE_IN_PROSE = re.compile(r"\b(?:task|goal)\s+(?:is|has\s+been)\s+(?:now\s+|already\s+)?"
                            r"(?:done|complete[d]?|finished|achieved|satisfied)\b", re.IGNORECASE)
_CALL = re.compile(r"^\s*(?P<verb>walk_?to|walk|go_?to|grab|pick_?up|open|close|put_?in(?:side)?|put_?on|place_?on|"
                   r"place_?in)\s*\((?P<args>[^()]*)\)", re.IGNORECASE)
_CALL_VERBS = {"walkto": "walk to", "walk": "walk to", "goto": "walk to", "grab": "grab", "pickup": "grab",
               "open": "open", "close": "close", "putin": "inside", "putinside": "inside", "placein": "inside",
               "puton": "on", "placeon": "on"}
_PUT_ARGS = re.compile(r"^(?P<obj>.+?)\s+(?P<rel>inside\s+of|inside|into|in|on\s+top\s+of|onto|on)\s+(?P<dest>.+)$",
                       re.IGNORECASE)
#: A line of the policy prompt written back (its list of the actions already taken): no next action.
_ECHOED_PROMPT_LINE = re.compile(r"^\s*completed\s+actions?\s*:", re.IGNORECASE)
_LABEL = re.compile(r"^(?:next\s+actions?|next\s+step|action|answer|plan|step\s*\d*|output)\s*[:=-]\s*", re.IGNORECASE)


_NOT_A_NAME = {"it", "them", "this", "that", "one", "those", "these", "something", "everything", "anything", "there",
               "here", "look", "care", "note", "moment", "over", "around", "step", "steps", "action", "actions",
               "robot", "task", "goal", "next", "following"}


def _phrase(text: str, place: bool = False) -> str:
    """An argument phrase: lower case, one space, no article, no trailing explanation (and for an
    object, no "from the counter")."""
    cut = (r"\s+(?:to|so|so\s+that|in\s+order\s+to|because|since|which|where|then|first|now|next|again|instead|"
           r"please|and|and\s+then|after\s+that|if|while|as|with|by|for|before|once)\b|\(|:|\s+-\s+|!|\?|\s+\u2014")
    if not place:
        cut += r"|\s+(?:from|off|out\s+of|at|near|in|on|inside|that|which\s+is|lying|sitting|back|down|away|up)\b"
    text = re.split(cut, text.strip(), maxsplit=1)[0]
    text = re.sub(r"^(?:the|a|an|one|your|my)\s+", "", " ".join(text.lower().split())).strip(" .,'\"")
    return "" if not text or text.split()[0] in _NOT_A_NAME else text


def _not_a_verb(match: re.Match, segment: str) -> bool:
    """"is close to the table", "the open fridge": open and close as adjectives."""
    if match.group("verb").lower() not in ("open", "close"):
        return False
    return bool(_ADJECTIVE.search(segment[:match.start()]) or re.match(r"\s+(?:to|by)\b", segment[match.end():]))


def canonical_action(segment: str) -> str | None:
    """``Walk over to the Kitchen`` -> ``walk to the kitchen``; ``put the apple 1 into the Fridge`` ->
    ``put the apple 1 inside the fridge``; ``done``; None when the segment states no action."""
    segment = segment.strip().strip("\"'")
    if _DONE_RE.match(segment) or (_DONE_IN_PROSE.search(segment) and not re.search(r"\bnot\b|n't", segment)):
        return "done"
    call = _CALL.search(segment)
    if call:  # walk_to(kitchen), grab(apple_1), putin(apple_1, fridge)
        verb = _CALL_VERBS[call.group("verb").lower().replace("_", "")]
        args = [a.strip().strip("'\"").replace("_", " ").lower() for a in call.group("args").split(",") if a.strip()]
        if verb in ("inside", "on") and len(args) == 2:
            return f"put the {args[0]} {verb} the {args[1]}"
        return f"{verb} the {args[0]}" if verb not in ("inside", "on") and len(args) == 1 else None
    match = next((m for m in _VERB_RE.finditer(segment) if not _not_a_verb(m, segment)), None)
    if match is None or _NEGATED.search(segment[:match.start()]):
        return None
    verb_words = match.group("verb").lower()
    verb = next(canon for pattern, canon in _VERBS if re.fullmatch(pattern, verb_words, re.IGNORECASE))
    rest = segment[match.end():].strip()
    if verb == "put":
        put = _PUT_ARGS.match(rest)
        if put is None:
            return None
        rel = "on" if put.group("rel").lower() in ("on", "onto", "on top of") else "inside"
        obj, dest = _phrase(put.group("obj")), _phrase(put.group("dest"), place=True)
        return f"put the {obj} {rel} the {dest}" if obj and dest else None
    if verb == "grab":
        rest = re.sub(r"^up\s+", "", rest)
    target = _phrase(rest, place=verb != "grab")
    if not target or len(target.split()) > 8:
        return None
    return f"{verb} the {target}"


def first_action(text: str) -> str | None:
    """The first action of a policy or Say answer, in the prompt's canonical words ("walk to the
    kitchen", "done"), wherever the answer puts it (after "Sure!", in a list, in bold, in JSON, after a
    thinking preamble); None when no sentence of the answer starts or clearly states an action."""
    data = json_payload(text)
    if data is not None:
        value = _first_key(data, ("next_actions", "actions", "next_action", "action", "plan", "steps", "answer"))
        value = data if isinstance(data, list) and value is None else value
        items = [v if isinstance(v, str) else (_first_key(v, ("action", "step")) or "") for v in
                 (value if isinstance(value, list) else [value])]
        for item in items:
            if isinstance(item, str) and item.strip():
                return canonical_action(item)
        return None
    for line in plain_lines(text):
        if _ECHOED_PROMPT_LINE.match(line):
            continue
        line = _LABEL.sub("", line)
        for segment in re.split(r"[,;]|\.(?:\s|$)|\s+->\s+|\s+then\s+", line):
            segment = _LABEL.sub("", segment.strip())
            if not segment:
                continue
            action = canonical_action(segment)
            if action is not None:
                return action
    return None


# ----------------------------------------------------------------------------- translation
_NUMBER_WORDS = {"one": 1, "a": 1, "an": 1, "single": 1, "two": 2, "both": 2, "pair": 2, "three": 3, "four": 4,
                 "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
_GROUP = re.compile(r"\(([^()]*)\)")
_REL_NAMES = {"inside": "inside", "in": "inside", "into": "inside", "within": "inside", "on": "on", "onto": "on",
              "on_top_of": "on", "ontop": "on"}
#: The states a goal item may ask of a thing, with no destination: ``(CLOSED, fridge)``.
_STATE_NAMES = {"open": "open", "opened": "open", "closed": "closed", "close": "closed", "shut": "closed",
                "on": "on", "switched_on": "on", "off": "off", "switched_off": "off"}


def _count(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value).strip().lower()
    if text.isdigit():
        return int(text)
    return _NUMBER_WORDS.get(text)


def _goal_item(rel: Any, obj: Any, dest: Any, count: Any) -> tuple[str, str, str, int]:
    rel_text = str(rel).strip().strip("'\"`*").lower().replace(" ", "_")
    obj_text = str(obj).strip().strip("'\"`*").strip()
    dest_text = str(dest).strip().strip("'\"`*").strip()
    number = 1 if count in (None, "") else _count(str(count).strip().strip("'\"`*"))
    if obj_text and not dest_text and rel_text in _STATE_NAMES and number == 1:  # a state: (CLOSED, fridge)
        return _STATE_NAMES[rel_text], obj_text, "", 1
    if not obj_text or not dest_text:
        raise Unparsable(f"a goal tuple without object or destination: ({rel}, {obj}, {dest}, {count})")
    if number is None:
        raise Unparsable(f"the count '{count}' of {obj_text} is not a number")
    if count in (None, "") and obj_text.lower().endswith("s") and not obj_text.lower().endswith("ss"):
        raise Unparsable(f"the tuple for '{obj_text}' has no count and the name is plural")
    return _REL_NAMES.get(rel_text, rel_text), obj_text, dest_text, number


def read_goal_tuples(text: str) -> list[tuple[str, str, str, int]]:
    """Goal tuples (relation lower case, object words, destination words, count) of a translation
    answer: ``(INSIDE, apple, fridge, 2)-(ON, plate, kitchen_table, 1)`` in any wrapping, or JSON
    (``{"goal": [{"relation", "object", "destination", "count"}]}``). Only the first paragraph that
    holds tuples is read (a later "for example (ON, ...)" is not the answer); a tuple that does not
    read whole, a count that is not a number, or a declared problem raise :class:`Unparsable`, so a
    goal never silently loses or changes an item. A state item has no destination: ``(CLOSED,
    fridge)``, JSON ``["closed", "fridge"]`` or an object without destination, read as (state, thing,
    "", 1). Relations other than inside/on and the states are returned for the caller to reject."""
    data = json_payload(text)
    if data is not None:
        items = _first_key(data, ("goal", "formal_goal", "goals", "tuples"))
        items = data if isinstance(data, list) and items is None else items
        problem = _first_key(data, ("problem", "error", "reason"))
        out = []
        for item in items if isinstance(items, list) else []:
            if isinstance(item, dict):
                out.append(_goal_item(_first_key(item, ("relation", "rel")) or "",
                                      _first_key(item, ("object", "obj", "object_type")) or "",
                                      _first_key(item, ("destination", "dest", "place", "target")) or "",
                                      _first_key(item, ("count", "number", "quantity"))))
            elif isinstance(item, (list, tuple)) and len(item) in (3, 4):
                out.append(_goal_item(*item, *([None] if len(item) == 3 else [])))
            elif isinstance(item, (list, tuple)) and len(item) == 2:  # a state: ["closed", "fridge"]
                out.append(_goal_item(item[0], item[1], "", None))
            else:
                raise Unparsable(f"a goal entry that is not a tuple: {item!r}"[:200])
        if not out and isinstance(problem, str) and problem.strip():
            raise Unparsable(f"the model declined: {problem.strip()[:300]}")
        return out
    lines = [line.replace("\u2013", "-") for line in plain_lines(text)]
    for paragraph in paragraphs(lines):
        block = " ".join(paragraph)
        groups = [g for g in _GROUP.findall(block) if "," in g]
        if not groups:
            continue
        out = []
        for group in groups:
            parts = [p.strip() for p in group.split(",")]
            if len(parts) not in (2, 3, 4) or not re.fullmatch(r"['\"`]?[A-Za-z_ ]+['\"`]?", parts[0]):
                raise Unparsable(f"'({group.strip()})' is not a goal tuple (REL, object, destination, count)")
            out.append(_goal_item(*parts, *([None] * (4 - len(parts)))) if len(parts) > 2
                       else _goal_item(parts[0], parts[1], "", None))
        return out
    return []


# ----------------------------------------------------------------------------- for the methods' readers
def first_key(data: Any, keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` found in a JSON answer (searched in nested objects too)."""
    return _first_key(data, keys)


def strings(value: Any) -> list[str]:
    """A JSON value as a list of strings."""
    return _strings(value)


def strip_markup(line: str) -> str:
    """A line without bold and underline markers (``**``, ``__``); inline code marks kept."""
    return _MARKUP.sub(lambda m: "" if m.group(1) in ("**", "__") else m.group(1), line)
