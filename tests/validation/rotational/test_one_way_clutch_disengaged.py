"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.OneWayClutchDisengaged`` rebuilt with
``acausal.components.clutches.OneWayClutch`` and compared with the MAP-LIB reference result.

The model (``Modelica/Mechanics/Rotational/Examples/OneWayClutchDisengaged.mo``): inertiaIn
(J = 1, -0.5 rad/s) driven by ``0.3 + 10 sin(2 pi 2 t)`` N.m, a one-way clutch (``peak = 25``,
``fn_max = 3`` N) whose clutch stays disengaged (``f_normalized = 0``), inertiaOut (J = 1, at
rest) loaded by a constant -0.3 N.m. Only the freewheel acts: it locks when inertiaIn catches
up with inertiaOut and opens again when the driving torque turns the other way. Stop time 2 s.

Checked: every signal of ``comparisonSignals.txt`` within 1e-4 of its range away from the
events; the freewheel's switches (overrunning 1 -> locked 0 -> overrunning 1 ...) at the
reference's events within 1e-5 s (the reference has no mode column: its events are the lock
instants, each break-away and the zero crossing of ``w_rel`` 3e-7..6e-7 s after it, and the end);
plus inline checkpoints from the reference that run without it.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Eq, Variable, connect
from acausal.components import blocks, event_sources, rotational
from acausal.components.clutches import OneWayClutch

MODEL = "OneWayClutchDisengaged"
STOP, INTERVAL = 2.0, 0.0005  # creation.txt: StopTime, Interval
TOL = {"rtol": 1e-8, "atol": 1e-10}  # far below the reference's (DASSL, 1e-6)
TIME_TOL = 1e-5  # switch times against the reference's [s]
SIGNALS = ["inertiaIn.phi", "inertiaIn.w", "oneWayClutch.phi_rel", "oneWayClutch.w_rel"]


class OneWayClutchDisengaged(Component):
    """MSL's Rotational.Examples.OneWayClutchDisengaged."""

    inertiaIn = rotational.Inertia(J=1, phi=Variable(start=0.0, fixed=True),
                                   w=Variable(start=-0.5, fixed=True))
    inertiaOut = rotational.Inertia(J=1, phi=Variable(start=0.0, fixed=True),
                                    w=Variable(start=0.0, fixed=True))
    oneWayClutch = OneWayClutch(peak=25, fn_max=3)
    torque = rotational.Torque()
    torqueLoad = rotational.ConstantTorque(tau_constant=-0.3)
    signalTorque = event_sources.Sine(amplitude=10, offset=0.3, f=2)
    signalEngagement = blocks.Constant(k=0)

    def connections(self):
        return [connect(self.torque.flange, self.inertiaIn.flange_a),
                connect(self.inertiaIn.flange_b, self.oneWayClutch.flange_a),
                connect(self.oneWayClutch.flange_b, self.inertiaOut.flange_a),
                connect(self.signalEngagement.y, self.oneWayClutch.f_normalized),
                connect(self.inertiaOut.flange_b, self.torqueLoad.flange)]

    def equations(self):
        return [Eq(self.torque.tau, self.signalTorque.y.u)]


@pytest.fixture(scope="module")
def solution():
    return msl_1d.run_example(OneWayClutchDisengaged(), "rotational", MODEL, STOP,
                              round(STOP / INTERVAL) + 1, **TOL)[0]


def test_checkpoints(solution):
    """Values and event times of the reference, written here (runs without the CSV)."""
    sol = solution
    expected = {  # reference values at these output times
        "inertiaIn.w": {0.2: 0.4697867647, 0.5: -0.9714886133, 1.0: -0.9714782088,
                        1.5: -0.9714675717, 2.0: -0.9714583986},
        "inertiaIn.phi": {0.5: -0.0304593027, 2.0: -0.312877505},
        "oneWayClutch.w_rel": {0.5: 1.44297761, 1.5: 1.442978865},
        "oneWayClutch.phi_rel": {0.2: 0.02825553178, 1.0: 0.5449868461, 2.0: 1.217349643},
    }
    msl_1d.check_checkpoints(sol, expected, rel=1e-4, absolute=1e-5)
    # lock (0) and break-away (1) instants of the reference's events
    reference = [(0.0, 1.0), (0.08886164, 0.0), (0.25477991, 1.0), (0.68392299, 0.0),
                 (0.75477991, 1.0), (1.18392234, 0.0), (1.25477991, 1.0), (1.68392314, 0.0),
                 (1.75477991, 1.0)]
    msl_1d.check_sequence("oneWayClutch.mode", msl_1d.mode_sequence(sol, "oneWayClutch.mode"),
                          reference, TIME_TOL)


def test_against_reference(solution):
    ref = msl_1d.load("rotational", MODEL)
    sol = solution
    msl_1d.compare_listed(sol, ref, "rotational", MODEL, SIGNALS, margin=TIME_TOL)
    # each switch of ours is an event of the reference; each event of the reference is a switch
    # of ours, the zero crossing of w_rel within 1e-6 s after a break-away, or the end
    events = msl_1d.event_times(ref)
    ours = np.array([t for t, _ in msl_1d.mode_sequence(sol, "oneWayClutch.mode")[1:]])
    for t in ours:
        assert np.min(np.abs(events - t)) <= TIME_TOL, t
    for te in events:
        assert np.min(np.abs(ours - te)) <= TIME_TOL or te == STOP, te
