"""CoordinateSpringDamperExt (Exudyn's ObjectConnectorCoordinateSpringDamperExt): the
regularised Stribeck case against the formula evaluated independently, the bristle stick/slip
automaton against an event sequence derived by hand (piecewise-linear ODEs solved in closed
form), limit-stop entry/exit times against the analytic contact oscillation, and the options
(user function, activeConnector, factors, rotational twin).

Reference: ``shared/docs/friction_models.md`` section 2 (Exudyn v1.11 source restated).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, ModelDefinitionError, Variable, compile, connect, time
from acausal.components import rotational
from acausal.components.coordinate_spring_damper import (
    CoordinateSpringDamperExt,
    RotationalCoordinateSpringDamperExt,
)
from acausal.components.translational import Fixed, Force, Mass

TIGHT = dict(rtol=1e-10, atol=1e-12)


def mass_on_csd(csd, q0=0.0, v0=0.0, f_ext=None, m=1.0):
    """A mass on flange_b, flange_a fixed at 0, an optional external force f_ext(t) [N]."""

    class MassOnCSD(Component):
        ground = Fixed()
        mass = Mass(m=m, s=Variable(start=q0, fixed=True), v=Variable(start=v0, fixed=True))
        drive = Force()

        def __init__(self, **kw):
            super().__init__(**kw)
            self.csd = csd

        def equations(self):
            return [Eq(self.drive.f, 0 if f_ext is None else f_ext(time))]

        def connections(self):
            return [connect(self.ground.flange, self.csd.flange_a),
                    connect(self.csd.flange_b, self.mass.flange_a),
                    connect(self.drive.flange, self.mass.flange_b)]

    return MassOnCSD()


def event_kinds(sol):
    """The clause numbers (1-based, in declaration order) of the events, in time order."""
    return [int(labs[0].split("event ")[1].split(" ")[0]) for _, labs in sol.events]


# --------------------------------------------------------------------------------------------
# Case 1: regularised Stribeck
# --------------------------------------------------------------------------------------------

def stribeck_reference(v, fD, fSO, fV, v_exp, v_reg):
    """Exudyn's StribeckFunction, written out independently (friction_models.md 2.2)."""
    v = np.asarray(v, float)
    w = np.abs(v) - v_reg
    decay = np.ones_like(v) if v_exp == 0 else np.exp(-np.maximum(w, 0.0) / v_exp)
    sliding = np.sign(v) * (fD + fSO * decay + fV * w)
    return np.where(np.abs(v) <= v_reg, (fD + fSO) * v / v_reg, sliding)


REG = dict(stiffness=1000.0, damping=1.0, fDynamicFriction=5.0, fStaticFrictionOffset=2.0,
           exponentialDecayStatic=0.01, fViscousFriction=0.5, frictionProportionalZone=1e-3)


def test_regularised_force_is_the_exudyn_stribeck_formula():
    sol = compile(mass_on_csd(CoordinateSpringDamperExt(**REG), v0=1.0)).simulate(
        1.0, dt=1e-4, **TIGHT)
    assert sol.events == []  # memoryless: no events
    q, v, f = sol["csd.displacement"], sol["csd.velocity"], sol["csd.force"]
    np.testing.assert_allclose(q, sol["mass.s"], atol=1e-14)
    np.testing.assert_allclose(v, sol["mass.v"], atol=1e-14)
    expected = 1000.0 * q + 1.0 * v + stribeck_reference(v, 5.0, 2.0, 0.5, 0.01, 1e-3)
    np.testing.assert_allclose(f, expected, rtol=1e-12, atol=1e-9)
    # the run visits all branches: sliding both ways and the proportional zone
    assert v.max() > 0.5 and v.min() < -0.05 and np.any(np.abs(v) < 1e-3)
    # m dv/dt = -f_SD (mass on flange_b, flange_a fixed)
    np.testing.assert_allclose(sol["der(mass.v)"], -f, rtol=1e-9, atol=1e-9)


