"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.LossyGearDemo2`` against its reference.

LossyGearDemo1 with a BearingFriction (``tau_pos = [0, 0.5; 1, 1]``, support fixed) between the
drive torque and Inertia1. The bearing and the gear turn at the same speed (``w_a =
Inertia1.w``), so while the drive stands still both elements are stuck on one speed: MSL's
documentation says "If both friction models are stuck, there is no unique solution. Still a
reliable Modelica simulator should be able to handle this situation." How the torque is split
then is arbitrary; the reference (Dymola) puts one element in a rolling mode at a held speed of
+-5e-11 rad/s while the other holds (bearing Forward and gear Stuck from 0.0636 s, gear Backward
and bearing Stuck from 0.4562 s). What is determined is the motion of the drive: it rolls
backward, stops at 0.0636 s, starts forward at 0.2304 s, stops at 0.3083 s and starts backward
at 0.4727 s. Compared: ``Inertia2.phi``, ``Inertia2.w`` within 1e-4 of their range, this
motion sequence (a mode shared by both elements, else 0) and both elements' modes while the
drive moves.

The starts are closed-form. At rest Inertia2 gives ``flange_b.tau = T2`` and Inertia1 ``tau_a =
T1 - tau_br`` (``T1 = 10 sin(2 pi t)``, ``T2 = -10 + 2.5 t``, the bearing's torque ``|tau_br|
<= 0.5``); the gear (efficiency 0.5 both ways) holds ``tauLoss = tau_a + T2/2`` within its band
``[-tau_a, tau_a/2]`` (``tau_a > 0``) iff ``-T2/4 <= tau_a <= -T2``. The drive stays at rest
while ``[T1 - 0.5, T1 + 0.5]`` meets ``[-T2/4, -T2]``: it starts forward when ``T1 - 0.5 = -T2``
and backward when ``T1 + 0.5 = -T2/4``; the reference's starts agree to 5e-12 s.

Both elements stuck at once (0.0636 s and 0.3083 s) on one speed would leave the split of the
load between them open (two equations a = 0 for one speed: a singular system). The bearing is
given ``stuck_creep = 1e-10`` (docs/drivelines.md, "Two elements stuck on one speed"): stuck, it
creeps at up to 1e-10 rad/s2 at its full static friction, the gear holds exactly, and the split
is determined; the drive's motion and its starts are as above.
"""

from __future__ import annotations

import functools

import msl_1d
import numpy as np
import sympy as sp
from scipy.optimize import brentq

from acausal import Component, Eq, Variable, connect, time
from acausal.components.clutches import BearingFriction
from acausal.components.lossy_gear import LossyGear
from acausal.components.rotational import Fixed, Inertia, Torque

T_END = 0.5
SETTINGS = {"rtol": 1e-8, "atol": 1e-10}  # the reference: tolerance 1e-6
#: the reference's stops of the drive (w crosses 0), in s
STOPS = (0.06359110458471218, 0.3083068461006042)



def start_forward() -> float:
    """The closed-form start of the forward roll: T1 - 0.5 = -T2 (module docstring)."""
    return brentq(lambda t: 10 * np.sin(2 * np.pi * t) - 0.5 - (10 - 2.5 * t), 0.2, 0.25,
                  xtol=1e-15)


def start_backward() -> float:
    """The closed-form start of the backward roll: T1 + 0.5 = -T2/4."""
    return brentq(lambda t: 10 * np.sin(2 * np.pi * t) + 0.5 - (2.5 - 0.625 * t), 0.45, 0.49,
                  xtol=1e-15)


class LossyGearDemo2(Component):
    """MSL's LossyGearDemo2 (component names as in MSL)."""

    gear = LossyGear(ratio=2, lossTable=[[0, 0.5, 0.5, 0, 0]], useSupport=True)
    Inertia1 = Inertia(J=1)
    Inertia2 = Inertia(J=1.5, phi=Variable(start=0.0, fixed=True),
                       w=Variable(start=0.0, fixed=True))
    torque1 = Torque(useSupport=True)
    torque2 = Torque(useSupport=True)
    # one of the two elements that stick on one speed creeps (the module docstring)
    bearingFriction = BearingFriction(tau_pos=[[0, 0.5], [1, 1]], useSupport=True,
                                      stuck_creep=1e-10)
    fixed = Fixed()

    def equations(self):
        return [Eq(self.torque1.tau, 10 * sp.sin(2 * sp.pi * time)),
                Eq(self.torque2.tau, -10 + 5 * time / 2)]

    def connections(self):
        return [connect(self.torque2.flange, self.Inertia2.flange_b),
                connect(self.Inertia2.flange_a, self.gear.flange_b),
                connect(self.gear.flange_a, self.Inertia1.flange_b),
                connect(self.Inertia1.flange_a, self.bearingFriction.flange_b),
                connect(self.bearingFriction.flange_a, self.torque1.flange),
                connect(self.gear.support, self.fixed.flange),
                connect(self.fixed.flange, self.torque2.support),
                connect(self.fixed.flange, self.bearingFriction.support),
                connect(self.torque1.support, self.fixed.flange)]


