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

from ..errors import StructurallySingularError
from ..symbolic import time
from .checks import _listing
from .matching import Matching
from .system import EquationSystem


def time_derivative(system: EquationSystem, r: sp.Expr) -> sp.Expr:
    """d/dt of a residual, term by term: ``c * v`` with a constant ``c`` gives ``c * der(v)``
    directly; any other term goes through ``sympy.diff`` (chain rule over its variables)."""
    index_of = system.index_of
    out = []
    for term in (r.args if r.is_Add else (r,)):
        if term.is_Symbol:
            v = index_of.get(term)
            if v is not None:
                out.append(system.symbols[system.derivative_var(v)])
            elif term is time:
                out.append(sp.S.One)
            continue
        if term.is_Number:
            continue
        if term.is_Mul:
            found = [f for f in term.args if f.is_Symbol and f in index_of]
            if len(found) == 1 and term.args.count(found[0]) == 1:
                rest = [f for f in term.args if f is not found[0]]
                if not any(f.has(time) or any(s in index_of for s in f.free_symbols)
                           for f in rest):
                    dv = system.symbols[system.derivative_var(index_of[found[0]])]
                    out.append(sp.Mul(*rest, dv, evaluate=False))
                    continue
        d = sp.diff(term, time) if term.has(time) else sp.S.Zero
        for s in term.free_symbols:
            v = index_of.get(s)
            if v is not None:
                d += sp.diff(term, s) * system.symbols[system.derivative_var(v)]
        out.append(d)
    if not out:
        return sp.S.Zero
    return out[0] if len(out) == 1 else sp.Add(*out, evaluate=False)


def differentiate_equation(system: EquationSystem, e: int) -> int:
    """Append d/dt of equation ``e`` to the system (creating derivative variables); return it."""
    if system.eq_to_diff[e] != -1:
        return system.eq_to_diff[e]
    r = system.residuals[e]
    for v in system.incidence[e]:  # derivative variables first, in a deterministic order
        system.derivative_var(v)
    d = time_derivative(system, r)
    source = system.sources[e]
    new = system.add_equation(d, source, system.incidence_of(d, source.label))
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
                    "constraints, e.g. a kinematic loop closed twice):"
                    + _listing([system.describe_eq(x) for x in visited_eqs])
                    + "\nvariables involved:"
                    + _listing([system.describe_var(v) for v in visited_vars]))
            for v in visited_vars:
                system.derivative_var(v)
            for x in visited_eqs:
                differentiate_equation(system, x)
            matching.grow(system.n_eqs, system.n_vars)
            for v in visited_vars:
                owner = matching.var_to_eq[v]
                if owner != -1:
                    dv, de = system.var_to_diff[v], system.eq_to_diff[owner]
                    matching.var_to_eq[dv] = de
                    matching.eq_to_var[de] = dv
            eq = system.eq_to_diff[eq]
    return matching