def test_regularised_sliding_against_closed_form():
    """Sliding forward with only f_D and f_V (no spring): m dv/dt = -(f_D + f_V (v - v_reg)),
    so v(t) = (v0 - v_reg + f_D/f_V) exp(-f_V t/m) + v_reg - f_D/f_V while v > v_reg."""
    fD, fV, v_reg, v0 = 2.0, 3.0, 0.01, 1.0
    csd = CoordinateSpringDamperExt(fDynamicFriction=fD, fViscousFriction=fV,
                                    frictionProportionalZone=v_reg)
    sol = compile(mass_on_csd(csd, v0=v0)).simulate(0.2, dt=1e-3, **TIGHT)
    t = sol.t
    v_exact = (v0 - v_reg + fD / fV) * np.exp(-fV * t) + v_reg - fD / fV
    assert v_exact[-1] > v_reg
    np.testing.assert_allclose(sol["mass.v"], v_exact, atol=1e-9)


def test_regularised_parameters_are_tunable_without_recompiling():
    cs = compile(mass_on_csd(CoordinateSpringDamperExt(**REG), v0=1.0))
    sol = cs.simulate(0.05, dt=1e-3, params={"csd.fViscousFriction": 3.0}, **TIGHT)
    v = sol["csd.velocity"]
    expected = 1000.0 * sol["csd.displacement"] + v + stribeck_reference(v, 5, 2, 3.0, 0.01, 1e-3)
    np.testing.assert_allclose(sol["csd.force"], expected, rtol=1e-12, atol=1e-9)


# --------------------------------------------------------------------------------------------
# Case 2: bristle stick/slip, against a hand-derived event sequence
# --------------------------------------------------------------------------------------------

def linear_response(m, c, K, F0, w, C, t_s, y_s, v_s):
    """Closed-form y(t) of ``m y'' + c y' + K y = F0 sin(w t) + C`` with y(t_s) = y_s,
    y'(t_s) = v_s (K > 0, distinct characteristic roots). ``y(t, n)``: n-th derivative."""
    H = F0 / (K - m * w**2 + 1j * c * w)  # complex amplitude of the forced response

    def part(t, n=0):
        return ((1j * w) ** n * H * np.exp(1j * w * t)).imag + (C / K if n == 0 else 0.0)

    disc = np.sqrt(complex(c * c - 4 * m * K))
    r1, r2 = (-c + disc) / (2 * m), (-c - disc) / (2 * m)
    y0, v0 = y_s - part(t_s), v_s - part(t_s, 1)
    B = (v0 - r1 * y0) / (r2 - r1)
    A = y0 - B

    def y(t, n=0):
        t = np.asarray(t, float)
        tau = t - t_s
        return (A * r1**n * np.exp(r1 * tau) + B * r2**n * np.exp(r2 * tau)).real + part(t, n)

    return y


def first_crossing(g, t_a, t_b, h=1e-4):
    """First t in (t_a, t_b] with g(t) > 0 (scan, then bisection to 1e-15 s); None if none."""
    ts = np.append(np.arange(t_a, t_b, h), t_b)
    above = np.nonzero(g(ts[1:]) > 0)[0]
    if above.size == 0:
        return None
    lo, hi = ts[above[0]], ts[above[0] + 1]
    while hi - lo > 1e-15 * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if g(np.array([mid]))[0] > 0 else (mid, hi)
    return hi


