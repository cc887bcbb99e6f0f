"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.SimpleGearShift`` rebuilt with
``acausal.components.clutches.Clutch`` and ``Brake`` and compared with the MAP-LIB reference
result.

The model (``Modelica/Mechanics/Rotational/Examples/SimpleGearShift.mo``): an engine inertia
(J = 1) driven by a torque step of 20 N.m at 0.5 s turns the sun of an ideal planetary gear
(ratio 75/50); the carrier drives the load (J = 10, at rest) against a quadratic speed-dependent
torque (-20 N.m at 100 rpm). A brake (``cgeo = 2``, ``fn_max = 100`` N) holds the ring while its
normal force ``1 - ramp`` is up; the ramp (0 to 1 from 2 s to 2.1 s) presses a clutch
(``cgeo = 2``, ``fn_max = 100`` N, ``phi_rel``, ``w_rel`` fixed at 0) between sun and ring: first
gear 1/(1 + ratio), then direct drive. Stop time 5 s.

Checked: every signal of ``comparisonSignals.txt`` within 1e-4 of its range away from the
events, the clutch's and the brake's mode sequences (clutch free 2 -> backward -1 -> stuck 0,
brake stuck 0 -> forward 1 -> free 2) with every switch within 1e-5 s of the reference's, and
the break-away instants (MSL's ``startForward``); plus inline checkpoints from the reference
that run without it.
"""

from __future__ import annotations

import msl_1d
import pytest

from acausal import Component, Variable, connect
from acausal.components import blocks, event_sources, rotational
from acausal.components.clutches import Brake, Clutch
from acausal.components.math_blocks import Feedback
from acausal.components.rotational_parts import IdealPlanetary
from acausal.components.rotational_sources import TorqueStep

MODEL = "SimpleGearShift"
STOP, INTERVAL = 5.0, 0.005  # creation.txt: StopTime, Interval
ELEMENTS = ("clutch", "brake")
# solver tolerances far below the reference's (DASSL, 1e-6)
TOL = {"rtol": 1e-8, "atol": 1e-10}
TIME_TOL = 1e-5  # mode switch times against the reference's [s]


class SimpleGearShift(Component):
    """MSL's Rotational.Examples.SimpleGearShift."""

    torqueStep = TorqueStep(offsetTorque=0, startTime=0.5, stepTorque=20)
    engine = rotational.Inertia(J=1)
    idealPlanetary = IdealPlanetary(ratio=75 / 50)
    load = rotational.Inertia(J=10, phi=Variable(start=0.0, fixed=True),
                              w=Variable(start=0.0, fixed=True))
    quadraticSpeedDependentTorque = rotational.QuadraticSpeedDependentTorque(
        w_nominal=10.471975511966, tau_nominal=-20)
    clutch = Clutch(cgeo=2, fn_max=100, phi_rel=Variable(start=0.0, fixed=True),
                    w_rel=Variable(start=0.0, fixed=True))
    brake = Brake(cgeo=2, fn_max=100)
    feedback = Feedback()
    const1 = blocks.Constant(k=1)
    ramp = event_sources.Ramp(height=1, offset=0, start_time=2, duration=0.1)

    def connections(self):
        return [connect(self.torqueStep.flange, self.engine.flange_a),
                connect(self.quadraticSpeedDependentTorque.flange, self.load.flange_b),
                connect(self.feedback.y, self.brake.f_normalized),
                connect(self.engine.flange_b, self.idealPlanetary.sun),
                connect(self.idealPlanetary.sun, self.clutch.flange_a),
                connect(self.idealPlanetary.ring, self.clutch.flange_b),
                connect(self.idealPlanetary.ring, self.brake.flange_a),
                connect(self.idealPlanetary.carrier, self.load.flange_a),
                connect(self.const1.y, self.feedback.u1),
                connect(self.feedback.u2, self.clutch.f_normalized),
                connect(self.ramp.y, self.clutch.f_normalized)]


@pytest.fixture(scope="module")
def solution():
    return msl_1d.run_example(SimpleGearShift(), "rotational", MODEL, STOP,
                              round(STOP / INTERVAL) + 1, **TOL)[0]


def test_checkpoints(solution):
    """Values and switch times of the reference, written here (runs without the CSV)."""
    sol = solution
    expected = {  # reference values at these output times
        "engine.w": {1.0: 3.835122367, 2.05: 11.04175806, 2.5: 5.56817094, 5.0: 8.090029944},
        "load.w": {1.0: 1.534048947, 2.05: 4.470135609, 5.0: 8.090029944},
        "load.phi": {2.5: 5.992502408, 5.0: 23.36524539},
        "clutch.w_rel": {2.05: -10.95270408},
        "clutch.phi_rel": {1.0: -0.9601572682, 5.0: -9.515963482},
    }
    msl_1d.check_checkpoints(sol, expected, rel=1e-4, absolute=1e-6)
    reference_modes = {
        "clutch": [(0.0, 2.0), (2.0, -1.0), (2.11079038, 0.0)],
        "brake": [(0.0, 0.0), (2.04081636, 1.0), (2.1, 2.0)],
    }
    msl_1d.check_mode_checkpoints(sol, reference_modes, TIME_TOL)


def test_against_reference(solution):
    names = msl_1d.compare_with_modes(solution, "rotational", MODEL, ELEMENTS, TIME_TOL)
    assert len(names) == 6
