"""Flattening (acausal.compiler.flatten): binding, connection semantics, equation origins."""

from __future__ import annotations

import pytest
import sympy as sp

from acausal import (
    Component,
    Connector,
    Eq,
    Flow,
    ModelDefinitionError,
    OverdeterminedError,
    Parameter,
    ParameterError,
    Potential,
    UnconnectedConnectorError,
    Variable,
    compile,
    connect,
    der,
    time,
)
from acausal.compiler.flatten import flatten


class Flange(Connector):
    """1-D flange: position ``s``, force ``f``."""

    s = Potential(unit="m")
    f = Flow(unit="N")


class Pin(Connector):
    """Electrical pin (a different connector kind)."""

    v = Potential(unit="V")
    i = Flow(unit="A")


class Body(Component):
    """``s = flange_a.s = flange_b.s``; ``der(s) = v``; ``m der(v) = flange_a.f + flange_b.f``."""

    m = Parameter(1.0, unit="kg")
    flange_a = Flange()
    flange_b = Flange()
    s = Variable(unit="m")
    v = Variable(unit="m/s")

    def equations(self):
        return [Eq(self.s, self.flange_a.s), Eq(self.s, self.flange_b.s),
                Eq(der(self.s), self.v),
                Eq(self.m * der(self.v), self.flange_a.f + self.flange_b.f)]


class Wall(Component):
    """``flange.s = s0``."""

    s0 = Parameter(0.0, unit="m")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.s, self.s0)]


class Wrapped(Component):
    """A body behind an outside connector of its own."""

    flange = Flange()
    body = Body()

    def connections(self):
        return [connect(self.flange, self.body.flange_a)]


def residuals_with(flat, label_part: str) -> list[sp.Expr]:
    return [e.residual for e in flat.equations if label_part in e.label]


def sym(flat, name):
    return next(v.symbol for v in flat.variables if v.name == name)


def same_up_to_sign(a, b) -> bool:
    return sp.expand(a - b) == 0 or sp.expand(a + b) == 0


# --------------------------------------------------------------------------------------------
# Names and binding
# --------------------------------------------------------------------------------------------


def test_variables_and_parameters_are_named_by_dotted_path():
    class Top(Component):
        w = Wrapped()

    flat = flatten(Top())
    names = [v.name for v in flat.variables]
    assert "w.body.s" in names and "w.body.v" in names
    assert "w.flange.s" in names and "w.body.flange_b.f" in names
    assert [p.name for p in flat.parameters] == ["w.body.m"]
    origin = {v.name: v.origin for v in flat.variables}
    assert origin["w.body.s"] == "w.body"
    assert origin["w.body.flange_a.f"] == "w.body.flange_a"
    kinds = {v.name: v.kind for v in flat.variables}
    assert kinds["w.body.s"] == "variable"
    assert kinds["w.flange.s"] == "potential" and kinds["w.flange.f"] == "flow"
    assert all(v.symbol.name == v.name for v in flat.variables)


def test_templates_are_copied_per_instance():
    class Two(Component):
        a = Wrapped()
        b = Wrapped()

    model1, model2 = Two(), Two()
    flat1, flat2 = flatten(model1), flatten(model2)
    assert model1.a.body is not model1.b.body
    assert model1.a.body is not model2.a.body
    assert sym(flat1, "a.body.s") != sym(flat1, "b.body.s")
    assert len({v.name for v in flat1.variables}) == len(flat1.variables)
    assert len(flat2.variables) == len(flat1.variables)


def test_overrides_set_start_fixed_and_parameters():
    class Top(Component):
        b1 = Body(m=2.5, s=0.3)
        b2 = Body(s=Variable(start=0.7, fixed=True), v=Variable(guess=1.5, state_priority=4))

    flat = flatten(Top())
    info = {v.name: v for v in flat.variables}
    assert info["b1.s"].start == 0.3 and not info["b1.s"].fixed
    assert info["b2.s"].start == 0.7 and info["b2.s"].fixed
    assert info["b2.s"].unit == "m"  # the declaration's other fields are kept
    assert info["b2.v"].guess == 1.5 and info["b2.v"].state_priority == 4
    assert {p.name: p.value for p in flat.parameters} == {"b1.m": 2.5, "b2.m": 1.0}


