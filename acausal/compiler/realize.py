"""One realisation: sort and tear the index-reduced system for a choice of dummy derivatives
and generate its CasADi SX expressions.

The generated system is ``der(x) = f(t, x, z, p)``, ``0 = g(t, x, z, p)`` where ``x`` are the
selected states, ``z`` the tear variables of nonlinear (or large linear) algebraic loops (empty
for an ODE), and ``p`` every numeric parameter, so that changing a parameter never recompiles.
Every other variable is an observed expression of ``(t, x, z, p)``.
"""

from __future__ import annotations

from collections import ChainMap
from typing import TYPE_CHECKING, Any

import casadi as ca
import numpy as np
import sympy as sp

from ..language.symbolic import time
from .codegen import Translator
from .events import compile_events, initial_residuals, time_derivative
from .flatten import FlatSystem
from .structure.alias import AliasMap
from .structure.blt import blt, tear_block
from .structure.dummy_derivatives import states_after_selection
from .structure.system import EquationSystem

if TYPE_CHECKING:
    from .compiled_model import CompiledModel

#: Largest linear algebraic loop (in tear variables) solved symbolically; larger ones go to IDA.
MAX_SYMBOLIC_LINEAR_LOOP = 12


def realize(flat: FlatSystem, system: EquationSystem, aliases: AliasMap,
            dummies: set[int], cls: type[CompiledModel]) -> CompiledModel:
    """Sort, tear and generate code for one choice of dummy derivatives; an instance of
    ``cls`` (a :class:`~acausal.compiler.compiled_model.CompiledModel` or a subclass)."""
    states = states_after_selection(system, dummies)
    state_set = set(states)
    unknowns = [v for v in range(system.n_vars) if v not in state_set]
    blocks = blt(system, unknowns)
    return _generate(flat, system, aliases, dummies, states, blocks, cls)


def _generate(flat, system: EquationSystem, aliases, dummies, states, blocks, cls):
    t = ca.SX.sym("t")
    x = ca.SX.sym("x", len(states))
    p = ca.SX.sym("p", len(flat.parameters))
    values: dict[sp.Symbol, Any] = {time: t}
    for i, prm in enumerate(flat.parameters):
        values[prm.symbol] = p[i]
    for i, v in enumerate(states):
        values[system.symbols[v]] = x[i]
    z_syms: list[ca.SX] = []
    algebraics: list[int] = []
    alg_res: list[ca.SX] = []
    alg_labels: list[str] = []
    global_tr = Translator(values)
    for block in blocks:
        torn = tear_block(system, block)
        if not torn.tears:
            for v, _, expr in torn.assignments:
                values[system.symbols[v]] = global_tr(expr)
            continue
        tear_syms = [system.symbols[v] for v in torn.tears]
        solved = None
        if len(torn.tears) <= MAX_SYMBOLIC_LINEAR_LOOP:
            # a small loop solved symbolically when it is linear (a larger loop's Jacobian is
            # not built here: the run layer differentiates the compiled residuals when it
            # needs to, and a 200-tear loop's costs a second)
            local = ca.SX.sym("tear", len(torn.tears))
            tr1 = Translator(ChainMap({s: local[i] for i, s in enumerate(tear_syms)}, values))
            # assigned variables inside the loop, expressed in the tear variables
            for v, _, expr in torn.assignments:
                tr1.symbol_map.maps[0][system.symbols[v]] = tr1(expr)
            res = ca.vertcat(*[tr1(system.residuals[e]) for e in torn.residual_eqs])
            jac = ca.jacobian(res, local)
            if not ca.depends_on(jac, local):
                b = ca.substitute(res, local, ca.DM.zeros(len(torn.tears)))
                solved = ca.solve(jac, -b) if len(torn.tears) > 1 else -b / jac
        if solved is not None:
            tear_values = [solved[i] for i in range(len(torn.tears))]
        else:
            tear_values = []
            for v in torn.tears:
                zi = ca.SX.sym(system.name(v))
                z_syms.append(zi)
                algebraics.append(v)
                tear_values.append(zi)
        tr2 = Translator(ChainMap({s: tear_values[i] for i, s in enumerate(tear_syms)}, values))
        for s, val in zip(tear_syms, tear_values):
            values[s] = val
        for v, _, expr in torn.assignments:
            values[system.symbols[v]] = tr2(expr)
            tr2.symbol_map.maps[0][system.symbols[v]] = values[system.symbols[v]]
        if solved is None:
            alg_res.extend(tr2(system.residuals[e]) for e in torn.residual_eqs)
            alg_labels.extend(system.describe_eq(e) for e in torn.residual_eqs)
    z = ca.vertcat(*z_syms) if z_syms else ca.SX(0, 1)
    ode = ca.vertcat(*[values[system.symbols[system.var_to_diff[v]]] for v in states]) \
        if states else ca.SX(0, 1)
    alg = ca.vertcat(*alg_res) if alg_res else ca.SX(0, 1)
    observed = ca.vertcat(*[values[s] for s in system.symbols])

    compiled = cls(
        model_name=flat.model_name, flat=flat, system=system, aliases=aliases, dummies=dummies,
        states=states, algebraics=algebraics, t=t, x=x, z=z, p=p, ode=ode, alg=alg,
        observed=observed, parameter_names=[prm.name for prm in flat.parameters],
        parameter_values=np.array([float(prm.value) for prm in flat.parameters], dtype=float))
    compiled.algebraic_equations = alg_labels
    compiled.initial_residuals = initial_residuals(flat, system, aliases, values,
                                                   time_derivative(t, x, z, ode, alg))
    compiled.events = compile_events(flat, system, aliases, values, states, x, p)
    return compiled


