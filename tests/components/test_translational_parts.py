"""The MSL 4.0 translational parts against closed-form cases (and one scalar ODE integrated by
scipy): ``Mass`` with a length, ``Rod``, ``ElastoGap``, the dampers' ``lossPower`` and heat
port, ``Force`` with its support, ``Force2``, the sensors of
``acausal.components.translational_parts``, ``QuadraticSpeedDependentForce``,
``RollingResistance``, ``EddyCurrentForce`` and ``Vehicle``.

Every model is compiled with the unit check on (the default), so each part's equations are
dimensionally consistent. Runs use rtol 1e-10, atol 1e-12; the error allowed is 1e-7 of the
motion's scale (the global error of such a run stays below about 100 times its tolerance),
unless a test says otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from acausal import Component, Eq, Variable, compile, connect, time
from acausal.components import rotational, thermal
from acausal.components import translational as tr
from acausal.components.blocks import Constant
from acausal.components.sources import TranslationalSpeed
from acausal.components.translational_parts import (
    AccSensor,
    EddyCurrentForce,
    ForceSensor,
    MultiSensor,
    PositionSensor,
    PowerSensor,
    QuadraticSpeedDependentForce,
    RelAccSensor,
    RelPositionSensor,
    RelSpeedSensor,
    RollingResistance,
    SpeedSensor,
    Vehicle,
    regularized_sign,
)
from acausal.errors import ParameterError

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
G_N = 9.80665


def fixed(value: float) -> Variable:
    return Variable(start=value, fixed=True)


# ---------------------------------------------------------------------------------------------
# Mass with a length, Rod
# ---------------------------------------------------------------------------------------------


class RodAndMass(Component):
    """wall at 0 -- Rod(L=0.5) -- Spring(c=100, s_rel0=0.2) -- Mass(L=0.4, m=2), with a constant
    force of 5 N on the mass's flange_b. The mass's flange_a rests where the spring balances
    the force: s_a = 0.5 + 0.2 + 5/100, so its centre at s_a + 0.2 = 0.95 m."""

    wall = tr.Fixed()
    rod = tr.Rod(L=0.5)
    spring = tr.Spring(c=100.0, s_rel0=0.2)
    mass = tr.Mass(L=0.4, m=2.0, s=fixed(1.0), v=fixed(0.0))
    push = tr.ConstantForce(f_constant=5.0)

    def connections(self):
        return [connect(self.wall.flange, self.rod.flange_a),
                connect(self.rod.flange_b, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.push.flange, self.mass.flange_b)]


def test_mass_length_and_rod_offset():
    sol = compile(RodAndMass()).simulate(3.0, n_points=301, **TIGHT)
    s = np.asarray(sol["mass.s"])
    # the flanges are L/2 either side of the centre; the rod keeps its flanges 0.5 m apart
    np.testing.assert_allclose(sol["mass.flange_a.s"], s - 0.2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sol["mass.flange_b.s"], s + 0.2, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sol["rod.flange_b.s"], 0.5, rtol=0, atol=1e-14)
    # undamped oscillation about the balance 0.95 m: s = 0.95 + 0.05 cos(sqrt(c/m) t)
    w = math.sqrt(100.0 / 2.0)
    np.testing.assert_allclose(s, 0.95 + 0.05 * np.cos(w * sol.t), rtol=0, atol=ERR * 0.05)
    # the massless rod passes the spring force through unchanged: it is the wall's reaction
    spring_force = 100.0 * (np.asarray(sol["spring.s_rel"]) - 0.2)
    np.testing.assert_allclose(sol["rod.flange_b.f"], spring_force, rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.asarray(sol["rod.flange_a.f"]) + sol["rod.flange_b.f"], 0.0,
                               atol=1e-12)


def test_mass_default_length_is_zero():
    m = tr.Mass()
    assert tr.Mass.declarations()["L"].default == 0.0
    assert m.flange is not None  # the one-port alias of flange_a


# ---------------------------------------------------------------------------------------------
# ElastoGap
# ---------------------------------------------------------------------------------------------


class GapImpact(Component):
    """A mass (m = 1) moving at v0 = -2 m/s from s = 1 towards an ElastoGap whose other flange
    is fixed at 0: contact while s < s_rel0 = 0.5."""

    wall = tr.Fixed()
    gap = tr.ElastoGap(c=400.0, d=0.0, s_rel0=0.5)
    mass = tr.Mass(m=1.0, s=fixed(1.0), v=fixed(-2.0))

    def connections(self):
        return [connect(self.wall.flange, self.gap.flange_a),
                connect(self.gap.flange_b, self.mass.flange_a)]


def test_elasto_gap_elastic_impact():
    """Without damping: contact at t1 = 0.5/2 = 0.25 s; half an oscillation of
    sqrt(c/m) = 20 rad/s in contact (pi/20 s); the mass leaves at +2 m/s, the spring never
    pulls, and the peak compression is v0/w = 0.1 m."""
    cs = compile(GapImpact())
    sol = cs.simulate(1.0, n_points=2001, **TIGHT)
    t1, t2 = 0.25, 0.25 + math.pi / 20
    times = [t for t, _ in sol.events]
    np.testing.assert_allclose(times, [t1, t2], rtol=0, atol=1e-9)
    assert sol["mass.v"][-1] == pytest.approx(2.0, abs=ERR * 2)
    assert min(sol["gap.s_rel"]) == pytest.approx(0.5 - 0.1, abs=ERR)
    f = np.asarray(sol["gap.f"])
    assert np.all(f <= 1e-12)
    contact = (sol.t > t1 + 1e-6) & (sol.t < t2 - 1e-6)
    np.testing.assert_array_equal(sol["gap.contact"][contact], 1.0)
    np.testing.assert_array_equal(f[~((sol.t > t1 - 1e-6) & (sol.t < t2 + 1e-6))], 0.0)
    # in contact: f = -c (s_rel0 - s_rel); the gap's compression is 0.1 sin(20 (t - t1))
    tc = sol.t[contact]
    np.testing.assert_allclose(sol["gap.s_rel"][contact], 0.5 - 0.1 * np.sin(20 * (tc - t1)),
                               rtol=0, atol=ERR * 0.1)
    np.testing.assert_allclose(f[contact], -400.0 * (0.5 - np.asarray(sol["gap.s_rel"])[contact]),
                               rtol=1e-12, atol=1e-9)


class GapImpactWithHeat(GapImpact):
    """GapImpact with a damped gap whose heat goes into a capacitor (C = 1 J/K)."""

    gap = tr.ElastoGap(c=400.0, d=40.0, s_rel0=0.5, useHeatPort=True)
    capacitor = thermal.HeatCapacitor(C=1.0, T=fixed(300.0))

    def connections(self):
        return [*super().connections(), connect(self.gap.heatPort, self.capacitor.port)]


def test_elasto_gap_damping_never_pulls():
    """With strong damping (d = 40 N.s/m: twice the critical 2 sqrt(c m) in contact) the
    limited damping force keeps the contact force pushing: f <= 0, |f_d| <= |f_c|; the heat
    lossPower = f_d v_rel >= 0 goes into the capacitor and is the kinetic energy lost."""
    cs = compile(GapImpactWithHeat())
    sol = cs.simulate(2.0, n_points=4001, **TIGHT)
    f, fc, fd = (np.asarray(sol[f"gap.{k}"]) for k in ("f", "f_c", "f_d"))
    assert np.all(f <= 1e-9)
    assert np.all(np.abs(fd) <= np.abs(fc) + 1e-9)
    assert np.all(np.asarray(sol["gap.lossPower"]) >= -1e-9)
    limited = np.isclose(np.abs(fd), np.abs(fc), rtol=1e-12, atol=1e-9) & (np.abs(fc) > 1.0)
    assert limited.sum() > 10  # the limit was active: the undamped force would pull there
    v_end = sol["mass.v"][-1]
    assert 0 < v_end < 2.0  # it bounced back, slower
    heat = sol["capacitor.T"][-1] - 300.0
    assert heat == pytest.approx((4.0 - v_end**2) / 2, abs=1e-6)


def test_elasto_gap_power_law():
    """n = 2: f_c = -c |s_rel - s_rel0|^2 in contact (MSL's exponent)."""
    cs = compile(GapImpact(gap=tr.ElastoGap(c=4000.0, d=0.0, s_rel0=0.5, n=2.0)))
    sol = cs.simulate(0.6, n_points=601, **TIGHT)
    gap = 0.5 - np.asarray(sol["gap.s_rel"])
    inside = gap > 0
    assert inside.any()
    np.testing.assert_allclose(np.asarray(sol["gap.f_c"])[inside], -4000.0 * gap[inside]**2,
                               rtol=1e-12, atol=1e-9)
    # energy: 1/2 v^2 + c |gap|^3 / 3 is conserved while in contact
    energy = 0.5 * np.asarray(sol["mass.v"])**2 + 4000.0 * np.clip(gap, 0, None)**3 / 3
    np.testing.assert_allclose(energy, 2.0, rtol=0, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# Dampers with their heat port; Force with its support; Force2
# ---------------------------------------------------------------------------------------------


class DampedToHeat(Component):
    """A mass (m = 2, v0 = 3) braked by a Damper(d=4) and a SpringDamper(c=0, d=6) to walls;
    both dampers send their heat into one capacitor (C = 10 J/K)."""

    wall = tr.Fixed()
    damper = tr.Damper(d=4.0, useHeatPort=True)
    spring_damper = tr.SpringDamper(c=0.0, d=6.0, useHeatPort=True)
    mass = tr.Mass(m=2.0, s=fixed(0.0), v=fixed(3.0))
    capacitor = thermal.HeatCapacitor(C=10.0, T=fixed(300.0))

    def connections(self):
        return [connect(self.wall.flange, self.damper.flange_a),
                connect(self.wall.flange, self.spring_damper.flange_a),
                connect(self.damper.flange_b, self.mass.flange_a),
                connect(self.spring_damper.flange_b, self.mass.flange_b),
                connect(self.damper.heatPort, self.capacitor.port),
                connect(self.spring_damper.heatPort, self.capacitor.port)]


def test_damper_heat_is_the_kinetic_energy_lost():
    """v = 3 exp(-(4 + 6) t / 2); the heat in the capacitor is m (9 - v^2)/2, the dampers'
    lossPower d v^2 each."""
    sol = compile(DampedToHeat()).simulate(2.0, n_points=201, **TIGHT)
    v = 3.0 * np.exp(-5.0 * sol.t)
    np.testing.assert_allclose(sol["mass.v"], v, rtol=0, atol=ERR * 3)
    np.testing.assert_allclose(sol["damper.lossPower"], 4.0 * v**2, rtol=0, atol=ERR * 36)
    np.testing.assert_allclose(sol["spring_damper.lossPower"], 6.0 * v**2, rtol=0,
                               atol=ERR * 54)
    np.testing.assert_allclose(10.0 * (np.asarray(sol["capacitor.T"]) - 300.0),
                               2.0 * (9.0 - v**2) / 2, rtol=0, atol=ERR * 9)


class SupportedForce(Component):
    """Force(useSupport=True) between two free masses (m = 1 and 3): it pushes the first along
    +s and its support, on the second, back: a1 = f/1, a2 = -f/3."""

    force = tr.Force(useSupport=True)
    force2 = tr.Force2()
    m1 = tr.Mass(m=1.0, s=fixed(0.0), v=fixed(0.0))
    m2 = tr.Mass(m=3.0, s=fixed(0.0), v=fixed(0.0))
    m3 = tr.Mass(m=2.0, s=fixed(0.0), v=fixed(0.0))
    m4 = tr.Mass(m=4.0, s=fixed(0.0), v=fixed(0.0))

    def equations(self):
        return [Eq(self.force.f, 6.0), Eq(self.force2.f, 8.0)]

    def connections(self):
        return [connect(self.force.flange, self.m1.flange_a),
                connect(self.force.support, self.m2.flange_a),
                connect(self.force2.flange_a, self.m3.flange_b),
                connect(self.force2.flange_b, self.m4.flange_a)]


def test_force_support_and_force2_push_apart():
    sol = compile(SupportedForce()).simulate(1.0, n_points=11, **TIGHT)
    t = sol.t
    np.testing.assert_allclose(sol["m1.a"], 6.0, atol=1e-12)
    np.testing.assert_allclose(sol["m2.a"], -2.0, atol=1e-12)
    np.testing.assert_allclose(sol["force.support.f"], 6.0, atol=1e-12)
    # Force2: flange_b (on m4) is pushed along +s, flange_a (on m3) along -s
    np.testing.assert_allclose(sol["m4.s"], 8.0 / 4.0 * t**2 / 2, rtol=0, atol=ERR)
    np.testing.assert_allclose(sol["m3.s"], -8.0 / 2.0 * t**2 / 2, rtol=0, atol=ERR * 2)


# ---------------------------------------------------------------------------------------------
# Sensors
# ---------------------------------------------------------------------------------------------


class Sensed(Component):
    """A spring-mass oscillator (c = 9, m = 1, from s = 0.3 at rest, wall at 0) watched by
    every sensor: the absolute ones on the mass, the relative ones across the spring, and a
    force / power / multi sensor between the spring and the mass."""

    wall = tr.Fixed()
    spring = tr.Spring(c=9.0)
    mass = tr.Mass(m=1.0, L=0.2, s=fixed(0.3 + 0.1), v=fixed(0.0))
    force_sensor = ForceSensor()
    power_sensor = PowerSensor()
    multi = MultiSensor()
    position = PositionSensor()
    speed = SpeedSensor()
    acc = AccSensor()
    rel_position = RelPositionSensor()
    rel_speed = RelSpeedSensor()
    rel_acc = RelAccSensor()

    def connections(self):
        a = self.mass.flange_a
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.force_sensor.flange_a),
                connect(self.force_sensor.flange_b, self.power_sensor.flange_a),
                connect(self.power_sensor.flange_b, self.multi.flange_a),
                connect(self.multi.flange_b, a),
                connect(self.position.flange, a), connect(self.speed.flange, a),
                connect(self.acc.flange, a),
                connect(self.rel_position.flange_a, self.wall.flange),
                connect(self.rel_speed.flange_a, self.wall.flange),
                connect(self.rel_acc.flange_a, self.wall.flange),
                connect(self.rel_position.flange_b, a), connect(self.rel_speed.flange_b, a),
                connect(self.rel_acc.flange_b, a)]


