"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.RollingWheel`` (5 s): a ``TorqueStep``
(10 N.m from 0.1 s) drives a wheel inertia (J = 1 kg.m2) and, through an
``IdealRollingWheel`` (radius 1 m), a mass (m = 1 kg) against a speed-dependent drag
(``QuadraticSpeedDependentForce``, -10 N at 5 m/s, odd in v).

Closed form (r = 1 m, so v = w): (J + m r^2) w' = 10 - 10 (w/5)^2, i.e. w' = 5 - w^2/5, so
``w = 5 tanh(t - 0.1)`` and ``phi = 5 ln cosh(t - 0.1)`` after the step, 0 before. Solver:
rtol 1e-8, atol 1e-10; the closed form is met within 1e-6 (rad, rad/s).
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, connect
from acausal.components import rotational as rot
from acausal.components import translational as trans
from acausal.components.rotational_parts import IdealRollingWheel
from acausal.components.rotational_sources import TorqueStep
from acausal.components.translational_parts import QuadraticSpeedDependentForce

RTOL, ATOL = 1e-8, 1e-10
SIGNALS = ["inertia.phi", "inertia.w"]


class RollingWheelExample(Component):
    """Examples.RollingWheel (renamed so that pytest does not collect it)."""

    idealRollingWheel = IdealRollingWheel(radius=1.0)
    inertia = rot.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                          w=Variable(start=0.0, fixed=True))
    torqueStep = TorqueStep(stepTorque=10.0, offsetTorque=0.0, startTime=0.1, useSupport=False)
    mass = trans.Mass(L=0.0, m=1.0)
    quadraticSpeedDependentForce = QuadraticSpeedDependentForce(f_nominal=-10.0,
                                                                ForceDirection=False,
                                                                v_nominal=5.0)

    def connections(self):
        return [connect(self.torqueStep.flange, self.inertia.flange_a),
                connect(self.inertia.flange_b, self.idealRollingWheel.flangeR),
                connect(self.idealRollingWheel.flangeT, self.mass.flange_a),
                connect(self.quadraticSpeedDependentForce.flange, self.mass.flange_b)]


@pytest.fixture(scope="module")
def run():
    return msl_1d.run_example(RollingWheelExample(), "rotational", "RollingWheel", 5.0, 10001,
                              rtol=RTOL, atol=ATOL)


def test_checkpoints_and_closed_form(run):
    """Reference values at 1 and 5 s (from the MAP-LIB CSV), within 1e-4 of each range; the
    closed form everywhere; the step is a time event at 0.1 s."""
    sol, _ = run
    t = np.asarray(sol.t)
    for name, at, expected, span in (("inertia.phi", 1.0, 1.79915156, 21.03),
                                     ("inertia.w", 1.0, 3.58148887, 4.999),
                                     ("inertia.phi", 5.0, 21.0345477, 21.03),
                                     ("inertia.w", 5.0, 4.999444761, 4.999)):
        assert abs(np.interp(at, t, sol[name]) - expected) < 1e-4 * span, (name, at)
    after = np.clip(t - 0.1, 0.0, None)
    np.testing.assert_allclose(sol["inertia.w"], 5.0 * np.tanh(after), atol=1e-6)
    np.testing.assert_allclose(sol["inertia.phi"], 5.0 * np.log(np.cosh(after)), atol=1e-6)
    np.testing.assert_allclose(sol["mass.v"], sol["inertia.w"], atol=1e-12)  # r = 1 m
    assert sol.events[0][0] == pytest.approx(0.1, abs=1e-12)


def test_against_reference(run):
    """Every comparison signal within 1e-4 of its range (away from the step by 1e-6 s)."""
    sol, ref = run
    ref = msl_1d.require(ref, "rotational", "RollingWheel")
    errors = msl_1d.compare(sol, ref, SIGNALS, margin=1e-6)
    print("worst relative error", max(errors.values()))
