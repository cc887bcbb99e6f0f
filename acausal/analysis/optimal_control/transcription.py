"""Direct collocation of the compiler's index-1 system.

The compiled model is ``der(x) = f(t, x, z, p)``, ``0 = g(t, x, z, p)`` (index reduction and
tearing done by the compiler; ``z`` are the tear variables of its algebraic loops). On each
element ``k`` of the mesh, of length ``h_k = frac_k (t_end - t_start)``, the unknowns are the
states at the element's start and at its ``d`` collocation points and the algebraic variables
at the collocation points (:mod:`.collocation` for the coefficients)::

    sum_r C[r, j] X_kr - h_k f(t_kj, X_kj, Z_kj, p_kj) = 0      j = 1 .. d (scaled by nominal x)
    g(t_kj, X_kj, Z_kj, p_kj) = 0
    X_{k+1,0} - sum_r D[r] X_kr = 0                               (continuity)

where ``p_kj`` is the parameter vector with the controls' values at the point and the design
parameters in place. The start conditions are the model's initialisation rows (:mod:`.start`)
at ``(t_start, X_00, Z_start)``; path constraints hold at the start and at every collocation
point (a bound on a state or on a tear variable becomes a bound of the NLP's variables); the
objective is the Mayer term at the end plus the Lagrange term by the collocation quadrature
``sum_k h_k sum_j B[j] L(t_kj, ...)``. Variables are scaled by their nominal values (the
model's ``nominal`` attributes, else 1): the NLP works with ``x / nominal``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .collocation import Scheme
from .problem import Condition, FreeTime, Problem
from .start import StartRows


@dataclass
class Variables:
    """The NLP's unknowns, allocated block by block (scaled: actual = nominal * symbol)."""

    symbols: list = field(default_factory=list)
    lower: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    nominal: list = field(default_factory=list)
    size: int = 0
    kind: type = ca.SX  # MX for multiple shooting (integrators are MX functions)

    def add(self, name: str, n: int, lower, upper, nominal) -> tuple[ca.SX, np.ndarray]:
        """``n`` unknowns; returns (their actual values as SX, their indices in w)."""
        sym = self.kind.sym(name, n)
        nom = np.broadcast_to(np.asarray(nominal, float), (n,)).copy()
        self.symbols.append(sym)
        self.lower.append(np.broadcast_to(np.asarray(lower, float), (n,)) / nom)
        self.upper.append(np.broadcast_to(np.asarray(upper, float), (n,)) / nom)
        self.nominal.append(nom)
        index = np.arange(self.size, self.size + n)
        self.size += n
        return sym * ca.DM(nom) if n else sym, index


@dataclass
class Rows:
    """The NLP's constraints ``lower <= g <= upper``, with a label per row."""

    exprs: list = field(default_factory=list)
    lower: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    labels: list = field(default_factory=list)

    def add(self, expr, lower, upper, labels) -> None:
        if not isinstance(expr, (ca.SX, ca.MX)):
            expr = ca.SX(expr)
        n = expr.numel()
        if not n:
            return
        self.exprs.append(ca.vec(expr))
        self.lower.append(np.broadcast_to(np.asarray(lower, float), (n,)))
        self.upper.append(np.broadcast_to(np.asarray(upper, float), (n,)))
        if isinstance(labels, str):
            labels = [labels] * n
        self.labels.extend(labels)


@dataclass
class Layout:
    """Where each unknown sits in the NLP's vector, and the time of its point."""

    scheme: Scheme
    frac: np.ndarray  # relative element lengths (sum 1)
    x_index: np.ndarray  # (points, nx): start, then per element its collocation points and end
    x_where: np.ndarray  # (points,): relative time in [0, 1] of each row of x_index
    z_index: np.ndarray  # (points, nz): start, collocation points (and the end, Legendre)
    z_where: np.ndarray
    u_index: dict = field(default_factory=dict)  # control name -> (indices, relative times)
    design_index: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    q_index: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    t_end_index: int | None = None
    x_end_index: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    # the element ends' states that are not on the result's mesh (Radau: equal to the last
    # collocation point's by continuity): (points, nx) and their relative times, for guesses
    x_extra_index: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), int))
    x_extra_where: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # per element: the indices of X_k0 .. X_kd (n_el, d+1, nx) and Z_k1 .. Z_kd (n_el, d, nz)
    x_elements: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), int))
    z_elements: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), int))


