"""Planar wheel joints (components/planar/wheels.py) against closed-form results.

* single wheel (Body m, I at the centre) driven by a constant torque ``tau`` (CCW positive):
  rolling without slip gives ``w' = tau/(I + m R^2)`` and ``vx' = -R w'``;
* a wheel thrown with speed v0 and no spin on a slipping joint ends rolling at
  ``v0 m/(m + I/R^2)`` (``I w - m R v`` is conserved: the contact force's moment about the
  contact line is zero);
* every joint starts from exactly zero speed and spin (no division by |v| at rest);
* sign conventions: ``frame_a.fy = -m g``; the ground force on the wheel is ``-frame_a.fx`` and
  opposes the slip; ``w_roll > 0`` rolls towards +x.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components.planar.parts import Body, World
from acausal.components.planar.sources import WorldTorque
from acausal.components.planar.wheels import (
    DryFrictionBasedRolling,
    IdealRolling,
    OneDOFRollingWheelJoint,
    OneDOFSlippingWheelJoint,
)

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
M, J, R, G = 1.0, 0.005, 0.1, 9.81  # the example wheel of examples/slipping_wheel.py
SLIP = {"vAdhesion_min": 0.05, "vSlide_min": 0.15, "sAdhesion": 0.04, "sSlide": 0.12,
        "mu_A": 0.8, "mu_S": 0.4, "radius": R}


def _fixed(value):
    return Variable(start=value, fixed=True)


def wheel_model(joint, tau=0.0, m=M, inertia=J):
    """Body(m, inertia) on ``joint`` with a constant torque ``tau`` (CCW) on the body."""

    class Wheel(Component):
        world = World(g=G)  # the example wheel's g; the expected forces below use G
        body = Body(m=m, I=inertia)
        wheel = joint
        drive = WorldTorque()

        def equations(self):
            return [Eq(self.drive.torque, tau)]

        def connections(self):
            return [connect(self.body.frame_a, self.wheel.frame_a),
                    connect(self.drive.frame_b, self.body.frame_a)]

    return Wheel()


def slipping(x=0.0, v=0.0, w_roll=0.0, **params):
    return OneDOFSlippingWheelJoint(**{**SLIP, **params}, x=_fixed(x), v=_fixed(v),
                                    phi_roll=_fixed(0.0), w_roll=_fixed(w_roll))


# ------------------------------------------------------------------------------------------------
# ideal rolling
# ------------------------------------------------------------------------------------------------


def test_ideal_rolling_torque_driven():
    tau = -1.0  # clockwise: rolls towards +x
    joint = IdealRolling(R=R, x=_fixed(0.0), phi=_fixed(0.0), w=_fixed(0.0))
    sol = compile(wheel_model(joint, tau)).simulate(1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    alpha = tau / (J + M * R**2)
    t = sol.t
    np.testing.assert_allclose(sol["wheel.w"], alpha * t, atol=1e-10)
    np.testing.assert_allclose(sol["wheel.vx"], -R * alpha * t, atol=1e-10)
    np.testing.assert_allclose(sol["wheel.x"], -R * alpha * t**2 / 2, atol=1e-10)
    assert sol["wheel.x"][-1] > 0
    np.testing.assert_allclose(sol["body.r"][1], R, atol=1e-12)
    # ground force on the wheel -a.fx = m a (towards +x); a.tau = R a.fx; a.fy = -m g
    np.testing.assert_allclose(-sol["wheel.frame_a.fx"], -M * R * alpha, rtol=1e-9)
    np.testing.assert_allclose(sol["wheel.frame_a.tau"], R * sol["wheel.frame_a.fx"], atol=1e-12)
    np.testing.assert_allclose(sol["wheel.frame_a.fy"], -M * G, rtol=1e-12)


def test_one_dof_rolling_joint_torque_driven():
    tau = -1.0
    joint = OneDOFRollingWheelJoint(radius=R, x0=0.3, phi_roll=_fixed(0.0), v=_fixed(0.0))
    cs = compile(wheel_model(joint, tau))
    assert cs.n_states == 2
    sol = cs.simulate(1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    acc = -R * tau / (J + M * R**2)
    np.testing.assert_allclose(sol["wheel.v"], acc * sol.t, atol=1e-10)
    np.testing.assert_allclose(sol["wheel.x"], 0.3 + acc * sol.t**2 / 2, atol=1e-10)
    np.testing.assert_allclose(sol["wheel.x"], 0.3 + R * sol["wheel.phi_roll"], atol=1e-12)
    np.testing.assert_allclose(sol["wheel.w_roll"], sol["wheel.v"] / R, atol=1e-10)
    np.testing.assert_allclose(sol["body.phi"], -sol["wheel.phi_roll"], atol=1e-12)


# ------------------------------------------------------------------------------------------------
# dry-friction rolling (Modelica)
# ------------------------------------------------------------------------------------------------


def dry(vx=0.0, w=0.0):
    return DryFrictionBasedRolling(R=R, vAdhesion=0.05, vSlide=0.15, mu_A=0.8, mu_S=0.4,
                                   x=_fixed(0.0), vx=_fixed(vx), phi=_fixed(0.0), w=_fixed(w))


def test_dry_friction_rolling_from_rest():
    sol = compile(wheel_model(dry())).simulate(1.0, n_points=11, **TIGHT)
    for name in ("wheel.x", "wheel.vx", "wheel.w", "wheel.v_slip", "wheel.frame_a.fx"):
        assert np.all(np.isfinite(sol[name]))
        np.testing.assert_allclose(sol[name], 0.0, atol=1e-14)
    np.testing.assert_allclose(sol["wheel.N"], M * G, rtol=1e-12)


def test_dry_friction_rolling_thrown():
    v0 = 2.0
    sol = compile(wheel_model(dry(vx=v0))).simulate(2.0, t_eval=[0.0, 0.05, 2.0], **TIGHT)
    # sliding: the ground force on the wheel opposes the slip (-a.fx = -mu_S m g)
    assert sol["wheel.frame_a.fx"][1] == pytest.approx(0.4 * M * G, rel=1e-9)
    np.testing.assert_allclose(sol["wheel.vx"][-1], v0 * M / (M + J / R**2), rtol=1e-9)
    np.testing.assert_allclose(sol["wheel.v_slip"][-1], 0.0, atol=1e-9)


def test_dry_friction_rolling_spins_under_large_torque():
    """A torque above the adhesion limit mu_A m g R (I + m R^2)/(m R^2) spins the wheel: it
    slides with mu_S and the centre accelerates with mu_S g."""
    sol = compile(wheel_model(dry(), tau=-3.0)).simulate(1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    assert sol["wheel.v_slip"][-1] < -0.15
    acc = np.diff(sol["wheel.vx"][1:]) / 0.5
    assert acc[0] == pytest.approx(0.4 * G, rel=1e-9)


# ------------------------------------------------------------------------------------------------
# OneDOFSlippingWheelJoint (Dyad / Multibody.jl)
# ------------------------------------------------------------------------------------------------


def test_slipping_wheel_from_exact_rest():
    cs = compile(wheel_model(slipping()))
    assert set(cs.state_names) == {"wheel.x", "wheel.v", "wheel.phi_roll", "wheel.w_roll"}
    sol = cs.simulate(1.0, n_points=11, **TIGHT)
    for name in ("wheel.x", "wheel.v", "wheel.w_roll", "wheel.v_slip_long", "wheel.f_long"):
        assert np.all(np.isfinite(sol[name]))
        np.testing.assert_allclose(sol[name], 0.0, atol=1e-14)
    np.testing.assert_allclose(sol["wheel.v_slip"], 1e-4, rtol=1e-12)
    np.testing.assert_allclose(sol["wheel.f_n"], -M * G, rtol=1e-12)
    np.testing.assert_allclose(sol["wheel.vAdhesion"], 0.05, rtol=1e-12)
    np.testing.assert_allclose(sol["wheel.vSlide"], 0.15, rtol=1e-12)


def test_slipping_wheel_thrown_final_speed():
    """Thrown with v0 = 2 m/s and no spin: ends rolling at v0 m/(m + J/R^2) (1e-6 relative)."""
    v0 = 2.0
    cs = compile(wheel_model(slipping(v=v0)))
    sol = cs.simulate(2.0, t_eval=np.linspace(0.0, 2.0, 41), **TIGHT)
    v_end = v0 * M / (M + J / R**2)
    assert sol["wheel.v"][-1] == pytest.approx(v_end, rel=1e-6)
    assert R * sol["wheel.w_roll"][-1] == pytest.approx(v_end, rel=1e-6)
    # conserved: J w_body - m R v (the contact force has no moment about the contact point)
    np.testing.assert_allclose(J * sol["body.w"] - M * R * sol["wheel.v"], -M * R * v0,
                               atol=1e-12)
    # sliding at first: the ground force on the wheel (-f_long) is -mu_S m g
    assert -sol["wheel.f_long"][1] == pytest.approx(-0.4 * M * G, rel=1e-3)
    assert sol["wheel.f"][1] < 0  # f = f_n*mu with f_n < 0
    # never faster (friction only brakes), up to the integrator's relative accuracy rtol * v0
    assert np.all(np.diff(sol["wheel.v"]) <= TIGHT["rtol"] * v0)


def test_slipping_wheel_torque_drive_rolls_forward():
    """Constant clockwise torque from rest: rolls towards +x with a small negative slip (the
    contact point moves backwards) and nearly the rolling acceleration R tau/(J + m R^2)."""
    tau = -1.0
    sol = compile(wheel_model(slipping(), tau=tau)).simulate(1.0, n_points=11, **TIGHT)
    v, w_roll, s = sol["wheel.v"], sol["wheel.w_roll"], sol["wheel.v_slip_long"]
    assert np.all(v[1:] > 0) and sol["wheel.x"][-1] > 0 and np.all(w_roll[1:] > 0)
    assert np.all(s[1:] < 0) and np.all(np.abs(s[1:]) < 0.1 * v[1:])
    acc_roll = -R * tau / (J + M * R**2)
    assert v[-1] == pytest.approx(acc_roll, rel=0.05)
    # the ground pushes the wheel forward: -f_long > 0, below the adhesion peak mu_A m g
    assert np.all(-sol["wheel.f_long"][1:] > 0)
    assert np.all(-sol["wheel.f_long"] < 0.8 * M * G)
    # slip-dependent thresholds grow with the rolling speed
    np.testing.assert_allclose(sol["wheel.vAdhesion"][-1],
                               max(0.05, 0.04 * R * w_roll[-1]), rtol=1e-12)
    np.testing.assert_allclose(sol["wheel.vSlide"][-1], max(0.15, 0.12 * R * w_roll[-1]),
                               rtol=1e-12)


def test_slipping_wheel_thresholds_scale_with_speed():
    """At 20 m/s rolling speed the thresholds are sAdhesion*|R w_roll|, sSlide*|R w_roll|."""
    sol = compile(wheel_model(slipping(v=20.0, w_roll=200.0))).simulate(
        0.1, t_eval=[0.0, 0.1], **TIGHT)
    np.testing.assert_allclose(sol["wheel.vAdhesion"], 0.04 * 20.0, rtol=1e-6)
    np.testing.assert_allclose(sol["wheel.vSlide"], 0.12 * 20.0, rtol=1e-6)
    np.testing.assert_allclose(sol["wheel.v"], 20.0, rtol=1e-9)  # free rolling: no force


def test_slipping_matches_dry_friction_law():
    """With constant thresholds and a tiny v_small the joint equals DryFrictionBasedRolling
    (N = -f_n): same thrown-wheel motion."""
    one = OneDOFSlippingWheelJoint(**{**SLIP, "sAdhesion": 0.0, "sSlide": 0.0}, v_small=1e-9,
                                   x=_fixed(0.0), v=_fixed(2.0), phi_roll=_fixed(0.0),
                                   w_roll=_fixed(0.0))
    times = np.linspace(0.0, 0.5, 26)
    a = compile(wheel_model(one)).simulate(0.5, t_eval=times, **TIGHT)
    b = compile(wheel_model(dry(vx=2.0))).simulate(0.5, t_eval=times, **TIGHT)
    np.testing.assert_allclose(a["wheel.v"], b["wheel.vx"], atol=1e-6)
    np.testing.assert_allclose(-a["wheel.w_roll"], b["wheel.w"], atol=1e-5)
