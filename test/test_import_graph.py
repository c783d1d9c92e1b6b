"""The import graph of the three packages (scripts/import_graph.py): no circle between files, no
import across the layers (core imports neither ROS nor evaluation; ROS and evaluation not each
other), and no cycle between packages or folders, with the loads by name followed."""
from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "import_graph.py"


def _graph_module():
    spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_circle_between_files():
    graph_module = _graph_module()
    assert len(graph_module.modules()) > 200 and "llm_planner_ros.nodes.planner_node" in graph_module.modules()
    assert graph_module.file_cycles() == []


def test_no_import_across_the_layers():
    assert [str(use) for use in _graph_module().layer_violations()] == []


def test_no_import_cycle_between_packages_or_folders():
    graph_module = _graph_module()
    graph = graph_module.edges()
    assert graph["llm_planner.methods.stalm"] and "llm_planner.llm.offline" in graph["llm_planner.llm"]  # the nodes exist
    assert graph_module.all_cycles(graph) == {}


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_checker_sees_circles_layers_and_loads_by_name(tmp_path):
    graph_module = _graph_module()
    repo = _tree(tmp_path, {
        "llm_planner/__init__.py": "",
        "llm_planner/low.py": '"""llm_planner.high"""\nimport importlib\nimportlib.import_module("llm_planner.high")\n'
                              'CMD = ["python", "-m", "llm_planner.high"]\n',
        "llm_planner/high.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from llm_planner import low\n",
        "llm_planner/uses_ros.py": "import rclpy\nfrom llm_planner_eval import bench\n",
        "llm_planner_ros/__init__.py": "from llm_planner_eval.bench import x\n",
        "llm_planner_eval/__init__.py": "",
        "llm_planner_eval/bench.py": "from llm_planner.low import CMD\n",
    })
    uses = graph_module.file_uses(repo)
    # a load by name is an edge, a docstring or a process started with -m is not; an annotation-only import is
    assert [(u.how, u.line) for u in uses[("llm_planner.low", "llm_planner.high")]] == [("by name", 3)]
    assert graph_module.file_cycles(repo) == [["llm_planner.high", "llm_planner.low"]]
    assert sorted(u.target for u in graph_module.layer_violations(repo)) == [
        "llm_planner_eval.bench", "llm_planner_eval.bench.x", "rclpy"]
    # a folder cycle no package cycle shows: a.x -> b, b -> a (a.x is below a, so a -> a.x is no edge)
    graph = {"a.x": {"b"}, "b": {"a"}}
    assert graph_module.cycles(graph) == []
    assert graph_module.all_cycles(graph) == {"folders at depth 1": [("a", "b"), ("b", "a")]}


def test_the_language_model_layer_knows_no_method_and_no_backend_by_import():
    graph = _graph_module().edges()
    llm = [node for node in graph if node == "llm_planner.llm" or node.startswith("llm_planner.llm.")]
    assert "llm_planner.llm" in llm and "llm_planner.llm.offline" in graph["llm_planner.llm"]  # loaded by name
    for node in llm:  # not by import, not by name (importlib), from any folder of the layer
        assert not {d for d in graph[node] if d.startswith("llm_planner.methods")}, node
    assert not {d for d in graph["llm_planner.viz"] if d.startswith("llm_planner.methods.")}
    # the directive reader calls no model: it imports neither the language-model layer nor a method
    assert not {d for d in graph["llm_planner.reading"] if d.startswith(("llm_planner.llm", "llm_planner.methods"))}
    assert not {d for d in graph["llm_planner.planners"] if d.startswith("llm_planner.methods")}  # config names them


def test_the_spine_imports_no_domain_package_file_by_file(tmp_path):
    """Every file of the spine, ``execution`` included, by any import (in a function, for annotations, by name)."""
    graph_module = _graph_module()
    spine = {m for m in graph_module.modules() if graph_module.under(m, graph_module.SPINE)}
    assert {"llm_planner.execution", "llm_planner.service", "llm_planner.planners.base", "llm_planner.llm.base",
            "llm_planner.spine"} <= spine
    assert set(graph_module.spine_domain_uses()) == set()  # the language-model layer included, file by file
    # the checker sees an import in a function and one for annotations only, in every file of llm/
    assert graph_module.spine_domain_uses(_tree(tmp_path, {
        "llm_planner/__init__.py": "",
        "llm_planner/execution.py": "def f():\n    from llm_planner.adapters import household\n",
        "llm_planner/planners/base.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                        "    from llm_planner.domains.gtamp import sim\n",
        "llm_planner/llm/prompts.py": "from llm_planner.domains.household import world\n",
        "llm_planner/adapters/household.py": "", "llm_planner/domains/gtamp/sim.py": "",
        "llm_planner/domains/household/world.py": "",
    })).keys() == {"llm_planner.execution", "llm_planner.planners.base", "llm_planner.llm.prompts"}


def test_no_core_file_below_the_adapters_imports_them():
    """File by file, ``execution`` and the other modules directly in the core included."""
    graph_module = _graph_module()
    below = ("llm_planner.methods", "llm_planner.domains", "llm_planner.llm", "llm_planner.viz", "llm_planner.planners",
             "llm_planner.execution", "llm_planner.spine")
    found = [str(use) for (src, dst), uses in graph_module.file_uses().items()
             if graph_module.under(src, below) and graph_module.under(dst, ("llm_planner.adapters",)) for use in uses]
    assert found == []


def test_worlds_know_no_method_and_nothing_below_imports_the_adapters():
    graph = _graph_module().edges()
    worlds = [node for node in graph if node.startswith("llm_planner.domains")]
    assert "llm_planner.domains.household.sim" in worlds and "llm_planner.domains.gtamp" in worlds
    below = ("llm_planner.methods", "llm_planner.adapters", "llm_planner.viz", "llm_planner.execution")
    for node in worlds:
        assert not {d for d in graph[node] if d.startswith(below)}, node
    for node in graph:
        if node.startswith(("llm_planner.methods", "llm_planner.domains", "llm_planner.llm", "llm_planner.viz",
                            "llm_planner.planners")):
            assert "llm_planner.adapters" not in graph[node], node


def test_core_names_no_stand_in_served_or_wrong_answer_code():
    """No module of the core names the stand-in's code (imports are checked above; this reads the text)."""
    root = SCRIPT.parents[1] / "llm_planner"
    named = [str(p.relative_to(root)) for p in root.rglob("*.py")
             if any(word in p.read_text() for word in ("llm_planner_eval", "stand-in", "ServedKind", "wrong_answers"))]
    assert named == []