def test_sensors_read_the_closed_form():
    """flange_a.s = 0.3 cos(3 t); the spring's force on the mass -9 s; sensors take no force
    (the period is unchanged) and the in-line ones pass the force through."""
    sol = compile(Sensed()).simulate(2.0, n_points=201, **TIGHT)
    t = sol.t
    s, v, a = 0.3 * np.cos(3 * t), -0.9 * np.sin(3 * t), -2.7 * np.cos(3 * t)
    for name, value, scale in (("position.s.u", s, 0.3), ("speed.v.u", v, 0.9),
                               ("acc.a.u", a, 2.7), ("rel_position.s_rel.u", s, 0.3),
                               ("rel_speed.v_rel.u", v, 0.9), ("rel_acc.a_rel.u", a, 2.7),
                               ("multi.v.u", v, 0.9)):
        np.testing.assert_allclose(sol[name], value, rtol=0, atol=ERR * scale, err_msg=name)
    # the force passed towards the mass: flange_a.f of each in-line sensor is the force on the
    # mass (m a = -9 s), its power f v
    for name in ("force_sensor.f.u", "multi.f.u"):
        np.testing.assert_allclose(sol[name], a, rtol=0, atol=ERR * 2.7, err_msg=name)
    np.testing.assert_allclose(sol["power_sensor.power.u"], a * v, rtol=0, atol=ERR * 2.5)
    np.testing.assert_allclose(sol["multi.power.u"], a * v, rtol=0, atol=ERR * 2.5)


