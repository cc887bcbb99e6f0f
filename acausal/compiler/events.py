"""When clauses and initial equations in terms of one realisation's CasADi symbols.

A realisation (one choice of dummy derivatives) fixes which variables are states ``x``, tear
variables ``z`` and parameters ``p``; the user's ``When`` conditions, ``reinit``/``assign``
actions and initial equations are written in the original (pre-alias) variables and may use
``der()``. This module translates them through the alias map into SX expressions of
``(t, x, z, p)``: zero-crossing indicators, the condition, the states and parameters after the
actions, and the initial residuals.
"""

from __future__ import annotations

from collections import ChainMap
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import sympy as sp

from ..base.errors import ModelDefinitionError, UnknownNameError
from ..language.symbolic import der, initial
from .codegen import Translator


def _original_values(flat, system, aliases, values) -> tuple[dict, dict]:
    """SX value of every original (pre-alias) symbol, and of der() of each where it exists."""
    sym_values = dict(values)
    derivative_of: dict[sp.Symbol, Any] = {}
    for old, name in enumerate(aliases.names):
        sym = sp.Symbol(name, real=True)
        target, sign = aliases.target[old], aliases.sign[old]
        if target == -1:
            sym_values[sym], derivative_of[sym] = 0.0, 0.0
            continue
        sym_values[sym] = sign * values[system.symbols[target]]
        d = system.var_to_diff[target]
        if d != -1:
            derivative_of[sym] = sign * values[system.symbols[d]]
    return sym_values, derivative_of


def _with_derivatives(expr, derivative_of: dict, sym_values: dict, where: str,
                      derivative=None):
    """Replace der(v) in an expression by placeholders whose SX value is the derivative.

    ``der(v)`` of a variable that index reduction left undifferentiated (an algebraic variable,
    a sensor output, ``frame.r_0``) is its total time derivative along the model's equations,
    when ``derivative`` (an SX expression -> its time derivative) is given: initial equations
    may use it, as Modelica's may."""
    if not expr.has(der):
        return expr
    rep = {}
    for d in expr.atoms(der):
        v = d.args[0]
        if v in derivative_of:
            value = derivative_of[v]
        elif derivative is not None and v in sym_values:
            value = derivative(sym_values[v])
        else:
            raise UnknownNameError(f"{where} uses {d}, which the model does not have: only "
                                   "derivatives of states and of differentiated variables exist"
                                   + (" here (initial equations may take der() of any "
                                      "variable)." if derivative is None else
                                      f"; '{v}' is not a variable of the model."))
        placeholder = sp.Dummy(f"der({v})")
        sym_values[placeholder] = value
        rep[d] = placeholder
    return expr.xreplace(rep)


def time_derivative(t, x, z, ode, alg):
    """``D(e)`` of an SX expression ``e`` of (t, x, z, p) along the solution of
    ``D(x) = ode``, ``0 = alg``: ``de/dt + de/dx ode + de/dz D(z)`` with
    ``alg_z D(z) = -(alg_t + alg_x ode)`` (a linear solve, built once, only when an expression
    depends on ``z``)."""
    cache = {}

    def derivative(e):
        e = ca.SX(e)
        d = ca.jacobian(e, t)
        if x.numel():
            d += ca.mtimes(ca.jacobian(e, x), ode)
        if z.numel() and ca.depends_on(e, z):
            if "z_rate" not in cache:
                rhs = ca.jacobian(alg, t) + (ca.mtimes(ca.jacobian(alg, x), ode)
                                             if x.numel() else 0)
                cache["z_rate"] = -ca.solve(ca.jacobian(alg, z), rhs)
            d += ca.mtimes(ca.jacobian(e, z), cache["z_rate"])
        return d

    return derivative


def initial_residuals(flat, system, aliases, values, derivative=None):
    """User initial equations, translated to SX in (t, x, z, p) through the alias map;
    ``derivative`` (:func:`time_derivative`) gives der() of variables without a derivative."""
    if not flat.initial_equations:
        return []
    sym_values, derivative_of = _original_values(flat, system, aliases, values)
    out = []
    for eq in flat.initial_equations:
        residual = _with_derivatives(eq.residual, derivative_of, sym_values, eq.label,
                                     derivative)
        out.append((Translator(sym_values)(residual), eq.describe()))
    return out


@dataclass
class CompiledEvent:
    """One ``When`` clause in terms of (t, x, z, p) of one realisation."""

    label: str
    indicators: list  # SX zero-crossing functions (relations between continuous quantities)
    condition: Any  # SX, 1 where the clause's condition holds
    x_new: Any  # SX vector: the states after the actions (from pre-event values)
    p_new: Any  # SX vector: parameters and discrete variables after the actions
    # the condition with each indicator's relation replaced by a 0/1 input (SX vector
    # ``relation_inputs``, one per indicator): which relations can change the condition,
    # given the discrete variables (the run loop ignores crossings that cannot)
    gate: Any = None
    relation_inputs: Any = None
    # the sympy class of each indicator's relation (sp.StrictLessThan, ...): which side of
    # zero makes it true (the FMU export tabulates it for its event iteration)
    relation_types: list = field(default_factory=list)
    # a ``When(initial(), ...)`` clause: applied by the initialisation, never at run time
    at_start: bool = False


