"""``examples/crank_rocker.py`` (Wang, Wang, Zhuang 2013, seed 003) and
``examples/derive_crank_rocker.py``.

Paper checks (section 3.2): at theta2 = 0 and pi, theta1 = 0 and theta1_ddot = 0; for c = 0 the
driving torque, the normal force and the friction force vanish there; for c = 8 the friction
force jumps there (the slip velocity changes sign while lambda_N != 0). Energy: over two
revolutions the drive's work equals friction + damping dissipation + change of kinetic energy.
Independent check: the normal force from the rocker's moment balance about O,
``lambda_N = (J1 theta1_ddot + c theta1_dot)/|OB|``, and theta1 from the constraint (20),
``tan theta1 = L3 sin theta2/(L4 + L3 cos theta2)``.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

# the model and the paper's data from the package; the script's runs from examples/
from acausal.components.planar import examples_crank_rocker as paper

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
import crank_rocker as cr  # noqa: E402

OMEGA = paper.OMEGA
T2 = 4 * np.pi / OMEGA  # two revolutions
# a grid that contains theta2 = k*pi exactly (points 0, 300, 600, ...)
T_EVAL = np.linspace(0.0, T2, 1201)


@pytest.fixture(scope="module")
def system():
    from acausal import compile
    return compile(paper.CrankRocker())


@pytest.fixture(scope="module")
def runs(system):
    return {c: cr.simulate(c, system=system, t_eval=T_EVAL)[1] for c in (0.0, 8.0)}


def at(sol, name, k):
    return sol[name][k]


def test_kinematics_match_the_constraint(runs):
    for sol in runs.values():
        th2 = sol["theta2"]
        np.testing.assert_allclose(th2, OMEGA * sol.t, atol=1e-12)
        th1 = np.arctan2(paper.L3 * np.sin(th2), paper.L4 + paper.L3 * np.cos(th2))
        np.testing.assert_allclose(sol["theta1"], th1, atol=1e-10)
        ob = np.sqrt(paper.L3**2 + paper.L4**2 + 2 * paper.L3 * paper.L4 * np.cos(th2))
        dob = -paper.L3 * paper.L4 * np.sin(th2) * OMEGA / ob
        np.testing.assert_allclose(sol["slip_velocity"], dob, atol=1e-10)


@pytest.mark.parametrize("c", [0.0, 8.0])
def test_normal_force_from_the_rocker_moment_balance(runs, c):
    sol = runs[c]
    th2 = sol["theta2"]
    ob = np.sqrt(paper.L3**2 + paper.L4**2 + 2 * paper.L3 * paper.L4 * np.cos(th2))
    lam = (paper.J1 * sol["theta1_ddot"] + c * sol["theta1_dot"]) / ob
    np.testing.assert_allclose(sol["normal_force"], lam, atol=1e-8)
    # Coulomb: |friction| = mu |lambda_N| (smooth |.| with eps = 1e-6 N), resisting the slip
    np.testing.assert_allclose(np.abs(sol["friction_force"]),
                               paper.MU * np.sqrt(lam**2 + 1e-12), rtol=1e-9, atol=1e-9)
    moving = np.abs(sol["slip_velocity"]) > 1e-6
    assert np.all(sol["friction_force"][moving] * sol["slip_velocity"][moving] < 0)


def test_dead_centres_c0(runs):
    sol = runs[0.0]
    for k in (0, 300, 600, 900, 1200):  # theta2 = 0, pi, 2 pi, 3 pi, 4 pi
        assert sol["theta2"][k] == pytest.approx(k / 300 * np.pi, abs=1e-12)
        assert abs(sol["theta1"][k]) < 1e-10
        assert abs(sol["theta1_ddot"][k]) < 1e-8
        assert abs(sol["driving_torque"][k]) < 1e-8
        assert abs(sol["normal_force"][k]) < 1e-8
        assert abs(sol["friction_force"][k]) <= paper.MU * 1e-6 + 1e-12  # mu * eps
    # elsewhere they are not small
    assert np.abs(sol["driving_torque"]).max() > 10 and np.abs(sol["normal_force"]).max() > 10


def test_friction_jumps_at_the_dead_centres_c8(runs):
    sol = runs[8.0]
    f, v, n = sol["friction_force"], sol["slip_velocity"], sol["normal_force"]
    for k in (300, 600, 900):
        assert abs(sol["theta1"][k]) < 1e-10 and abs(sol["theta1_ddot"][k]) < 1e-8
        assert abs(n[k]) > 5.0  # lambda_N != 0 there: c theta1_dot / |OB|
        # one grid step (3.5 ms) before and after: the slip reverses, the friction flips
        assert v[k - 1] * v[k + 1] < 0
        assert f[k - 1] * f[k + 1] < 0
        jump = abs(f[k + 1] - f[k - 1])
        assert jump == pytest.approx(2 * paper.MU * abs(n[k]), rel=0.02)
    # the switches are located events at theta2 = k pi
    times = [t for t, _ in sol.events if t > 1e-9]
    np.testing.assert_allclose(times, np.arange(1, 5) * np.pi / OMEGA, atol=1e-9)


@pytest.mark.parametrize("c", [0.0, 8.0])
def test_energy_balance_over_two_revolutions(runs, c):
    sol = runs[c]
    w_drive, w_out = cr.energy_balance(sol)
    assert w_drive > 1.0
    assert abs(w_drive - w_out) <= 1e-6 * abs(w_drive)
    if c == 0.0:
        assert sol["energy_damping"][-1] == 0.0
    # the drive's work also equals the integral of torque * omega (trapezoid, coarse check)
    trap = np.trapezoid(sol["driving_torque"] * OMEGA, sol.t)
    assert trap == pytest.approx(w_drive, rel=1e-3)


def test_regularised_law_agrees(system):
    """tanh(v/v_reg), v_reg = 1e-4 m/s: the same energies within the regularisation error."""
    _, exact = cr.simulate(8.0, system=system, t_eval=T_EVAL)
    _, reg = cr.simulate(8.0, v_reg=1e-4, t_eval=T_EVAL)
    w_e, _ = cr.energy_balance(exact)
    w_r, out_r = cr.energy_balance(reg)
    assert abs(w_r - out_r) <= 1e-6 * w_r
    assert w_r == pytest.approx(w_e, rel=1e-4)


def test_cli_writes_the_csv(tmp_path):
    csv = tmp_path / "cr.csv"
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "crank_rocker.py"),
                             "--damping", "8", "--t-end", "0.5", "--gravity", "--csv", str(csv)],
                            capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "relative mismatch" in result.stdout
    assert "Friction stuck" not in result.stderr  # the slider slips: no stuck report
    lines = csv.read_text().splitlines()
    assert lines[0] == ",".join(cr.COLUMNS)
    data = np.loadtxt(csv, delimiter=",", skiprows=1)
    assert data.shape == (501, 8)
    np.testing.assert_allclose(data[:, 0], np.arange(501) * 1e-3, atol=1e-12)
    np.testing.assert_allclose(data[:, 3], OMEGA * data[:, 0], atol=1e-9)


def test_derive_script(tmp_path):
    tex = tmp_path / "eq.tex"
    result = subprocess.run([sys.executable, str(ROOT / "examples" / "derive_crank_rocker.py"),
                             str(tex)], capture_output=True, text=True, timeout=300,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "--- flattened equations" in out and "--- index-reduced equations" in out
    assert "Q_theta_1 = 0" in out and "Q_theta_2 = F_f*L_3*sin(theta_1 - theta_2)" in out
    text = tex.read_text()
    assert text.count("\\begin{aligned}") == 2 and "Q_{\\theta_{2}}" in text
