"""The API reference's docstring rewrite (scripts/docs_rst.py): reStructuredText roles, literal
blocks and simple tables become Markdown; other text is left as it is."""
from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "docs_rst.py"


def _rewrite() -> Callable[[str], str]:
    spec = importlib.util.spec_from_file_location("docs_rst", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.rewrite


def test_roles_become_code_spans_and_a_tilde_keeps_the_last_name() -> None:
    rewrite = _rewrite()
    assert rewrite("a :class:`~llm_planner.planners.base.Planner` b") == "a `Planner` b"
    assert rewrite(":func:`llm_planner.execution.run_episode`") == "`llm_planner.execution.run_episode`"
    assert rewrite("``code`` and ratio 2::1 stay") == "``code`` and ratio 2::1 stay"


def test_a_literal_block_keeps_its_indentation_and_loses_the_double_colon() -> None:
    assert _rewrite()("Example::\n\n    x = 1\n") == "Example:\n\n    x = 1\n"


def test_a_simple_table_is_fenced_and_a_lone_rule_is_left_alone() -> None:
    rewrite = _rewrite()
    table = "==  ==\na   b\n==  ==\n1   2\n==  =="
    assert rewrite(table) == "```text\n" + table + "\n```"
    assert rewrite("==  ==\nnot a table") == "==  ==\nnot a table"
