"""Electrical analog components (``acausal.components.electrical``, after
Modelica.Electrical.Analog) against closed-form solutions: RC charge, RL current, an inverting
amplifier with the ideal op-amp, a DC motor (voltage source, resistor, RotationalEMF, inertia)
with its power balance, and the current and voltage sensors."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect, der, time
from acausal.components import electrical as el
from acausal.components.blocks import Sine
from acausal.components.rotational import Inertia

TIGHT = {"rtol": 1e-10, "atol": 1e-12}


class _RC(Component):
    """Constant voltage V = 10 V charging C = 1 mF through R = 100 Ohm, and an RL branch
    (R = 2 Ohm, L = 0.5 H) on the same source; a voltmeter across C."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.source = el.ConstantVoltage(V=10.0)
        self.R = el.Resistor(R=100.0)
        self.C = el.Capacitor(C=1e-3, v=Variable(start=0.0, fixed=True))
        self.R2 = el.Resistor(R=2.0)
        self.L = el.Inductor(L=0.5, i=Variable(start=0.0, fixed=True))
        self.meter = el.VoltageSensor()
        self.ground = el.Ground()

    def connections(self):
        return [connect(self.source.p, self.R.p), connect(self.R.n, self.C.p),
                connect(self.C.n, self.ground.p), connect(self.source.n, self.ground.p),
                connect(self.source.p, self.R2.p), connect(self.R2.n, self.L.p),
                connect(self.L.n, self.ground.p), connect(self.meter.p, self.C.p),
                connect(self.meter.n, self.C.n)]


def test_rc_and_rl_against_closed_form():
    t = np.linspace(0.0, 0.5, 51)
    sol = compile(_RC()).simulate(0.5, t_eval=t, **TIGHT)
    v_c = 10.0 * (1 - np.exp(-t / 0.1))
    assert np.max(np.abs(sol["C.v"] - v_c)) < 1e-7
    assert np.max(np.abs(sol["meter.v.u"] - v_c)) < 1e-7
    assert np.max(np.abs(sol["C.i"] - (10.0 - v_c) / 100.0)) < 1e-9
    assert np.max(np.abs(sol["L.i"] - 5.0 * (1 - np.exp(-t * 2.0 / 0.5)))) < 1e-7
    assert np.allclose(sol["R.LossPower"], sol["R.v"] * sol["R.i"], atol=1e-12)


class _Inverting(Component):
    """Inverting amplifier: input 2 sin(2 pi t) V through R1 = 1 kOhm into the op-amp's
    negative input (n1), feedback R2 = 4.7 kOhm from the output (p2) to n1, p1 and n2 grounded:
    v_out = -R2/R1 v_in."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.signal = Sine(amplitude=2.0, f=1.0)
        self.source = el.SignalVoltage()
        self.R1 = el.Resistor(R=1000.0)
        self.R2 = el.Resistor(R=4700.0)
        self.opamp = el.IdealOpAmp()
        self.ammeter = el.CurrentSensor()
        self.ground = el.Ground()

    def connections(self):
        return [connect(self.signal.y, self.source.v), connect(self.source.n, self.ground.p),
                connect(self.source.p, self.ammeter.p), connect(self.ammeter.n, self.R1.p),
                connect(self.R1.n, self.opamp.n1), connect(self.R2.p, self.opamp.n1),
                connect(self.R2.n, self.opamp.p2), connect(self.opamp.p1, self.ground.p),
                connect(self.opamp.n2, self.ground.p)]


def test_inverting_amplifier():
    t = np.linspace(0.0, 1.0, 21)
    sol = compile(_Inverting()).simulate(1.0, t_eval=t, **TIGHT)
    v_in = 2.0 * np.sin(2 * np.pi * t)
    assert np.allclose(sol["opamp.v2"], -4.7 * v_in, atol=1e-10)
    assert np.allclose(sol["opamp.v1"], 0.0, atol=1e-12)
    assert np.allclose(sol["opamp.i1"], 0.0, atol=1e-12)
    assert np.allclose(sol["ammeter.i.u"], v_in / 1000.0, atol=1e-13)
    assert np.allclose(sol["source.i"], -v_in / 1000.0, atol=1e-13)  # p to n inside: -i


class _DCMotor(Component):
    """V = 12 V through R = 0.5 Ohm on an EMF (k = 0.2 N.m/A) driving an inertia J = 0.01 kg.m2
    from rest: w = V/k (1 - exp(-t/T)), T = J R/k^2 = 0.125 s; i = (V - k w)/R."""

    E = Variable(start=0.0, fixed=True, unit="J", description="electrical energy into the EMF")

    def __init__(self, **kw):
        super().__init__(**kw)
        self.source = el.ConstantVoltage(V=12.0)
        self.R = el.Resistor(R=0.5)
        self.emf = el.RotationalEMF(k=0.2)
        self.rotor = Inertia(J=0.01, phi=Variable(start=0.0, fixed=True),
                             w=Variable(start=0.0, fixed=True))
        self.ground = el.Ground()

    def connections(self):
        return [connect(self.source.p, self.R.p), connect(self.R.n, self.emf.p),
                connect(self.emf.n, self.ground.p), connect(self.source.n, self.ground.p),
                connect(self.emf.flange, self.rotor.flange_a)]

    def equations(self):
        return [Eq(der(self.E), self.emf.v * self.emf.i)]


def test_dc_motor_against_closed_form_and_power():
    t = np.linspace(0.0, 1.0, 51)
    sol = compile(_DCMotor()).simulate(1.0, t_eval=t, **TIGHT)
    w = 60.0 * (1 - np.exp(-t / 0.125))
    assert np.max(np.abs(sol["rotor.w"] - w)) < 1e-6
    assert np.max(np.abs(sol["emf.i"] - (12.0 - 0.2 * w) / 0.5)) < 1e-6
    assert np.allclose(sol["emf.tauElectrical"], 0.2 * sol["emf.i"], atol=1e-12)
    # the EMF converts without loss: v i = tauElectrical w, and its energy is the rotor's
    assert np.allclose(sol["emf.v"] * sol["emf.i"], sol["emf.tauElectrical"] * sol["emf.w"],
                       atol=1e-9)
    assert np.max(np.abs(sol["E"] - 0.5 * 0.01 * sol["rotor.w"] ** 2)) < 1e-6
    assert sol["E"][-1] == pytest.approx(0.5 * 0.01 * w[-1] ** 2, rel=1e-6)


def test_ground_fixes_the_potential():
    class _Divider(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.source = el.SignalVoltage()
            self.R1 = el.Resistor(R=3.0)
            self.R2 = el.Resistor(R=1.0)
            self.ground = el.Ground()

        def connections(self):
            return [connect(self.source.p, self.R1.p), connect(self.R1.n, self.R2.p),
                    connect(self.R2.n, self.source.n), connect(self.source.n, self.ground.p)]

        def equations(self):
            return [Eq(self.source.v.u, 8.0 + time)]

    sol = compile(_Divider()).simulate(1.0, t_eval=[0.0, 1.0], **TIGHT)
    assert np.allclose(sol["R2.p.v"], [2.0, 2.25], atol=1e-12)
    assert np.allclose(sol["ground.p.v"], 0.0, atol=0.0)
