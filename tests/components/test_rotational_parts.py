"""The rotational parts and sources of issue 41 against closed-form cases.

``components/backlash.py`` (ElastoBacklash, ElastoBacklash2), ``components/rotational_parts.py``
(Disc, IdealPlanetary, IdealGearR2T, IdealRollingWheel, the sensors),
``components/rotational_sources.py`` (Torque2, LinearSpeedDependentTorque, ConstantSpeed,
TorqueStep, SignTorque, EddyCurrentTorque, Speed, Position, Accelerate, Move) and the optional
support flanges of ``components/rotational.py``. Every model is compiled with the unit check
on (the default). Solver rtol 1e-10, atol 1e-12: a closed form is met within 1e-7 of its scale
unless a test says otherwise.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, time
from acausal.components import rotational as rot
from acausal.components import translational as trans
from acausal.components.backlash import ElastoBacklash, ElastoBacklash2
from acausal.components.rotational_parts import (
    Disc,
    IdealGearR2T,
    IdealPlanetary,
    IdealRollingWheel,
    MultiSensor,
    PowerSensor,
    RelAccSensor,
    RelAngleSensor,
    RelSpeedSensor,
)
from acausal.components.rotational_sources import (
    Accelerate,
    ConstantSpeed,
    EddyCurrentTorque,
    LinearSpeedDependentTorque,
    Move,
    Position,
    SignTorque,
    Speed,
    Torque2,
    TorqueStep,
)
from acausal.errors import ParameterError

TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def _free(J=1.0, phi=0.0, w=0.0):
    return rot.Inertia(J=J, phi=Variable(start=phi, fixed=True), w=Variable(start=w, fixed=True))


# ---------------------------------------------------------------------------------------------
# Backlash
# ---------------------------------------------------------------------------------------------

C, J, B, W0 = 400.0, 1.0, 0.2, 1.0  # spring N.m/rad, inertia kg.m2, backlash rad, speed rad/s


class BacklashRig(Component):
    """Fixed -- backlash -- inertia, starting in the middle of the gap at W0 rad/s."""

    def __init__(self, element, **kw):
        super().__init__(**kw)
        self.fixed = rot.Fixed()
        self.backlash = element
        self.inertia = _free(J=J, w=W0)

    def connections(self):
        return [connect(self.fixed.flange, self.backlash.flange_a),
                connect(self.backlash.flange_b, self.inertia.flange_a)]


@pytest.mark.parametrize("cls", [ElastoBacklash, ElastoBacklash2])
def test_backlash_free_in_gap_spring_in_contact(cls):
    """Without damping: free flight through the gap (no torque), contact at t1 = (b/2)/W0, a
    half period pi sqrt(J/c) on the spring with tau = c (phi - b/2), back at -W0."""
    sol = compile(BacklashRig(cls(c=C, d=0.0, b=B))).simulate(1.0, n_points=2001, **TIGHT)
    t = np.asarray(sol.t)
    phi, tau = np.asarray(sol["inertia.phi"]), np.asarray(sol["backlash.tau"])
    t1 = (B / 2) / W0
    half = math.pi * math.sqrt(J / C)
    gap = t < t1 - 1e-9
    np.testing.assert_allclose(phi[gap], W0 * t[gap], atol=1e-9)
    assert np.all(tau[gap] == 0.0)
    contact = (t > t1 + 1e-9) & (t < t1 + half - 1e-9)
    np.testing.assert_allclose(tau[contact], C * (phi[contact] - B / 2), atol=1e-9)
    np.testing.assert_allclose(phi[contact] - B / 2,
                               W0 * math.sqrt(J / C) * np.sin((t[contact] - t1) / math.sqrt(J / C)),
                               atol=1e-8)
    # elastic: leaves the contact at -W0, crosses the gap and hits the other side
    t2 = t1 + half
    back = (t > t2 + 1e-9) & (t < t2 + B / W0 - 1e-9)
    np.testing.assert_allclose(sol["inertia.w"][back], -W0, atol=1e-8)
    assert np.all(tau[back] == 0.0)
    starts = [te for te, labels in sol.events if any("becoming true" in lab and "phi_diff >" in lab
                                                     for lab in labels)]
    assert starts[0] == pytest.approx(t1, abs=1e-9)


def test_backlash_damping_never_pulls_and_loss_power():
    """With damping, ElastoBacklash limits the damping torque: at first contact the torque
    starts from 0 and it never changes sign in contact (the damper does not pull); its
    lossPower is min(tau_c, tau_d) w_rel and 0 in the gap. ElastoBacklash2 jumps to d W0."""
    d = 10.0
    one = compile(BacklashRig(ElastoBacklash(c=C, d=d, b=B))).simulate(0.5, n_points=5001,
                                                                        **TIGHT)
    two = compile(BacklashRig(ElastoBacklash2(c=C, d=d, b=B))).simulate(0.5, n_points=5001,
                                                                         **TIGHT)
    t1 = (B / 2) / W0
    k = int(np.searchsorted(one.t, t1)) + 1  # first output point in contact
    assert one.t[k] - t1 < 2e-4
    assert 0.0 <= one["backlash.tau"][k] < C * 2e-4 * 2  # continuous: ~0 at contact
    assert two["backlash.tau"][k] > 0.9 * d * W0  # jumped to about d W0
    first = np.asarray(one.t) < t1 + 2 * math.pi * math.sqrt(J / C)
    assert np.all(np.asarray(one["backlash.tau"])[first] >= 0.0)  # positive side: pushes only
    tau_c, tau_d = np.asarray(one["backlash.tau_c"]), np.asarray(one["backlash.tau_d"])
    w = np.asarray(one["backlash.w_rel"])
    pushing = np.asarray(one["backlash.phi_diff"]) > B / 2 + 1e-9
    pushing &= tau_c + tau_d > 0
    np.testing.assert_allclose(np.asarray(one["backlash.lossPower"])[pushing],
                               np.minimum(tau_c, tau_d)[pushing] * w[pushing], atol=1e-9)
    gap = np.abs(np.asarray(one["backlash.phi_diff"])) < B / 2 - 1e-6
    assert np.all(np.asarray(one["backlash.lossPower"])[gap] == 0.0)
    # the event at first contact, and ElastoBacklash2's torque just after it
    tau2 = two.event_values("backlash.tau")
    first_event = [k for k, (te, _) in enumerate(two.events) if abs(te - t1) < 1e-8]
    assert first_event and tau2[first_event[0]] == pytest.approx(d * W0, rel=1e-6)


def test_backlash_without_gap_is_a_spring_damper():
    """b = 0: tau = c phi_rel + d w_rel, lossPower = d w_rel^2 (as a SpringDamper)."""
    sol = compile(BacklashRig(ElastoBacklash(c=C, d=3.0, b=0.0))).simulate(0.3, n_points=301,
                                                                            **TIGHT)
    phi, w = np.asarray(sol["backlash.phi_rel"]), np.asarray(sol["backlash.w_rel"])
    np.testing.assert_allclose(sol["backlash.tau"], C * phi + 3.0 * w, atol=1e-9)
    np.testing.assert_allclose(sol["backlash.lossPower"], 3.0 * w * w, atol=1e-9)


def test_backlash_parameters_checked():
    with pytest.raises(ParameterError, match="stateSelect"):
        ElastoBacklash(stateSelect="sometimes")
    with pytest.raises(ParameterError, match="phi_nominal"):
        ElastoBacklash2(phi_nominal=-1.0)


# ---------------------------------------------------------------------------------------------
# Transmissions
# ---------------------------------------------------------------------------------------------

class PlanetaryRig(Component):
    """Torque 2 N.m on the sun inertia; ring fixed; carrier inertia."""

    sun = _free(J=0.1)
    carrier = _free(J=2.0)
    planetary = IdealPlanetary(ratio=100 / 40)
    fixed = rot.Fixed()
    torque = rot.ConstantTorque(tau_constant=2.0)

    def connections(self):
        return [connect(self.torque.flange, self.sun.flange_a),
                connect(self.sun.flange_b, self.planetary.sun),
                connect(self.planetary.carrier, self.carrier.flange_a),
                connect(self.planetary.ring, self.fixed.flange)]


def test_planetary_speed_relation_and_torque_balance():
    r = 100 / 40
    sol = compile(PlanetaryRig()).simulate(1.0, n_points=101, **TIGHT)
    w_sun, w_car = np.asarray(sol["sun.w"]), np.asarray(sol["carrier.w"])
    np.testing.assert_allclose(w_sun, (1 + r) * w_car, atol=1e-10)  # ring held
    a_sun = 2.0 / (0.1 + 2.0 / (1 + r) ** 2)  # energy: tau w_s = (J_s + J_c/(1+r)^2) w_s a_s
    np.testing.assert_allclose(w_sun, a_sun * np.asarray(sol.t), rtol=1e-8)
    sun, ring, car = (np.asarray(sol[f"planetary.{n}.tau"]) for n in ("sun", "ring", "carrier"))
    np.testing.assert_allclose(ring, r * sun, atol=1e-10)
    np.testing.assert_allclose(car, -(1 + r) * sun, atol=1e-10)
    np.testing.assert_allclose(sun + ring + car, 0.0, atol=1e-10)
    assert np.max(np.abs(sun * w_sun + car * w_car)) < 1e-8  # no power lost or stored


class WheelRig(Component):
    """Torque 3 N.m on a wheel inertia rolling a mass; optionally both supports on a moving
    carriage (which must not change the relative motion's law)."""

    def __init__(self, part, supports=False, **kw):
        super().__init__(**kw)
        self.torque = rot.ConstantTorque(tau_constant=3.0)
        self.wheel = _free(J=0.5)
        self.part = part
        self.mass = trans.Mass(m=4.0, s=Variable(start=0.0, fixed=True))
        self.supports = supports
        if supports:
            self.fixedR = rot.Fixed()
            self.fixedT = trans.Fixed()

    def connections(self):
        c = [connect(self.torque.flange, self.wheel.flange_a),
             connect(self.wheel.flange_b, self.part.flangeR),
             connect(self.part.flangeT, self.mass.flange_a)]
        if self.supports:
            c += [connect(self.part.supportR, self.fixedR.flange),
                  connect(self.part.supportT, self.fixedT.flange)]
        return c


@pytest.mark.parametrize("supports", [False, True])
def test_rolling_wheel_force_torque_ratio(supports):
    """flangeT.f = -flangeR.tau / radius; s = radius phi; a = tau r / (J + m r^2)."""
    radius = 0.3
    part = IdealRollingWheel(radius=radius, useSupportR=supports, useSupportT=supports)
    sol = compile(WheelRig(part, supports)).simulate(1.0, n_points=11, **TIGHT)
    f, tau = np.asarray(sol["part.flangeT.f"]), np.asarray(sol["part.flangeR.tau"])
    np.testing.assert_allclose(f, -tau / radius, atol=1e-10)
    np.testing.assert_allclose(sol["mass.s"], radius * np.asarray(sol["wheel.phi"]), atol=1e-12)
    alpha = 3.0 / (0.5 + 4.0 * radius**2)
    np.testing.assert_allclose(sol["wheel.phi"], 0.5 * alpha * np.asarray(sol.t) ** 2,
                               rtol=1e-8)
    np.testing.assert_allclose(f, -4.0 * radius * alpha, rtol=1e-8)  # the mass resists: -m a
    if supports:
        np.testing.assert_allclose(sol["part.supportR.tau"], -tau, atol=1e-12)
        np.testing.assert_allclose(sol["part.supportT.f"], -f, atol=1e-12)


def test_gear_r2t_ratio():
    """flangeR.phi = ratio flangeT.s; flangeT.f = -ratio flangeR.tau (ratio in rad/m)."""
    ratio = 20.0
    sol = compile(WheelRig(IdealGearR2T(ratio=ratio))).simulate(1.0, n_points=11, **TIGHT)
    np.testing.assert_allclose(sol["wheel.phi"], ratio * np.asarray(sol["mass.s"]), atol=1e-10)
    np.testing.assert_allclose(sol["part.flangeT.f"], -ratio * np.asarray(sol["part.flangeR.tau"]),
                               atol=1e-10)
    alpha = 3.0 / (0.5 + 4.0 / ratio**2)
    np.testing.assert_allclose(sol["wheel.w"], alpha * np.asarray(sol.t), rtol=1e-8)


class DiscRig(Component):
    """Fixed -- Disc(deltaPhi) -- spring -- inertia released at rest at phi = 0."""

    fixed = rot.Fixed()
    disc = Disc(deltaPhi=0.3)
    spring = rot.Spring(c=16.0)
    inertia = _free(J=1.0)

    def connections(self):
        return [connect(self.fixed.flange, self.disc.flange_a),
                connect(self.disc.flange_b, self.spring.flange_a),
                connect(self.spring.flange_b, self.inertia.flange_a)]


def test_disc_offset():
    """The spring's anchor is turned by deltaPhi: phi(t) = 0.3 (1 - cos(4 t))."""
    sol = compile(DiscRig()).simulate(2.0, n_points=201, **TIGHT)
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["disc.flange_b.phi"] - sol["disc.flange_a.phi"], 0.3,
                               atol=1e-14)
    np.testing.assert_allclose(sol["disc.phi"], 0.15, atol=1e-14)
    np.testing.assert_allclose(sol["inertia.phi"], 0.3 * (1 - np.cos(4.0 * t)), atol=1e-8)
    np.testing.assert_allclose(sol["disc.flange_a.tau"] + sol["disc.flange_b.tau"], 0.0,
                               atol=1e-12)


