"""User errors: each is an AcausalError subclass whose message names the culprit."""

from __future__ import annotations

import math

import pytest
import sympy as sp

import acausal
from acausal import (
    AcausalError,
    Component,
    Connector,
    Eq,
    Flow,
    InitializationError,
    InputError,
    ModelDefinitionError,
    OverdeterminedError,
    Parameter,
    ParameterError,
    Potential,
    SimulationError,
    StructurallySingularError,
    UnconnectedConnectorError,
    UnderdeterminedError,
    UnknownNameError,
    Variable,
    compile,
    connect,
    der,
    simulate,
)


class Flange(Connector):
    """1-D flange: position ``s``, force ``f``."""

    s = Potential(unit="m")
    f = Flow(unit="N")


class Mass(Component):
    """``s = flange.s``; ``der(s) = v``; ``m der(v) = flange.f``."""

    m = Parameter(1.0, unit="kg")
    flange = Flange()
    s = Variable(start=0.0, fixed=True)
    v = Variable(start=1.0, fixed=True)

    def equations(self):
        return [Eq(self.s, self.flange.s), Eq(der(self.s), self.v),
                Eq(self.m * der(self.v), self.flange.f)]


class Free(Component):
    """A free mass inside a model (so that every path has a prefix)."""

    body = Mass()


def raises_named(exc_type, *fragments):
    """Context manager: ``exc_type`` is raised and its message contains every fragment."""
    return _RaisesNamed(exc_type, fragments)


class _RaisesNamed:
    def __init__(self, exc_type, fragments):
        assert issubclass(exc_type, AcausalError)
        self.exc_type = exc_type
        self.fragments = fragments

    def __enter__(self):
        self._ctx = pytest.raises(self.exc_type)
        self.info = self._ctx.__enter__()
        return self.info

    def __exit__(self, *exc):
        suppressed = self._ctx.__exit__(*exc)
        text = str(self.info.value)
        for fragment in self.fragments:
            assert fragment in text, f"{fragment!r} not in message:\n{text}"
        assert isinstance(self.info.value, AcausalError)
        return suppressed


# --------------------------------------------------------------------------------------------
# Structure
# --------------------------------------------------------------------------------------------


def test_under_determined_names_the_variable():
    class Sub(Component):
        x = Variable()
        y = Variable()  # no equation determines y

        def equations(self):
            return [Eq(der(self.x), -self.x)]

    class Top(Component):
        sub = Sub()

    with raises_named(UnderdeterminedError, "sub.y", "(in sub)"):
        compile(Top())


def test_over_determined_names_the_equation():
    class Sub(Component):
        x = Variable(start=1.0)

        def equations(self):
            return [Eq(der(self.x), -self.x), Eq(self.x, 2.0)]

    class Top(Component):
        sub = Sub()

    with raises_named(OverdeterminedError, "equation 2 of Sub 'sub'", "sub.x"):
        compile(Top())


def test_over_determined_by_a_duplicated_connection():
    class Top(Component):
        a = Mass()
        b = Mass(s=Variable(start=0.0, fixed=False), v=Variable(fixed=False))

        def equations(self):
            return [Eq(self.a.s, self.b.s)]  # duplicates the connection below

        def connections(self):
            return [connect(self.a.flange, self.b.flange)]

    # The extra equation is either the root's a.s = b.s or one of the connection set's
    # equations (which one the matching leaves over is arbitrary): the message must list one of
    # them and say that a connection may duplicate it.
    with raises_named(OverdeterminedError, "9 equations and 8 unknowns", "connection") as info:
        compile(Top())
    text = str(info.value)
    assert "equation 1 of Top '<root>'" in text or "connection set {a.flange, b.flange}" in text


def test_structurally_singular_names_the_equations():
    class Redundant(Component):
        x = Variable(start=0.6)
        y = Variable(start=-0.8)
        vx = Variable()
        vy = Variable()
        lam = Variable()
        mu = Variable()

        def equations(self):
            return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                    Eq(der(self.vx), -(self.lam + self.mu) * self.x),
                    Eq(der(self.vy), -(self.lam + self.mu) * self.y - 9.81),
                    Eq(self.x ** 2 + self.y ** 2, 1),
                    Eq(2 * self.x ** 2 + 2 * self.y ** 2, 2)]

    class Top(Component):
        pend = Redundant()

    with raises_named(StructurallySingularError, "equation 5 of Redundant 'pend'",
                      "equation 6 of Redundant 'pend'"):
        compile(Top())


def test_unconnected_required_connector_names_it():
    class Needy(Component):
        port = Flange(required=True)
        x = Variable()

        def equations(self):
            return [Eq(self.x, self.port.s)]

    class Top(Component):
        part = Needy()

    with raises_named(UnconnectedConnectorError, "part.port"):
        compile(Top())
    assert issubclass(UnconnectedConnectorError, ModelDefinitionError)


# --------------------------------------------------------------------------------------------
# Unknown names
# --------------------------------------------------------------------------------------------