def bristle_sequence(m, k, d, fD, fSO, fV, k_mu, d_mu, F0, w, t_end):
    """Hand-derived stick/slip sequence of a mass m on the element (spring k, damper d) under
    f_ext = F0 sin(w t), from rest and stuck at q = 0, with exponentialDecayStatic = 0 (Exudyn:
    exponential term := 1, so the slip force is s (F_s + f_V |v|), F_s = f_D + f_SO).

    * stick: ``m q'' + (d + d_mu) q' + (k + k_mu) q = f_ext + k_mu x_lsp``, bristle force
      ``k_mu (q - x_lsp) + d_mu q'``; breakaway when it leaves [-F_s, F_s], slip in its sign s;
    * slip s: ``m q'' + (d + f_V) q' + k q = f_ext - s F_s`` (s f_V |v| = f_V v), until s v < 0;
      then stick with x_lsp = q - (s F_s - d_mu v)/k_mu (sticking force = last slip force).

    Every phase is a linear ODE with sinusoidal + constant forcing: solved in closed form.
    Returns [(t_event, new_mode)]."""
    Fs = fD + fSO
    t, q, v, mode, x_lsp = 0.0, 0.0, 0.0, 0, 0.0
    out = []
    while True:
        if mode == 0:
            y = linear_response(m, d + d_mu, k + k_mu, F0, w, k_mu * x_lsp, t, q, v)

            def f_stick(tt, y=y, x=x_lsp):
                return k_mu * (y(tt) - x) + d_mu * y(tt, 1)

            t_e = first_crossing(lambda tt, f=f_stick: np.abs(f(tt)) - Fs, t, t_end)
            new = None if t_e is None else (1 if f_stick(np.array([t_e]))[0] > 0 else -1)
        else:
            y = linear_response(m, d + fV, k, F0, w, -mode * Fs, t, q, v)
            t_e = first_crossing(lambda tt, y=y, s=mode: -s * y(tt, 1), t, t_end)
            new = 0
        if t_e is None:
            return out
        q, v = float(y(np.array([t_e]))[0]), float(y(np.array([t_e]), 1)[0])
        if new == 0:
            x_lsp = q - (mode * Fs - d_mu * v) / k_mu
        out.append((t_e, new))
        t, mode = t_e, new


BRISTLE = dict(stiffness=10.0, damping=0.5, fDynamicFriction=3.0, fStaticFrictionOffset=1.0,
               exponentialDecayStatic=0.0, fViscousFriction=2.0, stickingStiffness=1e4,
               stickingDamping=50.0)


def test_stick_slip_event_sequence_is_the_hand_derived_one():
    F0, w = 6.0, 2 * math.pi
    expected = bristle_sequence(1.0, 10.0, 0.5, 3.0, 1.0, 2.0, 1e4, 50.0, F0, w, 2.0)
    # stick -> slip+ -> stick -> slip- -> stick -> ... (8 switches in 2 s)
    assert [mode for _, mode in expected] == [1, 0, -1, 0, 1, 0, -1, 0]
    # quasi-static check of the reference itself: breakaway near F0 sin(w t) = F_s
    assert expected[0][0] == pytest.approx(math.asin(4.0 / F0) / w, abs=2e-3)
    csd = CoordinateSpringDamperExt(**BRISTLE)
    sol = compile(mass_on_csd(csd, f_ext=lambda t: F0 * sp.sin(w * t))).simulate(
        2.0, dt=1e-3, **TIGHT)
    got = [t for t, _ in sol.events]
    # clauses: 1 breakaway +, 2 breakaway -, 3 slip+ reverses, 4 slip- reverses
    assert event_kinds(sol) == [1, 3, 2, 4, 1, 3, 2, 4]
    # an event time is where the forced motion (w = 2 pi rad/s, amplitude A = range q / 2)
    # reaches a threshold: a step's local error atol + rtol A shifts its phase by
    # (atol/A + rtol) rad, i.e. by (atol/A + rtol)/w in time; K = 3e3 >= the run's steps
    # (2.7e3 right-hand sides) of them add up to 6e-8 s (measured: 3.6e-9 at rtol
    # 0.8e-10 .. 1.3e-10). 1 % more of F_s = f_D + f_SO, or of k_mu, moves them by 1e-2 s,
    # 3e-3 s.
    amplitude = np.ptp(sol["mass.s"]) / 2
    bound = 3e3 * (TIGHT["atol"] / amplitude + TIGHT["rtol"]) / w
    np.testing.assert_allclose(got, [t for t, _ in expected], rtol=0, atol=bound)
    # the mode history follows the sequence
    mode = sol["csd.frictionMode"]
    for (t_e, new), (t_next, _) in zip(expected, [*expected[1:], (2.0, None)]):
        inside = (sol.t > t_e + 1e-6) & (sol.t < t_next - 1e-6)
        assert np.all(mode[inside] == new)
    # while stuck the force is the bristle force, while slipping s (F_s + f_V |v|) + k q + d v
    q, v, f = sol["csd.displacement"], sol["csd.velocity"], sol["csd.force"]
    x_lsp = sol["csd.lastStickingPosition"]
    friction = f - 10.0 * q - 0.5 * v
    stuck = mode == 0
    np.testing.assert_allclose(friction[stuck], 1e4 * (q - x_lsp)[stuck] + 50.0 * v[stuck],
                               atol=1e-9)
    assert np.all(np.abs(friction[stuck]) <= 4.0 + 1e-9)
    np.testing.assert_allclose(friction[~stuck], mode[~stuck] * (4.0 + 2.0 * np.abs(v[~stuck])),
                               atol=1e-9)


