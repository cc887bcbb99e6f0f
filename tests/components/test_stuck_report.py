"""The stuck-joint report (acausal.run.stuck_report, docs/joint_friction.md "Stuck joints"): a
friction joint that stays stuck through a whole run while it holds a load gets a
SimulationWarning naming it, with the largest friction it could hold against the largest load
it held; a joint that slips, or one stuck with nothing to hold, gets none.

One model per dimension: the newcomer's 3-D arm on MotionSolve's default 1 mm arms (issue 40),
a planar pendulum on a preloaded pin, 1-D stick/slip elements (translational and rotational),
a 3-D ball joint (its travel integrated from the slip) and a regularised Coulomb slider.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
import sympy as sp
from joint_rigs import LoadedJoint

import acausal.components.planar as pl
from acausal import Component, Discrete, StuckMonitor, Variable, compile, connect, der
from acausal.components import rotational as rot
from acausal.components import translational as tr
from acausal.components.friction import BearingFriction, GroundFriction
from acausal.components.joint_friction import STUCK_TRAVEL_BRISTLES
from acausal.components.multibody import Body, BodyBox, Fixed, World
from acausal.components.multibody.coulomb_joint_friction import (
    STUCK_TRAVEL,
    PrismaticWithCoulombFriction,
)
from acausal.components.multibody.joint_friction import RevoluteWithFriction, SphericalWithFriction
from acausal.errors import ModelDefinitionError, SimulationWarning
from acausal.run.stuck_report import HEADLINE

TILT = 0.05  # rad: the arm's axis leans this far from the vertical (world y)
G = 9.80665


class NewcomersArm(Component):
    """Issue 40's arm: a 9.6 kg box (0.6 x 0.1 x 0.1 m, 1600 kg/m3) on a 3-D
    RevoluteWithFriction with MotionSolve's defaults (LuGre, mu_static 0.3, pin_radius,
    friction_arm and bending_reaction_arm 1 mm), the pin 0.17 m from the box's end, its axis
    tilted from the vertical, released at 1.2 rad. The weight bends the pin: about 12 N m
    over the 1 mm bending_reaction_arm is a normal force of about 12 kN, and the friction
    holds the small torque gravity has about the tilted axis."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.fixed = Fixed()
        self.arm_joint = RevoluteWithFriction(n=(np.sin(TILT), np.cos(TILT), 0.0), phi=1.2)
        self.arm = BodyBox(r=(0.43, 0.0, 0.0), r_shape=(-0.17, 0.0, 0.0), width=0.1,
                           height=0.1, density=1600.0)

    def connections(self):
        return [connect(self.fixed.frame_b, self.arm_joint.frame_a),
                connect(self.arm_joint.frame_b, self.arm.frame_a)]