@functools.lru_cache(maxsize=1)
def simulate():
    return msl_1d.run_example(LossyGearDemo2(), "rotational", "LossyGearDemo2", T_END, 1001,
                              **SETTINGS)[0]


def motion(gear, bearing):
    """The drive's motion: the rolling mode both elements share, else 0 (at rest)."""
    gear, bearing = np.asarray(gear, float), np.asarray(bearing, float)
    return np.where((gear == bearing) & (gear != 0), gear, 0.0)


def our_motion(sol):
    times, g = msl_1d.event_rows(sol, "gear.mode")
    _, b = msl_1d.event_rows(sol, "bearingFriction.mode")
    # a rest left within the first step (< 1e-9 s) taken as the initial motion
    return msl_1d.settled_start(msl_1d.sequence(times, motion(g, b)), 1e-9)


def test_reference_starts_are_the_closed_form_ones():
    """The reference's starts of the forward and backward roll (inline) are the physics'."""
    assert abs(start_forward() - 0.2303740158850011) < 1e-11
    assert abs(start_backward() - 0.47273831050083404) < 1e-11


def test_motion_and_checkpoints():
    sol = simulate()
    seq = our_motion(sol)
    assert [v for _, v in seq] == [-1.0, 0.0, 1.0, 0.0, -1.0]
    expected = [STOPS[0], start_forward(), STOPS[1], start_backward()]
    np.testing.assert_allclose([t for t, _ in seq[1:]], expected, atol=1e-7)
    # the reference at 0.05, 0.15 (at rest), 0.3, 0.4 (at rest) and 0.5 s; 1e-4 of the ranges
    # 5.892e-4 rad and 1.450e-2 rad/s
    for t, phi, w in [(0.05, -0.0004942665211004098, -0.008769907027496785),
                      (0.15, -0.0005590461418315437, 5.002926246470568e-11),
                      (0.3, -0.0005051220402277528, 0.000746185083357515),
                      (0.4, -0.000501771990250181, -5.0017667432012694e-11),
                      (0.5, -0.0005891833230694253, -0.009624278093011201)]:
        k = int(np.argmin(np.abs(sol.t - t)))
        assert abs(sol["Inertia2.phi"][k] - phi) < 1e-4 * 5.892e-4
        assert abs(sol["Inertia2.w"][k] - w) < 1e-4 * 1.450e-2


def test_against_reference():
    ref = msl_1d.load("rotational", "LossyGearDemo2")
    sol = simulate()
    msl_1d.compare(sol, ref, ["Inertia2.phi", "Inertia2.w"], margin=1e-6)
    theirs = msl_1d.sequence(ref["time"], motion(ref["gear.mode"],
                                                 ref["bearingFriction.mode"]))
    theirs = [(0.0, theirs[1][1])] + theirs[2:]  # Stuck at t = 0 under startBackward
    msl_1d.check_sequence("drive motion", our_motion(sol), theirs, time_tol=1e-7)
    # while the drive moves, both elements roll in its direction (as in the reference)
    moving = motion(sol["gear.mode"], sol["bearingFriction.mode"]) != 0
    np.testing.assert_array_equal(sol["gear.mode"][moving], sol["bearingFriction.mode"][moving])
