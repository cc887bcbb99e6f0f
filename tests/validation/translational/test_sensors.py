"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.Sensors`` against its Dymola reference
(``../shared/reference/translational/Sensors``).

A force ``f = 10 sin(2 pi 4 t)`` N pushes, through a ``ForceSensor`` and a ``MultiSensor``, a
``Mass(L=1, m=1)`` at rest at ``s = 0``; position, speed and acceleration sensors watch its
flanges. With ``w = 8 pi``: ``a = 10 sin(w t)``, ``v = (10/w)(1 - cos(w t))``,
``s = (10/w)(t - sin(w t)/w)`` (closed form, inline); the force sensors read ``f``, the
multi-sensor's power is ``f v``; ``positionSensor2`` on ``flange_b`` reads ``s + L/2``.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components import translational as tr
from acausal.components.blocks import Sine
from acausal.components.translational_parts import (
    AccSensor,
    ForceSensor,
    MultiSensor,
    PositionSensor,
    SpeedSensor,
)

#: the comparison with the reference (whose tolerance is 1e-6)
RTOL, ATOL = 1e-8, 1e-10
#: the closed-form checks run tighter; the global error of such a run grows to about 100
#: times its tolerance over the run, and ERR (relative to each signal's scale) allows 1000
TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7
SIGNALS = ["mass.s", "mass.v"]


class Sensors(Component):
    forceSensor = ForceSensor()
    multiSensor = MultiSensor()
    speedSensor1 = SpeedSensor()
    positionSensor1 = PositionSensor()
    accSensor1 = AccSensor()
    positionSensor2 = PositionSensor()
    mass = tr.Mass(L=1, m=1, s=Variable(start=0.0, fixed=True),
                   v=Variable(start=0.0, fixed=True))
    force = tr.Force()
    sineForce = Sine(amplitude=10, f=4)

    def equations(self):
        return [Eq(self.force.f, self.sineForce.y.u)]  # MSL: connect(sineForce.y, force.f)

    def connections(self):
        return [connect(self.forceSensor.flange_a, self.force.flange),
                connect(self.mass.flange_a, self.positionSensor1.flange),
                connect(self.mass.flange_a, self.speedSensor1.flange),
                connect(self.mass.flange_a, self.accSensor1.flange),
                connect(self.mass.flange_b, self.positionSensor2.flange),
                connect(self.forceSensor.flange_b, self.multiSensor.flange_a),
                connect(self.multiSensor.flange_b, self.mass.flange_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(Sensors())


def test_closed_form_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 101)
    sol = compiled.simulate(1.0, t_eval=t, **TIGHT)
    w = 8 * np.pi
    f = 10 * np.sin(w * t)
    v = 10 / w * (1 - np.cos(w * t))
    s = 10 / w * (t - np.sin(w * t) / w)
    np.testing.assert_allclose(sol["mass.s"], s, rtol=0, atol=ERR * 0.4)
    np.testing.assert_allclose(sol["mass.v"], v, rtol=0, atol=ERR * 0.8)
    np.testing.assert_allclose(sol["positionSensor1.s.u"], s - 0.5, rtol=0, atol=ERR * 0.4)
    np.testing.assert_allclose(sol["positionSensor2.s.u"], s + 0.5, rtol=0, atol=ERR * 0.4)
    np.testing.assert_allclose(sol["speedSensor1.v.u"], v, rtol=0, atol=ERR * 0.8)
    np.testing.assert_allclose(sol["multiSensor.v.u"], v, rtol=0, atol=ERR * 0.8)
    np.testing.assert_allclose(sol["accSensor1.a.u"], f, rtol=0, atol=ERR * 10)
    np.testing.assert_allclose(sol["forceSensor.f.u"], f, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["multiSensor.f.u"], f, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["multiSensor.power.u"], f * v, rtol=0, atol=ERR * 8)
    # the reference at t = 0.5 s (Sensors.csv): s = 0.198940366 (the exact 0.198943679), v =
    # -9.54e-6 (the exact 0); it is within 1e-5 of the closed form
    assert sol["mass.s"][50] == pytest.approx(0.198940366, abs=1e-5)
    assert sol["mass.v"][50] == pytest.approx(-9.54e-6, abs=1e-5)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "Sensors", 1.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