def test_unknown_override_kwarg():
    with raises_named(ModelDefinitionError, "'mm'", "Mass", "'m'"):
        Mass(mm=2)


def test_unknown_variable_in_solution():
    sol = simulate(Free(), 0.1, n_points=3)
    with raises_named(UnknownNameError, "'nope'"):
        sol["nope"]
    with pytest.raises(KeyError):  # also a KeyError, for dict-like use
        sol["nope"]
    with raises_named(UnknownNameError, "body.ss", "body.s"):  # did you mean
        sol["body.ss"]
    assert "nope" not in sol
    assert "body.flange.s" in sol


def test_unknown_parameter_in_simulate_params():
    cs = compile(Free())
    with raises_named(ParameterError, "'nope'"):
        cs.simulate(0.1, params={"nope": 1.0})
    with raises_named(ParameterError, "body.mm", "body.m"):
        cs.simulate(0.1, params={"body.mm": 1.0})


def test_non_numeric_parameter_in_simulate_params():
    with raises_named(ParameterError, "body.m"):
        compile(Free()).simulate(0.1, params={"body.m": "heavy"})


def test_undeclared_symbol_in_an_equation():
    class Sloppy(Component):
        x = Variable()

        def equations(self):
            return [Eq(der(self.x), -sp.Symbol("k") * self.x)]

    class Top(Component):
        sub = Sloppy()

    with raises_named(ModelDefinitionError, "'k'", "equation 1 of Sloppy 'sub'"):
        compile(Top())


def test_undeclared_symbol_that_looks_like_a_variable():
    class Sloppy(Component):
        x = Variable()

        def equations(self):
            return [Eq(der(self.x), -sp.Symbol("x", real=True))]  # not the bound sub.x

    class Top(Component):
        sub = Sloppy()

    with raises_named(ModelDefinitionError, "'x'", "equation 1 of Sloppy 'sub'", "self.x"):
        compile(Top())


def test_unknown_name_in_locate():
    cs = compile(Free())
    with raises_named(UnknownNameError, "'body.q'"):
        cs.locate("body.q")


# --------------------------------------------------------------------------------------------
# Non-finite parameters
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -math.inf])
def test_non_finite_parameter_at_construction(bad):
    class Top(Component):
        body = Mass(m=bad)

    with raises_named(ParameterError, "'m'", "'body'"):
        compile(Top())


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_vector_parameter_at_construction(bad):
    class Vec(Component):
        r = Parameter([1.0, 2.0])
        x = Variable()

        def equations(self):
            return [Eq(self.x, self.r[0] + self.r[1])]

    class Top(Component):
        vec = Vec(r=[1.0, bad])

    with raises_named(ParameterError, "'r'", "'vec'"):
        compile(Top())


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -math.inf])
def test_non_finite_parameter_in_params(bad):
    cs = compile(Free())
    with raises_named(ParameterError, "body.m"):
        cs.simulate(0.1, params={"body.m": bad})


def test_parameter_without_value():
    class NoValue(Component):
        k = Parameter(None, structural=False)
        x = Variable()

        def equations(self):
            return [Eq(self.x, self.k)]

    class Top(Component):
        part = NoValue()

    with raises_named(ParameterError, "'k'", "'part'"):
        compile(Top())


# --------------------------------------------------------------------------------------------
# Initialisation and integration
# --------------------------------------------------------------------------------------------


def test_failure_to_initialise():
    class Impossible(Component):
        x = Variable(start=0.5)

        def equations(self):
            return [Eq(self.x ** 2, -1)]

    class Top(Component):
        part = Impossible()

    with raises_named(InitializationError, "part.x"):
        simulate(Top(), 1.0)


def test_failure_to_initialise_a_dae():
    """x^2 = -1 - y^2 coupled to a state: no real solution."""

    class Impossible(Component):
        y = Variable(start=1.0, fixed=True)
        x = Variable(start=0.5)

        def equations(self):
            return [Eq(der(self.y), -self.x), Eq(self.x ** 2 + self.y ** 2, -1)]

    class Top(Component):
        part = Impossible()

    # x is an alias of -der(part.y): the message may name either
    with raises_named(InitializationError, "part."):
        simulate(Top(), 1.0)


def test_failure_to_integrate_finite_time_blow_up():
    class Blowup(Component):
        x = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.x), self.x ** 2)]  # x = 1 / (1 - t): infinite at t = 1

    with pytest.raises(SimulationError):
        simulate(Blowup(), 2.0)


def test_non_finite_result_is_a_simulation_error():
    class Root(Component):
        x = Variable(start=1.0, fixed=True)
        y = Variable()

        def equations(self):
            return [Eq(der(self.x), -1), Eq(self.y, sp.sqrt(self.x))]  # NaN once x < 0

    class Top(Component):
        part = Root()

    # raised by simulate, or (outputs are computed lazily) when the variable is read
    with raises_named(SimulationError, "part.y"):
        sol = simulate(Top(), 2.0, t_eval=[0.0, 0.5, 1.5])
        sol["part.y"]


