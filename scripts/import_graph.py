#!/usr/bin/env python3
"""The import graph of the three packages, by file, by package and by folder, and what it must not hold.

The repository ships three import packages, the layers of ``docs/design.md``:

* ``llm_planner`` (core): imports neither ROS (``rclpy``, ``*_msgs``, ``llm_planner_interfaces``,
  ``launch``) nor the two packages below;
* ``llm_planner_ros`` (the ROS layer) and ``llm_planner_eval`` (evaluation): each may import core,
  neither imports the other.

A node of the *file graph* is a module (a package's ``__init__.py`` is the package's module). A node
of the *package graph* is a package at every depth (``llm_planner.llm``,
``llm_planner.methods.stalm`` ...), standing for the modules directly in it. The *folder graphs*
collapse it to the first ``d`` parts of every name, for each depth ``d``; at depth 1 they are the
three layers. In the package and folder graphs a package's import of its own ancestor
(``llm_planner.domains.gtamp`` using ``llm_planner.domains``) is not an edge: a subpackage builds on
its parent; in the file graph every import is an edge.

An edge is every ``import`` (at module level, inside a function, and in the file graph also under
``if TYPE_CHECKING:``, which a reader follows as well; the package and folder graphs leave those out,
as annotations that never run) and every load *by name*: a string constant in the code (not a
docstring) that is exactly the dotted name of a module or package of the three, as
``importlib.import_module("llm_planner.llm.offline.backend")`` or a table of such names loads it. A
module started as another process (``[sys.executable, "-m", "llm_planner.cli", ...]``) is not an
edge. Modules named in configuration (``config/methods.yaml``, loaded by :mod:`llm_planner.plugins`)
and the ``llm_planner.commands`` entry points of ``setup.py`` are plugins of the layer that loads
them, not edges of the code.

The *spine* (:data:`SPINE`: the planner interface, the closed loop, the service, the language-model
layer) imports no domain package, file by file; the files that still do are printed (``SPINE``) and
pinned by ``test/test_import_graph.py``.

    python3 scripts/import_graph.py    # cycles between files, then layer violations; exit 1 if any
"""
from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[1]
CORE = "llm_planner"
ROS = "llm_planner_ros"
EVAL = "llm_planner_eval"
PACKAGES = (CORE, ROS, EVAL)
#: what each layer must not import: the other layers, and for core ROS 2 itself
FORBIDDEN: dict[str, tuple[str, ...]] = {
    CORE: (ROS, EVAL, "rclpy", "launch", "launch_ros", "llm_planner_interfaces", "*_msgs", "*_interfaces"),
    ROS: (EVAL,),
    EVAL: (ROS,),
}
#: The spine (``llm_planner/spine.py``): the code that drives every domain; it must import no domain package
#: (:data:`DOMAIN_PACKAGES`). A domain's own prompts are the domain's (``domains/household/language/prompts.py``).
SPINE = (f"{CORE}.planners", f"{CORE}.llm", f"{CORE}.execution", f"{CORE}.service", f"{CORE}.spine")
DOMAIN_PACKAGES = (f"{CORE}.domains.household", f"{CORE}.domains.gtamp", f"{CORE}.adapters.household",
                   f"{CORE}.adapters.gtamp")
_DOTTED = re.compile(r"llm_planner(?:_ros|_eval)?(?:\.[A-Za-z_][A-Za-z0-9_]*)*")


class Use(NamedTuple):
    """Where one module uses another: the file, the line, how (``import`` or ``by name``) and what."""

    path: str
    line: int
    how: str
    target: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line} {self.how} {self.target}"


