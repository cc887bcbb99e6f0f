"""The core knows no physics: an electrical library defined here, in the test, works.

Components after Modelica.Electrical.Analog.Basic / ModelingToolkitStandardLibrary.Electrical:
a ``Pin`` connector (potential ``v`` [V], flow ``i`` [A] into the component), ``Ground``,
``Resistor``, ``Capacitor``, ``Inductor`` and ``ConstantVoltage``. An RC step charge and a
series RLC circuit are compared with their closed-form solutions (rtol=1e-10 integration,
1e-6 of the amplitude allowed).
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import (
    Component,
    Connector,
    Eq,
    Flow,
    Parameter,
    Potential,
    Variable,
    compile,
    connect,
    der,
)

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
REL = 1e-6


class Pin(Connector):
    """Electrical pin: potential ``v`` [V], current ``i`` [A] flowing into the component."""

    v = Potential(unit="V", description="electric potential")
    i = Flow(unit="A", description="current into the component")


class Ground(Component):
    """Reference potential: ``g.v = 0``."""

    g = Pin()

    def equations(self):
        return [Eq(self.g.v, 0)]


class OnePort(Component):
    """Two pins: ``v = p.v - n.v``, ``0 = p.i + n.i``, ``i = p.i``."""

    p = Pin()
    n = Pin()
    v = Variable(unit="V", description="voltage drop p.v - n.v")
    i = Variable(unit="A", description="current from p to n through the component")

    def equations(self):
        return [Eq(self.v, self.p.v - self.n.v), Eq(0, self.p.i + self.n.i),
                Eq(self.i, self.p.i)]


class Resistor(OnePort):
    """Ohm's law: ``v = R i``."""

    R = Parameter(1.0, unit="Ohm", description="resistance")

    def equations(self):
        return [*super().equations(), Eq(self.v, self.R * self.i)]


class Capacitor(OnePort):
    """``C der(v) = i``."""

    C = Parameter(1.0, unit="F", description="capacitance")

    def equations(self):
        return [*super().equations(), Eq(self.C * der(self.v), self.i)]


class Inductor(OnePort):
    """``L der(i) = v``."""

    L = Parameter(1.0, unit="H", description="inductance")

    def equations(self):
        return [*super().equations(), Eq(self.L * der(self.i), self.v)]


class ConstantVoltage(OnePort):
    """Ideal source: ``v = V`` (p is the positive terminal)."""

    V = Parameter(1.0, unit="V", description="source voltage")

    def equations(self):
        return [*super().equations(), Eq(self.v, self.V)]


class RC(Component):
    """Source -- R -- C -- ground; the capacitor starts uncharged."""

    source = ConstantVoltage(V=10.0)
    resistor = Resistor(R=2.0)
    capacitor = Capacitor(C=0.25, v=Variable(start=0.0, fixed=True))
    ground = Ground()

    def connections(self):
        return [connect(self.source.p, self.resistor.p),
                connect(self.resistor.n, self.capacitor.p),
                connect(self.capacitor.n, self.source.n),
                connect(self.source.n, self.ground.g)]


class RLC(Component):
    """Series source -- R -- L -- C -- ground; uncharged capacitor, no current at t = 0."""

    source = ConstantVoltage(V=5.0)
    resistor = Resistor(R=0.5)
    inductor = Inductor(L=0.1, i=Variable(start=0.0, fixed=True))
    capacitor = Capacitor(C=0.01, v=Variable(start=0.0, fixed=True))
    ground = Ground()

    def connections(self):
        return [connect(self.source.p, self.resistor.p),
                connect(self.resistor.n, self.inductor.p),
                connect(self.inductor.n, self.capacitor.p),
                connect(self.capacitor.n, self.source.n),
                connect(self.source.n, self.ground.g)]


def assert_close(actual, expected, scale, rel=REL):
    err = np.max(np.abs(np.asarray(actual) - np.asarray(expected)))
    assert err <= rel * scale, f"max error {err:.3e} > {rel:g} * {scale:g}"


def series_rlc(t, r, ind, cap, u):
    """Exact capacitor voltage and current of a series RLC step response from rest."""
    w0 = 1.0 / np.sqrt(ind * cap)
    alpha = r / (2.0 * ind)
    if alpha >= w0:
        raise ValueError("this helper covers the underdamped case only")
    wd = np.sqrt(w0**2 - alpha**2)
    e = np.exp(-alpha * t)
    vc = u * (1.0 - e * (np.cos(wd * t) + alpha / wd * np.sin(wd * t)))
    i = cap * u * e * (w0**2 / wd) * np.sin(wd * t)  # i = C der(vc)
    return vc, i


