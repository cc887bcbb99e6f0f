"""Planar sensors and sources against closed-form results.

* AbsoluteAccCentrifugal (``PlanarMechanicsTest/Sensors.mo``; docs/planar_mechanics.md 4.12):
  g = 0, revolute w0 = 10, rod (10, 0), body m = 1, I = 0.1; resolved in frame_a
  ``v = (0, 100)``, ``a = (-1000, 0)`` at all t.
* AbsoluteRotated: a prismatic at 45 deg sliding at v = 1 gives ``v_world = (0.707107, 0.707107)``.
* a cut-force sensor in a pendulum hanging at rest reads ``m g``; sign and resolve options.
* relative sensors follow the reference's definitions (velocity seen from frame_a).
* power, distance, WorldTorque; sensors add no force; resolve-option errors.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, UnconnectedConnectorError, Variable, compile, connect, time
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedRotation, FixedTranslation, World
from acausal.components.planar.sensors import (
    AbsoluteAcceleration,
    AbsolutePosition,
    AbsoluteVelocity,
    CutForce,
    CutForceAndTorque,
    CutTorque,
    Distance,
    Power,
    RelativeAcceleration,
    RelativePosition,
    RelativeVelocity,
)
from acausal.components.planar.sources import WorldTorque

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
G = 9.81


def _fixed_var(value):
    return Variable(start=value, fixed=True)


# ------------------------------------------------------------------------------------------------
# AbsoluteAccCentrifugal
# ------------------------------------------------------------------------------------------------


class Centrifugal(Component):
    """Rod of length 10 spinning at w = 10 rad/s about the origin, no gravity."""

    fixed = Fixed()
    revolute = Revolute(phi=_fixed_var(0.0), w=_fixed_var(10.0))
    rod = FixedTranslation(r=[10.0, 0.0])
    body = Body(m=1.0, I=0.1, g=[0.0, 0.0])
    acc_a = AbsoluteAcceleration(resolve_in_frame="frame_a")
    acc_w = AbsoluteAcceleration(resolve_in_frame="world")
    vel_a = AbsoluteVelocity(resolve_in_frame="frame_a")
    vel_w = AbsoluteVelocity(resolve_in_frame="world")
    pos_a = AbsolutePosition()  # default: frame_a
    pos_r = AbsolutePosition(resolve_in_frame="frame_resolve")
    # relative sensors between two points of the same rigid rod
    rel_v = RelativeVelocity(resolve_in_frame="world")
    rel_a = RelativeAcceleration(resolve_in_frame="frame_b")
    rel_p = RelativePosition(resolve_in_frame="frame_resolve")

    def connections(self):
        tip = self.body.frame_a
        hub = self.rod.frame_a
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, hub),
                connect(self.rod.frame_b, tip),
                connect(tip, self.acc_a.frame_a), connect(tip, self.acc_w.frame_a),
                connect(tip, self.vel_a.frame_a), connect(tip, self.vel_w.frame_a),
                connect(tip, self.pos_a.frame_a), connect(tip, self.pos_r.frame_a),
                connect(self.fixed.frame, self.pos_r.frame_resolve),
                connect(hub, self.rel_v.frame_a), connect(tip, self.rel_v.frame_b),
                connect(hub, self.rel_a.frame_a), connect(tip, self.rel_a.frame_b),
                connect(hub, self.rel_p.frame_a), connect(tip, self.rel_p.frame_b),
                connect(self.fixed.frame, self.rel_p.frame_resolve)]


@pytest.fixture(scope="module")
def centrifugal():
    cs = compile(Centrifugal())
    return cs.simulate(1.0, n_points=51, **TIGHT)


def test_centrifugal_states_unchanged():
    cs = compile(Centrifugal())
    assert set(cs.state_names) == {"revolute.phi", "revolute.w"}


def test_centrifugal_frame_a(centrifugal):
    sol = centrifugal
    n = len(sol.t)
    np.testing.assert_allclose(sol["vel_a.v"], np.array([[0.0] * n, [100.0] * n]), atol=1e-8)
    np.testing.assert_allclose(sol["acc_a.a"], np.array([[-1000.0] * n, [0.0] * n]), atol=1e-6)
    np.testing.assert_allclose(sol["vel_a.w"], 10.0, atol=1e-10)
    np.testing.assert_allclose(sol["acc_a.z"], 0.0, atol=1e-8)
    np.testing.assert_allclose(sol["pos_a.r"], np.array([[10.0] * n, [0.0] * n]), atol=1e-9)
    np.testing.assert_allclose(sol["pos_a.phi"], 0.0, atol=1e-12)


def test_centrifugal_world_and_resolve(centrifugal):
    sol = centrifugal
    th = 10.0 * sol.t
    np.testing.assert_allclose(sol["revolute.phi"], th, atol=1e-7)
    np.testing.assert_allclose(sol["vel_w.v"], 100.0 * np.array([-np.sin(th), np.cos(th)]),
                               atol=1e-5)
    np.testing.assert_allclose(sol["acc_w.a"], -1000.0 * np.array([np.cos(th), np.sin(th)]),
                               atol=1e-4)
    # resolved in a connected frame at phi = 0 (the fixed frame): world position and angle
    np.testing.assert_allclose(sol["pos_r.r"], 10.0 * np.array([np.cos(th), np.sin(th)]),
                               atol=1e-6)
    np.testing.assert_allclose(sol["pos_r.phi"], th, atol=1e-7)


def test_relative_sensors_on_rigid_rod(centrifugal):
    """Two points of one rigid rod: the relative velocity as seen from frame_a is zero
    (PlanarMechanics' definition), although D(r_b - r_a) is not."""
    sol = centrifugal
    th = 10.0 * sol.t
    np.testing.assert_allclose(sol["rel_v.v_rel"], 0.0, atol=1e-7)
    np.testing.assert_allclose(sol["rel_v.w_rel"], 0.0, atol=1e-9)
    np.testing.assert_allclose(sol["rel_a.a_rel"], 0.0, atol=1e-6)
    np.testing.assert_allclose(sol["rel_a.z_rel"], 0.0, atol=1e-8)
    np.testing.assert_allclose(sol["rel_p.r_rel"], 10.0 * np.array([np.cos(th), np.sin(th)]),
                               atol=1e-6)
    np.testing.assert_allclose(sol["rel_p.phi_rel"], 0.0, atol=1e-12)


# ------------------------------------------------------------------------------------------------
# AbsoluteRotated: prismatic at 45 degrees
# ------------------------------------------------------------------------------------------------


class Rotated(Component):
    fixed = Fixed()
    rotation = FixedRotation(alpha=math.pi / 4)
    prismatic = Prismatic(r=[1.0, 0.0], s=_fixed_var(0.0), v=_fixed_var(1.0))
    body = Body(m=1.0, I=0.1, g=[0.0, 0.0])
    vel_w = AbsoluteVelocity(resolve_in_frame="world")
    vel_a = AbsoluteVelocity(resolve_in_frame="frame_a")
    pos_a = AbsolutePosition(resolve_in_frame="frame_a")
    pos_w = AbsolutePosition(resolve_in_frame="world")
    rel = RelativeVelocity(resolve_in_frame="frame_a")
    rel_w = RelativeVelocity(resolve_in_frame="world")

    def connections(self):
        b = self.body.frame_a
        return [connect(self.fixed.frame, self.rotation.frame_a),
                connect(self.rotation.frame_b, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, b),
                connect(b, self.vel_w.frame_a), connect(b, self.vel_a.frame_a),
                connect(b, self.pos_a.frame_a), connect(b, self.pos_w.frame_a),
                connect(self.fixed.frame, self.rel.frame_a), connect(b, self.rel.frame_b),
                connect(self.rotation.frame_b, self.rel_w.frame_a),
                connect(b, self.rel_w.frame_b)]


def test_absolute_rotated():
    sol = compile(Rotated()).simulate(2.0, n_points=11, **TIGHT)
    n = len(sol.t)
    h = math.sqrt(0.5)
    np.testing.assert_allclose(sol["vel_w.v"], np.full((2, n), h), atol=1e-9)
    np.testing.assert_allclose(sol["vel_w.v"][:, -1], [0.707107, 0.707107], atol=1e-6)
    np.testing.assert_allclose(sol["vel_a.v"], np.array([[1.0] * n, [0.0] * n]), atol=1e-9)
    np.testing.assert_allclose(sol["pos_w.r"], np.array([h * sol.t, h * sol.t]), atol=1e-9)
    np.testing.assert_allclose(sol["pos_w.phi"], math.pi / 4, atol=1e-12)
    np.testing.assert_allclose(sol["pos_a.r"], np.array([sol.t, 0 * sol.t]), atol=1e-9)
    # the relative velocity fixed -> body is the same (frame_a does not rotate)
    np.testing.assert_allclose(sol["rel.v_rel"], np.full((2, n), h), atol=1e-9)
    np.testing.assert_allclose(sol["rel_w.v_rel"], np.full((2, n), h), atol=1e-9)


# ------------------------------------------------------------------------------------------------
# cut force / torque in a hanging pendulum
# ------------------------------------------------------------------------------------------------


class HangingPendulum(Component):
    """Pendulum hanging straight down at rest (phi = -90 deg), with cut sensors between the rod
    and the body."""

    m = 2.0
    world = World(g=G)  # the expected forces below use G
    fixed = Fixed()
    revolute = Revolute(phi=_fixed_var(-math.pi / 2), w=_fixed_var(0.0))
    rod = FixedTranslation(r=[1.0, 0.0])
    cut = CutForceAndTorque(resolve_in_frame="world")
    cut_a = CutForce()  # default: frame_a
    cut_neg = CutForceAndTorque(resolve_in_frame="frame_resolve", positive_sign=False)
    cut_t = CutTorque()
    body = Body(m=2.0, I=0.1)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.cut.frame_a),
                connect(self.cut.frame_b, self.cut_a.frame_a),
                connect(self.cut_a.frame_b, self.cut_neg.frame_a),
                connect(self.cut_neg.frame_b, self.cut_t.frame_a),
                connect(self.cut_t.frame_b, self.body.frame_a),
                connect(self.fixed.frame, self.cut_neg.frame_resolve)]


