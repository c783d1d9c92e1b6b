"""What the openai backend reads from a server's errors and answers (HTTP status bodies, Retry-After,
choices), kept apart from the request logic of :mod:`llm_planner.llm.openai_backend`."""
from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any


class NRefused(Exception):
    """The server refused ``n`` > 1 (HTTP 400/422)."""


class FormatRefused(Exception):
    """The server refused ``response_format`` (HTTP 400/422)."""


def refused_parameter(exc: Any, n: int, structured: bool) -> str:
    """Which parameter a 400/422 refused: ``response_format``, ``n`` or "" (another problem). A
    message naming neither is blamed on structured output first, then on ``n``."""
    body = getattr(exc, "body", None)
    err = body.get("error", body) if isinstance(body, dict) else {}
    param = str(err.get("param") or "") if isinstance(err, dict) else ""
    message = server_message(exc).lower()
    if structured and (param == "response_format" or any(w in message for w in ("response_format", "json_schema",
                                                                                   "schema", "structured"))):
        return "response_format"
    if n > 1 and (param == "n" or re.search(r"\bn\b", message)):
        return "n"
    if structured:
        return "response_format"
    return "n" if n > 1 else ""


def choice_text(choice: Any) -> str:
    """A choice's text; a refusal (``message.refusal`` of structured output) as the model's words."""
    message = getattr(choice, "message", None)
    if message is None:
        return ""
    content = getattr(message, "content", None)
    refusal = getattr(message, "refusal", None)
    return content if content else (str(refusal) if refusal else "")


def short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    cause = exc.__cause__ or exc.__context__
    if cause is not None and str(cause) and str(cause) not in text:
        text = f"{text.rstrip('.')}: {cause}"
    return text[:200]


def server_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return str(msg)[:200]
    return str(getattr(exc, "message", "") or "")[:200]


def retry_after(exc: Any) -> float | None:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    if headers is None:
        return None
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is not None:
            try:
                return float(value) / divisor
            except ValueError:
                return None
    return None


def preview(texts: Sequence[str]) -> str:
    joined = " | ".join(repr(t[:80]) for t in texts[:3])
    return joined or "(empty)"


def cut_at_stop(text: str, stop: list[str] | str | None) -> str:
    """``text`` up to its first stop sequence: a server may ignore ``stop`` (``transformers serve``
    under continuous batching keeps the first request's for its lifetime), and an answer that runs on
    into the prompt's next example must not be read as part of this one."""
    if not stop:
        return text
    cuts = [text.find(s) for s in ([stop] if isinstance(stop, str) else stop) if s]
    cuts = [c for c in cuts if c >= 0]
    return text[:min(cuts)] if cuts else text
