"""Translational components against closed-form solutions.

Every model here is linear with constant coefficients, so the exact trajectories are known:

* mass-spring-damper ``m s'' + d s' + c (s - s_eq) = 0`` (under-, critically and overdamped);
* constant force on a free mass ``s = s0 + v0 t + F t^2 / (2 m)``;
* sinusoidal force through the variable-input ``Force``.

Tolerances: the integrator runs at rtol=1e-10, atol=1e-12; the error allowed is 1e-6 of the
motion's amplitude, far above the integration error and far below any modelling mistake
(a sign error or a missing term changes the result at the 1e-1 level).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Variable, compile, connect, time
from acausal.components.translational import (
    ConstantForce,
    Damper,
    Fixed,
    Force,
    Mass,
    Spring,
    SpringDamper,
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


class MassSpringDamper(Component):
    """Wall -- (spring || damper) -- mass, mass released from s = 0.1 at rest."""

    wall = Fixed()
    spring = Spring(c=100.0)
    damper = Damper(d=2.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.wall.flange, self.damper.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.damper.flange_b, self.mass.flange_a)]


class MassSpringDamperCombined(Component):
    """The same oscillator with one SpringDamper, attached to the mass's flange_b."""

    wall = Fixed()
    sd = SpringDamper(c=100.0, d=2.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.mass.flange_b)]


class FreeMass(Component):
    """A constant force on an otherwise free mass."""

    force = ConstantForce(f_constant=3.0)
    mass = Mass(m=2.0, s=Variable(start=0.5, fixed=True), v=Variable(start=-1.0, fixed=True))

    def connections(self):
        return [connect(self.force.flange, self.mass.flange_a)]


class DrivenMass(Component):
    """A sinusoidal force ``f = F0 sin(w t)`` through the variable-input Force."""

    force = Force()
    mass = Mass(m=0.5, s=Variable(start=0.0, fixed=True), v=Variable(start=0.2, fixed=True))

    def equations(self):
        return [Eq(self.force.f, 1.5 * sp.sin(2.0 * time))]

    def connections(self):
        return [connect(self.force.flange, self.mass.flange_b)]


@pytest.fixture(scope="module")
def msd():
    return compile(MassSpringDamper())


def test_msd_structure(msd):
    assert msd.n_states == 2
    assert set(msd.state_names) == {"mass.s", "mass.v"}
    assert msd.is_ode
    assert msd.parameters() == {"wall.s0": 0.0, "spring.c": 100.0, "spring.s_rel0": 0.0,
                                "damper.d": 2.0, "mass.m": 1.0, "mass.L": 0.0}


def test_msd_underdamped_matches_analytic(msd):
    sol = msd.simulate(5.0, n_points=1001, **TIGHT)
    x, v = oscillator(sol.t, 1.0, 100.0, 2.0, 0.1, 0.0)
    assert_close(sol["mass.s"], x, 0.1)
    assert_close(sol["mass.v"], v, 0.1 * np.sqrt(100.0))
    # it really oscillates: several sign changes of s
    assert np.count_nonzero(np.diff(np.sign(sol["mass.s"]))) >= 10


@pytest.mark.parametrize("d", [20.0, 50.0], ids=["critical", "overdamped"])
def test_msd_critical_and_overdamped(msd, d):
    sol = msd.simulate(5.0, n_points=501, params={"damper.d": d}, **TIGHT)
    x, v = oscillator(sol.t, 1.0, 100.0, d, 0.1, 0.0)
    assert_close(sol["mass.s"], x, 0.1)
    assert_close(sol["mass.v"], v, 0.1 * np.sqrt(100.0))
    assert np.all(sol["mass.s"] > -1e-12)  # no overshoot past equilibrium


def test_spring_damper_equals_spring_plus_damper(msd):
    combined = compile(MassSpringDamperCombined())
    assert combined.n_states == 2
    a = msd.simulate(5.0, n_points=501, **TIGHT)
    b = combined.simulate(5.0, n_points=501, **TIGHT)
    x, _ = oscillator(b.t, 1.0, 100.0, 2.0, 0.1, 0.0)
    assert_close(b["mass.s"], x, 0.1)
    assert_close(b["mass.s"], a["mass.s"], 0.1)
    assert_close(b["sd.f"], a["spring.f"] + a["damper.f"], 10.0)


def test_params_change_without_recompiling(msd):
    ode_function = msd.function("ode")
    base = msd.simulate(5.0, n_points=501, **TIGHT)
    new = {"mass.m": 2.5, "spring.c": 40.0, "damper.d": 0.7}
    sol = msd.simulate(5.0, n_points=501, params=new, **TIGHT)
    assert sol.compiled is msd
    assert msd.function("ode") is ode_function
    assert msd.parameters()["spring.c"] == 100.0  # defaults untouched
    assert sol["spring.c"][0] == 40.0
    x, v = oscillator(sol.t, 2.5, 40.0, 0.7, 0.1, 0.0)
    assert_close(sol["mass.s"], x, 0.1)
    assert_close(sol["mass.v"], v, 0.1 * np.sqrt(40.0 / 2.5))
    assert np.max(np.abs(sol["mass.s"] - base["mass.s"])) > 0.05  # really different
    # and back to the defaults
    again = msd.simulate(5.0, n_points=501, **TIGHT)
    np.testing.assert_allclose(again["mass.s"], base["mass.s"], rtol=0, atol=1e-14)


