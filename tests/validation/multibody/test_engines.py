"""MultiBody's engine examples ``Examples.Loops.Engine1b`` (one cylinder with gas force) and
``Examples.Loops.EngineV6`` (six cylinders, six planar loops, a filtered torque sensor and a
quadratic load), their parts (``Utilities.GasForce2``, ``Utilities.Cylinder``) and the 1-D
rotational sensors and load they use, against the Dymola references (DASSL, tolerance 1e-6,
MSL 4.0), the gas-force formula, hand values and the energy balance."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Eq, Parameter, Variable, compile, connect, der, time
from acausal.components import rotational, translational
from acausal.components.multibody.examples_engines import Engine1b, EngineV6, GasForce2

# Engine1b is cheap: the tolerances of the other loop tests
RTOL, ATOL = 1e-10, 1e-12
# EngineV6: its result at these tolerances agrees with the run at rtol = 1e-10, atol = 1e-12 to
# 1.9e-6 of the ranges or better (test_engine_v6_does_not_depend_on_the_tolerance).
RTOL_V6, ATOL_V6 = 1e-8, 1e-10


def _cylinder_bodies(part) -> list:
    return [part.piston, part.connectingRod, part.crank1, part.crank2, part.crank3, part.crank4]


# --------------------------------------------------------------------------------------------
# Engine1b


class _Engine1bWork(Engine1b):
    """Engine1b plus the work of the gas force on the piston, W_gas = int(-f v_rel dt)."""

    W_gas = Variable(start=0.0, fixed=True, unit="J")

    def equations(self):
        gas = self.gasForce
        return [*super().equations(), Eq(der(self.W_gas), -gas.f * gas.v_rel)]


@pytest.fixture(scope="module")
def engine1b():
    return compile(Engine1b())


def test_engine1b_has_the_flywheel_as_its_only_states(engine1b):
    # 3 joint coordinates (bearing, b1, cylinder) less the 2 in-plane constraints of the cut
    # joint b2: one degree of freedom, carried by the flywheel (MultiBody: StateSelect.always)
    assert engine1b.state_names == ["inertia.phi", "inertia.w"]


def test_engine1b_against_the_reference(engine1b, compare):
    sol = engine1b.simulate(0.5, t_eval=[0.0, 0.25, 0.5], rtol=RTOL, atol=ATOL)
    # the branch of the loop MultiBody starts on: the piston at the top (crank pin up), 0.05 m
    # below the cylinder's top; the gas force starts on its expansion branch (v_rel = 0)
    assert sol["cylinder.s"][0] == pytest.approx(0.05, abs=1e-12)
    # Dymola at t = 0.25 s and 0.5 s (Engine1b.csv); ours differs by 2.5e-4 rad and 7e-4 rad/s
    assert sol["inertia.phi"][1] == pytest.approx(14.053048767365757, abs=1e-3)
    assert sol["inertia.w"][1] == pytest.approx(84.867149573919306, abs=2e-3)
    assert sol["inertia.phi"][2] == pytest.approx(41.030154953292346, abs=1e-3)
    assert sol["inertia.w"][2] == pytest.approx(137.08920003526984, abs=2e-3)
    _, errors = compare(engine1b, "Engine1b", rtol=RTOL, atol=ATOL)
    # measured: inertia.phi 6.1e-6, inertia.w 2.2e-5 of the range
    assert max(errors.values()) < 5e-5


def test_engine1b_energy_balance(energy):
    """The gas force's work equals the change of the kinetic and potential energy of the
    bodies and the flywheel (nothing else does work: the joints are ideal)."""
    model = _Engine1bWork()
    cs = compile(model)
    times = np.linspace(0.0, 0.5, 201)
    sol = cs.simulate(0.5, t_eval=times, rtol=RTOL, atol=ATOL)
    e = energy(sol, cs, _cylinder_bodies(model)) + 0.5 * 1.0 * sol["inertia.w"] ** 2
    work = sol["W_gas"]
    # the piston stays inside the cylinder (GasForce2's asserts 0 <= s_rel <= L)
    s = sol["gasForce.s_rel"]
    assert s.min() >= 0.05 - 1e-9 and s.max() <= 0.25 + 1e-9  # top and bottom dead centre
    assert work[-1] == pytest.approx(9501.2955, abs=1e-3)  # J; the flywheel reaches 137 rad/s
    # the balance holds to about 20 rtol of the work done (measured 2.7e-9 at rtol = 1e-10,
    # 1.7e-7 at 1e-8, 1.2e-5 at 1e-6)
    assert np.max(np.abs(e - e[0] - work)) < 100 * RTOL * np.max(np.abs(work))


# --------------------------------------------------------------------------------------------
# EngineV6


class _EngineV6Work(EngineV6):
    """EngineV6 plus the work of the six gas forces and of the load torque load2."""

    W_gas = Variable(start=0.0, fixed=True, unit="J")
    W_load = Variable(start=0.0, fixed=True, unit="J")

    def equations(self):
        gas = sum(-c.gasForce.f * c.gasForce.v_rel for c in self.cylinders)
        return [*super().equations(), Eq(der(self.W_gas), gas),
                Eq(der(self.W_load), self.load2.tau * self.load2.w)]


@pytest.fixture(scope="module")
def engine_v6():
    return compile(EngineV6())


_V6_RUN: dict = {}


@pytest.fixture
def engine_v6_run(engine_v6, msl):
    """The run over 1.01 s at the reference's output times (MultiBody's 5000 intervals of
    0.202 ms when the reference is absent), made once for the module."""
    if "sol" not in _V6_RUN:
        try:
            times = msl("EngineV6")["time"]
        except pytest.skip.Exception:
            times = np.linspace(0.0, 1.01, 5001)
        _V6_RUN["sol"] = engine_v6.simulate(1.01, t_eval=times, rtol=RTOL_V6, atol=ATOL_V6,
                                            jit=True)
    return _V6_RUN["sol"]


def test_engine_v6_states_are_the_load_and_the_filter(engine_v6):
    # 6 cylinders x (b2, cylinder) + bearing = 13 joint coordinates, less 6 x 2 in-plane
    # constraints of the cut joints b1: one degree of freedom, carried by the load inertia
    # (MultiBody: StateSelect.always), plus the n = 2 states of the CriticalDamping filter
    assert engine_v6.state_names == ["load.phi", "load.w", "filter.x[0]", "filter.x[1]"]


def test_engine_v6_checkpoints(engine_v6_run):
    sol = engine_v6_run
    t = sol.t
    # the filter starts in steady state at the engine torque (Dymola: 563.18623550229211 N.m)
    assert sol["filter.x[0]"][0] == pytest.approx(563.18623550229211, abs=1e-6)
    assert sol["filter.x[1]"][0] == pytest.approx(563.18623550229211, abs=1e-6)
    assert sol["torqueSensor.tau.u"][0] == pytest.approx(563.18623550229211, abs=1e-6)
    # Dymola at t = 0.500152 s and 1.01 s (EngineV6.csv), within 1e-4 of the range (346 rad,
    # 555 rad/s); measured differences 1.5e-3 rad and 1.1e-2 rad/s at 0.5 s, 8.8e-3 rad and
    # 9.8e-3 rad/s at 1.01 s
    i = int(np.argmin(np.abs(t - 0.500152)))
    assert sol["load.phi"][i] == pytest.approx(100.74439249712253, abs=0.0346)
    assert sol["load.w"][i] == pytest.approx(370.30014070814946, abs=0.0555)
    assert sol["load.phi"][-1] == pytest.approx(346.46509806390924, abs=0.0346)
    assert sol["load.w"][-1] == pytest.approx(564.61112494106305, abs=0.0555)
    # every piston stays inside its cylinder (GasForce2's asserts 0 <= s_rel <= L = 0.22 m):
    # it runs between 0.02 m (top dead centre) and 0.22 m (bottom dead centre)
    for k in range(1, 7):
        s = sol[f"cylinder{k}.gasForce.s_rel"]
        assert s.min() >= 0.02 - 1e-9 and s.max() <= 0.22 + 1e-9


def test_engine_v6_crank_angle_and_speed_against_the_reference(engine_v6_run, msl,
                                                                check_signal):
    """The issue's criterion: load.phi and load.w within 1e-4 of their range over the whole
    reference (1.01 s); measured 2.5e-5 and 6.5e-5."""
    ref = msl("EngineV6")
    sol = engine_v6_run
    for name in ("load.phi", "load.w"):
        check_signal(name, sol[name], ref[name])


def test_engine_v6_filter_against_the_reference(engine_v6_run, msl, check_signal):
    """The filter states follow the engine torque, which ripples with the firing of the
    cylinders (six dead-centre events a turn, 160 .. 1930 N.m): they amplify a small phase
    difference of the crank angle. (Modelica names here: filter.x[1] is acausal's filter.x[0].)
    The reference's load.phi is 8.8e-3 rad (2.5e-5 of its range) behind ours at 1 s; at
    560 rad/s filter.x[1] ripples by 46 N.m with the six-fold crank angle, and
    46/2 * 6 * 8.8e-3 = 1.2 N.m covers the measured difference of 0.76 N.m (1.6e-3 of the range;
    filter.x[2], filtered once more, 2.4e-4). Our run agrees with itself at a 100x tighter rtol
    to 1.5e-6 (test below), so the difference is the reference's. Over the first 0.15 s, while
    the phase difference is still small (6.4e-6 rad), both are within 1e-4 (measured 5.3e-5
    and 1.4e-5 of their range there)."""
    ref = msl("EngineV6")
    sol = engine_v6_run
    first = ref["time"] <= 0.15
    for ours, theirs, tol in (("filter.x[0]", "filter.x[0]", 2e-3),
                              ("filter.x[1]", "filter.x[1]", 3e-4)):
        check_signal(theirs + " (t <= 0.15 s)", sol[ours][first], ref[theirs][first])
        check_signal(theirs, sol[ours], ref[theirs], tol)


def test_engine_v6_does_not_depend_on_the_tolerance(engine_v6, engine_v6_run):
    sol = engine_v6_run
    times = sol.t
    # atol = 1e-12 (issue 42): the rods' accelerations and the constraint forces grow with the
    # square of the speed (10 to 565 rad/s) beyond the nominal values taken at the start; near a
    # zero crossing their absolute tolerance atol * nominal was below their rounding error and IDA
    # stopped at t = 0.85 s (sundials.Problem._grow_nominal raises them at the events)
    tight = engine_v6.simulate(1.01, t_eval=times, rtol=1e-10, atol=1e-12, jit=True)
    for name, span in (("load.phi", 346.0), ("load.w", 555.0), ("filter.x[0]", 470.0),
                       ("filter.x[1]", 454.0)):
        # measured: 3.2e-8, 6.8e-8, 1.9e-6, 1.9e-7
        assert np.max(np.abs(sol[name] - tight[name])) < 1e-5 * span, name


def test_engine_v6_energy_balance(energy):
    """The work of the six gas forces plus the (negative) work of the load torque equals the
    change of the kinetic and potential energy of the 36 bodies and the load inertia."""
    model = _EngineV6Work()
    cs = compile(model)
    times = np.linspace(0.0, 0.3, 301)
    sol = cs.simulate(0.3, t_eval=times, rtol=RTOL_V6, atol=ATOL_V6, jit=True)
    bodies = [b for c in model.cylinders for b in _cylinder_bodies(c)]
    e = energy(sol, cs, bodies) + 0.5 * 1.0 * sol["load.w"] ** 2
    work = sol["W_gas"] + sol["W_load"]
    assert sol["W_load"][-1] < 0.0 < sol["W_gas"][-1]
    # 43.0 kJ of gas work, -2.9 kJ of load work in 0.3 s
    assert sol["W_gas"][-1] == pytest.approx(42951.917, abs=0.05)
    assert sol["W_load"][-1] == pytest.approx(-2946.989, abs=0.01)
    # the balance holds to about rtol of the gas work (measured 8.9e-9 at rtol = 1e-8,
    # 2.8e-7 at 1e-6)
    assert np.max(np.abs(e - e[0] - work)) < 10 * RTOL_V6 * np.max(np.abs(sol["W_gas"]))


# --------------------------------------------------------------------------------------------
# GasForce2 alone


def _msl_pressure(x: float, v_rel: float) -> float:
    """GasForce2's pressure, typed from the MSL source."""
    if v_rel < 0:
        if x < 0.986061:
            p = 177.4132 * x**4 - 287.2189 * x**3 + 151.8252 * x**2 - 24.9973 * x + 2.4
        else:
            p = 2836360 * x**4 - 10569296 * x**3 + 14761814 * x**2 - 9158505 * x + 2129670
    elif x > 0.933:
        p = -3929704 * x**4 + 14748765 * x**3 - 20747000 * x**2 + 12964477 * x - 3036495
    else:
        p = 145.930 * x**4 - 131.707 * x**3 + 17.3438 * x**2 + 17.9272 * x + 2.4
    return 1e5 * p


#: (s_rel at t = 0, v_rel): the four branches of the pressure, L = 0.35 m
GAS_CASES = ((0.1, -1.0), (0.002, -1.0), (0.01, 1.0), (0.2, 1.0))


class _Motion(Component):
    """A flange moved at a constant velocity: ``flange.s = s0 + v time`` (it takes any force)."""

    s0 = Parameter(0.0, unit="m")
    v = Parameter(0.0, unit="m/s")
    flange = translational.Flange()

    def equations(self):
        return [Eq(self.flange.s, self.s0 + self.v * time)]


class _GasForces(Component):
    """Four GasForce2 (L = 0.35 m, d = 0.1 m), flange_a fixed at 0 and flange_b moved at a
    constant velocity, each on one branch of the pressure."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.fixed = translational.Fixed()
        self.gas = [GasForce2(L=0.35, d=0.1) for _ in GAS_CASES]
        self.motion = [_Motion(s0=s0, v=v) for s0, v in GAS_CASES]

    def connections(self):
        return [*(connect(self.fixed.flange, g.flange_a) for g in self.gas),
                *(connect(m.flange, g.flange_b) for m, g in zip(self.motion, self.gas))]


def test_gas_force_against_its_formula():
    model = _GasForces()
    cs = compile(model)
    times = [0.0, 0.001, 0.002]
    sol = cs.simulate(0.002, t_eval=times, rtol=1e-10, atol=1e-12)
    area = math.pi * 0.1**2 / 4
    for k, (s0, v) in enumerate(GAS_CASES):
        g = f"gas[{k}]"
        for i, t in enumerate(times):
            x = 1 - (s0 + v * t) / 0.35
            assert sol[f"{g}.x"][i] == pytest.approx(x, rel=1e-12)
            assert sol[f"{g}.v_rel"][i] == pytest.approx(v, rel=1e-9)
            p = _msl_pressure(x, v)
            assert sol[f"{g}.press"][i] == pytest.approx(p, rel=1e-9)
            assert sol[f"{g}.f"][i] == pytest.approx(-p * area, rel=1e-9)
            # V = k0 + k1 (1 - x), p V = k T, dens = p/(R_air T) with k0 = 0.01, k1 = k = 1
            V = 0.01 + (1 - x)
            assert sol[f"{g}.V"][i] == pytest.approx(V, rel=1e-12)
            assert sol[f"{g}.T"][i] == pytest.approx(p * V, rel=1e-9)
            assert sol[f"{g}.dens"][i] == pytest.approx(0.0289651159 / (8.31446261815324 * V),
                                                        rel=1e-9)
    # hand values at t = 0 (x = 1 - s/L; the polynomials of MSL's GasForce2)
    assert sol["gas[0].press"][0] == pytest.approx(351712.32819658314, rel=1e-12)  # compression
    assert sol["gas[3].press"][0] == pytest.approx(782416.1432736361, rel=1e-12)  # expansion
    assert sol["gas[3].f"][0] == pytest.approx(-6145.082019396286, rel=1e-12)


# --------------------------------------------------------------------------------------------
# QuadraticSpeedDependentTorque and the rotational sensors


class _Braked(Component):
    """An inertia J = 2 kg m2 starting at w0 and braked (or driven) by a quadratic load of
    tau_nominal = -100 N.m at w_nominal = 200 rad/s, through a torque sensor, with speed and
    angle sensors on the inertia's other flange."""

    def __init__(self, w0: float = 10.0, direction: bool = False, **kw):
        super().__init__(**kw)
        self.inertia = rotational.Inertia(J=2.0, phi=Variable(start=0.0, fixed=True),
                                          w=Variable(start=w0, fixed=True))
        self.load = rotational.QuadraticSpeedDependentTorque(tau_nominal=-100.0, w_nominal=200.0,
                                                             TorqueDirection=direction)
        self.torqueSensor = rotational.TorqueSensor()
        self.speedSensor = rotational.SpeedSensor()
        self.angleSensor = rotational.AngleSensor()

    def connections(self):
        return [connect(self.inertia.flange_b, self.torqueSensor.flange_a),
                connect(self.torqueSensor.flange_b, self.load.flange),
                connect(self.inertia.flange_a, self.speedSensor.flange),
                connect(self.inertia.flange_a, self.angleSensor.flange)]


@pytest.mark.parametrize("w0, direction", [(10.0, False), (-10.0, False), (10.0, True),
                                           (-10.0, True)])
def test_quadratic_speed_dependent_torque_and_sensors(w0, direction):
    cs = compile(_Braked(w0=w0, direction=direction))
    assert cs.state_names == ["inertia.phi", "inertia.w"]
    sol = cs.simulate(1.0, t_eval=[0.0, 0.5, 1.0], rtol=1e-11, atol=1e-12)
    # at the start: tau = tau_nominal (w0/w_nominal)^2 = -0.25 N.m for TorqueDirection, else
    # -0.25 N.m * sign(w0): a brake in either direction of rotation
    tau0 = -0.25 if direction else -0.25 * math.copysign(1.0, w0)
    assert sol["load.tau"][0] == pytest.approx(tau0, rel=1e-12)
    assert sol["load.w"][0] == pytest.approx(w0, rel=1e-12)
    # the torque sensor measures the torque the inertia passes to the load: -tau
    assert sol["torqueSensor.tau.u"][0] == pytest.approx(-tau0, rel=1e-12)
    # J dw/dt = tau_nominal/w_nominal^2 * w^2 (times sign(w) without TorqueDirection):
    # with c = 100/(2*200^2) = 1/800, w(t) = w0/(1 + c |w0| t) while the torque brakes, and
    # w(t) = w0/(1 + c w0 t) = -10/(1 - t/80) when it drives a negative rotation
    c = 1.0 / 800.0
    for i, t in enumerate((0.0, 0.5, 1.0)):
        if direction and w0 < 0:
            w = w0 / (1 + c * w0 * t)
            phi = math.log(1 + c * w0 * t) / c
        else:
            w = w0 / (1 + c * abs(w0) * t)
            phi = math.copysign(math.log(1 + c * abs(w0) * t) / c, w0)
        assert sol["inertia.w"][i] == pytest.approx(w, rel=1e-8)
        assert sol["speedSensor.w.u"][i] == pytest.approx(w, rel=1e-8)
        assert sol["angleSensor.phi.u"][i] == pytest.approx(phi, rel=1e-8, abs=1e-12)
        assert sol["torqueSensor.tau.u"][i] == pytest.approx(-sol["load.tau"][i], rel=1e-12)
    # hand values (w0 = 10, braked): w(1) = 1/(0.1 + 1/800) = 9.876543209876543 rad/s,
    # phi(1) = 800 ln(1.0125) = 9.938015998845687 rad
    if w0 > 0:
        assert sol["inertia.w"][-1] == pytest.approx(9.876543209876543, rel=1e-8)
        assert sol["angleSensor.phi.u"][-1] == pytest.approx(9.938015998845687, rel=1e-8)