def test_cut_force_hanging_at_rest():
    cs = compile(HangingPendulum())
    assert set(cs.state_names) == {"revolute.phi", "revolute.w"}
    sol = cs.simulate(1.0, n_points=5, **TIGHT)
    mg = 2.0 * G
    n = len(sol.t)
    np.testing.assert_allclose(sol["revolute.phi"], -math.pi / 2, atol=1e-12)  # stays at rest
    np.testing.assert_allclose(sol["cut.force"], np.array([[0.0] * n, [mg] * n]), atol=1e-9)
    np.testing.assert_allclose(sol["cut.torque"], 0.0, atol=1e-9)
    # resolved in frame_a (phi = -90 deg): the rod axis points down, so the pull is along -x
    np.testing.assert_allclose(sol["cut_a.force"], np.array([[-mg] * n, [0.0] * n]), atol=1e-9)
    # negative sign, resolved in the world-fixed frame
    np.testing.assert_allclose(sol["cut_neg.force"], np.array([[0.0] * n, [-mg] * n]),
                               atol=1e-9)
    np.testing.assert_allclose(sol["cut_t.torque"], 0.0, atol=1e-9)


class SwingingPendulum(Component):
    """Horizontal start: the cut force/torque and power into the body vary with time."""

    world = World(g=G)  # the expected forces, power and energy below use G
    fixed = Fixed()
    revolute = Revolute(phi=_fixed_var(0.0), w=_fixed_var(0.0))
    rod = FixedTranslation(r=[1.0, 0.0])
    cut = CutForceAndTorque(resolve_in_frame="world")
    power = Power()
    body = Body(m=1.0, I=0.1)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.cut.frame_a),
                connect(self.cut.frame_b, self.power.frame_a),
                connect(self.power.frame_b, self.body.frame_a)]


