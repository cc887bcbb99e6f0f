"""The compiler's unit check (acausal/compiler/units.py): unit strings in Modelica's syntax,
the rules for each kind of expression, the messages, and the ways out (unit_free, check_units).
"""

from __future__ import annotations

import pytest
import sympy as sp

import acausal as ac
from acausal import Component, Discrete, Eq, Parameter, Variable, When, der, event_if, reinit
from acausal.compiler.units import UnitSyntaxError, parse_unit, unit_text
from acausal.errors import ModelDefinitionError, UnitError

# ------------------------------------------------------------------------------------------
# Unit strings
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("a, b", [
    ("N.m", "J"), ("N.m", "kg.m2/s2"), ("m/s2", "m.s-2"), ("1/s", "Hz"), ("s-1", "Hz"),
    ("N.m.s/rad", "N.m.s"), ("kg/(m.s2)", "Pa"), ("mm", "m"), ("kN", "N"), ("ms", "s"),
    ("uA", "A"), ("rad", "1"), ("deg", "1"), ("V.A", "W"), ("Ohm", "V/A"), ("Wb", "V.s"),
    ("F", "A.s/V"), ("H", "V.s/A"), ("min", "s"), ("h", "s"), ("kg.m2", "J.s2"),
    ("N/m", "kg/s2"), ("m3/s2", "m.m2/(s.s)"),
    # the SI's derived units that sympy lacks or gives a dimension of its own
    ("sr", "1"), ("lm", "cd.sr"), ("lx", "lm/m2"), ("Sv", "J/kg"), ("Sv", "Gy"), ("mSv", "Gy"),
])
def test_equal_units_parse_to_one_dimension(a, b):
    assert parse_unit(a) == parse_unit(b)


@pytest.mark.parametrize("a, b", [("N", "N.m"), ("m/s", "m/s2"), ("kg", "g.m"), ("1", "s"),
                                  ("J", "W")])
def test_different_units_parse_to_different_dimensions(a, b):
    assert parse_unit(a) != parse_unit(b)


@pytest.mark.parametrize("text", ["meters", "m^2", "N..m", "", "m/", "kgg", "N m"])
def test_strings_that_are_not_units_are_refused(text):
    with pytest.raises(UnitSyntaxError):
        parse_unit(text)


def test_units_are_printed_in_base_units_with_their_name():
    assert unit_text(parse_unit("N.m")) == "kg.m2/s2 (J)"
    assert unit_text(parse_unit("m/s2")) == "m/s2"
    assert unit_text(parse_unit("1")) == "1"


# ------------------------------------------------------------------------------------------
# Equations
# ------------------------------------------------------------------------------------------


class Oscillator(Component):
    """der(v) == -m*x + x**2 (the issue's example): kg.m and m2 against m/s2."""

    x = Variable(start=1.0, unit="m")
    v = Variable(start=0.0, unit="m/s")
    m = Parameter(2.0, unit="kg")

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(der(self.v), -self.m * self.x + self.x**2)]


def test_the_mixed_units_oscillator_is_refused_naming_the_equation_and_both_sides():
    with pytest.raises(UnitError) as info:
        Oscillator().compile()
    text = str(info.value)
    assert "equation 2 of Oscillator" in text
    assert "der(v) = -m*x + x**2" in text
    assert "left side is in [m/s2]" in text
    assert "x**2 [m2]" in text and "-m*x [kg.m]" in text
    assert "m [kg]" in text and "x [m]" in text  # the declared units of the culprits
    assert isinstance(info.value, ModelDefinitionError)  # one family: caught as a model error


def test_the_check_can_be_turned_off_per_model():
    sol = Oscillator().compile(check_units=False).simulate(0.1)
    assert sol["x"][-1] == pytest.approx(1.0, abs=0.05)
    with pytest.raises(ModelDefinitionError, match="check_units"):
        Oscillator().compile(check_units="no")


class Consistent(Component):
    """Every rule that must pass: rad dimensionless, numbers free, powers, functions."""

    x = Variable(start=0.1, unit="m")
    v = Variable(start=0.0, unit="m/s")
    phi = Variable(unit="rad")
    w = Variable(unit="rad/s")
    f = Variable(unit="N")
    e = Variable()  # no unit: unknown, never wrong
    m = Parameter(1.0, unit="kg")
    k = Parameter(4.0, unit="N/m")
    r = Parameter(0.5, unit="m")
    x0 = Parameter(0.05, unit="m")

    def equations(self):
        return [
            Eq(der(self.x), self.v),
            Eq(self.m * der(self.v), self.f),
            Eq(self.f, -self.k * (self.x - self.x0) - 0.1 * self.k * self.x * sp.sin(self.phi)
               + 0 * sp.sqrt(self.k * self.m) * self.v),
            Eq(self.v, self.r * self.w),  # v = r w: rad is 1
            Eq(der(self.phi), self.w),
            Eq(self.e * self.k, self.x * self.w + 3),  # e has no unit: nothing to compare
        ]


