"""The documentation outside the site: README.md and CONTRIBUTING.md link only to files that exist
(mkdocs build --strict checks the links inside docs/), and the API reference's docstring rewrite
(scripts/docs_rst.py) turns reStructuredText roles, literal blocks and simple tables into Markdown."""
from __future__ import annotations

import importlib.util
import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "docs_rst.py"


def test_the_readme_and_contributing_link_to_files_that_exist() -> None:
    for name in ("README.md", "CONTRIBUTING.md"):
        text = (ROOT / name).read_text()
        targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        assert name != "README.md" or len(targets) > 20, targets  # the README links to the site's pages
        missing = [t for t in targets if "://" not in t and not (ROOT / t).exists()]
        assert not missing, f"{name} links to files that do not exist: {missing}"


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