# ---------------------------------------------------------------------------------------------
# Speed-dependent forces
# ---------------------------------------------------------------------------------------------


class DrivenThroughLaws(Component):
    """A flange moved at v = -2 + 2 t (from -2 to 2 m/s) by a Speed source, with a quadratic
    force of each kind and a rolling resistance of each regularisation on it."""

    source = TranslationalSpeed(v_ref=-2.0 + 2.0 * time)
    quad_same = QuadraticSpeedDependentForce(f_nominal=-10.0, v_nominal=2.0)
    quad_signed = QuadraticSpeedDependentForce(f_nominal=-10.0, v_nominal=2.0,
                                               ForceDirection=False)
    roll_exp = RollingResistance(fWeight=100.0, CrConstant=0.02, v0=0.5)
    roll_sine = RollingResistance(fWeight=100.0, CrConstant=0.02, v0=0.5, reg="Sine")
    roll_linear = RollingResistance(fWeight=100.0, CrConstant=0.02, v0=0.5, reg="Linear",
                                    inclinationConstant=0.75)
    roll_cosine = RollingResistance(fWeight=100.0, CrConstant=0.02, v0=0.5, reg="CoSine",
                                    useCrInput=True)
    cr = Constant(k=0.02)

    def connections(self):
        f = self.source.flange
        return [connect(f, self.quad_same.flange), connect(f, self.quad_signed.flange),
                connect(f, self.roll_exp.flange), connect(f, self.roll_sine.flange),
                connect(f, self.roll_linear.flange), connect(f, self.roll_cosine.flange),
                connect(self.cr.y, self.roll_cosine.cr)]


