"""Planar joints with reaction-driven friction (``components/planar/joint_friction.py``).

* a block on a fixed prismatic joint under a known normal load and a slowly ramped tangential
  load: LuGre pre-sliding ``s = -(Fs/k0) ln(1 - F/Fs)``, sliding starts when the load reaches
  ``mu_static*N``;
* a flywheel on a revolute joint with a known radial load brakes with ``mu_dynamic*N*r``;
* a preload alone gives the preload friction;
* ``effect`` and ``inputs`` change the force as documented;
* the friction-reaction loop of a pendulum is solved inside the DAE (one simulate call; the
  normal force is an observed variable and satisfies the implicit loop at every output time).
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, ModelDefinitionError, Variable, compile, connect, time
from acausal.components.planar.forces import WorldForce
from acausal.components.planar.joint_friction import (
    PrismaticWithFriction,
    RevoluteWithFriction,
    parse_inputs,
)
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, BodyShape, Fixed, World
from acausal.components.sources import TranslationalSpeed
from acausal.library.friction import coulomb, lugre_g, stribeck_simscape

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
EPS = 1e-3  # default normal_force_eps [N]
M, G = 10.0, 9.81
W = M * G  # normal load of the block / radial load of the flywheel [N]


def smooth(x, eps=EPS):
    return np.sqrt(np.asarray(x) ** 2 + eps**2)


# ------------------------------------------------------------------------------------------
# inputs parsing and definition errors
# ------------------------------------------------------------------------------------------

def test_inputs_accept_flags_bit_strings_and_integers():
    every = {"preload": True, "reaction_force": True, "bending_moment": True,
             "torsional_moment": True}
    assert parse_inputs("1111") == parse_inputs("ALL") == parse_inputs(15) == every
    assert parse_inputs(None) == every
    pr = {"preload": True, "reaction_force": True, "bending_moment": False,
          "torsional_moment": False}
    assert parse_inputs("1100") == parse_inputs(12) == parse_inputs(0b1100) == pr
    assert parse_inputs(("preload", "REACTION_FORCE")) == pr
    assert parse_inputs("PRELOAD:REACTION_FORCE") == pr
    assert not any(parse_inputs("NONE").values()) and not any(parse_inputs(0).values())
    assert parse_inputs("0001") == {"preload": False, "reaction_force": False,
                                    "bending_moment": False, "torsional_moment": True}
    for bad in (16, 1111, "10", "friction", True):
        with pytest.raises(ModelDefinitionError):
            parse_inputs(bad)


def test_bad_options_are_definition_errors():
    with pytest.raises(ModelDefinitionError, match="law"):
        RevoluteWithFriction(law="dahl")
    with pytest.raises(ModelDefinitionError, match="effect"):
        PrismaticWithFriction(effect="both")
    with pytest.raises(ModelDefinitionError, match="overlap_delta"):
        PrismaticWithFriction(overlap_delta="grow")
    with pytest.raises(ModelDefinitionError, match="inactive"):
        RevoluteWithFriction(inactive="dynamic")
    # attributes without a planar meaning are accepted
    RevoluteWithFriction(friction_arm=0.02, bending_reaction_arm=0.01, ball_radius=0.1,
                         yoke="I", inactive="Static")
    PrismaticWithFriction(reaction_arm=0.05, yoke="J")
    assert isinstance(RevoluteWithFriction(), Revolute)
    assert isinstance(PrismaticWithFriction(), Prismatic)


# ------------------------------------------------------------------------------------------
# block on a prismatic joint: breakaway at mu_static*N (LuGre)
# ------------------------------------------------------------------------------------------

RATE = 2.0  # N/s


class Block(Component):
    """10 kg block on a horizontal prismatic joint, weight = normal load, pushed by RATE*t."""

    world = World(g=G)  # the hand calculations below use G = 9.81
    fixed = Fixed()
    # max_stiction_deform=0: the bristle stiffness is k0 itself (the default 1e-5 m would
    # raise it to mu_static*N/1e-5 = 2.9e6 N/m; that bound is tested in test_joint_friction_3d)
    joint = PrismaticWithFriction(r=[1.0, 0.0], mu_static=0.3, mu_dynamic=0.2,
                                  stiction_trans_vel=0.01, inputs="0100", max_stiction_deform=0,
                                  s=Variable(start=0.0, fixed=True),
                                  v=Variable(start=0.0, fixed=True))
    block = Body(m=M, I=0.1)
    push = WorldForce(resolve_in_frame="world")

    def connections(self):
        return [connect(self.fixed.frame, self.joint.frame_a),
                connect(self.joint.frame_b, self.block.frame_a),
                connect(self.push.frame_b, self.block.frame_a)]

    def equations(self):
        return [Eq(self.push.force[0], RATE * time), Eq(self.push.force[1], 0),
                Eq(self.push.force[2], 0)]


def test_block_starts_to_slide_when_the_load_exceeds_mu_static_N():
    cs = compile(Block())
    fs = 0.3 * smooth(W)  # the normal force is the smooth |weight|
    k0 = 1e5
    t_end = 1.1 * fs / RATE
    sol = cs.simulate(t_end, dt=2e-3, **TIGHT)
    load = RATE * sol.t
    np.testing.assert_allclose(sol["joint.normal_force"], smooth(W), rtol=1e-12)
    # pre-sliding (LuGre, v << V_s, so g(v) = Fs): dz = ds (1 - z k0/Fs) and F = k0 z give
    # s = -(Fs/k0) ln(1 - F/Fs): a displacement of a few Fs/k0 = 0.3 mm
    # (after the start transient of the block on the bristle spring, omega = sqrt(k0/m) =
    # 100 rad/s, zeta = k1/(2 sqrt(k0 m)) = 0.16; the damper delays s by RATE*k1/k0^2 = 6e-8 m)
    pre = (load <= 0.9 * fs) & (sol.t > 0.5)
    np.testing.assert_allclose(sol["joint.s"][pre], -(fs / k0) * np.log(1 - load[pre] / fs),
                               rtol=2e-3, atol=2 * RATE * 316.0 / k0**2)
    assert np.all(sol["joint.v"][load <= 0.9 * fs] < 0.05 * 0.01)
    # the friction force carries the load while sticking
    np.testing.assert_allclose(sol["joint.friction_force"][pre], load[pre], rtol=2e-3,
                               atol=1e-6)
    # sliding (v above the stiction transition velocity) starts at F = mu_static*N; the
    # creep velocity near breakaway, (dF/dt)/k0/(1 - F/Fs), sets the tolerance
    onset = load[np.argmax(sol["joint.v"] > 0.01)]
    assert onset == pytest.approx(fs, rel=5e-3)
    assert sol["joint.v"][-1] > 0.5  # accelerating: (F - mu_d N)/m > 0.9 m/s2


# ------------------------------------------------------------------------------------------
# flywheel on a revolute joint: braking torque mu_dynamic*N*r
# ------------------------------------------------------------------------------------------

class Flywheel(Component):
    world = World(g=G)
    fixed = Fixed()
    joint = RevoluteWithFriction(pin_radius=0.05, mu_static=0.3, mu_dynamic=0.2,
                                 viscous_effects=0.0, stiction_trans_vel=1e-3,
                                 phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=10.0, fixed=True))
    wheel = Body(m=M, I=0.5)

    def connections(self):
        return [connect(self.fixed.frame, self.joint.frame_a),
                connect(self.joint.frame_b, self.wheel.frame_a)]


def test_flywheel_brakes_with_mu_dynamic_N_r():
    sol = compile(Flywheel()).simulate(2.0, dt=0.01, **TIGHT)
    torque = 0.2 * smooth(W) * 0.05
    # f_radial is the smooth magnitude |x|_0 = sqrt(x^2 + eps^2) - eps; N = eps + f_radial
    np.testing.assert_allclose(sol["joint.f_radial"], smooth(W) - EPS, rtol=1e-12)
    late = sol.t > 0.05  # after the bristle transient (time constant g/(k0 v) ~ 0.4 ms)
    np.testing.assert_allclose(sol["joint.friction_torque"][late], torque, rtol=1e-7)
    w = sol["joint.w"]
    slope = np.polyfit(sol.t[late], w[late], 1)[0]
    assert slope == pytest.approx(-torque / 0.5, rel=1e-7)
    assert np.all(w > 0)


# ------------------------------------------------------------------------------------------
# preload alone
# ------------------------------------------------------------------------------------------

class PreloadedFlywheel(Flywheel):
    world = World(g=0.0)
    joint = RevoluteWithFriction(pin_radius=0.05, mu_static=0.3, mu_dynamic=0.2,
                                 viscous_effects=0.0, stiction_trans_vel=1e-3,
                                 torque_preload=2.0,
                                 phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=10.0, fixed=True))


class DrivenSlider(Component):
    """A block on a prismatic joint moved at constant speed through the joint's flange."""

    def __init__(self, speed=0.5, g=0.0, torque=0.0, **joint):
        super().__init__()
        self.world = World(g=g)
        self.fixed = Fixed()
        self.joint = PrismaticWithFriction(r=[1.0, 0.0], use_axis_flange=True, **joint)
        self.block = Body(m=M, I=0.1)
        self.drive = TranslationalSpeed(v_ref=speed)
        self.push = WorldForce(resolve_in_frame="world")
        self._torque = torque

    def connections(self):
        return [connect(self.fixed.frame, self.joint.frame_a),
                connect(self.joint.frame_b, self.block.frame_a),
                connect(self.push.frame_b, self.block.frame_a),
                connect(self.drive.flange, self.joint.flange_a)]

    def equations(self):
        return [Eq(self.push.force[0], 0), Eq(self.push.force[1], 0),
                Eq(self.push.force[2], self._torque)]


