"""Cross-validation: PlanarMechanics ``VehicleComponents/Examples/TestSlipBasedWheel.mo``
(t_end = 20 s, g = 0).

Model (``shared/docs/planar_mechanics.md`` section 4.7): Fixed -> Revolute (phi0 = 0, w0 = 0) ->
Prismatic r = (0, 1) (s0 = 1, v0 = 0) -> node with Body(m = 10, I = 1) and
``SlipBasedWheelJoint(radius = 0.3, r = (1, 0), mu_A = 0.8, mu_S = 0.4, N = 100,
sAdhesion = 0.04, sSlide = 0.12, vAdhesion_min = 0.05, vSlide_min = 0.15)`` with
``dynamicLoad = 0`` (a ``blocks.Constant``); the wheel flange drives an Inertia(J = 1, phi0 = 0,
w0 = 0) with ConstantTorque(2). The wheel starts from exactly zero spin and zero speed (the
Multibody.jl test needs ``inertia.w = 1e-10``; here the formulation is regular at rest).

Reference accuracy. Every signal matches the Dymola result to < 1.1e-5 of its range except the
small lateral speed ``prismatic.v`` (range 0.198 m/s): where the slip speed crosses the adhesion
peak of ``limit_S_triple`` (C1 only; around t = 4.5 s, 13-16 s and 17-20 s) the difference
reaches 2.2e-4 of the range (4.4e-5 m/s at t = 17.8 s), in short blips that decay again. Our
solution is converged (rtol 1e-9 vs 1e-12: 2e-7 of the range), while the same model integrated at
the reference's tolerance (rtol = atol = 1e-6) moves by up to 6.6e-4 of the range, so the
reference (DASSL, tolerance 1e-6) is not accurate to 1e-4 in this signal. ``prismatic.v`` is
therefore compared over the whole span at 1e-4 allowing a time shift of at most 1 ms (a quarter
of the output interval); its plain error is printed.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import blocks, rotational
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed
from acausal.components.planar.vehicle import SlipBasedWheelJoint

RTOL, ATOL = 1e-9, 1e-11
PACKAGE = "planar_mechanics/PlanarMechanics/VehicleComponents/Examples"
MAX_SHIFT = 1e-3


class SlipBasedWheelExample(Component):
    """TestSlipBasedWheel (renamed so that pytest does not collect it)."""

    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    prismatic = Prismatic(r=[0.0, 1.0], s=Variable(start=1.0, fixed=True),
                          v=Variable(start=0.0, fixed=True))
    body = Body(m=10.0, I=1.0, g=[0.0, 0.0])
    inertia = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
    engineTorque = rotational.ConstantTorque(tau_constant=2.0)
    slipBasedWheelJoint = SlipBasedWheelJoint(radius=0.3, r=[1.0, 0.0], mu_A=0.8, mu_S=0.4,
                                              N=100.0, sAdhesion=0.04, sSlide=0.12,
                                              vAdhesion_min=0.05, vSlide_min=0.15)
    const = blocks.Constant(k=0.0)

    def connections(self):
        return [connect(self.prismatic.frame_a, self.revolute.frame_b),
                connect(self.revolute.frame_a, self.fixed.frame),
                connect(self.engineTorque.flange, self.inertia.flange_a),
                connect(self.body.frame_a, self.prismatic.frame_b),
                connect(self.slipBasedWheelJoint.frame_a, self.prismatic.frame_b),
                connect(self.slipBasedWheelJoint.flange_a, self.inertia.flange_b),
                connect(self.const.y, self.slipBasedWheelJoint.dynamicLoad)]



@pytest.fixture(scope="module")
def compiled():
    return compile(SlipBasedWheelExample())


def test_starts_exactly_at_rest(compiled):
    assert set(compiled.state_names) == {"revolute.phi", "revolute.w", "prismatic.s",
                                         "prismatic.v", "inertia.phi", "inertia.w"}
    sol = compiled.simulate(0.5, t_eval=[0.0, 0.5], rtol=RTOL, atol=ATOL)
    assert sol["inertia.w"][0] == 0.0 and sol["slipBasedWheelJoint.v_long"][0] == 0.0
    assert sol["slipBasedWheelJoint.v_slip"][0] == pytest.approx(1e-4, abs=1e-15)
    assert sol["slipBasedWheelJoint.f_long"][0] == 0.0


def test_checkpoints(compiled):
    times = [1.0, 5.0, 10.0, 15.0, 20.0]
    sol = compiled.simulate(20.0, t_eval=[0.0, *times], rtol=RTOL, atol=ATOL)
    i = [1, 2, 3, 5]  # t = 1, 5, 10, 20
    # section 4.7 of docs/planar_mechanics.md (Dymola reference values)
    np.testing.assert_allclose(sol["body.phi"][i], [-0.15005, -3.73502, -13.8117, -34.8142],
                               atol=5e-4)
    np.testing.assert_allclose(sol["inertia.w"][i], [1.00728, 5.00467, 9.49925, 15.3851],
                               atol=5e-4)
    np.testing.assert_allclose(sol["prismatic.s"][i], [1.00012, 1.01632, 1.20638, 2.65667],
                               atol=5e-5)
    np.testing.assert_allclose(sol["revolute.w"][i], [-0.300764, -1.47561, -2.3585, -1.7327],
                               atol=5e-5)
    # independent re-derivation quoted in section 4.7: (f_lat, f_long)(15) = (79.49, -4.977),
    # (20) = (79.64, -4.945) (Multibody.jl asserts (80, -5) and (80, -4.95) with rtol 0.01)
    np.testing.assert_allclose(sol["slipBasedWheelJoint.f_lat"][[4, 5]], [79.49, 79.64],
                               atol=0.01)
    np.testing.assert_allclose(sol["slipBasedWheelJoint.f_long"][[4, 5]], [-4.977, -4.945],
                               atol=0.002)


def test_against_reference(compiled, load_reference, check_signal, shifted_error):
    ref = load_reference("TestSlipBasedWheel", package=PACKAGE)
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
    ref = load_reference("TestSlipBasedWheel", package=PACKAGE)
    sol = compiled.simulate(20.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    plain = np.max(np.abs(sol["prismatic.v"] - ref["prismatic.v"])) / np.ptp(ref["prismatic.v"])
    assert plain < 1e-4
