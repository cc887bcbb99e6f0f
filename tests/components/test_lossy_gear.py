"""LossyGear (``acausal.components.lossy_gear``, MSL 4.0 ``Rotational.Components.LossyGear``)
against closed-form cases.

* The four quadrants: flange_b turned at a prescribed speed, a torque ``T_a`` on flange_a; the
  torque flange_b passes on is ``-flange_b.tau = ratio (eta_mf1 T_a - tau_bf1)`` when flange_a
  drives forward, ``ratio (T_a/eta_mf2 - tau_bf2)`` when flange_b drives forward and the same
  with ``+tau_bf`` backward; without bearing friction the power ratio is ``eta_mf1`` (flange_a
  drives) or ``eta_mf2`` (flange_b drives), and ``lossPower`` is the power that goes in minus
  the power that comes out. The efficiencies and bearing torques are read from a two-row table
  at ``|w_a|`` (also beyond its last row: extrapolation through the last two rows).
* The locked mode: a gear with efficiencies 0.4 (< 0.5) holds a load ``W`` (on flange_b) for any
  motor torque ``eta_mf2 W/ratio <= T_a <= W/(ratio eta_mf1)``; a falling motor torque lets the
  load drive the gear backward at the predicted instant, a rising one lifts it; bearing
  friction alone holds a small load without motor torque.
* The heat port (``lossPower`` heats a capacitor), the support's reaction, the ideal table
  (mode Free, no loss) and the parameter checks.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect, time
from acausal.components.lossy_gear import LossyGear
from acausal.components.rotational import Fixed, Inertia, Torque
from acausal.components.rotational_sources import Speed
from acausal.components.thermal import HeatCapacitor
from acausal.errors import ParameterError

TIGHT = {"rtol": 1e-10, "atol": 1e-12}

# two rows: eta_mf1, eta_mf2, tau_bf1, tau_bf2 linear in |w_a| between 0 and 10 rad/s
TABLE = [[0.0, 0.9, 0.8, 0.2, 0.4], [10.0, 0.7, 0.6, 0.6, 1.0]]
RATIO = 3.0
T_A = 10.0  # N.m on flange_a


def losses(w_a):
    """eta_mf1, eta_mf2, tau_bf1, tau_bf2 of TABLE at |w_a| (linear, also beyond 10 rad/s)."""
    s = abs(w_a) / 10.0
    return 0.9 - 0.2 * s, 0.8 - 0.2 * s, 0.2 + 0.4 * s, 0.4 + 0.6 * s


class Quadrant(Component):
    """flange_a driven by the torque ``tau_a``; flange_b turned at ``w_b`` (exact speed)."""

    gear = LossyGear(ratio=RATIO, lossTable=TABLE)
    torque = Torque()
    speed = Speed(exact=True)

    def __init__(self, tau_a, w_b, **kw):
        super().__init__(**kw)
        self._tau_a, self._w_b = tau_a, w_b

    def equations(self):
        return [Eq(self.torque.tau, self._tau_a), Eq(self.speed.w_ref.u, self._w_b)]

    def connections(self):
        return [connect(self.torque.flange, self.gear.flange_a),
                connect(self.gear.flange_b, self.speed.flange)]


class FourQuadrants(Component):
    """One rig per quadrant, the speeds ramping so that |w_a| = 3 (1 + 3 t) rad/s passes the
    table's last row (10 rad/s) at t = 7/9 s."""

    q1 = Quadrant(T_A, 1 + 3 * time)        # w_a > 0, flange_a drives
    q2 = Quadrant(-T_A, 1 + 3 * time)       # w_a > 0, flange_b drives
    q3 = Quadrant(-T_A, -(1 + 3 * time))    # w_a < 0, flange_a drives
    q4 = Quadrant(T_A, -(1 + 3 * time))     # w_a < 0, flange_b drives


@pytest.fixture(scope="module")
def quadrants():
    return compile(FourQuadrants()).simulate(1.0, n_points=101, **TIGHT)


