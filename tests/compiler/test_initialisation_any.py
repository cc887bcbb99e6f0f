"""Initialisation as Modelica allows it: initial equations on any variable and on der() of any
variable the model has (also one that index reduction left algebraic), and parameters with
``fixed=False`` computed together with the initial values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import (
    Component,
    Eq,
    InitializationError,
    ModelDefinitionError,
    Parameter,
    Variable,
    compile,
    der,
)
from acausal.errors import InputError

G = 9.81


class CartWithLever(Component):
    """A cart x on a spring (k, m), and a lever whose tip height ``h = L sin(x/L)`` is an
    algebraic variable: index reduction never differentiates it, yet an initial equation may
    name its derivative (``D(h) = cos(x/L) v``)."""

    k = Parameter(4.0, unit="N/m")
    m = Parameter(1.0, unit="kg")
    L = Parameter(2.0, unit="m")
    x = Variable(start=0.1, unit="m")
    v = Variable(start=0.0, unit="m/s")
    h = Variable(unit="m")

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(self.m * der(self.v), -self.k * self.x),
                Eq(self.h, self.L * sympy_sin(self.x / self.L))]

    def initial_equations(self):
        return [Eq(self.h, 0.5), Eq(der(self.h), 0.3)]


def sympy_sin(e):
    import sympy as sp

    return sp.sin(e)


def test_initial_equations_on_an_algebraic_variable_and_its_derivative():
    cs = compile(CartWithLever())
    assert cs.state_names == ["x", "v"]  # h is not a state and has no derivative variable
    sol = cs.simulate(1.0, n_points=3, rtol=1e-10, atol=1e-12)
    x0 = 2.0 * math.asin(0.5 / 2.0)  # L sin(x/L) = 0.5
    v0 = 0.3 / math.cos(x0 / 2.0)  # D(h) = cos(x/L) v = 0.3
    # to the initialisation's Newton tolerance (1e-10 of the residuals)
    assert sol["x"][0] == pytest.approx(x0, abs=1e-9)
    assert sol["v"][0] == pytest.approx(v0, abs=1e-9)
    # and the motion is the spring's: x = x0 cos(w t) + v0/w sin(w t)
    w = 2.0
    assert sol["x"][-1] == pytest.approx(x0 * math.cos(w) + v0 / w * math.sin(w), abs=1e-8)


class LoopWithRate(Component):
    """``y`` solved from a nonlinear algebraic loop ``y^3 + y = x`` (a tear variable: it is in
    z), and ``D(x) = -x``; an initial equation on ``D(y)``: ``D(y) = D(x)/(3 y^2 + 1)``."""

    x = Variable(start=1.0)
    y = Variable(start=0.5)

    def equations(self):
        return [Eq(der(self.x), -self.x), Eq(self.y**3 + self.y, self.x)]

    def initial_equations(self):
        return [Eq(der(self.y), -0.5)]


def test_initial_equation_on_the_derivative_of_a_tear_variable():
    cs = compile(LoopWithRate())
    assert cs.algebraic_names == ["y"]
    sol = cs.simulate(0.5, n_points=2, rtol=1e-10, atol=1e-12)
    x0, y0 = sol["x"][0], sol["y"][0]
    assert y0**3 + y0 == pytest.approx(x0, abs=1e-12)
    assert -x0 / (3 * y0**2 + 1) == pytest.approx(-0.5, abs=1e-10)


class HangingMass(Component):
    """A mass on a spring of unknown stiffness ``c`` (``fixed=False``, guess 100 N/m): the
    model asks for the mass to hang at rest 0.2 m below the spring's unstretched end, so
    ``c = m g / 0.2`` is computed at initialisation (a preload, Modelica's
    ``parameter Real c(fixed=false)``)."""

    m = Parameter(2.0, unit="kg")
    c = Parameter(100.0, unit="N/m", fixed=False)
    x = Variable(start=-0.2, fixed=True, unit="m")
    v = Variable(start=0.0, unit="m/s")

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(self.m * der(self.v), -self.c * self.x - self.m * G)]

    def initial_equations(self):
        return [Eq(der(self.v), 0)]


def test_a_parameter_with_fixed_false_is_computed_at_initialisation():
    cs = compile(HangingMass())
    assert [cs.parameter_names[i] for i in cs.computed_parameters] == ["c"]
    sol = cs.simulate(2.0, n_points=5, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["c"], 2.0 * G / 0.2, rtol=1e-12)  # a column of the result
    np.testing.assert_allclose(sol["x"], -0.2, atol=1e-9)  # and the mass stays at rest
    # another mass gives another stiffness, without compiling again; the guess is p's value
    sol = cs.simulate(1.0, n_points=2, params={"m": 3.0, "c": 1.0})
    np.testing.assert_allclose(sol["c"], 3.0 * G / 0.2, rtol=1e-10)


class Spring(Component):
    c = Parameter(1.0, unit="1/s2")  # stiffness per unit mass
    x = Variable(start=-0.3, fixed=True, unit="m")
    v = Variable(start=0.0, unit="m/s")

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(der(self.v), -self.c * self.x - G)]


class Rig(Component):
    """``spring.c`` made fixed=False where the component is created (Modelica's modifier
    ``c(fixed=false, start=5)``), and an initial equation of the enclosing model fixes it."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.spring = Spring(c=Parameter(5.0, fixed=False))

    def initial_equations(self):
        return [Eq(der(self.spring.v), 0)]


def test_fixed_false_given_when_a_component_is_created():
    cs = compile(Rig())
    sol = cs.simulate(1.0, n_points=3, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["spring.c"], G / 0.3, rtol=1e-12)


def test_what_is_refused_is_named():
    class Missing(Component):  # c is unknown and nothing determines it
        c = Parameter(1.0, fixed=False)
        x = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.x), -self.c * self.x)]

    with pytest.raises(InitializationError, match=r"c \(a parameter with fixed=False\)"):
        compile(Missing()).simulate(1.0)
    with pytest.raises(ModelDefinitionError, match="must be numeric"):
        Parameter(True, fixed=False)

    class Structural(Component):
        n = Parameter(2, structural=True)

    class Holder(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.part = Structural(n=Parameter(3.0, fixed=False))

    with pytest.raises(ModelDefinitionError, match="only a numeric parameter"):
        compile(Holder())
    with pytest.raises(InputError, match="computed at initialisation"):
        compile(HangingMass()).export_fmu("hanging.fmu")
