#!/usr/bin/env python3
"""The import graph between the packages of ``llm_planner`` and its cycles (there must be none).

A node is a package, at every depth (``llm``, ``llm.offline``, ``methods.llm_mcts``,
``domains.household.sim`` ...), standing for the modules directly in it; a module directly under
``llm_planner/`` (``execution``, ``service`` ...) is a node of its own. A package's import of its
own ancestor (``domains.gtamp`` using ``domains.shapes``) is not an edge: a subpackage builds on
its parent. Every ``import`` counts, at module level or inside a function, except those under
``if TYPE_CHECKING:`` (annotations only, never run).

    python3 scripts/import_graph.py          # edges, then one CYCLE line per cycle; exit 1 if any
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "llm_planner"


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


def _is_ancestor(package: str, of: str) -> bool:
    return of.startswith(package + ".")


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def edges() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in ROOT.rglob("*.py"):
        module = ".".join(("llm_planner", *path.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
        src = node_of(module)
        tree = ast.parse(path.read_text())
        skip = _type_checking_nodes(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("llm_planner"):
                targets = [f"{node.module}.{a.name}" for a in node.names]  # a name may be a subpackage
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("llm_planner.")]
            for target in targets:
                dst = node_of(target)
                if dst != src and not _is_ancestor(dst, src):
                    graph[src].add(dst)
    return graph


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


def main() -> int:
    graph = edges()
    for src in sorted(graph):
        print(src, "->", sorted(graph[src]))
    found = cycles(graph)
    for a, b in found:
        print("CYCLE", a, "->", b)
    print(f"{len(graph)} nodes, {sum(map(len, graph.values()))} edges, {len(found)} edges on cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
