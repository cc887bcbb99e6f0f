"""Start values reach the iteration variables through linear two-variable equations.

A guess given on ``phi`` must select the root of a nonlinear equation even when the compiler
iterates on ``phi_abs = phi + off`` (Modelica tools propagate start values the same way).
"""

import math

import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, der


class OffsetAlias(Component):
    off = Parameter(0.0, unit="rad")
    x = Variable(start=0.5, fixed=True)
    phi = Variable(start=-1.0)  # guess for the negative root of cos(phi + off) = x
    phi_abs = Variable()  # no start of its own

    def equations(self):
        return [Eq(der(self.x), 0), Eq(self.phi, self.phi_abs - self.off),
                Eq(sp.cos(self.phi_abs), self.x)]


@pytest.mark.parametrize("off", [0.0, 0.3, -0.4])
def test_guess_selects_the_root_through_an_offset(off):
    cs = compile(OffsetAlias())
    assert cs.algebraic_names == ["phi_abs"]  # the start-less variable is the iteration one
    sol = cs.simulate(1.0, n_points=3, params={"off": off})
    assert sol["phi_abs"][0] == pytest.approx(-math.acos(0.5), abs=1e-10)
    assert sol["phi"][-1] == pytest.approx(-math.acos(0.5) - off, abs=1e-10)


def test_positive_guess_gives_the_other_root():
    cs = compile(OffsetAlias(phi=Variable(start=+1.0)))
    assert cs.simulate(1.0, n_points=2)["phi"][0] == pytest.approx(math.acos(0.5), abs=1e-10)
