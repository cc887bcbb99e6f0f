"""3-D multibody checks against invariants and the planar library (no reference files)."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import multibody as mb
from acausal.components.multibody import sensors
from acausal.components.planar import joints as planar_joints
from acausal.components.planar import parts as planar_parts


class Dzhanibekov(Component):
    """A free body (principal inertias 1, 2, 3 kg m2, no gravity) spun about its intermediate
    axis with a small disturbance: it flips over and back (the tennis-racket theorem)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = mb.World(gravity_type="NoGravity")
        self.body = mb.Body(m=1.0, r_CM=(0.0, 0.0, 0.0), I_11=1.0, I_22=2.0, I_33=3.0,
                            angles_fixed=True, w_0_fixed=True, w_0_start=(0.01, 2.0, 0.0),
                            r_0=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                            v_0=Variable(start=[0.0, 0.0, 0.0], fixed=True))


def test_dzhanibekov_flip_keeps_energy_momentum_and_the_quaternion_norm():
    cs = compile(Dzhanibekov())
    # the four quaternion elements are states, the same ones for the whole run
    assert {"body.Q[0]", "body.Q[1]", "body.Q[2]", "body.Q[3]"} <= set(cs.state_names)
    assert not cs.dynamic_selection
    sol = cs.simulate(20.0, dt=0.01, rtol=1e-10, atol=1e-12)
    w = sol["body.w_a"]
    inertia = np.diag([1.0, 2.0, 3.0])
    energy = 0.5 * np.einsum("ik,ij,jk->k", w, inertia, w)
    T = sol["body.frame_a.T"].reshape(3, 3, -1)
    momentum = np.einsum("jik,jk->ik", T, inertia @ w)  # T' I w: world frame
    assert np.ptp(energy) / energy[0] < 1e-8
    drift = np.linalg.norm(momentum - momentum[:, :1], axis=0)
    assert np.max(drift) / np.linalg.norm(momentum[:, 0]) < 1e-8
    # D(Q) keeps |Q| = 1 exactly; the integration error moves it (1.5e-8 in 20 s at rtol 1e-10,
    # growing with time and rtol) while T = from_Q(Q/|Q|) stays a rotation to rounding
    q = sol["body.Q"]
    assert np.max(np.abs(np.sum(q * q, axis=0) - 1.0)) < 1e4 * 1e-10
    TT = np.einsum("ijk,ljk->kil", T, T)
    assert np.max(np.abs(TT - np.eye(3))) < 1e-13
    assert not sol.state_switches
    # it does flip: the spin about the intermediate axis reverses, and the body turns through
    # orientations where every quaternion element passes zero (no fixed choice of three
    # quaternion states would do)
    assert np.sum(np.diff(np.sign(w[1])) != 0) >= 2
    assert all(np.any(np.diff(np.sign(q[k])) != 0) for k in range(4))


class PlanarDoublePendulum(Component):
    """A double pendulum of two links (1 m, 0.5 m; centres of mass at the middle) with the
    planar library."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = planar_parts.World(g=9.81)
        self.fixed = planar_parts.Fixed()
        self.rev1 = planar_joints.Revolute(phi=Variable(start=0.3, fixed=True),
                                           w=Variable(start=0.0, fixed=True))
        self.link1 = planar_parts.BodyShape(r=[1.0, 0.0], r_CM=[0.5, 0.0], m=2.0, I=0.2)
        self.rev2 = planar_joints.Revolute(phi=Variable(start=-0.5, fixed=True),
                                           w=Variable(start=1.0, fixed=True))
        self.link2 = planar_parts.BodyShape(r=[0.5, 0.0], r_CM=[0.25, 0.0], m=1.0, I=0.05)

    def connections(self):
        return [connect(self.fixed.frame, self.rev1.frame_a),
                connect(self.rev1.frame_b, self.link1.frame_a),
                connect(self.link1.frame_b, self.rev2.frame_a),
                connect(self.rev2.frame_b, self.link2.frame_a)]


class SpatialDoublePendulum(Component):
    """The same double pendulum built from the 3-D library, moving in the x-y plane."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = mb.World(g=9.81)
        self.rev1 = mb.Revolute(phi=Variable(start=0.3, fixed=True),
                                w=Variable(start=0.0, fixed=True))
        self.link1 = mb.BodyShape(r=(1.0, 0.0, 0.0), r_CM=(0.5, 0.0, 0.0), m=2.0,
                                  I_11=0.01, I_22=0.2, I_33=0.2)
        self.rev2 = mb.Revolute(phi=Variable(start=-0.5, fixed=True),
                                w=Variable(start=1.0, fixed=True))
        self.link2 = mb.BodyShape(r=(0.5, 0.0, 0.0), r_CM=(0.25, 0.0, 0.0), m=1.0,
                                  I_11=0.01, I_22=0.05, I_33=0.05)

    def connections(self):
        return [connect(self.world.frame_b, self.rev1.frame_a),
                connect(self.rev1.frame_b, self.link1.frame_a),
                connect(self.link1.frame_b, self.rev2.frame_a),
                connect(self.rev2.frame_b, self.link2.frame_a)]


