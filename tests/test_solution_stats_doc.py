"""``sol.stats`` is documented (issue 40: ``driver`` read ``scikit-sundae`` or ``native`` without
an explanation): the user guide's table and the ``Solution`` docstring name exactly the keys a
run fills in, and the values the runs below give are among those the table lists."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

from acausal import compile
from acausal.components.multibody.examples import Fourbar1
from acausal.run.solution import Solution

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "user_guide.md"


def _table() -> dict[str, str]:
    """The rows of the guide's ``sol.stats`` table: key -> its value column."""
    text = GUIDE.read_text(encoding="utf-8")
    start = text.index("`sol.stats` is a dict")
    rows = {}
    for line in text[start:].splitlines()[3:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1]
    return rows


@pytest.fixture(scope="module")
def oscillator():
    """The README's oscillator (examples/mass_spring_damper.py)."""
    example = runpy.run_path(str(ROOT / "examples" / "mass_spring_damper.py"))
    return compile(example["Oscillator"]())


def test_the_table_and_the_docstring_name_the_keys_a_run_fills_in(oscillator):
    stats = oscillator.simulate(1.0).stats
    table = _table()
    assert set(table) == set(stats)
    for key in stats:
        assert f"``{key}``" in Solution.__doc__, key


def test_documented_values_of_solver_and_driver(oscillator):
    table = _table()
    # jit=False: the default jit="auto" runs on machine code where the cache has it
    ode = oscillator.simulate(1.0, jit=False).stats
    assert (ode["solver"], ode["driver"]) == ("CVODE", "scikit-sundae")
    dae = compile(Fourbar1()).simulate(0.2).stats  # a kinematic loop: a DAE for IDA
    assert dae["solver"] == "IDA" and dae["state_checks"] > 0  # dynamic state selection
    for stats in (ode, dae):
        assert f'`"{stats["solver"]}"`' in table["solver"]
        assert f'`"{stats["driver"]}"`' in table["driver"]
        assert stats["solver_calls"] >= 1 and stats["rhs_evaluations"] > 0
    assert re.search(r'`"native"`', table["driver"])


def test_driver_native_with_jit(oscillator, c_compiler):
    from acausal.run import native_solver

    stats = oscillator.simulate(1.0, jit=True).stats
    library, why = native_solver.driver()
    # "native" where the compiled driver can be built; else the documented fall-back
    expected = "native" if library is not None else "scikit-sundae"
    assert stats["driver"] == expected, why
    assert f'`"{expected}"`' in _table()["driver"]
