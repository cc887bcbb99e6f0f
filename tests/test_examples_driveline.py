"""examples/driveline.py: the hill start (engine, clutch on a pedal ramp, lossy gearbox,
vehicle on a grade) balances its energy, and its clutch locks when its slip reaches zero."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import driveline  # noqa: E402

RTOL = 1e-8


@pytest.fixture(scope="module")
def run():
    return driveline.simulate()


def test_energy_balance(run):
    _, sol = run
    work, spent = driveline.energy_balance(sol)
    # the engine's work is the energy stored plus the heat and road losses, to the solver's
    # relative tolerance (a few times rtol of the largest term)
    assert work > 1e5
    assert abs(work - spent) < 10 * RTOL * work


def test_clutch_free_then_slipping_then_locked(run):
    _, sol = run
    modes = driveline.clutch_modes(sol)
    assert [name for _, name in modes] == ["free", "slips backward", "stuck"]
    assert modes[1][0] == pytest.approx(0.3, abs=1e-12)  # the pedal's ramp starts
    t_lock = modes[2][0]
    assert 0.3 < t_lock < 2.0
    after = sol.t > t_lock + 1e-9
    # locked: engine and gearbox input turn together (the slip held at its value at the lock)
    np.testing.assert_allclose(sol["engine.w"][after], sol["gearInput.w"][after], atol=1e-8)
    # slipping: the torque it passes is the sliding friction cgeo*mu(|w_rel|)*fn (mu(0..100)
    # = 0.35..0.3, linear; 0.3 beyond)
    slip = (sol.t > 0.31) & (sol.t < t_lock - 1e-3)
    w_rel = sol["gearInput.w"][slip] - sol["engine.w"][slip]
    mu = np.interp(-w_rel, [0.0, 100.0, 1000.0], [0.35, 0.3, 0.3])
    fn = 6000.0 * sol["pedal.y.u"][slip]
    np.testing.assert_allclose(-sol["clutch.tau"][slip], 0.12 * mu * fn, rtol=1e-9)


def test_vehicle_rolls_back_before_the_clutch_bites(run):
    _, sol = run
    assert sol["vehicle.v"][sol.t < 0.3].max() <= 1e-12
    assert sol["vehicle.s"].min() < -0.01  # it rolled back a little on the 8 % grade
    assert sol["vehicle.v"][-1] > 10.0


def test_command_line(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "driveline.py"),
                             "--out", str(tmp_path), "--csv", str(tmp_path / "d.csv"),
                             "--t-end", "2", "--grade", "0.05"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "clutch stuck" in result.stdout
    assert (tmp_path / "driveline.png").stat().st_size > 10_000
    data = np.loadtxt(tmp_path / "d.csv", delimiter=",", skiprows=1)
    assert data.shape == (201, len(driveline.COLUMNS))


def test_the_output_shown_in_docs_is_the_example_s(capsys):
    """docs/drivelines.md shows the example's printout: the clutch's mode lines as printed,
    the energies to the solver's tolerance (their last digits are rounding noise)."""
    import re

    assert driveline.main([]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    doc = (ROOT / "docs" / "drivelines.md").read_text()
    for line in printed:
        if line.startswith("t ="):
            assert line in doc, f"docs/drivelines.md does not show the example's line {line!r}"
    number = r"([-+0-9.e]+)"
    pattern = rf"engine work {number} J = kinetic \+ potential \+ heat \+ road {number} J"
    ours = [float(v) for v in re.search(pattern, "\n".join(printed)).groups()]
    shown = [float(v) for v in re.search(pattern, doc).groups()]
    np.testing.assert_allclose(shown, ours, rtol=10 * RTOL)
