"""The derivative rule of an orientation record, ``der(T) = -skew(w) T`` (MultiBody's rule).

A 3-D frame connector carries its orientation as 9 numbers ``T`` (row-major) and the angular
velocity ``w`` resolved in the frame. Pantelides differentiates the equations that define ``T``
(``T_b = R(phi) T_a`` of a joint) when a position constraint that uses ``T`` is differentiated,
and so creates ``der(T)`` and ``der(der(T))`` for every frame, 18 unknowns and 18 equations a
frame that the dummy derivatives then leave algebraic. MultiBody never differentiates ``T``:
every derivative of ``T`` goes through ``w``.

:func:`apply_orientation_rule` does the same after state selection: every ``der(T_k)`` in an
equation is replaced by ``(-skew(w) T)_k`` of its frame and every ``der(der(T_k))`` by the
derivative of that, ``(-skew(der(w)) T + skew(w) skew(w) T)_k``; the derivatives of the
equations that define ``T`` (rotation kinematics: their residuals hold ``T`` elements and
nothing of a frame's position, velocity or loads) are dropped with the ``der(T)`` variables.
Dropping them is exact: the derivative of ``T_b = R T_a`` holds once ``w_b = R w_a + w_rel``
does, which the system keeps.

The rewrite is skipped (the system is returned unchanged) where it is not known to be safe:
a frame's ``T`` or ``der(T)`` is a state, a ``der(w)`` it needs does not exist, ``T`` is
differentiated more than twice, or the equations dropped do not balance the variables removed.
It is also skipped, unless :data:`WITH_LOOPS`, where a joint coordinate or speed (declared
with ``state_priority`` :data:`JOINT_PRIORITY` or more, MultiBody's ``StateSelect.prefer``)
has a dummy derivative, which is what a kinematic loop does (the loop's dependent joint
coordinates). That is a choice by measurement, not by safety: on trees the rule leaves fewer
instructions (the spatial chains 60 %, the hand 27 %, the R3 robot 8 %), while EngineV6's six
crank-slider loops (cut by a ``RevolutePlanarLoopConstraint``) took 13 % more (3 819 -> 4 326
instructions of its residual; its run at rtol 1e-8 from 1.99 to 2.07 s, median of five), and
Fourbar1's loop, with its states chosen statically, moved as without the rule
(``tests/compiler/test_orientation_rule.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import sympy as sp

from ...language.symbolic import product_of, substituted, sum_of
from .alias import AliasMap
from .system import EquationSystem

#: Apply the rule to mechanisms with kinematic loops too (see the module's docstring).
WITH_LOOPS = False
#: The ``state_priority`` of joint coordinates and speeds (components/multibody/joints.py); a
#: body's own velocities prefer states less (3) and are dummies in any chain of joints.
JOINT_PRIORITY = 10

_ELEMENT = re.compile(r"^(.*)\.(T|w|r_0|f|t)\[(\d)\]$")
_SIZES = {"T": 9, "w": 3, "r_0": 3, "f": 3, "t": 3}


@dataclass
class OrientationRule:
    """What :func:`apply_orientation_rule` did: the equations and variables it removed, or
    why it left the system as it was."""

    equations_removed: int = 0
    variables_removed: int = 0
    skipped: str = ""


def _frames(names: list[str]) -> dict[str, dict[str, list[int]]]:
    """Connector instances with the records of a 3-D frame: prefix -> record -> alias rows."""
    found: dict[str, dict[str, dict[int, int]]] = {}
    for row, name in enumerate(names):
        m = _ELEMENT.match(name)
        if m:
            found.setdefault(m.group(1), {}).setdefault(m.group(2), {})[int(m.group(3))] = row
    frames = {}
    for prefix, records in found.items():
        if all(len(records.get(k, ())) == n for k, n in _SIZES.items()):
            frames[prefix] = {k: [records[k][i] for i in range(n)] for k, n in _SIZES.items()}
    return frames


def _joint_coordinate(system: EquationSystem, v: int) -> bool:
    """Whether ``v`` prefers to be a state as a joint's coordinate does."""
    info = system.info[v] if v != -1 else None
    return info is not None and info.state_priority >= JOINT_PRIORITY