def test_unknown_override_names_the_class_and_suggests():
    with pytest.raises(ModelDefinitionError, match=r"Body has no .*'mm'.*Did you mean 'm'"):
        Body(mm=2)


def test_lists_of_parts_created_in_init():
    class Chain(Component):
        def __init__(self, n=3, **kw):
            super().__init__(**kw)
            self.bodies = [Body(m=float(i + 1)) for i in range(n)]

        def connections(self):
            return [connect(a.flange_b, b.flange_a) for a, b in zip(self.bodies, self.bodies[1:])]

    flat = flatten(Chain(n=3))
    names = [v.name for v in flat.variables]
    assert "bodies[0].s" in names and "bodies[2].flange_b.f" in names
    assert {p.name: p.value for p in flat.parameters} == {
        "bodies[0].m": 1.0, "bodies[1].m": 2.0, "bodies[2].m": 3.0}
    labels = {e.label for e in flat.equations}
    assert "connection set {bodies[0].flange_b, bodies[1].flange_a}" in labels


def test_vector_variables_and_parameters():
    class Planar(Component):
        r0 = Parameter([1.0, 2.0], unit="m")
        r = Variable(shape=2, start=[0.1, 0.2])

        def equations(self):
            return [Eq(self.r, self.r0 * time)]

    flat = flatten(Planar())
    assert [(v.name, v.start) for v in flat.variables] == [("r[0]", 0.1), ("r[1]", 0.2)]
    assert [(p.name, p.value) for p in flat.parameters] == [("r0[0]", 1.0), ("r0[1]", 2.0)]
    assert len(flat.equations) == 2
    r0, r1 = (v.symbol for v in flat.variables)
    p0, p1 = (p.symbol for p in flat.parameters)
    assert sp.expand(flat.equations[0].residual - (r0 - p0 * time)) == 0
    assert sp.expand(flat.equations[1].residual - (r1 - p1 * time)) == 0


def test_vector_start_of_wrong_length_raises():
    class Planar(Component):
        r = Variable(shape=2, start=[0.1, 0.2, 0.3])

        def equations(self):
            return [Eq(self.r, sp.Matrix([0, 0]))]

    with pytest.raises(ModelDefinitionError, match="'r'"):
        flatten(Planar())


def test_structural_parameter_selects_equations():
    class Switch(Component):
        damped = Parameter(False)
        d = Parameter(0.5)
        x = Variable()

        def equations(self):
            rhs = -self.d * self.x if self.damped else sp.S.Zero
            return [Eq(der(self.x), rhs)]

    flat = flatten(Switch(damped=True))
    assert flat.equations[0].residual.has(sp.Symbol("d", real=True))
    flat = flatten(Switch())
    assert not flat.equations[0].residual.has(sp.Symbol("d", real=True))
    assert [p.name for p in flat.parameters] == ["d"]  # the bool is not a parameter


def test_residual_expressions_and_nested_lists_are_accepted():
    class Res(Component):
        a = Variable()
        b = Variable()

        def equations(self):
            return [self.a - 1, [Eq(self.b, 2 * self.a)]]

    flat = flatten(Res())
    assert len(flat.equations) == 2
    assert flat.equations[0].residual == sym(flat, "a") - 1


def test_initial_equations_are_collected_separately():
    class Init(Component):
        x = Variable()

        def equations(self):
            return [Eq(der(self.x), -self.x)]

        def initial_equations(self):
            return [Eq(self.x ** 2, 4)]

    flat = flatten(Init())
    assert len(flat.equations) == 1 and len(flat.initial_equations) == 1
    assert flat.initial_equations[0].label == "initial equation 1 of Init '<root>'"


# --------------------------------------------------------------------------------------------
# Connection semantics
# --------------------------------------------------------------------------------------------


def test_potentials_equal_and_flows_sum_to_zero():
    class Two(Component):
        b1 = Body()
        b2 = Body()

        def connections(self):
            return [connect(self.b1.flange_b, self.b2.flange_a)]

    flat = flatten(Two())
    eqs = residuals_with(flat, "connection set {b1.flange_b, b2.flange_a}")
    assert len(eqs) == 2
    s1, s2 = sym(flat, "b1.flange_b.s"), sym(flat, "b2.flange_a.s")
    f1, f2 = sym(flat, "b1.flange_b.f"), sym(flat, "b2.flange_a.f")
    assert same_up_to_sign(eqs[0], s1 - s2)
    assert sp.expand(eqs[1] - (f1 + f2)) == 0  # both inside: plain sum