@dataclass
class Nlp:
    w: ca.SX
    lbw: np.ndarray
    ubw: np.ndarray
    nominal: np.ndarray
    g: ca.SX
    lbg: np.ndarray
    ubg: np.ndarray
    labels: list[str]
    f: ca.SX
    theta: ca.SX  # NLP parameters: t_start, then (MPC) the measured states
    layout: Layout


def control_values(problem: Problem, scheme: Scheme, u_syms: dict, k: int,
                   j: int | None, tau: float | None = None) -> dict:
    """Each control's value at collocation point ``j`` (1-based) of element ``k``, or at the
    relative position ``tau`` in the element (then ``j`` is None)."""
    out = {}
    for c in problem.controls:
        u = u_syms[c.name]
        if c.kind == "constant":
            out[c.name] = u[k]
        elif j is not None:
            out[c.name] = u[k * scheme.degree + j - 1]
        else:
            w = scheme.point_weights(tau)
            out[c.name] = sum(float(w[i]) * u[k * scheme.degree + i]
                              for i in range(scheme.degree))
    return out


def transcribe(problem: Problem, start: StartRows | None, frac: np.ndarray,
               scheme: Scheme, parametric_start: bool = False,
               horizon: float | None = None) -> Nlp:
    """The NLP of ``problem`` on the mesh ``frac`` (relative element lengths, sum 1).

    ``parametric_start``: the start is the NLP parameter ``theta[1:]`` (the measured states of
    an MPC) instead of the model's start rows; ``horizon``: the horizon's length when the start
    time is a parameter (MPC)."""
    cs = problem.model
    nx, nz = cs.x.numel(), cs.z.numel()
    n_el, d = len(frac), scheme.degree
    var, rows = Variables(), Rows()
    theta = ca.SX.sym("theta", 1 + (nx if parametric_start else 0))
    t0 = theta[0]
    nom_x = np.array([nominal_of(cs, v) for v in cs.states])
    nom_z = np.array([nominal_of(cs, v) for v in cs.algebraics])
    layout = Layout(scheme, frac, np.zeros((0, nx), int), np.zeros(0), np.zeros((0, nz), int),
                    np.zeros(0))

    # end time and the elements' lengths
    if isinstance(problem.t_end, FreeTime):
        ft = problem.t_end
        t_end, idx = var.add("t_end", 1, ft.lower, ft.upper, max(abs(ft.guess), 1e-3))
        layout.t_end_index = int(idx[0])
        length = t_end - t0
    else:
        length = horizon if horizon is not None else problem.t_end - problem.t_start
        t_end = t0 + length
    starts = np.concatenate([[0.0], np.cumsum(frac)[:-1]])

    # design parameters, computed parameters, controls
    design, idx = var.add("design", len(problem.design), [c.lower for c in problem.design],
                          [c.upper for c in problem.design],
                          [c.nominal for c in problem.design] or 1.0)
    layout.design_index = idx
    computed = start.computed if start is not None else []
    q, layout.q_index = var.add("computed", len(computed), -math.inf, math.inf, 1.0)
    u_syms = {}
    for c in problem.controls:
        n = n_el if c.kind == "constant" else n_el * d
        u_syms[c.name], idx = var.add(c.name, n, c.lower, c.upper, c.nominal)
        where = (starts + 0.5 * frac if c.kind == "constant" else
                 (starts[:, None] + frac[:, None] * scheme.tau[None, 1:]).ravel())
        layout.u_index[c.name] = (idx, where)

    base = ca.SX(ca.DM(problem.p))

    def p_at(values: dict) -> ca.SX:
        pp = ca.SX(base)
        for c in problem.controls:
            pp[c.index] = values[c.name]
        for i, c in enumerate(problem.design):
            pp[c.index] = design[i]
        for i, k in enumerate(computed):
            pp[k] = q[i]
        return pp

    # the model's functions and the problem's expressions, each a CasADi Function of (t,x,z,p)
    names = problem.names
    dae = ca.Function("dae", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg])
    x_bounds, z_bounds, general = split_path(problem, cs)
    path_f = expressions_function(names, [c.expr for c in general])
    lagrange_f = expressions_function(names, [problem.lagrange]
                                      if problem.lagrange is not None else [])
    mayer_f = expressions_function(names, [problem.mayer] if problem.mayer is not None else [])
    end_f = expressions_function(names, [c.expr for c in problem.end_conditions])
    start_free = [c for c in problem.start_free]
    start_f = expressions_function(names, [c.expr for c in start_free])
    soft = [i for i, c in enumerate(general) if c.label in problem.soft]
    objective = 0

    def path_rows(t, x, z, p, when: str) -> None:
        nonlocal objective
        if not general:
            return
        values = path_f(t, x, z, p)
        for i, c in enumerate(general):
            if i in soft:
                # a slack s >= 0 per point: lower - s <= value <= upper + s, penalty * s^2
                s, _ = var.add(f"slack {c.label}", 1, 0.0, math.inf, 1.0)
                rows.add(values[i] + s, c.lower, math.inf, f"{c.label} >= {c.lower:g} {when}")
                rows.add(values[i] - s, -math.inf, c.upper, f"{c.label} <= {c.upper:g} {when}")
                objective += problem.soft[c.label].penalty * s * s
            else:
                rows.add(values[i], c.lower, c.upper, f"path {c.label} in [{c.lower:g}, "
                         f"{c.upper:g}] {when}")

    x_lo, x_hi = x_bounds
    z_lo, z_hi = z_bounds
    state_names = cs.state_names
    x_rows, x_where, z_rows, z_where = [], [], [], []
    x_extra, x_extra_where = [], []

    # the start
    lo0, hi0 = x_lo.copy(), x_hi.copy()
    if parametric_start:
        lo0[:], hi0[:] = -math.inf, math.inf
    for c in start_free:  # a free start of a state: bounds of its variable
        if c.name is not None:
            sign, v = cs.locate(c.name)
            if v in cs.states:
                i = cs.states.index(v)
                a, b = sorted((sign * c.lower, sign * c.upper))
                lo0[i], hi0[i] = max(lo0[i], a), min(hi0[i], b)
    x_start, idx = var.add("x_start", nx, lo0, hi0, nom_x)
    x_rows.append(idx)
    x_where.append(0.0)
    z_start, idx = var.add("z_start", nz, z_lo, z_hi, nom_z)
    z_rows.append(idx)
    z_where.append(0.0)
    u0 = control_values(problem, scheme, u_syms, 0, None, 0.0)
    p0 = p_at(u0)
    if parametric_start:
        rows.add((x_start - theta[1:]) / ca.DM(nom_x), 0.0, 0.0,
                 [f"measured start of {n}" for n in state_names])
        rows.add(dae(t0, x_start, z_start, p0)[1], 0.0, 0.0,
                 [f"{e} at the start" for e in cs.algebraic_equations])
    else:
        w0 = ca.vertcat(x_start, z_start, q)
        rows.add(start.function(t0, w0, p0, ca.DM(start.s)), 0.0, 0.0,
                 [f"start: {label}" for label in start.labels])
        if start_free:
            values = start_f(t0, x_start, z_start, p0)
            for i, c in enumerate(start_free):
                if c.name is None or cs.locate(c.name)[1] not in cs.states:
                    rows.add(values[i], c.lower, c.upper, f"start of {c.label} in "
                             f"[{c.lower:g}, {c.upper:g}]")
    path_rows(t0, x_start, z_start, p0, "at the start")

    # the elements
    x_k, x_k_index = x_start, x_rows[0]
    z_last = z_start
    x_elements, z_elements = [], []
    for k in range(n_el):
        h = frac[k] * length
        xs, zs = [x_k], []
        element_x, element_z = [x_k_index], []
        for j in range(1, d + 1):
            xj, idx = var.add(f"x[{k},{j}]", nx, x_lo, x_hi, nom_x)
            xs.append(xj)
            x_rows.append(idx)
            element_x.append(idx)
            x_where.append(starts[k] + frac[k] * scheme.tau[j])
            zj, idx = var.add(f"z[{k},{j}]", nz, z_lo, z_hi, nom_z)
            zs.append(zj)
            z_rows.append(idx)
            element_z.append(idx)
            z_where.append(starts[k] + frac[k] * scheme.tau[j])
        x_elements.append(element_x)
        z_elements.append(element_z)
        for j in range(1, d + 1):
            t_kj = t0 + (starts[k] + frac[k] * scheme.tau[j]) * length
            p_kj = p_at(control_values(problem, scheme, u_syms, k, j))
            ode, alg = dae(t_kj, xs[j], zs[j - 1], p_kj)
            slope = sum(float(scheme.C[r, j]) * xs[r] for r in range(d + 1))
            rows.add((slope - h * ode) / ca.DM(nom_x), 0.0, 0.0,
                     [f"collocation of {n} in element {k}, point {j}" for n in state_names])
            rows.add(alg, 0.0, 0.0, [f"{e} in element {k}, point {j}"
                                     for e in cs.algebraic_equations])
            when = f"in element {k}, point {j}"
            path_rows(t_kj, xs[j], zs[j - 1], p_kj, when)
            if problem.lagrange is not None:
                objective += float(scheme.B[j]) * h * lagrange_f(t_kj, xs[j], zs[j - 1],
                                                                 p_kj)[0]
        end = sum(float(scheme.D[r]) * xs[r] for r in range(d + 1))
        x_k, idx = var.add(f"x[{k + 1},0]", nx, x_lo, x_hi, nom_x)
        x_k_index = idx
        rows.add((x_k - end) / ca.DM(nom_x), 0.0, 0.0,
                 [f"continuity of {n} at the end of element {k}" for n in state_names])
        if not scheme.ends_on_point and k == n_el - 1:  # Legendre: the end is a mesh point
            x_rows.append(idx)
            x_where.append(starts[k] + frac[k])
        else:
            x_extra.append(idx)
            x_extra_where.append(starts[k] + frac[k])
        z_last = zs[-1]
    rate_rows(problem, scheme, u_syms, frac, length, rows)

    # the end
    u_end = control_values(problem, scheme, u_syms, n_el - 1, None, 1.0)
    p_end = p_at(u_end)
    if scheme.ends_on_point:
        z_end = z_last
    else:
        z_end, idx = var.add("z_end", nz, z_lo, z_hi, nom_z)
        rows.add(dae(t_end, x_k, z_end, p_end)[1], 0.0, 0.0,
                 [f"{e} at the end" for e in cs.algebraic_equations])
        z_rows.append(idx)
        z_where.append(1.0)
    if problem.end_conditions:
        values = end_f(t_end, x_k, z_end, p_end)
        for i, c in enumerate(problem.end_conditions):
            rows.add(values[i], c.lower, c.upper,
                     f"end {c.label} in [{c.lower:g}, {c.upper:g}]"
                     if c.lower != c.upper else f"end {c.label} = {c.lower:g}")
    if problem.mayer is not None:
        objective += mayer_f(t_end, x_k, z_end, p_end)[0]

    layout.x_index = np.array(x_rows, int).reshape(len(x_rows), nx)
    layout.x_where = np.array(x_where)
    layout.z_index = np.array(z_rows, int).reshape(len(z_rows), nz)
    layout.x_extra_index = np.array(x_extra, int).reshape(len(x_extra), nx)
    layout.x_extra_where = np.array(x_extra_where)
    layout.x_elements = np.array(x_elements, int).reshape(n_el, d + 1, nx)
    layout.z_elements = np.array(z_elements, int).reshape(n_el, d, nz)
    layout.x_end_index = x_k_index
    layout.z_where = np.array(z_where)
    return Nlp(ca.vertcat(*var.symbols), np.concatenate(var.lower), np.concatenate(var.upper),
               np.concatenate(var.nominal), ca.vertcat(*rows.exprs) if rows.exprs
               else ca.SX(0, 1), np.concatenate(rows.lower) if rows.lower else np.zeros(0),
               np.concatenate(rows.upper) if rows.upper else np.zeros(0), rows.labels,
               ca.SX(objective), theta, layout)