def test_preload_alone_gives_the_preload_friction():
    # revolute: no radial load; N = eps + T_pre/(mu_s r), sliding torque r mu_d N
    sol = compile(PreloadedFlywheel()).simulate(1.0, dt=0.01, **TIGHT)
    expected = 0.05 * 0.2 * (EPS + 2.0 / (0.3 * 0.05))  # = (mu_d/mu_s) T_pre + r mu_d eps
    late = sol.t > 0.05
    np.testing.assert_allclose(sol["joint.friction_torque"][late], expected, rtol=1e-7)
    assert expected == pytest.approx(0.2 / 0.3 * 2.0, rel=1e-5)
    # prismatic at constant speed: F = mu_d (F_pre/mu_s + eps) (N = eps + loads + preload)
    model = DrivenSlider(mu_static=0.3, mu_dynamic=0.2, viscous_effects=0.0,
                         stiction_trans_vel=1e-3, force_preload=6.0)
    sol = compile(model).simulate(0.5, dt=0.01, **TIGHT)
    late = sol.t > 0.05
    np.testing.assert_allclose(sol["drive.f"][late], 0.2 * (6.0 / 0.3 + EPS), rtol=1e-7)


# ------------------------------------------------------------------------------------------
# effect and inputs
# ------------------------------------------------------------------------------------------