# ---------------------------------------------------------------------------------------------
# Supports, sensors
# ---------------------------------------------------------------------------------------------

class SupportedDrive(Component):
    """A torque 1 N.m between a rotor (flange) and a housing inertia (support): the housing
    turns back, J_r a_r = 1, J_h a_h = -1; the idle gear on the same housing measures its
    angles from the housing."""

    rotor = _free(J=0.5)
    housing = _free(J=2.0)
    torque = rot.Torque(useSupport=True)
    gear = rot.IdealGear(ratio=2.0, useSupport=True)

    def equations(self):
        return [Eq(self.torque.tau, 1.0)]

    def connections(self):
        return [connect(self.torque.flange, self.rotor.flange_a),
                connect(self.torque.support, self.housing.flange_a),
                connect(self.rotor.flange_b, self.gear.flange_a),
                connect(self.gear.support, self.housing.flange_b)]


def test_support_takes_the_reaction():
    sol = compile(SupportedDrive()).simulate(1.0, n_points=11, **TIGHT)
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["rotor.phi"], t**2, atol=1e-10)  # 1/(2*0.5) t^2
    np.testing.assert_allclose(sol["housing.phi"], -0.25 * t**2, atol=1e-10)
    np.testing.assert_allclose(sol["torque.support.tau"], 1.0, atol=1e-12)
    rel_in = np.asarray(sol["rotor.phi"]) - np.asarray(sol["housing.phi"])
    rel_out = np.asarray(sol["gear.flange_b.phi"]) - np.asarray(sol["housing.phi"])
    np.testing.assert_allclose(sol["gear.phi_a"], rel_in, atol=1e-12)
    np.testing.assert_allclose(rel_in, 2.0 * rel_out, atol=1e-10)
    np.testing.assert_allclose(sol["gear.support.tau"], 0.0, atol=1e-12)  # idle
    assert not hasattr(rot.Torque(), "support")


