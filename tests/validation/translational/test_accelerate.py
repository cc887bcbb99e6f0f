"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.Accelerate`` against its Dymola
reference (``../shared/reference/translational/Accelerate``).

A ``Sources.Accelerate`` driven by a ``Constant(k=1)`` moves a ``Mass(L=1, m=1)``: MSL's
source starts at ``s = 0``, ``v = 0`` (``fixed=true`` in its declaration), so ``s = t^2/2``,
``v = t`` and the force needed is ``f = m a = 1 N`` (closed form, checked inline).
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import translational as tr
from acausal.components.blocks import Constant
from acausal.components.sources import TranslationalAccelerate

#: the comparison with the reference (whose tolerance is 1e-6)
RTOL, ATOL = 1e-8, 1e-10
#: the closed-form checks run tighter; the global error of such a run grows to about 100
#: times its tolerance over the run, and ERR (relative to each signal's scale) allows 1000
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
SIGNALS = ["accelerate.s", "accelerate.v"]


class Accelerate(Component):
    # MSL Translational.Sources.Accelerate declares s(start=0, fixed=true), v(start=0,
    # fixed=true)
    accelerate = TranslationalAccelerate(use_input=True, s=Variable(start=0.0, fixed=True),
                                         v=Variable(start=0.0, fixed=True))
    mass = tr.Mass(L=1, m=1)
    constantAcc = Constant(k=1)

    def connections(self):
        return [connect(self.accelerate.flange, self.mass.flange_a),
                connect(self.constantAcc.y, self.accelerate.a_ref)]


@pytest.fixture(scope="module")
def compiled():
    return compile(Accelerate())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 11)
    sol = compiled.simulate(1.0, t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["accelerate.s"], t**2 / 2, rtol=0, atol=ERR * 0.5)
    np.testing.assert_allclose(sol["accelerate.v"], t, rtol=0, atol=ERR)
    # the mass's centre is L/2 ahead of its flange_a
    np.testing.assert_allclose(sol["mass.s"], t**2 / 2 + 0.5, rtol=0, atol=ERR * 0.5)
    np.testing.assert_allclose(sol["accelerate.f"], 1.0, rtol=0, atol=1e-12)
    # the reference's last row (t = 1 s): accelerate.s = 0.5, accelerate.v = 1
    assert sol["accelerate.s"][-1] == pytest.approx(0.5, abs=ERR * 0.5)
    assert sol["accelerate.v"][-1] == pytest.approx(1.0, abs=ERR)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "Accelerate", 1.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
