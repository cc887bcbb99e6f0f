"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.CoupledClutches`` rebuilt with
``acausal.components.clutches.Clutch`` and compared with the MAP-LIB reference result.

The model (``Modelica/Mechanics/Rotational/Examples/CoupledClutches.mo``): four unit inertias
J1..J4 in a row joined by three clutches (``peak = 1.1``, ``fn_max = 20`` N, ``mu = 0.5``);
J1 starts at 10 rad/s and is driven by ``10 sin(2 pi 5 t)`` N.m; clutch1 is pressed by
``cos(2 pi 0.2 t)`` (it becomes free when that turns negative at 1.25 s), clutch2 by a step at
``T2 = 0.4`` s, clutch3 by a step at ``T3 = 0.9`` s. Stop time 1.5 s.

Checked: every signal of ``comparisonSignals.txt`` within 1e-4 of its range away from the
events, each clutch's mode sequence (backward sliding -1, stuck 0, free 2) with every switch
within 1e-5 s of the reference's, and the break-away instants (MSL's ``startBackward``); plus
inline checkpoints from the reference that run without it.
"""

from __future__ import annotations

import math

import msl_1d
import pytest

from acausal import Component, Eq, Variable, connect
from acausal.components import event_sources, rotational
from acausal.components.clutches import Clutch

MODEL = "CoupledClutches"
STOP, INTERVAL = 1.5, 0.0005  # creation.txt: StopTime, Interval
CLUTCHES = ("clutch1", "clutch2", "clutch3")
# solver tolerances far below the reference's (DASSL, 1e-6)
TOL = {"rtol": 1e-8, "atol": 1e-10}
TIME_TOL = 1e-5  # mode switch times against the reference's [s]


def _inertia(w0: float) -> rotational.Inertia:
    return rotational.Inertia(J=1, phi=Variable(start=0.0, fixed=True),
                              w=Variable(start=w0, fixed=True))


class CoupledClutches(Component):
    """MSL's CoupledClutches (f = 0.2 Hz, T2 = 0.4 s, T3 = 0.9 s)."""

    torque = rotational.Torque(useSupport=True)
    fixed = rotational.Fixed()
    sin1 = event_sources.Sine(amplitude=10, f=5)
    sin2 = event_sources.Sine(amplitude=1, f=0.2, phase=math.pi / 2)
    step1 = event_sources.Step(start_time=0.4)
    step2 = event_sources.Step(start_time=0.9)
    J1 = _inertia(10.0)
    clutch1 = Clutch(peak=1.1, fn_max=20)
    J2 = _inertia(0.0)
    clutch2 = Clutch(peak=1.1, fn_max=20)
    J3 = _inertia(0.0)
    clutch3 = Clutch(peak=1.1, fn_max=20)
    J4 = _inertia(0.0)

    def connections(self):
        return [connect(self.torque.flange, self.J1.flange_a),
                connect(self.J1.flange_b, self.clutch1.flange_a),
                connect(self.clutch1.flange_b, self.J2.flange_a),
                connect(self.J2.flange_b, self.clutch2.flange_a),
                connect(self.clutch2.flange_b, self.J3.flange_a),
                connect(self.J3.flange_b, self.clutch3.flange_a),
                connect(self.clutch3.flange_b, self.J4.flange_a),
                connect(self.sin2.y, self.clutch1.f_normalized),
                connect(self.step1.y, self.clutch2.f_normalized),
                connect(self.step2.y, self.clutch3.f_normalized),
                connect(self.fixed.flange, self.torque.support)]

    def equations(self):
        return [Eq(self.torque.tau, self.sin1.y.u)]


@pytest.fixture(scope="module")
def solution():
    return msl_1d.run_example(CoupledClutches(), "rotational", MODEL, STOP,
                              round(STOP / INTERVAL) + 1, **TOL)[0]


def test_checkpoints(solution):
    """Values and switch times of the reference, written here (runs without the CSV)."""
    sol = solution
    expected = {  # reference values at these output times
        "J1.w": {0.3: 7.707171556, 0.75: 3.880317198, 1.0: 3.000030672, 1.2: 2.626112899,
                 1.5: 3.247034565},
        "clutch1.w_rel": {0.3: -4.777729444, 0.75: -0.6613409475, 1.5: -0.7838269643},
        "clutch2.phi_rel": {0.3: -0.4446955977, 1.5: -1.396672868},
        "clutch3.w_rel": {0.75: -3.21897625, 1.0: -2.000030672},
        "clutch3.phi_rel": {1.5: -1.536725665},
    }
    msl_1d.check_checkpoints(sol, expected, rel=0.0, absolute=1e-4)
    reference_modes = {
        "clutch1": [(0.0, -1.0), (0.79165828, 0.0), (0.83110851, -1.0), (0.90684914, 0.0),
                    (1.00029586, -1.0), (1.25, 2.0)],
        "clutch2": [(0.0, 2.0), (0.4, -1.0), (0.70962146, 0.0)],
        "clutch3": [(0.0, 2.0), (0.9, -1.0), (1.14396963, 0.0)],
    }
    msl_1d.check_mode_checkpoints(sol, reference_modes, TIME_TOL)


def test_against_reference(solution):
    names = msl_1d.compare_with_modes(solution, "rotational", MODEL, CLUTCHES, TIME_TOL)
    assert len(names) == 8
