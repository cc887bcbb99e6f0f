"""Alias elimination: remove equations of the form a = b, a = -b and a = 0.

Connections produce most of them (equal potentials, two-member flow sums, open flows), and so do
component equations such as ``s = flange.s``. A signed union-find groups the variables into
classes ``member = sign * root``; every class keeps one representative and all other members
become observed aliases. ``der(x) = v`` is an alias too (between the placeholder ``der(x)`` and
``v``), which makes ``v`` the derivative of ``x`` in the chain, as ModelingToolkit does.

Rules that keep the result correct:

* when two classes that both have derivatives merge, their derivative classes merge too
  (two rigidly connected masses share position, velocity and acceleration);
* a class never merges with a class of its own derivative chain (``der(x) = x`` stays an
  equation), nor do two derivatives of *different* variables (``der(a) = der(b)`` says nothing
  about ``a = b``);
* only variables outside any derivative chain can become the constant 0;
* fixed start values of merged variables must agree, else the conflict is reported by name.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import sympy as sp

from ...base.errors import InitializationError, OverdeterminedError, StructurallySingularError
from ...language.symbolic import product_of, real_symbol, substituted
from ..flatten import FlatVariable
from .system import EquationSystem

_MINUS_ONE = sp.S.NegativeOne


@dataclass
class AliasMap:
    """For every variable of the system before elimination: ``value = sign * new_var``.

    ``target[v] == -1`` means the variable is identically zero.
    """

    names: list[str]
    sign: list[int]
    target: list[int]


def _parse_alias(residual: sp.Expr):
    """Return (a_symbol, b_symbol_or_None, s) for residuals a - s*b or a; else None.
    (Each node's ``args``, a sympy property, is read once: this runs for most equations.)"""
    if residual.is_Symbol:
        return residual, None, 0
    if residual.is_Add:
        items = residual.args
        if len(items) != 2:
            return None
    elif residual.is_Mul:
        items = (residual,)
    else:
        return None
    terms = []
    for t in items:
        if t.is_Symbol:
            terms.append((t, 1))
            continue
        if t.is_Mul:
            factors = t.args
            if len(factors) == 2 and factors[1].is_Symbol and \
                    (factors[0] is _MINUS_ONE or factors[0] == -1):
                terms.append((factors[1], -1))
                continue
        return None
    if len(terms) == 1:
        return terms[0][0], None, 0
    (a, ca), (b, cb) = terms
    return a, b, -ca * cb  # ca*a + cb*b = 0  ->  a = -ca*cb*b


class _SignedUnionFind:
    def __init__(self, system: EquationSystem) -> None:
        n = system.n_vars
        self.zero = n
        self.parent = list(range(n + 1))
        self.sign = [1] * (n + 1)
        # der(root) = s * w ; root = s * der(w')   (class-level chain links, stored at roots)
        self.diff: dict[int, tuple[int, int]] = {v: (d, 1) for v, d in
                                                 enumerate(system.var_to_diff) if d != -1}
        self.integ: dict[int, tuple[int, int]] = {v: (i, 1) for v, i in
                                                  enumerate(system.diff_to_var) if i != -1}
        self.system = system

    def find(self, x: int) -> tuple[int, int]:
        path = []
        s = 1
        while self.parent[x] != x:
            path.append(x)
            s *= self.sign[x]
            x = self.parent[x]
        root = x
        # path compression (recompute each node's sign to the root)
        acc = s
        for node in path:
            old_sign = self.sign[node]
            self.parent[node] = root
            self.sign[node] = acc
            acc *= old_sign
        return root, s

    def _chain_contains(self, start: int, target: int, links: dict) -> bool:
        seen = set()
        r = start
        while r in links and r not in seen:
            seen.add(r)
            r = self.find(links[r][0])[0]
            if r == target:
                return True
        return False

    def can_union(self, a: int, b: int) -> bool:
        ra, _ = self.find(a)
        rb, _ = self.find(b)
        if ra == rb:
            return False
        if self.zero in (ra, rb):
            other = rb if ra == self.zero else ra
            return other not in self.diff and other not in self.integ
        if ra in self.integ and rb in self.integ:
            ia = self.find(self.integ[ra][0])[0]
            ib = self.find(self.integ[rb][0])[0]
            if ia != ib:
                return False
        return not (self._chain_contains(ra, rb, self.diff)
                    or self._chain_contains(rb, ra, self.diff))

    def union(self, a: int, b: int, s: int) -> None:
        """Record a = s * b (the caller checked can_union)."""
        ra, sa = self.find(a)
        rb, sb = self.find(b)
        k = sa * s * sb  # ra = k * rb
        if rb == self.zero:  # keep the zero node as the root of its class
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.sign[rb] = k  # rb = k * ra
        pending = []
        for links in (self.diff, self.integ):
            lb = links.pop(rb, None)
            if lb is None:
                continue
            la = links.get(ra)
            wb, swb = lb
            if la is None:
                links[ra] = (wb, k * swb)  # der(ra) = k der(rb) = k*swb*wb
            elif links is self.diff:
                wa, swa = la
                pending.append((wb, wa, k * swa * swb))  # swb*wb = k*swa*wa
        for wb, wa, s2 in pending:
            rwb, swb2 = self.find(wb)
            rwa, swa2 = self.find(wa)
            if rwb == rwa:
                if swb2 != s2 * swa2:
                    raise StructurallySingularError(
                        f"Aliases force der({self.system.name(a)}) to equal its own negative; "
                        "check the signs of the equations that relate "
                        f"'{self.system.name(a)}' and '{self.system.name(b)}'.")
                continue
            if not self.can_union(wb, wa):
                raise StructurallySingularError(
                    f"'{self.system.name(a)}' and '{self.system.name(b)}' are equal, but their "
                    "derivatives cannot be identified with each other; write the relation "
                    "between them differently.")
            self.union(wb, wa, s2)


def alias_preference(system: EquationSystem, v: int) -> tuple:
    """Sort key of the variables of an alias class: the smallest becomes its representative
    (a declared variable before a connector's, a higher state priority, a fixed start)."""
    info = system.info[v]
    if info is None:
        return (1, 1, 0.0, 1, v)
    return (0, 0 if info.kind == "variable" else 1, -info.state_priority,
            0 if info.fixed else 1, v)


def eliminate_aliases(system: EquationSystem) -> tuple[EquationSystem, AliasMap]:
    """Return the reduced system (variables renumbered) and the map from old variables."""
    uf = _SignedUnionFind(system)
    kept_eqs: list[int] = []
    index_of = system.index_of
    for e, (residual, variables) in enumerate(zip(system.residuals, system.incidence)):
        parsed = _parse_alias(residual) if len(variables) <= 2 else None
        if parsed is not None:
            a_sym, b_sym, s = parsed
            a = index_of.get(a_sym)
            b = uf.zero if b_sym is None else index_of.get(b_sym)
            if a is not None and b is not None and uf.can_union(a, b):
                uf.union(a, b, s)
                continue
        kept_eqs.append(e)

    n = system.n_vars
    members: dict[int, list[tuple[int, int]]] = {}
    parent = uf.parent
    for v in range(n):
        # a variable that is its class's root (most of them) needs no search
        root, s = (v, 1) if parent[v] == v else uf.find(v)
        members.setdefault(root, []).append((v, s))

    # Choose representatives. A derivative class must contain der(rep of its integral) with
    # sign +1; process classes integral-first so that this is known when needed.
    rep_of_root: dict[int, tuple[int, int]] = {}  # root -> (rep old var, rep = s * root)
    new_placeholders: dict[int, sp.Symbol] = {}

    roots = sorted(r for r in members if r != uf.zero)
    for r in roots:
        _choose_representative(r, system, uf, members, rep_of_root, new_placeholders)

    # New variable numbering: representatives in order of their old index.
    def sort_key(r):
        v = rep_of_root[r][0]
        return v if v >= 0 else n + r
    ordered_roots = sorted(roots, key=sort_key)
    new_index = {r: i for i, r in enumerate(ordered_roots)}
    symbols, info = [], []
    for r in ordered_roots:
        v, _ = rep_of_root[r]
        if v >= 0:
            symbols.append(system.symbols[v])
            info.append(_merged_info(system, members[r], v, rep_of_root[r][1]))
        else:
            rep_w = new_placeholders[r]
            symbols.append(real_symbol(f"der({system.name(rep_w)})"))
            info.append(None)
    var_to_diff = [-1] * len(symbols)
    diff_to_var = [-1] * len(symbols)
    for r in ordered_roots:
        if r in uf.diff:
            d_root = uf.find(uf.diff[r][0])[0]
            var_to_diff[new_index[r]] = new_index[d_root]
            diff_to_var[new_index[d_root]] = new_index[r]

    amap = AliasMap([s.name for s in system.symbols], [0] * n, [-1] * n)
    # the value of each old variable in the new ones, by index (None: itself, unchanged);
    # sympy symbols as dictionary keys cost a Python call per hash
    replacement: list[sp.Expr | None] = [None] * n
    for root, mems in members.items():
        for v, s in mems:
            if root == uf.zero:
                amap.sign[v], amap.target[v] = 0, -1
                replacement[v] = sp.S.Zero
                continue
            _, s_rep = rep_of_root[root]
            sign = s * s_rep  # v = s*root, rep = s_rep*root -> v = s*s_rep*rep
            k = new_index[root]
            amap.sign[v], amap.target[v] = sign, k
            if system.symbols[v] is not symbols[k] or sign != 1:
                replacement[v] = symbols[k] if sign == 1 else \
                    product_of((sp.S.NegativeOne, symbols[k]))  # -x, without evaluating
    _check_zero_class(system, members.get(uf.zero, []))

    reduced = EquationSystem(symbols=symbols, info=info, var_to_diff=var_to_diff,
                             diff_to_var=diff_to_var, residuals=[], incidence=[], sources=[],
                             eq_to_diff=[], diff_to_eq=[], parameters=system.parameters)
    reduced.index_of = {s: i for i, s in enumerate(symbols)}
    everywhere: dict | None = None  # every replacement, by symbol
    target, old_symbols = amap.target, system.symbols
    for e in kept_eqs:
        residual = system.residuals[e]
        old_vars = system.incidence[e]
        targets = [target[v] for v in old_vars]
        if -1 not in targets and len(set(targets)) == len(targets):
            # Distinct variables stay distinct (none becomes zero): a renaming, nothing can
            # cancel, and the new incidence follows from the old one.
            renaming = {old_symbols[v]: replacement[v] for v in old_vars
                        if replacement[v] is not None}
            if renaming:
                residual = substituted(residual, renaming)
            reduced.add_equation(residual, system.sources[e], sorted(targets))
            continue
        if everywhere is None:  # built for the first equation that needs it (few do)
            everywhere = {system.symbols[v]: replacement[v] for v in range(n)
                          if replacement[v] is not None}
        residual = residual.xreplace(everywhere)
        source = system.sources[e]
        if residual == 0 or (residual.is_number and not residual.free_symbols):
            what = "is always satisfied (redundant)" if residual == 0 else "can never hold"
            raise OverdeterminedError(
                f"After connections are resolved this equation {what}:\n  {source.describe()}\n"
                "It duplicates (or contradicts) a connection or another equation: remove it.")
        reduced.add_equation(residual, source, reduced.incidence_of(residual, source.label))
    return reduced, amap


def _choose_representative(root: int, system: EquationSystem, uf: _SignedUnionFind,
                           members: dict, rep_of_root: dict, new_placeholders: dict
                           ) -> tuple[int, int]:
    """``(representative, sign)`` of the class of ``root`` (recorded in ``rep_of_root``); the
    class of its integral first. (A module function, not a closure: a recursive closure is a
    reference cycle that kept the unreduced system alive until the cyclic collector ran.)"""
    if root in rep_of_root:
        return rep_of_root[root]
    cands = members[root]
    required_sign = None
    if root in uf.integ:
        w, sw = uf.integ[root]  # root = sw * der(w)
        rw, s_w = uf.find(w)  # w = s_w * rw
        rep_w, s_rep_w = _choose_representative(rw, system, uf, members, rep_of_root,
                                                new_placeholders)  # rep_w = s_rep_w * rw
        # der(rep_w) = s_rep_w * s_w * der(w) = s_rep_w * s_w * sw * root
        required_sign = s_rep_w * s_w * sw
        cands = [(v, s) for v, s in cands if s == required_sign]
    if cands:
        # a class of one (a variable without aliases) needs no ranking
        v, s = cands[0] if len(cands) == 1 else \
            min(cands, key=lambda vs: alias_preference(system, vs[0]))
        rep_of_root[root] = (v, s)
    else:
        # No member is der(rep_w) with the right sign: a fresh placeholder is.
        rep_of_root[root] = (-1 - root, required_sign)
        new_placeholders[root] = rep_w
    return rep_of_root[root]


def _merged_info(system: EquationSystem, mems, rep: int, rep_sign: int) -> FlatVariable | None:
    """The representative's FlatVariable with start/fixed/guess/priority merged over members."""
    base = system.info[rep]
    fixed_from: list[tuple[str, float]] = []
    start = guess = None
    depth = None
    priority = base.state_priority if base is not None else 0.0
    # member value = (s_m * rep_sign) * rep value; the start written highest up in the
    # hierarchy wins (Modelica's start-value priority), then the representative's
    ordered = mems if len(mems) == 1 else sorted(mems, key=lambda vs: (vs[0] != rep, vs[0]))
    for v, s in ordered:
        inf = system.info[v]
        if inf is None:
            continue
        rel = s * rep_sign
        priority = max(priority, inf.state_priority)
        if inf.fixed and inf.start is not None:
            fixed_from.append((inf.name, rel * float(inf.start)))
        if inf.start is None and inf.guess is None:
            continue
        if depth is None or inf.start_depth < depth:
            depth = inf.start_depth
            start = guess = None
        if inf.start_depth == depth:
            if start is None and inf.start is not None:
                start = rel * float(inf.start) if _is_number(inf.start) else inf.start
            if guess is None and inf.guess is not None:
                guess = rel * float(inf.guess)
    if len(fixed_from) > 1:
        v0 = fixed_from[0][1]
        clash = [(n, x) for n, x in fixed_from if abs(x - v0) > 1e-10 * (1 + abs(v0))]
        if clash:
            raise InitializationError(
                "Conflicting fixed start values for variables that the connections make equal "
                "(up to sign): " + ", ".join(f"{n} (as {x:g})" for n, x in fixed_from)
                + ". Keep fixed=True on one of them only.")
    fixed = bool(fixed_from)
    if fixed:
        start = fixed_from[0][1]
    if base is None:
        return None
    depth = base.start_depth if depth is None else depth
    if _same(start, base.start) and fixed == base.fixed and _same(guess, base.guess) \
            and priority == base.state_priority and depth == base.start_depth:
        return base  # nothing merged in (most classes): no copy, a third of this pass's time
    return replace(base, start=start, fixed=fixed, guess=guess, state_priority=priority,
                   start_depth=depth)


def _same(a, b) -> bool:
    """The same start or guess: one object, or equal numbers of one type."""
    return a is b or (type(a) in (int, float) and type(a) is type(b) and a == b)


def _is_number(x) -> bool:
    try:
        float(x)
        return True
    except (TypeError, ValueError):
        return False


def _check_zero_class(system: EquationSystem, mems) -> None:
    for v, _ in mems:
        inf = system.info[v]
        if inf is not None and inf.fixed and inf.start is not None and float(inf.start) != 0.0:
            raise InitializationError(
                f"'{inf.name}' has the fixed start value {inf.start}, but the model makes it "
                "identically zero (e.g. an open flange's force). Remove fixed=True or the "
                "start value.")


def has_alias_equations(system: EquationSystem) -> bool:
    """Whether any equation of ``system`` is an alias that elimination could remove."""
    uf = None
    for e in range(system.n_eqs):
        if len(system.incidence[e]) > 2:
            continue
        parsed = _parse_alias(system.residuals[e])
        if parsed is None:
            continue
        a_sym, b_sym, _ = parsed
        if uf is None:
            uf = _SignedUnionFind(system)
        a = system.index_of.get(a_sym)
        b = uf.zero if b_sym is None else system.index_of.get(b_sym)
        if a is not None and b is not None and uf.can_union(a, b):
            return True
    return False


def compose_alias_maps(first: AliasMap, second: AliasMap) -> AliasMap:
    """The map from the variables before ``first`` through both eliminations."""
    out = AliasMap(list(first.names), [0] * len(first.names), [-1] * len(first.names))
    for v in range(len(first.names)):
        mid = first.target[v]
        if mid == -1:
            continue
        target = second.target[mid]
        if target != -1:
            out.sign[v] = first.sign[v] * second.sign[mid]
            out.target[v] = target
    # the intermediate representatives keep their own names too (a set: a list's membership
    # test made this quadratic, 0.22 s of the 100-link spatial chain's compile)
    known = set(out.names)
    for mid, name in enumerate(second.names):
        if name not in known:
            known.add(name)
            out.names.append(name)
            out.sign.append(second.sign[mid])
            out.target.append(second.target[mid])
    return out
