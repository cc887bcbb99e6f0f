"""identify() refuses bad input with an acausal error that names the parameter, variable or
experiment and says what to do; a fit that does not converge is returned with a warning."""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, Parameter, Variable, compile, connect
from acausal.analysis.identify import Experiment, IdentificationWarning, identify
from acausal.base.errors import InputError, ParameterError, SimulationError, UnknownNameError
from acausal.components.friction import GroundFriction
from acausal.components.translational import Fixed, Mass, SpringDamper


class Oscillator(Component):
    wall = Fixed()
    sd = SpringDamper(c=100.0, d=2.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.mass.flange_a)]


class WithEvents(Component):
    wall = Fixed()
    sd = SpringDamper(c=100.0, d=0.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))
    friction = GroundFriction(F_Coulomb=1.0)

    def connections(self):
        return [connect(self.wall.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.mass.flange_a),
                connect(self.mass.flange_b, self.friction.flange)]


@pytest.fixture(scope="module")
def system():
    return compile(Oscillator())


@pytest.fixture(scope="module")
def data(system):
    t = np.linspace(0.0, 1.0, 101)
    sol = system.simulate(1.0, t_eval=t)
    return {"t": t, "mass.s": np.asarray(sol["mass.s"])}


def test_unknown_parameter_is_named_with_a_suggestion(system, data):
    with pytest.raises(ParameterError, match=r"'sd.cc' is not a parameter of Oscillator\. "
                                             r"Did you mean 'sd.c'"):
        identify(system, data, ["sd.cc"])


def test_a_variable_is_not_a_parameter(system, data):
    with pytest.raises(ParameterError, match="'mass.s' is a variable.*estimate_initial_states"):
        identify(system, data, ["mass.s"])


def test_structural_parameter_cannot_be_estimated(data):
    class Flagged(Oscillator):
        preloaded = Parameter(False, description="a bool parameter: structural")

    flagged = compile(Flagged())
    with pytest.raises(ParameterError, match="'preloaded' is a structural parameter.*compile "
                                             "again"):
        identify(flagged, data, ["preloaded"])


def test_unknown_signal_names_the_experiment(system, data):
    bad = {"t": data["t"], "mass.x": data["mass.s"]}
    with pytest.raises(UnknownNameError, match=r"Experiment 'rig 2'.*'mass.x' is not a "
                                               r"variable.*Did you mean .*'mass.s'"):
        identify(system, Experiment(bad, name="rig 2"), ["sd.c"])


def test_a_parameter_is_not_a_signal(system, data):
    with pytest.raises(InputError, match="'sd.d' is a parameter, not a time-varying"):
        identify(system, {"t": data["t"], "sd.d": data["mass.s"]}, ["sd.c"])


def test_no_data(system, data):
    with pytest.raises(InputError, match="Experiment 'empty' has no data"):
        identify(system, Experiment({"t": []}, name="empty"), ["sd.c"])
    with pytest.raises(InputError, match="Experiment 'experiment 0' has no data"):
        identify(system, {"t": data["t"]}, ["sd.c"])
    with pytest.raises(InputError, match="experiments must be"):
        identify(system, [], ["sd.c"])
    with pytest.raises(InputError, match="no time"):
        identify(system, {"mass.s": data["mass.s"]}, ["sd.c"])


def test_times_must_increase(system, data):
    t = data["t"].copy()
    t[[10, 11]] = t[[11, 10]]
    with pytest.raises(InputError, match=r"Experiment 'shuffled'.*increase strictly; "
                                         r"t\[11\] = 0\.1 follows t\[10\] = 0\.11"):
        identify(system, Experiment({"t": t, "mass.s": data["mass.s"]}, name="shuffled"),
                 ["sd.c"])


def test_nan_in_the_data(system, data):
    y = data["mass.s"].copy()
    y[[30, 40]] = np.nan
    with pytest.raises(InputError, match=r"Experiment 'lab'.*'mass.s' has 2 NaN.*t = 0\.3.*"
                                         r"dropna"):
        identify(system, Experiment({"t": data["t"], "mass.s": y}, name="lab"), ["sd.c"])


