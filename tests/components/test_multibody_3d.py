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
    rtol = 1e-10
    sol = cs.simulate(20.0, dt=0.01, rtol=rtol, atol=1e-12)
    w = sol["body.w_a"]
    inertia = np.diag([1.0, 2.0, 3.0])
    energy = 0.5 * np.einsum("ik,ij,jk->k", w, inertia, w)
    T = sol["body.frame_a.T"].reshape(3, 3, -1)
    momentum = np.einsum("jik,jk->ik", T, inertia @ w)  # T' I w: world frame
    # both invariants to the integration error: each step's local error may move them by rtol
    # of their size, over the run's steps (fewer than its 1.4e3 right-hand sides): K = 1.5e3
    # (measured: up to 1.1e-8 and 7e-9 of them at rtol 0.8e-10 .. 1.3e-10). The model's I_11
    # or I_22 1 % off the inertia used here moves the energy so computed by 5e-3 of it and more
    K = 1.5e3
    assert np.ptp(energy) / energy[0] < K * rtol
    drift = np.linalg.norm(momentum - momentum[:, :1], axis=0)
    assert np.max(drift) / np.linalg.norm(momentum[:, 0]) < K * rtol
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
    rtol, atol = 1e-10, 1e-12
    flat = compile(PlanarDoublePendulum()).simulate(3.0, t_eval=times, rtol=rtol, atol=atol)
    spatial = compile(SpatialDoublePendulum()).simulate(3.0, t_eval=times, rtol=rtol, atol=atol)
    # Both runs have the integrator's error: CVODE holds each step's local error to
    # atol + rtol |x|, and a run's global error is at most their sum over its steps where the
    # motion does not amplify them: K (atol + rtol range) with K = 2e3, the steps of a run
    # (fewer than its 1.9e3 right-hand sides); measured against runs at rtol 1e-13: up to 7e2
    # at rtol 0.8e-10 .. 1.3e-10. The two runs differ by 2 K (atol + rtol range) at most, per
    # signal (8e-6 in rev2.w, whose range is 20 rad/s); a 1 % change of link 2's mass or of
    # link 1's inertia moves the angles by 7e-3.
    K = 2e3
    bound = {}
    for name in ("rev1.phi", "rev1.w", "rev2.phi", "rev2.w"):
        bound[name] = 2 * K * (atol + rtol * np.ptp(flat[name]))
        np.testing.assert_allclose(spatial[name], flat[name], rtol=0, atol=bound[name],
                                   err_msg=name)
    # the tip of link 2 in both libraries: it moves by 1.5 m x d(rev1.phi) + 0.5 m x
    # d(rev2.phi) at most (links of 1 m and 0.5 m)
    tip = 1.5 * bound["rev1.phi"] + 0.5 * bound["rev2.phi"]
    np.testing.assert_allclose(spatial["link2.frame_b.r_0[0]"], flat["link2.frame_b.x"],
                               rtol=0, atol=tip)
    np.testing.assert_allclose(spatial["link2.frame_b.r_0[1]"], flat["link2.frame_b.y"],
                               rtol=0, atol=tip)
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

    rtol, atol = 1e-10, 1e-12
    sol = compile(Pushed()).simulate(1.0, t_eval=[0.0, 0.5, 1.0], rtol=rtol, atol=atol)
    np.testing.assert_allclose(sol["body.r_0"][1], 0.5 * 2.0 * sol.t**2, atol=1e-9)
    w_world = np.einsum("jik,jk->ik", sol["body.frame_a.T"].reshape(3, 3, -1), sol["body.w_a"])
    # the spin (2 rad/s at most) to the integrator's accuracy: K (atol + rtol max|w|) with
    # K = 10 (w is linear in t, which BDF integrates without truncation error: measured 2e-16).
    # Its x and y components are zero: no torque about them, and a tilt of the spin axis needs
    # one; rounding feeds them (the tilted frame's cos 90 deg = 6e-17: measured 1e-16), the
    # integration error no more than the z component's. A 1 % change of I_33 moves w by 2e-2,
    # 1 % of the torque about another axis puts 3e-4 rad/s into x or y.
    spin = 10 * (atol + rtol * 2.0)
    np.testing.assert_allclose(w_world[2], 2.0 * sol.t, rtol=0, atol=spin)
    np.testing.assert_allclose(w_world[:2], 0.0, atol=spin)


def test_a_wrong_resolve_frame_is_named_when_the_element_is_created():
    from acausal import ParameterError

    with pytest.raises(ParameterError, match="WorldForce: resolve_in_frame must be one of"):
        mb.WorldForce(resolve_in_frame="frame_a")