def test_speed_dependent_laws():
    cs = compile(DrivenThroughLaws())
    sol = cs.simulate(2.0, n_points=401, **TIGHT)
    v = -2.0 + 2.0 * sol.t
    np.testing.assert_allclose(sol["quad_same.v"], v, rtol=0, atol=1e-9)
    # the force the element takes, f = flange.f = -f_nominal (v/v_nominal)^2 [or v|v|]
    np.testing.assert_allclose(sol["quad_same.f"], 10.0 * (v / 2) ** 2, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sol["quad_signed.f"], 10.0 * v * np.abs(v) / 4, rtol=0,
                               atol=1e-8)
    nominal = 0.02 * 100.0
    inside = np.abs(v) < 0.5
    expected = {
        "roll_exp": nominal * (2 / (1 + np.exp(-v / 0.005)) - 1),
        "roll_sine": nominal * np.where(inside, np.sin(np.pi / 2 * v / 0.5), np.sign(v)),
        "roll_linear": nominal * math.cos(math.atan(0.75)) * np.where(inside, v / 0.5,
                                                                        np.sign(v)),
        "roll_cosine": nominal * np.where(inside, np.sign(v) * (1 - np.cos(np.pi / 2 * v / 0.5)),
                                          np.sign(v)),
    }
    for name, value in expected.items():
        np.testing.assert_allclose(sol[f"{name}.f"], value, rtol=0, atol=1e-8, err_msg=name)
    np.testing.assert_allclose(sol["roll_linear.f_nominal"], -nominal * 0.8, rtol=1e-12)
    # Linear and CoSine switch at |v| = v0 by events (t = 0.75 s and 1.25 s), as MSL's if
    times = sorted({round(t, 9) for t, _ in sol.events})
    np.testing.assert_allclose(times, [0.75, 1.25], rtol=0, atol=1e-9)


