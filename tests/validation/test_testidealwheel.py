"""Cross-validation: PlanarMechanics ``VehicleComponents/Examples/TestIdealWheel.mo``
(t_end = 10 s, g = 0).

Model (``shared/docs/planar_mechanics.md`` section 4.6): Fixed -> Revolute (phi0 = 0) ->
Prismatic r = (0, 1) (s0 = 1, fixed) -> node with Body(m = 10, I = 1) and
``IdealWheelJoint(radius = 0.3, r = (1, 0))``; the wheel flange drives an Inertia(J = 1,
phi0 = 0, w0 = 0) with ConstantTorque(2). The wheel forbids lateral (radial) motion, so s = 1 and
the body runs on the unit circle with effective inertia 1 + (10*1^2 + 1)*0.3^2 = 1.99:
``inertia.phi = t^2/1.99``, ``revolute.w = -0.3*(2/1.99)*t``. The wheel starts from exactly zero
spin and speed.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import rotational
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed
from acausal.components.planar.vehicle import IdealWheelJoint

RTOL, ATOL = 1e-9, 1e-11
PACKAGE = "planar_mechanics/PlanarMechanics/VehicleComponents/Examples"


class IdealWheelExample(Component):
    """TestIdealWheel (renamed so that pytest does not collect it)."""

    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True))
    prismatic = Prismatic(r=[0.0, 1.0], s=Variable(start=1.0, fixed=True))
    body = Body(m=10.0, I=1.0, g=[0.0, 0.0])
    idealWheelJoint = IdealWheelJoint(radius=0.3, r=[1.0, 0.0])
    inertia = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
    engineTorque = rotational.ConstantTorque(tau_constant=2.0)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, self.body.frame_a),
                connect(self.prismatic.frame_b, self.idealWheelJoint.frame_a),
                connect(self.idealWheelJoint.flange_a, self.inertia.flange_b),
                connect(self.engineTorque.flange, self.inertia.flange_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(IdealWheelExample())


def test_checkpoints_and_analytic(compiled):
    times = np.linspace(0.0, 10.0, 11)
    sol = compiled.simulate(10.0, t_eval=times, rtol=RTOL, atol=ATOL)
    # section 4.6 of docs/planar_mechanics.md (Dymola reference values at t = 10)
    np.testing.assert_allclose([sol["inertia.phi"][-1], sol["prismatic.s"][-1],
                                sol["revolute.phi"][-1], sol["revolute.w"][-1]],
                               [50.2513, 1.0, -15.0754, -3.01508], atol=5e-5)
    # closed form (effective inertia 1.99 about the wheel axis)
    np.testing.assert_allclose(sol["inertia.phi"], times**2 / 1.99, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(sol["revolute.w"], -0.3 * 2.0 / 1.99 * times, rtol=1e-7,
                               atol=1e-9)
    np.testing.assert_allclose(sol["prismatic.s"], 1.0, atol=1e-9)
    # rolling without slip: v_long = radius * w_roll, and no lateral velocity
    np.testing.assert_allclose(sol["idealWheelJoint.v_long"], 0.3 * sol["inertia.w"], atol=1e-9)
    np.testing.assert_allclose(sol["prismatic.v"], 0.0, atol=1e-9)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("TestIdealWheel", package=PACKAGE)
    sol = compiled.simulate(10.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("inertia.phi", "prismatic.s", "revolute.phi", "revolute.w"):
        check_signal(name, sol[name], ref[name])
