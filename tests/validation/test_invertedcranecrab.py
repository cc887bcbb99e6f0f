"""Cross-validation: PlanarMechanics ``Examples/InvertedCraneCrab.mo`` (inverse model;
t_end = 3 s).

Model (section 4.12 of docs/planar_mechanics.md; topology from the Modelica example):
Fixed -> Prismatic (r = (1, 0), use_axis_flange; s0 = 0, v0 = 0 fixed) -> Body1 (m = 1,
I = 0.1), the crab. On the crab's frame: Revolute1 (use_axis_flange) -> FixedTranslation (0, 1)
-> Body (m = 0.5, I = 0.1): an inverted pendulum (phi = 0 is upright). g = 9.81.

Inverse model: the pendulum angle is *prescribed*, ``revolute1.phi = y``, with ``y`` the output
of ``FirstOrder(T = 0.1, steady-state initialisation)`` fed by ``Ramp(offset = -0.5, height = 0.5,
duration = 0.5, start_time = 0)``; the force ``force.f`` of a 1-D ``Force`` on the prismatic's
flange is the unknown that makes it so. Modelica writes this with an ``AngleSensor`` on the
revolute's flange and ``Blocks.Math.InverseBlockConstraints`` (angle = filter output; force
input free); here it is the single model equation ``revolute1.flange_a.phi = firstOrder.y``.

Index reduction differentiates the prescribed angle twice: through the filter's equation and
the ramp (a Piecewise of time). States: prismatic.s, prismatic.v and the filter state (which is
revolute1.phi).
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components import translational
from acausal.components.blocks import FirstOrder, Ramp
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11
T_FILTER = 0.1


class InvertedCraneCrab(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    prismatic = Prismatic(use_axis_flange=True, r=[1.0, 0.0], s=Variable(start=0.0, fixed=True),
                          v=Variable(start=0.0, fixed=True))
    force = translational.Force()
    body1 = Body(m=1.0, I=0.1)
    revolute1 = Revolute(use_axis_flange=True)
    fixedTranslation = FixedTranslation(r=[0.0, 1.0])
    body = Body(m=0.5, I=0.1)
    ramp = Ramp(height=0.5, duration=0.5, offset=-0.5, start_time=0.0)
    firstOrder = FirstOrder(T=T_FILTER, init_type="steady_state")

    def connections(self):
        return [connect(self.fixed.frame, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, self.body1.frame_a),
                connect(self.force.flange, self.prismatic.flange_a),
                connect(self.body1.frame_a, self.revolute1.frame_a),
                connect(self.revolute1.frame_b, self.fixedTranslation.frame_a),
                connect(self.fixedTranslation.frame_b, self.body.frame_a),
                connect(self.ramp.y, self.firstOrder.u)]

    def equations(self):
        # the inverse constraint (Modelica: AngleSensor + InverseBlockConstraints); the revolute's
        # flange carries no torque (open flange), force.f is left free
        return [Eq(self.revolute1.flange_a.phi, self.firstOrder.y.u)]


def filtered_ramp(t):
    """Closed-form output of the steady-state-initialised first-order filter of the ramp."""
    t = np.asarray(t, dtype=float)
    y_ramp = -0.5 + t - T_FILTER * (1.0 - np.exp(-t / T_FILTER))
    y_end = -0.5 + 0.5 - T_FILTER * (1.0 - np.exp(-0.5 / T_FILTER))
    return np.where(t <= 0.5, y_ramp, y_end * np.exp(-(t - 0.5) / T_FILTER))


@pytest.fixture(scope="module")
def compiled():
    return compile(InvertedCraneCrab())


def test_states(compiled):
    assert compiled.n_states == 3
    assert {"prismatic.s", "prismatic.v"} <= set(compiled.state_names)


def test_checkpoints(compiled):
    times = [0.0, 0.25, 0.5, 1.0, 2.0, 3.0]
    # BDF: the ramp's corner at 0.5 s (a Piecewise, no event) jumps the prescribed angle's
    # acceleration inside a step; Adams' high orders (the default's start) end 4.4e-6 from the
    # converged prismatic.s at this tolerance, BDF 4e-8
    sol = compiled.simulate(3.0, t_eval=times, rtol=RTOL, atol=ATOL,
                            integrator_options={"method": "BDF"})
    # the prescribed angle is followed exactly
    np.testing.assert_allclose(sol["body.phi"], filtered_ramp(times), atol=1e-9)
    np.testing.assert_allclose(sol["revolute1.phi"], sol["body.phi"], atol=1e-12)
    # Dymola reference values (t = 0.5 from the CSV; t = 3 in section 4.12 of the doc)
    np.testing.assert_allclose([sol["prismatic.s"][2], sol["prismatic.v"][2]],
                               [1.064784, 3.038744], atol=1e-5)
    np.testing.assert_allclose([sol["prismatic.s"][-1], sol["prismatic.v"][-1]],
                               [6.03034, 1.94242], atol=1e-5)
    # the driving force is readable and equals the rate of the horizontal momentum
    momentum_rate = 1.0 * sol["body1.a[0]"] + 0.5 * sol["body.a[0]"]
    np.testing.assert_allclose(sol["force.f"], momentum_rate, atol=1e-8)
    # t = 0: phi = -0.5, w = 0, phi'' = (ramp slope 1/s)/T; the pendulum's moment balance about
    # the pivot (m2 = 0.5, I2 = 0.1 at the rod tip, rod 1 m) gives the crab acceleration x'':
    # m2*(phi'' - g*sin(phi) - cos(phi)*x'') + I2*phi'' = 0;  f = (m1 + m2)*x'' - m2*cos(phi)*phi''
    phi0, dd_phi0 = -0.5, 1.0 / T_FILTER
    xdd0 = ((0.5 + 0.1) * dd_phi0 - 0.5 * 9.81 * np.sin(phi0)) / (0.5 * np.cos(phi0))
    assert sol["force.f"][0] == pytest.approx(1.5 * xdd0 - 0.5 * np.cos(phi0) * dd_phi0, abs=1e-8)
    assert abs(sol["force.f"][-1]) < 1e-6  # upright and coasting at t = 3


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("InvertedCraneCrab")
    sol = compiled.simulate(3.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("body.phi", "prismatic.s", "prismatic.v"):
        check_signal(name, sol[name], ref[name])
