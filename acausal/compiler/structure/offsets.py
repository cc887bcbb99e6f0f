"""Offset aliases: equations ``a = b + c`` or ``a = -b + c`` with ``c`` made of parameters.

A component with a length places its flanges around its centre: a ``Mass`` of length ``L`` has
``flange_a.s = s - L/2`` and ``flange_b.s = s + L/2`` (MSL ``PartialRigid``). Alias elimination
removes only ``a = b`` and ``a = -b`` (the alias map records a sign per variable), so these
equations stay, and a constraint that runs through them, such as a spring-damper's
``s_rel = flange_b.s - flange_a.s`` between two masses, reaches the masses' positions only
through two of them: index reduction then differentiates all three equations instead of one,
and state selection and code generation handle the extra derivatives.

Here each such equation stays in the system as the definition of ``a``, and ``a`` is replaced by
``b + c`` (or ``-b + c``) in every other equation. Equations that only passed through ``a`` now
mention ``b``; ``a`` occurs in its own equation alone, which sorting places after ``b`` as the
assignment ``a := b + c``. The variables, their names, start values and the observed values are
those of the system before (``a`` keeps its index; no alias map changes).

The substitution is exact: ``c`` is arithmetic of numbers and parameters, none a discrete
variable or a run-time input (both change during a run, and index reduction takes a parameter's
derivative to be zero). ``a`` must not be in a derivative chain (neither ``der(a)`` nor a
derivative itself), so every derivative of the system stays what it was. An equation in which
the substitution would leave no variable at all (``a - b`` against ``a = b + c``: the model is
overdetermined) keeps ``a``, so that the structural checks report it as written.
"""

from __future__ import annotations

import sympy as sp

from ...language.symbolic import product_of, substituted, sum_of
from .system import EquationSystem


def substitute_offset_aliases(system: EquationSystem, preference) -> int:
    """Substitute every offset alias of ``system`` into its other equations (in place).

    Of the two variables of an offset alias the one with a start value or guess stays (then
    ``preference(system, v)``, a sort key, the smaller the more a variable should stay: the
    alias representatives' order); the other one is substituted. Returns how many variables
    were substituted.
    """
    constant = _constant_symbols(system)
    candidates = []
    for e in range(system.n_eqs):
        if len(system.incidence[e]) == 2:
            parsed = _parse_offset_alias(system, system.residuals[e], constant)
            if parsed is not None:
                candidates.append((e, parsed))
    if not candidates:
        return 0
    # the equations of each variable of an offset alias (those that may be substituted, or
    # gain equations by a substitution), not of every variable
    occurrences: dict[int, list[int]] = {}
    for _, ((a, _), (b, _), _) in candidates:
        occurrences[a] = []
        occurrences[b] = []
    for e, vs in enumerate(system.incidence):
        for v in vs:
            found = occurrences.get(v)
            if found is not None:
                found.append(e)
    done: set[int] = set()  # the variables substituted so far
    for e, parsed in candidates:
        if parsed[0][0] in done or parsed[1][0] in done:
            # an earlier substitution rewrote this equation: read it again
            parsed = _parse_offset_alias(system, system.residuals[e], constant) \
                if len(system.incidence[e]) == 2 else None
            if parsed is None:
                continue
        (a, sa), (b, sb), rest = parsed
        choices = [(v, s, w, sw) for v, s, w, sw in ((a, sa, b, sb), (b, sb, a, sa))
                   if _substitutable(system, v) and v not in done and w not in done]
        if not choices:
            continue
        # one choice (the other variable is a state or its derivative) needs no ranking
        v, sv, w, sw = choices[0] if len(choices) == 1 else \
            max(choices, key=lambda c: _stays(system, c[0], preference))
        # sv*v + sw*w + rest = 0 with sv = +-1  ->  v = -sv*(sw*w + rest)
        terms = [_signed(-sv * sw, system.symbols[w]), *[_signed(-sv, r) for r in rest]]
        negated: list = []  # the terms negated, made when a term -v first needs them
        symbol = system.symbols[v]
        kept = []
        for e2 in occurrences[v]:
            if e2 == e:
                kept.append(e2)
                continue
            incidence = system.incidence[e2]
            if w in incidence:  # terms in w may cancel: sympy's evaluation finds out
                residual = system.residuals[e2].xreplace({symbol: sum_of(terms)})
                incidence = system.incidence_of(residual, system.sources[e2].label)
                if not incidence:  # overdetermined: left as written for the structural checks
                    kept.append(e2)
                    continue
            else:  # w is new here: nothing cancels, the terms are spliced in
                residual = _spliced(system.residuals[e2], symbol, terms, negated)
                incidence = sorted({*incidence, w} - {v})
                occurrences[w].append(e2)
            system.residuals[e2] = residual
            system.incidence[e2] = incidence
        occurrences[v] = kept
        done.add(v)
    return len(done)


