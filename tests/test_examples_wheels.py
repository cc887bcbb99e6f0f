"""``examples/slipping_wheel.py`` and ``examples/segway.py`` run as a new user would run them
(a subprocess with the current interpreter, in a temporary folder) and write their outputs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
M, J, R = 1.0, 0.005, 0.1  # the wheel of examples/slipping_wheel.py


def _run(tmp_path, script, *args):
    result = subprocess.run([sys.executable, str(EXAMPLES / script), *map(str, args)],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _read_csv(path):
    with open(path) as handle:
        header = handle.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    return header, {name: data[:, i] for i, name in enumerate(header)}


def test_slipping_wheel_thrown(tmp_path):
    out = _run(tmp_path, "slipping_wheel.py", "--scenario", "thrown", "--t-end", "1",
               "--csv", "thrown.csv")
    assert "scenario: thrown" in out and "expected final rolling speed" in out
    header, col = _read_csv(tmp_path / "thrown.csv")
    assert header == ["t", "x", "v", "w_roll", "v_slip_long", "f_long"]
    np.testing.assert_allclose(np.diff(col["t"]), 1e-3, atol=1e-12)
    assert col["t"][0] == 0.0 and col["t"][-1] == pytest.approx(1.0)
    assert col["v"][0] == 2.0 and col["w_roll"][0] == 0.0
    v_end = 2.0 * M / (M + J / R**2)
    assert col["v"][-1] == pytest.approx(v_end, rel=1e-6)
    assert R * col["w_roll"][-1] == pytest.approx(v_end, rel=1e-6)
    np.testing.assert_allclose(col["v_slip_long"], col["v"] - R * col["w_roll"], atol=1e-9)
    # sliding forward: the ground force on the wheel points backwards (mu_S m g)
    assert col["f_long"][0] == pytest.approx(-0.4 * M * 9.81, rel=1e-3)
    assert np.all(col["f_long"] <= 1e-6)  # (solver noise ~1e-8 N once rolling)
    # momentum balance m dv/dt = f_long
    dvdt = np.gradient(col["v"], col["t"])
    np.testing.assert_allclose(M * dvdt[5:100], col["f_long"][5:100], atol=1e-3)


def test_slipping_wheel_torque(tmp_path):
    out = _run(tmp_path, "slipping_wheel.py", "--scenario", "torque", "--t-end", "0.5",
               "--csv", "torque.csv", "--png", "torque.png")
    assert "scenario: torque" in out
    header, col = _read_csv(tmp_path / "torque.csv")
    assert header == ["t", "x", "v", "w_roll", "v_slip_long", "f_long"]
    assert col["t"].size == 501
    # from exact rest
    assert col["x"][0] == 0.0 and col["v"][0] == 0.0 and col["w_roll"][0] == 0.0
    assert np.all(np.isfinite(np.column_stack(list(col.values()))))
    # it moves towards +x, rolling forward (w_roll > 0) with the contact point slipping back
    assert col["x"][-1] > 0.5 and np.all(np.diff(col["x"]) >= 0)
    assert np.all(col["w_roll"][1:] > 0) and np.all(col["v_slip_long"][1:] < 0)
    assert np.all(col["f_long"][1:] > 0)  # the ground pushes the wheel forward
    assert col["v"][-1] == pytest.approx(0.5 * R * 1.0 / (J + M * R**2), rel=0.02)
    pytest.importorskip("matplotlib")
    assert (tmp_path / "torque.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_segway(tmp_path):
    out_dir = tmp_path / "out"
    out = _run(tmp_path, "segway.py", out_dir, "--csv", "segway.csv")
    assert "max |pitch|" in out
    header, col = _read_csv(tmp_path / "segway.csv")
    assert header == ["t", "x", "v", "pitch", "pitch_rate", "torque", "v_slip_long"]
    assert col["t"][-1] == pytest.approx(10.0)
    assert col["x"][0] == 0.0 and col["v"][0] == 0.0
    # stays upright all the way and stands still at the target at the end
    assert np.max(np.abs(col["pitch"])) < 0.35
    assert abs(col["x"][-1] - 2.0) < 1e-3
    assert abs(col["pitch"][-1]) < 1e-3 and abs(col["v"][-1]) < 1e-3
    # no wheel spin: the contact stays in the adhesion range
    assert np.max(np.abs(col["v_slip_long"])) < 0.05
    pytest.importorskip("matplotlib")
    assert (out_dir / "segway.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out_dir / "segway.gif").read_bytes()[:6] in (b"GIF87a", b"GIF89a")


def test_segway_on_a_slope(tmp_path):
    """``--grade-deg 5``: the segway drives up a 5-degree road and stands still there, held by
    the torque (m_w + m_b) g sin(5 deg) R (examples/segway.py's masses, g = 9.81, R = 0.2 m);
    the run ends within 1e-4 of it (the controller's poles decay to 1e-9 in 10 s, the steady
    slip law settles too)."""
    out_dir = tmp_path / "out"
    out = _run(tmp_path, "segway.py", out_dir, "--csv", "slope.csv", "--grade-deg", "5",
               "--t-end", "10")
    holding = (2.0 + 20.0) * 9.81 * np.sin(np.radians(5.0)) * 0.2
    assert f"holding torque (m_w + m_b) g sin(grade) R = {holding:.4f} N m" in out
    _, col = _read_csv(tmp_path / "slope.csv")
    assert col["torque"][-1] == pytest.approx(holding, rel=1e-4)
    assert abs(col["v"][-1]) < 1e-4 and col["x"][-1] > 1.5  # up the road, at rest
    # it leans up the road (towards +x): sin(pitch) = -tau/(m_b g L)
    assert np.sin(col["pitch"][-1]) == pytest.approx(-holding / (20.0 * 9.81 * 0.6), rel=1e-3)
