"""docs/fmu_export.md and docs/c_code.md stay true: their Python snippets run (in a temporary
folder), the file list shown is the one written, links hold."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def _python_blocks(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    return [(text.count("\n", 0, m.start()) + 1, m.group(1))
            for m in re.finditer(r"```python\n(.*?)```", text, re.S)]


@pytest.mark.parametrize("name", ["fmu_export.md", "c_code.md"])
def test_python_snippets_run(name, c_compiler, monkeypatch, tmp_path, capsys):
    if name == "fmu_export.md":
        pytest.importorskip("fmpy", reason="FMPy is not installed: the FMU snippets need it")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CC", c_compiler)
    namespace: dict = {"__name__": f"docs_{name.split('.')[0]}"}
    blocks = _python_blocks(DOCS / name)
    assert blocks
    for line, code in blocks:
        exec(compile(code, f"{name}:{line}", "exec"), namespace)
    printed = capsys.readouterr().out
    if name == "c_code.md":
        shown = re.search(r"```(?:text)?\n(\['README\.md'.*?\])\n```", (DOCS / name).read_text())
        assert shown is not None and shown.group(1) in printed
    else:
        assert float(printed.split()[-1]) < 1e-6  # FMPy against acausal, relative to range


@pytest.mark.parametrize("name", ["fmu_export.md", "c_code.md"])
def test_relative_links_exist(name):
    text = (DOCS / name).read_text()
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (DOCS / target).exists(), f"{name} links to missing {target}"
