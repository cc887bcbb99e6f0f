"""Bad input to an optimal control problem gets a named error from the acausal family."""

from __future__ import annotations

import pytest
from ocp_models import Sled

from acausal import (
    InputError,
    ModelDefinitionError,
    OptimalControl,
    OptimizationError,
    UnknownNameError,
    compile,
    connect,
)
from acausal.components.friction import GroundFriction


class SledWithStickSlip(Sled):
    """The sled on a surface with MSL's stick/slip friction (events)."""

    friction = GroundFriction(F_Coulomb=2.0)

    def connections(self):
        return [*super().connections(), connect(self.friction.flange, self.mass.flange_a)]


@pytest.fixture(scope="module")
def sled():
    return compile(Sled())


def test_unknown_variable_names_the_name_and_suggests(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    with pytest.raises(UnknownNameError, match=r"'mass.sx'.*Did you mean 'mass.s'"):
        ocp.path("mass.sx", upper=1.0)
    with pytest.raises(UnknownNameError, match="'mass.vv'"):
        ocp.minimize(lagrange="mass.vv**2 + force.f**2")
    with pytest.raises(UnknownNameError, match="'mass.q'"):
        ocp.end("mass.q", 1.0)


def test_unknown_control_name(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    with pytest.raises(UnknownNameError, match=r"'force.ff' is not a parameter.*force.f"):
        ocp.control("force.ff")


def test_crossed_bounds(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    with pytest.raises(InputError, match=r"crossed: lower = 2 > upper = 1"):
        ocp.control("force.f", lower=2.0, upper=1.0)
    with pytest.raises(InputError, match="crossed"):
        ocp.path("mass.v", lower=1.0, upper=-1.0)
    with pytest.raises(InputError, match="crossed"):
        ocp.free_end_time(lower=3.0, upper=2.0)


def test_control_that_is_a_variable_not_an_input(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    with pytest.raises(InputError, match=r"'mass.v' is a variable.*Input"):
        ocp.control("mass.v")


def test_end_condition_on_nothing(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    with pytest.raises(InputError, match="has no bound"):
        ocp.end("mass.s")
    with pytest.raises(InputError, match="give a variable name or an expression"):
        ocp.end("", 1.0)


def test_free_end_time_without_bounds(sled):
    ocp = OptimalControl(sled)
    with pytest.raises(InputError, match="free end time needs both bounds"):
        ocp.free_end_time(guess=2.0)
    with pytest.raises(InputError, match="no end time"):
        ocp.control("force.f").minimize(mayer="mass.s").solve()


def test_infeasible_problem_names_status_and_constraints(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    ocp.control("force.f", lower=-0.1, upper=0.1)
    ocp.end("mass.s", 5.0)  # out of reach with |f| <= 0.1 in 1 s
    ocp.minimize(lagrange="force.f**2")
    with pytest.raises(OptimizationError) as info:
        ocp.solve(elements=10)
    err = info.value
    assert "Infeasible" in err.status
    assert "end mass.s = 5" in str(err)
    assert err.violations and err.violations[0][0] == "end mass.s = 5"


def test_hybrid_model_without_smooth_twin():
    hybrid = compile(SledWithStickSlip())
    with pytest.raises(ModelDefinitionError, match=r"event.*friction.*smooth_twin=.*LuGre"):
        OptimalControl(hybrid, t_end=1.0)


def test_a_twin_with_events_is_refused(sled):
    hybrid = compile(SledWithStickSlip())
    with pytest.raises(ModelDefinitionError, match="smooth twin .* has events too"):
        OptimalControl(sled, t_end=1.0, smooth_twin=hybrid)


def test_other_bad_input(sled):
    ocp = OptimalControl(sled, t_end=1.0)
    with pytest.raises(InputError, match="no objective"):
        ocp.control("force.f").solve()
    ocp.minimize(lagrange="force.f**2")
    with pytest.raises(InputError, match="scheme must be one of radau, legendre"):
        ocp.solve(scheme="gauss")
    with pytest.raises(InputError, match="degree"):
        ocp.solve(degree=0)
    with pytest.raises(InputError, match="elements"):
        ocp.solve(elements=0)
    with pytest.raises(InputError, match="mesh"):
        ocp.solve(mesh=[1.0, -1.0])
    with pytest.raises(InputError, match="method"):
        ocp.solve(method="pseudospectral")
    with pytest.raises(UnknownNameError, match="guess names 'mass.x'"):
        ocp.solve(guess={"mass.x": 1.0})
    with pytest.raises(InputError, match="not an expression sympy can read"):
        ocp.path("mass.s +* 2", upper=1.0)
    with pytest.raises(InputError, match="relation"):
        ocp.path("mass.s < 2", upper=1.0)
    with pytest.raises(InputError, match="already a control"):
        ocp.control("force.f")
    with pytest.raises(InputError, match="t_end = 0 must be after"):
        OptimalControl(sled, t_end=0.0)
    with pytest.raises(InputError, match="kind"):
        OptimalControl(sled, t_end=1.0).control("force.f", kind="spline")