def test_bounds_must_contain_the_guess(system, data):
    with pytest.raises(ParameterError, match=r"initial guess 100 of 'sd.c' is outside its "
                                             r"bounds \[120, 200\]"):
        identify(system, data, ["sd.c"], bounds={"sd.c": (120.0, 200.0)})
    with pytest.raises(ParameterError, match="below the parameter's declared minimum 0"):
        identify(system, data, ["sd.c"], bounds={"sd.c": (-1.0, 200.0)})
    with pytest.raises(ParameterError, match="bounds are given for 'sd.d', which is not "
                                             "estimated"):
        identify(system, data, ["sd.c"], bounds={"sd.d": (0.0, 5.0)})


def test_estimated_parameter_given_as_known(system, data):
    with pytest.raises(ParameterError, match="Experiment 'a' gives 'sd.c' as a known "
                                             "parameter, but it is also estimated"):
        identify(system, Experiment(data, params={"sd.c": 90.0}, name="a"), ["sd.c"])


def test_bad_options(system, data):
    with pytest.raises(InputError, match="method must be one of"):
        identify(system, data, ["sd.c"], method="collocation")
    with pytest.raises(InputError, match="intervals must be a whole number"):
        identify(system, data, ["sd.c"], intervals=0)
    with pytest.raises(InputError, match="sigma of 'mass.s' must be positive"):
        identify(system, Experiment(data, sigma={"mass.s": 0.0}), ["sd.c"])
    with pytest.raises(InputError, match="'mass.s' has both sigma and weights"):
        identify(system, Experiment(data, sigma=1.0, weights={"mass.s": 2.0}), ["sd.c"])
    with pytest.raises(InputError, match="is not a state"):
        identify(system, data, ["sd.c"], estimate_initial_states=["sd.f"])


def test_constant_signal_needs_a_sigma(system, data):
    with pytest.raises(InputError, match="'mass.s' is constant in the data.*sigma="):
        identify(system, {"t": data["t"], "mass.s": np.zeros(data["t"].size)}, ["sd.c"])


def test_model_with_events_has_no_multiple_shooting(data):
    events = compile(WithEvents())
    with pytest.raises(InputError, match="has events.*method='single_shooting'.*regularised"):
        identify(events, data, ["friction.F_Coulomb"], method="multiple_shooting")


def test_model_that_cannot_be_integrated_at_the_guess(system, data):
    massless = Experiment(data, params={"mass.m": 0.0}, name="massless")
    with pytest.warns(IdentificationWarning, match="could not be simulated at the initial "
                                                   "guess"), \
            pytest.raises(SimulationError, match="cannot be integrated over the experiments at "
                                                 "the initial guess"):
        identify(system, massless, ["sd.c"])


def test_no_convergence_returns_the_result_with_a_warning(system, data):
    with pytest.warns(IdentificationWarning, match=r"IPOPT did not converge "
                                                   r"\(Maximum_Iterations_Exceeded\)"):
        result = identify(system, data, {"sd.c": 60.0, "sd.d": 1.0}, max_iter=1)
    assert not result.converged
    assert result.status == "Maximum_Iterations_Exceeded"
    assert "did NOT converge" in str(result)
    assert result.estimates["sd.c"] != 60.0  # the last iterate is kept
    assert "IPOPT did not converge" in result.message


def test_estimate_on_a_bound_is_flagged(system, data):
    with pytest.warns(IdentificationWarning, match="sd.d ended on a bound"):
        result = identify(system, data, {"sd.c": 80.0, "sd.d": 1.0}, bounds={"sd.d": (0.0, 1.5)})
    assert result.at_bounds == ["sd.d"] and result.estimates["sd.d"] == 1.5
    assert "(at a bound)" in str(result)
