"""Exact stick/slip friction (``acausal.components.friction``) against closed-form solutions.

* Mass on a belt moving at constant speed, held by a spring to a wall (classic stick-slip):
  stuck phases follow the belt (``x = x0 + v_b t``) while ``|k x| <= F_s``; the slip phases are
  harmonic about ``F_c/k``; event times and trajectories are derived in closed form below.
* A mass with ground friction pulled through a spring by a prescribed sinusoidal position
  (kinematic source): the mass stops, sticks and breaks away in the other direction; reference =
  piecewise closed-form solution (forced harmonic oscillator while sliding, rest while stuck),
  switching times found by bisection on the closed forms.
* Joint friction inside a kinematic loop: a slider-crank (planar library) with stick/slip
  friction in the crank-rod revolute, whose speed is a dummy derivative (not a state). It
  slides to rest: energy + friction work is conserved, it then stays stuck.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Variable, compile, connect, time
from acausal.components import rotational, translational
from acausal.components.friction import (
    BearingFriction,
    Friction,
    GroundFriction,
    RotationalFriction,
)
from acausal.components.planar.joints import Prismatic, Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation
from acausal.components.sources import TranslationalPosition, TranslationalSpeed

TIGHT = {"rtol": 1e-12, "atol": 1e-14}


def bisect(g, a, b, tol=1e-15):
    """Root of g in [a, b] (g(a), g(b) of opposite signs)."""
    ga = g(a)
    while b - a > tol * max(1.0, abs(b)):
        m = 0.5 * (a + b)
        gm = g(m)
        if (gm > 0) == (ga > 0):
            a, ga = m, gm
        else:
            b = m
    return 0.5 * (a + b)


def first_root(g, t_a, t_end, h=1e-3):
    """First sign change of g after t_a (scan with step h, then bisection); None if none."""
    t, g0 = t_a, g(t_a)
    while t < t_end:
        t1 = min(t + h, t_end)
        g1 = g(t1)
        if (g1 > 0) != (g0 > 0):
            return bisect(g, t, t1)
        t, g0 = t1, g1
    return None


# ---------------------------------------------------------------------------------------------
# mass on a belt
# ---------------------------------------------------------------------------------------------

M, K, VB, FS, FC = 1.0, 4.0, 0.5, 1.0, 0.6


class BeltOscillator(Component):
    """Wall -- spring -- mass, the mass lying on a belt moving at VB (friction between them)."""

    wall = translational.Fixed()
    spring = translational.Spring(c=K)
    mass = translational.Mass(m=M, s=Variable(start=0.0, fixed=True),
                              v=Variable(start=VB, fixed=True))
    belt = TranslationalSpeed(v_ref=VB)
    friction = Friction(F_Coulomb=FC, peak=FS / FC)

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.belt.flange, self.friction.flange_a),
                connect(self.friction.flange_b, self.mass.flange_b)]


def belt_exact():
    """(switching times up to 10 s, x(t), v(t)) of the belt oscillator.

    Stuck at x = 0 at t = 0 (moves with the belt): the spring force k x reaches F_s at
    x_b = F_s/k, t_1 = x_b/v_b. Slipping backwards relative to the belt, the kinetic friction
    +F_c acts on the mass: m x'' = -k x + F_c, harmonic about x_e = F_c/k with amplitude
    A = x_b - x_e and x'(0) = v_b, i.e. x = x_e + (R/w) sin(w tau + phi), R = hypot(A w, v_b),
    phi = atan2(A w, v_b). The slip ends when x' = v_b again: w tau = 2 pi - 2 phi, at
    x = x_e - A = 2 x_e - x_b, where |k x| <= F_s: stuck again, for 2 (F_s - F_c)/(k v_b).
    """
    w = math.sqrt(K / M)
    xe, xb = FC / K, FS / K
    amp = xb - xe
    r, phi = math.hypot(amp * w, VB), math.atan2(amp * w, VB)
    t_stick0, t_slip = xb / VB, (2 * math.pi - 2 * phi) / w
    t_stick = 2 * (FS - FC) / (K * VB)
    period = t_slip + t_stick
    times = [t_stick0]
    while times[-1] + period < 10.0:
        times += [times[-1] + t_slip, times[-1] + period]
    if times[-1] + t_slip < 10.0:
        times.append(times[-1] + t_slip)

    def state(t):
        if t < t_stick0:
            return VB * t, VB
        tau = (t - t_stick0) % period
        if tau < t_slip:
            return xe + r / w * math.sin(w * tau + phi), r * math.cos(w * tau + phi)
        return 2 * xe - xb + VB * (tau - t_slip), VB

    return times, state


@pytest.fixture(scope="module")
def belt_solution():
    return compile(BeltOscillator()).simulate(10.0, dt=0.01, **TIGHT)


def test_belt_event_times_are_analytic(belt_solution):
    sol = belt_solution
    times, _ = belt_exact()
    assert len(times) == 7  # stick, slip, stick, slip, stick, slip, stick, slip
    # mode changes: breakaway (slide backwards relative to the belt, event 5 of the stick/slip
    # clauses) and re-sticking (the backward slide stops, event 3); nothing else fires (the
    # stop conditions are gated by the mode: none fires at a breakaway)
    changes = [t for t, labels in sol.events
               if any("event 3" in lab or "event 5" in lab for lab in labels)]
    np.testing.assert_allclose(changes, times, rtol=0, atol=2e-9)
    assert [t for t, _ in sol.events] == changes
    assert all(lab.endswith("'friction'") for _, labs in sol.events for lab in labs)


def test_belt_trajectory_is_analytic(belt_solution):
    sol = belt_solution
    _, state = belt_exact()
    exact = np.array([state(t) for t in sol.t])
    np.testing.assert_allclose(sol["mass.s"], exact[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["mass.v"], exact[:, 1], rtol=0, atol=1e-9)
    stuck = sol["friction.mode"] == 0
    # while stuck the mass moves exactly with the belt and the friction force is what the
    # spring needs (f = -k x acts on the belt side; |f| <= F_s)
    # (v_rel is held at its value at the located stop event: |a_rel| times the event time
    # tolerance 1e-12 max(1, t), i.e. below 1e-11 here)
    np.testing.assert_allclose(sol["mass.v"][stuck], VB, rtol=0, atol=1e-11)
    np.testing.assert_allclose(sol["friction.f"][stuck], -K * sol["mass.s"][stuck], atol=1e-9)
    assert np.all(np.abs(sol["friction.f"][stuck]) <= FS + 1e-12)
    # while slipping backwards the kinetic friction is -F_c
    np.testing.assert_allclose(sol["friction.f"][sol["friction.mode"] == -1], -FC, atol=1e-12)
    assert set(np.unique(sol["friction.mode"])) == {0.0, -1.0}


# ---------------------------------------------------------------------------------------------
# prescribed position: reversal through the stuck mode
# ---------------------------------------------------------------------------------------------

A, OMEGA, K2, M2, FC2, FS2 = 2.0, 0.5, 1.0, 1.0, 0.5, 0.8
T_END2 = 25.0


class PulledMass(Component):
    """Position source A sin(OMEGA t) -- spring -- mass with stick/slip ground friction."""

    source = TranslationalPosition(s_ref=A * sp.sin(OMEGA * time))
    spring = translational.Spring(c=K2)
    mass = translational.Mass(m=M2, s=Variable(start=0.0, fixed=True),
                              v=Variable(start=0.0, fixed=True))
    friction = GroundFriction(F_Coulomb=FC2, peak=FS2 / FC2)

    def connections(self):
        return [connect(self.source.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.friction.flange, self.mass.flange_b)]


def pulled_exact(t_end):
    """Segments [(t_start, t_stop, mode, x(t), v(t))] of the pulled mass, in closed form.

    Spring force on the mass F(t) = k (A sin(W t) - x). Stuck at x_s: until |F| > F_s, then it
    slides with mode s = sign(F). Sliding: m x'' = k (A sin(W t) - x) - s F_c, so
    x = P sin(W t) - s F_c/k + C1 cos(w0 (t - t_s)) + C2 sin(w0 (t - t_s)), P = k A/(k - m W^2),
    w0 = sqrt(k/m), C1, C2 from x(t_s), v(t_s) = 0. The slide ends when v = 0; the mass then
    sticks, or slides on the other way at once if |F| > F_s there.
    """
    w0, p = math.sqrt(K2 / M2), K2 * A / (K2 - M2 * OMEGA**2)
    segments = []
    t, x, v, mode = 0.0, 0.0, 0.0, 0
    while t < t_end:
        if mode == 0:
            x_s = x

            def g(tt, x_s=x_s):
                return abs(K2 * (A * math.sin(OMEGA * tt) - x_s)) - FS2
            t_next = first_root(g, t, t_end)
            t_next = t_end if t_next is None else t_next
            segments.append((t, t_next, 0, lambda tt, x_s=x_s: x_s, lambda tt: 0.0))
            force = K2 * (A * math.sin(OMEGA * t_next) - x_s)
            t, mode = t_next, (1 if force > 0 else -1)
            continue
        s, t_s = mode, t
        c1 = x - (p * math.sin(OMEGA * t_s) - s * FC2 / K2)
        c2 = (v - p * OMEGA * math.cos(OMEGA * t_s)) / w0

        def xf(tt, s=s, t_s=t_s, c1=c1, c2=c2):
            return p * math.sin(OMEGA * tt) - s * FC2 / K2 + c1 * math.cos(w0 * (tt - t_s)) \
                + c2 * math.sin(w0 * (tt - t_s))

        def vf(tt, t_s=t_s, c1=c1, c2=c2):
            return p * OMEGA * math.cos(OMEGA * tt) - c1 * w0 * math.sin(w0 * (tt - t_s)) \
                + c2 * w0 * math.cos(w0 * (tt - t_s))
        t_next = first_root(vf, t_s + 1e-3, t_end)
        t_next = t_end if t_next is None else t_next
        segments.append((t_s, t_next, s, xf, vf))
        x, v, t = xf(t_next), 0.0, t_next
        force = K2 * (A * math.sin(OMEGA * t) - x)
        mode = (1 if force > 0 else -1) if abs(force) > FS2 else 0
    return segments


def test_prescribed_position_reverses_through_stuck():
    cs = compile(PulledMass())
    assert "friction.v_rel" not in cs.state_names
    sol = cs.simulate(T_END2, dt=0.01, **TIGHT)
    segments = pulled_exact(T_END2)
    modes = [s[2] for s in segments]
    # the mass reverses through the stuck mode: at 4.45 s and 9.23 s the spring force exceeds
    # the static friction when the mass stops (stuck for an instant only: event iteration),
    # at 15.8 s it stays stuck until 17.0 s
    assert modes == [0, 1, -1, 1, 0, -1, 1]
    switch_times = [s[1] for s in segments[:-1]]
    event_times = np.array([t for t, _ in sol.events])
    for t_sw in switch_times:
        assert np.min(np.abs(event_times - t_sw)) < 1e-8, t_sw
    x_exact, v_exact = np.empty_like(sol.t), np.empty_like(sol.t)
    mode_exact = np.empty_like(sol.t)
    for k, tk in enumerate(sol.t):
        seg = next(s for s in segments if s[0] <= tk <= s[1])
        x_exact[k], v_exact[k], mode_exact[k] = seg[3](tk), seg[4](tk), seg[2]
    np.testing.assert_allclose(sol["mass.s"], x_exact, rtol=0, atol=1e-8)
    np.testing.assert_allclose(sol["mass.v"], v_exact, rtol=0, atol=1e-8)
    inside = np.array([all(abs(tk - tw) > 1e-6 for tw in switch_times) for tk in sol.t])
    np.testing.assert_array_equal(sol["friction.mode"][inside], mode_exact[inside])
    stuck = sol["friction.mode"] == 0
    # stuck: the friction force balances the spring (the mass feels -f and -spring.f)
    assert stuck.sum() > 50
    np.testing.assert_allclose(sol["friction.f"][stuck], -sol["spring.f"][stuck], atol=1e-9)


# ---------------------------------------------------------------------------------------------
# joint friction in a kinematic loop (velocity not a state)
# ---------------------------------------------------------------------------------------------

F_JOINT = 0.1
E0 = 0.5 * 0.1 * 2.5**2  # kinetic energy at the start (only the drive body rotates)


class FrictionSliderCrank(Component):
    """The PistonEngine slider-crank (tests/validation/test_pistonengine.py) with stick/slip
    friction in the crank-rod revolute. Gravity does no work (drive body on the axis, piston
    horizontal), so the kinetic energy decreases by exactly the friction work F_c |d phi|."""

    fixed = Fixed()
    revoluteDrive = Revolute(phi=Variable(start=0.0, fixed=True, state_priority=100),
                             w=Variable(start=-2.5, fixed=True, state_priority=100))
    bodyDrive = Body(m=1.0, I=0.1)
    fixedTranslationDisc = FixedTranslation(r=[0.3, 0.0])
    revoluteDisc = Revolute(use_axis_flange=True, phi=Variable(start=0.0))
    pistonRod = FixedTranslation(r=[0.8, 0.0])
    revolutePiston = Revolute()
    bodyPiston = Body(m=3.0, I=0.1)
    prismatic = Prismatic(r=[1.0, 0.0], s=Variable(start=0.0))
    fixed1 = Fixed()
    # the crank-rod angle increases while the drive turns backwards: start sliding forward
    friction = BearingFriction(F_Coulomb=F_JOINT, mode=1.0)

    def connections(self):
        return [connect(self.fixed.frame, self.revoluteDrive.frame_a),
                connect(self.revoluteDrive.frame_b, self.fixedTranslationDisc.frame_a),
                connect(self.revoluteDrive.frame_b, self.bodyDrive.frame_a),
                connect(self.fixedTranslationDisc.frame_b, self.revoluteDisc.frame_a),
                connect(self.revoluteDisc.frame_b, self.pistonRod.frame_a),
                connect(self.pistonRod.frame_b, self.revolutePiston.frame_b),
                connect(self.revolutePiston.frame_a, self.prismatic.frame_a),
                connect(self.prismatic.frame_a, self.bodyPiston.frame_a),
                connect(self.prismatic.frame_b, self.fixed1.frame),
                connect(self.friction.flange, self.revoluteDisc.flange_a)]


def kinetic_energy(sol):
    energy = 0.0
    for body, m, inertia in (("bodyDrive", 1.0, 0.1), ("bodyPiston", 3.0, 0.1)):
        energy = energy + 0.5 * m * (sol[f"{body}.v[0]"] ** 2 + sol[f"{body}.v[1]"] ** 2) \
            + 0.5 * inertia * sol[f"{body}.w"] ** 2
    return energy


def test_friction_on_a_joint_whose_speed_is_a_dummy_derivative():
    cs = compile(FrictionSliderCrank())
    assert set(cs.state_names) == {"revoluteDrive.phi", "revoluteDrive.w"}
    assert "revoluteDisc.w" in {cs.system.name(v) for v in cs.dummies}
    sol = cs.simulate(5.0, dt=0.01, rtol=1e-10, atol=1e-12)
    # one event: the joint stops (v_rel crosses zero while sliding forward: clause 2, after the
    # initial() clause 1) and sticks
    assert len(sol.events) == 1 and "event 2" in sol.events[0][1][0]
    t_stop = sol.events[0][0]
    assert 3.0 < t_stop < 4.5
    slide = sol.t < t_stop
    np.testing.assert_array_equal(sol["friction.mode"], np.where(slide, 1.0, 0.0))
    # energy balance: E(t) + F_c |phi_disc(t) - phi_disc(0)| = E0 (Coulomb friction work)
    work = F_JOINT * np.abs(sol["revoluteDisc.phi"] - sol["revoluteDisc.phi"][0])
    np.testing.assert_allclose(kinetic_energy(sol) + work, E0, rtol=0, atol=1e-8)
    # at rest the whole mechanism is locked: all energy went into friction
    assert work[-1] == pytest.approx(E0, abs=1e-8)
    rest = sol.t > t_stop + 1e-9
    assert np.abs(sol["revoluteDrive.w"][rest]).max() < 1e-12
    np.testing.assert_allclose(sol["revoluteDrive.phi"][rest], sol["revoluteDrive.phi"][-1],
                               atol=1e-12)
    assert np.abs(sol["friction.f"][rest]).max() < 1e-9  # no load: no holding torque needed


def test_rotational_friction_between_two_inertias():
    """Two inertias coupled by a clutch-like RotationalFriction: the fast one drags the slow one
    (kinetic torque F_c); once the speeds are equal they stick and turn together."""

    class Clutch(Component):
        a = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=3.0, fixed=True))
        b = rotational.Inertia(J=2.0, phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=0.0, fixed=True))
        clutch = RotationalFriction(F_Coulomb=1.5, peak=1.2, mode=-1.0)

        def connections(self):
            return [connect(self.a.flange_b, self.clutch.flange_a),
                    connect(self.clutch.flange_b, self.b.flange_a)]

    sol = compile(Clutch()).simulate(3.0, dt=0.01, **TIGHT)
    # w_rel = w_b - w_a < 0: torque 1.5 decelerates a (1.5 rad/s2) and accelerates b (0.75);
    # equal speeds when 3 - 1.5 t = 0.75 t: t = 4/3, common speed 1 (momentum 3 / J 3)
    assert len(sol.events) == 1 and sol.events[0][0] == pytest.approx(4.0 / 3.0, abs=1e-10)
    t = sol.t
    np.testing.assert_allclose(sol["a.w"], np.where(t < 4 / 3, 3 - 1.5 * t, 1.0), atol=1e-10)
    np.testing.assert_allclose(sol["b.w"], np.where(t < 4 / 3, 0.75 * t, 1.0), atol=1e-10)
    np.testing.assert_allclose(sol["clutch.f"][t > 4 / 3 + 1e-9], 0.0, atol=1e-10)



# ---------------------------------------------------------------------------------------------
# two elements stuck on one speed (stuck_creep)
# ---------------------------------------------------------------------------------------------


class TwoBearings(Component):
    """Two bearing frictions (Coulomb 0.5 and 0.3 N.m, peak 1) on one inertia (J = 1) driven by
    a torque ramp tau = t: held by the two together until t = 0.8 (the sum of their static
    friction), then w' = t - 0.8, w = (t - 0.8)^2/2. b2 creeps while stuck (stuck_creep): with
    both held exactly the two equations a = 0 for one speed leave the split open."""

    inertia = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
    drive = rotational.Torque()
    b1 = BearingFriction(F_Coulomb=0.5)
    b2 = BearingFriction(F_Coulomb=0.3, stuck_creep=1e-10)

    def equations(self):
        return [Eq(self.drive.tau, 1.0 * time)]

    def connections(self):
        return [connect(self.drive.flange, self.inertia.flange_a),
                connect(self.b1.flange, self.inertia.flange_a),
                connect(self.b2.flange, self.inertia.flange_b)]


def test_two_elements_stuck_on_one_speed_hold_the_sum_of_their_static_friction():
    sol = compile(TwoBearings()).simulate(2.0, dt=0.01, rtol=1e-10, atol=1e-12)
    t, w = np.asarray(sol.t), np.asarray(sol["inertia.w"])
    held = t < 0.8
    # held: the speed only creeps, below stuck_creep times the time (1e-10 rad/s2 at most)
    assert np.max(np.abs(w[held])) <= 1e-10 * 0.8
    # b1 (held exactly) takes the load until its static friction, then b2 (creeping) the rest
    np.testing.assert_allclose(sol["b1.f"][held] + sol["b2.f"][held], t[held], atol=1e-9)
    # both slide forward from t = 0.8 (the load's sum of static friction 0.5 + 0.3)
    moving = t > 0.8 + 1e-6
    assert np.all(sol["b1.mode"][moving] == 1) and np.all(sol["b2.mode"][moving] == 1)
    np.testing.assert_allclose(w[moving], (t[moving] - 0.8) ** 2 / 2, atol=1e-8)


def test_without_creep_two_stuck_elements_are_an_error_that_names_it():
    from acausal.errors import SimulationError

    with pytest.raises(SimulationError, match="b2.stuck_creep"):
        compile(TwoBearings()).simulate(2.0, dt=0.01, params={"b2.stuck_creep": 0.0})
