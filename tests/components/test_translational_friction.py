"""The translational friction elements (``acausal.components.translational_friction``:
``MassWithStopAndFriction``, ``SupportFriction``, ``Brake``) against closed-form solutions.

* Sliding to rest under constant (Coulomb) friction ``F``: ``v = v0 - F t/m`` until
  ``t* = v0 m/F``, ``s(t*) = v0^2 m/(2 F)``, then stuck for good; the friction's heat (through
  the heat port into a capacitor) is the kinetic energy ``m v0^2/2``.
* Break-away under a force ramp ``k t`` from rest: stuck (the friction force is the applied
  force) until ``k t = peak*F0``, then sliding with ``a = (peak - 1) F0/m`` at once.
* The end stops of the sliding mass: it slides into a stop (``s = a t^2/2``), stops dead there
  (MSL: ``reinit(v, 0)``, no rebound), stays while pushed (also beyond the static friction) or
  pulled below the static friction, leaves when pulled harder, and stops at the other end.
* The brake's Free mode: no normal force, no friction (the mass moves as if it were absent);
  released while sliding, it goes Free and the mass keeps its speed.

Tolerances: rtol 1e-10, atol 1e-12; trajectories of O(1) m within 1e-8, event instants (found
by the root finder to ~1e-12 s) within 1e-9 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Eq, ParameterError, Variable, compile, connect, time
from acausal.components import blocks, event_sources, thermal
from acausal.components import translational as tr
from acausal.components.translational_friction import (
    Brake,
    MassWithStopAndFriction,
    SupportFriction,
)

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
TOL = 1e-8  # positions and speeds of O(1)
T_TOL = 1e-9  # event instants


def fixed(value: float = 0.0) -> Variable:
    return Variable(start=value, fixed=True)


def mode_sequence(sol, name: str) -> list[tuple[float, float]]:
    """``[(t, value)]``: the start value and each change, values just after the events."""
    out = [(float(sol.t[0]), float(sol[name][0]))]
    for (t, _), v in zip(sol.events, sol.event_values(name)):
        if v != out[-1][1]:
            out.append((t, float(v)))
    return out


# ---------------------------------------------------------------------------------------------
# sliding to rest
# ---------------------------------------------------------------------------------------------

M, V0, F_C = 2.0, 1.5, 3.0  # stops after v0 m/F = 1 s, at v0^2 m/(2 F) = 0.75 m
S0 = 0.3  # the support of the SupportFriction case sits here (positions relative to it)


def sliding_rig(kind: str) -> Component:
    """A mass thrown at V0 against a friction of F_C (its heat into a 1 J/K capacitor)."""

    class Rig(Component):
        capacitor = thermal.HeatCapacitor(C=1.0, T=fixed(300.0))

    if kind == "mass":
        Rig.element = MassWithStopAndFriction(m=M, F_prop=0, F_Coulomb=F_C, F_Stribeck=0,
                                              s=fixed(), v=fixed(V0), useHeatPort=True)
        Rig.connections = lambda self: [connect(self.element.heatPort, self.capacitor.port)]
    else:
        Rig.body = tr.Mass(m=M, s=fixed(S0 if kind == "support" else 0.0), v=fixed(V0))
        if kind == "support":  # on a support flange: s is measured from it
            Rig.element = SupportFriction(f_pos=[[0.0, F_C], [10.0, F_C]], useSupport=True,
                                          useHeatPort=True)
            Rig.ground = tr.Fixed(s0=S0)
        else:  # mu 0.25 against fn = 12 N * 1: F_C
            Rig.element = Brake(mu_pos=[[0.0, 0.25]], fn_max=12.0, useHeatPort=True)
            Rig.pressure = blocks.Constant(k=1.0)

        def connections(self):
            out = [connect(self.body.flange_b, self.element.flange_a),
                   connect(self.element.heatPort, self.capacitor.port)]
            if kind == "support":
                out.append(connect(self.element.support, self.ground.flange))
            else:
                out.append(connect(self.pressure.y, self.element.f_normalized))
            return out
        Rig.connections = connections
    return Rig()


@pytest.mark.parametrize("kind", ["mass", "support", "brake"])
def test_slides_to_rest_under_coulomb_friction(kind):
    sol = compile(sliding_rig(kind)).simulate(2.0, dt=0.01, **TIGHT)
    t = np.asarray(sol.t)
    t_stop = V0 * M / F_C
    v_exact = np.maximum(V0 - F_C / M * t, 0.0)
    s_exact = np.where(t < t_stop, V0 * t - F_C / (2 * M) * t**2, V0**2 * M / (2 * F_C))
    np.testing.assert_allclose(sol["element.s"], s_exact, atol=TOL)
    np.testing.assert_allclose(sol["element.v"], v_exact, atol=TOL)
    assert mode_sequence(sol, "element.mode") == [(0.0, 1.0), (pytest.approx(t_stop, abs=T_TOL),
                                                               0.0)]
    stuck = t > t_stop
    # stuck for good: no force left, the speed held at (about) zero
    assert np.all(np.abs(np.asarray(sol["element.v"])[stuck]) < 1e-11)
    np.testing.assert_allclose(np.asarray(sol["element.f"])[t < t_stop], F_C, rtol=1e-12)
    # the heat is the kinetic energy m v0^2/2 = 2.25 J (1 J/K: 2.25 K)
    assert float(sol["capacitor.T"][-1]) - 300.0 == pytest.approx(M * V0**2 / 2, abs=1e-8)
    if kind == "support":
        np.testing.assert_allclose(sol["element.s"], np.asarray(sol["body.s"]) - S0, atol=1e-14)
        np.testing.assert_allclose(sol["element.support.f"], -np.asarray(sol["element.f"]),
                                   atol=1e-12)


# ---------------------------------------------------------------------------------------------
# break-away
# ---------------------------------------------------------------------------------------------

K, PEAK, F0 = 2.0, 1.5, 3.0  # ramp 2 N/s: break-away at peak*F0/k = 2.25 s


def ramp_rig(kind: str, direction: int) -> Component:
    """A mass at rest on a friction element (F0 = 3 N at v = 0, static friction 4.5 N),
    pushed by ``direction*K*t``."""

    class Rig(Component):
        force = tr.Force()

        def equations(self):
            return [Eq(self.force.f, direction * K * time)]

    if kind == "mass":  # F0 = F_Coulomb + F_Stribeck
        Rig.body = MassWithStopAndFriction(m=1.0, F_prop=0.5, F_Coulomb=2.0, F_Stribeck=1.0,
                                           fexp=2.0, peak=PEAK, s=fixed(), v=fixed())
        Rig.connections = lambda self: [connect(self.force.flange, self.body.flange_a)]
        return Rig()
    Rig.body = tr.Mass(m=1.0, s=fixed(), v=fixed())
    if kind == "support":
        Rig.element = SupportFriction(f_pos=[[0.0, F0], [1.0, F0 + 0.5]], peak=PEAK)
    else:
        Rig.element = Brake(mu_pos=[[0.0, 0.5], [1.0, 0.5 + 0.5 / 6]], fn_max=6.0, peak=PEAK)
        Rig.pressure = blocks.Constant(k=1.0)

    def connections(self):
        out = [connect(self.force.flange, self.body.flange_a),
               connect(self.body.flange_b, self.element.flange_a)]
        if kind == "brake":
            out.append(connect(self.pressure.y, self.element.f_normalized))
        return out
    Rig.connections = connections
    return Rig()


@pytest.mark.parametrize("direction", [1, -1])
@pytest.mark.parametrize("kind", ["mass", "support", "brake"])
def test_breaks_away_at_peak_times_f0(kind, direction):
    sol = compile(ramp_rig(kind, direction)).simulate(3.0, dt=0.01, **TIGHT)
    element = "body" if kind == "mass" else "element"
    t_break = PEAK * F0 / K
    assert mode_sequence(sol, f"{element}.mode") == [
        (0.0, 0.0), (pytest.approx(t_break, abs=T_TOL), float(direction))]
    t = np.asarray(sol.t)
    stuck = t < t_break
    # stuck: the friction holds the applied force, the mass does not move
    np.testing.assert_allclose(np.asarray(sol[f"{element}.f"])[stuck],
                               direction * K * t[stuck], atol=1e-12)
    assert np.all(np.asarray(sol["body.s"])[stuck] == 0.0)
    # at once after the break-away the surplus peak*F0 - F0 accelerates the 1 kg mass
    k = [te for te, _ in sol.events].index(next(te for te, _ in sol.events if te >= t_break))
    a_after = sol.event_values("body.a")[k]
    assert a_after == pytest.approx(direction * (PEAK - 1) * F0, abs=1e-9)
    sliding = t > t_break
    v = np.asarray(sol["body.v"])[sliding]
    assert np.all(direction * v > 0)
    if kind == "mass":  # MSL's Stribeck law while sliding
        law = 0.5 * v + direction * (2.0 + 1.0 * np.exp(-2.0 * np.abs(v)))
        np.testing.assert_allclose(np.asarray(sol["body.f"])[sliding], law, atol=1e-12)
    else:  # the table: F0 + 0.5 |v| (support) = (0.5 + |v|/12)*6 N (brake)
        np.testing.assert_allclose(np.asarray(sol["element.f"])[sliding],
                                   direction * (F0 + 0.5 * np.abs(v)), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# end stops
# ---------------------------------------------------------------------------------------------

class StopRig(Component):
    """A mass with stops (L = 0.2 m, smax = 1.1, smin = -1.1: the centre moves within +-1 m;
    Coulomb friction 1 N, static 2 N) driven by 3 N until 2 s, -1.5 N until 3 s, -4 N after."""

    body = MassWithStopAndFriction(m=1.0, L=0.2, smax=1.1, smin=-1.1, F_prop=0.0,
                                   F_Coulomb=1.0, F_Stribeck=0.0, peak=2.0, s=fixed(), v=fixed())
    force = tr.Force()
    release = event_sources.Step(height=-4.5, start_time=2.0)
    pull = event_sources.Step(height=-2.5, start_time=3.0)

    def connections(self):
        return [connect(self.force.flange, self.body.flange_b)]

    def equations(self):
        return [Eq(self.force.f, 3.0 + self.release.y.u + self.pull.y.u)]


def test_stops_hold_push_and_release_on_a_pull():
    """Forward at 2 m/s2 (3 N against 1 N) into the upper stop: s = 1 m at t = 1 s with 2 m/s.
    The impact stops it dead (v = 0: MSL's stop has no rebound; 2 J lost). Pushed with 3 N (more
    than the static friction 2 N) it stays at exactly 1 m, the stop taking the part of the push
    the friction cannot: f = 3 N of which f_stop = 3 N; pulled with 1.5 N (< 2 N) it stays, held
    by friction; pulled with 4 N at 3 s it leaves, s = 1 - 1.5 (t - 3)^2, and reaches the lower
    stop at t = 3 + sqrt(4/3) with -2 sqrt(3) m/s, where the 4 N pull holds it."""
    sol = compile(StopRig()).simulate(5.0, dt=0.01, **TIGHT)
    t = np.asarray(sol.t)
    s, v = np.asarray(sol["body.s"]), np.asarray(sol["body.v"])
    t_low = 3.0 + math.sqrt(4.0 / 3.0)
    assert mode_sequence(sol, "body.mode") == [
        (0.0, 1.0), (pytest.approx(1.0, abs=T_TOL), 0.0), (pytest.approx(3.0, abs=T_TOL), -1.0),
        (pytest.approx(t_low, abs=T_TOL), 0.0)]
    assert mode_sequence(sol, "body.stopped") == [
        (0.0, 0.0), (pytest.approx(1.0, abs=T_TOL), 1.0), (pytest.approx(3.0, abs=T_TOL), 0.0),
        (pytest.approx(t_low, abs=T_TOL), -1.0)]
    first = t < 1.0
    np.testing.assert_allclose(s[first], t[first] ** 2, atol=TOL)
    np.testing.assert_allclose(v[first], 2.0 * t[first], atol=TOL)  # 2 m/s at the stop
    # the impacts: exactly at the stop with v = 0 just after (no rebound)
    times = [te for te, _ in sol.events]
    for t_hit, stop in ((1.0, 1.0), (t_low, -1.0)):
        k = min(range(len(times)), key=lambda i: abs(times[i] - t_hit))
        assert sol.event_values("body.v")[k] == 0.0
        assert sol.event_values("body.s")[k] == stop
    at_upper = (t > 1.0) & (t < 3.0)
    assert np.all(s[at_upper] == 1.0) and np.all(v[at_upper] == 0.0)
    pushed = (t > 1.0) & (t < 2.0)
    np.testing.assert_allclose(np.asarray(sol["body.f"])[pushed], 3.0, atol=1e-12)
    np.testing.assert_allclose(np.asarray(sol["body.f_stop"])[pushed], 3.0, atol=1e-12)
    pulled = (t > 2.0) & (t < 3.0)
    np.testing.assert_allclose(np.asarray(sol["body.f"])[pulled], -1.5, atol=1e-12)
    np.testing.assert_allclose(np.asarray(sol["body.f_stop"])[pulled], 0.0, atol=1e-12)
    leaving = (t > 3.0) & (t < t_low)
    np.testing.assert_allclose(s[leaving], 1.0 - 1.5 * (t[leaving] - 3.0) ** 2, atol=TOL)
    np.testing.assert_allclose(v[leaving], -3.0 * (t[leaving] - 3.0), atol=TOL)
    at_lower = t > t_low
    assert np.all(s[at_lower] == -1.0) and np.all(v[at_lower] == 0.0)
    np.testing.assert_allclose(np.asarray(sol["body.f_stop"])[at_lower], -4.0, atol=1e-12)
    # no heat while resting at a stop (v = 0), none from the impacts (MSL: lossPower is f*v)
    assert np.all(np.asarray(sol["body.lossPower"])[at_upper | at_lower] == 0.0)


@pytest.mark.parametrize("at, push, stays", [(1.0, 3.0, True), (1.0, -1.5, True),
                                              (1.0, -3.0, False), (-1.0, -3.0, True),
                                              (-1.0, 1.5, True), (-1.0, 3.0, False)])
def test_start_at_a_stop(at, push, stays):
    """A mass that starts at rest at a stop (MSL allows it) rests there, stopped, while pushed
    into it (whatever the force) or pulled by less than the static friction (2 N); pulled
    harder it slides off at once: s = at + (push -+ 1 N) t^2/2."""

    class Rig(Component):
        body = MassWithStopAndFriction(m=1.0, L=0.2, smax=1.1, smin=-1.1, F_prop=0.0,
                                       F_Coulomb=1.0, F_Stribeck=0.0, peak=2.0, s=fixed(at),
                                       v=fixed())
        force = tr.ConstantForce(f_constant=push)

        def connections(self):
            return [connect(self.force.flange, self.body.flange_b)]

    sol = compile(Rig()).simulate(0.5, dt=0.05, **TIGHT)
    t = np.asarray(sol.t)
    assert sol.events == []
    if stays:
        assert mode_sequence(sol, "body.mode") == [(0.0, 0.0)]
        assert mode_sequence(sol, "body.stopped") == [(0.0, at)]
        assert np.all(np.asarray(sol["body.s"]) == at)
    else:
        direction = -at
        assert mode_sequence(sol, "body.mode") == [(0.0, direction)]
        assert mode_sequence(sol, "body.stopped") == [(0.0, 0.0)]
        np.testing.assert_allclose(sol["body.s"], at + (push - direction * 1.0) * t**2 / 2,
                                   atol=TOL)


class FreeRig(Component):
    """A mass with stops and no friction at all (MSL's free = f0 <= 0 and F_prop <= 0) pushed
    by 1 N for 1 s into its upper stop (at 0.5 m), pulled by -1 N from 1.5 s."""

    body = MassWithStopAndFriction(m=1.0, L=0.0, smax=0.5, smin=-0.5, F_prop=0.0,
                                   F_Coulomb=0.0, F_Stribeck=0.0, s=fixed(), v=fixed())
    force = tr.Force()
    pull = event_sources.Step(height=-2.0, start_time=1.5)

    def connections(self):
        return [connect(self.force.flange, self.body.flange_a)]

    def equations(self):
        return [Eq(self.force.f, 1.0 + self.pull.y.u)]


def test_frictionless_mass_is_free_between_the_stops():
    """Free (mode 2, f = 0) from the start: s = t^2/2 reaches the stop at t = 1 s; stuck at the
    stop while pushed; Free again (and away from the stop) as soon as it is pulled at 1.5 s."""
    sol = compile(FreeRig()).simulate(2.0, dt=0.01, **TIGHT)
    assert mode_sequence(sol, "body.mode") == [
        (0.0, 2.0), (pytest.approx(1.0, abs=T_TOL), 0.0), (pytest.approx(1.5, abs=T_TOL), 2.0)]
    t = np.asarray(sol.t)
    s = np.asarray(sol["body.s"])
    np.testing.assert_allclose(s[t < 1.0], t[t < 1.0] ** 2 / 2, atol=TOL)
    np.testing.assert_allclose(s[(t > 1.0) & (t < 1.5)], 0.5, atol=0)
    after = t > 1.5
    np.testing.assert_allclose(s[after], 0.5 - (t[after] - 1.5) ** 2 / 2, atol=TOL)
    free = (t < 1.0) | after
    assert np.all(np.asarray(sol["body.f"])[free] == 0.0)


# ---------------------------------------------------------------------------------------------
# the brake's free mode
# ---------------------------------------------------------------------------------------------

class BrakeRig(Component):
    """A mass (1 kg, 10 m/s) on a brake (mu 0.5, fn_max 1 N) pressed by ``pressure`` (a step
    from ``offset`` by ``height`` at 0.2 s), pushed by ``push`` N."""

    def __init__(self, offset: float, height: float, push: float = 0.0, **kw):
        super().__init__(**kw)
        self.body = tr.Mass(m=1.0, s=fixed(), v=fixed(10.0))
        self.brake = Brake(fn_max=1.0)
        self.pressure = event_sources.Step(offset=offset, height=height, start_time=0.2)
        self.force = tr.ConstantForce(f_constant=push)

    def connections(self):
        return [connect(self.body.flange_b, self.brake.flange_a),
                connect(self.pressure.y, self.brake.f_normalized),
                connect(self.force.flange, self.body.flange_a)]


@pytest.mark.parametrize("pressure", [0.0, -0.5])
def test_brake_is_free_without_normal_force(pressure):
    """No (or a negative) normal force: Free (mode 2) throughout, no force, no heat; the mass
    accelerates under 2 N as if the brake were absent."""
    sol = compile(BrakeRig(pressure, 0.0, push=2.0)).simulate(1.0, dt=0.01, **TIGHT)
    t = np.asarray(sol.t)
    assert mode_sequence(sol, "brake.mode") == [(0.0, 2.0)]
    np.testing.assert_allclose(sol["body.v"], 10.0 + 2.0 * t, atol=TOL)
    assert np.all(np.asarray(sol["brake.f"]) == 0.0)
    assert np.all(np.asarray(sol["brake.lossPower"]) == 0.0)


def test_brake_released_while_sliding_goes_free():
    """Pressed (0.5 N against the motion) until 0.2 s, then released: Forward -> Free, the
    mass keeps 10 - 0.5*0.2 = 9.9 m/s (it does not stick: a slide ends only at v = 0)."""
    sol = compile(BrakeRig(1.0, -1.0)).simulate(1.0, dt=0.01, **TIGHT)
    assert mode_sequence(sol, "brake.mode") == [(0.0, 1.0), (pytest.approx(0.2, abs=T_TOL), 2.0)]
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["body.v"], np.where(t < 0.2, 10.0 - 0.5 * t, 9.9), atol=TOL)


def test_brake_engaging_on_a_moving_mass_slides_and_stops():
    """Free until 0.2 s, then pressed (0.5 N): Free -> Forward (sliding: no break-away) ->
    Stuck when v reaches 0 at 0.2 + 10/0.5 = 20.2 s."""
    sol = compile(BrakeRig(0.0, 1.0)).simulate(21.0, dt=0.1, **TIGHT)
    assert mode_sequence(sol, "brake.mode") == [
        (0.0, 2.0), (pytest.approx(0.2, abs=T_TOL), 1.0), (pytest.approx(20.2, abs=1e-8), 0.0)]


# ---------------------------------------------------------------------------------------------
# declarations and bad parameters
# ---------------------------------------------------------------------------------------------

def test_parameters_carry_msl_names_and_units():
    units = {MassWithStopAndFriction: {"m": "kg", "L": "m", "smax": "m", "smin": "m",
                                       "v_small": "m/s", "F_prop": "N.s/m", "F_Coulomb": "N",
                                       "F_Stribeck": "N", "fexp": "s/m", "peak": "1"},
             SupportFriction: {"f_pos": "N", "peak": "1"},
             Brake: {"mu_pos": "1", "peak": "1", "cgeo": "1", "fn_max": "N"}}
    for cls, expected in units.items():
        decl = cls.declarations()
        assert {k: decl[k].unit for k in expected} == expected
        assert "useHeatPort" in decl
    assert "useSupport" in SupportFriction.declarations() and "useSupport" in Brake.declarations()
    # MSL's fixed factor of the static friction of the sliding mass
    assert MassWithStopAndFriction.declarations()["peak"].default == 1.001


def test_stops_closer_than_the_length_are_refused():
    with pytest.raises(ParameterError, match="smax - smin >= L"):
        MassWithStopAndFriction(L=1.0, smax=0.4, smin=-0.4)


def test_bad_tables_are_refused_with_the_component_named():
    class Rig(Component):
        body = tr.Mass(m=1.0, s=fixed(), v=fixed())
        element = SupportFriction(f_pos=[[0.0], [1.0]])

        def connections(self):
            return [connect(self.body.flange_b, self.element.flange_a)]

    with pytest.raises(ParameterError,
                       match="SupportFriction 'element': f_pos: the table has shape"):
        compile(Rig())
