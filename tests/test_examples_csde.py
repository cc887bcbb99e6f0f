"""``examples/coordinate_spring_damper_ext.py`` run as a new user would run it (a subprocess with
the current interpreter, in a temporary folder): every ``--case``, the CSV and the plot."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "examples" / "coordinate_spring_damper_ext.py"
DT = 1e-4
K, D, FD, FSO, FV = 1000.0, 1.0, 5.0, 2.0, 0.5  # the example's element parameters
FS = FD + FSO  # breakaway force


def _run(tmp_path, *args):
    result = subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def _read_csv(path, t_end):
    with open(path) as handle:
        header = handle.readline().strip().split(",")
    assert header == ["t", "q", "v", "force"]
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    col = {name: data[:, i] for i, name in enumerate(header)}
    assert np.all(np.isfinite(data))
    assert col["t"][0] == 0.0 and col["t"][-1] == pytest.approx(t_end)
    np.testing.assert_allclose(np.diff(col["t"]), DT, atol=1e-9)
    assert col["q"][0] == 0.0
    return col


def _energy(col):
    return 0.5 * col["v"] ** 2 + 0.5 * K * col["q"] ** 2


def _accel(col):
    return np.gradient(col["v"], col["t"])


def test_regularized(tmp_path):
    out = _run(tmp_path, "--case", "regularized", "--csv", "r.csv", "--png", "r.png")
    assert "case: regularized" in out and "0 events" in out
    col = _read_csv(tmp_path / "r.csv", 1.0)
    assert col["v"][0] == 1.0
    # no external force: dE/dt = -d v^2 - v S(v) <= 0, the energy decreases monotonically
    energy = _energy(col)
    assert np.all(np.diff(energy) <= 1e-9) and energy[-1] < 0.05 * energy[0]
    # the force starts at the Stribeck value: S(1) = 5 + 2 e^{-(1 - 1e-3)/0.01} + 0.5 (1 - 1e-3)
    assert col["force"][0] == pytest.approx(1.0 + FD + FV * (1 - 1e-3), rel=1e-9)
    # m dv/dt = -force, with central differences on the 0.1 ms grid (truncation error
    # h^2/6 d^2f/dt^2 ~ 1e-3 relative where the static offset decays, |v| ~ v_exp), away from
    # the proportional zone, where the force sweeps 2 F_s within |v| <= 1e-3 m/s (1-2 steps)
    away = np.abs(col["v"]) > 0.01
    away[[0, -1]] = False
    np.testing.assert_allclose(_accel(col)[away], -col["force"][away], rtol=1e-3,
                               atol=1e-3 * FS)
    pytest.importorskip("matplotlib")
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bristle(tmp_path):
    out = _run(tmp_path, "--case", "bristle", "--csv", "b.csv", "--png", "b.png")
    assert "case: bristle" in out and "forward slip reverses: stick" in out
    assert "breakaway" in out
    col = _read_csv(tmp_path / "b.csv", 3.0)
    assert col["v"][0] == 1.0
    # initially slipping forward: f_SD = k q + d v + |S0(v)| = 1 + 5 + 2 e^{-100} + 0.5
    assert col["force"][0] == pytest.approx(1.0 + FD + FV, rel=1e-9)
    # energy balance: E(t) - E(0) = W_ext - W_friction - W_damper, and the friction element
    # can store at most F_s^2/(2 k_mu) in the bristle: the dissipation is non-negative
    t = col["t"]
    f_ext = 10.0 * np.sin(2 * np.pi * t)
    p_ext = f_ext * col["v"]
    w_ext = np.concatenate([[0.0], np.cumsum(0.5 * (p_ext[1:] + p_ext[:-1]) * np.diff(t))])
    dissipated = w_ext - (_energy(col) - _energy(col)[0])
    assert dissipated.min() > -FS**2 / (2 * 1e5) - 1e-4
    assert dissipated[-1] > 0.5  # more than the initial kinetic energy is lost to friction
    _common_bristle_checks(col)
    pytest.importorskip("matplotlib")
    assert (tmp_path / "b.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bristle_rest(tmp_path):
    out = _run(tmp_path, "--case", "bristle-rest", "--csv", "br.csv")
    assert "case: bristle-rest" in out
    col = _read_csv(tmp_path / "br.csv", 3.0)
    assert col["v"][0] == 0.0 and col["force"][0] == 0.0
    # stuck until the external force (less the spring) reaches F_s: the first event is a
    # forward breakaway near 10 sin(2 pi t) = 7 (quasi-static; bristle lag below 1 ms)
    first = out.split("events\n")[1].splitlines()[0]
    assert "breakaway: stick -> slip forward" in first
    t_break = float(first.split("t = ")[1].split(" s")[0])
    assert t_break == pytest.approx(math.asin(0.7) / (2 * math.pi), abs=2e-3)
    moving = np.abs(col["v"]) > 1e-3
    assert not np.any(moving[col["t"] < t_break - 1e-3])  # stuck (bristle creep only)
    assert np.all(np.abs(col["q"][col["t"] < t_break]) < 1e-4)
    _common_bristle_checks(col)


def _common_bristle_checks(col):
    friction = col["force"] - K * col["q"] - D * col["v"]
    # the bristle force never exceeds F_s by more than the slip law allows: |S0| <= F_s + f_V|v|
    assert np.all(np.abs(friction) <= FS + FV * np.abs(col["v"]) + 1e-6)
    # a genuine stick/slip motion: long stretches at rest, slip both ways
    assert col["v"].max() > 0.1 and col["v"].min() < -0.1
    assert np.mean(np.abs(col["v"]) < 1e-2) > 0.3
    # the mass obeys m dv/dt = f_ext - force away from the switches
    a = _accel(col)
    f_ext = 10.0 * np.sin(2 * np.pi * col["t"])
    residual = np.abs(a - (f_ext - col["force"]))
    assert np.median(residual) < 1e-2


def test_limit_stops(tmp_path):
    out = _run(tmp_path, "--case", "limit-stops", "--csv", "ls.csv", "--png", "ls.png")
    assert "case: limit-stops" in out and "upper stop: contact" in out
    assert "lower stop: contact" in out
    col = _read_csv(tmp_path / "ls.csv", 1.0)
    q, v, f = col["q"], col["v"], col["force"]
    assert v[0] == 2.0
    # bounces between the stops: free flight at constant speed (no force) inside
    free = np.abs(q) < 0.1
    assert np.all(f[free] == 0.0)
    hits_upper = np.nonzero(np.diff((q > 0.1).astype(int)) == 1)[0]
    hits_lower = np.nonzero(np.diff((q < -0.1).astype(int)) == 1)[0]
    assert hits_upper.size >= 3 and hits_lower.size >= 2
    hits = sorted([(k, "upper") for k in hits_upper] + [(k, "lower") for k in hits_lower])
    assert [side for _, side in hits] == ["upper", "lower"] * (len(hits) // 2) + \
        ["upper"] * (len(hits) % 2)  # alternating, starting with the upper stop
    # first contact at distance/speed = 0.05 s
    assert col["t"][hits_upper[0] + 1] == pytest.approx(0.05, abs=DT)
    # stiff stops: penetration at most v0 sqrt(m/k_ls) = 6.3 mm
    assert q.max() < 0.1 + 2.0 * math.sqrt(1 / 1e5) and q.min() > -0.1 - 2.0 * math.sqrt(1e-5)
    # every contact dissipates: the flight speed drops by exp(-d pi/(2 m w_d)) per bounce
    w_d = math.sqrt(1e5 - 25.0**2)
    ratio = math.exp(-50.0 * math.pi / (2 * w_d))
    speeds = [abs(v[k]) for k in np.nonzero(free)[0][::500]]
    assert all(b <= a + 1e-9 for a, b in zip(speeds, speeds[1:]))
    assert abs(v[-1]) == pytest.approx(2.0 * ratio ** (hits_upper.size + hits_lower.size),
                                       rel=1e-6)
    pytest.importorskip("matplotlib")
    assert (tmp_path / "ls.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_t_end_override(tmp_path):
    _run(tmp_path, "--case", "limit-stops", "--t-end", "0.02", "--csv", "short.csv")
    col = _read_csv(tmp_path / "short.csv", 0.02)
    assert col["t"].size == 201
    np.testing.assert_allclose(col["q"], 2.0 * col["t"], atol=1e-12)  # free flight
