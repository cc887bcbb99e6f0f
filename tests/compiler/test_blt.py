"""BLT sorting and tearing (acausal.compiler.structure.blt) on systems of known block structure."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Parameter, StructurallySingularError, Variable, compile, time
from acausal.compiler.flatten import flatten
from acausal.compiler.structure.blt import blt, linear_solution, solve_linear, tear_block
from acausal.compiler.structure.system import build_equation_system


def names(system, vs):
    return [system.name(v) for v in vs]


def all_unknowns(system):
    return list(range(system.n_vars))


class Triangular(Component):
    """c depends on b and a, b on a; written in reverse order."""

    a = Variable()
    b = Variable()
    c = Variable()

    def equations(self):
        return [Eq(self.c, self.b + self.a), Eq(self.b, 2 * self.a), Eq(self.a, 1 + time)]


class Loop2(Component):
    """A 2x2 linear loop in (a, b) followed by c = a*b and d = c + a."""

    a = Variable()
    b = Variable()
    c = Variable()
    d = Variable()

    def equations(self):
        return [Eq(self.d, self.c + self.a), Eq(self.c, self.a * self.b),
                Eq(self.a + self.b, time), Eq(self.a - self.b, 1)]


class Loop3(Component):
    """A 3x3 linear loop where every equation has two unknowns: tearing must tear one."""

    k = Parameter(2.0)
    x1 = Variable()
    x2 = Variable()
    x3 = Variable()

    def equations(self):
        return [Eq(self.x1 + self.x2, 3), Eq(self.x2 - self.k * self.x3, 0),
                Eq(self.x3 + self.x1, 4)]


def test_triangular_system_gives_scalar_blocks_in_order(build):
    _, system = build(Triangular())
    blocks = blt(system, all_unknowns(system))
    assert [len(b.eqs) for b in blocks] == [1, 1, 1]
    assert [names(system, b.vars) for b in blocks] == [["a"], ["b"], ["c"]]
    assert [b.eqs for b in blocks] == [[2], [1], [0]]


def test_two_by_two_loop_is_one_block(build):
    _, system = build(Loop2())
    blocks = blt(system, all_unknowns(system))
    assert [len(b.eqs) for b in blocks] == [2, 1, 1]
    assert sorted(names(system, blocks[0].vars)) == ["a", "b"]
    assert sorted(blocks[0].eqs) == [2, 3]
    assert names(system, blocks[1].vars) == ["c"]
    assert names(system, blocks[2].vars) == ["d"]


def test_known_variables_are_left_out(build):
    """With a known (e.g. a state), its equation becomes free: the system must be square in
    the unknowns given."""
    _, system = build(Triangular())
    with pytest.raises(StructurallySingularError, match="3 equations, 2 unknowns"):
        blt(system, [1, 2])


def test_blocks_respect_dependencies_in_a_random_lower_triangular_system(build):
    n = 12
    rng = np.random.default_rng(3)
    deps = {i: sorted(rng.choice(i, size=min(i, 2), replace=False).tolist()) if i else []
            for i in range(n)}

    class Tri(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            for i in range(n):
                setattr(self, f"v{i}", Variable())

        def equations(self):
            vs = [getattr(self, f"v{i}") for i in range(n)]
            eqs = [Eq(vs[i], 1 + sum(vs[j] for j in deps[i])) for i in range(n)]
            return eqs[::-1]

    _, system = build(Tri())
    blocks = blt(system, all_unknowns(system))
    assert all(len(b.eqs) == 1 for b in blocks)
    position = {system.name(b.vars[0]): k for k, b in enumerate(blocks)}
    for i, js in deps.items():
        for j in js:
            assert position[f"v{j}"] < position[f"v{i}"]


def test_tearing_a_linear_loop(build):
    _, system = build(Loop3())
    blocks = blt(system, all_unknowns(system))
    assert len(blocks) == 1 and len(blocks[0].eqs) == 3
    torn = tear_block(system, blocks[0])
    assert len(torn.tears) == 1
    assert len(torn.residual_eqs) == 1
    assert len(torn.assignments) == 2
    # The torn form gives the true solution: assignments in order, then the residual in the
    # tear variable (linear here), solved by sympy.
    k = system.parameters[0].symbol
    tear = system.symbols[torn.tears[0]]
    values = {}
    for v, _, expr in torn.assignments:
        values[system.symbols[v]] = expr.xreplace(values)
    res = system.residuals[torn.residual_eqs[0]].xreplace(values)
    tear_value = sp.solve(res, tear)
    assert len(tear_value) == 1
    sol = {tear: tear_value[0]}
    sol.update({s: e.xreplace(sol) for s, e in values.items()})
    exact = sp.solve([system.residuals[e] for e in range(3)], system.symbols)
    for s in system.symbols:
        assert sp.simplify(sol[s] - exact[s]) == 0
    # numeric spot check at k = 2: x1 + x2 = 3, x2 = 2 x3, x3 + x1 = 4
    x = {s: float(sol[s].subs(k, 2.0)) for s in system.symbols}
    assert [x[s] for s in system.symbols] == pytest.approx([5.0, -2.0, -1.0])


def test_tearing_a_two_by_two_loop_needs_one_tear(build):
    _, system = build(Loop2())
    block = blt(system, all_unknowns(system))[0]
    torn = tear_block(system, block)
    assert len(torn.tears) == 1
    assert len(torn.assignments) == 1
    assert len(torn.residual_eqs) == 1


def test_scalar_nonlinear_block_becomes_a_tear(build):
    class Cubic(Component):
        x = Variable()

        def equations(self):
            return [Eq(self.x ** 3 + self.x, 2)]

    _, system = build(Cubic())
    (block,) = blt(system, all_unknowns(system))
    torn = tear_block(system, block)
    assert torn.assignments == []
    assert names(system, torn.tears) == ["x"]
    assert torn.residual_eqs == [0]


def test_scalar_linear_block_is_an_assignment(build):
    _, system = build(Triangular())
    block = blt(system, all_unknowns(system))[1]
    torn = tear_block(system, block)
    assert torn.tears == []
    (v, e, expr), = torn.assignments
    assert system.name(v) == "b"
    a = system.symbols[0]
    assert sp.simplify(expr - 2 * a) == 0


def test_solve_linear():
    x, y = sp.symbols("x y", real=True)
    assert solve_linear(3 * x + y - 1, x) == (1 - y) / 3
    assert solve_linear(x ** 2 - 1, x) is None
    assert solve_linear(y - 1, x) is None  # x does not occur
    assert solve_linear(x * y - 1, x) == 1 / y
    assert solve_linear(sp.sin(x) - y, x) is None


def test_linear_solution_by_the_structure_of_the_residual():
    """The shapes split by inspection (the code generator's assignments), each checked
    against the solution of the equation."""
    x, y, p = sp.symbols("x y p", real=True)
    cases = [(-x + y + p, y + p, -1), (x - y, y, 1), (2 * x + y, -y / 2, 2),
             (p * x - y, y / p, p), (sp.Mul(3, x, evaluate=False) - 1, sp.Rational(1, 3), 3),
             (p * (x - y) + 1, y - 1 / p, p)]
    for residual, solution, coefficient in cases:
        found, coeff = linear_solution(residual, x)
        assert sp.simplify(found - solution) == 0, residual
        assert sp.simplify(coeff - coefficient) == 0, residual
    assert linear_solution(x ** 2 + y, x) is None
    assert linear_solution(sp.sin(x) + y, x) is None
    assert linear_solution(0 * x + y, x) is None  # x does not occur
    assert linear_solution(sp.Mul(0, x, evaluate=False) + y, x) is None  # a zero coefficient


def test_an_equal_copy_of_the_unknown_counts_as_the_unknown():
    """sympy's cache can hand out an equal copy of a symbol (another object): the structure
    is read by equality, not identity."""
    x, y = sp.symbols("x y", real=True)
    copy = sp.Symbol.__xnew__(sp.Symbol, "x", real=True)  # bypasses sympy's cache
    assert copy == x and copy is not x
    found, coeff = linear_solution(-copy + 2 * y, x)
    assert found == 2 * y and coeff == -1
    found, coeff = linear_solution(sp.Mul(3, copy, evaluate=False) - y, x)
    assert sp.simplify(found - y / 3) == 0 and coeff == 3


def test_compiled_linear_loop_is_solved_symbolically():
    cs = compile(Loop3())
    assert cs.is_ode and cs.n_states == 0 and cs.algebraic_names == []
    # x3 = -1/(k - 1), x2 = k x3, x1 = 4 - x3
    sol = cs.simulate(1.0, n_points=3, params={"k": 2.0})
    assert sol["x1"] == pytest.approx([5.0] * 3)
    assert sol["x2"] == pytest.approx([-2.0] * 3)
    assert sol["x3"] == pytest.approx([-1.0] * 3)
    sol = cs.simulate(1.0, n_points=3, params={"k": 3.0})  # no recompilation needed
    assert sol["x3"] == pytest.approx([-0.5] * 3)
    assert sol["x1"] == pytest.approx([4.5] * 3)


def test_compiled_nonlinear_loop_goes_to_the_dae_solver():
    class Circle(Component):
        """x^2 + y^2 = 2, x - y = 0 (a nonlinear loop with root x = y = 1 near the start)."""

        x = Variable(start=0.9)
        y = Variable(start=1.2)

        def equations(self):
            return [Eq(self.x ** 2 + self.y ** 2, 2), Eq(self.x - self.y, 0)]

    cs = compile(Circle())
    # x = y is an alias: one nonlinear scalar equation remains
    assert len(cs.algebraic_names) == 1
    sol = cs.simulate(1.0, n_points=3)
    assert sol["x"] == pytest.approx([1.0] * 3)
    assert sol["y"] == pytest.approx([1.0] * 3)


def test_compiled_time_dependent_loop_matches_the_closed_form():
    cs = compile(Loop2())
    sol = cs.simulate(2.0, n_points=5)
    a = (sol.t + 1) / 2
    b = (sol.t - 1) / 2
    assert sol["a"] == pytest.approx(a)
    assert sol["b"] == pytest.approx(b)
    assert sol["d"] == pytest.approx(a * b + a)


def test_cyclic_linear_loop_of_fifteen_equations():
    """u_i + 2 u_{i+1 mod n} = i + time: one strongly connected block of 15 equations."""
    n = 15

    class Ring(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            for i in range(n):
                setattr(self, f"u{i}", Variable())

        def equations(self):
            u = [getattr(self, f"u{i}") for i in range(n)]
            return [Eq(u[i] + 2 * u[(i + 1) % n], i + time) for i in range(n)]

    flat = flatten(Ring())
    system = build_equation_system(flat)
    blocks = blt(system, all_unknowns(system))
    assert len(blocks) == 1 and len(blocks[0].eqs) == n
    torn = tear_block(system, blocks[0])
    assert len(torn.tears) == len(torn.residual_eqs) >= 1
    assert len(torn.assignments) + len(torn.tears) == n
    sol = compile(Ring()).simulate(1.0, n_points=3)
    a = np.eye(n) + 2 * np.roll(np.eye(n), 1, axis=1)
    for k, t in enumerate(sol.t):
        ref = np.linalg.solve(a, np.arange(n) + t)
        got = np.array([sol[f"u{i}"][k] for i in range(n)])
        assert got == pytest.approx(ref, abs=1e-10)


def test_sorted_components_match_networkx_condensation():
    """The block order: strongly connected components in topological order, the component
    with the smallest member first among those that could come next (as networkx's
    lexicographical topological sort of the condensation)."""
    import random

    import networkx as nx

    from acausal.compiler.structure.blt import _sorted_components

    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 40)
        succ = [[w for w in (rng.randrange(n) for _ in range(rng.randint(0, 3))) if w != v]
                for v in range(n)]
        graph = nx.DiGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from((v, w) for v, s in enumerate(succ) for w in s)
        cond = nx.condensation(graph)
        comps: dict[int, list[int]] = {}
        for e, c in cond.graph["mapping"].items():
            comps.setdefault(c, []).append(e)
        expected = [sorted(comps[c]) for c in
                    nx.lexicographical_topological_sort(cond, key=lambda c: min(comps[c]))]
        assert _sorted_components(succ) == expected
