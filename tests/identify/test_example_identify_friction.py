"""examples/identify_friction.py runs as a new user would run it (a subprocess with the current
interpreter, in a temporary folder): it prints the estimates with their standard deviations next
to the truth, every one within 3 standard deviations, and writes the fit plot."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "identify_friction.py"
NAMES = ("friction.bristle_stiffness", "friction.damping_effects", "friction.viscous_effects",
         "friction.mu_static", "friction.mu_dynamic")


def _run(tmp_path, *args):
    result = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _table(out: str) -> dict[str, list[float]]:
    """The rows of the printed comparison: true, guess, estimate, std. dev., (est-true)/sd."""
    rows = {}
    for line in out[out.index("(est-true)/sd"):].splitlines()[1:]:
        parts = line.split()
        if parts and parts[0] in NAMES:
            rows[parts[0]] = [float(x) for x in parts[1:6]]
    return rows


def test_identify_friction_example(tmp_path):
    pytest.importorskip("matplotlib")
    out = _run(tmp_path, "--out", tmp_path / "plots", "--seed", "3")
    assert "converged (Gauss-Newton step" in out
    rows = _table(out)
    assert set(rows) == set(NAMES)
    for name, (truth, guess, estimate, sd, z) in rows.items():
        assert abs(estimate - truth) < 3 * sd, name
        assert abs(z) < 3
        assert abs(guess - truth) > 10 * sd  # started far from the truth
    assert (tmp_path / "plots" / "identify_friction.png").stat().st_size > 10_000


def test_identify_friction_example_positional_out_dir_and_no_plot(tmp_path):
    out = _run(tmp_path, "results", "--no-plot")
    assert "(est-true)/sd" in out and "plot saved" not in out
    assert not (tmp_path / "results" / "identify_friction.png").exists()