def modules(repo: Path | None = None) -> dict[str, Path]:
    """Every module of the three packages: dotted name -> file."""
    repo = repo or REPO
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((repo / package).rglob("*.py")):
            name = ".".join(path.relative_to(repo).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def _module_of(dotted: str, known: dict[str, Path]) -> str | None:
    """The deepest module of ``known`` that ``dotted`` names (``a.b.Name`` -> ``a.b``)."""
    while dotted and dotted not in known:
        dotted = dotted.rpartition(".")[0]
    return dotted or None


def _docstrings(tree: ast.AST) -> set[int]:
    """The string constants that are docstrings (or other bare string statements)."""
    return {id(node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def _process_entries(tree: ast.AST) -> set[int]:
    """The module names started as another process (``[python, "-m", "llm_planner.cli", ...]``)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            for before, item in zip(node.elts, node.elts[1:]):
                if isinstance(before, ast.Constant) and before.value == "-m":
                    out.add(id(item))
    return out


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def _imports(tree: ast.AST, module: str, typing: bool = True) -> list[tuple[str, int, str]]:
    """(imported dotted name, line, how) for every import and load by name in a module's tree
    (``typing``: with the imports under ``if TYPE_CHECKING:``)."""
    skip = _docstrings(tree) | _process_entries(tree) | (set() if typing else _type_checking_nodes(tree))
    out: list[tuple[str, int, str]] = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's own package
                package = module.split(".")[: -node.level] if node.level else []
                base = ".".join([*package, base] if base else package)
            out += [(f"{base}.{a.name}", node.lineno, "import") for a in node.names]  # a name may be a submodule
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno, "import") for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.fullmatch(node.value):
            out.append((node.value, getattr(node, "lineno", 0), "by name"))
    return out


def file_uses(repo: Path | None = None, typing: bool = True) -> dict[tuple[str, str], list[Use]]:
    """(module, imported module) -> the uses that make the edge, for every edge of the file graph
    (``typing``: with the imports under ``if TYPE_CHECKING:``)."""
    repo = repo or REPO
    known = modules(repo)
    found: dict[tuple[str, str], list[Use]] = defaultdict(list)
    for module, path in known.items():
        rel = str(path.relative_to(repo))
        for dotted, line, how in _imports(ast.parse(path.read_text()), module, typing):
            target = _module_of(dotted, known)
            if how == "by name" and dotted not in known:
                continue  # a string that names no module (a logger name, a prefix)
            if target is not None and target != module:
                found[(module, target)].append(Use(rel, line, how, dotted))
    return found


def file_edges(repo: Path | None = None) -> dict[str, set[str]]:
    """The file graph: module -> the modules it imports (by import or by name)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst in file_uses(repo):
        graph[src].add(dst)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The cycles of a graph as its strongly connected components of more than one node, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    nodes = sorted(set(graph) | {d for ds in graph.values() for d in ds})
    for root in nodes:  # iterative Tarjan: deep graphs do not hit the recursion limit
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def file_cycles(repo: Path | None = None) -> list[list[str]]:
    """The circles between files: each a sorted list of the modules that import each other round."""
    return strongly_connected(file_edges(repo))


def _matches(name: str, pattern: str) -> bool:
    top = name.split(".")[0]
    return top.endswith(pattern[1:]) if pattern.startswith("*") else top == pattern


def layer_violations(repo: Path | None = None) -> list[Use]:
    """Every import a layer must not make (:data:`FORBIDDEN`), third-party ones included."""
    repo = repo or REPO
    out: list[Use] = []
    for module, path in modules(repo).items():
        forbidden = FORBIDDEN[module.split(".")[0]]
        rel = str(path.relative_to(repo))
        for dotted, line, how in _imports(ast.parse(path.read_text()), module):
            if any(_matches(dotted, pattern) for pattern in forbidden):
                out.append(Use(rel, line, how, dotted))
    return out


def under(module: str, packages: tuple[str, ...]) -> bool:
    """Whether ``module`` is one of ``packages`` or inside one."""
    return any(module == p or module.startswith(p + ".") for p in packages)


def spine_domain_uses(repo: Path | None = None) -> dict[str, list[Use]]:
    """Every import of a domain package by a file of the spine (any import: in a function, for
    annotations, by name): spine module -> its uses."""
    found: dict[str, list[Use]] = defaultdict(list)
    for (src, dst), uses in file_uses(repo).items():
        if under(src, SPINE) and under(dst, DOMAIN_PACKAGES):
            found[src] += uses
    return dict(found)


# ------------------------------------------------------------------------------ package and folder graphs
def node_of(module: str, known: dict[str, Path]) -> str:
    """The package-graph node of a module: the module itself if it is a package, else its package
    (a module directly under a top package, as ``llm_planner.execution``, is a node of its own)."""
    if known[module].name == "__init__.py" or "." not in module:
        return module
    package = module.rpartition(".")[0]
    return module if "." not in package else package


def _is_ancestor(package: str, of: str) -> bool:
    return of.startswith(package + ".")


def edges(repo: Path | None = None) -> dict[str, set[str]]:
    """The package graph: node -> the nodes it imports (by import or by name; not for annotations only)."""
    known = modules(repo)
    graph: dict[str, set[str]] = defaultdict(set)
    for src, dst in file_uses(repo, typing=False):
        a, b = node_of(src, known), node_of(dst, known)
        if a != b and not _is_ancestor(b, a):
            graph[a].add(b)
    return graph


def folder(node: str, depth: int) -> str:
    """The folder of a node at ``depth`` (its first ``depth`` dotted parts)."""
    return ".".join(node.split(".")[:depth])


def folder_graph(graph: dict[str, set[str]], depth: int) -> dict[str, set[str]]:
    """The graph of the folders at ``depth`` (a folder's import of its own ancestor is not an edge)."""
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
    used = file_uses()
    circles = file_cycles()
    for circle in circles:
        members = set(circle)
        ties = [f"{s} -> {d} ({us[0]})" for (s, d), us in sorted(used.items()) if s in members and d in members]
        print(f"CIRCLE of {len(circle)} files: " + "; ".join(ties))
    for name, pairs in all_cycles().items():
        for a, b in pairs:
            print(f"CYCLE ({name}) {a} -> {b}")
    violations = layer_violations()
    for use in violations:
        print(f"LAYER {use}")
    spine = spine_domain_uses()
    for module, uses in sorted(spine.items()):
        lines = ", ".join(str(n) for n in sorted({u.line for u in uses}))
        print(f"SPINE {uses[0].path} imports a domain package (line {lines})")
    print(f"{len(modules())} modules, {sum(map(len, file_edges().values()))} file edges, {len(circles)} circles, "
          f"{len(violations)} imports across the layers, {len(spine)} spine files importing a domain "
          "(test/test_import_graph.py pins them)")
    return 1 if circles or violations or all_cycles() else 0


if __name__ == "__main__":
    sys.exit(main())
