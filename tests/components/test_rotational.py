"""Rotational components against closed-form solutions (the twin of test_translational).

* inertia-spring-damper ``J phi'' + d phi' + c (phi - phi_eq) = 0`` (under-, critically and
  overdamped);
* constant torque on a free inertia ``phi = phi0 + w0 t + tau t^2 / (2 J)``;
* sinusoidal torque through the variable-input ``Torque``.

The integrator runs at rtol=1e-10, atol=1e-12; the error allowed is 1e-6 of the amplitude.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Variable, compile, connect, time
from acausal.components.rotational import (
    ConstantTorque,
    Damper,
    Fixed,
    Inertia,
    Spring,
    SpringDamper,
    Torque,
)

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
REL = 1e-6  # allowed error relative to the amplitude


def oscillator(t, m, c, d, x0, v0):
    """Exact (x, v) of ``m x'' + d x' + c x = 0`` with x(0) = x0, x'(0) = v0."""
    w0 = np.sqrt(c / m)
    zeta = d / (2.0 * np.sqrt(c * m))
    if zeta < 1.0 - 1e-12:
        wd = w0 * np.sqrt(1.0 - zeta**2)
        sigma = zeta * w0
        a, b = x0, (v0 + sigma * x0) / wd
        e = np.exp(-sigma * t)
        x = e * (a * np.cos(wd * t) + b * np.sin(wd * t))
        v = e * ((b * wd - sigma * a) * np.cos(wd * t) - (a * wd + sigma * b) * np.sin(wd * t))
        return x, v
    if zeta > 1.0 + 1e-12:
        root = w0 * np.sqrt(zeta**2 - 1.0)
        r1, r2 = -zeta * w0 + root, -zeta * w0 - root
        a = (v0 - r2 * x0) / (r1 - r2)
        b = x0 - a
        return (a * np.exp(r1 * t) + b * np.exp(r2 * t),
                a * r1 * np.exp(r1 * t) + b * r2 * np.exp(r2 * t))
    e = np.exp(-w0 * t)
    k = v0 + w0 * x0
    return (x0 + k * t) * e, (k - w0 * (x0 + k * t)) * e


def assert_close(actual, expected, scale, rel=REL):
    err = np.max(np.abs(np.asarray(actual) - np.asarray(expected)))
    assert err <= rel * scale, f"max error {err:.3e} > {rel:g} * {scale:g}"


# J = 0.2 kg.m2, c = 20 N.m/rad, d = 0.3 N.m.s/rad: w0 = 10 rad/s, zeta = 0.075
J, C, D, PHI0, W0 = 0.2, 20.0, 0.3, 0.5, -1.0


class InertiaSpringDamper(Component):
    """Fixed -- (spring || damper) -- inertia, released from phi = 0.5 rad with w = -1 rad/s."""

    fixed = Fixed()
    spring = Spring(c=C)
    damper = Damper(d=D)
    inertia = Inertia(J=J, phi=Variable(start=PHI0, fixed=True),
                      w=Variable(start=W0, fixed=True))

    def connections(self):
        return [connect(self.fixed.flange, self.spring.flange_a),
                connect(self.fixed.flange, self.damper.flange_a),
                connect(self.spring.flange_b, self.inertia.flange_a),
                connect(self.damper.flange_b, self.inertia.flange_a)]


class InertiaSpringDamperCombined(Component):
    """The same oscillator with one SpringDamper on the inertia's flange_b."""

    fixed = Fixed()
    sd = SpringDamper(c=C, d=D)
    inertia = Inertia(J=J, phi=Variable(start=PHI0, fixed=True),
                      w=Variable(start=W0, fixed=True))

    def connections(self):
        return [connect(self.fixed.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.inertia.flange_b)]


class FreeInertia(Component):
    """A constant torque on an otherwise free inertia."""

    torque = ConstantTorque(tau_constant=0.6)
    inertia = Inertia(J=0.3, phi=Variable(start=1.0, fixed=True),
                      w=Variable(start=2.0, fixed=True))

    def connections(self):
        return [connect(self.torque.flange, self.inertia.flange_a)]


class DrivenInertia(Component):
    """A sinusoidal torque ``tau = T0 cos(w t)`` through the variable-input Torque."""

    torque = Torque()
    inertia = Inertia(J=0.25, phi=Variable(start=0.0, fixed=True),
                      w=Variable(start=0.0, fixed=True))

    def equations(self):
        return [Eq(self.torque.tau, 0.5 * sp.cos(3.0 * time))]

    def connections(self):
        return [connect(self.torque.flange, self.inertia.flange_b)]


class TwoInertias(Component):
    """Torque on inertia 1, coupled to inertia 2 by a spring-damper; nothing is fixed."""

    torque = ConstantTorque(tau_constant=2.0)
    i1 = Inertia(J=0.5, phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    sd = SpringDamper(c=50.0, d=1.0)
    i2 = Inertia(J=1.5, phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.torque.flange, self.i1.flange_a),
                connect(self.i1.flange_b, self.sd.flange_a),
                connect(self.sd.flange_b, self.i2.flange_a)]


