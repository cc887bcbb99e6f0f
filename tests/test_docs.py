"""The docs stay true: the component reference is generated, guide snippets run, links hold."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _generator():
    spec = importlib.util.spec_from_file_location("gen_component_reference",
                                                  ROOT / "tools" / "gen_component_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_component_reference_is_up_to_date():
    expected = _generator().render()
    current = (DOCS / "component_reference.md").read_text()
    assert current == expected, ("docs/component_reference.md is out of date: run "
                                 "python tools/gen_component_reference.py")


def test_component_reference_covers_components_and_parameters():
    text = (DOCS / "component_reference.md").read_text()
    for heading in ("### Mass", "### Revolute", "### OneDOFSlippingWheelJoint", "### Frame"):
        assert heading in text
    # a parameter row: name, default, unit, kind, description
    assert "| `m` | `1.0` | kg | >= 0 | mass |" in text
    assert "| `use_axis_flange` | `False` |  | structural |" in text


def _python_blocks(path: Path) -> list[tuple[int, str]]:
    """Python code blocks of a markdown file, without those marked <!-- no-test -->."""
    text = path.read_text()
    blocks = []
    for match in re.finditer(r"(<!-- no-test -->\s*\n)?```python\n(.*?)```", text, re.S):
        if match.group(1) is None:
            blocks.append((text.count("\n", 0, match.start()) + 1, match.group(2)))
    return blocks


@pytest.mark.parametrize("name", ["user_guide.md", "tutorial_segway.md", "multibody.md",
                                  "identification.md", "optimal_control.md"])
def test_python_snippets_run(name, monkeypatch, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)  # snippets that write files write them here
    monkeypatch.syspath_prepend(str(ROOT / "examples"))
    namespace: dict = {"__name__": f"docs_{name.split('.')[0]}"}
    blocks = _python_blocks(DOCS / name)
    assert blocks
    for line, code in blocks:
        exec(compile(code, f"{name}:{line}", "exec"), namespace)


@pytest.mark.parametrize("name", ["user_guide.md", "tutorial_segway.md", "multibody.md",
                                  "component_reference.md", "identification.md",
                                  "linearization.md", "fmu_export.md", "c_code.md",
                                  "architecture.md", "compiler.md", "events.md"])
def test_relative_links_exist(name):
    text = (DOCS / name).read_text()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if target.startswith(("http://", "https://")):
            continue
        assert (DOCS / target).exists(), f"{name} links to missing {target}"
