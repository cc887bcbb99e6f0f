"""Pantelides index reduction (acausal.compiler.structure.pantelides) on small systems."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, der, time
from acausal.compiler.flatten import flatten
from acausal.compiler.structure.pantelides import differentiate_equation, pantelides
from acausal.compiler.structure.system import build_equation_system


def sym(system, name):
    return system.symbols[[system.name(v) for v in range(system.n_vars)].index(name)]


def chain_of(system, e):
    chain = [e]
    while system.eq_to_diff[chain[-1]] != -1:
        chain.append(system.eq_to_diff[chain[-1]])
    return chain


def assert_highest_matching_is_perfect(system, matching):
    """Every equation that is not differentiated further is matched to a highest derivative,
    one-to-one."""
    top = [e for e in range(system.n_eqs) if system.eq_to_diff[e] == -1]
    used = set()
    for e in top:
        v = matching.eq_to_var[e]
        assert v != -1, f"equation {system.describe_eq(e)} is not matched"
        assert system.var_to_diff[v] == -1, f"{system.name(v)} is not a highest derivative"
        assert v in system.incidence[e]
        assert v not in used
        used.add(v)
    highest = [v for v in range(system.n_vars) if system.var_to_diff[v] == -1]
    assert len(top) == len(highest)


def constraint_index(system):
    return next(e for e in range(system.n_eqs)
                if system.sources[e].label.endswith("equation 5 of Pendulum '<root>'")
                and system.diff_to_eq[e] == -1)


def test_pendulum_constraint_is_differentiated_exactly_twice(pendulum, reduce_aliases):
    flat, _, system, _ = reduce_aliases(pendulum())
    n_before = system.n_eqs
    assert n_before == 3  # der(x) = vx and der(y) = vy were aliases
    c = constraint_index(system)
    matching = pantelides(system)
    chain = chain_of(system, c)
    assert len(chain) == 3  # c, c', c''
    assert system.n_eqs == n_before + 2
    assert [system.diff_to_eq[e] for e in chain] == [-1, chain[0], chain[1]]
    # the others (Newton's law in x and y) are not differentiated
    others = [e for e in range(n_before) if e != c]
    assert all(system.eq_to_diff[e] == -1 for e in others)
    assert_highest_matching_is_perfect(system, matching)


def test_pendulum_derivatives_of_the_constraint_are_right(pendulum, reduce_aliases):
    flat, _, system, _ = reduce_aliases(pendulum())
    c = constraint_index(system)
    pantelides(system)
    _, c1, c2 = chain_of(system, c)
    x, y, vx, vy = (sym(system, n) for n in ("x", "y", "vx", "vy"))
    ax, ay = sym(system, "der(vx)"), sym(system, "der(vy)")
    assert sp.expand(system.residuals[c1] - (2 * x * vx + 2 * y * vy)) == 0
    assert sp.expand(system.residuals[c2]
                     - (2 * vx ** 2 + 2 * x * ax + 2 * vy ** 2 + 2 * y * ay)) == 0
    # the differentiated equations keep pointing at the user's equation for messages
    assert system.sources[c2] is system.sources[c]
    assert "differentiated 2 times" in system.describe_eq(c2)


def test_pendulum_without_alias_elimination(pendulum, build):
    """On the raw system der(x) = vx and der(y) = vy must be differentiated once as well."""
    flat, system = build(pendulum())
    c = constraint_index(system)
    matching = pantelides(system)
    assert len(chain_of(system, c)) == 3
    kinematic = [e for e in range(5) if system.sources[e].label.endswith(
        ("equation 1 of Pendulum '<root>'", "equation 2 of Pendulum '<root>'"))]
    assert [len(chain_of(system, e)) for e in kinematic] == [2, 2]
    newton = [e for e in range(5) if e not in kinematic and e != c]
    assert all(system.eq_to_diff[e] == -1 for e in newton)
    assert_highest_matching_is_perfect(system, matching)


def test_index_one_system_is_not_differentiated(reduce_aliases):
    class Oscillator(Component):
        k = Parameter(4.0)
        s = Variable()
        v = Variable()
        f = Variable()

        def equations(self):
            return [Eq(der(self.s), self.v), Eq(der(self.v), self.f), Eq(self.f, -self.k * self.s)]

    flat, _, system, _ = reduce_aliases(Oscillator())
    n = system.n_eqs
    matching = pantelides(system)
    assert system.n_eqs == n
    assert all(d == -1 for d in system.eq_to_diff)
    assert_highest_matching_is_perfect(system, matching)


def test_prescribed_motion_differentiates_a_time_dependent_constraint(reduce_aliases):
    """x = sin(time) with der(x) = v, der(v) = a: the constraint is differentiated twice and
    the explicit time dependence is differentiated too."""

    class Driven(Component):
        x = Variable()
        v = Variable()
        a = Variable()

        def equations(self):
            return [Eq(der(self.x), self.v), Eq(der(self.v), self.a), Eq(self.x, sp.sin(time))]

    flat, _, system, _ = reduce_aliases(Driven())
    assert system.n_eqs == 1
    pantelides(system)
    chain = chain_of(system, 0)
    assert len(chain) == 3
    x, v, a = (sym(system, n) for n in ("x", "v", "a"))
    assert sp.simplify(system.residuals[chain[1]] - (v - sp.cos(time))) == 0
    assert sp.simplify(system.residuals[chain[2]] - (a + sp.sin(time))) == 0


def test_differentiate_equation_is_idempotent_and_creates_derivatives(build):
    class Alg(Component):
        p = Parameter(2.0)
        u = Variable()
        w = Variable()

        def equations(self):
            return [Eq(self.p * self.u * self.w, time), Eq(self.u, 1)]

    flat, system = build(Alg())
    n_vars = system.n_vars
    d = differentiate_equation(system, 0)
    assert differentiate_equation(system, 0) == d  # no second copy
    assert system.n_eqs == 3
    assert system.n_vars == n_vars + 2  # der(u) and der(w)
    u, w = sym(system, "u"), sym(system, "w")
    du, dw = sym(system, "der(u)"), sym(system, "der(w)")
    p = flat.parameters[0].symbol
    assert sp.expand(system.residuals[d] - (p * du * w + p * u * dw - 1)) == 0
    assert sorted(system.incidence[d]) == sorted(system.index_of[s] for s in (u, w, du, dw))


def test_two_coupled_pendulum_constraints(pendulum, reduce_aliases):
    """Two independent pendulums in one model: each constraint gets its own chain of length 3."""

    class Two(Component):
        p1 = pendulum(0.3)
        p2 = pendulum(1.2)

    flat, _, system, _ = reduce_aliases(Two())
    matching = pantelides(system)
    constraints = [e for e in range(system.n_eqs) if system.diff_to_eq[e] == -1
                   and "equation 5" in system.sources[e].label]
    assert len(constraints) == 2
    assert [len(chain_of(system, e)) for e in constraints] == [3, 3]
    assert system.n_eqs == 6 + 4
    assert_highest_matching_is_perfect(system, matching)


def test_prescribed_motion_end_to_end():
    """No states are left: x, v and a are all given by the differentiated constraint."""

    class Driven(Component):
        m = Parameter(2.0)
        x = Variable()
        v = Variable()
        a = Variable()
        f = Variable()

        def equations(self):
            return [Eq(der(self.x), self.v), Eq(der(self.v), self.a), Eq(self.x, sp.sin(time)),
                    Eq(self.f, self.m * self.a)]

    cs = compile(Driven())
    assert cs.n_states == 0
    sol = cs.simulate(3.0, n_points=31)
    assert sol["v"] == pytest.approx(np.cos(sol.t), abs=1e-12)
    assert sol["f"] == pytest.approx(-2 * np.sin(sol.t), abs=1e-12)


def test_second_derivative_written_directly():
    """der(der(x)) = -x needs no index reduction: states x and der(x)."""

    class Direct(Component):
        x = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(der(self.x)), -self.x)]

    flat = flatten(Direct())
    system = build_equation_system(flat)
    pantelides(system)
    assert all(d == -1 for d in system.eq_to_diff)
    cs = compile(Direct())
    assert sorted(cs.state_names) == ["der(x)", "x"]
    sol = cs.simulate(3.0, rtol=1e-10, atol=1e-12)
    assert sol["x"] == pytest.approx(np.cos(sol.t), abs=1e-7)
    assert sol["der(x)"] == pytest.approx(-np.sin(sol.t), abs=1e-7)


class TwoRamps(Component):
    """x' = 1, y' = 1 and a parameter k: symbols to differentiate expressions in."""

    x = Variable()
    y = Variable()
    k = Parameter(2.0)

    def equations(self):
        return [Eq(der(self.x), 1), Eq(der(self.y), 1)]


def test_time_derivative_agrees_with_sympy_diff():
    """The node-by-node chain rule gives sympy's total derivative for every kind of node it
    handles itself (sums, products, numeric powers, functions by fdiff, Piecewise) and for
    those it leaves to sympy (a variable exponent, sign)."""
    from acausal.compiler.structure.pantelides import time_derivative

    system = build_equation_system(flatten(TwoRamps()))
    x, y, k = sym(system, "x"), sym(system, "y"), system.parameters[0].symbol
    # d/dt with x' = dx, y' = dy as independent symbols: substitute x(t), y(t) into sympy
    xt, yt = sp.Function("X", real=True)(time), sp.Function("Y", real=True)(time)
    cases = [k * x * y ** 2, sp.sqrt(x ** 2 + y ** 2) - 1, sp.sin(x) * sp.cos(k * y) + time * x,
             sp.atan2(y, x), sp.exp(-x / k) * sp.log(1 + y ** 2), x ** y,
             sp.Abs(x) + sp.sign(y) * y, sp.Piecewise((x ** 3, y > 0), (k * x, True)),
             (x - y) ** -2 + sp.tanh(x * y)]
    for expr in cases:
        got = time_derivative(system, expr)
        dx, dy = sym(system, "der(x)"), sym(system, "der(y)")
        expected = sp.diff(expr.subs({x: xt, y: yt}), time).subs(
            {sp.Derivative(xt, time): dx, sp.Derivative(yt, time): dy}).subs({xt: x, yt: y})
        expected = expected.replace(sp.DiracDelta, lambda *a: 0)
        got = got.replace(sp.DiracDelta, lambda *a: 0)
        point = {x: 0.7, y: -1.3, dx: 0.4, dy: 2.1, k: 2.0, time: 0.5}
        assert float(got.subs(point)) == pytest.approx(float(expected.subs(point)), rel=1e-12), \
            expr


def test_a_chain_rule_shared_by_equations_gives_each_its_own_derivative():
    """pantelides() keeps one chain rule for all the equations it differentiates, so that a
    sub-tree several equations share (a joint's sin(x)) is differentiated once: each
    equation's derivative is still the one its own chain rule gives."""
    from acausal.compiler.structure.pantelides import _TimeDerivative, time_derivative

    system = build_equation_system(flatten(TwoRamps()))
    x, y, k = sym(system, "x"), sym(system, "y"), system.parameters[0].symbol
    shared = sp.sin(x) * k
    residuals = [shared * y - time, shared + y ** 2, sp.cos(shared) * x]
    e0 = system.n_eqs
    for r in residuals:
        system.add_equation(r, system.sources[0], system.incidence_of(r, "test"))
    chain_rule = _TimeDerivative(system)
    for i, r in enumerate(residuals):
        d = system.residuals[differentiate_equation(system, e0 + i, chain_rule)]
        assert d == time_derivative(system, r)
