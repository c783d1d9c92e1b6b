"""Exceptions of the llm_planner core.

Every error a user can cause carries a message that says what was wrong and how to fix it.
"""
from __future__ import annotations


class LlmPlannerError(Exception):
    """Base class of every error the core raises on purpose."""


class SceneError(LlmPlannerError):
    """A scene file is malformed; the message names the file and the entry. ``problems`` holds one
    line per problem when several were found at once."""

    def __init__(self, message: str = "", problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class ConfigError(LlmPlannerError):
    """A configuration value is invalid; the message names the parameter."""


class GoalError(LlmPlannerError):
    """A directive or goal cannot be understood or grounded in the scene."""


class DirectiveRefused(GoalError):
    """A directive refused for what its words say, not for how they are phrased: a count that is no
    positive whole number, a negation or reversal, a self-correction that cannot be followed, one
    object in two places. Every path (/plan_task, execute_directive, the directive topic, bench
    translate, the check of a model's goal) refuses it with this message, and no model is asked."""


class PlanningError(LlmPlannerError):
    """A planner failed to produce a plan; the message says why."""


class DecisionCanceled(LlmPlannerError):
    """The closed loop's stop request (a cancel) ended a decision under way. A planner's ``decide``
    raises it when :attr:`~llm_planner.planners.base.Planner.should_stop` says so; the loop ends the
    episode canceled."""


class LLMError(LlmPlannerError):
    """A language-model backend failed after its retries, or returned unusable output."""


class ModelServerError(LLMError):
    """A model server (the openai backend's ``base_url``) did not answer usably: unreachable, too slow,
    an HTTP error, or answers that parse to nothing. The message names the server and the setting
    to change; nothing is wrong with the planner's own data."""


class UnusableAnswer(ModelServerError):
    """The model answered, but its text parses to nothing usable (asked again, then raised)."""