def test_quadrants_transmit_the_closed_form_torque(quadrants):
    sol = quadrants
    w_a = RATIO * (1 + 3 * sol.t)
    e1, e2, bf1, bf2 = losses(w_a)
    expected = {  # -flange_b.tau in each quadrant (MSL's documentation of LossyGear)
        "q1": RATIO * (e1 * T_A - bf1), "q2": RATIO * (-T_A / e2 - bf2),
        "q3": RATIO * (-e1 * T_A + bf1), "q4": RATIO * (T_A / e2 + bf2)}
    for name, value in expected.items():
        np.testing.assert_allclose(-sol[f"{name}.gear.flange_b.tau"], value, rtol=1e-9,
                                   err_msg=name)
    np.testing.assert_allclose(sol["q1.gear.eta_mf1"], e1, rtol=1e-12)
    np.testing.assert_allclose(sol["q4.gear.tau_bf2"], bf2, rtol=1e-12)
    # the bearing split of MSL: tau_bf_a = (tau_bf1 - tau_bf2)/(eta_mf1 - 1/eta_mf2)
    np.testing.assert_allclose(sol["q2.gear.tau_bf_a"], (bf1 - bf2) / (e1 - 1 / e2), rtol=1e-10)
    assert np.all(sol["q1.gear.mode"] == 1) and np.all(sol["q2.gear.mode"] == 1)
    assert np.all(sol["q3.gear.mode"] == -1) and np.all(sol["q4.gear.mode"] == -1)
    assert not sol.events


def test_loss_power_is_power_in_minus_power_out(quadrants):
    sol = quadrants
    for name in ("q1", "q2", "q3", "q4"):
        g = f"{name}.gear"
        w_a = np.gradient(sol[f"{g}.phi_a"], sol.t, edge_order=2)
        np.testing.assert_allclose(sol[f"{g}.w_a"], w_a, rtol=1e-6)
        p_in = sol[f"{g}.flange_a.tau"] * sol[f"{g}.w_a"] \
            + sol[f"{g}.flange_b.tau"] * sol[f"{g}.w_a"] / RATIO
        np.testing.assert_allclose(sol[f"{g}.lossPower"], p_in, rtol=1e-10, atol=1e-9)
        assert np.all(sol[f"{g}.lossPower"] > 0)


NO_BEARING = [[0.0, 0.95, 0.6, 0.0, 0.0]]


class Efficiency(Component):
    """Quadrant rigs without bearing friction: the power ratio is the mesh efficiency."""

    a_drives = Quadrant(T_A, 2.0, gear=LossyGear(ratio=RATIO, lossTable=NO_BEARING))
    b_drives = Quadrant(-T_A, 2.0, gear=LossyGear(ratio=RATIO, lossTable=NO_BEARING))