def test_consistent_equations_pass():
    sol = Consistent().compile().simulate(0.2)
    assert abs(sol["x"][-1]) < 1.0


def _one_equation(relation_of, **units):
    """A component with variables a, b, c of the given units and one equation."""
    decls = {name: Variable(unit=u) for name, u in units.items()}

    def equations(self):
        return [relation_of(self)]

    return type("OneEquation", (Component,), {**decls, "equations": equations})


@pytest.mark.parametrize("relation, units, culprit", [
    (lambda s: Eq(s.a, sp.sin(s.b)), dict(a="1", b="m"), "argument of sin"),
    (lambda s: Eq(s.a, sp.exp(s.b)), dict(a="1", b="s"), "argument of exp"),
    (lambda s: Eq(s.a, s.b**s.c), dict(a="1", b="m", c="1"), "symbolic exponent"),
    (lambda s: Eq(s.a, sp.atan2(s.b, s.c)), dict(a="rad", b="m", c="s"), "atan2"),
    (lambda s: Eq(s.a, sp.Max(s.b, s.c)), dict(a="m", b="m", c="N"), "Max"),
    (lambda s: Eq(s.a, sp.Piecewise((s.b, s.b > s.c), (0, True))), dict(a="m", b="m", c="s"),
     "relation"),
    (lambda s: Eq(s.a, event_if(s.b > 0, s.b, s.c)), dict(a="m", b="m", c="N"), "event_if"),
    (lambda s: Eq(der(s.a), s.b), dict(a="m", b="m"), "left side is in [m/s]"),
    (lambda s: Eq(s.a, sp.sqrt(s.b)), dict(a="m", b="m"), "right side is in [m^(1/2)]"),
])
def test_each_rule_refuses_its_mismatch(relation, units, culprit):
    with pytest.raises(UnitError) as info:
        ac.compile(_one_equation(relation, **units)(), check_units=True)
    assert culprit in str(info.value)


class FittedDrag(Component):
    """A fitted law in mixed units, as a data sheet writes it: f = 3 v + v**2 (f in N)."""

    v = Variable(start=1.0, unit="m/s")
    f = Variable(unit="N")
    m = Parameter(1.0, unit="kg")

    def drag(self):
        return Eq(self.f, 3 * self.v + self.v**2)

    def equations(self):
        return [self.drag(), Eq(self.m * der(self.v), -self.f)]


class MarkedDrag(FittedDrag):
    def equations(self):
        return [ac.unit_free(self.drag()), Eq(self.m * der(self.v), -self.f)]


def test_unit_free_marks_an_empirical_law():
    with pytest.raises(UnitError, match="equation 1 of FittedDrag"):
        FittedDrag().compile()
    sol = MarkedDrag().compile().simulate(0.5)
    assert sol["f"][0] == pytest.approx(4.0)


def test_an_unparseable_unit_names_the_variable():
    class Odd(Component):
        x = Variable(start=0.0, unit="meters")

        def equations(self):
            return [Eq(der(self.x), 1)]

    with pytest.raises(ModelDefinitionError, match=r"'x'.*unit='meters'.*'meters' is not a unit"):
        Odd().compile()
    assert Odd().compile(check_units=False) is not None


