"""Single and multiple shooting give the same estimates; the other ways of using identify():
ODE and DAE models, DataFrames, known sigmas, estimated initial states, several experiments,
models with events (hybrid single shooting), progress display."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import (
    Component,
    Discrete,
    Eq,
    Parameter,
    Variable,
    compile,
    connect,
    der,
    simulate,
)
from acausal.analysis.identify import Experiment, IdentificationWarning, identify
from acausal.components.friction import GroundFriction
from acausal.components.translational import Fixed, Mass, PartialCompliant, Spring, SpringDamper

TRUE_MSD = {"sd.c": 100.0, "sd.d": 2.0}


class MassSpringDamper(Component):
    wall = Fixed()
    sd = SpringDamper(c=TRUE_MSD["sd.c"], d=TRUE_MSD["sd.d"])
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.mass.flange_a)]


class CubicDamper(PartialCompliant):
    """``f = d v + d3 v^3``: a damper in series with a spring is a nonlinear algebraic loop."""

    d = Parameter(1.0, min=0.0, unit="N.s/m")
    d3 = Parameter(1.0, min=0.0, unit="N.s3/m3")
    v_rel = Variable(unit="m/s")

    def equations(self):
        return [*super().equations(), Eq(self.v_rel, der(self.s_rel)),
                Eq(self.f, self.d * self.v_rel + self.d3 * self.v_rel**3)]


class SeriesChain(Component):
    wall = Fixed()
    damper = CubicDamper(d=0.5, d3=2.0)
    spring = Spring(c=50.0)
    mass = Mass(m=1.0, s=Variable(start=0.3, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.damper.flange_a),
                connect(self.damper.flange_b, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a)]


class StickSlipOscillator(Component):
    """A mass on a spring with the exact stick/slip friction of components/friction.py (a
    hybrid automaton: When clauses), released sliding."""

    wall = Fixed()
    spring = Spring(c=100.0)
    mass = Mass(m=1.0, s=Variable(start=0.2, fixed=True), v=Variable(start=0.0, fixed=True))
    friction = GroundFriction(F_Coulomb=2.0, F_prop=0.5, peak=1.5, mode=Discrete(start=-1.0))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.mass.flange_b, self.friction.flange)]


def noisy(system, signals, t, seed, params=None, start=None, noise=0.01):
    """Data from acausal's simulate with the true parameters plus Gaussian noise."""
    sol = simulate(system, float(t[-1]), t_eval=t, params=params, start=start, rtol=1e-10,
                   atol=1e-12)
    rng = np.random.default_rng(seed)
    data = {"t": t}
    for s in signals:
        clean = np.asarray(sol[s])
        data[s] = clean + noise * np.ptp(clean) * rng.standard_normal(t.size)
    return data


@pytest.fixture(scope="module")
def msd():
    system = compile(MassSpringDamper())
    t = np.linspace(0.0, 3.0, 301)
    return system, noisy(system, ["mass.s"], t, seed=1)


def test_single_and_multiple_shooting_agree(msd):
    system, data = msd
    guess = {"sd.c": 50.0, "sd.d": 1.0}
    results = {m: identify(system, Experiment(data, name="decay"), guess, method=m,
                           step_tol=1e-4) for m in ("single_shooting", "multiple_shooting")}
    single, multiple = results["single_shooting"], results["multiple_shooting"]
    assert single.converged and multiple.converged
    assert single.intervals == 1 and multiple.intervals == 10
    for name, truth in TRUE_MSD.items():
        sd = single.std[name]
        assert abs(single.estimates[name] - multiple.estimates[name]) < 0.01 * sd
        assert multiple.std[name] == pytest.approx(sd, rel=1e-3)
        assert abs(single.estimates[name] - truth) < 3 * sd
    np.testing.assert_allclose(single.correlation, multiple.correlation, atol=1e-3)
    np.testing.assert_allclose(single.fitted["decay"]["mass.s"],
                               multiple.fitted["decay"]["mass.s"], atol=1e-6)


def test_dae_model_single_and_multiple_shooting_agree():
    system = compile(SeriesChain())
    assert not system.is_ode  # the damper's velocity is an algebraic variable (IDAS)
    t = np.linspace(0.0, 3.0, 301)
    data = noisy(system, ["mass.s"], t, seed=3)
    guess = {"damper.d": 1.0, "damper.d3": 1.0, "spring.c": 40.0}
    single = identify(system, data, guess, method="single_shooting", step_tol=1e-4)
    multiple = identify(system, data, guess, method="multiple_shooting", step_tol=1e-4)
    for name, truth in (("damper.d", 0.5), ("damper.d3", 2.0), ("spring.c", 50.0)):
        sd = single.std[name]
        assert abs(single.estimates[name] - multiple.estimates[name]) < 0.01 * sd
        assert abs(single.estimates[name] - truth) < 3 * sd


def test_known_sigma_gives_the_covariance_without_s2(msd):
    system, data = msd
    sigma = 0.01 * np.ptp(data["mass.s"])
    estimated = identify(system, data, ["sd.c", "sd.d"])
    known = identify(system, Experiment(data, sigma=sigma), ["sd.c", "sd.d"])
    assert known.sigma_known and not estimated.sigma_known
    # weights 1/sigma^2 and 1/range^2 differ by a constant factor: the same estimates; with the
    # sigma given, s^2 is taken as 1 instead of being estimated, so the SDs differ by the
    # factor sqrt(s^2) of the fit with known sigma (the ratio of true to assumed noise)
    for name in TRUE_MSD:
        assert known.estimates[name] == pytest.approx(estimated.estimates[name], rel=1e-6)
        ratio = estimated.std[name] / known.std[name]
        assert ratio == pytest.approx(np.sqrt(known.s2), rel=1e-3)
    assert known.s2 == pytest.approx(1.0, rel=0.2)  # the given sigma is the noise's (up to ~1 %)
    assert "given sigmas" in str(known)