def test_cut_force_and_power_swinging():
    cs = compile(SwingingPendulum())
    assert set(cs.state_names) == {"revolute.phi", "revolute.w"}
    sol = cs.simulate(2.0, n_points=41, **TIGHT)
    m, inertia = 1.0, 0.1
    acc, v = sol["body.a"], sol["body.v"]
    # the cut force is what accelerates the body against gravity: f = m (a - g)
    np.testing.assert_allclose(sol["cut.force"], m * (acc - np.array([[0.0], [-G]])), atol=1e-7)
    np.testing.assert_allclose(sol["cut.torque"], inertia * sol["body.z"], atol=1e-7)
    expected = (m * (acc[0] * v[0] + acc[1] * v[1]) + m * G * v[1]
                + inertia * sol["body.z"] * sol["body.w"])
    np.testing.assert_allclose(sol["power.power"], expected, atol=1e-7)
    # a fixed frictionless pivot and a massless rod do no work on the body: zero power, even
    # though force and velocity are both non-zero
    assert np.max(np.abs(sol["power.power"])) < 1e-9
    assert np.max(np.abs(sol["cut.force"])) > 10.0 and np.max(np.abs(v)) > 1.0
    # same motion as without sensors: 1.1 theta'' = -9.81 cos(theta) (energy invariant), to
    # the integration error: phi and w each within K (atol + rtol range), the local errors
    # of all steps added up, K = 500 > the run's steps (at most its 440 right-hand sides;
    # measured: K = 35 at rtol 0.8e-10 .. 1.3e-10), which move the energy by
    # 1.1 max|w| dw + G dphi (3.5e-6). 1 % more inertia or mass of the body (or g) moves it
    # by 9e-3 (1e-1).
    w, phi = sol["revolute.w"], sol["revolute.phi"]
    energy = 0.5 * 1.1 * w**2 + G * np.sin(phi)
    K, rtol, atol = 500, TIGHT["rtol"], TIGHT["atol"]
    bound = K * (1.1 * np.max(np.abs(w)) * (atol + rtol * np.ptp(w))
                 + G * (atol + rtol * np.ptp(phi)))
    assert np.max(np.abs(energy)) < bound


# ------------------------------------------------------------------------------------------------
# distance, world torque, options
# ------------------------------------------------------------------------------------------------