def _signed(sign: int, e: sp.Expr) -> sp.Expr:
    return e if sign == 1 or e is sp.S.Zero else product_of([sp.S.NegativeOne, e])


def _difference(a, x, b, y) -> sp.Expr:
    """``a x - b y``, unevaluated, without the terms that are zero."""
    terms = []
    if a is not sp.S.Zero and x is not sp.S.Zero:
        terms.append(product_of([a, x]))
    if b is not sp.S.Zero and y is not sp.S.Zero:
        terms.append(product_of([sp.S.NegativeOne, b, y]))
    return sum_of(terms)


def _rate(t, w, i, j) -> sp.Expr:
    """Element (i, j) of ``-skew(w) T``: ``w[i+2] T[i+1][j] - w[i+1] T[i+2][j]`` (mod 3)."""
    return _difference(w[(i + 2) % 3], t[(i + 1) % 3][j], w[(i + 1) % 3], t[(i + 2) % 3][j])


def _acceleration(t, w, dw, i, j) -> sp.Expr:
    """Element (i, j) of the derivative of ``-skew(w) T``, ``der(T)`` by the rule again."""
    a, b = (i + 1) % 3, (i + 2) % 3
    return sum_of([x for x in (_difference(dw[b], t[a][j], dw[a], t[b][j]),
                               _difference(w[b], _rate(t, w, a, j), w[a], _rate(t, w, b, j)))
                   if x is not sp.S.Zero])