def run(system, t_end: float, **options):
    """(solution, the SimulationWarnings of the run)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sol = system.simulate(t_end, **options)
    return sol, [w for w in caught if issubclass(w.category, SimulationWarning)]


def reported(message: str, quantity: str) -> tuple[float, float]:
    """(capacity, held) as the report states them."""
    unit = "N.m" if quantity == "torque" else "N"
    found = re.search(rf"the largest friction {quantity} it could hold was ([-\d.e+]+) "
                      rf"{re.escape(unit)}, against at most ([-\d.e+]+) {re.escape(unit)}",
                      message)
    assert found, message
    return float(found.group(1)), float(found.group(2))


@pytest.fixture(scope="module")
def arm():
    return compile(NewcomersArm())


def test_the_newcomers_arm_is_reported(arm):
    sol, caught = run(arm, 5.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"{HEADLINE}: RevoluteWithFriction 'arm_joint' stayed stuck for "
                              "the whole run (0 to 5 s)")
    # the numbers are the run's: mu_static N R_p against the friction torque, at their largest
    j = "arm_joint"
    capacity = np.max(sol[f"{j}.mu_static"] * sol[f"{j}.normal_force"] * sol[f"{j}.pin_radius"])
    held = np.max(np.abs(sol[f"{j}.friction_torque"]))
    assert reported(message, "torque") == pytest.approx((capacity, held), rel=1e-3)
    assert held < capacity
    # the arm hardly moved, and the normal force is the bending moment over the 1 mm arm
    assert abs(sol[f"{j}.phi"][-1] - 1.2) < 0.05
    assert np.max(sol[f"{j}.normal_force"]) > 1e4
    assert np.max(sol[f"{j}.n_bending"]) > 0.95 * np.max(sol[f"{j}.normal_force"])
    bending = re.search(r"bending moment / bending_reaction_arm (\d+) N", message)
    assert bending and float(bending.group(1)) == pytest.approx(
        np.max(sol[f"{j}.n_bending"]), abs=0.5)
    assert "bending_reaction_arm" in message and "stuck_report=False" in message
    # the warning points at the caller's line, not into acausal
    assert caught[0].filename == __file__


def test_the_report_can_be_switched_off(arm):
    _, caught = run(arm, 5.0, stuck_report=False)
    assert caught == []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", HEADLINE, SimulationWarning)
        arm.simulate(5.0)
    assert caught == []
    with pytest.raises(Exception, match="stuck_report must be True or False"):
        arm.simulate(1.0, stuck_report="no")


def test_the_arm_on_a_real_bearing_slips_and_is_not_reported(arm):
    """A bearing 50 mm long (bending_reaction_arm) without end-face thrust (friction_arm 0):
    the normal force drops by 50x, the friction no longer holds the arm, which turns."""
    sol, caught = run(arm, 5.0, params={"arm_joint.bending_reaction_arm": 0.05,
                                        "arm_joint.friction_arm": 0.0})
    assert caught == []
    assert abs(sol["arm_joint.phi"][-1] - 1.2) > 0.5


# ------------------------------------------------------------------------------------------
# planar: a pendulum on a preloaded pin
# ------------------------------------------------------------------------------------------

class PlanarPendulum(Component):
    """A 1 kg mass 0.5 m from the pin (its weight 4.9 N m about it when horizontal) on a planar
    RevoluteWithFriction with a torque preload, released horizontal."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = pl.World()
        self.fixed = pl.Fixed()
        self.pin = pl.RevoluteWithFriction(torque_preload=10.0, pin_radius=0.01,
                                           phi=Variable(start=0.0, fixed=True))
        self.rod = pl.FixedTranslation(r=[0.5, 0.0])
        self.body = pl.Body(m=1.0, I=0.0)

    def connections(self):
        return [connect(self.fixed.frame, self.pin.frame_a),
                connect(self.pin.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.body.frame_a)]


