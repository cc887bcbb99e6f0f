"""Sorting (block lower triangular form) and tearing.

``blt`` matches every equation to one unknown, builds the dependency graph between equations
and orders its strongly connected components (Tarjan) topologically: each component is a block
that can be solved once all earlier blocks are known.

``tear_block`` solves a block as far as it can by explicit assignments: an equation with one
unknown left, in which that unknown occurs linearly, is solved for it (by the structure of sums
and products, or one sympy ``diff`` of that equation; never a global solve). When no such
equation is left, the unknown occurring in most remaining equations becomes a *tear variable*
(Cellier's heuristic). The remaining equations are
the block's residuals in the tear variables; the code generator solves them symbolically when they
are linear and small, or hands them to the DAE solver as algebraic equations.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import sympy as sp

from ...base.errors import StructurallySingularError
from ...language.symbolic import product_of, reciprocal, sum_of
from .checks import listing
from .matching import maximum_matching
from .system import EquationSystem


@dataclass
class Block:
    eqs: list[int]
    vars: list[int]


@dataclass
class TornBlock:
    """Explicit assignments ``var := expr`` in order, then residuals in the tear variables."""

    assignments: list[tuple[int, int, sp.Expr]] = field(default_factory=list)  # (var, eq, expr)
    tears: list[int] = field(default_factory=list)
    residual_eqs: list[int] = field(default_factory=list)


def blt(system: EquationSystem, unknowns: list[int]) -> list[Block]:
    """Blocks of the system for ``unknowns`` (all other variables are known), in solve order."""
    column = [-1] * system.n_vars  # each unknown's column, -1 for a known variable
    for k, v in enumerate(unknowns):
        column[v] = k
    incidence = [[column[v] for v in variables if column[v] != -1]
                 for variables in system.incidence]
    m = maximum_matching(system.n_eqs, len(unknowns), incidence)
    free_eqs = [e for e in range(system.n_eqs) if m.eq_to_var[e] == -1]
    if free_eqs or len(unknowns) != system.n_eqs:
        free_vars = [unknowns[k] for k in range(len(unknowns)) if m.var_to_eq[k] == -1]
        raise StructurallySingularError(
            "After index reduction the equations cannot be solved for the unknowns "
            f"({system.n_eqs} equations, {len(unknowns)} unknowns). Equations left over:"
            + listing([system.describe_eq(e) for e in free_eqs]) + "\nUnknowns left over:"
            + listing([system.describe_var(v) for v in free_vars]))
    successors: list[list[int]] = [[] for _ in range(system.n_eqs)]
    for e in range(system.n_eqs):
        own = m.eq_to_var[e]
        for k in incidence[e]:
            if k != own:
                successors[m.var_to_eq[k]].append(e)  # the equation solving var k comes first
    blocks = []
    for eqs in _sorted_components(successors):
        blocks.append(Block(eqs, [unknowns[m.eq_to_var[e]] for e in eqs]))
    return blocks


def _sorted_components(successors: list[list[int]]) -> list[list[int]]:
    """Strongly connected components of a directed graph on 0..n-1 (Tarjan, iterative), in
    topological order; among components that could come next, the one with the smallest
    member first (so the order depends on the numbering only). Each component's members are
    sorted. (networkx's condensation did the same at several times the cost and memory.)"""
    n = len(successors)
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comp_of = [-1] * n
    comps: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, i = work[-1]
            succ = successors[v]
            if i < len(succ):
                work[-1] = (v, i + 1)
                w = succ[i]
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work and low[v] < low[work[-1][0]]:
                low[work[-1][0]] = low[v]
            if low[v] == index[v]:
                members = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp_of[w] = len(comps)
                    members.append(w)
                    if w == v:
                        break
                comps.append(sorted(members))
    # Kahn's algorithm on the condensation, smallest first member first
    indegree = [0] * len(comps)
    comp_succ: list[set[int]] = [set() for _ in comps]
    for v in range(n):
        cv = comp_of[v]
        for w in successors[v]:
            cw = comp_of[w]
            if cw != cv and cw not in comp_succ[cv]:
                comp_succ[cv].add(cw)
                indegree[cw] += 1
    ready = [(comps[c][0], c) for c in range(len(comps)) if indegree[c] == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        _, c = heapq.heappop(ready)
        order.append(comps[c])
        for d in sorted(comp_succ[c]):
            indegree[d] -= 1
            if indegree[d] == 0:
                heapq.heappush(ready, (comps[d][0], d))
    return order


def _mentions(expr: sp.Basic, symbol: sp.Symbol) -> bool:
    """Whether ``symbol`` occurs in ``expr`` (a plain walk: sympy's ``has`` goes through its
    cache and pattern machinery, ten times slower on the small terms seen here)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if node.is_Symbol:
            if _same_symbol(node, symbol):
                return True
        else:
            stack.extend(node.args)
    return False


def _same_symbol(node: sp.Symbol, symbol: sp.Symbol) -> bool:
    """``node == symbol`` for a symbol ``node``, the names compared first: most symbols met are
    others, and a string comparison rejects them at a fraction of sympy's equality (which is
    still asked: sympy's cache can hand out an equal copy of a symbol)."""
    return node is symbol or (node.name == symbol.name and node == symbol)


_UNKNOWN = object()  # the structure does not tell whether an expression is linear


def _linear_parts(expr: sp.Expr, symbol: sp.Symbol):
    """``(a, b)`` as lists of terms with ``expr = sum(a) * symbol + sum(b)``, both free of
    ``symbol``; None when ``symbol`` occurs nonlinearly (a power, a smooth function);
    ``_UNKNOWN`` when the structure cannot tell (a product with ``symbol`` in two factors, a
    ``Piecewise``), for ``sympy.diff`` to decide. Each node is walked once."""
    if expr.is_Symbol:
        return ([sp.S.One], []) if _same_symbol(expr, symbol) else ([], [expr])
    if expr.is_Number:
        return [], [expr]
    if expr.is_Add:
        a, b = [], []
        name = symbol.name
        for term in expr.args:
            if term.is_Symbol:  # most terms of a sum: decided here, without a call
                if term is symbol or (term.name == name and term == symbol):
                    a.append(sp.S.One)
                else:
                    b.append(term)
                continue
            if term.is_Mul:  # -x, 2*x: as the product's own case below, without a call
                factors = term.args
                if len(factors) == 2 and factors[0].is_Number and factors[1].is_Symbol:
                    x = factors[1]
                    if x is symbol or (x.name == name and x == symbol):
                        a.append(factors[0])
                    else:
                        b.append(term)
                    continue
            parts = _linear_parts(term, symbol)
            if parts is None or parts is _UNKNOWN:
                return parts
            a += parts[0]
            b += parts[1]
        return a, b
    if expr.is_Mul:
        args = expr.args
        if len(args) == 2 and args[0].is_Number and args[1].is_Symbol:  # -x, 2*x: most
            x = args[1]
            return ([args[0]], []) if _same_symbol(x, symbol) else ([], [expr])
        # factors that are all symbols and numbers (m*a, -d*v_rel): the symbol's factor found
        # in one loop, without walking each factor
        found = -1
        for k, f in enumerate(args):
            if f.is_Symbol:
                if _same_symbol(f, symbol):
                    if found != -1:
                        return _UNKNOWN  # symbol*symbol: for sympy.diff to decide
                    found = k
            elif not f.is_Number:
                break
        else:
            if found == -1:
                return [], [expr]
            return [product_of([*args[:found], *args[found + 1:], sp.S.One])], []
        inside = [f for f in args if _mentions(f, symbol)]
        if not inside:
            return [], [expr]
        if len(inside) > 1:
            return _UNKNOWN
        parts = _linear_parts(inside[0], symbol)
        if parts is None or parts is _UNKNOWN:
            return parts
        rest = [f for f in args if f is not inside[0]]
        return ([product_of([*rest, sum_of(parts[0])])] if parts[0] else [],
                [product_of([*rest, sum_of(parts[1])])] if parts[1] else [])
    if not _mentions(expr, symbol):
        return [], [expr]
    if expr.is_Pow:
        return _linear_parts(expr.base, symbol) if expr.exp == 1 else None
    if isinstance(expr, sp.Function) and not isinstance(expr, sp.Piecewise):
        return None
    return _UNKNOWN


def linear_solution(residual: sp.Expr, symbol: sp.Symbol) -> tuple[sp.Expr, sp.Expr] | None:
    """``(solution, coefficient)`` of ``symbol`` from ``residual = 0`` when it occurs linearly.

    Sums and products are split by inspection (``a * symbol + b``; the result is built
    unevaluated, it only goes to the code generator); shapes the structure does not decide go
    through one ``sympy.diff`` of this single equation. None when the symbol occurs
    nonlinearly or not at all.
    """
    parts = _linear_parts(residual, symbol)
    if parts is None:
        return None
    if parts is not _UNKNOWN:
        a_terms, b_terms = parts
        if not a_terms:
            return None
        coeff = sum_of(a_terms)
        if not coeff.is_Number and not coeff.free_symbols:
            coeff = sp.sympify(float(coeff))
        if coeff.is_Number and coeff == 0:
            return None
        if not b_terms:
            return sp.S.Zero, coeff
        if coeff is sp.S.NegativeOne:  # -x + b = 0 (most equations): x = b
            return sum_of(b_terms), coeff
        solution = product_of([sp.S.NegativeOne, sum_of(b_terms)])
        # only a number can equal 1 (sympy compares structurally; != costs a conversion)
        if coeff is not sp.S.One and (not coeff.is_Number or coeff != 1):
            solution = product_of([solution, reciprocal(coeff)])
        return solution, coeff
    a = sp.diff(residual, symbol)
    if a == 0 or a.has(symbol):
        return None
    b = residual.xreplace({symbol: sp.S.Zero})
    if b.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None
    return -b / a, a


def solve_linear(residual: sp.Expr, symbol: sp.Symbol) -> sp.Expr | None:
    """``symbol`` from ``residual = 0`` when it occurs linearly, as an evaluated (readable)
    sympy expression; else None. (The compiler uses the faster :func:`linear_solution`.)"""
    a = sp.diff(residual, symbol)
    if a == 0 or a.has(symbol):
        return None
    return -residual.xreplace({symbol: sp.S.Zero}) / a


def _has_start(system: EquationSystem, v: int) -> bool:
    info = system.info[v]
    return info is not None and (info.start is not None or info.guess is not None)


def tear_block(system: EquationSystem, block: Block) -> TornBlock:
    """Explicit assignments where possible; tear variables and residuals for the rest."""
    if len(block.eqs) == 1:  # most blocks: the lists made at once
        e, v = block.eqs[0], block.vars[0]
        found = linear_solution(system.residuals[e], system.symbols[v])
        if found is not None:
            return TornBlock([(v, e, found[0])], [], [])
        return TornBlock([], [v], [e])
    result = TornBlock()

    in_block = set(block.vars)
    unknown_of = {e: [v for v in system.incidence[e] if v in in_block] for e in block.eqs}
    eqs_of: dict[int, list[int]] = {v: [] for v in block.vars}
    for e, vs in unknown_of.items():
        for v in vs:
            eqs_of[v].append(e)
    known: set[int] = set()
    remaining = set(block.eqs)
    open_count = {e: len(vs) for e, vs in unknown_of.items()}
    variables = system.index_of
    # discrete variables change at events: a coefficient containing one (a mode such as
    # ``stuck``) can become zero, so it is no safe pivot either
    discrete = {prm.symbol for prm in system.parameters if getattr(prm, "discrete", False)}

    # the tear candidates by (equations left, has a start value, -index), the largest first:
    # a heap of (-count, -start, v) whose stale entries (a count that has dropped since, a
    # variable known) are skipped when they come up; counts only drop (an equation solved),
    # and each drop pushes the new entry. Scanning every candidate for each tear made tearing
    # the 100-link spatial chain's linear block quadratic.
    left = {v: len(eqs_of[v]) for v in block.vars}
    starts = {v: _has_start(system, v) for v in block.vars}
    heap = [(-left[v], -starts[v], v) for v in block.vars]
    heapq.heapify(heap)

    # the equations with one unknown left that may yet give an assignment (an equation whose
    # pivot was refused stays refused: its unknown cannot change), so that each pass below
    # looks at these only, not at every remaining equation of a block of thousands
    ready = {e for e in block.eqs if open_count[e] == 1}

    def mark_known(v: int) -> None:
        known.add(v)
        for e2 in eqs_of[v]:
            open_count[e2] -= 1
            if open_count[e2] == 1 and e2 in remaining:
                ready.add(e2)
            elif open_count[e2] == 0:
                ready.discard(e2)

    def solved(e: int) -> None:
        remaining.discard(e)
        ready.discard(e)
        for v2 in unknown_of[e]:
            left[v2] -= 1
            if v2 not in known:
                heapq.heappush(heap, (-left[v2], -starts[v2], v2))

    while len(known) < len(block.vars):
        progress = True
        while progress:
            progress = False
            for e in sorted(ready):
                if open_count[e] != 1:  # an assignment earlier in this pass solved its unknown
                    continue
                v = next(u for u in unknown_of[e] if u not in known)
                found = linear_solution(system.residuals[e], system.symbols[v])
                # Inside a loop, only pivot on coefficients made of numbers and parameters: a
                # coefficient such as r*sin(phi) vanishes at regular configurations, and one
                # such as a mode variable vanishes in another mode. Such unknowns become tear
                # variables and the loop is solved as a whole.
                if found is None or any(sym in variables or sym in discrete
                                        for sym in found[1].free_symbols):
                    ready.discard(e)
                    continue
                result.assignments.append((v, e, found[0]))
                solved(e)
                mark_known(v)
                progress = True
        if len(known) == len(block.vars):
            break
        # Most remaining equations first; among equals a variable with a start value (its
        # guess then seeds the Newton iteration), then the lowest index.
        while True:
            count, _, tear = heapq.heappop(heap)
            if tear not in known and -count == left[tear]:
                break
        result.tears.append(tear)
        mark_known(tear)
    result.residual_eqs = sorted(remaining)
    if len(result.residual_eqs) != len(result.tears):
        raise StructurallySingularError(
            "Tearing an algebraic loop left a different number of residuals and tear variables:"
            + listing([system.describe_eq(e) for e in block.eqs]))
    return result
