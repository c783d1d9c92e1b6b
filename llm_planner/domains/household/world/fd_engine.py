"""Fast Downward engines for unified-planning that are safe to run concurrently.

up-fast-downward starts Fast Downward's driver in the caller's working directory, and the driver
writes its intermediate ``output.sas`` there: two planners running at once in one directory (the
parallel workers of a benchmark or of ``llm-planner dataset``) overwrite each other's translation
and return plans of the *other* problem. These subclasses put the file into the per-call temporary
directory that unified-planning already creates for the domain, problem and plan files.
Imported only when a plan is needed (unified-planning is a heavy import).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from up_fast_downward import FastDownwardOptimalPDDLPlanner, FastDownwardPDDLPlanner

SATISFICING = "llm-planner-fast-downward"
OPTIMAL = "llm-planner-fast-downward-opt"


class _PrivateSasFile:
    def _base_cmd(self, plan_filename: str) -> list[str]:
        # a mixin: super() is the Fast Downward planner class it is mixed into, unknown to the checker
        cmd = super()._base_cmd(plan_filename)  # type: ignore[misc]
        return cmd + ["--sas-file", str(Path(plan_filename).with_name("output.sas"))]


class IsolatedFastDownward(_PrivateSasFile, FastDownwardPDDLPlanner):
    """lama-first (Fast Downward's satisficing default) with a private ``output.sas``."""


class IsolatedFastDownwardOptimal(_PrivateSasFile, FastDownwardOptimalPDDLPlanner):
    """A* with LM-cut (optimal) with a private ``output.sas``."""


def engine_name(factory: Any, optimal: bool) -> str:
    """Register the engines with a unified-planning factory (once) and return the one to use."""
    if SATISFICING not in factory.engines:
        factory.add_engine(SATISFICING, __name__, "IsolatedFastDownward")
        factory.add_engine(OPTIMAL, __name__, "IsolatedFastDownwardOptimal")
    return OPTIMAL if optimal else SATISFICING
