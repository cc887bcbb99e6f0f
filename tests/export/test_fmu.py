"""FMUs of the mass-spring-damper, the planar piston engine and the Exudyn stick/slip example,
exported, validated and simulated with FMPy (the real importer, from PyPI), against acausal's own
simulation of the same compiled system.

Tolerance: every compared signal agrees within 1e-6 of its range over the run. Both sides
integrate with tight tolerances (FMPy's CVODE with relative_tolerance=1e-12, whose absolute
tolerance is 1e-12 times the states' nominal values; acausal with rtol=1e-11, atol=1e-13), so
the integration errors are ~1e-8 of the ranges (measured; see docs/fmu_export.md) and 1e-6
leaves a margin of 20 or more. The stick/slip model's events are located by each integrator's
own root finding: the event instants must agree within 1e-7 s (measured: 2.5e-9 s), and output
points closer than 1e-6 s to an event (none on this grid) would be left out of the comparison
because a jump between the two located instants is not an error of either.
"""

from __future__ import annotations

import ctypes
import xml.etree.ElementTree as ET
import zipfile

import numpy as np
import pytest

from acausal import Component, Eq, Input, Parameter, Variable, compile, der
from acausal.export.c_code import shared_library_suffix
from acausal.export.fmu import fmi2_platform

fmpy = pytest.importorskip("fmpy", reason="FMPy is not installed (pip install fmpy): the "
                                           "exported FMUs cannot be simulated and validated here")
from fmpy import simulate_fmu  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402

MODEL_NAMES = ["oscillator", "piston_engine", "stick_slip"]  # see conftest.MODELS
FMPY_RTOL = 1e-12
AGREEMENT = 1e-6  # of each signal's range
EVENT_TIME_TOL = 1e-7  # [s]


@pytest.fixture(scope="module")
def fmus(compiled, c_compiler, setups, tmp_path_factory):
    """name -> path of the exported FMU (signals of MODELS as outputs)."""
    folder = tmp_path_factory.mktemp("fmus")
    out = {}
    for name in MODEL_NAMES:
        signals = setups[name][3]
        out[name] = compiled(name).export_fmu(folder / f"{name}.fmu", outputs=signals[:2],
                                              compiler=c_compiler)
    return out


def _run_fmu(path, t_end, dt, signals, start_values=None, record_events=False):
    return simulate_fmu(str(path), stop_time=t_end, relative_tolerance=FMPY_RTOL,
                        output_interval=dt, output=signals, start_values=start_values or {},
                        record_events=record_events)


def _compare(system, result, signals, params=None, start=None) -> dict[str, float]:
    """Largest difference / range of each signal between FMPy's result and acausal's."""
    sol = system.simulate(float(result["time"][-1]), t_eval=result["time"], rtol=1e-11,
                          atol=1e-13, params=params, start=start)
    near_event = np.zeros(result["time"].size, bool)
    for t_event, _ in sol.events:
        near_event |= np.abs(result["time"] - t_event) < 1e-6
    errors = {}
    for name in signals:
        span = np.ptp(sol[name]) or 1.0
        errors[name] = float(np.max(np.abs(result[name] - sol[name])[~near_event]) / span)
    return errors


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_validate_fmu_finds_no_problem(fmus, name):
    assert validate_fmu(str(fmus[name])) == []


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_fmpy_agrees_with_acausal(fmus, compiled, setups, name):
    _, t_end, dt, signals, _ = setups[name]
    result = _run_fmu(fmus[name], t_end, dt, signals)
    errors = _compare(compiled(name), result, signals)
    assert max(errors.values()) < AGREEMENT, errors


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_parameter_change_in_fmpy_as_in_acausal(fmus, compiled, setups, name):
    """start_values in FMPy (fmi2SetReal before initialisation) and params in acausal give the
    same result, visibly different from the default one."""
    _, t_end, dt, signals, params = setups[name]
    changed = _run_fmu(fmus[name], t_end, dt, signals, start_values=params)
    errors = _compare(compiled(name), changed, signals, params=params)
    assert max(errors.values()) < AGREEMENT, errors
    default = _run_fmu(fmus[name], t_end, dt, signals[:1])
    span = np.ptp(default[signals[0]])
    assert np.max(np.abs(changed[signals[0]] - default[signals[0]])) > 1e-2 * span


