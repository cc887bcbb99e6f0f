"""The friction elements pressed by a normal force (``acausal.components.clutches``: Clutch,
Brake, OneWayClutch, and MSL's table-driven BearingFriction) against closed-form solutions.

Every rig is a few inertias with constant or stepped torques, so each phase has a closed form:

* sliding under a constant friction torque ``T``: the speeds change linearly;
* a clutch between two inertias ``J1`` (speed ``w1``) and ``J2`` (``w2``): ``J1 w1' = -T``,
  ``J2 w2' = +T`` while ``w1 > w2``, so the slip ``s = w1 - w2`` falls at the rate
  ``T (1/J1 + 1/J2) = T (J1 + J2)/(J1 J2)`` and vanishes (the clutch locks) at
  ``t_lock = J1 J2 (w1 - w2) / ((J1 + J2) T)``, ``T = mu cgeo fn``; after that both turn at the
  momentum-conserving speed ``(J1 w1 + J2 w2)/(J1 + J2)`` and the heat is the lost kinetic
  energy;
* a friction torque linear in the slip, ``T = a + b s``: ``s' = -k (a + b s)`` with
  ``k = 1/J1 + 1/J2``, i.e. ``s + a/b = (s0 + a/b) exp(-k b t)``.

Tolerances follow from the solver's (rtol 1e-10): speeds to 1e-8, event times to 1e-8 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Eq, ParameterError, Variable, compile, connect
from acausal.components import event_sources, rotational
from acausal.components.clutches import BearingFriction, Brake, Clutch, OneWayClutch
from acausal.components.thermal import HeatCapacitor

TIGHT = {"rtol": 1e-10, "atol": 1e-12}


def inertia(J: float, w0: float) -> rotational.Inertia:
    return rotational.Inertia(J=J, phi=Variable(start=0.0, fixed=True),
                              w=Variable(start=w0, fixed=True))


def mode_changes(sol, name: str) -> list[tuple[float, float]]:
    """[(t, mode)]: the start mode and each change of ``name`` at an event (value after it)."""
    out = [(float(sol.t[0]), float(sol[name][0]))]
    for (t, _), value in zip(sol.events, sol.event_values(name)):
        if value != out[-1][1]:
            out.append((float(t), float(value)))
    return out


# ---------------------------------------------------------------------------------------------
# Clutch: locking time, heat, friction table, free mode
# ---------------------------------------------------------------------------------------------

J1, J2, W1, W2 = 2.0, 3.0, 10.0, 1.0
MU, CGEO, FN_MAX, C_HEAT = 0.4, 0.5, 20.0, 7.0


class TwoInertias(Component):
    """J1 -- clutch -- J2, a constant normal force, the clutch's heat into a capacitor."""

    j1 = inertia(J1, W1)
    j2 = inertia(J2, W2)
    clutch = Clutch(mu_pos=[[0.0, MU]], cgeo=CGEO, fn_max=FN_MAX, peak=1.2, useHeatPort=True)
    heat = HeatCapacitor(C=C_HEAT, T=Variable(start=300.0, fixed=True))

    def connections(self):
        return [connect(self.j1.flange_b, self.clutch.flange_a),
                connect(self.clutch.flange_b, self.j2.flange_a),
                connect(self.clutch.heatPort, self.heat.port)]

    def equations(self):
        return [Eq(self.clutch.f_normalized.u, 1.0)]


def test_clutch_locks_at_the_predicted_time():
    sol = compile(TwoInertias()).simulate(4.0, dt=0.01, **TIGHT)
    torque = MU * CGEO * FN_MAX  # sliding friction torque T = mu cgeo fn = 4 N.m
    t_lock = J1 * J2 * (W1 - W2) / ((J1 + J2) * torque)  # 2.7 s
    w_end = (J1 * W1 + J2 * W2) / (J1 + J2)  # 4.6 rad/s
    # w_rel = w2 - w1 < 0: backward sliding, then stuck at t_lock and nothing else
    assert mode_changes(sol, "clutch.mode") == [(0.0, -1.0), (pytest.approx(t_lock, abs=1e-8),
                                                              0.0)]
    t = np.asarray(sol.t)
    sliding = t < t_lock
    np.testing.assert_allclose(sol["j1.w"][sliding], W1 - torque / J1 * t[sliding], atol=1e-8)
    np.testing.assert_allclose(sol["j2.w"][sliding], W2 + torque / J2 * t[sliding], atol=1e-8)
    np.testing.assert_allclose(sol["clutch.tau"][sliding], -torque, atol=1e-9)
    np.testing.assert_allclose(sol["j1.w"][~sliding], w_end, atol=1e-8)
    np.testing.assert_allclose(sol["j2.w"][~sliding], w_end, atol=1e-8)
    # locked without load: the clutch holds no torque, the relative speed stays zero
    # (the output point at t_lock itself lies before the located event: excluded)
    locked = t > t_lock + 1e-6
    np.testing.assert_allclose(sol["clutch.tau"][locked], 0.0, atol=1e-8)
    np.testing.assert_allclose(sol["clutch.w_rel"][locked], 0.0, atol=1e-8)