def _sign_test(kind: type, indicator: Any, as_written: Any) -> Any:
    """1 where the relation of type ``kind`` holds, from its indicator ``lhs - rhs`` (an
    equality or inequality: the relation as written, ``as_written``)."""
    if kind is sp.StrictGreaterThan:
        return indicator > 0
    if kind is sp.GreaterThan:
        return indicator >= 0
    if kind is sp.StrictLessThan:
        return indicator < 0
    if kind is sp.LessThan:
        return indicator <= 0
    return as_written


def relations_of(cond: Any) -> list:
    """The relations (``a < b``, ...) a condition is made of, in order; a relation alone is
    its own list."""
    if isinstance(cond, sp.core.relational.Relational):
        return [cond]
    out = []
    for a in getattr(cond, "args", ()):
        if isinstance(a, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
            out.extend(relations_of(a))
    return out


def compile_events(flat, system, aliases, values, states, x, p) -> list[CompiledEvent]:
    if not flat.events:
        return []
    sym_values, derivative_of = _original_values(flat, system, aliases, values)
    discrete_syms = {prm.symbol for prm in flat.parameters if prm.discrete}
    param_index = {prm.symbol: i for i, prm in enumerate(flat.parameters)}
    state_pos = {v: i for i, v in enumerate(states)}
    name_index = {n: k for k, n in enumerate(aliases.names)}
    out = []
    for ev in flat.events:
        tr = Translator(sym_values)
        at_start = isinstance(ev.condition, initial)
        if at_start and any(a.kind != "assign" for a in ev.actions):
            raise ModelDefinitionError(
                f"{ev.label}: When(initial(), ...) takes assign(...) actions only; give a state "
                "its initial value with start= (and fixed=True) instead of reinit.")
        cond = sp.false if at_start else _with_derivatives(ev.condition, derivative_of,
                                                           sym_values, ev.label)
        indicators, relation_types, switches, truth = [], [], {}, {}
        for rel in relations_of(cond):
            if rel.free_symbols - set(param_index) - discrete_syms:  # continuous or time
                indicator = tr(rel.lhs - rel.rhs)
                indicators.append(indicator)
                relation_types.append(type(rel))
                switches[rel] = d = sp.Dummy(f"r{len(switches)}")
                truth[d] = _sign_test(type(rel), indicator, tr(rel))
        b = ca.SX.sym("relations", len(switches))
        as_switches = cond.xreplace({rel: sp.Gt(d, sp.Rational(1, 2))
                                     for rel, d in switches.items()})
        gate_map = ChainMap({d: b[k] for k, d in enumerate(switches.values())}, sym_values)
        gate = Translator(gate_map)(as_switches)
        # the condition from the indicators' signs, not from the relations as written: sympy
        # orders lhs - rhs its own way, and the two can round differently at the located root
        # (the solver stops where the indicator crossed, the relation is still false, nothing
        # fires, and the crossing is never seen again: a lost time event)
        cond_sx = Translator(ChainMap(truth, sym_values))(as_switches) if switches else None
        x_new = [x[i] for i in range(x.numel())]
        p_new = [p[i] for i in range(p.numel())]
        for action in ev.actions:
            value = tr(_with_derivatives(sp.sympify(action.value), derivative_of, sym_values,
                                         ev.label))
            if action.kind == "assign":
                p_new[param_index[action.target]] = value
                continue
            old = name_index[action.target.name]
            target, sign = aliases.target[old], aliases.sign[old]
            if target == -1 or target not in state_pos:
                names = ", ".join(system.name(v) for v in states) or "none"
                raise ModelDefinitionError(
                    f"{ev.label}: reinit({action.target}, ...) needs a state, but after index "
                    f"reduction '{action.target}' is not one (states: {names}). Reinit a "
                    "state, or give the variable a higher state_priority.")
            x_new[state_pos[target]] = value / sign
        out.append(CompiledEvent(ev.label, indicators, tr(cond) if cond_sx is None else cond_sx,
                                 ca.vertcat(*x_new) if x_new else ca.SX(0, 1),
                                 ca.vertcat(*p_new) if p_new else ca.SX(0, 1),
                                 gate=ca.SX(gate) if not isinstance(gate, ca.SX) else gate,
                                 relation_inputs=b, relation_types=relation_types,
                                 at_start=at_start))
    return out
