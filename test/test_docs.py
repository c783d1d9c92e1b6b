"""The documentation's references to the repository: README.md and CONTRIBUTING.md link only to
files that exist (mkdocs build --strict checks the links inside docs/), every backticked repository
path on the site (docs/, README.md, CONTRIBUTING.md) names a file or folder that exists, and the API
reference's docstring rewrite (scripts/docs_rst.py) turns reStructuredText roles, literal blocks and
simple tables into Markdown."""
from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "docs_rst.py"
SITE_PAGES = (*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md")
# Folders a run writes (ignored by git, absent from a fresh clone): a page may name what lands there.
GENERATED = ("runs/", "site/", "build/", "install/", "log/", "data/generated/", ".cache/")
# The import packages: a page may name a module from its package's folder (`llm/waits.py` for
# llm_planner/llm/waits.py) once the sentence has said which package it is in.
PACKAGES = ("llm_planner", "llm_planner_ros", "llm_planner_eval")
# Files the guides ask the reader to write or that a tool outside the repository owns; a page names
# them by their bare name and they are not in the repository.
READERS_FILES = frozenset({
    "my_robot.py",                  # guides/robot.md: the reader's own robot node
    "report.md",                    # the report a demo or a task writes into its runs/ folder
    "served.yaml", "smol.yaml", "smol_nocache.yaml",  # client configurations `llm-planner serve` writes
    "policy.xml",                   # guides/security.md: the reader's SROS 2 policy
    "claude_desktop_config.json",   # the MCP client's own settings file
    "generation_config.json",       # part of a Hugging Face model folder
})
PATH_SUFFIXES = (".py", ".yaml", ".yml", ".md", ".json", ".xml", ".sh", ".txt", ".cfg", ".toml", ".ini",
                 ".msg", ".srv", ".action")
_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1", re.S | re.M)


def _top_folders(root: Path) -> tuple[str, ...]:
    return tuple(sorted(p.name + "/" for p in root.iterdir()
                        if p.is_dir() and not p.name.startswith(".") and p.name + "/" not in GENERATED))


def _file_names(root: Path) -> set[str]:
    """The names of the repository's files and folders, hidden and generated folders left out."""
    names = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [name for name in subfolders if not name.startswith((".", "__"))
                         and (folder != str(root) or name + "/" not in GENERATED)]
        names.update(subfolders, files)
    return names


def _repository_paths(text: str, top_folders: tuple[str, ...]) -> list[str]:
    """The words of the text's code spans (outside fenced blocks) that name a repository path: those
    under a top-level folder and those with a file suffix, without a `:line` or `::test` tail, an
    `OPTION=` head, surrounding punctuation, or a placeholder in capitals (`runs/FILE.json`)."""
    words = []
    for span in _CODE_SPAN.finditer(_FENCE.sub("", text)):
        for word in span.group(2).split():
            word = word.strip("\"'(),;[]")
            word = word.split("=", 1)[-1].split("::")[0]
            word = re.sub(r":[\d,-]+$", "", word)
            if not word or "://" in word or word.startswith(("/", "~", "$", "-", ".")):
                continue
            stem = Path(word).name.split(".")[0]
            if stem.isupper() or any(part.isupper() for part in word.split("/")):
                continue  # a placeholder (FILE, PATH, A.json), not a file
            if word.startswith(top_folders) or word.endswith(PATH_SUFFIXES):
                words.append(word)
    return words


def stale_paths(text: str, root: Path = ROOT) -> list[str]:
    """The repository paths named in the text's code spans that exist nowhere in the repository: not
    from its root, not from one of its import packages, not as a glob that matches, and not a bare
    file name of the repository or of the reader's own files; a folder a run writes is not checked."""
    bare_names = _file_names(root)
    stale = []
    for word in _repository_paths(text, _top_folders(root)):
        if word.startswith(GENERATED):
            continue
        if "/" not in word.rstrip("/"):
            if word.rstrip("/") not in bare_names and word not in READERS_FILES:
                stale.append(word)
            continue
        bases = (root, *(root / package for package in PACKAGES))
        if not any((base / word).exists() or ("*" in word and any(base.glob(word))) for base in bases):
            stale.append(word)
    return stale


def test_every_backticked_repository_path_on_the_site_exists() -> None:
    stale = {str(page.relative_to(ROOT)): stale_paths(page.read_text()) for page in SITE_PAGES}
    assert sum(len(_repository_paths(page.read_text(), _top_folders(ROOT))) for page in SITE_PAGES) > 150
    assert {page: paths for page, paths in stale.items() if paths} == {}


def test_the_path_check_finds_a_stale_path_and_passes_what_exists(tmp_path: Path) -> None:
    (tmp_path / "llm_planner" / "llm").mkdir(parents=True)
    (tmp_path / "llm_planner" / "llm" / "waits.py").write_text("")
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "llm.yaml").write_text("")
    text = """The waits live in `llm_planner/llm/waits.py` (`llm/waits.py:12`), read from
`config/llm.yaml` and `config/*.yaml` with `llm-planner bench household --json runs/h.json`;
see ``llm_planner/ros/conversions.py`` and `my_robot.py`, `gone.yaml`, `config/FILE.yaml`.

```
llm_planner/bench/error_rates.py is inside a fenced block
```
"""
    assert stale_paths(text, tmp_path) == ["llm_planner/ros/conversions.py", "gone.yaml"]


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