class SensorRig(Component):
    """Torque sin(t) on inertia 1 (J = 1), a spring (c = 4) through the sensors to a fixed
    flange: the multi/power sensors sit in the torque path, the relative sensors across the
    spring."""

    amplitude = Parameter(1.0, unit="N.m", description="torque amplitude")
    torque = rot.Torque()
    inertia = _free(J=1.0, phi=0.1)
    multi = MultiSensor()
    power = PowerSensor()
    spring = rot.Spring(c=4.0)
    fixed = rot.Fixed()
    rel_angle = RelAngleSensor()
    rel_speed = RelSpeedSensor()
    rel_acc = RelAccSensor()

    def equations(self):
        return [Eq(self.torque.tau, self.amplitude * sp.sin(1.0 * time))]

    def connections(self):
        return [connect(self.torque.flange, self.inertia.flange_a),
                connect(self.inertia.flange_b, self.multi.flange_a),
                connect(self.multi.flange_b, self.power.flange_a),
                connect(self.power.flange_b, self.spring.flange_b),
                connect(self.spring.flange_a, self.fixed.flange),
                connect(self.rel_angle.flange_a, self.fixed.flange),
                connect(self.rel_angle.flange_b, self.inertia.flange_b),
                connect(self.rel_speed.flange_a, self.fixed.flange),
                connect(self.rel_speed.flange_b, self.inertia.flange_b),
                connect(self.rel_acc.flange_a, self.fixed.flange),
                connect(self.rel_acc.flange_b, self.inertia.flange_b)]


