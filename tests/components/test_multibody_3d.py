"""3-D multibody checks against invariants and the planar library (no reference files)."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import multibody as mb
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
    assert {"body.Q[0]", "body.Q[1]", "body.Q[2]"} <= set(cs.state_names)
    sol = cs.simulate(20.0, dt=0.01, rtol=1e-10, atol=1e-12)
    w = sol["body.w_a"]
    inertia = np.diag([1.0, 2.0, 3.0])
    energy = 0.5 * np.einsum("ik,ij,jk->k", w, inertia, w)
    T = sol["body.frame_a.T"].reshape(3, 3, -1)
    momentum = np.einsum("jik,jk->ik", T, inertia @ w)  # T' I w: world frame
    assert np.ptp(energy) / energy[0] < 1e-8
    drift = np.linalg.norm(momentum - momentum[:, :1], axis=0)
    assert np.max(drift) / np.linalg.norm(momentum[:, 0]) < 1e-8
    q = sol["body.Q"]
    assert np.max(np.abs(np.sum(q * q, axis=0) - 1.0)) < 1e-10
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
        self.world = planar_parts.World(g=[0.0, -9.81])
        self.fixed = planar_parts.Fixed()
        self.rev1 = planar_joints.Revolute(phi=Variable(start=0.3, fixed=True),
                                           w=Variable(start=0.0, fixed=True))
        self.link1 = planar_parts.BodyShape(r=[1.0, 0.0], r_cm=[0.5, 0.0], m=2.0, I=0.2)
        self.rev2 = planar_joints.Revolute(phi=Variable(start=-0.5, fixed=True),
                                           w=Variable(start=1.0, fixed=True))
        self.link2 = planar_parts.BodyShape(r=[0.5, 0.0], r_cm=[0.25, 0.0], m=1.0, I=0.05)

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