def test_a_planar_pin_holding_its_pendulum_is_reported_and_a_swinging_one_not():
    cs = compile(PlanarPendulum())
    sol, caught = run(cs, 2.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "RevoluteWithFriction 'pin' stayed stuck for the whole run (0 to 2 s)" in message
    capacity = np.max(0.3 * sol["pin.normal_force"] * 0.01)
    held = np.max(np.abs(sol["pin.friction_torque"]))
    assert reported(message, "torque") == pytest.approx((capacity, held), rel=1e-3)
    # at the end the friction carries the weight's torque; at most, its ringing overshoots it
    weight = 1.0 * G * 0.5
    assert abs(sol["pin.friction_torque"][-1]) == pytest.approx(weight, rel=1e-2)
    assert weight < held < capacity
    moved = re.search(r"it moved by at most ([-\d.e+]+) rad", message)
    assert moved and float(moved.group(1)) == pytest.approx(np.max(np.abs(sol["pin.phi"])),
                                                             rel=1e-3)
    # a small preload: the pendulum swings down, nothing is reported
    sol, caught = run(cs, 2.0, params={"pin.torque_preload": 0.01})
    assert caught == [] and np.min(sol["pin.phi"]) < -1.0


# ------------------------------------------------------------------------------------------
# 1-D: the exact stick/slip elements
# ------------------------------------------------------------------------------------------

class Block(Component):
    """A 1 kg block on GroundFriction (static friction 3 N, kinetic 2 N) pushed by a constant
    force; ``v0 > 0`` starts it sliding forward."""

    def __init__(self, push=1.0, v0=0.0, **kw):
        super().__init__(**kw)
        self.mass = tr.Mass(m=1.0, v=Variable(start=v0))
        self.friction = GroundFriction(F_Coulomb=2.0, peak=1.5,
                                       mode=Discrete(start=1.0 if v0 > 0 else 0.0))
        self.push = tr.ConstantForce(f_constant=push)

    def connections(self):
        return [connect(self.mass.flange_a, self.friction.flange),
                connect(self.push.flange, self.mass.flange_b)]


class Shaft(Component):
    """An inertia in a BearingFriction (static torque 2 N m) under a constant torque."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.inertia = rot.Inertia(J=0.1)
        self.bearing = BearingFriction(F_Coulomb=2.0)
        self.drive = rot.ConstantTorque(tau_constant=1.5)

    def connections(self):
        return [connect(self.inertia.flange_a, self.bearing.flange),
                connect(self.drive.flange, self.inertia.flange_b)]


def test_a_stuck_block_is_reported_a_sliding_or_unloaded_one_not():
    cs = compile(Block())
    sol, caught = run(cs, 1.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "GroundFriction 'friction' stayed stuck for the whole run" in message
    assert reported(message, "force") == pytest.approx((3.0, 1.0), rel=1e-6)
    assert np.all(sol["friction.mode"] == 0)
    _, caught = run(cs, 1.0, params={"push.f_constant": 0.0})  # nothing to hold
    assert caught == []
    # unpushed, started sliding at 1 m/s, it stops after 0.5 s and sticks: not for the
    # whole run
    sol, caught = run(compile(Block(push=0.0, v0=1.0)), 1.0)
    assert caught == [] and sol["friction.mode"][-1] == 0 and sol["mass.s"][-1] > 0.2


def test_a_stuck_bearing_reports_a_torque():
    sol, caught = run(compile(Shaft()), 1.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "BearingFriction 'bearing' stayed stuck" in message
    assert reported(message, "torque") == pytest.approx((2.0, 1.5), rel=1e-6)


# ------------------------------------------------------------------------------------------
# 3-D: a ball joint (slip in 3-D, its travel integrated) and a regularised Coulomb slider
# ------------------------------------------------------------------------------------------

def ball_rig():
    """A SphericalWithFriction (LuGre) under a 100 N radial load: capacity
    mu_static N R_ball = 0.3 N m; a torque about x on the body."""
    joint = SphericalWithFriction(ball_radius=0.01, inputs="0100")
    body = Body(m=1.0, I_11=1e-3, I_22=1e-3, I_33=1e-3)
    return compile(LoadedJoint(joint, body, F=(0.0, 100.0, 0.0), M=(0.1, 0.0, 0.0)))


def test_a_ball_joint_that_holds_is_reported_one_that_turns_not():
    cs = ball_rig()
    sol, caught = run(cs, 1.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "SphericalWithFriction 'joint' stayed stuck" in message
    capacity, held = reported(message, "torque")
    assert capacity == pytest.approx(np.max(0.3 * 0.01 * sol["joint.normal_force"]), rel=1e-3)
    # the largest load is the overshoot when the torque comes on at once
    torque = np.linalg.norm(sol["joint.friction_torque"], axis=0)
    assert held == pytest.approx(np.max(torque), rel=1e-3) and held > 0.1
    assert torque[-1] == pytest.approx(0.1, rel=1e-2)
    # the integrated surface travel stayed within the bound the report uses
    slip = 0.01 * sol["joint.w_rel"]
    bound = STUCK_TRAVEL_BRISTLES * 1e-5  # max_stiction_deform binds: mu_s N / k0 = 3e-4 m
    travel = np.cumsum(0.5 * (slip[:, 1:] + slip[:, :-1]) * np.diff(sol.t), axis=1)
    assert np.max(np.linalg.norm(travel, axis=0)) < bound
    _, caught = run(cs, 1.0, params={"t[0].k": 0.5})  # above 0.3 N m: it turns
    assert caught == []


def test_a_regularised_coulomb_slider_that_creeps_is_reported_only_while_it_barely_moves():
    """tanh Coulomb friction creeps at v_reg atanh(load/level): a push of 1 % of the level
    (mu N = 50 N) moves it 5e-6 m in 0.5 s (reported); 50 % moves it 2.7e-4 m (not)."""
    joint = PrismaticWithCoulombFriction(n=(1, 0, 0), mu=0.5)
    cs = compile(LoadedJoint(joint, Body(m=1.0), F=(0.5, 100.0, 0.0)))
    sol, caught = run(cs, 0.5)
    assert len(caught) == 1
    assert "PrismaticWithCoulombFriction 'joint' stayed stuck" in str(caught[0].message)
    assert reported(str(caught[0].message), "force") == pytest.approx(
        (np.max(0.5 * sol["joint.normal_force"]), 0.5), rel=1e-3)
    sol, caught = run(cs, 0.5, params={"f[0].k": 25.0})
    assert caught == [] and sol["joint.s"][-1] > STUCK_TRAVEL


# ------------------------------------------------------------------------------------------
# several joints, and the declaration's checks
# ------------------------------------------------------------------------------------------

class TwoBlocks(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.left = Block()
        self.right = Block(push=2.0)


def test_several_stuck_joints_make_one_warning_naming_each():
    _, caught = run(compile(TwoBlocks()), 1.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert message.startswith(f"{HEADLINE}: 2 friction contacts stayed stuck")
    assert "GroundFriction 'left.friction'" in message
    assert "GroundFriction 'right.friction'" in message


class Monitored(Component):
    """A mass on a spring, pushed by 1 N (at rest at s = 1), with the monitor ``build(self)``
    given by the test."""

    def __init__(self, build, **kw):
        super().__init__(**kw)
        self._build = build
        self.mass = tr.Mass(m=1.0, s=Variable(start=1.0), v=Variable(start=0.0))
        self.spring = tr.Spring(c=1.0)
        self.fixed = tr.Fixed()
        self.push = tr.ConstantForce(f_constant=1.0)

    def connections(self):
        return [connect(self.fixed.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.push.flange, self.mass.flange_b)]

    def monitors(self):
        return self._build(self)


@pytest.mark.parametrize("build, match", [
    (lambda c: [object()], r"Monitored '<root>'.monitors\(\) returned"),
    (lambda c: [StuckMonitor("moment", c.mass.v, 1.0, 1.0, 0.0)], "quantity='moment'"),
    (lambda c: [StuckMonitor("force", c.mass.v, 1.0, 1.0, 0.0, travel=[c.mass.s, c.mass.s])],
     "travel has 2 components and slip 1"),
    (lambda c: [StuckMonitor("force", "not an expression(", 1.0, 1.0, 0.0)], "slip="),
    (lambda c: [StuckMonitor("force", der(c.mass.s), 1.0, 1.0, 0.0)], "contains der"),
    (lambda c: [StuckMonitor("force", c.mass.v, 1.0, 1.0, sp.Symbol("elsewhere.f"))],
     "reads elsewhere.f, which are not variables or parameters of the model"),
])
def test_a_wrong_monitor_is_named_when_the_model_is_compiled(build, match):
    with pytest.raises(ModelDefinitionError, match=match):
        compile(Monitored(build))


def test_any_component_may_declare_a_monitor():
    """The spring 'holds' the pushed mass (capacity 2 N, its force the load): at rest at
    s = 1 it is reported with the spring's force; started at s = 0.5 the mass oscillates
    (its speed passes the 1e-9 m/s limit) and nothing is reported."""
    def build(c):
        return [StuckMonitor("force", c.mass.v, 1e-9, 2.0, c.spring.f, advice="push harder",
                             details=(("stretch", c.spring.s_rel, "m"),))]

    cs = compile(Monitored(build))
    _, caught = run(cs, 1.0)
    assert len(caught) == 1
    message = str(caught[0].message)
    assert reported(message, "force") == pytest.approx((2.0, 1.0), rel=1e-6)
    assert "largest normal force" not in message and "largest stretch 1 m" in message
    assert "To let it slip: push harder." in message
    _, caught = run(cs, 1.0, start={"mass.s": 0.5})
    assert caught == []
