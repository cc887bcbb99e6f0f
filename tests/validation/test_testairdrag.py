"""Cross-validation: PlanarMechanics ``VehicleComponents/Examples/TestAirDrag.mo``
(t_end = 10 s, g = 0; analytic).

Model (``shared/docs/planar_mechanics.md`` section 4.12): Fixed -> Revolute (phi0 = 0,
w0 = -5) -> FixedTranslation (0, 2) -> node with Body(m = 10, I = 1) and
``AirResistanceLongitudinal(c_W = 0.5, area = 1.2, rho = 1.18, r = (1, 0))``. The body circles
the origin at radius R = 2 and moving in +x of its frame (w < 0), so the drag
``0.5*rho*c_W*area*(R w)^2`` acts against the motion:
``(m R^2 + I) w' = -R * 0.5*rho*c_W*area*R^2 w^2``, i.e. ``w' = -k w^2`` with
``k = 0.5*rho*c_W*area*R^3/(m R^2 + I) = 2.832/41``, hence ``w = w0/(1 - k w0 t)`` and
``phi = -ln(1 - k w0 t)/k``.

(The Modelica model also holds an AbsoluteVelocity sensor, which applies no force and is omitted;
Modelica's ``w(fixed=false, start=-5)`` with ``stateSelect=always`` starts from the start value,
written here as ``fixed=True``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation
from acausal.components.planar.vehicle import AirResistanceLongitudinal

RTOL, ATOL = 1e-10, 1e-12
PACKAGE = "planar_mechanics/PlanarMechanics/VehicleComponents/Examples"
K = 0.5 * 1.18 * 0.5 * 1.2 * 2.0**3 / (10.0 * 2.0**2 + 1.0)
W0 = -5.0


class AirDragExample(Component):
    """TestAirDrag (renamed so that pytest does not collect it)."""

    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=W0, fixed=True))
    fixedTranslation = FixedTranslation(r=[0.0, 2.0])
    body = Body(m=10.0, I=1.0, g=[0.0, 0.0])
    airDrag = AirResistanceLongitudinal(c_W=0.5, area=1.2, rho=1.18, r=[1.0, 0.0])

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.fixedTranslation.frame_a),
                connect(self.fixedTranslation.frame_b, self.body.frame_a),
                connect(self.fixedTranslation.frame_b, self.airDrag.frame_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(AirDragExample())


def test_analytic_and_checkpoints(compiled):
    assert set(compiled.state_names) == {"revolute.phi", "revolute.w"}
    t = np.linspace(0.0, 10.0, 21)
    sol = compiled.simulate(10.0, t_eval=t, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["revolute.w"], W0 / (1 - K * W0 * t), rtol=1e-8)
    np.testing.assert_allclose(sol["revolute.phi"], -np.log(1 - K * W0 * t) / K, rtol=1e-8,
                               atol=1e-10)
    # section 4.12 of docs/planar_mechanics.md: w' = -5/(1 + 0.3453658 t); Dymola at t = 10
    assert -K * W0 == pytest.approx(0.3453658, abs=1e-7)
    assert sol["revolute.phi"][-1] == pytest.approx(-21.6253, abs=5e-5)
    assert sol["revolute.w"][-1] == pytest.approx(-1.12268, abs=1e-5)
    # drag formula on the element (vAir[0] = -R*|w| in the driving frame)
    np.testing.assert_allclose(sol["airDrag.vAir[0]"], 2.0 * sol["revolute.w"], rtol=1e-9)
    np.testing.assert_allclose(sol["airDrag.f_long"],
                               0.5 * 1.18 * 0.5 * 1.2 * (2.0 * sol["revolute.w"]) ** 2,
                               rtol=1e-9)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("TestAirDrag", package=PACKAGE)
    sol = compiled.simulate(10.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("revolute.phi", "revolute.w"):
        check_signal(name, sol[name], ref[name])