@pytest.fixture(scope="module")
def rc():
    return compile(RC())


@pytest.fixture(scope="module")
def rlc():
    return compile(RLC())


def test_rc_structure(rc):
    assert rc.n_states == 1
    assert rc.is_ode
    assert rc.parameters() == {"source.V": 10.0, "resistor.R": 2.0, "capacitor.C": 0.25}


def test_rc_step_charge(rc):
    u, r, c = 10.0, 2.0, 0.25
    tau = r * c
    sol = rc.simulate(5 * tau, n_points=501, **TIGHT)
    t = sol.t
    vc = u * (1.0 - np.exp(-t / tau))
    current = u / r * np.exp(-t / tau)
    assert_close(sol["capacitor.v"], vc, u)
    assert_close(sol["capacitor.i"], current, u / r)
    assert_close(sol["resistor.i"], current, u / r)
    assert_close(sol["resistor.v"], u - vc, u)
    # connector variables: KVL / KCL and the ground reference
    np.testing.assert_allclose(sol["ground.g.v"], 0.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(sol["source.p.v"], u, rtol=0, atol=1e-12)
    assert_close(sol["capacitor.p.v"], vc, u)
    assert_close(sol["source.i"], -current, u / r)  # current leaves the source's + pin
    assert_close(sol["ground.g.i"], 0.0, u / r)  # nothing flows into ground in a series loop
    assert_close(sol["resistor.p.i"] + sol["source.p.i"], 0.0, u / r)
    assert_close(sol["resistor.v"] + sol["capacitor.v"], sol["source.v"], u)


def test_rc_params_without_recompiling(rc):
    ode_function = rc.function("ode")
    sol = rc.simulate(1.0, n_points=201, params={"resistor.R": 4.0, "source.V": -3.0},
                      **TIGHT)
    assert sol.compiled is rc
    assert rc.function("ode") is ode_function
    vc = -3.0 * (1.0 - np.exp(-sol.t / (4.0 * 0.25)))
    assert_close(sol["capacitor.v"], vc, 3.0)


def test_rlc_structure(rlc):
    assert rlc.n_states == 2
    assert rlc.is_ode
    # the two energy stores carry the state, in some form
    names = set(rlc.state_names)
    assert len(names & {"capacitor.v", "capacitor.p.v", "capacitor.n.v", "capacitor.i",
                        "capacitor.p.i", "inductor.i", "inductor.p.i", "inductor.n.i",
                        "resistor.i", "resistor.p.i", "source.i"}) == 2, names


def test_rlc_step_response(rlc):
    u, r, ind, cap = 5.0, 0.5, 0.1, 0.01
    sol = rlc.simulate(1.0, n_points=2001, **TIGHT)
    t = sol.t
    vc, current = series_rlc(t, r, ind, cap, u)
    i_max = np.max(np.abs(current))
    # underdamped: the capacitor overshoots the source voltage
    assert np.max(sol["capacitor.v"]) > 1.5 * u
    assert_close(sol["capacitor.v"], vc, u)
    assert_close(sol["inductor.i"], current, i_max)
    assert_close(sol["capacitor.i"], current, i_max)
    # KVL around the loop, inductor law from the solution's derivative
    assert_close(sol["resistor.v"] + sol["inductor.v"] + sol["capacitor.v"], u, u)
    assert_close(sol["inductor.v"], u - r * current - vc, u)
    assert_close(ind * sol["der(inductor.i)"], sol["inductor.v"], u)


def test_rlc_new_parameters(rlc):
    u, r, ind, cap = 2.0, 1.0, 0.05, 0.02
    sol = rlc.simulate(1.0, n_points=1001, params={"source.V": u, "resistor.R": r,
                                                   "inductor.L": ind, "capacitor.C": cap},
                       **TIGHT)
    assert sol.compiled is rlc
    vc, current = series_rlc(sol.t, r, ind, cap, u)
    assert_close(sol["capacitor.v"], vc, u)
    assert_close(sol["inductor.i"], current, np.max(np.abs(current)))