@pytest.mark.parametrize("kwargs", [
    dict(t_end=-1.0), dict(t_end=1.0, dt=-0.1), dict(t_end=1.0, n_points=1),
    dict(t_end=1.0, t_eval=[0.0, 0.5, 0.2]), dict(t_end=float("nan")),
])
def test_bad_time_grid(kwargs):
    cs = compile(Free())
    t_end = kwargs.pop("t_end")
    with pytest.raises(InputError, match="t_end|dt|n_points|t_eval"):
        cs.simulate(t_end, **kwargs)


def test_structural_errors_share_a_base_class():
    for cls in (UnderdeterminedError, OverdeterminedError, StructurallySingularError):
        assert issubclass(cls, acausal.StructuralError)
        assert issubclass(cls, AcausalError)


# --------------------------------------------------------------------------------------------
# No bare internal exception escapes
# --------------------------------------------------------------------------------------------


def _scenarios(pendulum=None):
    class Under(Component):
        x = Variable()
        y = Variable()

        def equations(self):
            return [Eq(der(self.x), -self.x)]

    class Impossible(Component):
        x = Variable()

        def equations(self):
            return [Eq(self.x ** 2, -1)]

    class Blowup(Component):
        x = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.x), self.x ** 2)]

    class Sloppy(Component):
        x = Variable()

        def equations(self):
            return [Eq(der(self.x), sp.Symbol("k") * self.x)]

    class Unknown(Component):
        x = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.x), sp.Function("mystery")(self.x))]

    def bad_pendulum():
        return pendulum(0.5, fixed=("x", "y", "vx"), y=Variable(start=-0.2))

    return {
        "under-determined": lambda: compile(Under()),
        "unknown override": lambda: Mass(mm=2),
        "unknown solution name": lambda: simulate(Free(), 0.1, n_points=2)["nope"],
        "unknown parameter": lambda: simulate(Free(), 0.1, params={"nope": 1}),
        "nan parameter": lambda: simulate(Free(), 0.1, params={"body.m": float("nan")}),
        "undeclared symbol": lambda: compile(Sloppy()),
        "unknown function": lambda: compile(Unknown()),
        "initialisation": lambda: simulate(Impossible(), 1.0),
        "over-specified start": lambda: simulate(bad_pendulum(), 0.1),
        "integration": lambda: simulate(Blowup(), 2.0),
        "not a component": lambda: compile(Flange()),
        "connect non-connector": lambda: connect(Mass(), Mass()),
    }


@pytest.mark.parametrize("name", list(_scenarios()))
def test_no_bare_internal_exception(name, pendulum):
    action = _scenarios(pendulum)[name]
    try:
        action()
    except AcausalError as exc:
        assert str(exc).strip(), "an error without a message"
        # the message is the user's: no internal tracebacks or repr noise
        assert "Traceback" not in str(exc)
    except Exception as exc:  # pragma: no cover - this is the failure being tested
        pytest.fail(f"{name}: a bare {type(exc).__name__} escaped: {exc}")
    else:
        pytest.fail(f"{name}: no error raised")


def test_duplicated_equation_is_reported_after_alias_elimination():
    class Dup(Component):
        x = Variable()
        y = Variable()

        def equations(self):
            return [Eq(self.x, self.y), Eq(self.x, self.y)]

    class Top(Component):
        part = Dup()

    with raises_named(OverdeterminedError, "equation 2 of Dup 'part'", "redundant"):
        compile(Top())


def test_contradictory_equation_is_reported_after_alias_elimination():
    class Contra(Component):
        x = Variable()
        y = Variable()

        def equations(self):
            return [Eq(self.x, self.y), Eq(self.x, self.y + 1)]

    class Top(Component):
        part = Contra()

    with raises_named(OverdeterminedError, "equation 2 of Contra 'part'", "never hold"):
        compile(Top())


def test_non_finite_observed_variable_names_it_and_the_time():
    class Root(Component):
        x = Variable(start=0.0, fixed=True)
        y = Variable()

        def equations(self):
            # y is computed from the state: NaN once x passes 0.5 (t = 0.5)
            return [Eq(der(self.x), 1.0), Eq(self.y, sp.sqrt(0.5 - self.x))]

    sol = compile(Root()).simulate(1.0, n_points=11)
    assert sol["x"][-1] == pytest.approx(1.0)
    with pytest.raises(SimulationError, match=r"from t = 0\.6 on in the model's variables: y\."):
        sol["y"]


def test_a_part_named_like_an_attribute_of_every_component_is_refused():
    """``path``, ``equations``, ``compile``, ... are acausal's own attributes: a part or variable
    of that name would hide them (a raw AttributeError before)."""
    from acausal import Component, ModelDefinitionError, Variable

    class Built(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.path = Component()

    with pytest.raises(ModelDefinitionError, match="'path' is a name acausal uses"):
        Built()

    class Declared(Component):
        compile = Variable()

    with pytest.raises(ModelDefinitionError, match="Declared.compile: 'compile' is a name"):
        Declared()
