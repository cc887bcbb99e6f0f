"""Which states a 3-D model gets (docs/multibody.md, "Which states a 3-D model gets"): joint
coordinates and quaternions, never absolute body positions or rotation-matrix entries; a
spherical joint's orientation carried three ways (Cardan angles or quaternions in the joint,
quaternions in the body behind it) gives one motion; ModelicaTest's SphericalDoublePendulum
against its Dymola reference."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Variable, compile
from acausal.components.multibody.examples_spherical import (
    SphericalDoublePendulum,
    SphericalRevolutePendulum,
)
from acausal.errors import ParameterError

RTOL, ATOL = 1e-10, 1e-12


@pytest.fixture(scope="module")
def double_pendulums():
    return compile(SphericalDoublePendulum())


def test_each_spherical_joint_carries_the_states_it_is_asked_to(double_pendulums):
    names = set(double_pendulums.state_names)
    # Cardan angles in the joints (MultiBody enforceStates, useQuaternions=false)
    assert {f"Spherical{k}.{v}[{i}]" for k in (1, 2) for v in ("phi", "phi_d")
            for i in range(3)} <= names
    # quaternions in the joints: four elements each, no constraint to choose three of them by
    assert {f"Spherical{k}.Q[{i}]" for k in (3, 4) for i in range(4)} <= names
    # the default: the boxes behind the joints carry quaternions and angular velocities
    assert {f"boxBody{k}.Q[{i}]" for k in (5, 6) for i in range(4)} <= names
    # 3 x 2 joints x 3 freedoms x 2 = 36 state freedoms, + 1 per quaternion of 4 elements
    assert len(names) == 36 + 4
    assert not any(".r_0[" in n or ".v_0[" in n or ".T[" in n for n in names)


def test_three_ways_to_carry_an_orientation_move_alike(double_pendulums):
    sol = double_pendulums.simulate(3.0, n_points=301, rtol=RTOL, atol=ATOL)
    assert not sol.state_switches
    tip = {k: sol[f"boxBody{k}.frame_b.r_0"] for k in (2, 4, 6)}
    span = np.ptp(tip[6], axis=1)
    for k in (2, 4):
        assert np.max(np.abs(tip[k] - tip[6]).max(axis=1) / span) < 1e-7
    # the joint quaternion and the body quaternion are one orientation, as are the Cardan
    # angles (their rotation) and the body's frame
    np.testing.assert_allclose(sol["Spherical3.Q"], sol["boxBody5.Q"], atol=1e-7)
    np.testing.assert_allclose(sol["boxBody1.frame_a.T"], sol["boxBody5.frame_a.T"],
                               atol=1e-7)


def test_inline_reference_checkpoints(double_pendulums):
    """Dymola's values at t = 1.0002 s and 3 s (``SphericalDoublePendulum.csv``), written here
    so that the test runs without the reference files."""
    times = np.array([1.0002, 3.0])
    sol = double_pendulums.simulate(3.0, t_eval=np.concatenate([[0.0], times]), rtol=RTOL,
                                    atol=ATOL)
    expected = {"Spherical1.phi[0]": (-0.8208201391858422, 4.392560720397351),
                "Spherical1.phi[2]": (-2.056480971035452, -6.43675942421574),
                "Spherical3.Q[0]": (-0.6279239205928091, -0.7056197560049052),
                "Spherical3.Q[3]": (0.18252498379108031, 0.45871875908203147),
                "boxBody5.Q[2]": (-0.7565672574238866, -0.4725392724390942)}
    for name, values in expected.items():
        # the reference is accurate to ~1e-5 of these signals' ranges (0.9 .. 6.4)
        np.testing.assert_allclose(sol[name][1:], values, atol=2e-4, err_msg=name)


def test_matches_the_reference_over_the_whole_span(double_pendulums, compare):
    _, errors = compare(double_pendulums, "SphericalDoublePendulum", rtol=RTOL, atol=ATOL,
                        renamed={"boxBody5.body.": "boxBody5.", "boxBody6.body.": "boxBody6."})
    assert len(errors) == 40 and max(errors.values()) < 1e-4


@pytest.mark.parametrize("options, states", [
    ({}, ["link1.Q[0]", "link1.Q[1]", "link1.Q[2]", "link1.Q[3]", "rev.phi", "rev.w"]),
    ({"enforce_states": True}, ["sph.Q[0]", "sph.Q[3]", "sph.w_rel[0]", "sph.w_rel[2]",
                                "rev.phi", "rev.w"]),
    ({"enforce_states": True, "use_quaternions": False},
     ["sph.phi[0]", "sph.phi[2]", "sph.phi_d[0]", "sph.phi_d[2]", "rev.phi", "rev.w"]),
], ids=["body-quaternions", "joint-quaternions", "joint-cardan"])
def test_spherical_revolute_pendulum_states_energy_and_no_reselection(options, states,
                                                                      energy):
    model = SphericalRevolutePendulum(**options)
    cs = compile(model)
    assert set(states) <= set(cs.state_names)
    assert not any(".r_0[" in n or ".v_0[" in n or ".T[" in n for n in cs.state_names)
    # 4 freedoms: 8 states, +1 for a quaternion of four elements
    assert len(cs.state_names) == (8 if options.get("use_quaternions") is False else 9)
    sol = cs.simulate(10.0, n_points=1001, rtol=RTOL, atol=ATOL)
    assert len(sol.state_switches) <= 1
    e = energy(sol, cs, [model.link1, model.link2])
    assert np.ptp(e) < 1e-7 * np.max(np.abs(e))


def test_the_three_state_choices_give_one_motion():
    t = np.linspace(0.0, 5.0, 501)
    tips = [compile(SphericalRevolutePendulum(**options)).simulate(
        5.0, t_eval=t, rtol=1e-12, atol=1e-14)["link2.frame_b.r_0"]
        for options in ({}, {"enforce_states": True},
                        {"enforce_states": True, "use_quaternions": False})]
    span = np.ptp(tips[0], axis=1)
    for other in tips[1:]:
        assert np.max(np.abs(other - tips[0]).max(axis=1) / span) < 1e-7


def test_a_sequence_with_a_repeated_axis_is_refused():
    from acausal import Component, connect
    from acausal.components.multibody import Body, Spherical, World

    class Ball(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = World()
            self.joint = Spherical(enforce_states=True, use_quaternions=False,
                                   sequence_angle_states=(1, 1, 3))
            self.body = Body(r_CM=(0.0, -0.5, 0.0))

        def connections(self):
            return [connect(self.world.frame_b, self.joint.frame_a),
                    connect(self.joint.frame_b, self.body.frame_a)]

    with pytest.raises(ParameterError, match=r"joint': sequence_angle_states=\(1, 1, 3\)"):
        compile(Ball())


def _tumbling_body(**free_motion):
    from acausal import Component, connect
    from acausal.components.multibody import Body, FreeMotion, World

    class Tumbler(Component):
        """A body thrown from the world's origin on a FreeMotion joint, spinning about all three
        axes (principal inertias 0.1, 0.2, 0.3 kg m2, centre of mass 0.1 m off frame_b)."""

        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = World()
            self.joint = FreeMotion(angles_fixed=True, angles_start=(0.2, -0.1, 0.3),
                                    w_rel_a_fixed=True, w_rel_a_start=(1.0, -2.0, 0.5),
                                    v_rel_a=Variable(start=[0.0, 3.0, 0.5], fixed=True),
                                    r_rel_a=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                                    **free_motion)
            self.body = Body(r_CM=(0.1, 0.0, 0.0), I_11=0.1, I_22=0.2, I_33=0.3)

        def connections(self):
            return [connect(self.world.frame_b, self.joint.frame_a),
                    connect(self.joint.frame_b, self.body.frame_a)]

    return Tumbler()


def test_free_motion_with_angle_or_quaternion_states_moves_alike(energy):
    t = np.linspace(0.0, 1.0, 201)
    runs = {}
    for key, options in {"quaternions": {}, "cardan": {"use_quaternions": False},
                         "body": {"enforce_states": False}}.items():
        model = _tumbling_body(**options)
        cs = compile(model)
        names = set(cs.state_names)
        expected = {"quaternions": "joint.Q[3]", "cardan": "joint.phi_d[2]",
                    "body": "body.Q[3]"}[key]
        assert expected in names and not any(".T[" in n for n in names)
        sol = cs.simulate(1.0, t_eval=t, rtol=1e-11, atol=1e-13)
        e = energy(sol, cs, [model.body])
        assert np.ptp(e) < 1e-8 * np.max(np.abs(e))
        runs[key] = sol["body.frame_a.T"]
    for key in ("cardan", "body"):
        assert np.max(np.abs(runs[key] - runs["quaternions"])) < 1e-8


def test_angle_states_pass_close_to_their_singular_configuration():
    """Cardan angles are singular at a middle angle of +-90 deg (the first and the last axis line
    up); as in MultiBody, only the exact configuration divides by zero. A ball spun about all
    three axes passes within 0.013 rad of it: the angle rates grow to 82 rad/s there, and the
    orientation still agrees with the quaternion run."""
    from acausal import Component, connect
    from acausal.components.multibody import Body, Spherical, World

    class Ball(Component):
        def __init__(self, quaternions: bool, **kw):
            super().__init__(**kw)
            self.world = World(gravity_type="NoGravity")
            self.joint = Spherical(enforce_states=True, use_quaternions=quaternions,
                                   angles_fixed=True, w_rel_a_fixed=True,
                                   w_rel_a_start=(0.3, 1.0, 0.2))
            self.body = Body(r_CM=(0.0, 0.0, 0.0), I_11=0.1, I_22=0.2, I_33=0.3)

        def connections(self):
            return [connect(self.world.frame_b, self.joint.frame_a),
                    connect(self.joint.frame_b, self.body.frame_a)]

    t = np.linspace(0.0, 3.0, 3001)
    cardan = compile(Ball(False)).simulate(3.0, t_eval=t, rtol=1e-10, atol=1e-12)
    quaternion = compile(Ball(True)).simulate(3.0, t_eval=t, rtol=1e-10, atol=1e-12)
    assert np.pi / 2 - np.max(np.abs(cardan["joint.phi"][1])) < 0.02
    assert np.max(np.abs(cardan["joint.phi_d"])) > 50
    assert np.max(np.abs(cardan["body.frame_a.T"] - quaternion["body.frame_a.T"])) < 1e-6


def test_a_state_priority_a_user_gives_still_wins():
    from acausal import Variable as V

    model = SphericalRevolutePendulum()
    model.link2 = type(model.link2)(r=(0.0, -0.5, 0.0), width=0.05,
                                    r_0=V(state_priority=100), v_0=V(state_priority=100))
    cs = compile(model)
    assert {"link2.r_0[0]", "link2.v_0[0]"} <= set(cs.state_names)
