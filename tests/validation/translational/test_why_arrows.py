"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.WhyArrows`` against its Dymola reference
(``../shared/reference/translational/WhyArrows``).

Three rods (L = 1 m) at a ``Fixed`` at 0 and position sensors at their free ends: rod1 ends at
-1 m, rod2 and rod3 (connected the other way round) at +1 m. Two equal oscillators: a
``Fixed(s0=-1.9)``, a ``Spring(c=11, s_rel0=2)`` and a ``Mass(L=2, m=1)`` whose ``flange_b`` the
spring holds, released at rest at ``s = 0``: the spring's length is ``s + 2.9``, so
``s'' = -11 (s + 0.9)`` and ``s = -0.9 + 0.9 cos(sqrt(11) t)`` (closed form, inline).
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import translational as tr
from acausal.components.translational_parts import PositionSensor

#: the comparison with the reference (whose tolerance is 1e-6)
RTOL, ATOL = 1e-8, 1e-10
#: the closed-form checks run tighter; the global error of such a run grows to about 100
#: times its tolerance over the run, and ERR (relative to each signal's scale) allows 1000
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
SIGNALS = ["inertia2.s", "inertia2.v", "mass1.s", "mass1.v"]


def at_rest() -> dict:
    return {"s": Variable(start=0.0, fixed=True), "v": Variable(start=0.0, fixed=True)}


class WhyArrows(Component):
    fixed = tr.Fixed()
    rod1 = tr.Rod(L=1)
    rod2 = tr.Rod(L=1)
    rod3 = tr.Rod(L=1)
    positionSensor2 = PositionSensor()
    positionSensor1 = PositionSensor()
    positionSensor3 = PositionSensor()
    fixed1 = tr.Fixed(s0=-1.9)
    spring1 = tr.Spring(s_rel0=2, c=11)
    mass1 = tr.Mass(L=2, m=1, **at_rest())
    fixed2 = tr.Fixed(s0=-1.9)
    spring2 = tr.Spring(s_rel0=2, c=11)
    inertia2 = tr.Mass(L=2, m=1, **at_rest())

    def connections(self):
        return [connect(self.spring1.flange_b, self.mass1.flange_b),
                connect(self.spring2.flange_b, self.inertia2.flange_b),
                connect(self.rod3.flange_b, self.positionSensor3.flange),
                connect(self.rod1.flange_a, self.positionSensor1.flange),
                connect(self.rod1.flange_b, self.fixed.flange),
                connect(self.rod3.flange_a, self.fixed.flange),
                connect(self.fixed.flange, self.rod2.flange_a),
                connect(self.rod2.flange_b, self.positionSensor2.flange),
                connect(self.fixed1.flange, self.spring1.flange_a),
                connect(self.fixed2.flange, self.spring2.flange_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(WhyArrows())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 101)
    sol = compiled.simulate(1.0, t_eval=t, **TIGHT)
    w = np.sqrt(11.0)
    for name in ("mass1", "inertia2"):
        np.testing.assert_allclose(sol[f"{name}.s"], -0.9 + 0.9 * np.cos(w * t), rtol=0,
                                   atol=ERR * 1.8)
        np.testing.assert_allclose(sol[f"{name}.v"], -0.9 * w * np.sin(w * t), rtol=0,
                                   atol=ERR * 3)
    # the rods: the sensors at their free ends read -1, +1, +1 m
    np.testing.assert_allclose(sol["positionSensor1.s.u"], -1.0, atol=1e-12)
    np.testing.assert_allclose(sol["positionSensor2.s.u"], 1.0, atol=1e-12)
    np.testing.assert_allclose(sol["positionSensor3.s.u"], 1.0, atol=1e-12)
    # the reference at t = 0.5 s and 1 s (WhyArrows.csv; it is some 1e-6 off the closed form)
    assert sol["mass1.s"][50] == pytest.approx(-0.978664404, abs=1e-5)
    assert sol["inertia2.v"][-1] == pytest.approx(0.519802596, abs=1e-5)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "WhyArrows", 1.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