def test_event_instants_agree(fmus, compiled, setups):
    """The stick/slip transitions happen at the same instants in FMPy and in acausal (FMPy
    records the values before and after each event at the event's time)."""
    _, t_end, dt, signals, _ = setups["stick_slip"]
    result = _run_fmu(fmus["stick_slip"], t_end, dt, signals, record_events=True)
    t = result["time"]
    fmu_events = t[1:][np.diff(t) == 0]
    sol = compiled("stick_slip").simulate(t_end, dt=dt, rtol=1e-11, atol=1e-13)
    own = np.array([t_event for t_event, _ in sol.events])
    assert len(own) >= 10
    assert fmu_events.size == own.size
    assert np.max(np.abs(fmu_events - own)) < EVENT_TIME_TOL
    # the friction mode (a discrete variable) switches at those events
    modes = result["csd.frictionMode"]
    assert set(np.unique(modes)) == {-1.0, 0.0, 1.0}


def test_state_start_value_overrides_the_exported_one(fmus, compiled):
    result = _run_fmu(fmus["oscillator"], 2.0, 0.01, ["mass.s", "mass.v"],
                      start_values={"mass.s": 0.25})
    assert result["mass.s"][0] == 0.25
    errors = _compare(compiled("oscillator"), result, ["mass.s", "mass.v"],
                      start={"mass.s": 0.25})
    assert max(errors.values()) < AGREEMENT, errors


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_model_description_names_everything(fmus, compiled, setups, name):
    system = compiled(name)
    with zipfile.ZipFile(fmus[name]) as archive:
        files = set(archive.namelist())
        root = ET.fromstring(archive.read("modelDescription.xml"))
    identifier = root.find("ModelExchange").get("modelIdentifier")
    assert f"binaries/{fmi2_platform()}/{identifier}{shared_library_suffix()}" in files
    assert {"sources/fmi2_wrapper.c", "sources/model_functions.c"} <= files
    variables = {sv.get("name"): sv for sv in root.iter("ScalarVariable")}
    for prm in system.flat.parameters:
        sv = variables[prm.name]
        if prm.discrete:
            assert (sv.get("causality"), sv.get("variability")) == ("local", "discrete")
        else:
            assert (sv.get("causality"), sv.get("variability")) == ("parameter", "tunable")
            assert float(sv.find("Real").get("start")) == prm.value
            if prm.unit:
                assert sv.find("Real").get("unit") == prm.unit
    index = {sv.get("name"): k + 1 for k, sv in enumerate(root.iter("ScalarVariable"))}
    derivatives = [int(u.get("index")) for u in root.find("ModelStructure/Derivatives")]
    names = list(index)
    assert [names[k - 1] for k in derivatives] == [f"der({s})" for s in system.state_names]
    for state in system.state_names:
        real = variables[f"der({state})"].find("Real")
        assert names[int(real.get("derivative")) - 1] == state
    outputs = [names[int(u.get("index")) - 1] for u in root.find("ModelStructure/Outputs")]
    assert outputs == [n for n in names if n in setups[name][3][:2]]
    # every variable acausal knows is in the FMU (aliases included), recordable by name
    assert set(system.variable_names()) <= set(variables)
    n_indicators = sum(len(ev.indicators) for ev in system.events)
    assert root.get("numberOfEventIndicators") == str(n_indicators)


