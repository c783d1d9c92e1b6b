"""The import graph between the packages of llm_planner (scripts/import_graph.py) has no cycle:
each method, each world, the offline backend and the language-model layer stay in their layers."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_graph.py"


def _graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_package_import_cycle():
    graph_module = _graph_module()
    graph = graph_module.edges()
    assert graph["methods.stalm"] and "llm.offline" in graph  # the nodes the layering is about exist
    assert graph_module.cycles(graph) == []


def test_the_language_model_layer_knows_no_method_and_no_backend_by_import():
    graph = _graph_module().edges()
    assert not {d for d in graph["llm"] if d.startswith("methods.") or d == "llm.offline"}
    assert not {d for d in graph["viz"] if d.startswith("methods.")}


def test_worlds_know_no_method_and_nothing_below_imports_the_adapters():
    graph = _graph_module().edges()
    worlds = [node for node in graph if node == "domains" or node.startswith("domains.")]
    assert "domains.household.sim" in worlds and "domains.gtamp" in worlds
    for node in worlds:
        assert not {d for d in graph[node] if d.startswith(("methods", "adapters", "viz", "execution"))}, node
    for node in graph:
        if node.startswith(("methods", "domains", "llm", "viz", "planners")):
            assert "adapters" not in graph[node], node