def test_regularization_choices_are_checked():
    with pytest.raises(ParameterError, match="reg must be one of Exp, Sine, Linear, CoSine"):
        RollingResistance(reg="Tanh")
    assert regularized_sign(2.0, 0.5, "Linear") is not None


# ---------------------------------------------------------------------------------------------
# EddyCurrentForce
# ---------------------------------------------------------------------------------------------


class EddyAtSpeed(Component):
    """Eddy-current brakes on a flange moved at v = 5 + 10 t: one at a fixed device
    temperature of 353.15 K (no heat port, TRef = 313.15 K), one with its heat port on a
    fixed temperature of 333.15 K (TRef = 293.15 K)."""

    source = TranslationalSpeed(v_ref=5.0 + 10.0 * time)
    hot = EddyCurrentForce(f_nominal=50.0, v_nominal=8.0, alpha20=4e-3, TRef=313.15,
                           T=353.15)
    cooled = EddyCurrentForce(f_nominal=50.0, v_nominal=8.0, alpha20=4e-3, useHeatPort=True)
    ambient = thermal.FixedTemperature(T=333.15)

    def connections(self):
        return [connect(self.source.flange, self.hot.flange),
                connect(self.source.flange, self.cooled.flange),
                connect(self.cooled.heatPort, self.ambient.port)]