def test_fmu_state_and_low_level_calls(fmus, compiled):
    """The FMI calls one by one: the initial state and derivative are acausal's;
    fmi2Get/SetFMUstate and its serialisation restore a state; setting a calculated variable,
    or a state in continuous-time mode, is refused with fmi2Error."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Model

    path = fmus["piston_engine"]
    md = read_model_description(str(path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    fmu = FMU2Model(guid=md.guid, unzipDirectory=extract(str(path)),
                    modelIdentifier=md.modelExchange.modelIdentifier, instanceName="test")
    fmu.instantiate()
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.newDiscreteStates()
    fmu.enterContinuousTimeMode()
    system = compiled("piston_engine")
    sol = system.simulate(0.01, n_points=2)
    x0 = [sol[n][0] for n in system.state_names]
    z0 = [sol[n][0] for n in system.algebraic_names]
    xdot = np.array(system.function("ode")(0.0, x0, z0, system.parameter_values)).ravel()
    names = system.state_names + [f"der({n})" for n in system.state_names]
    values = fmu.getReal([vr[n] for n in names])
    np.testing.assert_allclose(values, x0 + xdot.tolist(), rtol=1e-12, atol=1e-14)
    s0 = fmu.getReal([vr["prismatic.s"]])[0]
    assert s0 == pytest.approx(sol["prismatic.s"][0], abs=1e-12)
    state = fmu.getFMUstate()
    blob = fmu.serializeFMUstate(state)
    fmu.setTime(0.5)
    fmu.setContinuousStates(np.array([1.0, -2.5]).ctypes.data_as(
        ctypes.POINTER(ctypes.c_double)), 2)
    moved = fmu.getReal([vr["prismatic.s"]])[0]
    assert abs(moved - s0) > 0.1  # the crank turned by 1 rad: the piston moved
    fmu.setFMUstate(fmu.deSerializeFMUstate(blob))
    assert fmu.getReal([vr["prismatic.s"]])[0] == s0
    with pytest.raises(Exception, match="status 3"):
        fmu.setReal([vr["prismatic.s"]], [0.0])  # calculated
    with pytest.raises(Exception, match="status 3"):
        fmu.setReal([vr["revoluteDrive.w"]], [1.0])  # a state, in continuous-time mode
    fmu.freeFMUstate(state)
    fmu.terminate()
    fmu.freeInstance()


class Pendulum(Component):
    """Point mass on a rod in Cartesian coordinates (index 3): x and vx fixed at the start, y
    follows from the rod length; ``push`` is an Input (a horizontal force)."""

    m = Parameter(1.0, unit="kg")
    L = Parameter(1.0, unit="m")
    g = Parameter(9.81, unit="m/s2")
    push = Input(0.0, unit="N")
    x = Variable(unit="m", start=0.6, fixed=True)
    y = Variable(unit="m", start=-0.8)
    vx = Variable(unit="m/s", start=0.0, fixed=True)
    vy = Variable(unit="m/s", start=0.0)
    lam = Variable(unit="N/m")

    def equations(self):
        return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                Eq(self.m * der(self.vx), -self.lam * self.x + self.push),
                Eq(self.m * der(self.vy), -self.lam * self.y - self.m * self.g),
                Eq(self.x ** 2 + self.y ** 2, self.L ** 2)]


@pytest.fixture(scope="module")
def pendulum(c_compiler, tmp_path_factory):
    system = compile(Pendulum())
    path = system.export_fmu(tmp_path_factory.mktemp("pendulum") / "pendulum.fmu",
                             outputs=["x", "y"], compiler=c_compiler)
    return system, path


@pytest.mark.parametrize("change", [{}, {"L": 1.5}, {"push": 0.5}, {"x": 0.3}])
def test_dae_initialised_in_the_fmu(pendulum, change):
    """A DAE with dynamic state selection: the FMU solves the rod constraint for y itself (at
    initialisation and at every step), for a changed length, input or start value too."""
    system, path = pendulum
    assert validate_fmu(str(path)) == []
    assert system.dynamic_selection and system.z.numel() == 1
    result = _run_fmu(path, 3.0, 0.01, ["x", "y", "lam"], start_values=change)
    params = {k: v for k, v in change.items() if k != "x"}
    start = {"x": change["x"]} if "x" in change else None
    errors = _compare(system, result, ["x", "y", "lam"], params=params, start=start)
    assert max(errors.values()) < AGREEMENT, errors
    length = change.get("L", 1.0)
    assert np.max(np.abs(np.hypot(result["x"], result["y"]) - length)) < 1e-9


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
def test_singular_state_choice_is_reported(pendulum, c_compiler, tmp_path, capsys, kind):
    """Over the top the exported state x cannot determine y: the FMU reports it (acausal's own
    simulation re-selects its states there) instead of continuing on a wrong branch."""
    system, path = pendulum
    if kind == "co-simulation":
        path = system.export_fmu(tmp_path / "pendulum_cs.fmu", kind=kind, compiler=c_compiler)
    with pytest.raises(Exception):  # noqa: B017 - FMPy raises its own exception types
        _run_fmu(path, 1.0, 0.01, ["x"], start_values={"vx": 4.0})
    printed = capsys.readouterr().out
    assert "the algebraic equations have" in printed
    assert "this FMU does not" in printed
    assert system.simulate(1.0, start={"vx": 4.0}).state_switches


class Loaded(Component):
    """A mass on a spring and damper under a constant force F, started at rest in equilibrium
    by initial equations (no fixed start values: the states' start values are guesses)."""

    F = Parameter(3.0, unit="N")
    c = Parameter(4.0, unit="N/m")
    d = Parameter(1.0, unit="N.s/m")
    m = Parameter(1.0, unit="kg")
    s = Variable(unit="m")
    v = Variable(unit="m/s")

    def equations(self):
        return [Eq(der(self.s), self.v),
                Eq(self.m * der(self.v), self.F - self.c * self.s - self.d * self.v)]

    def initial_equations(self):
        return [Eq(der(self.s), 0), Eq(der(self.v), 0)]


def test_initial_equations_solved_in_the_fmu(c_compiler, tmp_path):
    """The equilibrium s = F/c follows a changed F: the FMU solves acausal's initialisation
    system (here the initial equations) in C at fmi2ExitInitializationMode."""
    path = compile(Loaded()).export_fmu(tmp_path / "loaded.fmu", outputs=["s"],
                                        compiler=c_compiler)
    assert validate_fmu(str(path)) == []
    root = ET.fromstring(zipfile.ZipFile(path).read("modelDescription.xml"))
    initial = {sv.get("name"): sv.get("initial") for sv in root.iter("ScalarVariable")}
    assert initial["s"] == initial["v"] == "approx"  # computed by the initialisation
    for force in (3.0, 2.0):
        result = _run_fmu(path, 1.0, 0.1, ["s", "v"], start_values={"F": force})
        assert result["s"] == pytest.approx(np.full(11, force / 4.0), abs=1e-12)
        assert result["v"] == pytest.approx(np.zeros(11), abs=1e-12)


def _driven():
    """A mass on a damper driven by a Pulse (time events, a period counter) and a Step at the
    start time (an event_if branch that starts on)."""
    from acausal import connect
    from acausal.components.event_sources import Pulse, Step
    from acausal.components.translational import Damper, Fixed, Force, Mass

    class Driven(Component):
        wall = Fixed()
        damper = Damper(d=2.0)
        force = Force()
        mass = Mass(m=1.0, s=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True))
        pulse = Pulse(amplitude=10.0, period=0.3, width=40.0, start_time=0.1)
        step = Step(height=-3.0, start_time=0.0)

        def equations(self):
            return [Eq(self.force.f, self.pulse.y.u + self.step.y.u)]

        def connections(self):
            return [connect(self.wall.flange, self.damper.flange_a),
                    connect(self.damper.flange_b, self.mass.flange_a),
                    connect(self.force.flange, self.mass.flange_b)]

    return Driven()


