"""Cross-validation: PlanarMechanics ``Examples/WheelBasedCraneCrab.mo`` (t_end = 4.5 s).

Model (section 4.12 of docs/planar_mechanics.md; topology from the Modelica example): an
IdealRolling wheel (R = 0.3; x0 = 0, phi0 = 0, w0 = 0 fixed) carrying Body(m = 1, I = 0.1) at
its frame; on the same frame a Revolute (phi0 = 80 deg, w0 = 0 fixed) -> FixedTranslation
(1, 0) -> Body1(m = 2, I = 0.2); g = 9.81. A pendulum on a rolling cart: the pendulum's absolute
angle is revolute.phi + wheel.phi with wheel.phi = -x/R (non-holonomic rolling constraint).

The same model is also built with the Multibody.jl ``OneDOFRollingWheelJoint`` (position-level
rolling constraint, ``phi_roll = -phi``), which must give the same motion.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, FixedTranslation, World
from acausal.components.planar.wheels import IdealRolling, OneDOFRollingWheelJoint

RTOL, ATOL = 1e-10, 1e-12
PHI0 = 1.3962634015955  # 80 deg
SIGNALS = ("body1.phi", "body1.r[1]", "body1.w", "revolute.phi", "revolute.w")


def _fixed(value):
    return Variable(start=value, fixed=True)


class WheelBasedCraneCrab(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    idealRolling = IdealRolling(R=0.3, x=_fixed(0.0), phi=_fixed(0.0), w=_fixed(0.0))
    body = Body(m=1.0, I=0.1)
    revolute = Revolute(phi=_fixed(PHI0), w=_fixed(0.0))
    fixedTranslation = FixedTranslation(r=[1.0, 0.0])
    body1 = Body(m=2.0, I=0.2)

    def connections(self):
        return [connect(self.revolute.frame_a, self.idealRolling.frame_a),
                connect(self.body.frame_a, self.idealRolling.frame_a),
                connect(self.body1.frame_a, self.fixedTranslation.frame_b),
                connect(self.fixedTranslation.frame_a, self.revolute.frame_b)]


class WheelBasedCraneCrabOneDOF(WheelBasedCraneCrab):
    idealRolling = OneDOFRollingWheelJoint(radius=0.3, x0=0.0, x=_fixed(0.0), v=_fixed(0.0))


def _values(sol, name):
    if name == "body1.r[1]":
        return sol["body1.r"][0]
    return sol[name]


@pytest.fixture(scope="module")
def compiled():
    return compile(WheelBasedCraneCrab())


def test_structure(compiled):
    # Dymola: 5 states (body1.phi, body1.r[1], body1.w, revolute.phi, revolute.w); the
    # non-holonomic wheel keeps x and phi as separate states.
    assert compiled.n_states == 5


def test_checkpoints(compiled):
    # the motion is sensitive (revolute.w(4.5) moves by 9e-7 between rtol 1e-10 and 1e-12)
    sol = compiled.simulate(4.5, t_eval=[0.0, 1.0, 4.5], rtol=1e-12, atol=1e-14)
    # Independent re-derivation (Lagrange equations of the cart-pendulum in (x, psi), scipy
    # DOP853, rtol 1e-12). The Dymola values of section 4.12 (tolerance 1e-6) differ from these
    # by up to 2e-5 in body1.r[1] and 5e-4 in revolute.w (all below 1e-4 of the signal ranges):
    # t=1: body1.phi -0.970354, body1.r[1] 0.374616, revolute.phi -1.60498;
    # t=4.5: body1.phi 1.3504, body1.r[1] 0.196742, revolute.w -1.35987.
    np.testing.assert_allclose(sol["body1.phi"][1:], [-0.9703401258, 1.3503578163], atol=1e-7)
    np.testing.assert_allclose(sol["body1.r"][0][1:], [0.3746223496, 0.1967610952], atol=1e-7)
    np.testing.assert_allclose(sol["revolute.phi"][1:], [-1.6049954056, 1.2773696558], atol=1e-7)
    np.testing.assert_allclose(sol["revolute.w"][1:], [2.2968505773, -1.360334597], atol=1e-7)
    # Dymola checkpoints within their own accuracy
    np.testing.assert_allclose(sol["body1.phi"][1:], [-0.970354, 1.3504], atol=1e-4)
    np.testing.assert_allclose(sol["body1.r"][0][1:], [0.374616, 0.196742], atol=5e-5)
    # rolling constraints hold along the motion
    np.testing.assert_allclose(sol["idealRolling.vx"], -0.3 * sol["idealRolling.w"], atol=1e-12)
    np.testing.assert_allclose(sol["idealRolling.phi"], -sol["idealRolling.x"] / 0.3, atol=1e-8)
    np.testing.assert_allclose(sol["body.r"][1], 0.3, atol=1e-12)
    # the pendulum's absolute angle is the relative angle plus the wheel angle
    np.testing.assert_allclose(sol["body1.phi"], sol["revolute.phi"] + sol["idealRolling.phi"],
                               atol=1e-10)


def test_energy_conserved(compiled):
    """Ideal rolling does no work: kinetic + potential energy is constant."""
    sol = compiled.simulate(4.5, n_points=91, rtol=1e-12, atol=1e-14)
    v, w = sol["body.v"], sol["body.w"]
    v1, w1 = sol["body1.v"], sol["body1.w"]
    energy = (0.5 * 1.0 * (v[0] ** 2 + v[1] ** 2) + 0.5 * 0.1 * w ** 2
              + 0.5 * 2.0 * (v1[0] ** 2 + v1[1] ** 2) + 0.5 * 0.2 * w1 ** 2
              + 9.81 * (1.0 * sol["body.r"][1] + 2.0 * sol["body1.r"][1]))
    assert np.ptp(energy) < 1e-7


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("WheelBasedCraneCrab")
    sol = compiled.simulate(4.5, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in SIGNALS:
        check_signal(name, _values(sol, name), ref[name])


def test_one_dof_rolling_joint_variant(compiled):
    """OneDOFRollingWheelJoint (position-level constraint) gives the same motion."""
    cs = compile(WheelBasedCraneCrabOneDOF())
    assert cs.n_states == 4  # one wheel coordinate fewer: the constraint is holonomic
    times = np.linspace(0.0, 4.5, 10)
    sol = cs.simulate(4.5, t_eval=times, rtol=1e-12, atol=1e-14)
    ref = compiled.simulate(4.5, t_eval=times, rtol=1e-12, atol=1e-14)
    for name in SIGNALS:
        np.testing.assert_allclose(_values(sol, name), _values(ref, name), atol=1e-7)
    np.testing.assert_allclose(sol["idealRolling.phi_roll"], -ref["idealRolling.phi"], atol=1e-7)
    np.testing.assert_allclose(sol["idealRolling.v"], 0.3 * sol["idealRolling.w_roll"],
                               atol=1e-10)
    assert math.isclose(sol["body1.phi"][-1], 1.3503578163, abs_tol=1e-7)
