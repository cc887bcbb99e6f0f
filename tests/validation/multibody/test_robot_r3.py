"""MultiBody's robot r3 (``Examples.Systems.RobotR3``): ``FullRobot`` against the Dymola
reference (DASSL, tolerance 1e-6, MSL 4.0, 1.856 s: the path planning's terminateSimulation),
its initial state, its friction modes, its energy balance; ``OneAxis`` (no reference: checked
against its own reference path); the two-flange ``BearingFriction`` against a closed-form
stick/slip solution.

Every compared continuous signal of FullRobot agrees with the reference to < 1e-5 of its range
(the largest, axis6.motor.C.v, 5e-6; at the default solver tolerances 3e-5: the rest is the
reference's own error). The friction modes are discrete: they agree at every output point
except at the reference's event instants, where Dymola stores the values before and after the
event at the same time, and where Dymola's break-away takes two events 1e-8 s apart (MSL's
``startForward``, then ``mode``): there ours equals one of the reference's values within 1e-6 s.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect, der, time
from acausal.components import rotational
from acausal.components.blocks import Constant
from acausal.components.multibody.robot_r3 import BearingFriction, FullRobot, OneAxis
from acausal.errors import ParameterError

# The reference's own error is ~1e-6 relative (Dymola, tol 1e-6); these tolerances put ours
# well below it (at the defaults, rtol 1e-6, the largest difference is 3e-5 of a range).
RTOL, ATOL = 1e-9, 1e-11

AXES = [f"axis{i}" for i in range(1, 7)]
EXPECTED_STATES = (
    [f"mechanics.r{i}.{v}" for i in range(1, 7) for v in ("phi", "w")]
    + [f"axis{i}.gear.spring.{v}" for i in (1, 2, 3) for v in ("phi_rel", "w_rel")]
    + [f"{a}.{v}" for a in AXES for v in ("motor.La.i", "motor.C.v", "controller.PI.x")])

# Dymola's values (FullRobot.csv) at t = 0 (PI.x, La.i, C.v, spring deflection: the robot held
# against gravity by its motors, friction torque zero)
REF_T0 = {"axis2.controller.PI.x": -5.146937, "axis2.gear.spring.phi_rel": 0.27415086,
          "axis2.motor.C.v": 94.404567, "axis2.motor.La.i": -1.8880913,
          "axis3.controller.PI.x": -7.7260604, "axis3.gear.spring.phi_rel": 0.073678181,
          "axis3.motor.C.v": 183.94174, "axis3.motor.La.i": -3.6788348,
          "axis4.controller.PI.x": -1.2008488, "axis4.motor.C.v": 30.02122,
          "axis4.motor.La.i": -0.60042439, "axis5.controller.PI.x": -1.4485586,
          "axis5.motor.C.v": 36.213966, "axis5.motor.La.i": -0.72427932,
          "axis1.controller.PI.x": 0.0, "axis1.motor.La.i": 0.0, "axis6.motor.La.i": 0.0}
# Dymola's values at t = 0.5 s, 1.0 s and the end (1.8560450019 s), and each signal's range
REF_POINTS = {
    0.5: {"axis1.controller.PI.x": 2.0422526, "axis2.gear.spring.phi_rel": 0.071193628,
          "axis3.motor.La.i": -2.4236929, "axis4.motor.C.v": 112.16909,
          "axis5.controller.PI.x": -1.1038407, "axis6.motor.La.i": -2.143312,
          "mechanics.r1.phi": -0.29997126, "mechanics.r2.phi": -0.21106371,
          "mechanics.r3.w": -1.7692782, "mechanics.r5.w": 3.0995328,
          "mechanics.b2.w_a[0]": -1.2739391},
    1.0: {"axis1.controller.PI.x": -2.963035, "axis2.gear.spring.phi_rel": -0.49862041,
          "axis3.motor.La.i": 3.2704601, "axis4.motor.C.v": -97.371666,
          "axis5.controller.PI.x": 4.9424892, "axis6.motor.La.i": 0.41545104,
          "mechanics.r1.phi": 0.54376063, "mechanics.r2.phi": -0.84775444,
          "mechanics.r3.w": -1.7538436, "mechanics.r5.w": 3.0976361,
          "mechanics.b2.w_a[0]": -1.2701913},
    1.8560450019040893: {
          "axis1.controller.PI.x": -0.67734433, "axis2.gear.spring.phi_rel": -0.44691113,
          "axis3.motor.La.i": 2.1158103, "axis4.motor.C.v": -70.569673,
          "axis5.controller.PI.x": -2.8486296, "axis6.motor.La.i": -1.278482,
          "mechanics.r1.phi": 1.0468224, "mechanics.r2.phi": -1.2236472,
          "mechanics.r3.w": -0.0041258574, "mechanics.r5.w": -0.0018542564,
          "mechanics.b2.w_a[0]": -0.0011042329}}
REF_RANGE = {"axis1.controller.PI.x": 32.61, "axis2.gear.spring.phi_rel": 2.934,
             "axis3.motor.La.i": 32.21, "axis4.motor.C.v": 682.7,
             "axis5.controller.PI.x": 17.69, "axis6.motor.La.i": 10.48,
             "mechanics.r1.phi": 2.099, "mechanics.r2.phi": 1.578, "mechanics.r3.w": 2.357,
             "mechanics.r5.w": 3.213, "mechanics.b2.w_a[0]": 1.612}
# the friction modes' sequences in the reference (+1 forward, 0 stuck, -1 backward)
REF_MODES = {"axis1": [0, -1, 1, 0, -1], "axis2": [0, -1, 1, 0, -1, 0, 1, 0, -1, 0, -1],
             "axis3": [0, -1, 0, 1, 0, -1, 0, -1, 0, -1], "axis4": [0, 1, 0, -1, 0],
             "axis5": [0, 1, -1, 0, -1], "axis6": [0, 1, 0, 1]}


@pytest.fixture(scope="module")
def robot():
    model = FullRobot()
    return model, compile(model)


@pytest.fixture(scope="module")
def robot_run(robot):
    """FullRobot over its run, at the reference's output grid (times with duplicates removed;
    a uniform 0.0004 s grid plus the reference's event instants) or, without the reference,
    at 0.0004 s plus the checkpoint times."""
    model, cs = robot
    ref = _raw_reference()
    if ref is not None:
        times = np.unique(ref["time"])
    else:
        times = np.union1d(np.linspace(0.0, model.stopTime, 4641), list(REF_POINTS))
    return cs.simulate(float(times[-1]), t_eval=times, rtol=RTOL, atol=ATOL), times


def _raw_reference():
    """All rows of FullRobot.csv (with the duplicated event rows), or None."""
    root = os.environ.get("ACAUSAL_REFERENCE_DIR") \
        or Path(__file__).resolve().parents[4] / "shared" / "reference"
    path = Path(root) / "multibody" / "FullRobot" / "FullRobot.csv"
    if not path.is_file():
        return None
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle))
    data = np.array([[float(v) for v in row] for row in rows[1:] if row])
    return {name: data[:, i] for i, name in enumerate(rows[0])}


def test_full_robot_states(robot):
    # MSL's states: joint angles and speeds (InitializeFlange, Revolute: StateSelect.prefer),
    # the gear springs' phi_rel, w_rel (prefer), the motors' C.v, La.i and the PI states
    _, cs = robot
    assert sorted(cs.state_names) == sorted(EXPECTED_STATES)
    assert len(cs.state_names) == 36


def test_full_robot_stop_time():
    # KinematicPTP2: axis 5 (220 deg at 3.1 rad/s) limits the speed, axis 3 (125 deg at
    # 15 rad/s2) the acceleration; end time 1.356045 s plus the swing time 0.5 s
    model = FullRobot()
    assert model.pathPlanning.kinematicPTP.endTime == pytest.approx(1.3560450019040893, 1e-14)
    assert model.stopTime == pytest.approx(1.8560450019040893, 1e-14)


def test_full_robot_initial_state(robot_run, robot):
    """At t = 0 the robot rests at the start angles, held against gravity by its motors: the
    friction torques are zero (as in Dymola's result) and each motor's torque k*La.i balances
    the load torque, e.g. axis 2's gear spring torque c*phi_rel."""
    sol, _ = robot_run
    model, _ = robot
    for name, value in REF_T0.items():
        assert sol[name][0] == pytest.approx(value, abs=1e-6 * max(1.0, abs(value))), name
    for i, (beg, axis) in enumerate(zip((-60, 20, 90, 0, -110, 0), AXES), start=1):
        assert sol[f"mechanics.r{i}.phi"][0] == pytest.approx(math.radians(beg), abs=1e-12)
        assert sol[f"mechanics.r{i}.w"][0] == pytest.approx(0.0, abs=1e-12)
        assert sol[f"{axis}.gear.bearingFriction.f"][0] == pytest.approx(0.0, abs=1e-9)
        assert sol[f"{axis}.gear.bearingFriction.mode"][0] == 0
    # axis 2: motor torque (k = 1.1616 N.m/A) = spring torque (c = 8 N.m/rad)
    assert 1.1616 * sol["axis2.motor.La.i"][0] == pytest.approx(
        -8.0 * sol["axis2.gear.spring.phi_rel"][0], rel=1e-9)


def test_full_robot_checkpoints(robot_run):
    """Values typed in from the reference (run without ../shared too)."""
    sol, times = robot_run
    for t, values in REF_POINTS.items():
        k = int(np.argmin(np.abs(times - t)))
        assert abs(times[k] - t) < 1e-9
        for name, value in values.items():
            err = abs(sol[name][k] - value) / REF_RANGE[name]
            assert err < 1e-5, f"{name} at t = {t}: {sol[name][k]} vs {value} ({err:.2g})"


def test_full_robot_against_the_reference(robot_run, msl, check_signal):
    sol, _ = robot_run
    ref = msl("FullRobot")
    errors = {}
    for name in ref:
        if name == "time" or name.endswith("bearingFriction.mode"):
            continue
        ours = name.replace("mechanics.b2.body.", "mechanics.b2.")
        errors[name] = check_signal(name, sol[ours], ref[name], tol=1e-5)
    assert len(errors) == 36
    assert max(errors.values()) < 1e-5


def test_full_robot_friction_modes(robot_run):
    """Ours equals the reference at every output point, or, at an event instant, one of the
    reference's values stored within 1e-6 s (before/after the event; Dymola's two-step
    break-away); the sequences of modes are the reference's."""
    sol, times = robot_run
    for axis, sequence in REF_MODES.items():
        ours = np.asarray(sol[f"{axis}.gear.bearingFriction.mode"])
        assert [int(m) for m in _runs(ours)] == sequence, axis
    ref = _raw_reference()
    if ref is None:
        pytest.skip("FullRobot.csv not available: only the mode sequences were checked")
    for axis in REF_MODES:
        ours = np.asarray(sol[f"{axis}.gear.bearingFriction.mode"])
        column = ref[f"{axis}.gear.bearingFriction.mode"]
        for k, t in enumerate(times):
            near = column[np.abs(ref["time"] - t) <= 1e-6]
            assert ours[k] in near, f"{axis} mode at t = {t}: {ours[k]} not in {near}"
        assert list(_runs(column)) == REF_MODES[axis]


def _runs(values):
    """The values of a piecewise-constant signal with repeats removed."""
    values = np.asarray(values)
    keep = np.concatenate([[True], values[1:] != values[:-1]])
    return values[keep]


class _RobotWork(FullRobot):
    """FullRobot plus the work the motors' EMFs do on their shafts and the energy the bearing
    frictions and the gear dampers dissipate."""

    W_motor = Variable(start=0.0, fixed=True, unit="J")
    W_loss = Variable(start=0.0, fixed=True, unit="J")

    def equations(self):
        motor = sum(a.motor.emf.tauElectrical * a.motor.emf.w for a in self.axes)
        loss = sum(a.gear.bearingFriction.f * a.gear.bearingFriction.v_rel for a in self.axes)
        loss += sum(a.gear.spring.d * a.gear.spring.w_rel**2 for a in self.axes[:3])
        return [Eq(der(self.W_motor), motor), Eq(der(self.W_loss), loss)]


def test_full_robot_energy_balance(energy):
    """Work of the six EMFs = change of the mechanical energy (bodies with gravity 9.81 m/s2,
    motor rotors, gear springs) + friction and damper losses, to 1e-6 of the motors' work."""
    model = _RobotWork()
    cs = compile(model)
    times = np.linspace(0.0, model.stopTime, 501)
    sol = cs.simulate(model.stopTime, t_eval=times, rtol=RTOL, atol=ATOL)
    m = model.mechanics
    bodies = [getattr(m, f"b{i}") for i in range(7)] + [m.load]
    e = energy(sol, cs, bodies, g=9.81, up=1)
    params = cs.parameters()
    for i, axis in enumerate(model.axes):
        j = params[f"{axis.path}.motor.Jmotor.J"]
        e = e + 0.5 * j * np.asarray(sol[f"{axis.path}.motor.Jmotor.w"]) ** 2
        if i < 3:
            c = params[f"{axis.path}.gear.spring.c"]
            e = e + 0.5 * c * np.asarray(sol[f"{axis.path}.gear.spring.phi_rel"]) ** 2
    work = np.asarray(sol["W_motor"]) - np.asarray(sol["W_loss"])
    scale = float(np.max(np.abs(sol["W_motor"])))
    assert scale > 100.0  # the motors do work (~kJ); the balance is not trivially 0 = 0
    assert np.max(np.abs((e - e[0]) - work)) < 1e-6 * scale


def test_one_axis_follows_its_path():
    """OneAxis (axis 2's drive with a load inertia, 0 -> 120 deg): no reference in ../shared;
    the load ends at the path's end angle and at rest, the path follows KinematicPTP2, and the
    gear spring relaxes."""
    model = OneAxis()
    cs = compile(model)
    assert sorted(cs.state_names) == sorted(
        ["axis.initializeFlange.phi_flange", "axis.initializeFlange.w_flange",
         "axis.gear.spring.phi_rel", "axis.gear.spring.w_rel", "axis.motor.La.i",
         "axis.motor.C.v", "axis.controller.PI.x"])
    times = np.linspace(0.0, model.stopTime, 401)
    sol = cs.simulate(model.stopTime, t_eval=times, rtol=1e-8, atol=1e-10)
    path = model.pathPlanning.kinematicPTP
    q_ref = np.array([path.reference(t)[0][0] for t in times])
    assert np.max(np.abs(sol["pathPlanning.kinematicPTP.q[0].u"] - q_ref)) < 1e-12
    assert np.max(np.abs(sol["load.phi"] - q_ref)) < 0.02  # tracking error below 1.2 deg
    assert sol["load.phi"][-1] == pytest.approx(math.radians(120.0), abs=2e-3)
    assert abs(sol["load.w"][-1]) < 1e-2
    assert abs(sol["axis.gear.spring.phi_rel"][-1]) < 1e-3


class _FrictionRig(Component):
    """Inertia (J = 1) on a bearing with friction, driven by the torque tau = time."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.inertia = rotational.Inertia(J=1.0)
        self.bearing = BearingFriction(tau_pos=((0.0, 2.0), (1.0, 2.5)), peak=1.5)
        self.torque = rotational.Torque()

    def connections(self):
        return [connect(self.inertia.flange_b, self.bearing.flange_a),
                connect(self.bearing.flange_b, self.torque.flange)]

    def equations(self):
        return [Eq(self.torque.tau, 1.0 * time)]  # a ramp of 1 N.m/s


def test_bearing_friction_sticks_then_slides():
    """tau_pos = [0, 2; 1, 2.5] N.m, peak 1.5: stuck while the torque t < 3 N.m = peak*2,
    then sliding with the friction 2 + 0.5 w: w' = t - 2 - 0.5 w, w(3) = 0, so
    w = 2 t - 8 + 2 exp(-(t - 3)/2)."""
    cs = compile(_FrictionRig())
    t = np.linspace(0.0, 6.0, 61)
    sol = cs.simulate(6.0, t_eval=t, rtol=1e-10, atol=1e-12)
    w = np.asarray(sol["inertia.w"])
    stuck = t < 3.0 - 1e-9
    assert np.all(sol["bearing.mode"][stuck] == 0)
    assert np.all(sol["bearing.mode"][t > 3.0 + 1e-9] == 1)
    assert np.max(np.abs(w[stuck])) < 1e-12
    assert np.allclose(sol["bearing.f"][stuck], t[stuck], atol=1e-9)  # holds the torque
    slide = ~stuck
    exact = 2 * t[slide] - 8 + 2 * np.exp(-(t[slide] - 3) / 2)
    assert np.max(np.abs(w[slide] - exact)) < 1e-6
    assert np.allclose(sol["bearing.f"][slide], 2 + 0.5 * w[slide], atol=1e-9)
    assert [e for e, _ in sol.events] == pytest.approx([3.0], abs=1e-9)


class _GearRig(Component):
    """A motor-side inertia J1 = 0.01 on an IdealGear (ratio 4) driving a load J2 = 0.8 held by
    a spring c = 20 to the ground; InitializeFlange starts the load at 0.3 rad and -1 rad/s;
    an AccSensor on the load. Reduced to the load: J = J2 + ratio^2 J1 = 0.96,
    phi = 0.3 cos(w0 t) - (1/w0) sin(w0 t), w0 = sqrt(c/J)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.motor = rotational.Inertia(J=0.01)
        self.gear = rotational.IdealGear(ratio=4.0)
        self.load = rotational.Inertia(J=0.8)
        self.spring = rotational.Spring(c=20.0)
        self.fixed = rotational.Fixed()
        self.init = rotational.InitializeFlange(use_a_start=False, stateSelect="prefer")
        self.phi0 = Constant(k=0.3)
        self.w0 = Constant(k=-1.0)
        self.acc = rotational.AccSensor()

    def connections(self):
        return [connect(self.motor.flange_b, self.gear.flange_a),
                connect(self.gear.flange_b, self.load.flange_a),
                connect(self.load.flange_b, self.spring.flange_b),
                connect(self.spring.flange_a, self.fixed.flange),
                connect(self.init.flange, self.load.flange_a),
                connect(self.phi0.y, self.init.phi_start), connect(self.w0.y, self.init.w_start),
                connect(self.acc.flange, self.load.flange_a)]


def test_ideal_gear_initialize_flange_acc_sensor():
    cs = compile(_GearRig())
    assert sorted(cs.state_names) == ["init.phi_flange", "init.w_flange"]
    t = np.linspace(0.0, 2.0, 41)
    sol = cs.simulate(2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    w0 = math.sqrt(20.0 / 0.96)
    phi = 0.3 * np.cos(w0 * t) - np.sin(w0 * t) / w0
    assert np.max(np.abs(sol["load.phi"] - phi)) < 1e-8
    assert np.max(np.abs(sol["motor.phi"] - 4.0 * phi)) < 4e-8  # 4 x the load's error
    assert np.max(np.abs(sol["acc.a.u"] + w0**2 * phi)) < 1e-6
    # the gear passes power without loss: tau_a w_a + tau_b w_b = 0
    power = sol["gear.flange_a.tau"] * sol["motor.w"] + sol["gear.flange_b.tau"] * sol["load.w"]
    assert np.max(np.abs(power)) < 1e-9
    with pytest.raises(ParameterError):
        rotational.InitializeFlange(stateSelect="sometimes")