def test_clutch_heat_is_the_lost_kinetic_energy():
    sol = compile(TwoInertias()).simulate(4.0, dt=0.01, **TIGHT)
    w_end = (J1 * W1 + J2 * W2) / (J1 + J2)
    lost = 0.5 * J1 * W1**2 + 0.5 * J2 * W2**2 - 0.5 * (J1 + J2) * w_end**2  # 48.6 J
    assert C_HEAT * (sol["heat.T"][-1] - 300.0) == pytest.approx(lost, rel=1e-8)
    assert np.all(sol["clutch.lossPower"] >= -1e-9)


class TableClutch(Component):
    """Two unit inertias, mu(w) = 0.2 + 0.1 |w| from a two-row table (beyond w = 1 the last
    two rows are extrapolated), cgeo = 1, fn = 10 N: T(s) = 2 + s [N.m]."""

    j1 = inertia(1.0, 3.0)
    j2 = inertia(1.0, 0.0)
    clutch = Clutch(mu_pos=[[0.0, 0.2], [1.0, 0.3]], fn_max=10.0)

    def connections(self):
        return [connect(self.j1.flange_b, self.clutch.flange_a),
                connect(self.clutch.flange_b, self.j2.flange_a)]

    def equations(self):
        return [Eq(self.clutch.f_normalized.u, 1.0)]


def test_clutch_friction_table():
    sol = compile(TableClutch()).simulate(1.0, dt=0.01, **TIGHT)
    # s' = -2 (2 + s), s(0) = 3: s = 5 exp(-2t) - 2, zero at t = ln(5/2)/2
    t_lock = math.log(2.5) / 2
    assert mode_changes(sol, "clutch.mode") == [(0.0, -1.0), (pytest.approx(t_lock, abs=1e-8),
                                                              0.0)]
    t = np.asarray(sol.t)
    sliding = t < t_lock
    slip = 5.0 * np.exp(-2.0 * t[sliding]) - 2.0
    np.testing.assert_allclose(-sol["clutch.w_rel"][sliding], slip, atol=1e-8)
    np.testing.assert_allclose(sol["clutch.tau"][sliding], -(2.0 + slip), atol=1e-8)
    np.testing.assert_allclose(sol["j1.w"][~sliding], 1.5, atol=1e-8)


class Open(Component):
    """J1 driven by 1 N.m, J2 spinning at 2 rad/s, the clutch between them never pressed."""

    drive = rotational.ConstantTorque(tau_constant=1.0)
    j1 = inertia(1.0, 0.0)
    j2 = inertia(1.0, 2.0)
    clutch = Clutch(fn_max=100.0)

    def connections(self):
        return [connect(self.drive.flange, self.j1.flange_a),
                connect(self.j1.flange_b, self.clutch.flange_a),
                connect(self.clutch.flange_b, self.j2.flange_a)]

    def equations(self):
        return [Eq(self.clutch.f_normalized.u, 0.0)]


def test_clutch_without_normal_force_is_free():
    sol = compile(Open()).simulate(4.0, dt=0.01, **TIGHT)
    # fn = 0: Free from the start, no torque although the speeds cross (w1 = t reaches 2 at
    # t = 2 s) and nothing fires
    assert mode_changes(sol, "clutch.mode") == [(0.0, 2.0)]
    assert sol.events == []
    np.testing.assert_allclose(sol["clutch.tau"], 0.0, atol=1e-12)
    np.testing.assert_allclose(sol["j1.w"], np.asarray(sol.t), atol=1e-9)
    np.testing.assert_allclose(sol["j2.w"], 2.0, atol=1e-12)


