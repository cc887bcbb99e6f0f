"""Pantelides' index reduction (C. C. Pantelides, SIAM J. Sci. Stat. Comput. 9(2), 1988).

For each equation the algorithm searches an augmenting path that matches it to a *highest
derivative* variable (one whose derivative does not occur). When the search fails, the equations
and variables it visited form a structurally singular subset: every visited equation is
differentiated, every visited variable gets a derivative, and the search starts again from the
derivative of the equation. The result is a system whose highest derivatives can be matched
one-to-one to equations (structural index at most 1 once dummy derivatives are chosen).

Only the equations the algorithm asks for are differentiated, one at a time, in sympy:
``d/dt r(v, time) = sum(dr/dv * der(v)) + dr/dtime``.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import ArgumentIndexError

from ...base.errors import StructurallySingularError
from ...language.symbolic import expression_atoms, product_of, sum_of, time
from .checks import listing
from .matching import Matching
from .system import EquationSystem

_ZERO, _ONE = sp.S.Zero, sp.S.One


def time_derivative(system: EquationSystem, r: sp.Expr) -> sp.Expr:
    """d/dt of a residual by the chain rule, node by node.

    A variable ``v`` becomes its derivative variable ``der(v)``, ``time`` becomes 1,
    parameters 0; sums, products (product rule), powers with a number as exponent and
    functions (sympy's ``fdiff`` for the outer derivative) are differentiated here and the
    result is built unevaluated, without sympy's canonicalisation (about a tenth of the cost of
    the chain rule through ``sympy.diff`` on a squared distance, benchmarks/micro_costs.py; the
    second derivative costs sympy far more, and index-3 mechanisms differentiate hundreds). Anything
    else (a power with a variable exponent, a function without ``fdiff``) goes through
    ``sympy.diff`` for each of its variables. Terms without variables or time drop out, so the
    result has no structural zeros.
    """
    return _TimeDerivative(system).d(r)


class _TimeDerivative:
    """The chain rule of :func:`time_derivative` for one residual (a class rather than nested
    functions: recursive closures form reference cycles, thousands of them per compile, that
    only the cyclic garbage collector frees)."""

    def __init__(self, system: EquationSystem) -> None:
        self.system = system
        self.index_of = system.index_of
        self.done: dict[sp.Basic, sp.Expr] = {}

    def d(self, e: sp.Basic) -> sp.Expr:
        if e.is_Symbol or e.is_Number:  # a leaf's derivative is a look-up: nothing to keep
            return self.derive(e)
        found = self.done.get(e)
        if found is None:
            found = self.done[e] = self.derive(e)
        return found

    def derive(self, e: sp.Basic) -> sp.Expr:
        d = self.d
        if e.is_Symbol:
            v = self.index_of.get(e)
            if v is not None:
                return self.system.symbols[self.system.derivative_var(v)]
            return _ONE if e is time else _ZERO
        if e.is_Number or not e.args:
            return _ZERO
        if e.is_Add:
            return sum_of([t for t in map(d, e.args) if t is not _ZERO])
        if e.is_Mul:
            terms = []
            for i, factor in enumerate(e.args):
                df = d(factor)
                if df is not _ZERO:
                    terms.append(product_of([*e.args[:i], *e.args[i + 1:], df]))
            return sum_of(terms)
        if e.is_Pow and e.exp.is_Number:
            base, n = e.args
            db = d(base)
            if db is _ZERO:
                return _ZERO
            power = base if n == 2 else sp.Pow(base, n - 1, evaluate=False)
            return product_of([n, power, db])
        if isinstance(e, sp.Piecewise):
            return sp.Piecewise(*[(d(value), cond) for value, cond in e.args])
        if isinstance(e, sp.Function):
            terms = []
            for i, arg in enumerate(e.args, start=1):
                da = d(arg)
                if da is _ZERO:
                    continue
                try:
                    outer = e.fdiff(i)
                except ArgumentIndexError:
                    return self.by_sympy(e)
                if outer.has(sp.Derivative):  # no rule of its own (sign): sympy's diff knows
                    return self.by_sympy(e)
                terms.append(product_of([outer, da]))
            return sum_of(terms)
        return self.by_sympy(e)

    def by_sympy(self, e: sp.Basic) -> sp.Expr:
        out = [sp.diff(e, time)] if e.has(time) else []
        for s in sorted(e.free_symbols, key=lambda s: s.name):
            v = self.index_of.get(s)
            if v is not None:
                out.append(sp.diff(e, s) * self.system.symbols[self.system.derivative_var(v)])
        return sp.Add(*out)


def differentiate_equation(system: EquationSystem, e: int,
                           chain_rule: _TimeDerivative | None = None) -> int:
    """Append d/dt of equation ``e`` to the system (creating derivative variables); return it.

    ``chain_rule`` (one per system) keeps the derivatives of sub-expressions for the next
    equations: the equations of a mechanism share sub-trees (a joint's ``cos(phi)``, a
    rotation's entries), whose derivatives are then built once."""
    if system.eq_to_diff[e] != -1:
        return system.eq_to_diff[e]
    r = system.residuals[e]
    for v in system.incidence[e]:  # derivative variables first, in a deterministic order
        system.derivative_var(v)
    d = (chain_rule or _TimeDerivative(system)).d(r)
    source = system.sources[e]
    new = system.add_equation(d, source, system.incidence_of(d, source.label,
                                                            expression_atoms(d)[0]))
    system.eq_to_diff[e] = new
    system.diff_to_eq[new] = e
    return new


def pantelides(system: EquationSystem, max_differentiations: int | None = None) -> Matching:
    """Run Pantelides on ``system`` in place; return the matching of highest derivatives."""
    def highest(v: int) -> bool:
        return system.var_to_diff[v] == -1

    limit = max_differentiations if max_differentiations is not None else system.n_eqs + 3
    matching = Matching(system.n_eqs, system.n_vars)
    # Cheap greedy start: most equations match a free highest variable directly.
    for e in range(system.n_eqs):
        for v in system.incidence[e]:
            if matching.var_to_eq[v] == -1 and highest(v):
                matching.var_to_eq[v] = e
                matching.eq_to_var[e] = v
                break
    n_original = system.n_eqs
    chain_rule = _TimeDerivative(system)
    for k in range(n_original):
        eq = k
        steps = 0
        while matching.eq_to_var[eq] == -1:
            visited_eqs: list[int] = []
            visited_vars: list[int] = []
            if matching.augment(eq, system.incidence, highest, visited_eqs, visited_vars):
                break
            steps += 1
            if steps > limit:
                raise StructurallySingularError(
                    "Index reduction does not terminate: these equations keep constraining "
                    "the same variables after differentiation (conflicting or redundant "
                    "constraints, e.g. a kinematic loop closed twice, or closed by a cut joint "
                    "whose axis is not the axis of the loop's other joints, such as a "
                    "RevolutePlanarLoopConstraint with another n than the loop's revolutes):"
                    + listing([system.describe_eq(x) for x in visited_eqs])
                    + "\nvariables involved:"
                    + listing([system.describe_var(v) for v in visited_vars]))
            for v in visited_vars:
                system.derivative_var(v)
            for x in visited_eqs:
                differentiate_equation(system, x, chain_rule)
            matching.grow(system.n_eqs, system.n_vars)
            for v in visited_vars:
                owner = matching.var_to_eq[v]
                if owner != -1:
                    dv, de = system.var_to_diff[v], system.eq_to_diff[owner]
                    matching.var_to_eq[dv] = de
                    matching.eq_to_var[de] = dv
            eq = system.eq_to_diff[eq]
    return matching