def test_sticking_force_continues_the_last_slip_force():
    """At a velocity reversal the bristle takes over with the slip force (F_s at v = 0): the
    friction force is continuous there. At breakaway the bristle force is F_s and the slip
    force s (F_s + f_V |v|) (exponentialDecayStatic = 0): it jumps by f_V |v| (Exudyn's law)."""
    F0, w = 6.0, 2 * math.pi
    csd = CoordinateSpringDamperExt(**BRISTLE)
    cs = compile(mass_on_csd(csd, f_ext=lambda t: F0 * sp.sin(w * t)))
    sol = cs.simulate(1.2, dt=1e-3, **TIGHT)
    for t_e, _ in sol.events:
        t = np.array([t_e - 1e-7, t_e + 1e-7])
        s = cs.simulate(t_e + 1e-7, t_eval=np.concatenate([[0.0], np.linspace(0.001, t_e - 2e-3,
                                                                               5), t]), **TIGHT)
        friction = s["csd.force"] - 10.0 * s["csd.displacement"] - 0.5 * s["csd.velocity"]
        mode, v = s["csd.frictionMode"][-1], s["csd.velocity"][-1]
        before = friction[-2]
        assert abs(abs(before) - 4.0) < 1e-4  # at the threshold F_s = f_D + f_SO
        if mode == 0:  # reversal: continuous
            assert abs(friction[-1] - before) < 1e-4 and abs(v) < 1e-5
        else:  # breakaway in the direction of the bristle force
            assert np.sign(before) == mode
            assert friction[-1] == pytest.approx(mode * (4.0 + 2.0 * abs(v)), abs=1e-9)
            assert abs(v) > 1e-3  # the bristle creeps: a visible jump


def test_exponential_decay_of_the_static_offset_in_slip():
    """Sliding forward (initially slipping, no spring): m dv/dt = -(f_D + f_SO e^{-v/v_exp} +
    f_V v) until v = 0; then stuck for good (no external force). Checked against the force law
    along the trajectory and the stop time by quadrature t = int_0^v0 dv / F(v)."""
    fD, fSO, v_exp, fV, v0 = 1.0, 2.0, 0.1, 0.5, 1.0
    csd = CoordinateSpringDamperExt(fDynamicFriction=fD, fStaticFrictionOffset=fSO,
                                    exponentialDecayStatic=v_exp, fViscousFriction=fV,
                                    stickingStiffness=1e5, stickingDamping=500.0,
                                    initialFrictionMode=1)
    sol = compile(mass_on_csd(csd, v0=v0)).simulate(1.5, dt=1e-3, **TIGHT)
    vv = np.linspace(0.0, v0, 200001)
    F = fD + fSO * np.exp(-vv / v_exp) + fV * vv
    t_stop = float(np.sum(0.5 * (1 / F[1:] + 1 / F[:-1]) * np.diff(vv)))
    assert event_kinds(sol)[0] == 3 and sol.events[0][0] == pytest.approx(t_stop, abs=1e-8)
    slipping = sol.t < t_stop - 1e-9
    v = sol["csd.velocity"]
    np.testing.assert_allclose(sol["csd.force"][slipping],
                               fD + fSO * np.exp(-v[slipping] / v_exp) + fV * v[slipping],
                               rtol=1e-12)
    # stuck afterwards: the mass rings down on the bristle, the force stays within F_s
    assert len(sol.events) == 1
    assert np.all(np.abs(sol["csd.force"]) <= fD + fSO + 1e-9)
    assert abs(v[-1]) < 1e-6


