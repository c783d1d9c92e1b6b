"""The import graph of llm_planner (scripts/import_graph.py), by package and by folder, with the
loads by name followed, has no cycle: each method, each world, the offline backend and the
language-model layer stay in their layers."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_graph.py"


def _graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_import_cycle_between_packages_or_folders():
    graph_module = _graph_module()
    graph = graph_module.edges()
    assert graph["methods.stalm"] and "llm.offline" in graph  # the nodes the layering is about exist
    assert graph_module.all_cycles(graph) == {}


def test_the_checker_sees_folder_cycles_and_loads_by_name(tmp_path, monkeypatch):
    graph_module = _graph_module()
    # a folder cycle no package cycle shows: a.x -> b, b -> a (a.x is below a, so a -> a.x is no edge)
    graph = {"a.x": {"b"}, "b": {"a"}}
    assert graph_module.cycles(graph) == []
    assert graph_module.all_cycles(graph) == {"folders at depth 1": [("a", "b"), ("b", "a")]}
    # a load by name is an edge, a docstring or a process started with -m is not
    root = tmp_path / "llm_planner"
    for package in ("", "low", "high"):
        (root / package).mkdir(exist_ok=True)
        (root / package / "__init__.py").write_text("")
    (root / "low" / "loader.py").write_text(
        '"""llm_planner.high"""\nimport importlib\nimportlib.import_module("llm_planner.high")\n'
        'CMD = ["python", "-m", "llm_planner.high"]\n')
    (root / "high" / "user.py").write_text("from llm_planner.low import loader\n")
    monkeypatch.setattr(graph_module, "ROOT", root)
    uses = graph_module.uses()
    assert [(u.how, u.line) for u in uses[("low", "high")]] == [("by name", 3)]
    assert graph_module.all_cycles()["packages"] == [("high", "low"), ("low", "high")]


def test_the_language_model_layer_knows_no_method_and_no_backend_by_import():
    graph = _graph_module().edges()
    llm = [node for node in graph if node == "llm" or node.startswith("llm.")]
    assert "llm.offline" in llm
    for node in llm:  # not by import, not by name (importlib), from any folder of the layer
        assert not {d for d in graph[node] if d == "methods" or d.startswith("methods.")}, node
    assert not {d for d in graph["llm"] if d.startswith("methods.")}
    assert not {d for d in graph["viz"] if d.startswith("methods.")}
    assert not {d for d in graph["planners"] if d == "methods" or d.startswith("methods.")}  # config/methods.yaml names them


def test_worlds_know_no_method_and_nothing_below_imports_the_adapters():
    graph = _graph_module().edges()
    worlds = [node for node in graph if node == "domains" or node.startswith("domains.")]
    assert "domains.household.sim" in worlds and "domains.gtamp" in worlds
    for node in worlds:
        assert not {d for d in graph[node] if d.startswith(("methods", "adapters", "viz", "execution"))}, node
    for node in graph:
        if node.startswith(("methods", "domains", "llm", "viz", "planners")):
            assert "adapters" not in graph[node], node
