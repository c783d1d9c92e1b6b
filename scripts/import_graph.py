#!/usr/bin/env python3
"""The import graph between the packages of ``llm_planner`` and its cycles (there must be none).

A node is a top-level package or module (``llm``, ``viz``, ``execution`` ...), except that each
member of ``methods`` and ``domains`` (``methods.llm_mcts``, ``methods.classical``,
``domains.household``, ``domains.base`` ...), the offline backend (``llm.offline``) and each
world's node-graph adapter (``domains.X.adapter``, the composition root that ``get_domain`` loads
by name and nothing else imports) are nodes of their own.
Every ``import`` counts, at module level or inside a function, except those under
``if TYPE_CHECKING:`` (annotations only, never run).

    python3 scripts/import_graph.py          # edges, then one CYCLE line per cycle; exit 1 if any
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "llm_planner"
OWN_NODES = ("methods", "domains")  # packages whose members are nodes of their own


def node_of(module: str) -> str:
    """The graph node of a dotted module name inside llm_planner."""
    parts = module.split(".")[1:]
    if not parts:
        return "(top)"
    if parts[0] == "llm":
        return "llm.offline" if len(parts) > 1 and parts[1] == "offline" else "llm"
    if parts[0] in OWN_NODES and len(parts) > 1:
        member = parts[1]
        if (ROOT / parts[0] / member).is_dir():
            if len(parts) > 2 and parts[2] == "adapter":
                return f"{parts[0]}.{member}.adapter"
            return f"{parts[0]}.{member}"
        if (ROOT / parts[0] / f"{member}.py").is_file():
            return f"{parts[0]}.{member}"
    return parts[0]


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
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("llm_planner."):
                targets = [node.module]
                if node.module in ("llm_planner.methods", "llm_planner.domains", "llm_planner.llm"):
                    targets = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names if a.name.startswith("llm_planner.")]
            for target in targets:
                dst = node_of(target)
                if dst != src:
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