def test_unconnected_flows_are_zero():
    class Two(Component):
        b1 = Body()
        b2 = Body()

        def connections(self):
            return [connect(self.b1.flange_b, self.b2.flange_a)]

    flat = flatten(Two())
    zero = sorted(e.label for e in flat.equations if e.label.startswith("unconnected flow"))
    assert zero == ["unconnected flow b1.flange_a.f = 0", "unconnected flow b2.flange_b.f = 0"]
    # 4 + 4 body equations, 2 connection equations, 2 open flows; 2 * (2 + 4) variables
    assert len(flat.equations) == 12 == len(flat.variables)


def test_three_member_connection_set():
    class Three(Component):
        wall = Wall()
        b1 = Body()
        b2 = Body()

        def connections(self):
            return [connect(self.wall.flange, self.b1.flange_a),
                    connect(self.b1.flange_a, self.b2.flange_a)]

    flat = flatten(Three())
    label = "connection set {b1.flange_a, b2.flange_a, wall.flange}"
    eqs = residuals_with(flat, label)
    assert len(eqs) == 3  # two potential equalities and one flow sum
    flows = sum(sym(flat, f"{n}.f") for n in ("b1.flange_a", "b2.flange_a", "wall.flange"))
    assert sp.expand(eqs[-1] - flows) == 0
    potentials = [sym(flat, f"{n}.s") for n in ("b1.flange_a", "b2.flange_a", "wall.flange")]
    for e in eqs[:2]:
        assert len(e.free_symbols) == 2 and e.free_symbols <= set(potentials)


def test_outside_connector_enters_the_flow_sum_negatively():
    class Top(Component):
        wall = Wall()
        w = Wrapped()

        def connections(self):
            return [connect(self.wall.flange, self.w.flange)]

    flat = flatten(Top())
    inner = residuals_with(flat, "connection set {w.body.flange_a, w.flange}")
    assert len(inner) == 2
    # inside: body.flange_a.f with +, outside: w.flange.f with -
    assert sp.expand(inner[1] - (sym(flat, "w.body.flange_a.f") - sym(flat, "w.flange.f"))) == 0
    outer = residuals_with(flat, "connection set {w.flange, wall.flange}")
    assert sp.expand(outer[1] - (sym(flat, "w.flange.f") + sym(flat, "wall.flange.f"))) == 0
    # w.flange is an inside element at the top: its flow is not set to zero
    zero = {e.label for e in flat.equations if e.label.startswith("unconnected flow")}
    assert zero == {"unconnected flow w.body.flange_b.f = 0"}


def test_root_outside_connector_flow_is_zero():
    """A model's own connector that nothing outside connects transmits no force."""
    flat = flatten(Wrapped())
    zero = {e.label for e in flat.equations if e.label.startswith("unconnected flow")}
    assert zero == {"unconnected flow flange.f = 0", "unconnected flow body.flange_b.f = 0"}


def test_required_connector_left_open_raises():
    class Needy(Component):
        flange = Flange(required=True)
        x = Variable()

        def equations(self):
            return [Eq(self.x, self.flange.s)]

    class Top(Component):
        n = Needy()

    with pytest.raises(UnconnectedConnectorError, match=r"'n\.flange'"):
        flatten(Top())

    class Connected(Component):
        n = Needy()
        wall = Wall()

        def connections(self):
            return [connect(self.n.flange, self.wall.flange)]

    flatten(Connected())  # no error


def test_connecting_different_connector_kinds_raises():
    class Mixed(Component):
        wall = Wall()
        pin = Pin()

        def connections(self):
            return [connect(self.wall.flange, self.pin)]

    with pytest.raises(ModelDefinitionError, match="do not match"):
        flatten(Mixed())


def test_connect_requires_connectors():
    class Bad(Component):
        b1 = Body()
        b2 = Body()

        def connections(self):
            return [connect(self.b1, self.b2.flange_a)]

    with pytest.raises(ModelDefinitionError, match="connect"):
        flatten(Bad())


