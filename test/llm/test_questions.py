"""The question registry (llm/questions.py): methods register their kinds; the layer answers them
on any backend, and says what is missing when one is not there; the served stand-in keeps its own
registry of the kinds it answers (llm_planner_eval/stand_in/kinds.py)."""
from __future__ import annotations

import pytest

from llm_planner.errors import LLMError
from llm_planner.llm import questions
from llm_planner.llm.answers import response_format, schema_of
from llm_planner.llm.factory import make_backend
from llm_planner_eval.stand_in.kinds import served_kinds


def test_the_shipped_methods_register_their_kinds_from_configuration():
    questions.load_registered()  # config/methods.yaml: question_modules
    names = {k.name for k in questions.registered()}
    assert {"task_plans", "nl2pddl"} <= names
    served = [k.name for k in served_kinds()]
    assert served[0] == "task_plans" and served.index("translate") < served.index("nl2pddl") < served.index("random")
    assert schema_of("task_plans") == "task_plan" and schema_of("translate") == "formal_goal"
    assert response_format("goal_and_template")["json_schema"]["schema"]["required"] == ["goal", "template"]


def test_an_unknown_kind_or_backend_is_named_with_the_remedy():
    with pytest.raises(LLMError, match="no method registered the question kind 'no_such_kind'.*LLM_PLANNER_METHODS"):
        make_backend(backend="offline").answer("no_such_kind", "?")
    kind = questions.register(questions.QuestionKind("test_offline_only", {"offline": lambda b, q, n, s: (q, n)}))
    assert make_backend(backend="offline").answer(kind.name, "q", n=3) == ("q", 3)
    with pytest.raises(LLMError, match="the openai backend cannot answer 'test_offline_only'.*can: offline"):
        kind.answerer("openai")
