"""Shared models and helpers for the compiler tests.

The structural passes are functions of data: most tests build an ``EquationSystem`` from a tiny
component defined in the test (``flatten`` + ``build_equation_system``) and run one pass on it.
The Cartesian pendulum is used by several files, so it lives here as a fixture.
"""

from __future__ import annotations

import math

import pytest

from acausal import Component, Eq, Parameter, Variable, der
from acausal.compiler.flatten import flatten
from acausal.compiler.structure.alias import eliminate_aliases
from acausal.compiler.structure.system import build_equation_system


class Pendulum(Component):
    """Point mass on a massless rod in Cartesian coordinates (index-3 DAE).

    Equations: ``der(x) = vx``; ``der(y) = vy``; ``m der(vx) = -lam x``;
    ``m der(vy) = -lam y - m g``; ``x^2 + y^2 = L^2`` (``lam`` is the rod force per length).
    Source: E. Hairer, G. Wanner, Solving ODEs II, section VII.1.
    """

    m = Parameter(1.0, unit="kg", description="mass")
    L = Parameter(1.0, unit="m", description="rod length")
    g = Parameter(9.81, unit="m/s2", description="gravity")
    x = Variable(unit="m")
    y = Variable(unit="m")
    vx = Variable(unit="m/s")
    vy = Variable(unit="m/s")
    lam = Variable(unit="N/m")

    def equations(self):
        return [Eq(der(self.x), self.vx),
                Eq(der(self.y), self.vy),
                Eq(self.m * der(self.vx), -self.lam * self.x),
                Eq(self.m * der(self.vy), -self.lam * self.y - self.m * self.g),
                Eq(self.x ** 2 + self.y ** 2, self.L ** 2)]


def make_pendulum(theta: float = 0.5, fixed=("x", "vx"), L: float = 1.0, **extra):
    """A pendulum released from rest at angle ``theta`` from the downward vertical.

    Every variable gets its start value on the circle; the names in ``fixed`` get ``fixed=True``.
    ``extra`` overrides variables (Variable objects) or parameters by name.
    """
    starts = {"x": L * math.sin(theta), "y": -L * math.cos(theta), "vx": 0.0, "vy": 0.0}
    overrides = {name: Variable(start=value, fixed=name in fixed) for name, value in starts.items()}
    overrides["L"] = L
    for name, value in extra.items():
        if isinstance(value, Variable) and name in overrides:
            value = overrides[name].merged(value)
        overrides[name] = value
    return Pendulum(**overrides)


def build(model):
    """(flat, system): the flattened model and its integer equation system."""
    flat = flatten(model)
    return flat, build_equation_system(flat)


def reduce_aliases(model):
    """(flat, system before alias elimination, reduced system, alias map)."""
    flat, system = build(model)
    reduced, amap = eliminate_aliases(system)
    return flat, system, reduced, amap


# The helpers are handed to the tests as fixtures (not imported from this file), so that the
# tests work in every pytest import mode and next to other test folders' conftest files.


@pytest.fixture(scope="session")
def pendulum():
    """Factory for the Cartesian pendulum (see :func:`make_pendulum`)."""
    return make_pendulum


@pytest.fixture(name="build", scope="session")
def build_fixture():
    """:func:`build`: (flat, system) of a model."""
    return build


@pytest.fixture(name="reduce_aliases", scope="session")
def reduce_aliases_fixture():
    """:func:`reduce_aliases`: (flat, system, reduced system, alias map) of a model."""
    return reduce_aliases