class Disengaging(Component):
    """Two unit inertias (10 and 0 rad/s), the normal force 4 N (T = 0.5*1*4 = 2 N.m) off
    between 0.5 s and 1 s."""

    j1 = inertia(1.0, 10.0)
    j2 = inertia(1.0, 0.0)
    clutch = Clutch(fn_max=4.0)
    release = event_sources.Step(height=-1.0, offset=1.0, start_time=0.5)
    engage = event_sources.Step(height=1.0, start_time=1.0)

    def connections(self):
        return [connect(self.j1.flange_b, self.clutch.flange_a),
                connect(self.clutch.flange_b, self.j2.flange_a)]

    def equations(self):
        return [Eq(self.clutch.f_normalized.u, self.release.y.u + self.engage.y.u)]


def test_clutch_free_mode_transmits_no_torque():
    sol = compile(Disengaging()).simulate(4.0, dt=0.01, **TIGHT)
    # slip 10 - 4t until 0.5 s (8 rad/s), free until 1 s (speeds 9 and 1 held), then sliding
    # again: the slip 8 vanishes after 8/4 = 2 s, at t = 3 s, both at 5 rad/s
    assert mode_changes(sol, "clutch.mode") == [
        (0.0, -1.0), (pytest.approx(0.5, abs=1e-12), 2.0), (pytest.approx(1.0, abs=1e-12), -1.0),
        (pytest.approx(3.0, abs=1e-8), 0.0)]
    t = np.asarray(sol.t)
    free = (t > 0.5 + 1e-9) & (t < 1.0 - 1e-9)
    assert np.all(sol["clutch.mode"][free] == 2)
    np.testing.assert_allclose(sol["clutch.tau"][free], 0.0, atol=1e-12)
    np.testing.assert_allclose(sol["j1.w"][free], 9.0, atol=1e-8)
    np.testing.assert_allclose(sol["j2.w"][free], 1.0, atol=1e-8)
    np.testing.assert_allclose(sol["j1.w"][t >= 3.0], 5.0, atol=1e-8)


# ---------------------------------------------------------------------------------------------
# Brake: holds below its static friction, slides above it
# ---------------------------------------------------------------------------------------------

# static friction peak*mu*cgeo*fn = 1.5*0.3*0.1*100 = 4.5 N.m, sliding 3 N.m
MU_B, CGEO_B, FN_B, PEAK_B, J_B = 0.3, 0.1, 100.0, 1.5, 2.0


class BrakedInertia(Component):
    load = rotational.ConstantTorque(tau_constant=0.0)
    shaft = rotational.Inertia(J=J_B, phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=0.0, fixed=True))
    brake = Brake(mu_pos=[[0.0, MU_B]], cgeo=CGEO_B, fn_max=FN_B, peak=PEAK_B, useSupport=True)
    ground = rotational.Fixed()

    def connections(self):
        return [connect(self.load.flange, self.shaft.flange_a),
                connect(self.shaft.flange_b, self.brake.flange_a),
                connect(self.brake.support, self.ground.flange)]

    def equations(self):
        return [Eq(self.brake.f_normalized.u, 1.0)]


@pytest.fixture(scope="module")
def braked():
    return compile(BrakedInertia())


def test_brake_holds_below_its_static_friction(braked):
    sol = braked.simulate(2.0, dt=0.01, params={"load.tau_constant": 4.0}, **TIGHT)
    assert mode_changes(sol, "brake.mode") == [(0.0, 0.0)]
    np.testing.assert_allclose(sol["shaft.w"], 0.0, atol=1e-12)
    # the brake holds the load, and its support (the housing) takes the reaction
    np.testing.assert_allclose(sol["brake.tau"], 4.0, atol=1e-10)
    np.testing.assert_allclose(sol["brake.support.tau"], -4.0, atol=1e-10)


def test_brake_slides_above_its_static_friction(braked):
    sol = braked.simulate(2.0, dt=0.01, params={"load.tau_constant": 5.0}, **TIGHT)
    # 5 > 4.5: breaks away at the start, then a = (5 - 3)/2 = 1 rad/s2
    assert mode_changes(sol, "brake.mode") == [(0.0, 1.0)]
    np.testing.assert_allclose(sol["shaft.w"], np.asarray(sol.t), atol=1e-8)
    np.testing.assert_allclose(sol["brake.tau"][1:], MU_B * CGEO_B * FN_B, atol=1e-10)