class SpinAndSlide(Component):
    """A body pushed by a WorldTorque while sliding along x; a Distance sensor to the origin."""

    fixed = Fixed()
    prismatic = Prismatic(r=[1.0, 0.0], s=_fixed_var(3.0), v=_fixed_var(-1.0))
    revolute = Revolute(phi=_fixed_var(0.0), w=_fixed_var(0.0))
    body = Body(m=1.0, I=0.5, g=[0.0, 0.0])
    torque = WorldTorque()
    distance = Distance()
    distance0 = Distance()

    def connections(self):
        b = self.body.frame_a
        return [connect(self.fixed.frame, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, self.revolute.frame_a),
                connect(self.revolute.frame_b, b),
                connect(self.torque.frame_b, b),
                connect(self.fixed.frame, self.distance.frame_a),
                connect(b, self.distance.frame_b),
                connect(b, self.distance0.frame_a), connect(b, self.distance0.frame_b)]

    def equations(self):
        return [Eq(self.torque.torque, 2.0 * sp.cos(1.0 * time))]  # 2 N.m at 1 rad/s


def test_world_torque_and_distance():
    cs = compile(SpinAndSlide())
    sol = cs.simulate(5.0, n_points=51, **TIGHT)
    t = sol.t
    # I z = 2 cos t  ->  w = 4 sin t, phi = 4 (1 - cos t)
    np.testing.assert_allclose(sol["revolute.w"], 4.0 * np.sin(t), atol=1e-7)
    np.testing.assert_allclose(sol["body.phi"], 4.0 * (1.0 - np.cos(t)), atol=1e-7)
    # the slide is force-free: s = 3 - t; the distance passes through zero smoothly
    np.testing.assert_allclose(sol["prismatic.s"], 3.0 - t, atol=1e-8)
    np.testing.assert_allclose(sol["distance.distance"], np.abs(3.0 - t), atol=1e-8)
    np.testing.assert_allclose(sol["distance0.distance"], 0.0, atol=1e-12)


def test_distance_small_branch():
    """Below s_small the distance is the C1 polynomial L2/(2 s) (3 - L2/s^2)."""

    class Near(Component):
        fixed = Fixed()
        other = Fixed(r=[0.3, 0.4])
        distance = Distance(s_small=1.0)

        def connections(self):
            return [connect(self.fixed.frame, self.distance.frame_a),
                    connect(self.other.frame, self.distance.frame_b)]

    sol = compile(Near()).simulate(1.0, n_points=3)
    l2 = 0.25
    np.testing.assert_allclose(sol["distance.distance"], l2 / 2.0 * (3.0 - l2), atol=1e-14)


def test_invalid_resolve_option():
    with pytest.raises(ValueError, match="resolve_in_frame"):
        AbsoluteVelocity(resolve_in_frame="frame_b")
    with pytest.raises(ValueError, match="resolve_in_frame"):
        CutForce(resolve_in_frame="frame_b")
    RelativeVelocity(resolve_in_frame="frame_b")  # allowed for relative sensors


def test_frame_resolve_must_be_connected():
    class Open(Component):
        fixed = Fixed()
        pos = AbsolutePosition(resolve_in_frame="frame_resolve")

        def connections(self):
            return [connect(self.fixed.frame, self.pos.frame_a)]

    with pytest.raises(UnconnectedConnectorError):
        compile(Open())


def test_absolute_sensors_apply_no_force():
    """A sensor on a free body: the body falls freely (sensor forces are zero)."""

    class Falling(Component):
        world = World(g=G)  # the free fall below uses G
        body = Body(m=1.0, I=0.1, r=Variable(start=[0.0, 0.0], fixed=True),
                    v=Variable(start=[1.0, 0.0], fixed=True),
                    phi=Variable(start=0.0, fixed=True), w=Variable(start=2.0, fixed=True))
        acc = AbsoluteAcceleration(resolve_in_frame="world")
        vel = AbsoluteVelocity(resolve_in_frame="frame_a")

        def connections(self):
            return [connect(self.body.frame_a, self.acc.frame_a),
                    connect(self.body.frame_a, self.vel.frame_a)]

    sol = compile(Falling()).simulate(2.0, n_points=11, **TIGHT)
    t = sol.t
    np.testing.assert_allclose(sol["body.r"], np.array([t, -0.5 * G * t ** 2]), atol=1e-8)
    np.testing.assert_allclose(sol["acc.a"], np.array([0 * t, -G + 0 * t]), atol=1e-8)
    v_world = np.array([1.0 + 0 * t, -G * t])
    phi = 2.0 * t
    v_a = np.array([np.cos(phi) * v_world[0] + np.sin(phi) * v_world[1],
                    -np.sin(phi) * v_world[0] + np.cos(phi) * v_world[1]])
    np.testing.assert_allclose(sol["vel.v"], v_a, atol=1e-8)
