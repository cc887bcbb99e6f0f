"""Cross-validation: PlanarMechanics ``Examples/PendulumExcited.mo`` (t_end = 3 s).

As Pendulum, plus a WorldForce(resolve_in_frame = "frame_b") on the body with the input
force = (0, -5 sin(2 pi (t - 1.8)) for t >= 1.8 else 0, 0). (The Modelica example also has a
pass-through CutForce sensor between the rod and the body, which does not change the dynamics.)
Minimal-coordinate ODE: 1.1 theta'' = -9.81 cos(theta) + F2(t).
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect
from acausal.components.event_sources import Sine
from acausal.components.planar.forces import WorldForce
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

RTOL, ATOL = 1e-9, 1e-11


class PendulumExcited(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    revolute = Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    fixed_translation = FixedTranslation(r=[1.0, 0.0])
    body = Body(m=1.0, I=0.1)
    world_force = WorldForce(resolve_in_frame="frame_b")
    # the excitation switches on at t = 1.8 s through a time event (Modelica Blocks.Sources.Sine)
    sine = Sine(amplitude=-5.0, f=1.0, start_time=1.8)

    def equations(self):
        f = self.world_force.force
        return [Eq(f[0], 0), Eq(f[1], self.sine.y.u), Eq(f[2], 0)]

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.fixed_translation.frame_a),
                connect(self.fixed_translation.frame_b, self.body.frame_a),
                connect(self.world_force.frame_b, self.body.frame_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(PendulumExcited())


def test_states_are_joint_coordinates(compiled):
    assert set(compiled.state_names) == {"revolute.phi", "revolute.w"}


def test_checkpoints(compiled):
    sol = compiled.simulate(3.0, t_eval=[0.0, 1.0, 2.0, 3.0], rtol=RTOL, atol=ATOL)
    # section 4.2 of docs/planar_mechanics.md: identical to Pendulum up to t = 1.8
    np.testing.assert_allclose(sol["revolute.phi"][1:], [-2.88166, -1.04082, -1.36694], atol=5e-5)
    np.testing.assert_allclose(sol["revolute.w"][1:], [-2.14107, 3.39658, -3.11078], atol=5e-5)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("PendulumExcited")
    sol = compiled.simulate(3.0, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("revolute.phi", "revolute.w"):
        check_signal(name, sol[name], ref[name])


def test_excitation_switches_on_by_a_time_event(compiled):
    sol = compiled.simulate(3.0, dt=0.01, rtol=RTOL, atol=ATOL)
    assert [round(t, 9) for t, _ in sol.events] == [1.8]