@pytest.mark.parametrize("kind", ["model-exchange", "co-simulation"])
def test_time_events_and_event_if_branches(c_compiler, tmp_path, kind):
    """Sources with time events (event_if switches, a Pulse's period counter): exported as event
    indicators in time, located by FMPy's root finding (model exchange) or the FMU's own solver
    (co-simulation); the event_if branches start on the side their condition holds (set by the
    FMU's initialisation, also for a changed start time)."""
    system = compile(_driven())
    path = system.export_fmu(tmp_path / "driven.fmu", compiler=c_compiler, kind=kind)
    assert validate_fmu(str(path)) == []
    signals = ["mass.s", "mass.v", "force.f"]
    for params in ({}, {"step.start_time": 0.5, "pulse.period": 0.25}):
        sol = system.simulate(2.0, dt=0.01, rtol=1e-11, atol=1e-13, params=params)
        if kind == "model-exchange":
            result = _run_fmu(path, 2.0, 0.01, signals, start_values=params, record_events=True)
            t = result["time"]
            fmu_events = t[1:][np.diff(t) == 0]
            own = np.array([t_event for t_event, _ in sol.events])
            assert fmu_events.size == own.size >= 12
            assert np.max(np.abs(fmu_events - own)) < EVENT_TIME_TOL
        result = _run_fmu(path, 2.0, 0.01, signals, start_values=params)
        errors = _compare(system, result, signals, params=params)
        assert max(errors.values()) < AGREEMENT, errors
        assert result["force.f"][0] == (-3.0 if not params else 0.0)


@pytest.fixture(scope="module")
def cs_fmus(compiled, c_compiler, setups, tmp_path_factory):
    """name -> path of the co-simulation FMU of each model."""
    folder = tmp_path_factory.mktemp("cs_fmus")
    return {name: compiled(name).export_fmu(folder / f"{name}.fmu", kind="co-simulation",
                                            outputs=setups[name][3][:2], compiler=c_compiler)
            for name in MODEL_NAMES}


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_co_simulation_agrees_with_acausal(cs_fmus, compiled, setups, name):
    """The embedded solver (Dormand-Prince 5(4) with event location, FMPy's tolerance 1e-10
    passed through fmi2SetupExperiment), default and changed parameters."""
    path = cs_fmus[name]
    assert validate_fmu(str(path)) == []
    root = ET.fromstring(zipfile.ZipFile(path).read("modelDescription.xml"))
    assert root.find("CoSimulation") is not None and root.find("ModelExchange") is not None
    _, t_end, dt, signals, params = setups[name]
    for values in ({}, params):
        result = simulate_fmu(str(path), stop_time=t_end, relative_tolerance=1e-10,
                              output_interval=dt, output=signals, start_values=values,
                              fmi_type="CoSimulation")
        errors = _compare(compiled(name), result, signals, params=values)
        assert max(errors.values()) < AGREEMENT, errors