def test_brake_stops_a_spinning_shaft_and_holds_it(braked):
    # a load of 4 N.m beats the 3 N.m sliding friction: the spinning shaft speeds up at
    # (4 - 3)/2 = 0.5 rad/s2 (a stuck brake would hold 4 N.m: static friction is 4.5 N.m)
    sol = braked.simulate(2.0, dt=0.01, params={"load.tau_constant": 4.0},
                          start={"shaft.w": 6.0}, **TIGHT)
    assert mode_changes(sol, "brake.mode") == [(0.0, 1.0)]
    np.testing.assert_allclose(sol["shaft.w"], 6.0 + 0.5 * np.asarray(sol.t), atol=1e-8)
    # a load of -1 N.m: the shaft slows at (3 + 1)/2 = 2 rad/s2, stops at 2 s, and the brake
    # then holds the 1 N.m load
    sol = braked.simulate(4.0, dt=0.01, params={"load.tau_constant": -1.0},
                          start={"shaft.w": 4.0}, **TIGHT)
    assert mode_changes(sol, "brake.mode") == [(0.0, 1.0), (pytest.approx(2.0, abs=1e-8), 0.0)]
    t = np.asarray(sol.t)
    np.testing.assert_allclose(sol["shaft.w"], np.maximum(4.0 - 2.0 * t, 0.0), atol=1e-8)
    np.testing.assert_allclose(sol["brake.tau"][t > 2.0], -1.0, atol=1e-9)


# ---------------------------------------------------------------------------------------------
# One-way clutch: locks when the input would overtake the output, freewheels otherwise
# ---------------------------------------------------------------------------------------------


class Freewheel(Component):
    """Input J = 1 driven by +3 N.m until 2 s, then -3 N.m; output J = 2 without load; the
    clutch of the one-way clutch disengaged (f_normalized = 0)."""

    drive = rotational.Torque()
    step = event_sources.Step(height=-6.0, offset=3.0, start_time=2.0)
    j_in = inertia(1.0, 0.0)
    owc = OneWayClutch()
    j_out = inertia(2.0, 1.0)

    def connections(self):
        return [connect(self.drive.flange, self.j_in.flange_a),
                connect(self.j_in.flange_b, self.owc.flange_a),
                connect(self.owc.flange_b, self.j_out.flange_a)]

    def equations(self):
        return [Eq(self.drive.tau, self.step.y.u), Eq(self.owc.f_normalized.u, 0.0)]


def test_one_way_clutch_locks_one_way_and_freewheels_the_other():
    sol = compile(Freewheel()).simulate(3.0, dt=0.01, **TIGHT)
    # overrunning (w_rel = 1 > 0) until the input catches up: 3 t = 1 at t = 1/3; locked, both
    # accelerate at 3/(1 + 2) = 1 rad/s2 up to 1 + 5/3 = 8/3 rad/s at 2 s; then the input
    # brakes at -3 rad/s2 and the output freewheels at 8/3 rad/s
    assert mode_changes(sol, "owc.mode") == [(0.0, 1.0), (pytest.approx(1 / 3, abs=1e-8), 0.0),
                                             (pytest.approx(2.0, abs=1e-12), 1.0)]
    t = np.asarray(sol.t)
    w_lock = 1.0 + (np.minimum(t, 2.0) - 1 / 3)
    w_in = np.where(t < 1 / 3, 3.0 * t, np.where(t < 2.0, w_lock, 8 / 3 - 3.0 * (t - 2.0)))
    w_out = np.where(t < 1 / 3, 1.0, w_lock)
    np.testing.assert_allclose(sol["j_in.w"], w_in, atol=1e-8)
    np.testing.assert_allclose(sol["j_out.w"], w_out, atol=1e-8)
    # locked it transmits J_out*a = 2 N.m (flange_b.tau = tau = -2: it drives the output)
    locked = (t > 1 / 3 + 1e-6) & (t < 2.0)
    np.testing.assert_allclose(sol["owc.tau"][locked], -2.0, atol=1e-8)
    np.testing.assert_allclose(sol["owc.lossPower"], 0.0, atol=1e-12)  # f_normalized = 0


# ---------------------------------------------------------------------------------------------
# MSL's BearingFriction (tau_pos table)
# ---------------------------------------------------------------------------------------------


class TableBearing(Component):
    """J = 1 at 5 rad/s on a bearing with tau_pos = 1 + w (0..1), 1.5 + 0.5 w (beyond 1,
    through the last two rows) [N.m]; a constant torque on the shaft."""

    load = rotational.ConstantTorque(tau_constant=0.0)
    shaft = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=5.0, fixed=True))
    bearing = BearingFriction(tau_pos=[[0.0, 1.0], [1.0, 2.0], [2.0, 2.5]], peak=1.5,
                              useSupport=True)
    ground = rotational.Fixed()

    def connections(self):
        return [connect(self.load.flange, self.shaft.flange_a),
                connect(self.shaft.flange_b, self.bearing.flange_a),
                connect(self.bearing.support, self.ground.flange)]