def _stays(system: EquationSystem, v: int, preference) -> tuple:
    """Sort key, the smaller the more ``v`` should stay: a variable with a start value or guess
    first (if it has to be iterated on, it starts from its user's value), then ``preference``."""
    info = system.info[v]
    return (info is None or (info.start is None and info.guess is None), preference(system, v))


def _signed(sign: int, term: sp.Expr) -> sp.Expr:
    return term if sign == 1 else _negated(term)


def _negated(term: sp.Expr) -> sp.Expr:
    """``-term`` unevaluated, a number coefficient negated in place (-x, -c*p)."""
    if term.is_Number:
        return -term
    if term.is_Mul:
        factors = term.args
        if factors[0].is_Number:
            first = -factors[0]
            if first is sp.S.One:
                rest = factors[1:]
                return rest[0] if len(rest) == 1 else sp.Mul._from_args(rest, True)
            return sp.Mul._from_args((first, *factors[1:]), True)
    return sp.Mul._from_args((sp.S.NegativeOne, term), True)


def _constant_symbols(system: EquationSystem) -> set:
    """Parameters that stay constant through a run (no discrete variable, no input)."""
    return {p.symbol for p in system.parameters
            if not getattr(p, "discrete", False) and not getattr(p, "is_input", False)}


def _is_constant(term: sp.Expr, constant: set) -> bool:
    """Whether ``term`` is arithmetic (sums, products, powers) of constant parameters and numbers
    (a number times a parameter, the usual offset). A function of them (a ``Piecewise``, ``Max``)
    is not taken: substituted into the condition of a ``Piecewise``, sympy rewrites a
    ``Piecewise`` there as a logical ``ITE``, which the code generator does not translate."""
    if term.is_Number or term.is_NumberSymbol:
        return True
    if term.is_Symbol:
        return term in constant
    if term.is_Mul or term.is_Add or term.is_Pow:
        for arg in term.args:  # a loop, not all() over a generator: this runs for every term
            if not _is_constant(arg, constant):
                return False
        return True
    return False


def _substitutable(system: EquationSystem, v: int) -> bool:
    return system.var_to_diff[v] == -1 and system.diff_to_var[v] == -1


def _parse_offset_alias(system: EquationSystem, residual: sp.Expr, constant: set):
    """``((a, sign_a), (b, sign_b), rest)`` for ``sign_a*a + sign_b*b + sum(rest)`` with signs
    +-1 and a non-empty ``rest`` of constant parameters and numbers; else None."""
    if not residual.is_Add:
        return None
    signed, rest = [], []
    index_of = system.index_of
    for term in residual.args:
        if term.is_Symbol:
            v = index_of.get(term)
            if v is not None:
                signed.append((v, 1))
                continue
        elif term.is_Mul:
            factors = term.args
            if len(factors) == 2 and factors[0] is sp.S.NegativeOne and factors[1].is_Symbol:
                v = index_of.get(factors[1])
                if v is not None:
                    signed.append((v, -1))
                    continue
        if not _is_constant(term, constant):
            return None  # a variable in a product, time, a discrete variable...
        rest.append(term)
    if len(signed) != 2 or not rest or signed[0][0] == signed[1][0]:
        return None
    return signed[0], signed[1], rest


def _spliced(residual: sp.Expr, symbol: sp.Symbol, terms: list, negated: list) -> sp.Expr:
    """``residual`` with ``symbol`` replaced by the sum of ``terms`` (``negated``: each of them
    negated, filled here when first needed: the other equations of the symbol share it),
    without sympy's evaluation: a term ``+-symbol`` of a sum becomes the (negated) terms,
    anywhere else the symbol becomes their unevaluated sum."""
    value = sum_of(terms)
    if not residual.is_Add:
        return substituted(residual, {symbol: value})
    name = symbol.name
    out = []
    for term in residual.args:
        if term.is_Symbol:
            # equal, not only identical: sympy's cache can hand out an equal copy of a symbol
            # (the names first: a string comparison rejects the others cheaply)
            if term.name == name and term == symbol:
                out.extend(terms)
            else:
                out.append(term)
        elif term.is_Mul and len(factors := term.args) == 2 and factors[0].is_Number \
                and factors[1].is_Symbol:
            factor = factors[1]
            if factor.name != name or factor != symbol:
                out.append(term)  # another variable or parameter, with a coefficient
            elif factors[0] is sp.S.NegativeOne:
                if not negated:
                    negated.extend(_negated(t) for t in terms)
                out.extend(negated)
            else:
                out.extend(product_of([factors[0], t]) for t in terms)
        elif term.is_Number:
            out.append(term)
        else:
            out.append(substituted(term, {symbol: value}))
    return sum_of(out)
