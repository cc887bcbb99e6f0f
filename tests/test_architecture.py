"""The layer map of docs/architecture.md, checked: no import circle among the modules of
acausal/, components/ and library/; each layer of acausal/ imports only from itself and the
layers below it; no module over 800 lines; every package folder is installed.

Every ``import`` counts, also inside functions, except under ``if TYPE_CHECKING:``. Importing
``acausal.run.simulate`` runs ``acausal/__init__.py`` first; such implicit parent-package
imports are Python's, not an edge of the graph (otherwise every module would import the top).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: folder -> import name (pyproject.toml maps components/ and library/ into acausal)
FOLDERS = {"acausal": "acausal", "components": "acausal.components", "library": "acausal.library"}
#: the layers of acausal/, bottom first; a module may import its own layer and the ones below.
#: analysis and export stand side by side (neither imports the other).
LAYERS = {"base": 0, "language": 1, "compiler": 2, "run": 3, "analysis": 4, "export": 4,
          "view": 4}
TOP = 5  # acausal/*.py: the public API, the CompiledSystem facade, the command line
MAX_LINES = 800


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in FOLDERS.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            parts = list(path.relative_to(base).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the nodes inside ``if TYPE_CHECKING:`` blocks (their imports do not count)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            test = node.test
            name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
            if name == "TYPE_CHECKING":
                for item in node.body:
                    skip.update(id(n) for n in ast.walk(item))
    return skip


def _known(name: str) -> str | None:
    """The module of ours that ``name`` (a module, or a name inside one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            # ``from pkg import name``: name may be a module of pkg (counts as that module)
            targets = [f"{source}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            known = _known(target)
            if known is not None and known != module:
                out.add(known)
    return out


GRAPH = {module: _imports(module, path) for module, path in MODULES.items()}


def _strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the graph has a few hundred nodes)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    out.append(sorted(component))
    return out


def _layer(module: str) -> int | None:
    """The layer of a module of acausal/ (None for components/ and library/)."""
    parts = module.split(".")
    if parts[1:2] in (["components"], ["library"]):
        return None
    if len(parts) > 1 and parts[1] in LAYERS:
        return LAYERS[parts[1]]
    return TOP


def test_the_graph_sees_the_package():
    assert "acausal.run.simulate" in MODULES and "acausal.components.multibody.joints" in MODULES
    assert "acausal.run.simulate" in GRAPH["acausal.system"]


def test_imports_inside_functions_count_and_type_checking_ones_do_not(tmp_path):
    source = tmp_path / "probe.py"
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ..export.c_code import generate_c\n"
        "def late():\n"
        "    from ..analysis.linearize import linearize\n"
        "    from . import simulate\n")
    assert _imports("acausal.run.probe", source) == {"acausal.analysis.linearize",
                                                     "acausal.run.simulate"}


def test_no_import_circle():
    circles = [c for c in _strongly_connected(GRAPH) if len(c) > 1]
    assert not circles, "modules importing each other in a circle: " + "; ".join(
        " <-> ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert [c for c in _strongly_connected(graph) if len(c) > 1] == [["a", "b", "c"]]


def test_layers_import_only_downwards():
    upward = []
    for module, targets in GRAPH.items():
        layer = _layer(module)
        if layer is None:
            continue
        for target in targets:
            below = _layer(target)
            if below is None:  # the core never imports the component libraries ...
                if layer != TOP:  # ... except the command line (acausal/cli.py) on top
                    upward.append(f"{module} -> {target}")
            elif below > layer or (below == layer == 4 and
                                   module.split(".")[1] != target.split(".")[1]):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports from a layer above (see docs/architecture.md): " + ", ".join(
        sorted(upward))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_module_size(module):
    lines = MODULES[module].read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, (f"{MODULES[module].relative_to(ROOT)} has {lines} lines: cut it "
                                f"along its seams (at most {MAX_LINES})")


def test_every_package_is_installed():
    """pyproject.toml lists the packages by hand (because of the folder mapping): each folder
    with an __init__.py must be there, or a non-editable install leaves it out."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.findall(r'"([\w.]+)"', re.search(r"^packages = \[(.*?)\]", text,
                                                     re.S | re.M).group(1)))
    packages = {m for m, p in MODULES.items() if p.name == "__init__.py"}
    assert packages - listed == set()


def test_the_layer_map_names_every_module():
    """docs/architecture.md's map lists each module (or sub-package) of each layer: a new module
    must be placed on the map by whoever adds it."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = []
    for layer in LAYERS:
        for child in sorted((ROOT / "acausal" / layer).iterdir()):
            name = child.stem if child.suffix == ".py" else child.name
            if name.startswith("__") or (child.is_dir() and not (child / "__init__.py").exists()):
                continue
            if not re.search(rf"\b{name}\b", text):
                missing.append(f"acausal/{layer}/{child.name}")
    assert not missing, "not on the map in docs/architecture.md: " + ", ".join(missing)
