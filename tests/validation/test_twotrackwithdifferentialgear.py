"""Cross-validation: PlanarMechanics ``VehicleComponents/Examples/TwoTrackWithDifferentialGear.mo``
(t_end = 10 s, g = 0).

Model (``shared/docs/planar_mechanics.md`` section 4.9): chassis ``body1`` (m = 300, I = 0.1)
at the rear-axle centre (r, v, phi, w = 0 fixed); ``fixedTranslation1`` (0, 2) to the front-axle
centre. Rear wheels ``wheelJoint2``/``wheelJoint3`` (DryFrictionWheelJoint, N = 1500) at -/+ 0.75
across the rear axle, front wheels ``wheelJoint1``/``wheelJoint4`` (N = 1000) behind the steering
revolutes ``revolute2`` (left, phi0 = -25 deg, w0 = 0) and ``revolute`` (right) via trails
(0, -0.05), with bodies ``body``/``body2`` (m = 100, I = 1) at the front wheels. All wheels:
r = (0, 1), radius 0.25, vAdhesion 0.1, vSlide 0.3, mu_A 1, mu_S 0.7, an Inertia(J = 1) on each
wheel flange (phi0 = w0 = 0). DifferentialGear: ConstantTorque(25) on the ring, sun -> left rear,
carrier -> right rear. Steering: MSL ``Pulse(amplitude = -2, width = 30 %, period = 2,
startTime = 1)`` -> ``Torque`` on the shared flange of both steering revolutes: the torque jumps
at 1, 1.6, 3, 3.6, ... s, each switch a time event (``event_sources.Pulse``).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components import rotational
from acausal.components.event_sources import Pulse
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, FixedTranslation
from acausal.components.planar.vehicle import DifferentialGear, DryFrictionWheelJoint

RTOL, ATOL = 1e-9, 1e-11
PACKAGE = "planar_mechanics/PlanarMechanics/VehicleComponents/Examples"
NO_GRAVITY = [0.0, 0.0]


def wheel(normal_force):
    return DryFrictionWheelJoint(vAdhesion=0.1, r=[0.0, 1.0], vSlide=0.3, mu_A=1.0, mu_S=0.7,
                                 radius=0.25, N=normal_force)


def wheel_inertia():
    return rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                              w=Variable(start=0.0, fixed=True))


class TwoTrackModel(Component):
    """TwoTrackWithDifferentialGear (renamed so that pytest does not collect it)."""

    body = Body(m=100.0, I=1.0, g=NO_GRAVITY)
    body2 = Body(m=100.0, I=1.0, g=NO_GRAVITY)
    body1 = Body(m=300.0, I=0.1, g=NO_GRAVITY, r=Variable(start=0.0, fixed=True),
                 v=Variable(start=0.0, fixed=True), phi=Variable(start=0.0, fixed=True),
                 w=Variable(start=0.0, fixed=True))
    wheelJoint1 = wheel(1000.0)
    wheelJoint2 = wheel(1500.0)
    wheelJoint3 = wheel(1500.0)
    wheelJoint4 = wheel(1000.0)
    inertia = wheel_inertia()
    inertia1 = wheel_inertia()
    inertia2 = wheel_inertia()
    inertia3 = wheel_inertia()
    fixedTranslation1 = FixedTranslation(r=[0.0, 2.0])
    fixedTranslation2 = FixedTranslation(r=[0.75, 0.0])
    fixedTranslation3 = FixedTranslation(r=[-0.75, 0.0])
    fixedTranslation4 = FixedTranslation(r=[0.75, 0.0])
    fixedTranslation5 = FixedTranslation(r=[-0.75, 0.0])
    constantTorque1 = rotational.ConstantTorque(tau_constant=25.0)
    differentialGear = DifferentialGear()
    leftTrail = FixedTranslation(r=[0.0, -0.05])
    rightTrail = FixedTranslation(r=[0.0, -0.05])
    revolute2 = Revolute(use_axis_flange=True, phi=Variable(start=-0.43633231299858, fixed=True),
                         w=Variable(start=0.0, fixed=True))
    revolute = Revolute(use_axis_flange=True)
    pulse = Pulse(amplitude=-2.0, width=30.0, period=2.0, start_time=1.0)
    torque = rotational.Torque()

    def equations(self):
        return [Eq(self.torque.tau, self.pulse.y.u)]

    def connections(self):
        s = self
        return [connect(s.wheelJoint2.flange_a, s.inertia1.flange_b),
                connect(s.inertia.flange_b, s.wheelJoint1.flange_a),
                connect(s.fixedTranslation2.frame_b, s.fixedTranslation1.frame_a),
                connect(s.fixedTranslation2.frame_a, s.wheelJoint2.frame_a),
                connect(s.fixedTranslation3.frame_b, s.fixedTranslation1.frame_a),
                connect(s.wheelJoint3.frame_a, s.fixedTranslation3.frame_a),
                connect(s.inertia2.flange_b, s.wheelJoint3.flange_a),
                connect(s.body1.frame_a, s.fixedTranslation1.frame_a),
                connect(s.fixedTranslation1.frame_b, s.fixedTranslation4.frame_b),
                connect(s.fixedTranslation1.frame_b, s.fixedTranslation5.frame_b),
                connect(s.inertia3.flange_b, s.wheelJoint4.flange_a),
                connect(s.differentialGear.flange_right, s.wheelJoint3.flange_a),
                connect(s.differentialGear.flange_left, s.wheelJoint2.flange_a),
                connect(s.constantTorque1.flange, s.differentialGear.flange_b),
                connect(s.body.frame_a, s.leftTrail.frame_b),
                connect(s.leftTrail.frame_b, s.wheelJoint1.frame_a),
                connect(s.body2.frame_a, s.rightTrail.frame_b),
                connect(s.wheelJoint4.frame_a, s.rightTrail.frame_b),
                connect(s.leftTrail.frame_a, s.revolute2.frame_a),
                connect(s.revolute2.frame_b, s.fixedTranslation4.frame_a),
                connect(s.torque.flange, s.revolute2.flange_a),
                connect(s.revolute.flange_a, s.revolute2.flange_a),
                connect(s.revolute.frame_a, s.rightTrail.frame_a),
                connect(s.revolute.frame_b, s.fixedTranslation5.frame_a)]


@pytest.fixture(scope="module")
def solution():
    """One run on the reference's output grid (0.002 s; uniform, so the integrator runs in
    chunks between the events)."""
    return compile(TwoTrackModel()).simulate(10.0, dt=0.002, rtol=RTOL, atol=ATOL)


def test_steering_pulse_switches_are_time_events(solution):
    switches = [1.0, 1.6, 3.0, 3.6, 5.0, 5.6, 7.0, 7.6, 9.0, 9.6]
    np.testing.assert_allclose([t for t, _ in solution.events], switches, rtol=0, atol=1e-10)
    t = solution.t
    on = ((t - 1.0) % 2.0 < 0.6) & (t >= 1.0)
    # at an output point that is itself a switching instant either value is right
    away = np.min(np.abs(t[:, None] - np.array(switches)[None, :]), axis=1) > 1e-9
    np.testing.assert_array_equal(solution["torque.tau"][away], np.where(on, -2.0, 0.0)[away])


def test_checkpoints(solution):
    # section 4.9 of docs/planar_mechanics.md
    table = {  # t: (body1.phi, body1.r[1], body1.r[2], body1.v[2], revolute2.phi,
               #     inertia.w, inertia1.w, inertia2.w, inertia3.w)  (Modelica 1-based)
        1: (0.00501354, -0.00037967, 0.0837769, 0.169989, -0.154736, 0.668437, 0.683901,
            0.692801, 0.67729),
        2: (0.00874843, -0.00201075, 0.341627, 0.346188, -0.0460015, 1.35931, 1.36662,
            1.41976, 1.41237),
        5: (0.106512, -0.102632, 2.15896, 0.864921, -0.0113841, 3.47476, 3.4841, 3.49135,
            3.48217),
        10: (0.407469, -1.72532, 8.45416, 1.59638, -0.136113, 6.66039, 6.60048, 7.32248,
             7.37581),
    }
    names = ("body1.phi", "body1.r[0]", "body1.r[1]", "body1.v[1]", "revolute2.phi",
             "inertia.w", "inertia1.w", "inertia2.w", "inertia3.w")
    # the suite's metric: |error| < 1e-4 of the signal's range over the run (the steering
    # angle differs from Dymola's by up to 1.6e-5 of its range, 5e-6 rad at t = 2)
    tol = np.array([1e-4 * np.ptp(solution[n]) for n in names])
    for t_k, expected in table.items():
        k = int(np.argmin(np.abs(solution.t - t_k)))
        got = np.array([solution[n][k] for n in names])
        assert np.all(np.abs(got - np.array(expected)) < tol), (t_k, got, expected)


def test_against_reference(solution, load_reference, check_signal):
    ref = load_reference("TwoTrackWithDifferentialGear", package=PACKAGE)
    # the reference repeats event instants (pre/post values, a few 1e-14 s apart): compare at
    # the rows on the 0.002 s grid (all compared signals are continuous)
    idx = np.searchsorted(ref["Time"], solution.t - 1e-9)
    assert np.all(np.abs(ref["Time"][idx] - solution.t) < 1e-9)
    for column in ref:
        if column == "Time":
            continue
        name = re.sub(r"\[(\d)\]", lambda m: f"[{int(m.group(1)) - 1}]", column)
        check_signal(name, solution[name], ref[column][idx])