@pytest.fixture(scope="module")
def isd():
    return compile(InertiaSpringDamper())


def test_isd_structure(isd):
    assert isd.n_states == 2
    assert set(isd.state_names) == {"inertia.phi", "inertia.w"}
    assert isd.is_ode
    assert isd.parameters() == {"fixed.phi0": 0.0, "spring.c": C, "spring.phi_rel0": 0.0,
                                "damper.d": D, "inertia.J": J}


def test_isd_underdamped_matches_analytic(isd):
    sol = isd.simulate(5.0, n_points=1001, **TIGHT)
    phi, w = oscillator(sol.t, J, C, D, PHI0, W0)
    amp = np.max(np.abs(phi))
    assert_close(sol["inertia.phi"], phi, amp)
    assert_close(sol["inertia.w"], w, np.max(np.abs(w)))
    assert np.count_nonzero(np.diff(np.sign(sol["inertia.phi"]))) >= 10


@pytest.mark.parametrize("d", [2.0 * np.sqrt(C * J), 10.0], ids=["critical", "overdamped"])
def test_isd_critical_and_overdamped(isd, d):
    sol = isd.simulate(5.0, n_points=501, params={"damper.d": d}, **TIGHT)
    phi, w = oscillator(sol.t, J, C, d, PHI0, W0)
    assert_close(sol["inertia.phi"], phi, PHI0)
    assert_close(sol["inertia.w"], w, np.max(np.abs(w)))


def test_spring_damper_equals_spring_plus_damper(isd):
    combined = compile(InertiaSpringDamperCombined())
    assert combined.n_states == 2
    a = isd.simulate(5.0, n_points=501, **TIGHT)
    b = combined.simulate(5.0, n_points=501, **TIGHT)
    phi, _ = oscillator(b.t, J, C, D, PHI0, W0)
    assert_close(b["inertia.phi"], phi, PHI0)
    assert_close(b["inertia.phi"], a["inertia.phi"], PHI0)
    assert_close(b["sd.tau"], a["spring.tau"] + a["damper.tau"], C * PHI0)
    assert_close(b["sd.w_rel"], b["inertia.w"], np.max(np.abs(b["inertia.w"])))


def test_params_change_without_recompiling(isd):
    ode_function = isd.function("ode")
    base = isd.simulate(5.0, n_points=501, **TIGHT)
    new = {"inertia.J": 0.05, "spring.c": 12.0, "damper.d": 0.05}
    sol = isd.simulate(5.0, n_points=501, params=new, **TIGHT)
    assert sol.compiled is isd
    assert isd.function("ode") is ode_function
    assert isd.parameters()["inertia.J"] == J
    assert sol["inertia.J"][0] == 0.05
    phi, w = oscillator(sol.t, 0.05, 12.0, 0.05, PHI0, W0)
    assert_close(sol["inertia.phi"], phi, np.max(np.abs(phi)))
    assert_close(sol["inertia.w"], w, np.max(np.abs(w)))
    assert np.max(np.abs(sol["inertia.phi"] - base["inertia.phi"])) > 0.1
    again = isd.simulate(5.0, n_points=501, **TIGHT)
    np.testing.assert_allclose(again["inertia.phi"], base["inertia.phi"], rtol=0, atol=1e-14)


def test_offset_fixed_angle_and_unstretched_angle(isd):
    sol = isd.simulate(5.0, n_points=501, params={"fixed.phi0": 0.3, "spring.phi_rel0": 0.4},
                       **TIGHT)
    eq = 0.3 + 0.4
    phi, _ = oscillator(sol.t, J, C, D, PHI0 - eq, W0)
    assert_close(sol["inertia.phi"], eq + phi, np.max(np.abs(phi)))
    np.testing.assert_allclose(sol["fixed.flange.phi"], 0.3, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sol["damper.phi_rel"], sol["inertia.phi"] - 0.3, rtol=0,
                               atol=1e-12)


def test_isd_torques_and_connector_variables(isd):
    sol = isd.simulate(5.0, n_points=501, **TIGHT)
    phi, w = sol["inertia.phi"], sol["inertia.w"]
    t_spring, t_damper = sol["spring.tau"], sol["damper.tau"]
    scale = C * PHI0
    assert_close(t_spring, C * phi, scale)
    assert_close(t_damper, D * w, scale)
    assert_close(sol["damper.w_rel"], w, np.max(np.abs(w)))
    assert_close(sol["spring.flange_b.tau"], t_spring, scale)
    assert_close(sol["spring.flange_a.tau"], -t_spring, scale)
    assert_close(sol["damper.flange_a.tau"], -t_damper, scale)
    # the support carries spring + damper torque; its reaction on them is the opposite
    assert_close(sol["fixed.flange.tau"], t_spring + t_damper, scale)
    assert_close(sol["fixed.flange.tau"] + sol["spring.flange_a.tau"]
                 + sol["damper.flange_a.tau"], 0.0, scale)
    assert_close(sol["inertia.flange_a.tau"] + sol["spring.flange_b.tau"]
                 + sol["damper.flange_b.tau"], 0.0, scale)
    np.testing.assert_array_equal(sol["inertia.flange_b.tau"], 0.0)
    assert_close(J * sol["inertia.a"], -(t_spring + t_damper), scale)
    assert_close(sol["der(inertia.w)"], sol["inertia.a"], scale / J)
    np.testing.assert_allclose(sol["spring.flange_b.phi"], phi, rtol=0, atol=1e-14)