def test_sensors():
    sol = compile(SensorRig()).simulate(3.0, n_points=31, **TIGHT)
    phi, w, a = (np.asarray(sol[f"inertia.{n}"]) for n in ("phi", "w", "a"))
    tau = np.asarray(sol["multi.tau.u"])
    np.testing.assert_allclose(tau, 4.0 * phi, atol=1e-10)  # the spring's torque
    np.testing.assert_allclose(sol["multi.w.u"], w, atol=1e-12)
    np.testing.assert_allclose(sol["multi.power.u"], tau * w, atol=1e-10)
    np.testing.assert_allclose(sol["power.power.u"], tau * w, atol=1e-10)
    np.testing.assert_allclose(sol["rel_angle.phi_rel.u"], phi, atol=1e-12)
    np.testing.assert_allclose(sol["rel_speed.w_rel.u"], w, atol=1e-12)
    np.testing.assert_allclose(sol["rel_acc.a_rel.u"], a, atol=1e-10)
    np.testing.assert_allclose(a, np.sin(np.asarray(sol.t)) - 4.0 * phi, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# Sources
# ---------------------------------------------------------------------------------------------

class OnInertia(Component):
    """A one-flange source on an inertia (J = 2) starting at w0."""

    def __init__(self, source, w0=0.0, J=2.0, fixed_start=True, **kw):
        super().__init__(**kw)
        self.source = source
        self.inertia = (_free(J=J, w=w0) if fixed_start else rot.Inertia(J=J))

    def connections(self):
        return [connect(self.source.flange, self.inertia.flange_a)]


def test_linear_speed_dependent_torque():
    """tau = tau_nominal w/w_nominal (TorqueDirection=False): a linear damper,
    w = w0 exp(-(|tau_nominal|/w_nominal)/J t); TorqueDirection=True: tau = tau_nominal
    |w/w_nominal| (a decreasing w on a negative torque: J w' = tau_nominal |w|/w_nominal)."""
    sol = compile(OnInertia(LinearSpeedDependentTorque(tau_nominal=-4.0, w_nominal=2.0,
                                                       TorqueDirection=False), w0=3.0)
                  ).simulate(1.0, n_points=11, **TIGHT)
    np.testing.assert_allclose(sol["inertia.w"], 3.0 * np.exp(-1.0 * np.asarray(sol.t)),
                               rtol=1e-8)
    sol = compile(OnInertia(LinearSpeedDependentTorque(tau_nominal=4.0, w_nominal=2.0), w0=-3.0)
                  ).simulate(0.2, n_points=11, **TIGHT)
    np.testing.assert_allclose(sol["source.tau"], 2.0 * np.abs(sol["inertia.w"]), rtol=1e-12)


def test_constant_speed_holds_speed_against_a_damper():
    class Rig(Component):
        source = ConstantSpeed(w_fixed=3.0)
        inertia = rot.Inertia(J=2.0, phi=Variable(start=0.0, fixed=True))
        damper = rot.Damper(d=0.5)
        fixed = rot.Fixed()

        def connections(self):
            return [connect(self.source.flange, self.inertia.flange_a),
                    connect(self.inertia.flange_b, self.damper.flange_a),
                    connect(self.damper.flange_b, self.fixed.flange)]

    sol = compile(Rig()).simulate(1.0, n_points=11, **TIGHT)
    np.testing.assert_allclose(sol["inertia.phi"], 3.0 * np.asarray(sol.t), atol=1e-10)
    np.testing.assert_allclose(sol["source.flange.tau"], -1.5, atol=1e-10)  # d w through it


def test_torque_step_is_a_time_event():
    sol = compile(OnInertia(TorqueStep(stepTorque=4.0, offsetTorque=1.0, startTime=0.3))
                  ).simulate(1.0, n_points=11, **TIGHT)
    t = np.asarray(sol.t)
    expected = np.where(t < 0.3, 0.5 * t, 0.15 + 2.5 * (t - 0.3))  # J = 2: a = 0.5, then 2.5
    np.testing.assert_allclose(sol["inertia.w"], expected, atol=1e-9)
    assert sol.events[0][0] == pytest.approx(0.3, abs=1e-12)


def test_sign_torque_linear_regularisation():
    """tau = -2 N.m sign(w) above w0 = 0.1 rad/s, -2 w/w0 below: from w = 1 rad/s (J = 2)
    w = 1 - t until w = w0 at t = 0.9 s (an event), then w = 0.1 exp(-10 (t - 0.9))."""
    sol = compile(OnInertia(SignTorque(tau_nominal=-2.0, reg="Linear", w0=0.1), w0=1.0)
                  ).simulate(1.2, n_points=121, **TIGHT)
    t = np.asarray(sol.t)
    expected = np.where(t < 0.9, 1.0 - t, 0.1 * np.exp(-10.0 * (t - 0.9)))
    np.testing.assert_allclose(sol["inertia.w"], expected, atol=1e-8)
    assert sol.events[0][0] == pytest.approx(0.9, abs=1e-9)
    with pytest.raises(ParameterError, match="reg"):
        SignTorque(reg="Tanh")


@pytest.mark.parametrize("reg", ["Exp", "Sine", "CoSine"])
def test_sign_torque_laws(reg):
    """Each law at one speed below w0 and one above (the torque acts on a constant speed)."""
    for w, expected in ((0.05, {"Exp": 2 / (1 + math.exp(-50.0)) - 1,
                                "Sine": math.sin(math.pi / 4),
                                "CoSine": 1 - math.cos(math.pi / 4)}[reg]),
                        (-0.3, -1.0)):
        class Rig(Component):
            speed = ConstantSpeed(w_fixed=w)
            source = SignTorque(tau_nominal=3.0, reg=reg, w0=0.1)

            def connections(self):
                return [connect(self.speed.flange, self.source.flange)]

        sol = compile(Rig()).simulate(0.1, n_points=3, **TIGHT)
        np.testing.assert_allclose(sol["source.tau"], 3.0 * expected, rtol=1e-12)


@pytest.mark.parametrize("use_heat_port", [False, True])
def test_eddy_current_torque(use_heat_port):
    """At a held speed w = 5 rad/s and 333.15 K: w_normalized = w/(w_nominal (1 + alpha 40 K))
    with alpha = alpha20/(1 + alpha20 (TRef - 293.15 K)); tau = 2 tau_nominal wn/(1 + wn^2)
    brakes (flange.tau = tau); lossPower = tau w, given to the heat port."""
    alpha20, t_ref, temp = 3.92e-3, 303.15, 333.15
    brake = EddyCurrentTorque(tau_nominal=10.0, w_nominal=4.0, alpha20=alpha20, TRef=t_ref,
                              useHeatPort=use_heat_port, useSupport=True,
                              **({} if use_heat_port else {"T": temp}))

    class Rig(Component):
        speed = ConstantSpeed(w_fixed=5.0)
        source = brake
        fixed = rot.Fixed()

        def __init__(self, **kw):
            super().__init__(**kw)
            if use_heat_port:
                from acausal.components.thermal import FixedTemperature
                self.ambient = FixedTemperature(T=temp)

        def connections(self):
            c = [connect(self.speed.flange, self.source.flange),
                 connect(self.source.support, self.fixed.flange)]
            if use_heat_port:
                c.append(connect(self.source.heatPort, self.ambient.port))
            return c

    sol = compile(Rig()).simulate(0.1, n_points=3, **TIGHT)
    alpha = alpha20 / (1 + alpha20 * (t_ref - 293.15))
    wn = 5.0 / (4.0 * (1 + alpha * (temp - t_ref)))
    tau = 2 * 10.0 * wn / (1 + wn * wn)
    np.testing.assert_allclose(sol["source.tau"], tau, rtol=1e-12)
    np.testing.assert_allclose(sol["source.flange.tau"], tau, rtol=1e-12)
    np.testing.assert_allclose(sol["source.support.tau"], -tau, rtol=1e-12)
    np.testing.assert_allclose(sol["source.lossPower"], tau * 5.0, rtol=1e-12)
    if use_heat_port:
        np.testing.assert_allclose(sol["source.heatPort.Q_flow"], -tau * 5.0, rtol=1e-12)


def test_speed_filtered_and_exact():
    """w_ref = 2 t: exact, w = 2 t; filtered (first order, w_crit = 2 pi f_crit),
    w = 2 (t - (1 - exp(-w_crit t))/w_crit)."""
    for exact in (True, False):
        class Rig(Component):
            source = Speed(exact=exact, f_crit=5.0)
            inertia = rot.Inertia(J=1.0)

            def equations(self):
                return [Eq(self.source.w_ref.u, 2.0 * time)]

            def connections(self):
                return [connect(self.source.flange, self.inertia.flange_a)]

        sol = compile(Rig()).simulate(1.0, n_points=101, **TIGHT)
        t = np.asarray(sol.t)
        wc = 2 * math.pi * 5.0
        expected = 2 * t if exact else 2 * (t - (1 - np.exp(-wc * t)) / wc)
        np.testing.assert_allclose(sol["inertia.w"], expected, atol=1e-8)
        np.testing.assert_allclose(sol["inertia.phi"][0], 0.0, atol=1e-14)


def test_position_exact_and_filter_lag():
    """Exact: phi = sin(t) and the flange torque is J phi''. Filtered with a ramp phi_ref =
    3 t: after the transient the Bessel filter lags by 3 af/w_crit."""
    class Exact(Component):
        source = Position(exact=True)
        inertia = rot.Inertia(J=2.0)

        def equations(self):
            return [Eq(self.source.phi_ref.u, sp.sin(1.0 * time))]

        def connections(self):
            return [connect(self.source.flange, self.inertia.flange_a)]

    sol = compile(Exact()).simulate(2.0, n_points=21, **TIGHT)
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["inertia.phi"], np.sin(t), atol=1e-10)
    np.testing.assert_allclose(sol["source.flange.tau"], 2.0 * np.sin(t), atol=1e-8)

    class Filtered(Exact):
        source = Position(exact=False, f_crit=20.0)

        def equations(self):
            return [Eq(self.source.phi_ref.u, 3.0 * time)]

    sol = compile(Filtered()).simulate(0.5, n_points=51, **TIGHT)
    lag = 3.0 * Position.af / (2 * math.pi * 20.0)
    np.testing.assert_allclose(3.0 * 0.5 - sol["inertia.phi"][-1], lag, rtol=1e-6)


