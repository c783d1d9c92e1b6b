#!/usr/bin/env python3
"""The import graph of ``llm_planner``, by package and by folder, and its cycles (there must be none).

A node of the *package graph* is a package, at every depth (``llm``, ``llm.offline``,
``methods.llm_mcts``, ``domains.household.sim`` ...), standing for the modules directly in it; a
module directly under ``llm_planner/`` (``execution``, ``service`` ...) is a node of its own. The
*folder graphs* collapse it to the first ``d`` parts of every name, for each depth ``d``: at depth 1
``llm.offline -> methods.stalm`` and ``methods.stalm -> llm`` are the folder cycle ``llm <-> methods``
that the package graph alone does not see. In every graph a package's import of its own ancestor
(``domains.gtamp`` using ``domains.shapes``) is not an edge: a subpackage builds on its parent.

An edge is every ``import`` (at module level or inside a function, except under ``if TYPE_CHECKING:``,
annotations only, never run) and every load *by name*: a string constant in the code (not a
docstring) that is exactly the dotted name of a module or package of ``llm_planner``, as
``importlib.import_module("llm_planner.llm.offline.backend")`` or a table of such names
(``BACKEND_CLASSES``, ``DOMAINS``) loads it. A module started as another process
(``[sys.executable, "-m", "llm_planner.cli", ...]``) is not an edge: it is not loaded here. Modules
named in configuration (``config/methods.yaml``, loaded by :mod:`llm_planner.plugins`) are plugins
of the layers that load them, not edges of the code.

    python3 scripts/import_graph.py          # edges, then one CYCLE line per cycle; exit 1 if any
"""
from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1] / "llm_planner"
_DOTTED = re.compile(r"llm_planner(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


class Use(NamedTuple):
    """Where one module uses another: the file, the line and how (``import`` or ``by name``)."""

    path: str
    line: int
    how: str
    target: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.how} {self.target}"


def node_of(module: str) -> str:
    """The graph node of a dotted module name inside llm_planner: its deepest package, or the
    module itself when it sits directly under llm_planner."""
    parts = module.split(".")[1:]
    package: list[str] = []
    for part in parts:
        if not (ROOT.joinpath(*package, part) / "__init__.py").is_file():
            break
        package.append(part)
    if package:
        return ".".join(package)
    return parts[0] if parts else "(top)"


def is_module(dotted: str) -> bool:
    """Whether ``llm_planner.a.b`` names a module or package of the tree."""
    path = ROOT.joinpath(*dotted.split(".")[1:])
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _is_ancestor(package: str, of: str) -> bool:
    return of.startswith(package + ".")


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _docstrings(tree: ast.AST) -> set[int]:
    """The string constants that are docstrings (or other bare string statements)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def _process_entries(tree: ast.AST) -> set[int]:
    """The module names started as another process (``[python, "-m", "llm_planner.cli", ...]``):
    a process boundary, not a load into this process."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            for before, item in zip(node.elts, node.elts[1:]):
                if isinstance(before, ast.Constant) and before.value == "-m":
                    out.add(id(item))
    return out


def uses() -> dict[tuple[str, str], list[Use]]:
    """(source node, target node) -> the uses that make the edge, for every edge of the package graph."""
    found: dict[tuple[str, str], list[Use]] = defaultdict(list)
    for path in sorted(ROOT.rglob("*.py")):
        module = ".".join(("llm_planner", *path.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
        src = node_of(module)
        tree = ast.parse(path.read_text())
        skip = _type_checking_nodes(tree) | _docstrings(tree) | _process_entries(tree)
        rel = str(path.relative_to(ROOT.parent))
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[tuple[str, str]] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("llm_planner"):
                targets = [(f"{node.module}.{a.name}", "import") for a in node.names]  # a name may be a subpackage
            elif isinstance(node, ast.Import):
                targets = [(a.name, "import") for a in node.names if a.name.startswith("llm_planner.")]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.fullmatch(node.value) \
                    and is_module(node.value):
                targets = [(node.value, "by name")]
            for target, how in targets:
                dst = node_of(target)
                if dst != src and not _is_ancestor(dst, src):
                    found[(src, dst)].append(Use(rel, getattr(node, "lineno", 0), how, target))
    return found


def edges() -> dict[str, set[str]]:
    """The package graph: node -> the nodes it imports (by import or by name)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst in uses():
        graph[src].add(dst)
    return graph


def folder(node: str, depth: int) -> str:
    """The folder of a node at ``depth`` (its first ``depth`` dotted parts)."""
    return ".".join(node.split(".")[:depth])


def folder_graph(graph: dict[str, set[str]], depth: int) -> dict[str, set[str]]:
    """The graph of the folders at ``depth``: an edge between two folders for every package edge
    between them (a folder's import of its own ancestor is not an edge)."""
    out: dict[str, set[str]] = defaultdict(set)
    for src, dsts in graph.items():
        for dst in dsts:
            a, b = folder(src, depth), folder(dst, depth)
            if a != b and not _is_ancestor(b, a):
                out[a].add(b)
    return out


def cycles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Pairs (a, b) with an edge a -> b and a path back from b to a."""
    def reach(start: str) -> set[str]:
        seen, stack = set(), [start]
        while stack:
            for nxt in graph.get(stack.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return seen

    return sorted((a, b) for a in graph for b in graph[a] if a in reach(b))


def all_cycles(graph: dict[str, set[str]] | None = None) -> dict[str, list[tuple[str, str]]]:
    """The edges on cycles of the package graph (``"packages"``) and of every folder graph
    (``"folders at depth d"``); only graphs with cycles are listed."""
    graph = edges() if graph is None else graph
    deepest = max((len(n.split(".")) for n in graph), default=1)
    found = {"packages": cycles(graph)}
    for depth in range(1, deepest):
        found[f"folders at depth {depth}"] = cycles(folder_graph(graph, depth))
    return {name: pairs for name, pairs in found.items() if pairs}


def main() -> int:
    used = uses()
    graph = edges()
    for src in sorted(graph):
        print(src, "->", sorted(graph[src]))
    found = all_cycles(graph)
    for name, pairs in found.items():
        for a, b in pairs:
            witnesses = [u for (s, d), us in used.items() for u in us
                         if folder(s, len(a.split("."))) == a and folder(d, len(b.split("."))) == b]
            print(f"CYCLE ({name}) {a} -> {b}: " + "; ".join(str(u) for u in witnesses[:3]))
    total = sum(map(len, found.values()))
    print(f"{len(graph)} nodes, {sum(map(len, graph.values()))} edges, {total} edges on cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