def nominal_of(cs, v: int) -> float:
    info = cs.system.info[v]
    nominal = getattr(info, "nominal", None) if info is not None else None
    return float(abs(nominal)) if nominal else 1.0


def expressions_function(names, exprs: list) -> ca.Function:
    cs = names.cs
    out = [names.to_sx(e) for e in exprs]
    return ca.Function("expressions", [cs.t, cs.x, cs.z, cs.p],
                       [ca.vertcat(*out) if out else ca.SX(0, 1)])


def split_path(problem: Problem, cs):
    """Path conditions on one state or tear variable alone become bounds of the NLP's
    variables; the others are constraint rows. Returns ((x_lo, x_hi), (z_lo, z_hi), rows)."""
    nx, nz = cs.x.numel(), cs.z.numel()
    x_lo, x_hi = np.full(nx, -math.inf), np.full(nx, math.inf)
    z_lo, z_hi = np.full(nz, -math.inf), np.full(nz, math.inf)
    state_pos = {v: i for i, v in enumerate(cs.states)}
    alg_pos = {v: i for i, v in enumerate(cs.algebraics)}
    general: list[Condition] = []
    for c in problem.path_conditions:
        if c.name is not None and c.label not in problem.soft and \
                c.name not in cs.parameter_index():
            sign, v = cs.locate(c.name)
            a, b = sorted((sign * c.lower, sign * c.upper))
            if v in state_pos:
                i = state_pos[v]
                x_lo[i], x_hi[i] = max(x_lo[i], a), min(x_hi[i], b)
                continue
            if v in alg_pos:
                i = alg_pos[v]
                z_lo[i], z_hi[i] = max(z_lo[i], a), min(z_hi[i], b)
                continue
        general.append(c)
    return (x_lo, x_hi), (z_lo, z_hi), general


