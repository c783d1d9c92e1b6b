"""A griffe extension for the API reference (mkdocs.yml): the docstrings of llm_planner use a few
reStructuredText forms that Markdown shows raw. It rewrites, in the docstring text only:

- roles (:class:`~a.b.C`, :func:`f`, :mod:`m`, ...) to code spans (`C`, `f`, `m`);
- a paragraph's closing ``::`` before a literal block to ``:`` (the indented block stays code);
- simple tables (rows between lines of ``===``) to fenced text blocks, so their columns line up.
"""
from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const|ref):`(~?)([^`]+)`")
TABLE_RULE = re.compile(r"^\s*=+( +=+)+\s*$")


def _role(match: re.Match[str]) -> str:
    target = match.group(2)
    return f"`{target.rsplit('.', 1)[-1] if match.group(1) else target}`"


def _tables(text: str) -> str:
    out: list[str] = []
    rules = 0
    for line in text.splitlines():
        if TABLE_RULE.match(line):
            if rules == 0:
                out.append("```text")
            rules += 1
            out.append(line)
            if rules == 3:
                out.append("```")
                rules = 0
            continue
        out.append(line)
    if rules or len(out) == len(text.splitlines()):  # no table, or not a simple one: unchanged
        return text
    return "\n".join(out) + ("\n" if text.endswith("\n") else "")


def rewrite(text: str) -> str:
    """The docstring ``text`` with the reStructuredText forms above made Markdown."""
    text = ROLE.sub(_role, text)
    text = re.sub(r"(?m)(\S)::$", r"\1:", text)
    text = re.sub(r"(?m)^::$", "", text)
    return _tables(text)


class RstToMarkdown(griffe.Extension):
    """Rewrites every docstring of the loaded objects (see the module docstring)."""

    def on_object(self, *, obj: griffe.Object, loader: griffe.GriffeLoader, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