def steady_force(speed, **joint):
    """Driving force at t = 1.5 s of a block moved at a constant speed (steady sliding: the
    LuGre state settles with the time constant g/(k0 v), 0.05 s at v = 5 mm/s)."""
    sol = compile(DrivenSlider(speed=speed, g=G, **joint)).simulate(1.5, dt=0.01,
                                                                           **TIGHT)
    return sol["drive.f"][-1], sol


LUGRE = {"mu_static": 0.3, "mu_dynamic": 0.2, "stiction_trans_vel": 0.01, "inputs": "0100"}


def test_effect_all_sliding_stiction():
    n = smooth(W)
    v = 0.005  # half the stiction transition velocity: on the Stribeck hump
    g_all = float(lugre_g(v, n, 0.3, 0.2, 0.01))
    f_all, _ = steady_force(v, **LUGRE)
    assert f_all == pytest.approx(g_all + 0.4 * v, rel=1e-6)
    assert f_all > 0.2 * n * 1.3  # clearly above the Coulomb level (hump: 1.39 mu_d N)
    f_sliding, _ = steady_force(v, effect="Sliding", **LUGRE)
    assert f_sliding == pytest.approx(0.2 * n + 0.4 * v, rel=1e-6)  # no Stribeck hump
    f_stiction, _ = steady_force(v, effect="stiction", **LUGRE)
    assert f_stiction == pytest.approx(f_all, rel=1e-9)  # below V_s: the full law
    f_above, sol = steady_force(0.05, effect="Stiction", **LUGRE)
    assert f_above == 0.0 and np.all(sol["joint.friction_force"][sol.t > 0] == 0.0)


