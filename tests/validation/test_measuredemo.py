"""Cross-validation: PlanarMechanics ``Examples/MeasureDemo.mo`` (t_end = 10 s; a double pendulum
with absolute and relative sensors; chaotic, so trajectories are compared up to t = 3 s).

Model (facts from dzimmer/PlanarMechanics ``PlanarMechanics/Examples/MeasureDemo.mo``):
Fixed -> Revolute1(phi0 = 0, w0 = 0, fixed) -> FixedTranslation(r = (1, 0)) -> Body(m = 1, I = 0.1);
that frame -> Revolute2(phi0 = 0, w0 = 0, fixed) -> FixedTranslation1(r = (0.4, 0))
-> Body1(m = 0.4, I = 0.02); g = 9.81. Sensors, all on Body1's frame (relative ones from Body's):
AbsolutePosition (world), AbsoluteVelocity (frame_a), AbsoluteAcceleration (world),
RelativePosition (world), RelativeVelocity (frame_b), RelativeAcceleration (frame_b).

In the Modelica model ``absoluteAcceleration.frame_resolve`` is connected to its own frame_a, but
with ``resolveInFrame = world`` that conditional connector does not exist, so the connection is
void; here the sensor simply has no ``frame_resolve``.

The reference CSV holds the states only (body1.phi, body1.w, revolute2.phi, revolute2.w). The
sensor outputs are checked (a) against the reference through exact kinematic identities of this
topology (e.g. the world angle of Body1's frame is ``body1.phi``; resolved in frame_b the relative
velocity is ``(0, 0.4 * revolute2.w)``), and (b) against the body variables of the same run.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World
from acausal.components.planar.sensors import (
    AbsoluteAcceleration,
    AbsolutePosition,
    AbsoluteVelocity,
    RelativeAcceleration,
    RelativePosition,
    RelativeVelocity,
)

RTOL, ATOL = 1e-10, 1e-12
T_COMPARE = 3.0
L2 = 0.4  # length of the second rod


def _rev():
    return Revolute(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))


class MeasureDemo(Component):
    world = World(g=9.81)  # PlanarWorld: constantGravity = {0, -9.81}
    fixed = Fixed()
    revolute1 = _rev()
    fixedTranslation = FixedTranslation(r=[1.0, 0.0])
    body = Body(m=1.0, I=0.1)
    revolute2 = _rev()
    fixedTranslation1 = FixedTranslation(r=[L2, 0.0])
    body1 = Body(m=0.4, I=0.02)
    absolutePosition = AbsolutePosition(resolve_in_frame="world")
    absoluteVelocity = AbsoluteVelocity(resolve_in_frame="frame_a")
    absoluteAcceleration = AbsoluteAcceleration(resolve_in_frame="world")
    relativePosition = RelativePosition(resolve_in_frame="world")
    relativeVelocity = RelativeVelocity(resolve_in_frame="frame_b")
    relativeAcceleration = RelativeAcceleration(resolve_in_frame="frame_b")

    def pendulum_connections(self):
        tip1, tip2 = self.fixedTranslation.frame_b, self.body1.frame_a
        return [connect(self.fixed.frame, self.revolute1.frame_a),
                connect(self.revolute1.frame_b, self.fixedTranslation.frame_a),
                connect(tip1, self.body.frame_a),
                connect(tip1, self.revolute2.frame_a),
                connect(self.revolute2.frame_b, self.fixedTranslation1.frame_a),
                connect(self.fixedTranslation1.frame_b, tip2)]

    def connections(self):
        tip1, tip2 = self.fixedTranslation.frame_b, self.body1.frame_a
        return self.pendulum_connections() + [
            connect(tip1, self.relativePosition.frame_a),
            connect(tip2, self.relativePosition.frame_b),
            connect(tip1, self.relativeVelocity.frame_a),
            connect(tip2, self.relativeVelocity.frame_b),
            connect(tip1, self.relativeAcceleration.frame_a),
            connect(tip2, self.relativeAcceleration.frame_b),
            connect(tip2, self.absolutePosition.frame_a),
            connect(tip2, self.absoluteVelocity.frame_a),
            connect(tip2, self.absoluteAcceleration.frame_a)]


class DoublePendulumNoSensors(MeasureDemo):
    """The same double pendulum without sensors (sensors must not change the physics)."""

    absolutePosition = None
    absoluteVelocity = None
    absoluteAcceleration = None
    relativePosition = None
    relativeVelocity = None
    relativeAcceleration = None

    def connections(self):
        return self.pendulum_connections()


@pytest.fixture(scope="module")
def compiled():
    return compile(MeasureDemo())


def _rot_t(phi, vec):
    """R(phi)^T vec for arrays phi (N,) and vec (2, N)."""
    c, s = np.cos(phi), np.sin(phi)
    return np.array([c * vec[0] + s * vec[1], -s * vec[0] + c * vec[1]])


def test_states_are_joint_coordinates(compiled):
    assert compiled.n_states == 4
    assert set(compiled.state_names) == {"revolute1.phi", "revolute1.w", "revolute2.phi",
                                         "revolute2.w"}


def test_checkpoints(compiled):
    sol = compiled.simulate(3.0, t_eval=[0.0, 1.0, 2.0, 3.0], rtol=RTOL, atol=ATOL)
    # Dymola reference values (DLR-SR/PlanarMechanics_ReferenceResults, MeasureDemo.csv)
    np.testing.assert_allclose(sol["body1.phi"][1:], [-3.18798, -1.17050, -0.416321], atol=1e-4)
    np.testing.assert_allclose(sol["body1.w"][1:], [-1.69796, 7.38974, -1.36208], atol=1e-4)
    np.testing.assert_allclose(sol["revolute2.phi"][1:], [-0.478755, 0.280238, 0.215570],
                               atol=1e-4)
    np.testing.assert_allclose(sol["revolute2.w"][1:], [0.869010, 3.94922, 1.89879], atol=1e-4)


def test_end_values(compiled):
    """Section 4.12 of docs/planar_mechanics.md: t = 10. The motion is chaotic: our converged
    run (same to 1e-6 at rtol 1e-9 ... 1e-12) differs from the Dymola values (DASSL, tol 1e-6)
    by up to 1.5e-3 in the rates at t = 10, hence the loose tolerance."""
    sol = compiled.simulate(10.0, t_eval=[0.0, 10.0], rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(
        [sol["body1.phi"][-1], sol["body1.w"][-1], sol["revolute2.phi"][-1],
         sol["revolute2.w"][-1]],
        [-12.1109, 4.40884, -11.5916, 1.99932], atol=5e-3)


def test_sensor_outputs_match_kinematics(compiled):
    sol = compiled.simulate(T_COMPARE, n_points=301, rtol=RTOL, atol=ATOL)
    phi1 = sol["body1.phi"]
    # absolute sensors on body1's frame
    np.testing.assert_allclose(sol["absolutePosition.r"], sol["body1.r"], atol=1e-10)
    np.testing.assert_allclose(sol["absolutePosition.phi"], phi1, atol=1e-10)
    np.testing.assert_allclose(sol["absoluteVelocity.v"], _rot_t(phi1, sol["body1.v"]),
                               atol=1e-8)
    np.testing.assert_allclose(sol["absoluteVelocity.w"], sol["body1.w"], atol=1e-8)
    np.testing.assert_allclose(sol["absoluteAcceleration.a"], sol["body1.a"], atol=1e-7)
    np.testing.assert_allclose(sol["absoluteAcceleration.z"], sol["body1.z"], atol=1e-7)
    # relative sensors body -> body1
    np.testing.assert_allclose(sol["relativePosition.r_rel"], sol["body1.r"] - sol["body.r"],
                               atol=1e-10)
    np.testing.assert_allclose(sol["relativePosition.phi_rel"], sol["revolute2.phi"], atol=1e-10)
    w2, z2 = sol["revolute2.w"], sol["revolute2.z"]
    np.testing.assert_allclose(sol["relativeVelocity.v_rel"],
                               np.array([0 * w2, L2 * w2]), atol=1e-8)
    np.testing.assert_allclose(sol["relativeVelocity.w_rel"], w2, atol=1e-8)
    np.testing.assert_allclose(sol["relativeAcceleration.a_rel"],
                               np.array([0 * z2, L2 * z2]), atol=1e-7)
    np.testing.assert_allclose(sol["relativeAcceleration.z_rel"], z2, atol=1e-7)


def test_sensors_do_not_change_physics(compiled):
    times = np.linspace(0.0, T_COMPARE, 31)
    with_sensors = compiled.simulate(T_COMPARE, t_eval=times, rtol=RTOL, atol=ATOL)
    bare = compile(DoublePendulumNoSensors()).simulate(T_COMPARE, t_eval=times, rtol=RTOL,
                                                       atol=ATOL)
    for name in ("body1.phi", "body1.w", "revolute2.phi", "revolute2.w"):
        np.testing.assert_allclose(with_sensors[name], bare[name], atol=1e-7)


def test_against_reference(compiled, load_reference, check_signal):
    ref = load_reference("MeasureDemo", t_max=T_COMPARE)
    sol = compiled.simulate(T_COMPARE, t_eval=ref["Time"], rtol=RTOL, atol=ATOL)
    for name in ("body1.phi", "body1.w", "revolute2.phi", "revolute2.w"):
        check_signal(name, sol[name], ref[name])
    # sensor outputs, through exact identities of this topology
    check_signal("absolutePosition.phi", sol["absolutePosition.phi"], ref["body1.phi"])
    check_signal("absoluteVelocity.w", sol["absoluteVelocity.w"], ref["body1.w"])
    check_signal("relativePosition.phi_rel", sol["relativePosition.phi_rel"],
                 ref["revolute2.phi"])
    check_signal("relativeVelocity.w_rel", sol["relativeVelocity.w_rel"], ref["revolute2.w"])
    check_signal("relativeVelocity.v_rel[1] / 0.4", sol["relativeVelocity.v_rel"][1] / L2,
                 ref["revolute2.w"])