def test_the_error_names_the_component_path_of_a_part():
    class Holder(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.osc = Oscillator()

    with pytest.raises(UnitError, match=r"equation 2 of Oscillator 'osc'"):
        Holder().compile()


def test_event_conditions_and_actions_are_checked():
    class Bouncer(Component):
        h = Variable(start=1.0, unit="m")
        v = Variable(start=0.0, unit="m/s")
        n = Discrete(start=0.0, unit="1")

        def equations(self):
            return [Eq(der(self.h), self.v), Eq(der(self.v), -9.81)]

        def events(self):
            return [When(self.h < 0, reinit(self.v, -self.h))]  # m for m/s

    with pytest.raises(UnitError, match=r"(?s)event 1 of Bouncer.*the variable and the value"):
        Bouncer().compile()

    class Bouncer2(Bouncer):
        def events(self):
            return [When(self.h < self.v, reinit(self.v, -0.8 * self.v))]  # m < m/s

    with pytest.raises(UnitError, match=r"two sides of a relation"):
        Bouncer2().compile()


def test_initial_equations_are_checked():
    class Start(Component):
        x = Variable(unit="m")
        v = Variable(unit="m/s")

        def equations(self):
            return [Eq(der(self.x), self.v), Eq(der(self.v), -9.81)]

        def initial_equations(self):
            return [Eq(self.x, self.v)]

    with pytest.raises(UnitError, match="initial equation 1 of Start"):
        Start().compile(check_units=True)


def test_copies_of_a_template_are_not_checked_again():
    """Identical components share their equations (templates): the first is checked, the
    copies are marked so; an error names the first instance."""
    from acausal.compiler.flatten import flatten

    class Chain(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.parts = [Consistent() for _ in range(3)]

    flat = flatten(Chain())
    checked = {e.origin for e in flat.equations if e.check_units and e.origin}
    assert {e.origin for e in flat.equations if e.origin} == {"parts[0]", "parts[1]", "parts[2]"}
    assert checked == {"parts[0]"}


def test_the_command_line_reports_a_unit_error_and_can_skip_the_check(tmp_path, capsys):
    from acausal.cli import main

    model = tmp_path / "bad_units.py"
    model.write_text(
        "from acausal import Component, Eq, Parameter, Variable, der\n"
        "class Bad(Component):\n"
        "    x = Variable(start=1.0, unit='m')\n"
        "    v = Variable(start=0.0, unit='m/s')\n"
        "    m = Parameter(2.0, unit='kg')\n"
        "    def equations(self):\n"
        "        return [Eq(der(self.x), self.v), Eq(der(self.v), -self.m * self.x)]\n")
    assert main(["info", f"{model}:Bad"]) != 0
    err = capsys.readouterr().err
    assert "Units do not match in equation 2 of Bad" in err and "[kg.m]" in err
    assert main(["info", f"{model}:Bad", "--no-unit-check"]) == 0


def test_a_library_function_declares_its_unit_rule():
    """components.friction.select(c, a, b) declares unit_branches = (1, 2): a and b share the
    result's unit, so a force and a speed as its two values are refused."""
    from acausal.components.friction import select

    rule = _one_equation(lambda s: Eq(s.a, select(s.c, s.a, s.b)), a="N", b="m/s", c="1")
    with pytest.raises(UnitError, match="the values of select"):
        rule().compile()
    same = _one_equation(lambda s: Eq(s.a, select(s.c, s.a, s.b)), a="N", b="N", c="1")
    from acausal.compiler.flatten import flatten
    from acausal.compiler.units import check_units
    check_units(flatten(same()))


class _Gain(Component):
    """``y = k x`` (consistent as declared: x, y in m, k dimensionless)."""

    x = Variable(unit="m")
    y = Variable(unit="m")
    k = Parameter(2.0, unit="1")

    def equations(self):
        return [Eq(self.y, self.k * self.x), Eq(der(self.x), 1)]


@pytest.mark.parametrize("override", [
    {"k": Parameter(2.0, unit="s", fixed=False)},  # a parameter computed at initialisation
    {"k": ac.Input(2.0, unit="s")},  # a parameter given as an input
    {"x": ac.Input(unit="s")},  # a variable given as an input
], ids=["computed-parameter", "input-parameter", "input-variable"])
@pytest.mark.parametrize("which", ["first", "second"])
def test_an_instance_whose_units_differ_is_checked_on_its_own(override, which):
    """Identical instances share one check (templates); one created with a unit of its own
    must not hide behind it, whether it comes first or second: the error names it."""
    def make(name):
        return _Gain(**override) if name == which else _Gain()

    class Pair(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.first = make("first")
            self.second = make("second")

    with pytest.raises(UnitError) as err:
        Pair().compile()
    lines = str(err.value).splitlines()
    assert lines[0] == f"Units do not match in equation 1 of _Gain '{which}':"
    assert lines[1].strip() == f"{which}.y = {which}.k*{which}.x"


def test_a_connection_of_different_units_is_checked():
    """Connection equations whose members declare one unit string are not looked at; members
    with different strings are: a dimension mismatch names the connection set, one unit
    written two ways (N.m and J) passes."""
    from acausal import Connector, Flow, Potential, connect

    def pin(u_unit, i_unit):
        class Pin(Connector):
            u = Potential(unit=u_unit)
            i = Flow(unit=i_unit)
        return Pin

    def model(second_pin):
        class End(Component):
            p = pin("N.m", "A")()

            def equations(self):
                return [Eq(self.p.u, 0)]

        class Other(Component):
            p = second_pin()
            x = Variable(start=0.0, fixed=True, unit="s")

            def equations(self):
                return [Eq(der(self.x), 1)]

        class Both(Component):
            a = End()
            b = Other()

            def connections(self):
                return [connect(self.a.p, self.b.p)]

        return Both()

    with pytest.raises(UnitError, match=r"connection set \{a\.p, b\.p\}"):
        model(pin("V", "A")).compile()
    with pytest.raises(UnitError, match=r"connection set \{a\.p, b\.p\}"):
        model(pin("N.m", "V")).compile()
    from acausal.compiler.flatten import flatten
    from acausal.compiler.units import check_units
    flat = flatten(model(pin("J", "A")))
    check_units(flat)
    assert [e.check_units for e in flat.equations if e.label.startswith("connection")] == \
        [True, False]  # u: N.m against J, looked at; i: A against A, not