def test_no_bristle_friction_without_friction_forces():
    """Exudyn applies bristle friction only if f_D or f_SO is non-zero (f_V alone: none)."""
    csd = CoordinateSpringDamperExt(stiffness=100.0, fViscousFriction=5.0)
    sol = compile(mass_on_csd(csd, v0=1.0)).simulate(0.5, dt=1e-3, **TIGHT)
    assert sol.events == []
    np.testing.assert_allclose(sol["mass.s"], np.sin(10 * sol.t) / 10, atol=1e-9)


def test_bristle_needs_sticking_stiffness_and_valid_initial_mode():
    with pytest.raises(ModelDefinitionError, match="stickingStiffness"):
        CoordinateSpringDamperExt(fDynamicFriction=1.0)
    with pytest.raises(ModelDefinitionError, match="initialFrictionMode"):
        CoordinateSpringDamperExt(initialFrictionMode=2)
    with pytest.raises(ModelDefinitionError, match="frictionProportionalZone"):
        CoordinateSpringDamperExt(frictionProportionalZone=-1.0)


# --------------------------------------------------------------------------------------------
# Limit stops
# --------------------------------------------------------------------------------------------

K_LS, D_LS, V0, GAP = 1e5, 50.0, 2.0, 0.1
STOPS = dict(useLimitStops=True, limitStopsUpper=GAP, limitStopsLower=-GAP,
             limitStopsStiffness=K_LS, limitStopsDamping=D_LS)


def stop_sequence(n, m=1.0):
    """Free flight at constant speed between the stops, contact = damped oscillator
    m x'' + d x' + k x = 0 from x = 0, x' = v_in: it leaves after the half period pi/w_d with
    speed v_in exp(-d pi/(2 m w_d)). Returns [(t_entry, t_exit)] and the exit speeds."""
    w_d = math.sqrt(K_LS / m - (D_LS / (2 * m)) ** 2)
    half = math.pi / w_d
    ratio = math.exp(-D_LS * half / (2 * m))
    t, speed, pos, out = 0.0, V0, 0.0, []
    for i in range(n):
        target = GAP if i % 2 == 0 else -GAP
        t_in = t + abs(target - pos) / speed
        out.append((t_in, t_in + half))
        t, pos, speed = t_in + half, target, speed * ratio
    return out, ratio


def stop_time_bound(sol, position, speed, rtol, atol, steps, v_min):
    """How far the integrator's error may move a limit-stop event time: the error dq of the
    position shifts the crossing by dq / v, v >= ``v_min`` (the slowest crossing). CVODE holds
    each step's local error to atol + rtol |x|; the global error is at most the sum over the
    run's ``steps`` of the local errors, a speed error carried into the position over the run
    (T = its length) besides: dq <= steps ((atol + rtol range q) + T (atol + rtol range v))."""
    q, v = sol[position], sol[speed]
    t_run = sol.t[-1] - sol.t[0]
    dq = steps * ((atol + rtol * np.ptp(q)) + t_run * (atol + rtol * np.ptp(v)))
    return dq / v_min


def test_limit_stop_entry_and_exit_times():
    csd = CoordinateSpringDamperExt(**STOPS)
    # the error of the event times is the integrator's (it converges with rtol: 7e-9 at 1e-10,
    # 3e-10 at 1e-12, 4e-11 at 1e-13), accumulated over the stiff contact oscillations
    rtol, atol = 1e-12, 1e-14
    sol = compile(mass_on_csd(csd, v0=V0)).simulate(1.0, dt=1e-4, rtol=rtol, atol=atol)
    seq, ratio = stop_sequence(20)
    expected = [t for pair in seq for t in pair if t <= 1.0]
    got = [t for t, _ in sol.events]
    assert len(got) == len(expected) >= 10
    assert got[0] == pytest.approx(GAP / V0, abs=1e-12)  # entry = distance/speed, exactly
    # the run takes fewer than 3e3 steps (2.1e3 right-hand sides); the slowest crossing is the
    # last exit: bound 2e-8 s (measured 4.6e-10 at rtol 0.8e-12 .. 1.3e-12); a 1 % change of
    # the stop's stiffness or damping moves the event times by 3e-3 s, 5e-3 s
    v_min = V0 * ratio ** sum(t_exit <= 1.0 for _, t_exit in seq)
    bound = stop_time_bound(sol, "mass.s", "mass.v", rtol, atol, 3e3, v_min)
    np.testing.assert_allclose(got, expected, rtol=0, atol=bound)
    # clauses: 1 enter upper, 2 leave upper, 3 enter lower, 4 leave lower
    assert event_kinds(sol)[:8] == [1, 2, 3, 4, 1, 2, 3, 4]
    # free flight between the stops at the analytic speeds
    v = sol["mass.v"]
    k = np.searchsorted(sol.t, 0.5 * (seq[0][1] + seq[1][0]))
    assert v[k] == pytest.approx(-V0 * ratio, rel=1e-9)
    state = sol["csd.limitStopState"]
    assert set(np.unique(state)) == {-1.0, 0.0, 1.0}
    f = sol["csd.force"]
    np.testing.assert_allclose(f[state == 0], 0.0, atol=0)
    q = sol["csd.displacement"]
    up, lo = state > 0, state < 0
    np.testing.assert_allclose(f[up], K_LS * (q[up] - GAP) + D_LS * v[up], rtol=1e-12)
    np.testing.assert_allclose(f[lo], K_LS * (q[lo] + GAP) + D_LS * v[lo], rtol=1e-12)
    assert np.all(q[up] >= GAP - 1e-12) and np.all(q[lo] <= -GAP + 1e-12)
    # no clamp: the damping force pulls just before separation (as Exudyn)
    assert f[up].min() < 0


