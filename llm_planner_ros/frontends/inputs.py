"""The front ends' check of what a person or an assistant sends before it reaches the graph: the
one of :mod:`llm_planner.inputs`, which the planning service applies to every directive too."""
from __future__ import annotations

from llm_planner.inputs import NOT_TEXT, WHITESPACE, BadInput, plain_text

__all__ = ["NOT_TEXT", "WHITESPACE", "BadInput", "plain_text"]