def test_eddy_current_force_temperature_dependence():
    """v_nominal grows with the temperature by MSL's linearTemperatureDependency, with alpha
    converted from 20 degC to TRef (convertAlpha); the heat flow into the port is lossPower."""
    sol = compile(EddyAtSpeed()).simulate(1.0, n_points=11, **TIGHT)
    v = 5.0 + 10.0 * sol.t
    alpha_ref = 4e-3 / (1 + 4e-3 * (313.15 - 293.15))
    for name, factor in (("hot", 1 + alpha_ref * (353.15 - 313.15)),
                         ("cooled", 1 + 4e-3 * (333.15 - 293.15))):
        vn = v / (8.0 * factor)
        np.testing.assert_allclose(sol[f"{name}.f"], 100.0 * vn / (1 + vn**2), rtol=1e-9,
                                   err_msg=name)
        np.testing.assert_allclose(sol[f"{name}.lossPower"], np.asarray(sol[f"{name}.f"]) * v,
                                   rtol=1e-12)
    np.testing.assert_allclose(sol["hot.TheatPort"], 353.15, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sol["cooled.TheatPort"], 333.15, rtol=0, atol=1e-12)
    # the heat leaves through the port into the fixed temperature
    heat = np.asarray(sol["cooled.heatPort.Q_flow"])
    np.testing.assert_allclose(heat, -np.asarray(sol["cooled.lossPower"]), rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["ambient.port.Q_flow"], -heat, rtol=0, atol=1e-9)
    # the force peaks at f_nominal where vn = 1 (v = 9.28 m/s for the cooled one): never above
    assert 49.9 < max(sol["cooled.f"]) <= 50.0 + 1e-9


# ---------------------------------------------------------------------------------------------
# Vehicle
# ---------------------------------------------------------------------------------------------

M, R = 120.0, 0.3


class Coasting(Component):
    """A vehicle rolling down a 10 % slope from 1 m/s, no drive torque."""

    vehicle = Vehicle(m=M, J=0.0, R=R, A=2.0, Cd=0.4, rho=1.2, CrConstant=0.015,
                      inclinationConstant=-0.1, s=fixed(0.0), v=fixed(1.0))


def test_vehicle_coasting_downhill_with_drag():
    """m v' = -m g sin(atan(-0.1)) - Cr m g cos(atan(-0.1)) - Cd A rho/2 v|v| (v > vReg),
    integrated by scipy (DOP853, rtol 1e-12): the speed rises towards the drag's terminal
    speed; the wheel turns as v/R."""
    sol = compile(Coasting()).simulate(30.0, n_points=301, **TIGHT)
    alpha = math.atan(-0.1)

    def rhs(_t, y):
        s, v = y
        force = (-M * G_N * math.sin(alpha) - 0.015 * M * G_N * math.cos(alpha)
                 - 0.4 * 2.0 * 1.2 / 2 * v * abs(v))
        return [v, force / M]

    ode = solve_ivp(rhs, (0.0, 30.0), [0.0, 1.0], method="DOP853", t_eval=sol.t, rtol=1e-12,
                    atol=1e-12)
    np.testing.assert_allclose(sol["vehicle.v"], ode.y[1], rtol=0, atol=ERR * 30)
    np.testing.assert_allclose(sol["vehicle.s"], ode.y[0], rtol=0, atol=ERR * 600)
    np.testing.assert_allclose(sol["vehicle.w"], np.asarray(sol["vehicle.v"]) / R, rtol=1e-9)
    terminal = math.sqrt((-M * G_N * math.sin(alpha) - 0.015 * M * G_N * math.cos(alpha))
                         / (0.4 * 2.0 * 1.2 / 2))
    assert 0.9 * terminal < sol["vehicle.v"][-1] < terminal