def test_limit_stop_force_jumps_by_the_damping_force_at_impact():
    csd = CoordinateSpringDamperExt(**STOPS)
    cs = compile(mass_on_csd(csd, v0=V0))
    t_in = GAP / V0
    sol = cs.simulate(t_in + 1e-9, t_eval=np.array([0.0, t_in - 1e-9, t_in + 1e-9]), **TIGHT)
    assert sol["csd.force"][1] == 0.0
    # d_ls v plus the spring force of the penetration v * 1e-9 (2e-4 N; here to the
    # integrator's position accuracy, 1e-10 m -> 1e-5 N)
    assert sol["csd.force"][2] == pytest.approx(D_LS * V0 + K_LS * V0 * 1e-9, abs=1e-5)


# --------------------------------------------------------------------------------------------
# Options: user function, activeConnector, velocityOffset, factors; rotational twin
# --------------------------------------------------------------------------------------------

def test_user_function_replaces_the_whole_force():
    calls = []

    def uf(mbs, t, itemNumber, u, v, k, d, offset, vOffset, muD, muSO, muExp, muV, regVel):
        calls.append((itemNumber, regVel))
        return k * (u - offset) + d * (v - vOffset)

    csd = CoordinateSpringDamperExt(stiffness=100.0, damping=0.0, offset=0.1, velocityOffset=1.0,
                                    fDynamicFriction=50.0, springForceUserFunction=uf,
                                    frictionProportionalZone=0.5, **STOPS)
    sol = compile(mass_on_csd(csd, v0=0.0)).simulate(0.5, dt=1e-3, **TIGHT)
    assert calls and calls[0] == ("csd", 0.5)
    assert sol.events == []  # neither friction nor limit stops with a user function
    # m q'' = -100 (q - 0.1) - 0*(v - 1): q = 0.1 (1 - cos 10 t)
    np.testing.assert_allclose(sol["mass.s"], 0.1 * (1 - np.cos(10 * sol.t)), atol=1e-9)


def test_inactive_connector_and_unused_velocity_offset():
    csd = CoordinateSpringDamperExt(stiffness=100.0, activeConnector=False, **STOPS)
    sol = compile(mass_on_csd(csd, v0=1.0)).simulate(0.5, dt=1e-3, **TIGHT)
    assert sol.events == [] and np.all(sol["csd.force"] == 0.0)
    np.testing.assert_allclose(sol["mass.s"], sol.t, atol=1e-12)
    # velocityOffset does not enter the built-in force (Exudyn 1.11 C++, friction_models 2.5)
    csd = CoordinateSpringDamperExt(stiffness=100.0, damping=2.0, velocityOffset=5.0)
    sol = compile(mass_on_csd(csd, q0=0.01)).simulate(0.2, dt=1e-3, **TIGHT)
    np.testing.assert_allclose(sol["csd.force"],
                               100.0 * sol["csd.displacement"] + 2.0 * sol["csd.velocity"],
                               atol=1e-12)