def test_connecting_a_connector_outside_the_component_raises():
    class Inner(Component):
        body = Body()

        def __init__(self, target=None, **kw):
            super().__init__(**kw)
            self._target = target

        def connections(self):
            return [connect(self.body.flange_a, self._target.flange)]

    class Top(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.wall = Wall()
            self.inner = Inner(target=self.wall)

    with pytest.raises(ModelDefinitionError, match=r"Inner 'inner' connects .*wall\.flange"):
        flatten(Top())


def test_connecting_a_connector_of_another_model_raises():
    other = Wall()
    other.bind()

    class Root(Component):
        wall = Wall()

        def connections(self):
            return [connect(self.wall.flange, other.flange)]

    with pytest.raises(ModelDefinitionError, match="flange"):
        flatten(Root())


# --------------------------------------------------------------------------------------------
# Equations
# --------------------------------------------------------------------------------------------


def test_equation_labels_name_the_component_path():
    class Top(Component):
        w = Wrapped()

    flat = flatten(Top())
    labels = [e.label for e in flat.equations]
    assert "equation 3 of Body 'w.body'" in labels
    eq = next(e for e in flat.equations if e.label == "equation 3 of Body 'w.body'")
    assert eq.origin == "w.body"
    assert "der(w.body.s)" in eq.describe()


def test_der_of_an_expression_is_expanded_by_the_chain_rule():
    class Chain(Component):
        k = Parameter(3.0)
        a = Variable()
        b = Variable()

        def equations(self):
            return [Eq(der(self.a * self.b), 1), Eq(der(self.k * self.a + sp.sin(time)), self.b)]

    flat = flatten(Chain())
    a, b = sym(flat, "a"), sym(flat, "b")
    k = flat.parameters[0].symbol
    r0, r1 = (e.residual for e in flat.equations)
    assert sp.expand(r0 - (a * der(b) + b * der(a) - 1)) == 0
    assert sp.expand(r1 - (k * der(a) + sp.cos(time) - b)) == 0


def test_der_of_a_parameter_or_number_is_zero():
    assert der(sp.Integer(3)) == 0

    class P(Component):
        k = Parameter(2.0)
        x = Variable()

        def equations(self):
            return [Eq(self.x + der(self.k * 2), 1)]

    flat = flatten(P())
    assert sp.expand(flat.equations[0].residual - (sym(flat, "x") - 1)) == 0


def test_trivially_true_relation_raises():
    class Tautology(Component):
        x = Variable()

        def equations(self):
            return [sp.Eq(self.x, self.x), Eq(der(self.x), 1)]  # sympy's Eq evaluates to True

    with pytest.raises(ModelDefinitionError, match="equation 1 of Tautology"):
        flatten(Tautology())


def test_unevaluated_tautology_is_an_equation_without_unknowns():
    class Tautology(Component):
        x = Variable()

        def equations(self):
            return [Eq(self.x, self.x), Eq(der(self.x), 1)]  # acausal.Eq does not evaluate

    flat = flatten(Tautology())
    assert flat.equations[0].residual == 0
    with pytest.raises(OverdeterminedError, match="equation 1 of Tautology"):
        compile(Tautology())


def test_non_relation_raises():
    class Wrong(Component):
        x = Variable()

        def equations(self):
            return ["x = 1"]

    with pytest.raises(ModelDefinitionError, match="equation 1 of Wrong"):
        flatten(Wrong())


def test_non_finite_parameter_raises_at_binding():
    with pytest.raises(ParameterError, match=r"'m'.*'b'"):
        class Top(Component):
            b = Body(m=float("nan"))

        flatten(Top())


def test_parts_cannot_be_added_after_binding():
    model = Wrapped()
    flatten(model)
    with pytest.raises(ModelDefinitionError, match="after it was bound"):
        model.extra = Body()


def test_a_part_of_a_bound_model_cannot_be_compiled_alone():
    model = Wrapped()
    flatten(model)
    with pytest.raises(ModelDefinitionError, match="'body' is part of another model"):
        flatten(model.body)


def test_flatten_rejects_non_components():
    with pytest.raises(ModelDefinitionError):
        flatten(Flange())