def test_bearing_friction_table_and_hold():
    model = compile(TableBearing())
    # BDF: the table's kink at w = 1 (t1) lies inside a step; Adams' high-order steps (the
    # default's start) put t2 3e-8 s off at this tolerance, BDF within 1e-9 s
    sol = model.simulate(3.0, dt=0.01, integrator_options={"method": "BDF"}, **TIGHT)
    # w >= 1: w' = -(1.5 + 0.5 w): w + 3 = 8 exp(-t/2), w = 1 at t1 = 2 ln 2;
    # w <= 1: w' = -(1 + w): w + 1 = 2 exp(-(t - t1)), w = 0 at t1 + ln 2 = 3 ln 2
    t1, t2 = 2 * math.log(2), 3 * math.log(2)
    assert mode_changes(sol, "bearing.mode") == [(0.0, 1.0), (pytest.approx(t2, abs=1e-8), 0.0)]
    t = np.asarray(sol.t)
    w = np.where(t < t1, 8 * np.exp(-t / 2) - 3, np.maximum(2 * np.exp(-(t - t1)) - 1, 0.0))
    np.testing.assert_allclose(sol["shaft.w"], w, atol=1e-8)
    # at rest it holds up to peak*tau_pos(0) = 1.5 N.m, and slides above it
    held = model.simulate(1.0, dt=0.01, params={"load.tau_constant": 1.4},
                          start={"shaft.w": 0.0}, **TIGHT)
    np.testing.assert_allclose(held["shaft.w"], 0.0, atol=1e-12)
    np.testing.assert_allclose(held["bearing.support.tau"], -1.4, atol=1e-10)
    slides = model.simulate(1.0, dt=0.01, params={"load.tau_constant": 1.6},
                            start={"shaft.w": 0.0}, **TIGHT)
    # from rest: w' = 1.6 - (1 + w), w = 0.6 (1 - exp(-t))
    np.testing.assert_allclose(slides["shaft.w"], 0.6 * (1 - np.exp(-slides.t)), atol=1e-8)


# ---------------------------------------------------------------------------------------------
# parameters
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("overrides, words", [
    ({"peak": 0.5}, ["peak", ">= 1"]),
    ({"mu_pos": [[1.0, 0.5], [0.0, 0.3]]}, ["Clutch 'clutch'", "mu_pos", "increasing"]),
    ({"mu_pos": [0.5]}, ["Clutch 'clutch'", "mu_pos", "2-D"]),
    ({"fn_max": -1.0}, ["fn_max", ">= 0"]),
])
def test_bad_parameters_are_named(overrides, words):
    class Rig(Component):
        j = inertia(1.0, 1.0)
        clutch = Clutch(**overrides)

        def connections(self):
            return [connect(self.j.flange_b, self.clutch.flange_a)]

        def equations(self):
            return [Eq(self.clutch.f_normalized.u, 1.0)]

    with pytest.raises(ParameterError) as info:
        compile(Rig()).simulate(0.1)
    for word in words:
        assert word in str(info.value)


def test_tables_from_a_csv_file(tmp_path):
    """A friction table given as the path of a CSV file (tau_pos = [[0, 0.5], [1, 1]]): the
    bearing decelerates a unit inertia from 1 rad/s by 0.5 + 0.5 w, w = 2 exp(-t/2) - 1, and
    stops at 2 ln 2; Clutch, and the translational SupportFriction and Brake, read theirs too."""
    from acausal.components.translational_friction import Brake as TranslationalBrake
    from acausal.components.translational_friction import SupportFriction

    path = tmp_path / "tau_pos.csv"
    path.write_text("w,tau\n0,0.5\n1,1\n")

    class Spin(Component):
        j = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=1.0, fixed=True))
        b = BearingFriction(tau_pos=str(path))

        def connections(self):
            return [connect(self.j.flange_a, self.b.flange_a)]

    sol = compile(Spin()).simulate(3.0, rtol=1e-10, atol=1e-12)
    assert sol.events[-1][0] == pytest.approx(2 * math.log(2), abs=1e-8)
    for cls, name in ((Clutch, "mu_pos"), (SupportFriction, "f_pos"),
                      (TranslationalBrake, "mu_pos")):
        assert cls(**{name: path})._overrides[name] == ((0.0, 0.5), (1.0, 1.0))