def test_factors_scale_the_coordinate_and_the_generalised_forces():
    """flange_b factor f1: q = f1 s, and the mass feels f1 f_SD = f1^2 k s: omega = f1 sqrt(k/m).
    flange_a (fixed) factor f0 does not move anything."""
    csd = CoordinateSpringDamperExt(stiffness=25.0, factor1=2.0, factor0=3.0)
    sol = compile(mass_on_csd(csd, q0=0.1)).simulate(1.0, dt=1e-3, **TIGHT)
    np.testing.assert_allclose(sol["mass.s"], 0.1 * np.cos(10.0 * sol.t), atol=1e-9)
    np.testing.assert_allclose(sol["csd.displacement"], 2.0 * sol["mass.s"], atol=1e-14)


def test_rotational_twin_limit_stops_and_stick_slip():
    class Rotor(Component):
        ground = rotational.Fixed()
        rotor = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                   w=Variable(start=V0, fixed=True))
        csd = RotationalCoordinateSpringDamperExt(**STOPS)

        def connections(self):
            return [connect(self.ground.flange, self.csd.flange_a),
                    connect(self.csd.flange_b, self.rotor.flange_a)]

    # at the tolerances of the translational element's test (see there): fewer than 1e3 steps
    # (840 right-hand sides), bound 1.1e-9 s (measured 2.5e-11 at rtol 0.8e-12 .. 1.3e-12;
    # 1 % more stiffness of the stop: 2.6e-4 s)
    rtol, atol = 1e-12, 1e-14
    sol = compile(Rotor()).simulate(0.3, dt=1e-4, rtol=rtol, atol=atol)
    seq, ratio = stop_sequence(4)
    expected = [t for pair in seq for t in pair if t <= 0.3]
    v_min = V0 * ratio ** sum(t_exit <= 0.3 for _, t_exit in seq)
    bound = stop_time_bound(sol, "rotor.phi", "rotor.w", rtol, atol, 1e3, v_min)
    np.testing.assert_allclose([t for t, _ in sol.events], expected, rtol=0, atol=bound)
    np.testing.assert_allclose(sol["der(rotor.w)"], -sol["csd.force"], atol=1e-6)

    class RotorStickSlip(Component):
        ground = rotational.Fixed()
        rotor = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                   w=Variable(start=0.0, fixed=True))
        csd = RotationalCoordinateSpringDamperExt(**BRISTLE)
        drive = rotational.Torque()

        def equations(self):
            return [Eq(self.drive.tau, 6.0 * sp.sin(2 * sp.pi * time))]

        def connections(self):
            return [connect(self.ground.flange, self.csd.flange_a),
                    connect(self.csd.flange_b, self.rotor.flange_a),
                    connect(self.drive.flange, self.rotor.flange_b)]

    sol = compile(RotorStickSlip()).simulate(1.0, dt=1e-3, **TIGHT)
    expected = bristle_sequence(1.0, 10.0, 0.5, 3.0, 1.0, 2.0, 1e4, 50.0, 6.0, 2 * math.pi, 1.0)
    np.testing.assert_allclose([t for t, _ in sol.events], [t for t, _ in expected], atol=1e-8)


def test_initial_sticking_state_gives_the_bristle_force():
    """Exudyn's note: stuck with x_lsp != q gives an initial bristle force k_mu (q - x_lsp)."""
    csd = CoordinateSpringDamperExt(fDynamicFriction=3.0, fStaticFrictionOffset=1.0,
                                    stickingStiffness=1e5, stickingDamping=1e3,
                                    initialFrictionMode=0, initialLastStickingPosition=-1e-5)
    sol = compile(mass_on_csd(csd)).simulate(0.1, dt=1e-3, **TIGHT)
    assert sol["csd.force"][0] == pytest.approx(1.0, rel=1e-12)
    assert sol.events == [] and np.all(sol["csd.frictionMode"] == 0)
    # the bristle relaxes to x_lsp (over-damped: d_mu^2 > 4 m k_mu)
    assert abs(sol["mass.s"][-1] + 1e-5) < 1e-9
