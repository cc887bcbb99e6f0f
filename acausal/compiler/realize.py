"""One realisation: sort and tear the index-reduced system for a choice of dummy derivatives
and generate its CasADi SX expressions.

The generated system is ``der(x) = f(t, x, z, p)``, ``0 = g(t, x, z, p)`` where ``x`` are the
selected states, ``z`` the tear variables of nonlinear (or large linear) algebraic loops (empty
for an ODE), and ``p`` every numeric parameter, so that changing a parameter never recompiles.
Every other variable is an observed expression of ``(t, x, z, p)``.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import casadi as ca
import numpy as np
import sympy as sp

from ..language.symbolic import time
from .codegen import Translator
from .events import compile_events, initial_residuals, time_derivative
from .flatten import FlatSystem
from .linear_elimination import SAMPLES, EliminationReport, eliminate
from .structure.alias import AliasMap
from .structure.blt import blt, tear_block
from .structure.dummy_derivatives import states_after_selection
from .structure.system import EquationSystem

if TYPE_CHECKING:
    from .compiled_model import CompiledModel

#: Largest linear algebraic loop (in tear variables) solved symbolically by a dense QR; larger
#: ones are eliminated in the order of their own sparsity (linear_elimination.py).
MAX_SYMBOLIC_LINEAR_LOOP = 12
#: Larger linear loops are eliminated in the order of their sparsity (False: their tear
#: variables stay algebraic variables z, solved by a numeric LU at run time; for comparisons).
ELIMINATE_LINEAR_BLOCKS = True
#: Seed of the random sample points at which the elimination checks its pivots (a fixed seed:
#: the same model always compiles to the same code).
SAMPLE_SEED = 20261129


@contextmanager
def torn_linear_loops() -> Iterator[None]:
    """Compile with large linear loops left to the run's numeric LU (``z`` algebraic variables,
    as before the sparse elimination): for comparisons and for the tests of that path."""
    global ELIMINATE_LINEAR_BLOCKS
    before = ELIMINATE_LINEAR_BLOCKS
    ELIMINATE_LINEAR_BLOCKS = False
    try:
        yield
    finally:
        ELIMINATE_LINEAR_BLOCKS = before


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
    # the elements split off at once: indexing p[i] one by one costs about 3 us each
    values.update(zip([prm.symbol for prm in flat.parameters], _elements(p)))
    values.update(zip([system.symbols[v] for v in states], _elements(x)))
    z_syms: list[ca.SX] = []
    algebraics: list[int] = []
    alg_res: list[ca.SX] = []
    alg_labels: list[str] = []
    global_tr = Translator(values)
    reports: list[EliminationReport] = []
    samples = None  # made for the first large linear block (its draws are seeded)
    symbols = system.symbols
    for block in blocks:
        torn = tear_block(system, block)
        if not torn.tears:
            for v, _, expr in torn.assignments:
                values[symbols[v]] = global_tr(expr)
            continue
        if len(torn.tears) > MAX_SYMBOLIC_LINEAR_LOOP and ELIMINATE_LINEAR_BLOCKS:
            if samples is None:
                samples = _Samples(flat, system, states, t, x, p)
            eliminated = _eliminate_linear_block(system, block, values, samples, z_syms,
                                                  algebraics, len(torn.tears))
            if eliminated is not None:
                solution, remainder, report = eliminated
                reports.append(report)
                for v, value in solution.items():
                    values[system.symbols[v]] = value
                for v, zi, residual, e in remainder:
                    z_syms.append(zi)
                    algebraics.append(v)
                    alg_res.append(residual)
                    alg_labels.append(system.describe_eq(e))
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
    compiled.linear_eliminations = reports
    compiled.initial_residuals = initial_residuals(flat, system, aliases, values,
                                                   time_derivative(t, x, z, ode, alg))
    compiled.events = compile_events(flat, system, aliases, values, states, x, p)
    return compiled


def _elements(column: ca.SX) -> list:
    """The elements of an SX column, each a 1x1 SX."""
    return ca.vertsplit(column) if column.numel() else []


class _Samples:
    """Points (time, states, earlier unknowns, parameters) at which an elimination checks its
    pivots: the start point itself (often a special configuration: every angle 0) and
    ``SAMPLES - 1`` random points with the states and unknowns spread by pi (1 + |start|) around
    their start values (every angle of a mechanism), the parameters by 20 % around theirs (a
    zero parameter anywhere in [-1, 1]: a damping of 0 now may be set later, and parameters
    change without recompiling)."""

    def __init__(self, flat: FlatSystem, system: EquationSystem, states: list[int],
                 t: ca.SX, x: ca.SX, p: ca.SX) -> None:
        self.rng = np.random.default_rng(SAMPLE_SEED)
        self.t, self.x, self.p = t, x, p
        self.x_points = self._around([_start(system, v) for v in states])
        values = np.array([float(prm.value) for prm in flat.parameters], dtype=float)
        spread = np.where(values != 0.0, 0.2 * np.abs(values), 1.0)
        self.p_points = values[:, None] + spread[:, None] * self.rng.uniform(
            -1.0, 1.0, (values.size, SAMPLES))
        self.p_points[:, 0] = values
        self.t_points = self.rng.uniform(0.0, 1.0, SAMPLES)
        self.t_points[0] = 0.0
        self.discrete = ca.vertcat(*[p[i] for i, prm in enumerate(flat.parameters)
                                     if getattr(prm, "discrete", False)]) \
            if any(getattr(prm, "discrete", False) for prm in flat.parameters) else ca.SX(0, 1)
        self.z_points: list[np.ndarray] = []  # one row per earlier unknown z

    def _around(self, starts: list[float]) -> np.ndarray:
        base = np.array(starts, dtype=float).reshape(-1, 1)
        points = base + np.pi * (1.0 + np.abs(base)) * self.rng.uniform(
            -1.0, 1.0, (base.shape[0], SAMPLES))
        points[:, 0] = base[:, 0]
        return points

    def values_of(self, exprs: ca.SX, z: list[ca.SX], z_starts: list[float]) -> np.ndarray:
        """``exprs`` (a column) at every sample point, one column per point."""
        while len(self.z_points) < len(z):
            self.z_points.append(self._around([z_starts[len(self.z_points)]])[0])
        zs = ca.vertcat(*z) if z else ca.SX(0, 1)
        f = ca.Function("samples", [self.t, self.x, zs, self.p], [exprs])
        z_values = np.array(self.z_points[:len(z)]).reshape(len(z), SAMPLES)
        with np.errstate(all="ignore"):
            out = [np.array(f(self.t_points[k], self.x_points[:, k], z_values[:, k],
                              self.p_points[:, k])).ravel() for k in range(SAMPLES)]
        return np.column_stack(out) if out else np.zeros((0, SAMPLES))


def _start(system: EquationSystem, v: int) -> float:
    info = system.info[v]
    value = None if info is None else (info.guess if info.guess is not None else info.start)
    try:
        return float(value) if value is not None else 0.0
    except (TypeError, ValueError):
        return 0.0


def _owner(system: EquationSystem, v: int) -> str:
    """The path of the component that owns variable ``v`` (a connector's variables: the
    component the connector belongs to)."""
    info = system.info[system.base_var(v)]
    if info is None:
        return ""
    origin = info.origin or ""
    if info.kind in ("potential", "flow") and "." in origin:
        return origin.rsplit(".", 1)[0]
    return origin


def _eliminate_linear_block(system: EquationSystem, block, values: dict, samples: _Samples,
                            z_syms: list, z_vars: list[int], n_tears: int):
    """A block whose equations are linear in its unknowns, eliminated in its own sparsity's
    order (:mod:`.linear_elimination`): ``(solution, remainder, report)`` with the unknowns'
    values (SX, by variable index) and, for a remainder too large for a symbolic solve, its
    unknowns as algebraic variables ``(var, z symbol, residual, equation)``; None when the
    block is not linear, or when the remainder is larger than the ``n_tears`` tear variables
    of the torn block (then tearing leaves less to the numeric solve)."""
    n = len(block.vars)
    u = ca.SX.sym("u", n)
    syms = [system.symbols[v] for v in block.vars]
    tr = Translator(ChainMap({s: u[k] for k, s in enumerate(syms)}, values))
    res = ca.vertcat(*[tr(system.residuals[e]) for e in block.eqs])
    a = ca.jacobian(res, u)
    if ca.depends_on(a, u):
        return None
    b = ca.substitute(res, u, ca.DM.zeros(n))
    z_starts = [_start(system, v) for v in z_vars]
    varying = ca.vertcat(samples.t, samples.x, *z_syms)
    nz = ca.vertcat(*a.nonzeros()) if a.nnz() else ca.SX(0, 1)
    points = samples.values_of(nz, z_syms, z_starts)
    elimination = eliminate(a, b, points, varying, samples.discrete,
                            [system.name(v) for v in block.vars],
                            [_owner(system, v) for v in block.vars])
    k = len(elimination.remainder_cols)
    if k > n_tears:
        return None
    remainder = []
    if k == 0:
        rem_values: list = []
    elif k <= MAX_SYMBOLIC_LINEAR_LOOP:
        solved = ca.solve(elimination.remainder_a, -elimination.remainder_b)
        rem_values = [solved[i] for i in range(k)]
    else:
        rem_values = [ca.SX.sym(system.name(block.vars[j])) for j in elimination.remainder_cols]
        residual = ca.mtimes(elimination.remainder_a, ca.vertcat(*rem_values)) \
            + elimination.remainder_b
        remainder = [(block.vars[j], rem_values[q], residual[q], block.eqs[i])
                     for q, (j, i) in enumerate(zip(elimination.remainder_cols,
                                                    elimination.remainder_rows))]
    solution = elimination.solve(rem_values)
    return ({block.vars[j]: value for j, value in solution.items()}, remainder,
            elimination.report)