def test_power_ratio_is_the_mesh_efficiency():
    sol = compile(Efficiency()).simulate(0.1, n_points=3, **TIGHT)
    w_a, w_b = 2.0 * RATIO, 2.0
    # flange_a drives: power out at flange_b / power in at flange_a = eta_mf1
    p_a = sol["a_drives.gear.flange_a.tau"] * w_a
    p_b = -sol["a_drives.gear.flange_b.tau"] * w_b
    np.testing.assert_allclose(p_b / p_a, 0.95, rtol=1e-12)
    # flange_b drives: power out at flange_a / power in at flange_b = eta_mf2
    p_a = -sol["b_drives.gear.flange_a.tau"] * w_a
    p_b = sol["b_drives.gear.flange_b.tau"] * w_b
    np.testing.assert_allclose(p_a / p_b, 0.6, rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# locked: holding a load
# ---------------------------------------------------------------------------------------------

ETA, R, W, JB = 0.4, 2.0, 8.0, 0.5  # efficiencies, ratio, load on flange_b [N.m], inertia


class Hoist(Component):
    """A motor torque ``T_a(t)`` on flange_a holds the load ``W`` (a constant torque pulling
    flange_b backward) through the gear; the load's inertia ``JB`` sits on flange_b."""

    gear = LossyGear(ratio=R, lossTable=[[0.0, ETA, ETA, 0.0, 0.0]])
    motor = Torque()
    drum = Inertia(J=JB, phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
    load = Torque()

    def __init__(self, motor_torque, load=W, **kw):
        super().__init__(**kw)
        self._motor, self._load = motor_torque, load

    def equations(self):
        return [Eq(self.motor.tau, self._motor), Eq(self.load.tau, -self._load)]

    def connections(self):
        return [connect(self.motor.flange, self.gear.flange_a),
                connect(self.gear.flange_b, self.drum.flange_a),
                connect(self.drum.flange_b, self.load.flange)]


# held for eta_mf2 W/R = 1.6 <= T_a <= W/(R eta_mf1) = 10 N.m
T_LOW, T_HIGH = ETA * W / R, W / (R * ETA)


def test_locked_gear_holds_the_load_until_the_motor_torque_leaves_the_band():
    t0, rate = 6.0, 2.0  # T_a = 6 - 2 t: leaves the band at T_LOW
    sol = compile(Hoist(t0 - rate * time)).simulate(3.0, n_points=301, **TIGHT)
    t_star = (t0 - T_LOW) / rate  # 2.2 s
    assert [round(t, 9) for t, _ in sol.events] == [round(t_star, 9)]
    np.testing.assert_allclose(sol.events[0][0], t_star, atol=1e-9)
    assert list(sol.event_values("gear.mode")) == [-1.0]
    held = sol.t < t_star
    assert np.all(sol["gear.mode"][held] == 0)
    assert np.max(np.abs(sol["drum.w"][held])) < 1e-12
    # while locked, the loss is what holds: tauLoss = T_a - W/R, inside the band
    np.testing.assert_allclose(sol["gear.tauLoss"][held],
                               (t0 - rate * sol.t[held]) - W / R, atol=1e-10)
    # then flange_b drives backward: -flange_b.tau = R T_a/eta_mf2 (quadrant 4), so
    # JB a_b = R T_a/eta - W with T_a = T_LOW - rate (t - t*): a_b = -(R rate/(eta JB)) (t - t*)
    k = R * rate / (ETA * JB)
    s = sol.t[~held] - t_star
    np.testing.assert_allclose(sol["drum.w"][~held], -k * s**2 / 2, atol=1e-8)
    np.testing.assert_allclose(sol["drum.phi"][~held], -k * s**3 / 6, atol=1e-8)


def test_rising_motor_torque_lifts_the_load_at_the_band_top():
    t0, rate = 6.0, 2.0  # T_a = 6 + 2 t: leaves the band at T_HIGH
    sol = compile(Hoist(t0 + rate * time)).simulate(3.0, n_points=301, **TIGHT)
    t_star = (T_HIGH - t0) / rate  # 2 s
    assert len(sol.events) == 1
    np.testing.assert_allclose(sol.events[0][0], t_star, atol=1e-9)
    assert list(sol.event_values("gear.mode")) == [1.0]
    # flange_a drives forward: JB a_b = R eta T_a - W = R eta rate (t - t*)
    s = sol.t[sol.t > t_star] - t_star
    np.testing.assert_allclose(sol["drum.w"][sol.t > t_star], R * ETA * rate / JB * s**2 / 2,
                               atol=1e-8)


@pytest.mark.parametrize("load", [0.8, 1.2])
def test_bearing_friction_alone_holds_a_small_load(load):
    # tau_bf1 = tau_bf2 = 0.5 N.m at flange_a: without motor torque the band is [-0.5, 0.5]
    # (tau_bf_a_0 = 0), so the gear holds a load with W/R <= 0.5 N.m; a larger one turns it
    # backward with the bearing loss: -flange_b.tau = R tau_bf2, JB a_b = R tau_bf2 - W
    gear = LossyGear(ratio=R, lossTable=[[0.0, ETA, ETA, 0.5, 0.5]])
    sol = compile(Hoist(0.0, load=load, gear=gear)).simulate(0.5, n_points=11, **TIGHT)
    assert not sol.events
    if load / R <= 0.5:
        assert np.all(sol["gear.mode"] == 0)
        np.testing.assert_allclose(sol["gear.tauLoss"], -load / R, rtol=1e-12)
        assert np.max(np.abs(sol["drum.w"])) < 1e-14
    else:
        assert np.all(sol["gear.mode"] == -1)
        np.testing.assert_allclose(sol["drum.w"], (R * 0.5 - load) / JB * sol.t, atol=1e-12)


# ---------------------------------------------------------------------------------------------
# heat port, support, ideal table, parameter checks
# ---------------------------------------------------------------------------------------------


class Heated(Component):
    """flange_a driven by T_A at constant speed; the loss heats a capacitor of C = 100 J/K."""

    gear = LossyGear(ratio=RATIO, lossTable=[[0.0, 0.8, 0.8, 0.3, 0.3]], useHeatPort=True,
                     useSupport=True)
    housing = Fixed()
    torque = Torque()
    speed = Speed(exact=True)
    capacitor = HeatCapacitor(C=100.0, T=Variable(start=300.0, fixed=True))

    def equations(self):
        return [Eq(self.torque.tau, T_A), Eq(self.speed.w_ref.u, 2.0)]

    def connections(self):
        return [connect(self.torque.flange, self.gear.flange_a),
                connect(self.gear.flange_b, self.speed.flange),
                connect(self.gear.support, self.housing.flange),
                connect(self.gear.heatPort, self.capacitor.port)]


def test_heat_port_carries_the_loss_power_and_the_support_the_reaction():
    sol = compile(Heated()).simulate(2.0, n_points=21, **TIGHT)
    w_a = 2.0 * RATIO
    loss = ((1 - 0.8) * T_A + 0.3) * w_a  # quadrant 1: tauLoss = (1 - eta) T_a + tau_bf1
    np.testing.assert_allclose(sol["gear.lossPower"], loss, rtol=1e-12)
    np.testing.assert_allclose(sol["gear.heatPort.Q_flow"], -loss, rtol=1e-12)
    np.testing.assert_allclose(sol["capacitor.T"], 300.0 + loss * sol.t / 100.0, rtol=1e-10)
    np.testing.assert_allclose(sol["gear.support.tau"],
                               -(sol["gear.flange_a.tau"] + sol["gear.flange_b.tau"]),
                               rtol=1e-12)
    np.testing.assert_allclose(-sol["gear.flange_b.tau"], RATIO * (0.8 * T_A - 0.3), rtol=1e-12)


def test_ideal_table_is_lossless_and_free():
    sol = compile(Quadrant(T_A, 2.0, gear=LossyGear(ratio=RATIO))).simulate(
        0.1, n_points=3, **TIGHT)
    assert np.all(sol["gear.mode"] == 2)  # MSL: mode = Free while ideal
    np.testing.assert_allclose(sol["gear.tauLoss"], 0.0, atol=1e-14)
    np.testing.assert_allclose(-sol["gear.flange_b.tau"], RATIO * T_A, rtol=1e-14)
    np.testing.assert_allclose(sol["gear.lossPower"], 0.0, atol=1e-14)


def test_table_from_csv_and_rows_with_unit_efficiency(tmp_path):
    # a CSV table (one header line) gives the same gear as the array
    path = tmp_path / "losses.csv"
    path.write_text("w,eta_mf1,eta_mf2,tau_bf1,tau_bf2\n"
                    + "\n".join(",".join(str(v) for v in row) for row in TABLE) + "\n")
    sol = compile(Quadrant(T_A, 2.0, gear=LossyGear(ratio=RATIO, lossTable=str(path)))).simulate(
        0.1, n_points=3, **TIGHT)
    e1, _, bf1, _ = losses(2.0 * RATIO)
    np.testing.assert_allclose(-sol["gear.flange_b.tau"], RATIO * (e1 * T_A - bf1), rtol=1e-12)
    # a row with eta_mf1 = eta_mf2 = 1: at its speed MSL splits the bearing friction in halves
    # (tau_bf_a = tau_bf1/2; here w_a = 0, the gear at rest and stuck), elsewhere by
    # (tau_bf1 - tau_bf2)/(eta_mf1 - 1/eta_mf2) (here at w_a = 5 rad/s)
    table = [[0.0, 1.0, 1.0, 0.5, 0.5], [10.0, 0.8, 0.8, 1.0, 1.5]]
    rest = compile(Hoist(0.0, load=0.0, gear=LossyGear(ratio=R, lossTable=table))).simulate(
        0.1, n_points=3, **TIGHT)
    assert np.all(rest["gear.mode"] == 0) and np.all(rest["gear.w_a"] == 0)
    np.testing.assert_allclose(rest["gear.tau_bf_a"], 0.25, rtol=1e-12)
    rig = Quadrant(T_A, 5.0 / RATIO, gear=LossyGear(ratio=RATIO, lossTable=table))
    sol = compile(rig).simulate(0.1, n_points=3, **TIGHT)
    np.testing.assert_allclose(sol["gear.tau_bf_a"], (0.75 - 1.0) / (0.9 - 1 / 0.9),
                               rtol=1e-12)


@pytest.mark.parametrize("kw, words", [
    ({"ratio": 0}, "ratio"),
    ({"lossTable": [[0, 1, 1, 0]]}, "5"),
    ({"lossTable": [[0, 1.2, 1, 0, 0]]}, "(0, 1]"),
    ({"lossTable": [[0, 0.9, 0.0, 0, 0]]}, "(0, 1]"),
    ({"lossTable": [[0, 1, 1, 0.2, 0.5]]}, "must be equal"),
    ({"lossTable": [[1, 0.9, 0.9, 0, 0], [0, 0.8, 0.8, 0, 0]]}, "increasing"),
])
def test_bad_parameters_are_named(kw, words):
    with pytest.raises(ParameterError, match="LossyGear") as err:
        LossyGear(**kw)
    assert words in str(err.value)
