"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.EddyCurrentBrake`` (1 s): an
``EddyCurrentTorque`` (tau_nominal = 100 N.m at w_nominal = 10 rad/s, copper's alpha20 =
3.92e-3 1/K, heat port on) brakes an inertia (J = 1 kg.m2, w(0) = 20 rad/s); its losses heat a
capacitor (C = 1 J/K, T(0) = 293.15 K).

Besides the reference, the energy balance holds at every instant: the heat is the kinetic
energy lost, ``C (T - T0) = J (w0^2 - w^2)/2`` (the brake stores nothing), so the capacitor ends
200 K warmer once the inertia stands still. Solver: rtol 1e-8, atol 1e-10.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, connect
from acausal.components import rotational as rot
from acausal.components import thermal
from acausal.components.rotational_sources import EddyCurrentTorque

RTOL, ATOL = 1e-8, 1e-10
SIGNALS = ["inertia.phi", "heatCapacitor.T", "eddyCurrentTorque.lossPower"]
ALPHA20_COPPER = 3.920e-3  # MSL Electrical.Machines.Thermal.Constants.alpha20Copper [1/K]


class EddyCurrentBrakeExample(Component):
    """Examples.EddyCurrentBrake (renamed so that pytest does not collect it)."""

    eddyCurrentTorque = EddyCurrentTorque(tau_nominal=100.0, w_nominal=10.0,
                                          alpha20=ALPHA20_COPPER, TRef=293.15,
                                          useHeatPort=True)
    inertia = rot.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                          w=Variable(start=20.0, fixed=True))
    heatCapacitor = thermal.HeatCapacitor(C=1.0, T=Variable(start=293.15, fixed=True))

    def connections(self):
        return [connect(self.eddyCurrentTorque.flange, self.inertia.flange_a),
                connect(self.eddyCurrentTorque.heatPort, self.heatCapacitor.port)]


@pytest.fixture(scope="module")
def run():
    return msl_1d.run_example(EddyCurrentBrakeExample(), "rotational", "EddyCurrentBrake", 1.0,
                              2001, rtol=RTOL, atol=ATOL)


def test_checkpoints(run):
    """Reference values at 0, 0.1, 0.5 and 1 s (from the MAP-LIB CSV), within 1e-4 of each
    range; the energy balance within 5e-5 J of the 200 J exchanged (each of T ~ 490 K and
    w ~ 20 rad/s is integrated to rtol 1e-8: about 5e-6 K per step through the fast start)."""
    sol, _ = run
    ranges = {"inertia.phi": 2.562, "heatCapacitor.T": 200.0,
              "eddyCurrentTorque.lossPower": 1635.0}
    checkpoints = {0.0: [0.0, 293.15, 1600.0],  # 2*100*2/(1 + 4) N.m at 20 rad/s: 80 N.m
                   0.1: [1.539993835, 437.396789, 979.0946272],
                   0.5: [2.550270318, 493.1407232, 0.2046461206],
                   1.0: [2.562278062, 493.1498477, 2.770739619e-06]}
    msl_1d.check_values_at(sol, SIGNALS, checkpoints, ranges)
    heat = np.asarray(sol["heatCapacitor.T"]) - 293.15
    lost = 0.5 * (20.0**2 - np.asarray(sol["inertia.w"]) ** 2)
    np.testing.assert_allclose(heat, lost, atol=5e-5)
    assert heat[-1] == pytest.approx(200.0, abs=1e-3)  # all kinetic energy turned to heat


def test_against_reference(run):
    """Every comparison signal within 1e-4 of its range."""
    sol, ref = run
    ref = msl_1d.require(ref, "rotational", "EddyCurrentBrake")
    errors = msl_1d.compare(sol, ref, SIGNALS)
    print("worst relative error", max(errors.values()))
