"""What the domain-neutral spine knows of a domain: a task, an observation, an action, a state and
a goal check, as protocols every domain implements (no domain is imported here).

The spine is the code that drives any domain: the planner interface (:mod:`llm_planner.planners.base`),
the closed loop (:mod:`llm_planner.execution`) and the language-model layer's base
(:mod:`llm_planner.llm.base`). It depends on this module, never on a domain package; each domain
gives its own types, which meet these protocols by their shape:

=============  ==============================================  ==========================================
protocol       household (``llm_planner.domains.household``)   G-TAMP (``llm_planner.domains.gtamp``)
=============  ==============================================  ==========================================
:class:`Task`  ``world.episode.Task``                           ``methods.stalm.planner.GTampTask``
Observation    ``world.symbolic.Observation`` (partial)         ``domain.GState`` (perceived)
Action         ``world.symbolic.Action``                        ``domain.ConcreteAction``
State          ``world.symbolic.State``                         ``domain.GState``
GoalCheck      ``world.episode.SymbolicWorld``, ``sim``'s       ``sim.GTampSimWorld``
=============  ==============================================  ==========================================

:class:`EpisodeDomain` is what the closed loop asks the domain it runs in (the adapters of
:mod:`llm_planner.adapters` implement it): how a step is written, which moves the goal does not
call for, and whether returns to a state are counted as a loop.
"""
from __future__ import annotations

from collections.abc import Hashable
from typing import Any, Protocol, runtime_checkable

#: An action a planner decides and a world executes (a household ``Action``, a G-TAMP
#: ``ConcreteAction``): a value of the domain, hashable so plans and trees can key on it.
Action = Hashable
#: What a planner observes after a step (a household partial ``Observation``, a G-TAMP ``GState``).
Observation = Any
#: A state of the world as the loop guard counts it: hashable, compared by value.
State = Hashable
#: A domain's goal (household ``GoalItem`` s, G-TAMP ``GoalAtom`` s): judged by a :class:`GoalCheck`.
Goal = Any


@runtime_checkable
class Task(Protocol):
    """One episode of any domain: the directive it came from, the goal and the step limit (None:
    the planner's own)."""

    @property
    def directive(self) -> str: ...

    @property
    def goal(self) -> Goal: ...

    @property
    def max_steps(self) -> int | None: ...


@runtime_checkable
class GoalCheck(Protocol):
    """Whatever judges a goal: a world on its true state, a robot on what it has perceived."""

    def goal_reached(self, goal: Goal) -> bool: ...


class StepText(Protocol):
    """How the loop writes an action and an observation in plans, feedback and status messages."""

    def format_action(self, action: Any) -> str: ...

    def summarize(self, observation: Any) -> str: ...


class EpisodeDomain(Protocol):
    """What the closed loop asks the domain it runs in (an adapter class or instance)."""

    #: whether the loop guard counts returns to a state (:meth:`World.loop_state`) as a loop
    counts_loops: bool

    def step_text(self, task: Any) -> StepText:
        """How actions and observations of ``task`` are written."""

    def unrelated_move(self, task: Any, action: Any) -> bool:
        """Whether ``action``, done, moved something ``task``'s goal does not name (a grab of an
        object of a type the goal does not name)."""