def test_accelerate():
    class Rig(Component):
        source = Accelerate()
        inertia = rot.Inertia(J=2.0)

        def equations(self):
            return [Eq(self.source.a_ref.u, 1.5)]

        def connections(self):
            return [connect(self.source.flange, self.inertia.flange_a)]

    sol = compile(Rig()).simulate(1.0, n_points=11, **TIGHT)
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["inertia.phi"], 0.75 * t**2, atol=1e-10)
    np.testing.assert_allclose(sol["source.flange.tau"], -3.0, atol=1e-10)  # it drives: -J a


def test_move_uses_the_given_derivatives():
    """u = (sin t, 2 cos t, -3 sin t), deliberately not derivatives of each other: the angle is
    u[0], the speed u[1] and the flange torque J u[2] (the signals are not differentiated, as
    MSL's noDerivative)."""
    class Rig(Component):
        source = Move()
        inertia = rot.Inertia(J=2.0)

        def equations(self):
            u = self.source.u.u
            return [Eq(u[0], sp.sin(1.0 * time)), Eq(u[1], 2.0 * sp.cos(1.0 * time)),
                    Eq(u[2], -3.0 * sp.sin(1.0 * time))]

        def connections(self):
            return [connect(self.source.flange, self.inertia.flange_a)]

    sol = compile(Rig()).simulate(2.0, n_points=21, **TIGHT)
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["inertia.phi"], np.sin(t), atol=1e-12)
    np.testing.assert_allclose(sol["inertia.w"], 2.0 * np.cos(t), atol=1e-12)
    np.testing.assert_allclose(sol["source.flange.tau"], 6.0 * np.sin(t), atol=1e-12)


def test_torque2_acts_between_two_flanges():
    class Rig(Component):
        source = Torque2()
        left = _free(J=1.0)
        right = _free(J=3.0)

        def equations(self):
            return [Eq(self.source.tau.u, 1.5)]

        def connections(self):
            return [connect(self.source.flange_a, self.left.flange_a),
                    connect(self.source.flange_b, self.right.flange_a)]

    sol = compile(Rig()).simulate(1.0, n_points=11, **TIGHT)
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["right.w"], 0.5 * t, atol=1e-12)
    np.testing.assert_allclose(sol["left.w"], -1.5 * t, atol=1e-12)
