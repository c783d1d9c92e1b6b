"""What a world returns for one skill (the closed loop of :mod:`llm_planner.execution` reads it)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SkillOutcome:
    """Whether the skill did what it was asked; ``reason`` says why not."""

    success: bool
    reason: str = ""