def apply_orientation_rule(system: EquationSystem, aliases: AliasMap, dummies: set[int]
                           ) -> tuple[EquationSystem, AliasMap, set[int], OrientationRule]:
    """The system with ``der(T)`` replaced by the rule (see the module docstring)."""
    report = OrientationRule()

    def unchanged(reason: str):
        report.skipped = reason
        return system, aliases, dummies, report

    # a plain substring test first: the regular expression on every name of a large model
    # without frames (the 1000-mass chain, 18 000 names) cost 7 ms of its 1.1 s compile
    frames = _frames(aliases.names) if any(".T[" in n for n in aliases.names) else {}
    if not frames:
        return unchanged("no 3-D frames")
    if not WITH_LOOPS:
        held = sorted(system.name(system.diff_to_var[d]) for d in dummies
                      if _joint_coordinate(system, system.diff_to_var[d]))
        if held:
            return unchanged(f"a kinematic loop: the joint coordinates {', '.join(held[:4])}"
                             f"{', ...' if len(held) > 4 else ''} are not states")

    def value(row: int) -> sp.Expr:
        target = aliases.target[row]
        if target == -1:
            return sp.S.Zero
        symbol = system.symbols[target]
        return symbol if aliases.sign[row] == 1 else -symbol

    def var_of(expr: sp.Expr) -> tuple[int, int] | None:
        """(variable, sign) of ``expr`` = sign * variable, else None."""
        if expr.is_Symbol:
            return system.index_of[expr], 1
        if expr.is_Mul and len(expr.args) == 2 and expr.args[0] == -1:
            return system.index_of[expr.args[1]], -1
        return None

    t_vars: set[int] = set()
    frame_vars: set[int] = set()  # r_0, w, f, t of every frame: not rotation kinematics
    # T variable -> (sign, frame's T (3x3 lists), frame's w, row, column, der(w) known)
    owner: dict[int, tuple] = {}
    for records in frames.values():
        rows = [value(r) for r in records["T"]]
        t_matrix = [rows[0:3], rows[3:6], rows[6:9]]
        w_vector = [value(r) for r in records["w"]]
        w_ok = all(x.is_number or system.var_to_diff[var_of(x)[0]] != -1 for x in w_vector)
        for key in ("r_0", "w", "f", "t"):
            for r in records[key]:
                if aliases.target[r] != -1:
                    frame_vars.add(aliases.target[r])
        for k, x in enumerate(rows):
            if x.is_number:
                continue
            found = var_of(x)
            if found is None:
                return unchanged(f"a T element is {x}")
            v, sign = found
            t_vars.add(v)
            if v not in owner or (w_ok and not owner[v][5]):
                owner[v] = (sign, t_matrix, w_vector, k // 3, k % 3, w_ok)
    first, second = {}, {}
    for v in t_vars:
        d1 = system.var_to_diff[v]
        if d1 == -1:
            continue
        if d1 not in dummies:
            return unchanged(f"{system.name(v)} is a state")
        d2 = system.var_to_diff[d1]
        sign, t_matrix, w_vector, i, j, w_ok = owner[v]
        first[d1] = _signed(sign, _rate(t_matrix, w_vector, i, j))
        if d2 == -1:
            continue
        if d2 not in dummies or system.var_to_diff[d2] != -1:
            return unchanged(f"der(der({system.name(v)})) is a state or differentiated again")
        if not w_ok:
            return unchanged(f"no der(w) for the frame of {system.name(v)}")
        dw = [sp.S.Zero if x.is_number else
              _signed(var_of(x)[1], system.symbols[system.var_to_diff[var_of(x)[0]]])
              for x in w_vector]
        second[d2] = _signed(sign, _acceleration(t_matrix, w_vector, dw, i, j))
    removed = set(first) | set(second)
    if not removed:
        return unchanged("no der(T)")
    rule = {system.symbols[d]: e for d, e in first.items()}
    rule.update({system.symbols[d]: e for d, e in second.items()})

    def root(e: int) -> int:
        while system.diff_to_eq[e] != -1:
            e = system.diff_to_eq[e]
        return e

    def defines_t(e: int) -> bool:
        inc = system.incidence[e]
        return (any(v in t_vars for v in inc)
                and not any(v in frame_vars or system.diff_to_var[v] != -1 for v in inc)
                and not system.sources[e].label.startswith(("connection", "loop closure")))

    drop = {e for e in range(system.n_eqs)
            if system.diff_to_eq[e] != -1 and defines_t(root(e))}
    if len(drop) != len(removed):
        return unchanged(f"{len(drop)} equations to drop for {len(removed)} variables")
    out = system.copy()
    for e in range(system.n_eqs):
        if e in drop or not any(v in removed for v in system.incidence[e]):
            continue
        residual = substituted(system.residuals[e], rule)
        out.residuals[e] = residual
        out.incidence[e] = out.incidence_of(residual, system.sources[e].label)
        if any(v in removed for v in out.incidence[e]):
            return unchanged(f"equation {e} keeps a der(T)")
    new_system, var_map = _without(out, drop, removed)
    new_aliases = AliasMap(names=aliases.names, sign=aliases.sign,
                           target=[-1 if t == -1 else var_map[t] for t in aliases.target])
    report.equations_removed, report.variables_removed = len(drop), len(removed)
    return new_system, new_aliases, {var_map[v] for v in dummies if v not in removed}, report


def _without(system: EquationSystem, drop: set[int], removed: set[int]
             ) -> tuple[EquationSystem, dict[int, int]]:
    """``system`` without the equations ``drop`` and the variables ``removed``."""
    keep_vars = [v for v in range(system.n_vars) if v not in removed]
    var_map = {v: i for i, v in enumerate(keep_vars)}
    keep_eqs = [e for e in range(system.n_eqs) if e not in drop]
    eq_map = {e: i for i, e in enumerate(keep_eqs)}

    def mapped(x: int, table: dict[int, int]) -> int:
        return table.get(x, -1) if x != -1 else -1

    out = EquationSystem(
        symbols=[system.symbols[v] for v in keep_vars],
        info=[system.info[v] for v in keep_vars],
        var_to_diff=[mapped(system.var_to_diff[v], var_map) for v in keep_vars],
        diff_to_var=[mapped(system.diff_to_var[v], var_map) for v in keep_vars],
        residuals=[system.residuals[e] for e in keep_eqs],
        incidence=[[var_map[v] for v in system.incidence[e]] for e in keep_eqs],
        sources=[system.sources[e] for e in keep_eqs],
        eq_to_diff=[mapped(system.eq_to_diff[e], eq_map) for e in keep_eqs],
        diff_to_eq=[mapped(system.diff_to_eq[e], eq_map) for e in keep_eqs],
        parameters=system.parameters)
    out.index_of = {s: i for i, s in enumerate(out.symbols)}
    return out, var_map
