"""Coulomb joint friction of the generalized-forces notes (seed 002): each joint's friction level
from its reaction against the notes' formulas, and the relaxation scheme against the
simultaneous solution on a slider pressed by a load (where it converges, where it does not)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from joint_rigs import LoadedJoint, heavy_body, loads

from acausal import SimulationError, Variable, compile
from acausal.components.multibody import (
    Body,
)
from acausal.components.multibody.coulomb_joint_friction import (
    CylindricalWithCoulombFriction,
    PrismaticWithCoulombFriction,
    RevoluteWithCoulombFriction,
    SphericalWithCoulombFriction,
    relax_friction,
)
from acausal.components.sources import Speed, TranslationalSpeed

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
# a sharp sign: v_reg far below the slip speeds (tanh(v/v_reg) = 1 to double precision)
SHARP = dict(v_reg=1e-7, force_eps=1e-9)


def test_revolute_pin_and_end_face():
    mu, R, mu_end, R_end, w0 = 0.15, 0.02, 0.1, 0.03, 2.0
    joint = RevoluteWithCoulombFriction(use_axis_flange=True, n=(0, 0, 1), mu=mu, R=R,
                                        mu_END=mu_end, R_END=R_end, **SHARP)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.2)
    cs = compile(LoadedJoint(joint, body, drive=Speed(w_ref=w0)))
    for F in ((30.0, 40.0, 0.0), (0.0, 0.0, 25.0), (30.0, 40.0, -25.0)):
        sol = cs.simulate(0.2, dt=0.1, params=loads(F, (0, 0, 0)), **TIGHT)
        expected = mu * R * np.hypot(F[0], F[1]) + mu_end * R_end * abs(F[2])
        assert sol["drive.tau"][-1] == pytest.approx(expected, rel=1e-9)
        assert sol["joint.axial_force"][-1] == pytest.approx(abs(F[2]), abs=1e-8)


def test_prismatic_normal_force():
    joint = PrismaticWithCoulombFriction(use_axis_flange=True, n=(1, 0, 0), mu=0.25, **SHARP)
    body = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)
    cs = compile(LoadedJoint(joint, body, drive=TranslationalSpeed(v_ref=-0.5)))
    sol = cs.simulate(0.2, dt=0.1, params=loads((0.0, 30.0, 40.0), (5.0, 6.0, 7.0)), **TIGHT)
    # only the force across the axis loads the notes' prismatic joint (moments do not)
    assert sol["joint.normal_force"][-1] == pytest.approx(50.0, rel=1e-9)
    assert sol["drive.f"][-1] == pytest.approx(-0.25 * 50.0, rel=1e-9)


def test_cylindrical_axial_and_torsional():
    mu, R = 0.2, 0.02
    joint = CylindricalWithCoulombFriction(n=(1, 0, 0), mu=mu, R=R, **SHARP,
                                           v=Variable(start=0.3, fixed=True),
                                           w=Variable(start=-20.0, fixed=True),
                                           s=Variable(start=0.0, fixed=True),
                                           phi=Variable(start=0.0, fixed=True))
    sol = compile(LoadedJoint(joint, heavy_body(), (0.0, 30.0, 40.0))).simulate(
        0.1, dt=0.05, **TIGHT)
    assert sol["joint.friction_force"][-1] == pytest.approx(mu * 50.0, rel=1e-9)
    assert sol["joint.friction_torque"][-1] == pytest.approx(-mu * R * 50.0, rel=1e-9)


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0])
def test_spherical_torque_along_the_relative_rotation(alpha):
    mu, R = 0.2, 0.03
    w0 = np.array([0.0, 0.0, 10.0])
    joint = SphericalWithCoulombFriction(mu=mu, R=R, alpha=alpha, **SHARP)
    body = heavy_body(w_0_fixed=True, w_0_start=tuple(w0), angles_fixed=True,
                      r_0=Variable(start=[0.0, 0.0, 0.0]))
    F = (30.0, 40.0, 120.0)  # radial 50 N, axial 120 N about the spin axis z
    sol = compile(LoadedJoint(joint, body, F)).simulate(0.1, dt=0.05, **TIGHT)
    w = sol["joint.w_rel"][:, -1]
    expected = mu * R * (50.0 + alpha * 120.0) * w / np.linalg.norm(w)
    np.testing.assert_allclose(sol["joint.friction_torque"][:, -1], expected, rtol=1e-6)
    assert sol["joint.radial_force"][-1] == pytest.approx(50.0, rel=1e-6)


# ------------------------------------------------------------------------------------------
# relaxation versus simultaneous: a slider pressed by a load, carrying a heavy arm
# ------------------------------------------------------------------------------------------

def _example():
    """examples/relaxation_vs_simultaneous.py as a module (its PressedSlider and
    simultaneous())."""
    path = Path(__file__).parents[2] / "examples" / "relaxation_vs_simultaneous.py"
    spec = importlib.util.spec_from_file_location("relaxation_vs_simultaneous", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE = _example()
PressedSlider = EXAMPLE.PressedSlider


def simultaneous(theta):
    values = EXAMPLE.simultaneous(theta)
    return values.__getitem__


def test_relaxation_converges_to_the_simultaneous_solution():
    exact = simultaneous(1.0)
    cs = compile(PressedSlider("relaxation", theta=1.0))
    for omega in (1.0, 0.5):
        result = relax_friction(cs, omega=omega, tol=1e-12)
        assert result.converged
        for name in ("guide.normal_force", "guide.friction_force", "guide.a", "pin.a"):
            assert result[name] == pytest.approx(exact(name), rel=1e-9), name
    # the friction really depends on the arm's reaction: N differs from the static load
    assert exact("guide.normal_force") != pytest.approx(5.0 + 10.5 * 9.80665, rel=0.1)


def test_relaxation_fails_where_the_loop_gain_exceeds_one():
    """At theta = -0.3 rad the reaction moves by more than the friction change it causes:
    plain relaxation (omega = 1) settles into a 2-cycle (+-42 N) instead of converging; the
    simultaneous solution exists, and under-relaxation (omega = 0.5) reaches it."""
    exact = simultaneous(-0.3)
    cs = compile(PressedSlider("relaxation", theta=-0.3))
    with pytest.raises(SimulationError, match="did not converge") as info:
        relax_friction(cs, omega=1.0, max_iter=60)
    history = info.value.result.history
    assert not info.value.result.converged
    assert np.max(np.abs(np.diff(history[-5:, 1]))) > 10.0  # still jumping by tens of N
    result = relax_friction(cs, omega=0.5, tol=1e-12)
    for name in ("guide.normal_force", "guide.friction_force", "guide.a"):
        assert result[name] == pytest.approx(exact(name), rel=1e-9), name


def test_relax_friction_needs_relaxation_joints():
    from acausal import ModelDefinitionError
    with pytest.raises(ModelDefinitionError, match="solution='relaxation'"):
        relax_friction(compile(PressedSlider("simultaneous")))
    with pytest.raises(Exception, match="solution must be one of"):
        PrismaticWithCoulombFriction(solution="lagged")


def test_the_example_prints_the_comparison(capsys):
    assert EXAMPLE.main(["--theta", "1.0", "-0.3", "0.3"]) == 0
    out = capsys.readouterr().out
    assert out.count("no convergence") == 3  # omega = 1 at -0.3; both at +0.3 (jams)
    assert "no solution" in out
    assert out.count("iterations, N =") == 3