def test_planar_motion_of_the_3d_library_gives_the_planar_library_result():
    times = np.linspace(0.0, 3.0, 61)
    flat = compile(PlanarDoublePendulum()).simulate(3.0, t_eval=times, rtol=1e-10, atol=1e-12)
    spatial = compile(SpatialDoublePendulum()).simulate(3.0, t_eval=times, rtol=1e-10,
                                                         atol=1e-12)
    for name in ("rev1.phi", "rev1.w", "rev2.phi", "rev2.w"):
        np.testing.assert_allclose(spatial[name], flat[name], atol=1e-7, err_msg=name)
    # the tip of link 2 in both libraries
    np.testing.assert_allclose(spatial["link2.frame_b.r_0[0]"], flat["link2.frame_b.x"],
                               atol=1e-7)
    np.testing.assert_allclose(spatial["link2.frame_b.r_0[1]"], flat["link2.frame_b.y"],
                               atol=1e-7)
    np.testing.assert_allclose(spatial["link2.frame_b.r_0[2]"], 0.0, atol=1e-12)


def test_a_frame_with_nothing_to_orient_it_is_an_error_naming_it():
    from acausal import ModelDefinitionError

    class Floating(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.bar = mb.FixedTranslation(r=(1.0, 0.0, 0.0))

    with pytest.raises(ModelDefinitionError, match=r"'bar\.frame_a', 'bar\.frame_b'.*no root"):
        compile(Floating())


class SensedPendulum(Component):
    """A link (1 kg at 0.5 m, I_33 = 0.02) on a revolute joint about z, hanging at rest, with a
    cut sensor between the joint and the link and kinematic sensors on the link's tip."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = mb.World(g=9.81)
        self.rev = mb.Revolute(phi=Variable(start=-np.pi / 2 + 0.2, fixed=True),
                               w=Variable(start=0.0, fixed=True))
        self.cut = sensors.CutForceAndTorque(resolve_in_frame="world")
        self.link = mb.BodyShape(r=(1.0, 0.0, 0.0), r_CM=(0.5, 0.0, 0.0), m=1.0, I_33=0.02)
        self.tip = sensors.AbsolutePosition()
        self.tip_speed = sensors.AbsoluteVelocity()
        self.spin = sensors.AbsoluteAngularVelocity()
        self.reach = sensors.Distance()
        self.relative = sensors.RelativePosition(resolve_in_frame="world")

    def connections(self):
        return [connect(self.world.frame_b, self.rev.frame_a),
                connect(self.rev.frame_b, self.cut.frame_a),
                connect(self.cut.frame_b, self.link.frame_a),
                connect(self.link.frame_b, self.tip.frame_a),
                connect(self.link.frame_b, self.tip_speed.frame_a),
                connect(self.link.frame_a, self.spin.frame_a),
                connect(self.world.frame_b, self.reach.frame_a),
                connect(self.link.frame_b, self.reach.frame_b),
                connect(self.world.frame_b, self.relative.frame_a),
                connect(self.link.frame_b, self.relative.frame_b)]


def test_sensors_read_kinematics_and_the_cut_force_without_loading_the_frames():
    cs = compile(SensedPendulum())
    assert cs.state_names == ["rev.phi", "rev.w"]  # sensors add no states
    sol = cs.simulate(1.0, t_eval=np.linspace(0, 1, 11), rtol=1e-10, atol=1e-12)
    phi, w = sol["rev.phi"], sol["rev.w"]
    np.testing.assert_allclose(sol["tip.r"], [np.cos(phi), np.sin(phi), 0 * phi], atol=1e-9)
    np.testing.assert_allclose(sol["relative.r_rel"], sol["tip.r"], atol=1e-12)
    np.testing.assert_allclose(sol["tip_speed.v"], [-np.sin(phi) * w, np.cos(phi) * w, 0 * w],
                               atol=1e-8)
    np.testing.assert_allclose(sol["spin.w"][2], w, atol=1e-12)
    np.testing.assert_allclose(sol["reach.distance"], 1.0, atol=1e-12)
    # the cut force on the link is m (a_cm - g); a_cm of a point at 0.5 m on a rotating link
    a = sol["rev.a"]
    a_cm = 0.5 * np.array([-np.sin(phi) * a - np.cos(phi) * w**2,
                           np.cos(phi) * a - np.sin(phi) * w**2])
    np.testing.assert_allclose(sol["cut.force"][:2], a_cm + [[0.0], [9.81]], atol=1e-8)


def test_a_body_not_a_point_mass_carries_a_shared_frame_s_orientation():
    """MultiBody gives PointMass the lowest root priority: where it shares a frame with a Body
    (a free body carrying an extra point mass), the Body's quaternions orient the frame."""
    from acausal.compiler.flatten import flatten

    class Carrier(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World(gravity_type="NoGravity")
            self.point = mb.PointMass(m=0.5)
            self.body = mb.Body(m=1.0, r_CM=(0.1, 0.0, 0.0))

        def connections(self):
            return [connect(self.point.frame_a, self.body.frame_a)]

    model = Carrier()
    flatten(model)
    assert model.body.frame_a._graph_root and not model.point.frame_a._graph_root
    assert {"body.Q[0]", "body.Q[1]", "body.Q[2]"} <= set(compile(Carrier()).state_names)


def test_world_force_and_world_torque_push_a_free_body():
    """A free body (2 kg, I_33 = 0.5 kg m2, no gravity) under a constant world force (0, 4, 0) N
    and a torque of 1 N.m about z, the torque given in a frame turned 90 deg about x (where
    its y axis is the world's z): a = F/m, z-spin rate = t/I_33. (A disc: I_11 = I_22 =
    I_33/2; a free body's moments must be those of a mass distribution.)"""
    from acausal.components.blocks import Constant

    class Pushed(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World(gravity_type="NoGravity")
            self.body = mb.Body(m=2.0, r_CM=(0.0, 0.0, 0.0), I_11=0.25, I_22=0.25, I_33=0.5,
                                angles_fixed=True,
                                w_0_fixed=True, r_0=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                                v_0=Variable(start=[0.0, 0.0, 0.0], fixed=True))
            self.push = mb.WorldForce()
            self.turn = mb.WorldTorque(resolve_in_frame="frame_resolve")
            self.tilted = mb.FixedRotation(n=(1, 0, 0), angle=90.0)
            self.f = [Constant(k=k) for k in (0.0, 4.0, 0.0)]
            self.t = [Constant(k=k) for k in (0.0, 1.0, 0.0)]

        def connections(self):
            return [connect(self.push.frame_b, self.body.frame_a),
                    connect(self.turn.frame_b, self.body.frame_a),
                    connect(self.world.frame_b, self.tilted.frame_a),
                    connect(self.tilted.frame_b, self.turn.frame_resolve),
                    *(connect(c.y, i) for c, i in zip(self.f, self.push.force)),
                    *(connect(c.y, i) for c, i in zip(self.t, self.turn.torque))]

    sol = compile(Pushed()).simulate(1.0, t_eval=[0.0, 0.5, 1.0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["body.r_0"][1], 0.5 * 2.0 * sol.t**2, atol=1e-9)
    w_world = np.einsum("jik,jk->ik", sol["body.frame_a.T"].reshape(3, 3, -1), sol["body.w_a"])
    np.testing.assert_allclose(w_world[2], 2.0 * sol.t, atol=1e-9)
    np.testing.assert_allclose(w_world[:2], 0.0, atol=1e-9)


def test_a_wrong_resolve_frame_is_named_when_the_element_is_created():
    from acausal import ParameterError

    with pytest.raises(ParameterError, match="WorldForce: resolve_in_frame must be one of"):
        mb.WorldForce(resolve_in_frame="frame_a")