class DrivenUphill(Component):
    """A vehicle with drive-train inertia J = 2.7 kg.m2 (0.3 m wheel: 30 kg equivalent mass),
    no drag, on a 5 % slope given by a signal, driven by a constant torque of 120 N.m; a
    second one pulled by a constant force on its flangeT on a flat road with Cr from a signal,
    and a wind from behind equal to its speed."""

    vehicle = Vehicle(m=M, J=2.7, R=R, Cd=0.0, CrConstant=0.02, useInclinationInput=True,
                      s=fixed(0.0), v=fixed(2.0))
    slope = Constant(k=0.05)
    torque = rotational.ConstantTorque(tau_constant=120.0)
    towed = Vehicle(m=M, J=0.0, R=R, A=1.0, Cd=0.5, rho=1.2, useCrInput=True,
                    useWindInput=True, s=fixed(0.0), v=fixed(3.0))
    cr = Constant(k=0.01)
    wind = Constant(k=3.0)
    pull = tr.ConstantForce(f_constant=0.01 * M * G_N)

    def connections(self):
        return [connect(self.slope.y, self.vehicle.inclination),
                connect(self.torque.flange, self.vehicle.flangeR),
                connect(self.cr.y, self.towed.cr), connect(self.wind.y, self.towed.vWind),
                connect(self.pull.flange, self.towed.flangeT)]


def test_vehicle_driven_uphill_and_towed_closed_form():
    """(1) a = (tau/R - m g sin(atan 0.05) - Cr m g cos(atan 0.05))/(m + J/R^2), constant
    while v > vReg: v = 2 + a t. (2) the pull equals the rolling resistance and the wind
    blows at the vehicle's speed (no drag): it keeps its 3 m/s."""
    sol = compile(DrivenUphill()).simulate(5.0, n_points=51, **TIGHT)
    alpha = math.atan(0.05)
    a = ((120.0 / R - M * G_N * math.sin(alpha) - 0.02 * M * G_N * math.cos(alpha))
         / (M + 2.7 / R**2))
    assert a > 0
    t = sol.t
    np.testing.assert_allclose(sol["vehicle.v"], 2.0 + a * t, rtol=0, atol=ERR * 10)
    np.testing.assert_allclose(sol["vehicle.s"], 2.0 * t + a * t**2 / 2, rtol=0, atol=ERR * 30)
    np.testing.assert_allclose(sol["vehicle.fGrav"], M * G_N * math.sin(alpha), rtol=1e-12)
    # the wheel's traction: the torque less the inertia's share, over R
    np.testing.assert_allclose(sol["vehicle.fWheel"], (120.0 - 2.7 * a / R) / R, rtol=1e-9)
    np.testing.assert_allclose(sol["towed.v"], 3.0, rtol=0, atol=ERR * 3)
    np.testing.assert_allclose(sol["towed.v_wind"], 3.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(sol["towed.fDrag"], 0.0, rtol=0, atol=1e-9)


class Parked(Component):
    """A vehicle at rest on a flat road: the regularised rolling resistance holds no force."""

    vehicle = Vehicle(m=M, R=R, s=fixed(0.0), v=fixed(0.0))


def test_vehicle_at_rest_stays_at_rest():
    sol = compile(Parked()).simulate(2.0, n_points=11, **TIGHT)
    np.testing.assert_allclose(sol["vehicle.s"], 0.0, atol=1e-12)
    np.testing.assert_allclose(sol["vehicle.fRoll"], 0.0, atol=1e-12)
    assert sol.events == []
