"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.SignConvention`` against its Dymola
reference (``../shared/reference/translational/SignConvention``).

Three masses (m = 1 kg, L = 1 m, at rest at s = 0) pushed by a force of 1 N: (1) a ``Force`` at
``flange_a``, (2) at ``flange_b``, (3) a ``Force`` with its support on a ``Fixed`` and its
flange at ``mass3.flange_b``. All three move the same way: ``a = 1 m/s2``, ``v = t``,
``s = t^2/2`` (closed form, checked inline); the reference has no events.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components import translational as tr
from acausal.components.blocks import Constant

#: the comparison with the reference (whose tolerance is 1e-6)
RTOL, ATOL = 1e-8, 1e-10
#: the closed-form checks run tighter; the global error of such a run grows to about 100
#: times its tolerance over the run, and ERR (relative to each signal's scale) allows 1000
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
SIGNALS = ["mass1.s", "mass1.v", "mass2.s", "mass2.v", "mass3.s", "mass3.v"]


def at_rest() -> dict:
    return {"s": Variable(start=0.0, fixed=True), "v": Variable(start=0.0, fixed=True)}


class SignConvention(Component):
    mass1 = tr.Mass(L=1, m=1, **at_rest())
    force1 = tr.Force()
    constant1 = Constant(k=1)
    mass2 = tr.Mass(L=1, m=1, **at_rest())
    force2 = tr.Force()
    constant2 = Constant(k=1)
    mass3 = tr.Mass(L=1, m=1, **at_rest())
    force3 = tr.Force(useSupport=True)
    constant3 = Constant(k=1)
    fixed = tr.Fixed()

    def equations(self):
        # MSL connects the constants to the forces' signal inputs f
        return [Eq(self.force1.f, self.constant1.y.u), Eq(self.force2.f, self.constant2.y.u),
                Eq(self.force3.f, self.constant3.y.u)]

    def connections(self):
        return [connect(self.force1.flange, self.mass1.flange_a),
                connect(self.force2.flange, self.mass2.flange_b),
                connect(self.mass3.flange_b, self.force3.flange),
                connect(self.fixed.flange, self.force3.support)]


@pytest.fixture(scope="module")
def compiled():
    return compile(SignConvention())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 11)
    sol = compiled.simulate(1.0, t_eval=t, **TIGHT)
    for k in (1, 2, 3):
        np.testing.assert_allclose(sol[f"mass{k}.s"], t**2 / 2, rtol=0, atol=ERR * 0.5)
        np.testing.assert_allclose(sol[f"mass{k}.v"], t, rtol=0, atol=ERR)
    # the reference's values at t = 1 s (SignConvention.csv, last row)
    for k in (1, 2, 3):
        assert sol[f"mass{k}.s"][-1] == pytest.approx(0.5, abs=ERR * 0.5)
        assert sol[f"mass{k}.v"][-1] == pytest.approx(1.0, abs=ERR)
    # the support of force3 takes the reaction, support.f = -flange.f = +1 N
    np.testing.assert_allclose(sol["force3.support.f"], 1.0, atol=1e-12)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "SignConvention", 1.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