def test_other_laws():
    n = smooth(W)
    f, _ = steady_force(2e-3, law="coulomb", **LUGRE)  # tanh, v_reg = 1e-3
    assert f == pytest.approx(float(coulomb(2e-3, 0.2 * n, "tanh", 1e-3)), rel=1e-9)
    f, _ = steady_force(2e-3, law="coulomb", regularization="linear", **LUGRE)
    assert f == pytest.approx(0.2 * n, rel=1e-9)
    f, _ = steady_force(0.01, law="stribeck", viscous_effects=0.4, **LUGRE)
    assert f == pytest.approx(float(stribeck_simscape(0.01, 0.3 * n, 0.2 * n, 0.4, 0.01)),
                              rel=1e-9)
    # inputs NONE: no friction at all (and no LuGre state)
    f, _ = steady_force(0.01, inputs="NONE")
    assert f == 0.0
    cs = compile(DrivenSlider(inputs="NONE"))
    assert "joint.bristle" not in cs.variable_names()
    assert "joint.bristle" in compile(DrivenSlider()).state_names


def test_inputs_select_the_normal_force_terms():
    common = {"law": "coulomb", "regularization": "linear", "mu_static": 0.3,
              "mu_dynamic": 0.2, "force_preload": 3.0}
    n_r = smooth(W)
    cases = {"1000": EPS + 3.0 / 0.3, "0100": n_r, "1100": n_r + 3.0 / 0.3, 12: n_r + 3.0 / 0.3,
             ("reaction_force", "preload"): n_r + 3.0 / 0.3, "0001": None}
    for inputs, expected in cases.items():
        f, sol = steady_force(0.5, inputs=inputs, **common)
        if expected is None:  # torsional only: no planar counterpart, no friction
            assert f == 0.0
            continue
        np.testing.assert_allclose(sol["joint.normal_force"], expected, rtol=1e-12)
        assert f == pytest.approx(0.2 * expected, rel=1e-9)
    # bending moment: a torque M on the block is carried as a force pair M/X_s
    model = DrivenSlider(speed=0.5, g=G, torque=40.0, inputs="0110",
                         initial_overlap=0.2, **{k: v for k, v in common.items()
                                                 if k != "force_preload"})
    sol = compile(model).simulate(0.5, dt=0.01, **TIGHT)
    np.testing.assert_allclose(sol["joint.m_bending"], 40.0, rtol=1e-12)
    np.testing.assert_allclose(sol["joint.normal_force"], n_r + smooth(40.0 / 0.2) - EPS,
                               rtol=1e-12)
    # overlap_delta: the overlap follows s - s(0)
    for mode, sign in (("Increase", 1.0), ("Decrease", -1.0), ("Constant", 0.0)):
        model = DrivenSlider(speed=0.5, torque=40.0, inputs="0010", initial_overlap=0.5,
                             overlap_delta=mode, **{k: v for k, v in common.items()
                                                    if k != "force_preload"})
        sol = compile(model).simulate(0.5, dt=0.01, **TIGHT)
        x_s = 0.5 + sign * 0.5 * sol.t
        np.testing.assert_allclose(sol["joint.overlap"], x_s, rtol=1e-9)
        np.testing.assert_allclose(sol["joint.normal_force"], smooth(40.0 / x_s), rtol=1e-9)


