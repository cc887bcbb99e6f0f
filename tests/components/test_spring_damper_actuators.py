"""Spring-damper-actuators TSDA and RSDA (Nikravesh's notes, seed 002) of the planar and the 3-D
library, against analytic solutions:

* a mass on an inclined guide (planar: in the plane; 3-D: along (1, 2, 2)/3) held by a TSDA
  from a fixed point on the guide line, with gravity: period 2 pi sqrt(m/k) (measured from the
  zero crossings), with exact Coulomb friction (``regularization="event"``) turning points at
  the analytic half periods and an amplitude decrement of exactly 4 f_F/k per cycle, with a
  damper the analytic damped solution;
* two free masses joined by a TSDA oscillate with the reduced mass (this loads frame_a's side)
  and keep their momentum;
* a body on a revolute joint (3-D: axis (1, 2, 2), not a principal axis) with an RSDA: period
  2 pi sqrt(J/k_theta), also for swings beyond +-pi (no wrapping), decrement 4 T_F/k_theta; two
  bodies with the reduced inertia;
* actuator functions: static deflection F0/k, the response to a ramp a t, an actuator
  linear in (l, l_dot) equal to a stiffer, damped element;
* errors of the acausal family for bad options and parameters; a sticking element with exact
  Coulomb friction chatters (SimulationError), as documented.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import (
    Component,
    ModelDefinitionError,
    ParameterError,
    SimulationError,
    Variable,
    compile,
    connect,
)
from acausal.components import multibody as mb
from acausal.components.multibody import spring_damper_actuators as sda3
from acausal.components.planar import joints as pj
from acausal.components.planar import parts as pp
from acausal.components.planar import spring_damper_actuators as sda2

TIGHT = {"rtol": 1e-10, "atol": 1e-12}

M, K, L0, D0 = 2.0, 50.0, 1.0, 1.0   # mass [kg], stiffness [N/m], l0 [m], anchor distance [m]
OMEGA = math.sqrt(K / M)
PERIOD = 2 * math.pi / OMEGA
S0 = 0.2                              # start position on the guide [m]

ANGLE = 0.6                           # planar guide direction [rad]
E2 = np.array([math.cos(ANGLE), math.sin(ANGLE)])
G2 = 9.81
N3 = np.array([1.0, 2.0, 2.0]) / 3.0  # 3-D guide direction (|(1, 2, 2)| = 3)
G3 = 9.80665


def s_equilibrium(g_along: float, f_const: float = 0.0) -> float:
    """Rest position on the guide: k (D0 + s - L0) + f_const = m g_along."""
    return L0 - D0 + (M * g_along - f_const) / K


S_EQ2 = s_equilibrium(-G2 * E2[1])
S_EQ3 = s_equilibrium(-G3 * N3[1])


# ------------------------------------------------------------------------------------------
# models
# ------------------------------------------------------------------------------------------

class PlanarSlider(Component):
    """Body on a planar prismatic guide along E2 (through the origin), TSDA from the fixed
    point -D0*E2 on the guide line: l = D0 + s."""

    def __init__(self, s0=S0, **tsda):
        super().__init__()
        self.world = pp.World(g=G2)
        self.guide = pp.Fixed(r=[0.0, 0.0])
        self.anchor = pp.Fixed(r=list(-D0 * E2))
        self.joint = pj.Prismatic(r=list(E2), s=Variable(start=s0, fixed=True),
                                  v=Variable(start=0.0, fixed=True))
        self.body = pp.Body(m=M, I=0.1)
        self.tsda = sda2.TSDA(k=K, l0=L0, **tsda)

    def connections(self):
        return [connect(self.guide.frame, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a),
                connect(self.anchor.frame, self.tsda.frame_a),
                connect(self.tsda.frame_b, self.body.frame_a)]


class SpatialSlider(Component):
    """Body on a 3-D prismatic guide along N3 (from the world origin), TSDA from the fixed
    point -D0*N3: l = D0 + s; gravity along -y."""

    def __init__(self, s0=S0, k=K, **tsda):
        super().__init__()
        self.world = mb.World()
        self.anchor = mb.Fixed(r=tuple(-D0 * N3))
        self.joint = mb.Prismatic(n=(1.0, 2.0, 2.0), s=Variable(start=s0, fixed=True),
                                  v=Variable(start=0.0, fixed=True))
        self.body = mb.Body(m=M, r_CM=(0.0, 0.0, 0.0))
        self.tsda = sda3.TSDA(k=k, l0=L0, **tsda)

    def connections(self):
        return [connect(self.world.frame_b, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a),
                connect(self.anchor.frame_b, self.tsda.frame_a),
                connect(self.tsda.frame_b, self.body.frame_a)]


M1, M2 = 1.5, 3.0   # two free masses
MU = M1 * M2 / (M1 + M2)
L_START = 1.3       # start length of the TSDA between them (l0 = L0)


class PlanarPair(Component):
    """Two free planar bodies, no gravity, joined by a TSDA along the direction E2."""

    def __init__(self):
        super().__init__()
        self.world = pp.World(g=0.0)
        rest = {"fixed": True}
        self.body1 = pp.Body(m=M1, I=0.1, r=Variable(start=[0.0, 0.0], **rest),
                             v=Variable(start=[0.0, 0.0], **rest),
                             phi=Variable(start=0.0, **rest), w=Variable(start=0.0, **rest))
        self.body2 = pp.Body(m=M2, I=0.1, r=Variable(start=list(L_START * E2), **rest),
                             v=Variable(start=[0.0, 0.0], **rest),
                             phi=Variable(start=0.0, **rest), w=Variable(start=0.0, **rest))
        self.tsda = sda2.TSDA(k=K, l0=L0)

    def connections(self):
        return [connect(self.body1.frame_a, self.tsda.frame_a),
                connect(self.tsda.frame_b, self.body2.frame_a)]


class SpatialPair(Component):
    """Two free point masses, no gravity, joined by a TSDA along N3."""

    def __init__(self):
        super().__init__()
        self.world = mb.World(gravity_type="NoGravity")
        rest = {"fixed": True}
        self.mass1 = mb.PointMass(m=M1, r_0=Variable(start=[0.0, 0.0, 0.0], **rest),
                                  v_0=Variable(start=[0.0, 0.0, 0.0], **rest))
        self.mass2 = mb.PointMass(m=M2, r_0=Variable(start=list(L_START * N3), **rest),
                                  v_0=Variable(start=[0.0, 0.0, 0.0], **rest))
        self.tsda = sda3.TSDA(k=K, l0=L0)

    def connections(self):
        return [connect(self.mass1.frame_a, self.tsda.frame_a),
                connect(self.tsda.frame_b, self.mass2.frame_a)]


KT = 3.0                              # k_theta [N.m/rad]
I3 = (0.1, 0.2, 0.3)                  # principal inertias of the 3-D rotor [kg.m2]
J3 = (1 * I3[0] + 4 * I3[1] + 4 * I3[2]) / 9.0   # about the axis (1, 2, 2)/3
J2 = 0.25                             # planar rotor inertia [kg.m2]


class SpatialRotor(Component):
    """Body (centre of mass on the axis) on a revolute about (1, 2, 2); RSDA across the joint."""

    def __init__(self, phi0=0.0, w0=0.0, n=(1.0, 2.0, 2.0), **rsda):
        super().__init__()
        self.world = mb.World()
        self.joint = mb.Revolute(n=(1.0, 2.0, 2.0), phi=Variable(start=phi0, fixed=True),
                                 w=Variable(start=w0, fixed=True))
        self.body = mb.Body(m=3.0, r_CM=(0.0, 0.0, 0.0), I_11=I3[0], I_22=I3[1], I_33=I3[2])
        self.rsda = sda3.RSDA(n=n, k_theta=KT, **rsda)

    def connections(self):
        return [connect(self.world.frame_b, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a),
                connect(self.joint.frame_a, self.rsda.frame_a),
                connect(self.joint.frame_b, self.rsda.frame_b)]


class PlanarRotor(Component):
    """Planar body (centre of mass at the pivot) on a revolute; RSDA across the joint."""

    def __init__(self, phi0=0.0, w0=0.0, **rsda):
        super().__init__()
        self.world = pp.World(g=9.81)
        self.ground = pp.Fixed(r=[0.3, -0.2])
        self.joint = pj.Revolute(phi=Variable(start=phi0, fixed=True),
                                 w=Variable(start=w0, fixed=True))
        self.body = pp.Body(m=2.0, I=J2)
        self.rsda = sda2.RSDA(k_theta=KT, **rsda)

    def connections(self):
        return [connect(self.ground.frame, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a),
                connect(self.joint.frame_a, self.rsda.frame_a),
                connect(self.joint.frame_b, self.rsda.frame_b)]


JA3, JB3 = J3, 2.0 * J3               # the two 3-D rotors (body B: inertias doubled)
JA2, JB2 = 0.25, 0.4


class SpatialTwoRotors(Component):
    """Body A on a revolute (axis (1, 2, 2)) from the world, body B on a second revolute (same
    axis) from body A; the RSDA across the second joint loads both bodies."""

    def __init__(self, theta0):
        super().__init__()
        self.world = mb.World()
        self.joint1 = mb.Revolute(n=(1.0, 2.0, 2.0), phi=Variable(start=0.0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.body_a = mb.Body(m=1.0, I_11=I3[0], I_22=I3[1], I_33=I3[2])
        self.joint2 = mb.Revolute(n=(1.0, 2.0, 2.0), phi=Variable(start=theta0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.body_b = mb.Body(m=1.0, I_11=2 * I3[0], I_22=2 * I3[1], I_33=2 * I3[2])
        self.rsda = sda3.RSDA(n=(1.0, 2.0, 2.0), k_theta=KT)

    def connections(self):
        return [connect(self.world.frame_b, self.joint1.frame_a),
                connect(self.joint1.frame_b, self.body_a.frame_a),
                connect(self.body_a.frame_a, self.joint2.frame_a),
                connect(self.joint2.frame_b, self.body_b.frame_a),
                connect(self.joint2.frame_a, self.rsda.frame_a),
                connect(self.joint2.frame_b, self.rsda.frame_b)]


class PlanarTwoRotors(Component):
    """The planar twin of :class:`SpatialTwoRotors`."""

    def __init__(self, theta0):
        super().__init__()
        self.world = pp.World(g=0.0)
        self.ground = pp.Fixed()
        self.joint1 = pj.Revolute(phi=Variable(start=0.0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.body_a = pp.Body(m=1.0, I=JA2)
        self.joint2 = pj.Revolute(phi=Variable(start=theta0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.body_b = pp.Body(m=1.0, I=JB2)
        self.rsda = sda2.RSDA(k_theta=KT)

    def connections(self):
        return [connect(self.ground.frame, self.joint1.frame_a),
                connect(self.joint1.frame_b, self.body_a.frame_a),
                connect(self.body_a.frame_a, self.joint2.frame_a),
                connect(self.joint2.frame_b, self.body_b.frame_a),
                connect(self.joint2.frame_a, self.rsda.frame_a),
                connect(self.joint2.frame_b, self.rsda.frame_b)]


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------

def measured_period(system, coordinate: str, rate: str, x_ref: float, t_cross: np.ndarray,
                    **simulate) -> float:
    """The period of ``coordinate - x_ref`` from its upward zero crossings: the solution is
    sampled at the analytic crossing times ``t_cross`` and each crossing is located by one
    Newton step ``t - x/x_dot`` (exact to second order in the sampling offset, and the
    curvature vanishes at a crossing of a harmonic oscillation)."""
    sol = system.simulate(float(t_cross[-1]), t_eval=np.concatenate([[0.0], t_cross]),
                          **TIGHT, **simulate)
    x = sol[coordinate][1:] - x_ref
    crossings = t_cross - x / sol[rate][1:]
    return float((crossings[-1] - crossings[0]) / (len(crossings) - 1))


def run_error_bound(sol, state: str, steps: float, growth: float = 1.0) -> float:
    """The most a run at TIGHT may be off in ``state`` (an integrator state): CVODE holds each
    step's local error to atol + rtol |x|, and the global error is at most their sum over the
    run's steps (``steps``: more than it takes, which is fewer than its right-hand-side
    evaluations; an undamped oscillation keeps every error it is given), times the ``growth``
    of an unstable mode over the run."""
    return growth * steps * (TIGHT["atol"] + TIGHT["rtol"] * np.max(np.abs(sol[state])))


def damped(e0: float, m: float, k: float, c: float, t: np.ndarray) -> np.ndarray:
    """m e'' + c e' + k e = 0, e(0) = e0, e'(0) = 0 (underdamped)."""
    wn = math.sqrt(k / m)
    zeta = c / (2.0 * math.sqrt(k * m))
    wd = wn * math.sqrt(1.0 - zeta**2)
    return e0 * np.exp(-zeta * wn * t) * (np.cos(wd * t) + zeta * wn / wd * np.sin(wd * t))


SLIDERS = {"planar": (PlanarSlider, S_EQ2), "3-D": (SpatialSlider, S_EQ3)}


# ------------------------------------------------------------------------------------------
# TSDA
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("library", list(SLIDERS))
def test_tsda_mass_on_an_inclined_guide_has_the_analytic_period(library):
    model, s_eq = SLIDERS[library]
    system = compile(model())
    # e = (S0 - s_eq) cos(OMEGA t): upward zero crossings at 3/4 T + n T
    t_cross = PERIOD * (0.75 + np.arange(4))
    period = measured_period(system, "joint.s", "joint.v", s_eq, t_cross)
    assert period == pytest.approx(PERIOD, rel=1e-6)
    assert abs(period / PERIOD - 1) < 1e-8  # measured: a few 1e-10
    sol = system.simulate(PERIOD, t_eval=[0.0, PERIOD / 2, PERIOD], **TIGHT)
    e0 = S0 - s_eq
    # one period takes fewer than 500 steps (at most 400 right-hand sides): 3.3e-8, 3.7e-8
    # (measured 4.8e-9 at rtol 0.8e-10 .. 1.3e-10); 1 % more stiffness moves the points by 5e-3
    np.testing.assert_allclose(sol["joint.s"] - s_eq, [e0, -e0, e0], rtol=0,
                               atol=run_error_bound(sol, "joint.s", 500))
    # the element's own view: its length and tension
    np.testing.assert_allclose(sol["tsda.length"], D0 + sol["joint.s"], rtol=1e-12)
    np.testing.assert_allclose(sol["tsda.f"], K * (sol["tsda.length"] - L0), rtol=1e-12)


@pytest.mark.parametrize("library", list(SLIDERS))
def test_tsda_exact_coulomb_friction_decrement_is_4_fF_over_k_per_cycle(library):
    model, s_eq = SLIDERS[library]
    f_F = 1.0
    system = compile(model(f_F=f_F, regularization="event"))
    half = PERIOD / 2
    n_half = 6   # |e| goes 0.42 -> 0.18 (> f_F/k = 0.02: still moving, never sticks)
    sol = system.simulate((n_half + 0.5) * half, t_eval=half * np.arange(n_half + 1), **TIGHT)
    # the turning points are the analytic half periods (friction does not change the period)
    # and the sign switches (events) happen there
    event_times = np.array([t for t, _ in sol.events])
    np.testing.assert_allclose(event_times, half * np.arange(1, n_half + 1), rtol=1e-9)
    np.testing.assert_allclose(sol["joint.v"], 0.0, atol=1e-8)
    amplitude = np.abs(sol["joint.s"] - s_eq)
    decrement = amplitude[:-2:2] - amplitude[2::2]   # per full cycle
    expected = 4 * f_F / K
    np.testing.assert_allclose(decrement, expected, rtol=1e-6)
    # the friction force is in the tension with the sign of l_dot
    sol_mid = system.simulate(0.25 * PERIOD, t_eval=[0.0, 0.25 * PERIOD], **TIGHT)
    assert sol_mid["tsda.length_dot"][-1] < -1.0
    assert sol_mid["tsda.f"][-1] == pytest.approx(K * (sol_mid["tsda.length"][-1] - L0) - f_F,
                                                  rel=1e-12)


@pytest.mark.parametrize("library", list(SLIDERS))
def test_tsda_damper_gives_the_analytic_damped_oscillation(library):
    model, s_eq = SLIDERS[library]
    c = 3.0
    system = compile(model(c=c))
    t = np.linspace(0.0, 3 * PERIOD, 61)
    sol = system.simulate(float(t[-1]), t_eval=t, **TIGHT)
    e0 = S0 - s_eq
    np.testing.assert_allclose(sol["joint.s"] - s_eq, damped(e0, M, K, c, t), rtol=0,
                               atol=1e-8 * e0)
    # damped period from the zero crossings: 2 pi / (OMEGA sqrt(1 - zeta^2))
    zeta = c / (2 * math.sqrt(K * M))
    wd = OMEGA * math.sqrt(1 - zeta**2)
    # e = 0 where tan(wd t) = -wd/(zeta wn): t_n = (pi - atan(wd/(zeta OMEGA)) + n pi)/wd
    t_zero = (math.pi - math.atan(wd / (zeta * OMEGA)) + 2 * math.pi * np.arange(3)) / wd
    period = measured_period(system, "joint.s", "joint.v", s_eq, t_zero)
    assert period == pytest.approx(2 * math.pi / wd, rel=1e-6)


@pytest.mark.parametrize("model", [PlanarPair, SpatialPair], ids=["planar", "3-D"])
def test_tsda_between_two_free_masses_uses_the_reduced_mass(model):
    system = compile(model())
    omega = math.sqrt(K / MU)
    t = np.linspace(0.0, 2 * 2 * math.pi / omega, 41)
    sol = system.simulate(float(t[-1]), t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["tsda.length"] - L0,
                               (L_START - L0) * np.cos(omega * t), rtol=0, atol=2e-8)
    if model is PlanarPair:
        r1, r2 = sol["body1.r"], sol["body2.r"]
        direction = E2[:, None]
    else:
        r1, r2 = sol["mass1.r_0"], sol["mass2.r_0"]
        direction = N3[:, None]
    # the centre of mass stays put (both frames carry equal and opposite forces) and the
    # masses move along the line
    centre = (M1 * r1 + M2 * r2) / (M1 + M2)
    np.testing.assert_allclose(centre, centre[:, :1] @ np.ones((1, len(t))), atol=1e-10)
    np.testing.assert_allclose(r2 - r1, direction * sol["tsda.length"], atol=1e-10)


# ------------------------------------------------------------------------------------------
# RSDA
# ------------------------------------------------------------------------------------------

ROTORS = {"planar": (PlanarRotor, J2), "3-D": (SpatialRotor, J3)}


@pytest.mark.parametrize("library", list(ROTORS))
def test_rsda_period_without_wrapping_beyond_pi(library):
    model, inertia = ROTORS[library]
    omega = math.sqrt(KT / inertia)
    phi0, w0 = 2.5, 12.0   # amplitude sqrt(phi0^2 + (w0/omega)^2) > pi
    amplitude = math.hypot(phi0, w0 / omega)
    assert amplitude > math.pi + 0.3
    system = compile(model(phi0=phi0, w0=w0))
    # theta = amplitude cos(omega t - delta); upward zero crossings at omega t = delta + 3pi/2
    delta = math.atan2(w0 / omega, phi0)
    t_cross = (delta + 1.5 * math.pi + 2 * math.pi * np.arange(4)) / omega
    period = measured_period(system, "rsda.theta", "rsda.theta_dot", 0.0, t_cross)
    assert period == pytest.approx(2 * math.pi * math.sqrt(inertia / KT), rel=1e-6)
    t = np.linspace(0.0, 2 * 2 * math.pi / omega, 41)
    sol = system.simulate(float(t[-1]), t_eval=t, **TIGHT)
    exact = phi0 * np.cos(omega * t) + w0 / omega * np.sin(omega * t)
    assert np.max(np.abs(exact)) > math.pi + 0.3
    # two periods in fewer than 1e3 steps (at most 740 right-hand sides): 4.3e-7 (measured
    # 7.8e-8 at rtol 0.8e-10 .. 1.3e-10); 1 % more k_theta moves theta by 0.26
    np.testing.assert_allclose(sol["rsda.theta"], exact, rtol=0,
                               atol=run_error_bound(sol, "joint.phi", 1e3))
    np.testing.assert_allclose(sol["rsda.theta"], sol["joint.phi"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["rsda.tau"], KT * sol["rsda.theta"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("library", list(ROTORS))
def test_rsda_exact_coulomb_friction_decrement_is_4_TF_over_k_per_cycle(library):
    model, inertia = ROTORS[library]
    T_F, phi0 = 0.05, 1.0
    system = compile(model(phi0=phi0, T_F=T_F, regularization="event"))
    half = math.pi * math.sqrt(inertia / KT)
    n_half = 6   # 1.0 -> 0.9 (>> T_F/k_theta = 0.017)
    sol = system.simulate((n_half + 0.5) * half, t_eval=half * np.arange(n_half + 1), **TIGHT)
    np.testing.assert_allclose([t for t, _ in sol.events], half * np.arange(1, n_half + 1),
                               rtol=1e-9)
    amplitude = np.abs(sol["rsda.theta"])
    decrement = amplitude[:-2:2] - amplitude[2::2]
    expected = 4 * T_F / KT
    np.testing.assert_allclose(decrement, expected, rtol=1e-6)


@pytest.mark.parametrize("model, j_a, j_b", [(PlanarTwoRotors, JA2, JB2),
                                             (SpatialTwoRotors, JA3, JB3)],
                         ids=["planar", "3-D"])
def test_rsda_between_two_rotors_uses_the_reduced_inertia(model, j_a, j_b):
    theta0 = 0.4
    system = compile(model(theta0))
    omega = math.sqrt(KT * (j_a + j_b) / (j_a * j_b))
    t = np.linspace(0.0, 2 * 2 * math.pi / omega, 41)
    sol = system.simulate(float(t[-1]), t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["rsda.theta"], theta0 * np.cos(omega * t), rtol=0,
                               atol=2e-8)
    # angular momentum about the axis stays zero: j_a w1 + j_b (w1 + w2) = 0
    w1, w2 = sol["joint1.w"], sol["joint2.w"]
    np.testing.assert_allclose(j_a * w1 + j_b * (w1 + w2), 0.0, atol=1e-9)


def test_rsda_3d_starts_at_the_initial_relative_angle():
    for phi0 in (-2.9, 0.7, 3.0):
        sol = compile(SpatialRotor(phi0=phi0)).simulate(1e-3, t_eval=[0.0], **TIGHT)
        assert sol["rsda.theta"][0] == pytest.approx(phi0, abs=1e-12)


# ------------------------------------------------------------------------------------------
# actuators
# ------------------------------------------------------------------------------------------

def test_constant_actuator_force_gives_the_static_deflection():
    f0 = 7.0
    s_eq = s_equilibrium(-G3 * N3[1], f0)   # shifted by -F0/k: the actuator pulls together
    system = compile(SpatialSlider(s0=s_eq, f_act=lambda length, length_dot, t: f0))
    sol = system.simulate(1.0, n_points=11, **TIGHT)
    np.testing.assert_allclose(sol["joint.s"], s_eq, rtol=0, atol=1e-10)
    # the tension carries the weight along the guide (negative: the element pushes up)
    np.testing.assert_allclose(sol["tsda.f"], -M * G3 * N3[1], rtol=1e-9)


def test_time_dependent_actuator_force_gives_the_analytic_response():
    a = 4.0  # f_act = a t [N]
    system = compile(SpatialSlider(s0=S_EQ3, f_act=lambda length, length_dot, t: a * t))
    t = np.linspace(0.0, 2 * PERIOD, 31)
    sol = system.simulate(float(t[-1]), t_eval=t, **TIGHT)
    exact = -(a / K) * (t - np.sin(OMEGA * t) / OMEGA)   # m e'' + k e = -a t, at rest
    # two periods in fewer than 1e3 steps (at most 590 right-hand sides): 4.7e-8 (measured
    # 1e-9 at rtol 0.8e-10 .. 1.3e-10); 1 % more force moves s by 2e-3
    np.testing.assert_allclose(sol["joint.s"] - S_EQ3, exact, rtol=0,
                               atol=run_error_bound(sol, "joint.s", 1e3))


def test_actuator_of_length_and_rate_acts_as_a_spring_and_damper():
    k2, c2 = 30.0, 2.0   # f_act = k2 (l - l0) + c2 l_dot: a stiffer, damped element
    def actuator(length, length_dot, t):
        return k2 * (length - L0) + c2 * length_dot

    system = compile(PlanarSlider(f_act=actuator))
    s_eq = L0 - D0 + M * (-G2 * E2[1]) / (K + k2)
    t = np.linspace(0.0, 2.0, 41)
    sol = system.simulate(2.0, t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["joint.s"] - s_eq, damped(S0 - s_eq, M, K + k2, c2, t),
                               rtol=0, atol=1e-8)


def test_actuator_torque_gives_the_static_deflection():
    t0 = 0.6   # T_act = t0: theta at rest = -t0/k_theta
    for model in (PlanarRotor, SpatialRotor):
        system = compile(model(phi0=-t0 / KT, T_act=lambda th, th_dot, t: t0))
        sol = system.simulate(1.0, n_points=6, **TIGHT)
        np.testing.assert_allclose(sol["rsda.theta"], -t0 / KT, rtol=0, atol=1e-10)
        np.testing.assert_allclose(sol["rsda.tau"], 0.0, atol=1e-10)


def test_an_element_with_an_actuator_function_derives_its_own_equations():
    assert sda2.TSDA().shares_equations and sda3.RSDA().shares_equations
    assert not sda2.TSDA(f_act=lambda length, length_dot, t: length).shares_equations
    assert not sda3.RSDA(T_act=lambda th, th_dot, t: th).shares_equations


# ------------------------------------------------------------------------------------------
# regularised Coulomb terms
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("regularization", ["tanh", "linear"])
def test_regularised_coulomb_terms_approach_the_exact_decrement(regularization):
    f_F = 1.0
    system = compile(PlanarSlider(f_F=f_F, regularization=regularization, v_reg=1e-4))
    sol = system.simulate(PERIOD, t_eval=[0.0, PERIOD], **TIGHT)
    decrement = np.abs(sol["joint.s"][0] - S_EQ2) - np.abs(sol["joint.s"][1] - S_EQ2)
    assert decrement == pytest.approx(4 * f_F / K, rel=1e-3)
    # and the force law is acausal.library.friction.coulomb's
    mid = system.simulate(0.25 * PERIOD, t_eval=[0.0, 0.25 * PERIOD], **TIGHT)
    v = mid["tsda.length_dot"][-1]
    assert v < -1.0
    level = np.tanh(v / 1e-4) if regularization == "tanh" else np.sign(v)
    assert mid["tsda.f"][-1] == pytest.approx(K * (mid["tsda.length"][-1] - L0) + f_F * level,
                                              rel=1e-12)


def test_exact_coulomb_friction_chatters_when_the_element_sticks():
    # f_F/k = 0.2 m: after the first half swing (|e| = 0.46 - 0.4 = 0.06 < 0.2) it sticks
    system = compile(SpatialSlider(f_F=10.0, regularization="event"))
    with pytest.raises(SimulationError, match="[Cc]hattering") as info:
        system.simulate(2 * PERIOD, n_points=41, **TIGHT)
    stuck = info.value.solution
    assert stuck is not None and stuck.t[-1] < PERIOD / 2 + 1e-6


# ------------------------------------------------------------------------------------------
# errors and parameter bounds
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [sda2.TSDA, sda3.TSDA, sda2.RSDA, sda3.RSDA],
                         ids=["planar TSDA", "3-D TSDA", "planar RSDA", "3-D RSDA"])
def test_bad_options_are_refused_when_the_element_is_created(cls):
    name = cls.__name__
    with pytest.raises(ParameterError, match=rf"{name}: regularization must be one of"):
        cls(regularization="sign")
    with pytest.raises(ParameterError, match=rf"{name}: regularization"):
        cls(regularization=None)
    fn = "f_act" if name == "TSDA" else "T_act"
    with pytest.raises(ParameterError, match=rf"{name}: {fn} must be None or a function"):
        cls(**{fn: 3.0})


def test_negative_damping_or_friction_is_refused_naming_the_parameter():
    with pytest.raises(ParameterError, match=r"'tsda\.c'"):
        compile(PlanarSlider(c=-1.0))
    with pytest.raises(ParameterError, match=r"'tsda\.f_F'"):
        compile(SpatialSlider(f_F=-0.5))
    with pytest.raises(ParameterError, match=r"'rsda\.T_F'"):
        compile(PlanarRotor(T_F=-0.1))
    system = compile(SpatialRotor())
    with pytest.raises(ParameterError, match=r"'rsda\.c_theta'"):
        system.simulate(0.1, params={"rsda.c_theta": -1.0})


def test_a_negative_stiffness_is_a_legitimate_element():
    # k < 0: the rest position is unstable, e = e0 cosh(sqrt(|k|/m) t)
    k = -20.0
    s_eq = L0 - D0 + M * (-G3 * N3[1]) / k
    system = compile(SpatialSlider(s0=s_eq + 0.01, k=k))
    t = np.linspace(0.0, 0.5, 11)
    sol = system.simulate(0.5, t_eval=t, **TIGHT)
    # fewer than 200 steps (at most 110 right-hand sides), errors in s (0.66 m: the
    # tolerance's scale, not the 0.01 m deviation) grown by the unstable mode, by at most
    # exp(sqrt(|k|/m) 0.5 s) = 4.9: 6.8e-8 (measured 4.2e-10 at rtol 0.8e-10 .. 1.3e-10);
    # 1 % more |k| moves s by 1.8e-4
    growth = math.exp(math.sqrt(-k / M) * 0.5)
    np.testing.assert_allclose(sol["joint.s"] - s_eq, 0.01 * np.cosh(math.sqrt(-k / M) * t),
                               rtol=0, atol=run_error_bound(sol, "joint.s", 200, growth))


def test_a_failing_actuator_function_is_reported_with_the_element_path():
    def bad(length, length_dot, t):
        return math.sin(t)   # math on a sympy symbol: TypeError

    with pytest.raises(ModelDefinitionError, match=r"TSDA 'tsda': f_act\(q, q_dot, t\) failed"):
        compile(PlanarSlider(f_act=bad))
    with pytest.raises(ModelDefinitionError, match=r"RSDA 'rsda'.*scalar sympy expression"):
        compile(PlanarRotor(T_act=lambda th, th_dot, t: sp.Matrix([th, th])))


def test_a_zero_axis_is_refused_naming_the_element():
    with pytest.raises(ParameterError, match=r"RSDA 'rsda'.*non-zero"):
        compile(SpatialRotor(n=(0.0, 0.0, 0.0)))


CYL_PHI0 = 0.8


class CylindricalMount(Component):
    """Body on a cylindrical joint along (1, 2, 2): a TSDA from a fixed point on the axis and an
    RSDA across the joint (its frames' origins move apart: it transmits no force)."""

    def __init__(self):
        super().__init__()
        self.world = mb.World()
        self.anchor = mb.Fixed(r=tuple(-D0 * N3))
        fixed = {"fixed": True}
        self.joint = mb.Cylindrical(n=(1.0, 2.0, 2.0), s=Variable(start=S0, **fixed),
                                    v=Variable(start=0.0, **fixed),
                                    phi=Variable(start=CYL_PHI0, **fixed),
                                    w=Variable(start=0.0, **fixed))
        self.body = mb.Body(m=M, I_11=I3[0], I_22=I3[1], I_33=I3[2])
        self.tsda = sda3.TSDA(k=K, l0=L0)
        self.rsda = sda3.RSDA(n=(1.0, 2.0, 2.0), k_theta=KT)

    def connections(self):
        return [connect(self.world.frame_b, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a),
                connect(self.anchor.frame_b, self.tsda.frame_a),
                connect(self.tsda.frame_b, self.body.frame_a),
                connect(self.joint.frame_a, self.rsda.frame_a),
                connect(self.joint.frame_b, self.rsda.frame_b)]


def test_tsda_and_rsda_on_a_cylindrical_joint_act_independently():
    system = compile(CylindricalMount())
    t = np.linspace(0.0, 2.0, 21)
    sol = system.simulate(2.0, t_eval=t, **TIGHT)
    # fewer than 600 steps (at most 550 right-hand sides): 4.4e-8 in s, 4.9e-8 in theta
    # (measured 9.3e-9 and 2.1e-9 at rtol 0.8e-10 .. 1.3e-10); 1 % more k or k_theta moves
    # them by 1.8e-2 and 2.3e-2
    np.testing.assert_allclose(sol["joint.s"] - S_EQ3, (S0 - S_EQ3) * np.cos(OMEGA * t),
                               rtol=0, atol=run_error_bound(sol, "joint.s", 600))
    np.testing.assert_allclose(sol["rsda.theta"], CYL_PHI0 * np.cos(math.sqrt(KT / J3) * t),
                               rtol=0, atol=run_error_bound(sol, "joint.phi", 600))


class CarriedRotor(Component):
    """A rotor on a revolute about (1, 0, 1), carried by a body that turns about the world's y
    axis; an RSDA across the rotor's joint and a TSDA from a fixed point to the rotor: a
    spatial motion in which frame_a of the RSDA turns about another axis than n."""

    def __init__(self):
        super().__init__()
        fixed = {"fixed": True}
        self.world = mb.World()
        self.joint1 = mb.Revolute(n=(0.0, 1.0, 0.0), phi=Variable(start=0.2, **fixed),
                                  w=Variable(start=2.0, **fixed))
        self.carrier = mb.Body(m=2.0, r_CM=(0.3, 0.0, 0.0), I_11=0.02, I_22=0.05, I_33=0.04)
        self.arm = mb.FixedTranslation(r=(0.5, 0.0, 0.0))
        self.joint2 = mb.Revolute(n=(1.0, 0.0, 1.0), phi=Variable(start=-0.4, **fixed),
                                  w=Variable(start=-3.0, **fixed))
        # principal moments 0.0092, 0.025, 0.0308: a real mass distribution (with I_33 = 0.02
        # the largest, 0.0308, exceeded the sum of the other two, refused for a body that
        # turns about two axes)
        self.rotor = mb.Body(m=1.0, r_CM=(0.0, 0.2, 0.0), I_11=0.01, I_22=0.03, I_33=0.025,
                             I_21=0.004)
        self.anchor = mb.Fixed(r=(0.0, 1.0, 0.3))
        self.rsda = sda3.RSDA(n=(1.0, 0.0, 1.0), k_theta=KT, theta0=0.3)
        self.tsda = sda3.TSDA(k=K, l0=0.5)

    def connections(self):
        return [connect(self.world.frame_b, self.joint1.frame_a),
                connect(self.joint1.frame_b, self.carrier.frame_a),
                connect(self.carrier.frame_a, self.arm.frame_a),
                connect(self.arm.frame_b, self.joint2.frame_a),
                connect(self.joint2.frame_b, self.rotor.frame_a),
                connect(self.joint2.frame_a, self.rsda.frame_a),
                connect(self.joint2.frame_b, self.rsda.frame_b),
                connect(self.anchor.frame_b, self.tsda.frame_a),
                connect(self.tsda.frame_b, self.rotor.frame_a)]


def test_3d_elements_in_spatial_motion_keep_the_energy_and_follow_the_joint_angle():
    from acausal.components.multibody.energy import mechanical_energy

    model = CarriedRotor()
    system = compile(model)
    sol = system.simulate(2.0, n_points=101, **TIGHT)
    # theta integrates n . (w_b - w_a) although frame_a turns about y: it is the joint angle
    np.testing.assert_allclose(sol["rsda.theta"], sol["joint2.phi"], rtol=0, atol=1e-9)
    assert np.ptp(sol["joint2.phi"]) > 1.0 and np.ptp(sol["joint1.phi"]) > 1.0
    energy = (mechanical_energy(sol, system, [model.carrier, model.rotor])
              + 0.5 * KT * (sol["rsda.theta"] - 0.3) ** 2
              + 0.5 * K * (sol["tsda.length"] - 0.5) ** 2)
    assert np.ptp(energy) < 1e-8 * np.max(np.abs(energy))