def test_constant_torque_on_free_inertia():
    cs = compile(FreeInertia())
    assert cs.n_states == 2
    sol = cs.simulate(2.0, n_points=201, **TIGHT)
    t = sol.t
    phi0, w0, tau, j = 1.0, 2.0, 0.6, 0.3
    phi = phi0 + w0 * t + tau * t**2 / (2 * j)
    assert_close(sol["inertia.phi"], phi, np.max(np.abs(phi)))
    assert_close(sol["inertia.w"], w0 + tau * t / j, np.max(np.abs(phi)))
    np.testing.assert_allclose(sol["inertia.a"], tau / j, rtol=1e-12)
    np.testing.assert_allclose(sol["torque.flange.tau"], -tau, rtol=1e-12)
    np.testing.assert_allclose(sol["inertia.flange_a.tau"], tau, rtol=1e-12)
    sol2 = cs.simulate(2.0, n_points=201, params={"torque.tau_constant": -1.2}, **TIGHT)
    phi2 = phi0 + w0 * t - 1.2 * t**2 / (2 * j)
    assert_close(sol2["inertia.phi"], phi2, np.max(np.abs(phi2)))


def test_variable_torque_input():
    cs = compile(DrivenInertia())
    assert cs.n_states == 2
    sol = cs.simulate(4.0, n_points=401, **TIGHT)
    t = sol.t
    t0, om, j = 0.5, 3.0, 0.25
    phi = t0 / (j * om**2) * (1.0 - np.cos(om * t))
    w = t0 / (j * om) * np.sin(om * t)
    assert_close(sol["inertia.phi"], phi, np.max(np.abs(phi)))
    assert_close(sol["inertia.w"], w, np.max(np.abs(w)))
    np.testing.assert_allclose(sol["inertia.flange_b.tau"], t0 * np.cos(om * t), rtol=0,
                               atol=1e-12)


def test_two_inertias_momentum_and_relative_motion():
    """Free chain: total angular momentum grows as tau t; the twist is a forced oscillator."""
    cs = compile(TwoInertias())
    assert cs.n_states == 4
    sol = cs.simulate(3.0, n_points=601, **TIGHT)
    t = sol.t
    j1, j2, c, d, tau = 0.5, 1.5, 50.0, 1.0, 2.0
    momentum = j1 * sol["i1.w"] + j2 * sol["i2.w"]
    assert_close(momentum, tau * t, tau * t[-1])
    # phi_rel = phi2 - phi1 obeys mu phi_rel'' + d phi_rel' + c phi_rel = -mu tau / j1,
    # mu = j1 j2 / (j1 + j2); static twist -mu tau / (j1 c); released from 0 at rest
    mu = j1 * j2 / (j1 + j2)
    static = -mu * tau / (j1 * c)
    x, _ = oscillator(t, mu, c, d, 0.0 - static, 0.0)
    assert_close(sol["sd.phi_rel"], static + x, abs(static))
    assert_close(sol["sd.phi_rel"], sol["i2.phi"] - sol["i1.phi"], abs(static))


class RigidPairOnSpring(Component):
    """Two inertias bolted together on one torsional spring: J = J1 + J2 oscillates."""

    fixed = Fixed()
    spring = Spring(c=12.0)
    i1 = Inertia(J=1.0, phi=Variable(start=0.5, fixed=True), w=Variable(start=0.0, fixed=True))
    i2 = Inertia(J=2.0)

    def connections(self):
        return [connect(self.fixed.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.i1.flange_a),
                connect(self.i1.flange_b, self.i2.flange_a)]


def test_rigidly_coupled_inertias_on_spring():
    cs = compile(RigidPairOnSpring())
    assert cs.n_states == 2
    sol = cs.simulate(5.0, n_points=501, **TIGHT)
    phi, w = oscillator(sol.t, 3.0, 12.0, 0.0, 0.5, 0.0)
    assert_close(sol["i1.phi"], phi, 0.5)
    assert_close(sol["i2.w"], w, 1.0)
    # the coupling torque accelerates i2 only: i2.flange_a.tau = J2 a
    assert_close(sol["i2.flange_a.tau"], 2.0 * sol["i2.a"], 6.0)
    assert_close(sol["i2.flange_a.tau"], -2.0 * 12.0 / 3.0 * phi, 6.0)