# ------------------------------------------------------------------------------------------
# the friction-reaction loop is solved inside the DAE
# ------------------------------------------------------------------------------------------

def pendulum(law):
    class Pendulum(Component):
        """Point mass 2 kg on a 1 m rod, pin friction; the radial load depends on the angular
        acceleration, which depends on the friction torque: an algebraic loop."""

        world = World(g=G)  # the torque balance below uses G
        fixed = Fixed()
        joint = RevoluteWithFriction(law=law, pin_radius=0.05, mu_static=0.3, mu_dynamic=0.2,
                                     viscous_effects=0.0, stiction_trans_vel=1e-3, v_reg=1e-3,
                                     phi=Variable(start=-0.3, fixed=True),
                                     w=Variable(start=0.0, fixed=True))
        arm = BodyShape(r=[1.0, 0.0], r_CM=[1.0, 0.0], m=2.0, I=0.0)

        def connections(self):
            return [connect(self.fixed.frame, self.joint.frame_a),
                    connect(self.joint.frame_b, self.arm.frame_a)]

    return Pendulum()


@pytest.mark.parametrize("law", ["coulomb", "lugre"])
def test_friction_reaction_loop_is_solved_simultaneously(law):
    cs = compile(pendulum(law))
    # the normal force is an ordinary (observed) variable, not a state or a lagged input
    assert "joint.normal_force" in cs.variable_names()
    assert "joint.normal_force" not in cs.state_names
    assert "joint.normal_force" not in cs.parameter_names
    assert not cs.is_ode and cs.algebraic_names  # the loop is torn and solved by IDAS
    sol = cs.simulate(2.0, dt=1e-3, **TIGHT)  # one DAE solve, no iteration outside
    th, w, z = sol["joint.phi"], sol["joint.w"], sol["joint.z"]
    m, length, r = 2.0, 1.0, 0.05
    # Newton-Euler of the point mass: pin force = m a_cm - m g
    fx = m * (-length * z * np.sin(th) - length * w**2 * np.cos(th))
    fy = m * (length * z * np.cos(th) - length * w**2 * np.sin(th)) + m * G
    n = smooth(np.hypot(fx, fy))
    t_f = sol["joint.friction_torque"]
    # the reaction, the friction and the motion agree at every output time (a lagged N would
    # be off by dN/dt * dt ~ 1e-2 N here)
    np.testing.assert_allclose(sol["joint.normal_force"], n, rtol=1e-9)
    np.testing.assert_allclose(m * length**2 * z + m * G * length * np.cos(th) + t_f, 0.0,
                               atol=1e-9)
    if law == "coulomb":
        np.testing.assert_allclose(t_f, r * 0.2 * n * np.tanh(r * w / 1e-3), atol=1e-9)
    assert np.abs(w).max() > 1.0  # it swings
    # with friction the swing decays
    assert th[-500:].max() < -0.3 + 1e-6 and np.ptp(th[-500:]) < np.ptp(th[:1000])


def test_law_expression_uses_the_joint_variables():
    flat = compile(pendulum("coulomb")).equations()
    text = " ".join(str(e) for e in flat)
    assert "joint.normal_force" in text and "joint.f_radial" in text
    assert any(isinstance(e, sp.Equality) and e.has(sp.tanh) for e in flat)
