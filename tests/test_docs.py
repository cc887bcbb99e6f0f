"""The docs stay true: the component reference is generated, every Python snippet runs as a
reader pastes it, links hold.

Snippets: every fenced ``python`` block of ``docs/*.md`` and ``README.md`` is run, one test per
file, the blocks of a file in order in one namespace (a reader pastes them one after the other
into one script, ``__name__ == "__main__"``), in a temporary folder, with only the installed
package importable: ``examples/``, ``benchmarks/``, ``tools/`` and the repository root are taken
off ``sys.path`` and the modules loaded from them out of ``sys.modules`` for the run (some tests
put ``examples/`` on ``sys.path``, which would otherwise let a snippet import an example module
that a reader's interpreter does not find). So a snippet defines the models it uses, or takes
them from the installed package (``acausal.components.multibody.examples``); it never imports an
example script: docs/fmu_export.md and docs/c_code.md define the oscillator and the piston
engine of ``examples/`` inline, the README's optimal control block its cart-pole.

A block that is not meant to run says so, with the reason, in its fence line
(````` ```python no-test: needs a display `````) or in an HTML comment on the line before it
(``<!-- no-test: needs a display -->``); a mark without a reason fails, and so does a fence that
names no language (a Python block without ``python`` would silently escape the test). A block
that needs an optional extra that is not installed (matplotlib, FMPy, pandas, Dask) or a C
compiler that is missing is skipped, naming what is missing.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: every markdown file whose snippets must run: the docs and the README
MARKDOWN = sorted(DOCS.glob("*.md")) + [ROOT / "README.md"]
#: info-string languages that are Python
PYTHON = {"python", "py", "python3"}
#: top-level modules of the optional extras (pyproject.toml): a block importing one of them is
#: skipped when it is not installed
OPTIONAL = {"matplotlib": "plot", "fmpy": "fmu", "pandas": "pandas", "dask": "dask",
            "distributed": "dask", "playwright": "test"}
#: folders of the repository that a reader's interpreter does not have on its path
NOT_INSTALLED = [ROOT / "examples", ROOT / "benchmarks", ROOT / "tools", ROOT / "tests"]

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_COMMENT_MARK = re.compile(r"^\s*<!--\s*no-test\b(?P<reason>.*?)-->\s*$")
_INFO_MARK = re.compile(r"\bno-test\b(?P<reason>.*)$")


@dataclass(frozen=True)
class Block:
    """A fenced code block of a markdown file."""

    line: int  #: 1-based line of the opening fence
    language: str  #: first word of the info string, lower case ('' when none)
    code: str  #: the lines between the fences, indentation of the fence removed
    no_test: str | None  #: the reason of a no-test mark ('' for a bare mark), None if unmarked


def _reason(text: str) -> str:
    """The reason after ``no-test``: separators (``:``, ``-``) and blanks stripped."""
    return text.strip().lstrip(":-–— ").strip()


def fenced_blocks(text: str) -> tuple[list[Block], list[str]]:
    """The fenced code blocks of markdown ``text``, and the problems found on the way (a fence
    never closed, a no-test mark not followed by a fence), each as ``"line N: ..."``."""
    lines = text.splitlines()
    blocks: list[Block] = []
    problems: list[str] = []
    mark: tuple[int, str] | None = None  # a no-test comment waiting for its fence
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            comment = _COMMENT_MARK.match(lines[i])
            if comment is not None:
                if mark is not None:
                    problems.append(f"line {mark[0]}: a no-test mark not followed by a fence")
                mark = (i + 1, _reason(comment["reason"]))
            elif lines[i].strip() and mark is not None:
                problems.append(f"line {mark[0]}: a no-test mark not followed by a fence")
                mark = None
            i += 1
            continue
        fence, indent, info = opening["fence"], len(opening["indent"]), opening["info"].strip()
        closing = re.compile(rf"^ *{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        end = i + 1
        while end < len(lines) and not closing.match(lines[end]):
            end += 1
        if end == len(lines):
            problems.append(f"line {i + 1}: a fence that is never closed")
        body = [line[indent:] if line[:indent].strip() == "" else line.lstrip()
                for line in lines[i + 1:end]]
        in_info = _INFO_MARK.search(info)
        no_test = _reason(in_info["reason"]) if in_info else (mark[1] if mark else None)
        language = info.split()[0].lower() if info else ""
        blocks.append(Block(i + 1, language, "\n".join(body) + "\n", no_test))
        mark = None
        i = end + 1
    if mark is not None:
        problems.append(f"line {mark[0]}: a no-test mark not followed by a fence")
    return blocks, problems


def _python_blocks(path: Path) -> list[Block]:
    return [b for b in fenced_blocks(path.read_text(encoding="utf-8"))[0] if b.language in PYTHON]


def _label(path: Path) -> str:
    return str(path.relative_to(ROOT))


# --- the component reference ------------------------------------------------------------------


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


# --- the fences and their marks ----------------------------------------------------------------


def test_fence_parser_reads_languages_and_marks():
    text = "\n".join([
        "Text.", "", "```python", "a = 1", "```", "",
        "<!-- no-test: needs a display -->", "", "```python", "show()", "```",
        "````py no-test: talks to a cluster", "```", "nested", "```", "````",
        "<!-- no-test -->", "```python", "bare()", "```",
        "- a list item:", "", "  ```python", "  if a:", "      b = 2", "  ```",
        "```", "no language", "```",
        "<!-- no-test: about nothing -->", "Prose in between.", "",
        "```text", "never closed"])
    blocks, problems = fenced_blocks(text)
    assert [(b.line, b.language, b.no_test) for b in blocks] == [
        (3, "python", None), (9, "python", "needs a display"), (12, "py", "talks to a cluster"),
        (18, "python", ""), (23, "python", None), (27, "", None), (33, "text", None)]
    assert blocks[2].code == "```\nnested\n```\n"
    assert blocks[4].code == "if a:\n    b = 2\n"
    assert problems == ["line 30: a no-test mark not followed by a fence",
                        "line 33: a fence that is never closed"]


def test_fences_name_their_language_and_marks_give_a_reason():
    """Every fence of the docs and the README names its language (``text`` for a diagram or an
    output), every no-test mark of a Python block says why the block cannot run, and no mark
    or fence is left dangling."""
    problems = []
    for path in MARKDOWN:
        blocks, found = fenced_blocks(path.read_text(encoding="utf-8"))
        problems += [f"{_label(path)}: {p}" for p in found]
        for block in blocks:
            where = f"{_label(path)}:{block.line}"
            if not block.language:
                problems.append(f"{where}: a fence without a language (```python, ```text, "
                                "```bash, ...)")
            elif block.language in PYTHON and block.no_test == "":
                problems.append(f"{where}: a no-test mark without its reason (write "
                                "<!-- no-test: why this block cannot run -->)")
    assert not problems, "\n".join(problems)


# --- the snippets run --------------------------------------------------------------------------


def _not_installed(entry: str) -> bool:
    """Whether a sys.path entry is the repository root or inside a folder that is not part of
    the installed package ('' is the current folder)."""
    try:
        path = Path(entry or ".").resolve()
    except OSError:
        return False
    return path == ROOT or any(path == f or f in path.parents for f in NOT_INSTALLED)


def _only_the_installed_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """sys.path and sys.modules as a reader's interpreter has them: nothing from examples/,
    benchmarks/, tools/ or tests/ (restored by monkeypatch after the test)."""
    monkeypatch.setattr(sys, "path", [p for p in sys.path if not _not_installed(p)])
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and any(f in Path(file).resolve().parents
                        for f in NOT_INSTALLED if f != ROOT / "tests"):
            monkeypatch.delitem(sys.modules, name)


def _missing_extra(error: ModuleNotFoundError) -> str | None:
    """The extra whose missing module raised ``error``, None for any other module (a snippet
    importing an example module, say, must fail, not be skipped)."""
    top = (error.name or "").split(".")[0]
    if top in OPTIONAL and importlib.util.find_spec(top) is None:
        return OPTIONAL[top]
    return None


def _runnable(path: Path) -> list[Block]:
    return [b for b in _python_blocks(path) if b.no_test is None]


@pytest.mark.parametrize("path", [p for p in MARKDOWN if _runnable(p)], ids=_label)
def test_python_snippets_run(path, monkeypatch, tmp_path):
    from acausal.base.c_compiler import CompilerNotFoundError

    if importlib.util.find_spec("matplotlib") is not None:
        import matplotlib

        matplotlib.use("Agg")  # plt.show() of a snippet draws into nothing
    _only_the_installed_package(monkeypatch)
    monkeypatch.chdir(tmp_path)  # files a snippet writes go here
    namespace: dict = {"__name__": "__main__"}
    try:
        for block in _runnable(path):
            # padded so that a traceback names the markdown file and the line in it
            code = "\n" * block.line + block.code
            try:
                exec(compile(code, str(path), "exec"), namespace)
            except ModuleNotFoundError as error:
                extra = _missing_extra(error)
                if extra is None:
                    raise
                pytest.skip(f"{_label(path)}:{block.line} needs {error.name} "
                            f"(pip install -e '.[{extra}]')")
            except CompilerNotFoundError as error:
                pytest.skip(f"{_label(path)}:{block.line} needs a C compiler: {error}")
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")


# --- links ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", MARKDOWN, ids=_label)
def test_relative_links_exist(path):
    text = path.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        assert (path.parent / target).exists(), f"{_label(path)} links to missing {target}"
