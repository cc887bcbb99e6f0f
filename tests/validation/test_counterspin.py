"""Cross-validation: PlanarMechanics ``Examples/CounterSpin.mo`` (t_end = 3 s), built with
:class:`DryFrictionBasedRolling` (as the Modelica example) and with
:class:`OneDOFSlippingWheelJoint` (Multibody.jl/Dyad), plus the Multibody.jl
``test/test_OneDOFWheelJoint.jl`` case "wheel spinning in origin".

CounterSpin (section 4.4 of docs/planar_mechanics.md; topology from the Modelica example):
Body(m = 0.01, I = 0.0005) on DryFrictionBasedRolling(R = 0.1, vAdhesion = 0.01, vSlide = 0.03,
mu_A = 0.5, mu_S = 0.15); x0 = 0, vx0 = 2, phi0 = 0, w0 = 15 (all fixed); g = 9.81.
Analytic: N = m g; while sliding (|v_slip| >= vSlide, mu = mu_S) ``vx' = -mu_S g = -1.4715`` and
``w' = -mu_S m g R/I = -2.943``, so ``v_slip = vx + w R = 3.5 - 1.7658 t`` reaches the adhesion
zone at t ~ 1.98 s. ``m R vx - I w`` is conserved (= -0.0055), so the wheel then rolls at
``w = 0.0055/(I + m R^2) = 9.16667`` and ``vx = -R w = -0.916667``.

With OneDOFSlippingWheelJoint (sAdhesion = sSlide = 0 so the thresholds are the constants
vAdhesion_min = 0.01, vSlide_min = 0.03; w_roll0 = -15 is the CCW spin 15 rad/s) the friction
is reduced by the factor |s|/(|s| + 1e-4) of the regularisation, which gives x(3) = 0.140647
instead of 0.140482 (section 4.4); the end state is the same.

"Wheel spinning in origin" (section 4.5): Body(m = 0.1, I = 0.1, w0 = 30, g = 9.82) on
OneDOFSlippingWheelJoint(x0 = 0, v0 = 0, radius = 1, mu_A = 0.95, mu_S = 0.7, sAdhesion = 0.04,
sSlide = 0.12, vAdhesion_min = 0.05, vSlide_min = 0.15); ``I w - m R v`` is conserved (= 3), so
it ends rolling at w = 15, v = -15 (reached at t ~ 2.2 s); x(3) = -28.6399.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.parts import Body, World
from acausal.components.planar.wheels import DryFrictionBasedRolling, OneDOFSlippingWheelJoint

RTOL, ATOL = 1e-9, 1e-11
M, I, R, G = 0.01, 0.0005, 0.1, 9.81  # noqa: E741
W_ROLL = (I * 15.0 - M * R * 2.0) / (I + M * R**2)  # 9.16667 (CCW), from m R vx - I w = const
SIGNALS = {"body.r[1]": "x", "body.v[1]": "v", "slipBasedRolling.phi": "phi",
           "slipBasedRolling.w": "w"}


def _fixed(value):
    return Variable(start=value, fixed=True)


class CounterSpin(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    body = Body(m=M, I=I)
    slipBasedRolling = DryFrictionBasedRolling(R=R, vAdhesion=0.01, vSlide=0.03, mu_A=0.5,
                                               mu_S=0.15, x=_fixed(0.0), vx=_fixed(2.0),
                                               phi=_fixed(0.0), w=_fixed(15.0))

    def connections(self):
        return [connect(self.body.frame_a, self.slipBasedRolling.frame_a)]


class CounterSpinOneDOF(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    body = Body(m=M, I=I)
    wheel = OneDOFSlippingWheelJoint(radius=R, vAdhesion_min=0.01, vSlide_min=0.03, sAdhesion=0.0,
                                     sSlide=0.0, mu_A=0.5, mu_S=0.15, x=_fixed(0.0),
                                     v=_fixed(2.0), phi_roll=_fixed(0.0), w_roll=_fixed(-15.0))

    def connections(self):
        return [connect(self.body.frame_a, self.wheel.frame_a)]


class SpinningInOrigin(Component):
    body = Body(m=0.1, I=0.1, g=[0.0, -9.82])
    wheel = OneDOFSlippingWheelJoint(radius=1.0, mu_A=0.95, mu_S=0.7, sAdhesion=0.04,
                                     sSlide=0.12, vAdhesion_min=0.05, vSlide_min=0.15,
                                     x=_fixed(0.0), v=_fixed(0.0), phi_roll=_fixed(0.0),
                                     w_roll=_fixed(-30.0))

    def connections(self):
        return [connect(self.body.frame_a, self.wheel.frame_a)]


def _dry(sol):
    return {"x": sol["body.r"][0], "v": sol["body.v"][0], "phi": sol["slipBasedRolling.phi"],
            "w": sol["slipBasedRolling.w"]}


def _one_dof(sol):
    return {"x": sol["wheel.x"], "v": sol["wheel.v"], "phi": -sol["wheel.phi_roll"],
            "w": -sol["wheel.w_roll"]}


@pytest.fixture(scope="module")
def compiled():
    return compile(CounterSpin())


@pytest.fixture(scope="module")
def compiled_one_dof():
    return compile(CounterSpinOneDOF())


def test_states(compiled, compiled_one_dof):
    assert set(compiled.state_names) == {"slipBasedRolling.x", "slipBasedRolling.vx",
                                         "slipBasedRolling.phi", "slipBasedRolling.w"}
    assert set(compiled_one_dof.state_names) == {"wheel.x", "wheel.v", "wheel.phi_roll",
                                                 "wheel.w_roll"}


def test_checkpoints(compiled):
    times = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0]
    s = _dry(compiled.simulate(3.0, t_eval=times, rtol=RTOL, atol=ATOL))
    # sliding phase, exact: vx = 2 - 1.4715 t, w = 15 - 2.943 t (section 4.4)
    t = np.array(times[:4])
    np.testing.assert_allclose(s["v"][:4], 2.0 - 1.4715 * t, atol=1e-9)
    np.testing.assert_allclose(s["w"][:4], 15.0 - 2.943 * t, atol=1e-9)
    np.testing.assert_allclose(s["x"][:4], 2.0 * t - 0.5 * 1.4715 * t**2, atol=1e-9)
    np.testing.assert_allclose(s["phi"][:4], 15.0 * t - 0.5 * 2.943 * t**2, atol=1e-9)
    # rolling phase (section 4.4 table)
    np.testing.assert_allclose(s["x"][4:], [1.05715, 0.140482], atol=5e-6)
    np.testing.assert_allclose(s["phi"][4:], [24.1143, 33.281], atol=5e-5)
    np.testing.assert_allclose(s["w"][4:], W_ROLL, rtol=1e-7)
    np.testing.assert_allclose(s["v"][4:], -R * W_ROLL, rtol=1e-7)
    # conserved: m R vx - I w = -0.0055
    np.testing.assert_allclose(M * R * s["v"] - I * s["w"], -0.0055, atol=1e-13)


def test_normal_force_and_dissipation(compiled):
    sol = compiled.simulate(3.0, n_points=61, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["slipBasedRolling.N"], M * G, rtol=1e-12)
    assert np.all(sol["slipBasedRolling.lossPower"] >= -1e-12)
    # friction power during sliding: mu_S N v_slip
    np.testing.assert_allclose(sol["slipBasedRolling.lossPower"][0], 0.15 * M * G * 3.5,
                               rtol=1e-9)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("CounterSpin")
    s = _dry(compiled.simulate(3.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL))
    for name, key in SIGNALS.items():
        check_signal(name, s[key], ref[name])


def test_one_dof_slipping_wheel(compiled, compiled_one_dof):
    times = np.linspace(0.0, 3.0, 31)
    s1 = _one_dof(compiled_one_dof.simulate(3.0, t_eval=times, rtol=RTOL, atol=ATOL))
    # section 4.4: x(3) = 0.140647, w(3) = 9.166667 with the +1e-4 regularisation
    assert s1["x"][-1] == pytest.approx(0.140647, abs=2e-6)
    assert s1["w"][-1] == pytest.approx(W_ROLL, rel=1e-7)
    assert s1["v"][-1] == pytest.approx(-R * W_ROLL, rel=1e-7)
    np.testing.assert_allclose(M * R * s1["v"] - I * s1["w"], -0.0055, atol=1e-13)
    # same motion as DryFrictionBasedRolling up to the regularisation (section 4.4: rtol 2e-3)
    s0 = _dry(compiled.simulate(3.0, t_eval=times, rtol=RTOL, atol=ATOL))
    for key in ("x", "v", "phi", "w"):
        err = np.max(np.abs(s1[key] - s0[key])) / np.ptp(s0[key])
        assert err < 2e-3, (key, err)


def test_one_dof_against_reference(compiled_one_dof, load_reference, check_signal):
    ref = load_reference("CounterSpin")
    s = _one_dof(compiled_one_dof.simulate(3.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL))
    for name, key in SIGNALS.items():
        check_signal(name, s[key], ref[name], tol=2e-3)


def test_wheel_spinning_in_origin():
    cs = compile(SpinningInOrigin())
    sol = cs.simulate(3.0, t_eval=[0.0, 2.0, 2.5, 3.0], rtol=RTOL, atol=ATOL)
    v, w = sol["wheel.v"], sol["body.w"]
    # Multibody.jl asserts: v(3) + w(3) ~ 0 (atol 1e-3) and v(3) < 0
    assert abs(v[-1] + w[-1]) < 1e-3 and v[-1] < 0
    # analytic end state (I w - m R v = 3) and section 4.5 re-derivation
    np.testing.assert_allclose(0.1 * w - 0.1 * 1.0 * v, 3.0, atol=1e-11)
    assert v[1] > -15.0 + 1e-3  # still slipping at t = 2
    np.testing.assert_allclose(v[2:], -15.0, rtol=1e-7)
    np.testing.assert_allclose(w[2:], 15.0, rtol=1e-7)
    assert sol["wheel.x"][-1] == pytest.approx(-28.6399, abs=1e-4)
    np.testing.assert_allclose(sol["wheel.f_n"], -0.1 * 9.82, rtol=1e-12)
