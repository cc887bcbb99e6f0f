"""compile(..., stabilization="baumgarte"): the constraint-stabilised index-1 formulation."""

import math

import numpy as np
import pytest

from acausal import Component, Eq, ModelDefinitionError, Parameter, Variable, compile, der

A0 = 0.5


class Pendulum(Component):
    m = Parameter(1.0)
    L = Parameter(1.0)
    g = Parameter(9.81)
    x = Variable(start=math.sin(A0), fixed=True)
    y = Variable(start=-math.cos(A0), fixed=True)
    vx = Variable(start=0.0, fixed=True)
    vy = Variable(start=0.0, fixed=True)
    lam = Variable()

    def equations(self):
        return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                Eq(self.m * der(self.vx), -self.lam * self.x),
                Eq(self.m * der(self.vy), -self.lam * self.y - self.m * self.g),
                Eq(self.x**2 + self.y**2, self.L**2)]


def drift(cs):
    sol = cs.simulate(10.0, rtol=1e-6, atol=1e-8)
    return np.max(np.abs(sol["x"] ** 2 + sol["y"] ** 2 - 1.0)), sol


def test_baumgarte_keeps_positions_and_velocities_as_states_and_damps_drift():
    plain = compile(Pendulum(), stabilization="baumgarte", alpha=0.0, beta=0.0)
    stabilised = compile(Pendulum(), stabilization="baumgarte", alpha=5.0, beta=5.0)
    assert sorted(stabilised.state_names) == ["vx", "vy", "x", "y"]
    assert stabilised.is_ode
    d_plain, _ = drift(plain)
    d_stab, sol = drift(stabilised)
    assert d_stab < 0.2 * d_plain  # the stabilisation pulls the motion back to the constraint
    assert d_stab < 1e-4
    # the stabilised motion is still the pendulum: same period as index reduction gives
    reference = compile(Pendulum(y=Variable(start=-math.cos(A0)))).simulate(
        10.0, rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(sol["x"] - reference["x"])) < 1e-3


def test_index_reduction_keeps_the_constraint_exactly():
    cs = compile(Pendulum(y=Variable(start=-math.cos(A0)), vy=Variable(start=0.0)))
    assert cs.n_states == 2
    d, _ = drift(cs)
    assert d < 1e-10


def test_unknown_stabilization_is_rejected():
    with pytest.raises(ModelDefinitionError, match="baumgarte"):
        compile(Pendulum(), stabilization="projection")
