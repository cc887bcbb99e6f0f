"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.LossyGearDemo3`` against its reference and
its closed-form solution.

Two inertias of 0.001 kg.m2 turning at 10 rad/s are coupled by a LossyGear (ratio 1, lossTable
``[0, 0.25, 0.25, 0.625, 2.5]``, no support); no torque until a step of 1 N.m on Inertia2 at
0.5 s. The driving side is "not obvious" (MSL's documentation: the LossyGear up to MSL 3.1 did
not converge here): with ``tau_bf_a = (0.625 - 2.5)/(0.25 - 4) = 0.5`` N.m both quadrants give
the same loss. Rolling forward, ``tau_a = -J1 a``, ``-flange_b.tau = J2 a`` and ``0 =
flange_b.tau + tau_a - tauLoss`` give ``a = -tauLoss/(J1 + J2)``, ``tau_a = tauLoss/2`` and
from quadrant 1 ``tauLoss = 0.75 tau_a + 0.625``: ``tauLoss = 1`` N.m, ``tau_eta = tau_a -
tau_bf_a = 0`` (exactly on the quadrant switch), ``a = -500`` rad/s2. So ``w = 10 - 500 t``,
``phi = 10 t - 250 t^2`` until the gear sticks at ``t = 0.02`` s with ``phi = 0.1`` rad. At rest
the stuck band is ``[-2.5, 2.5]`` N.m (``tauLossMin_m = quadrant4_m``, ``tauLossMax_p =
quadrant2_p`` at ``tau_a = 0``): the step's 1 N.m is held.

Compared: ``Inertia2.phi``, ``Inertia2.w`` (``comparisonSignals.txt``) within 1e-4 of their
range, ``gear.mode`` (Forward, then Stuck at 0.02 s; the reference's switch is at
0.020000000002 s), and the closed form above.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Eq, Variable, connect
from acausal.components.event_sources import Step
from acausal.components.lossy_gear import LossyGear
from acausal.components.rotational import Inertia, Torque

T_END = 1.0
SETTINGS = {"rtol": 1e-8, "atol": 1e-10}  # the reference: tolerance 1e-6
T_STOP = 0.02


class LossyGearDemo3(Component):
    """MSL's LossyGearDemo3 (component names as in MSL)."""

    gear = LossyGear(ratio=1, lossTable=[[0, 0.25, 0.25, 0.625, 2.5]])
    Inertia1 = Inertia(J=0.001, w=Variable(start=10.0))
    Inertia2 = Inertia(J=0.001, phi=Variable(start=0.0, fixed=True),
                       w=Variable(start=10.0, fixed=True))
    torque1 = Torque()
    torque2 = Torque()
    step = Step(height=0)
    step1 = Step(start_time=0.5, height=1, offset=0)

    def equations(self):
        return [Eq(self.torque1.tau, self.step.y.u), Eq(self.torque2.tau, self.step1.y.u)]

    def connections(self):
        return [connect(self.Inertia1.flange_b, self.gear.flange_a),
                connect(self.torque1.flange, self.Inertia1.flange_a),
                connect(self.gear.flange_b, self.Inertia2.flange_a),
                connect(self.Inertia2.flange_b, self.torque2.flange)]


@pytest.fixture(scope="module")
def run():
    return msl_1d.run_example(LossyGearDemo3(), "rotational", "LossyGearDemo3", T_END, 2001,
                              **SETTINGS)


def test_closed_form(run):
    sol = run[0]
    t = sol.t
    rolling = t < T_STOP
    np.testing.assert_allclose(sol["Inertia2.w"][rolling], 10 - 500 * t[rolling], atol=1e-7)
    np.testing.assert_allclose(sol["Inertia2.phi"][rolling],
                               10 * t[rolling] - 250 * t[rolling] ** 2, atol=1e-9)
    np.testing.assert_allclose(sol["gear.tauLoss"][rolling], 1.0, rtol=1e-9)
    np.testing.assert_allclose(sol["gear.tau_bf_a"], 0.5, rtol=1e-12)
    assert np.max(np.abs(sol["gear.tau_eta"][rolling])) < 1e-9  # on the quadrant switch
    # stuck from 0.02 s: at rest at 0.1 rad, the step of 1 N.m at 0.5 s held (band +-2.5 N.m)
    assert [lab for _, lab in sol.events][0] == ["event 2 of LossyGear 'gear'"]
    t_stop = sol.events[0][0]
    assert abs(t_stop - T_STOP) < 1e-9
    # the mode against the event found (an output point at T_STOP itself falls on either side
    # of it by rounding: the event at 0.02 + 5e-16 s leaves the point at 0.02 s rolling)
    mode = sol["gear.mode"]
    assert np.all(mode[t < t_stop] == 1) and np.all(mode[t > t_stop] == 0)
    assert np.max(np.abs(sol["Inertia2.w"][~rolling])) < 1e-8
    np.testing.assert_allclose(sol["Inertia2.phi"][~rolling], 0.1, atol=1e-9)
    late = t > 0.5
    np.testing.assert_allclose(sol["gear.tauLoss"][late], 1.0, rtol=1e-9)
    np.testing.assert_allclose(sol["gear.tauLossMax_p"][late], 2.5, rtol=1e-12)
    np.testing.assert_allclose(sol["gear.tauLossMin_m"][late], -2.5, rtol=1e-12)


def test_checkpoints(run):
    """Reference values written inline (run also without ../shared)."""
    sol = run[0]
    for t, phi, w in [(0.01, 0.0749999999971811, 4.999999999999623),
                      (1.0, 0.09999999901692201, -1.0000009709187907e-09)]:
        k = int(np.argmin(np.abs(sol.t - t)))
        assert abs(sol["Inertia2.phi"][k] - phi) < 1e-4 * 0.1
        assert abs(sol["Inertia2.w"][k] - w) < 1e-4 * 10.0


def test_against_reference(run):
    sol, ref = run
    ref = msl_1d.require(ref, "rotational", "LossyGearDemo3")
    msl_1d.compare(sol, ref, ["Inertia2.phi", "Inertia2.w"], margin=1e-6)
    msl_1d.check_sequence("gear.mode", msl_1d.mode_sequence(sol, "gear.mode"),
                          msl_1d.reference_sequence(ref, "gear.mode"), time_tol=1e-8)