def rate_rows(problem, scheme: Scheme, u_syms: dict, frac, length, rows: Rows) -> None:
    """Rate bounds: a constant control's change to the next element over the element's
    length; a collocated control's derivative at its points and its jump to the next element
    over the element's length."""
    n_el, d = len(frac), scheme.degree
    dw = scheme.point_derivative_weights()
    for c in problem.controls:
        if c.rate is None:
            continue
        lo, hi = c.rate
        u = u_syms[c.name]
        for k in range(n_el):
            h = frac[k] * length
            if c.kind == "constant":
                if k + 1 < n_el:
                    rows.add((u[k + 1] - u[k]) / h, lo, hi,
                             f"rate of {c.name} from element {k} to {k + 1}")
                continue
            for i in range(d):
                rate = sum(float(dw[i, r]) * u[k * d + r] for r in range(d)) / h
                rows.add(rate, lo, hi, f"rate of {c.name} in element {k}, point {i + 1}")
            if k + 1 < n_el:
                w1, w0 = scheme.point_weights(1.0), scheme.point_weights(0.0)
                jump = sum(float(w0[r]) * u[(k + 1) * d + r] - float(w1[r]) * u[k * d + r]
                           for r in range(d))
                rows.add(jump / h, lo, hi, f"rate of {c.name} from element {k} to {k + 1}")