def test_offset_wall_and_unstretched_length(msd):
    sol = msd.simulate(5.0, n_points=501, params={"wall.s0": 1.0, "spring.s_rel0": -0.5},
                       **TIGHT)
    # equilibrium at s0 + s_rel0 = 0.5; released from 0.1, i.e. 0.4 below it
    x, _ = oscillator(sol.t, 1.0, 100.0, 2.0, 0.1 - 0.5, 0.0)
    assert_close(sol["mass.s"], 0.5 + x, 0.4)
    np.testing.assert_allclose(sol["wall.flange.s"], 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sol["spring.s_rel"], sol["mass.s"] - 1.0, rtol=0, atol=1e-12)


def test_msd_forces_and_connector_variables(msd):
    c, d, m = 100.0, 2.0, 1.0
    sol = msd.simulate(5.0, n_points=501, **TIGHT)
    s, v = sol["mass.s"], sol["mass.v"]
    f_spring, f_damper = sol["spring.f"], sol["damper.f"]
    scale = c * 0.1
    # constitutive laws (tension positive)
    assert_close(f_spring, c * s, scale)
    assert_close(f_damper, d * v, scale)
    assert_close(sol["damper.v_rel"], v, 0.1 * np.sqrt(c / m))
    assert_close(f_spring[0], 10.0, scale)
    # cut forces at the flanges: flange_b.f = f, flange_a.f = -f
    assert_close(sol["spring.flange_b.f"], f_spring, scale)
    assert_close(sol["spring.flange_a.f"], -f_spring, scale)
    assert_close(sol["damper.flange_a.f"], -f_damper, scale)
    # the wall is pulled by spring + damper; its reaction on them is the opposite
    assert_close(sol["wall.flange.f"], f_spring + f_damper, scale)
    assert_close(-sol["wall.flange.f"], -(f_spring + f_damper), scale)
    # node balance at the wall and at the mass: flows sum to zero
    assert_close(sol["wall.flange.f"] + sol["spring.flange_a.f"] + sol["damper.flange_a.f"],
                 0.0, scale)
    assert_close(sol["mass.flange_a.f"] + sol["spring.flange_b.f"] + sol["damper.flange_b.f"],
                 0.0, scale)
    # the open flange_b carries nothing; Newton on the mass
    np.testing.assert_array_equal(sol["mass.flange_b.f"], 0.0)
    assert_close(m * sol["mass.a"], -(f_spring + f_damper), scale)
    assert_close(sol["der(mass.v)"], sol["mass.a"], scale / m)
    # potentials of connected flanges agree
    np.testing.assert_allclose(sol["spring.flange_b.s"], s, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sol["wall.flange.s"], 0.0, rtol=0, atol=1e-14)


def test_constant_force_on_free_mass():
    cs = compile(FreeMass())
    assert cs.n_states == 2
    sol = cs.simulate(3.0, n_points=301, **TIGHT)
    t = sol.t
    s0, v0, f, m = 0.5, -1.0, 3.0, 2.0
    s = s0 + v0 * t + f * t**2 / (2 * m)
    scale = np.max(np.abs(s))
    assert_close(sol["mass.s"], s, scale)
    assert_close(sol["mass.v"], v0 + f * t / m, scale)
    np.testing.assert_allclose(sol["mass.a"], f / m, rtol=1e-12)
    np.testing.assert_allclose(sol["mass.flange_a.f"], f, rtol=1e-12)
    np.testing.assert_allclose(sol["force.flange.f"], -f, rtol=1e-12)
    # a new force and mass through params, same compiled system
    sol2 = cs.simulate(3.0, n_points=301, params={"force.f_constant": -4.0, "mass.m": 0.5},
                       **TIGHT)
    s2 = s0 + v0 * t - 4.0 * t**2 / (2 * 0.5)
    assert_close(sol2["mass.s"], s2, np.max(np.abs(s2)))


def test_variable_force_input():
    cs = compile(DrivenMass())
    assert cs.n_states == 2
    sol = cs.simulate(4.0, n_points=401, **TIGHT)
    t = sol.t
    f0, w, m, v0 = 1.5, 2.0, 0.5, 0.2
    s = v0 * t + f0 / (m * w) * (t - np.sin(w * t) / w)
    v = v0 + f0 / (m * w) * (1.0 - np.cos(w * t))
    assert_close(sol["mass.s"], s, np.max(np.abs(s)))
    assert_close(sol["mass.v"], v, np.max(np.abs(v)))
    np.testing.assert_allclose(sol["force.f"], f0 * np.sin(w * t), rtol=0, atol=1e-12)
    np.testing.assert_allclose(sol["mass.flange_b.f"], f0 * np.sin(w * t), rtol=0, atol=1e-12)


class TwoMassesRigid(Component):
    """Two masses bolted together (flange to flange), pulled by a constant force."""

    force = ConstantForce(f_constant=2.0)
    m1 = Mass(m=1.0, s=Variable(start=0.0, fixed=True), v=Variable(start=0.5, fixed=True))
    m2 = Mass(m=3.0)

    def connections(self):
        return [connect(self.force.flange, self.m1.flange_a),
                connect(self.m1.flange_b, self.m2.flange_a)]


def test_rigidly_coupled_masses():
    cs = compile(TwoMassesRigid())
    assert cs.n_states == 2
    sol = cs.simulate(2.0, n_points=201, **TIGHT)
    t = sol.t
    a = 2.0 / (1.0 + 3.0)
    s = 0.5 * t + a * t**2 / 2
    assert_close(sol["m1.s"], s, np.max(np.abs(s)))
    assert_close(sol["m2.s"], s, np.max(np.abs(s)))
    np.testing.assert_allclose(sol["m2.a"], a, rtol=1e-9)
    np.testing.assert_allclose(sol["m2.flange_a.f"], 3.0 * a, rtol=1e-9)  # m1 pushes m2
    np.testing.assert_allclose(sol["m1.flange_b.f"], -3.0 * a, rtol=1e-9)