def test_dataframe_with_units_and_estimated_initial_state(msd):
    pd = pytest.importorskip("pandas")
    system, _ = msd
    t = np.linspace(0.0, 2.0, 201)
    # the mass really starts at 0.12 m, not at the model's 0.1: estimate the initial position
    data = noisy(system, ["mass.s", "mass.v"], t, seed=5, start={"mass.s": 0.12})
    frame = pd.DataFrame({"time [s]": t, "mass.s [m]": data["mass.s"],
                          "mass.v [m/s]": data["mass.v"]})
    result = identify(system, Experiment(frame, name="run"), ["sd.c"],
                      estimate_initial_states=["mass.s"])
    x0 = result.initial_states["run"]["mass.s"]
    assert abs(x0 - 0.12) < 3 * result.initial_state_std["run"]["mass.s"]
    assert abs(result.estimates["sd.c"] - 100.0) < 3 * result.std["sd.c"]
    # from the model's start value the fit cannot follow the data, and says so
    with pytest.warns(IdentificationWarning, match="strongly correlated"):
        without = identify(system, Experiment(frame, name="run"), ["sd.c"])
    assert without.residual_autocorrelation["run"]["mass.s"] > 0.8
    assert without.cost > 10 * result.cost
    assert result.signal_units == {"mass.s": "m", "mass.v": "m/s"}


def test_two_experiments_with_their_own_known_parameters(msd):
    system, _ = msd
    t = np.linspace(0.0, 2.0, 201)
    heavy = noisy(system, ["mass.s"], t, seed=7, params={"mass.m": 3.0})
    light = noisy(system, ["mass.s"], t, seed=8, params={"mass.m": 0.5})
    result = identify(system, [Experiment(heavy, params={"mass.m": 3.0}, name="heavy"),
                               Experiment(light, params={"mass.m": 0.5}, name="light")],
                      {"sd.c": 80.0, "sd.d": 3.0})
    assert set(result.residuals) == {"heavy", "light"}
    for name, truth in TRUE_MSD.items():
        assert abs(result.estimates[name] - truth) < 3 * result.std[name]
    sol = result.simulate("light")
    np.testing.assert_allclose(sol["mass.s"], result.fitted["light"]["mass.s"], atol=1e-5)


def test_t_start_before_the_first_sample(msd):
    system, _ = msd
    t = np.linspace(0.0, 2.0, 201)
    data = noisy(system, ["mass.s"], t, seed=9)
    late = {"t": t[20:], "mass.s": data["mass.s"][20:]}  # the recording starts at 0.2 s
    result = identify(system, Experiment(late, t_start=0.0), ["sd.c", "sd.d"])
    for name, truth in TRUE_MSD.items():
        assert abs(result.estimates[name] - truth) < 3 * result.std[name]
    assert result.times["experiment 0"][0] == pytest.approx(0.2)
    sol = result.simulate(0)  # from the start time, through every sample
    assert sol.t[0] == 0.0 and sol.t.size == 182
    np.testing.assert_allclose(sol["mass.s"][1:], result.fitted["experiment 0"]["mass.s"],
                               atol=1e-5)


def test_model_with_events_is_fitted_by_hybrid_single_shooting():
    system = compile(StickSlipOscillator())
    assert system.has_events
    t = np.linspace(0.0, 1.5, 301)
    data = noisy(system, ["mass.s"], t, seed=11)
    result = identify(system, data, {"friction.F_Coulomb": 1.5, "friction.F_prop": 1.0})
    assert result.method == "single_shooting"
    assert result.sensitivities == "finite differences"
    assert result.converged, result.message
    assert abs(result.estimates["friction.F_Coulomb"] - 2.0) < 3 * result.std["friction.F_Coulomb"]
    assert abs(result.estimates["friction.F_prop"] - 0.5) < 3 * result.std["friction.F_prop"]


def test_progress_is_shown_on_request(msd, capsys):
    system, data = msd
    identify(system, data, ["sd.c"], progress=True)
    err = capsys.readouterr().err
    assert "identify MassSpringDamper" in err and "iterations" in err
    identify(system, data, ["sd.c"], progress=False)
    assert capsys.readouterr().err == ""


def test_limited_memory_hessian_reaches_the_same_estimates(msd):
    system, data = msd
    gauss_newton = identify(system, data, {"sd.c": 80.0, "sd.d": 1.5})
    quasi_newton = identify(system, data, {"sd.c": 80.0, "sd.d": 1.5},
                            hessian="limited-memory")
    assert quasi_newton.converged
    for name in TRUE_MSD:
        assert abs(quasi_newton.estimates[name] - gauss_newton.estimates[name]) \
            < 0.05 * gauss_newton.std[name]


def test_ctrl_c_with_the_progress_display_returns_the_fit_so_far(msd, monkeypatch, capsys):
    import importlib
    import os
    import signal

    # the module whose iteration callback runs the progress display (by its import path)
    module = importlib.import_module("acausal.analysis.identify.estimator")

    system, data = msd
    original = module._Iterations.eval

    def eval_and_interrupt(self, arg):  # Ctrl-C during the second iteration
        if len(self.history) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        return original(self, arg)

    monkeypatch.setattr(module._Iterations, "eval", eval_and_interrupt)
    with pytest.warns(IdentificationWarning, match="stopped by the user"):
        result = identify(system, data, {"sd.c": 50.0, "sd.d": 1.0}, progress=True)
    assert result.interrupted and not result.converged
    assert result.iterations <= 3 and result.estimates["sd.c"] != 50.0
    assert "stopped" in capsys.readouterr().err
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored
