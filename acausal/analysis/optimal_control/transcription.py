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

How it is built, for a build time linear in the mesh: the model's equations, the path
constraints and the Lagrange integrand at one point are one CasADi function, *mapped* over all
collocation points at once (``Function.map``); the sums over an element's points (the
collocation slopes, the continuity, the quadrature) are products with sparse constant
matrices. CasADi then differentiates one point's function, not a graph with a copy per point
(whose Jacobian and Hessian sparsity cost more than linear time: 6 to 12 ms per element from
25 to 800 elements of the cart-pole, against a constant here).
"""

from __future__ import annotations

import math

import casadi as ca
import numpy as np

from .collocation import Scheme
from .nlp import (
    Layout,
    Nlp,
    Rows,
    Variables,
    assemble,
    constant_unknowns,
    expressions_function,
    horizon,
    nominal_of,
    parameters_of,
    split_path,
    start_state_bounds,
)
from .problem import Problem
from .start import StartRows


def point_function(problem: Problem, path_exprs: list, computed: list[int]) -> ca.Function:
    """``(t, x, z, u, design, q) -> (f, g, path, L)`` at one point: the model's right-hand side
    and algebraic residuals, the path expressions and the Lagrange integrand, with the controls
    ``u``, design parameters and computed parameters ``q`` in their places of ``p``."""
    cs = problem.model
    t = ca.SX.sym("t")
    x, z = ca.SX.sym("x", cs.x.numel()), ca.SX.sym("z", cs.z.numel())
    u = ca.SX.sym("u", len(problem.controls))
    design = ca.SX.sym("design", len(problem.design))
    q = ca.SX.sym("q", len(computed))
    p = parameters_of(problem, u, design, q, computed)
    dae = ca.Function("dae", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg])
    ode, alg = dae(t, x, z, p)
    path = expressions_function(problem.names, path_exprs)(t, x, z, p)
    lagrange = (expressions_function(problem.names, [problem.lagrange])(t, x, z, p)
                if problem.lagrange is not None else ca.SX(0.0))
    return ca.Function("point", [t, x, z, u, design, q], [ode, alg, path, lagrange],
                       ["t", "x", "z", "u", "design", "q"], ["f", "g", "path", "L"])


def _sparse(n_rows: int, n_cols: int, rows, cols, values) -> ca.DM:
    """A sparse constant matrix from (row, column, value) triplets, in any order."""
    return ca.DM.triplet(list(map(int, rows)), list(map(int, cols)),
                         [float(v) for v in values], n_rows, n_cols)


def _element_matrices(scheme: Scheme, n_el: int):
    """Sparse matrices of the sums over an element's points:

    * ``A0`` (N, M), ``Ac`` (M, M): slopes ``X_start A0 + X_col Ac`` at every collocation point;
    * ``D0`` (N, N), ``Dc`` (M, N): the element ends ``X_start D0 + X_col Dc``;
    * ``E`` (N, M): a per-element row repeated at its points (``U E``).
    """
    d = scheme.degree
    m = n_el * d
    k = np.repeat(np.arange(n_el), d)  # element of each point
    j = np.tile(np.arange(1, d + 1), n_el)  # its point number
    cols = np.arange(m)
    a0 = _sparse(n_el, m, k, cols, scheme.C[0, j])
    r_idx, c_idx, vals = [], [], []
    for r in range(1, d + 1):
        r_idx.append(k * d + r - 1)
        c_idx.append(cols)
        vals.append(scheme.C[r, j])
    ac = _sparse(m, m, np.concatenate(r_idx), np.concatenate(c_idx), np.concatenate(vals))
    d0 = _sparse(n_el, n_el, np.arange(n_el), np.arange(n_el), np.full(n_el, scheme.D[0]))
    dc = _sparse(m, n_el, cols, k, scheme.D[j])
    e = _sparse(n_el, m, k, cols, np.ones(m))
    return a0, ac, d0, dc, e


def transcribe(problem: Problem, start: StartRows | None, frac: np.ndarray,
               scheme: Scheme, parametric_start: bool = False,
               horizon_length: float | None = None) -> Nlp:
    """The NLP of ``problem`` on the mesh ``frac`` (relative element lengths, sum 1).

    ``parametric_start``: the start is the NLP parameter ``theta[1:]`` (the measured states of
    an MPC; no path constraints at the measured start) instead of the model's start rows;
    ``horizon_length``: the horizon's length when the start time is a parameter (MPC)."""
    cs = problem.model
    nx, nz = cs.x.numel(), cs.z.numel()
    n_el, d = len(frac), scheme.degree
    m = n_el * d
    var, rows = Variables(kind=ca.MX), Rows()
    theta = ca.MX.sym("theta", 1 + (nx if parametric_start else 0))
    t0 = theta[0]
    nom_x = np.array([nominal_of(cs, v) for v in cs.states])
    nom_z = np.array([nominal_of(cs, v) for v in cs.algebraics])
    layout = Layout(scheme, frac, np.zeros((0, nx), int), np.zeros(0), np.zeros((0, nz), int),
                    np.zeros(0))
    starts = np.concatenate([[0.0], np.cumsum(frac)[:-1]])
    k_of = np.repeat(np.arange(n_el), d)
    where = starts[k_of] + frac[k_of] * np.tile(scheme.tau[1:], n_el)  # points in [0, 1]

    # end time, design and computed parameters, controls
    t_end, length = horizon(problem, var, layout, t0, horizon_length)
    computed = start.computed if start is not None else []
    design, q = constant_unknowns(problem, var, layout, computed)
    a0, ac, d0, dc, e = _element_matrices(scheme, n_el)
    u_points, u_start, u_end, u_syms = [], [], [], {}
    w_start, w_end = scheme.point_weights(0.0), scheme.point_weights(1.0)
    for c in problem.controls:
        n = n_el if c.kind == "constant" else m
        u, idx = var.add(c.name, n, c.lower, c.upper, c.nominal)
        u_syms[c.name] = u
        if c.kind == "constant":
            layout.u_index[c.name] = (idx, starts + 0.5 * frac)
            u_points.append(ca.mtimes(u.T, e))
            u_start.append(u[0])
            u_end.append(u[n_el - 1])
        else:
            layout.u_index[c.name] = (idx, where)
            u_points.append(u.T)
            u_start.append(ca.dot(ca.DM(w_start), u[0:d]))
            u_end.append(ca.dot(ca.DM(w_end), u[m - d:m]))
    u_points = ca.vertcat(*u_points) if u_points else ca.MX(0, m)
    u_start = ca.vertcat(*u_start) if u_start else ca.MX(0, 1)
    u_end = ca.vertcat(*u_end) if u_end else ca.MX(0, 1)

    # states and algebraic variables
    (x_lo, x_hi), (z_lo, z_hi), general = split_path(problem, cs)
    lo0, hi0 = start_state_bounds(problem, x_lo, x_hi)
    if parametric_start:  # measured: whatever it is
        lo0[:], hi0[:] = -math.inf, math.inf
    x_start, xs_idx = var.add("x_start", nx, lo0, hi0, nom_x)
    x_ends, xe_idx = var.add("x_element_ends", nx * n_el, np.tile(x_lo, n_el),
                             np.tile(x_hi, n_el), np.tile(nom_x, n_el))
    x_col, xc_idx = var.add("x_collocation", nx * m, np.tile(x_lo, m), np.tile(x_hi, m),
                            np.tile(nom_x, m))
    z_col, zc_idx = var.add("z_collocation", nz * m, np.tile(z_lo, m), np.tile(z_hi, m),
                            np.tile(nom_z, m))
    z_start, zs_idx = var.add("z_start", nz, z_lo, z_hi, nom_z)
    xe_idx, xc_idx = xe_idx.reshape(n_el, nx), xc_idx.reshape(m, nx)
    zc_idx = zc_idx.reshape(m, nz)
    X_ends = ca.reshape(x_ends, nx, n_el)
    X_col = ca.reshape(x_col, nx, m)
    Z_col = ca.reshape(z_col, nz, m)
    X_starts = ca.horzcat(x_start, X_ends[:, :n_el - 1]) if n_el > 1 else x_start
    state_names = cs.state_names

    # the model at every collocation point, at once
    point = point_function(problem, [c.expr for c in general], computed)
    t_points = t0 + ca.DM(where).T * length
    f, g, path, lagrange = point.map(m)(t_points, X_col, Z_col, u_points, design, q)
    h_points = ca.DM(frac[k_of]).T * length
    inv_nom = ca.DM(1.0 / nom_x)
    slopes = ca.mtimes(X_starts, a0) + ca.mtimes(X_col, ac)
    residual = (slopes - f * ca.repmat(h_points, nx, 1)) * ca.repmat(inv_nom, 1, m)

    def point_label(what: list[str], text: str):
        n = max(len(what), 1)
        return lambda i: (f"{text} of {what[i % n]} in element {(i // n) // d}, point "
                          f"{(i // n) % d + 1}")

    rows.add(residual, 0.0, 0.0, point_label(state_names, "collocation"))
    rows.add(g, 0.0, 0.0, lambda i: (f"{cs.algebraic_equations[i % nz]} in element "
                                     f"{(i // nz) // d}, point {(i // nz) % d + 1}"))
    ends = ca.mtimes(X_starts, d0) + ca.mtimes(X_col, dc)
    rows.add((X_ends - ends) * ca.repmat(inv_nom, 1, n_el), 0.0, 0.0,
             lambda i: f"continuity of {state_names[i % nx]} at the end of element "
                       f"{i // nx}")
    objective = ca.sum2(lagrange * ca.DM(scheme.B[np.tile(np.arange(1, d + 1), n_el)]).T
                        * h_points) if problem.lagrange is not None else 0

    # path constraints at the collocation points (soft ones with a slack per point)
    if general:
        lower = np.array([c.lower for c in general])
        upper = np.array([c.upper for c in general])
        soft = np.array([c.label in problem.soft for c in general])
        labels = [c.label for c in general]
        if soft.any():
            slack, _ = var.add("slack", int(soft.sum()) * m, 0.0, math.inf, 1.0)
            slack = ca.reshape(slack, int(soft.sum()), m)
            penalty = ca.DM([problem.soft[c.label] for c in general
                             if c.label in problem.soft])
            objective += ca.sum1(ca.sum2(slack * slack) * penalty)
            slack_rows, s_i = [], 0
            for is_soft in soft:  # the slack of each soft condition, zero for a hard one
                slack_rows.append(slack[s_i, :] if is_soft else ca.MX(1, m))
                s_i += int(is_soft)
            full = ca.vertcat(*slack_rows)
            rows.add(path + full, np.tile(lower, m), math.inf,
                     point_label([f"{s} >= lower" for s in labels], "path"))
            rows.add(path - full, -math.inf, np.tile(upper, m),
                     point_label([f"{s} <= upper" for s in labels], "path"))
        else:
            rows.add(path, np.tile(lower, m), np.tile(upper, m),
                     point_label([f"{s} in [{lo:g}, {hi:g}]" for s, lo, hi in
                                  zip(labels, lower, upper)], "path"))
    _rate_rows(problem, scheme, frac, length, rows, u_syms)

    # the start
    p_start = parameters_of(problem, u_start, design, q, computed)
    if parametric_start:
        rows.add((x_start - theta[1:]) * inv_nom, 0.0, 0.0,
                 [f"measured start of {n}" for n in state_names])
        rows.add(point(t0, x_start, z_start, u_start, design, q)[1], 0.0, 0.0,
                 [f"{e} at the start" for e in cs.algebraic_equations])
    else:
        rows.add(start.function(t0, ca.vertcat(x_start, z_start, q), p_start, ca.DM(start.s)),
                 0.0, 0.0, [f"start: {label}" for label in start.labels])
        starts_free = [c for c in problem.start_free
                       if c.name is None or cs.locate(c.name)[1] not in cs.states]
        if starts_free:
            values = expressions_function(problem.names, [c.expr for c in starts_free])(
                t0, x_start, z_start, p_start)
            rows.add(values, [c.lower for c in starts_free], [c.upper for c in starts_free],
                     [f"start of {c.label} in [{c.lower:g}, {c.upper:g}]"
                      for c in starts_free])
        hard = [c for c in general if c.label not in problem.soft]
        if hard:
            values = expressions_function(problem.names, [c.expr for c in hard])(
                t0, x_start, z_start, p_start)
            rows.add(values, [c.lower for c in hard], [c.upper for c in hard],
                     [f"path {c.label} in [{c.lower:g}, {c.upper:g}] at the start"
                      for c in hard])

    # the end
    x_end = X_ends[:, n_el - 1]
    p_end = parameters_of(problem, u_end, design, q, computed)
    if scheme.ends_on_point:
        z_end = Z_col[:, m - 1]
    else:
        z_end, ze_idx = var.add("z_end", nz, z_lo, z_hi, nom_z)
        rows.add(point(t_end, x_end, z_end, u_end, design, q)[1], 0.0, 0.0,
                 [f"{e} at the end" for e in cs.algebraic_equations])
    if problem.end_conditions:
        values = expressions_function(problem.names, [c.expr for c in problem.end_conditions])(
            t_end, x_end, z_end, p_end)
        rows.add(values, [c.lower for c in problem.end_conditions],
                 [c.upper for c in problem.end_conditions],
                 [f"end {c.label} = {c.lower:g}" if c.lower == c.upper else
                  f"end {c.label} in [{c.lower:g}, {c.upper:g}]"
                  for c in problem.end_conditions])
    if problem.mayer is not None:
        objective += expressions_function(problem.names, [problem.mayer])(
            t_end, x_end, z_end, p_end)[0]

    # where everything sits: the result's mesh is the start, the collocation points (Radau:
    # the last is the element's end) and, for Legendre, the end
    x_rows = [xs_idx[None, :], xc_idx]
    x_where = [np.zeros(1), where]
    z_rows = [zs_idx[None, :], zc_idx]
    z_where = [np.zeros(1), where]
    ends_where = starts + frac
    if scheme.ends_on_point:
        layout.x_extra_index, layout.x_extra_where = xe_idx, ends_where
    else:
        x_rows.append(xe_idx[-1:])
        x_where.append(np.ones(1))
        z_rows.append(ze_idx[None, :])
        z_where.append(np.ones(1))
        layout.x_extra_index, layout.x_extra_where = xe_idx[:-1], ends_where[:-1]
    layout.x_index, layout.x_where = np.vstack(x_rows), np.concatenate(x_where)
    layout.z_index, layout.z_where = np.vstack(z_rows), np.concatenate(z_where)
    element_starts = np.vstack([xs_idx[None, :], xe_idx[:-1]])  # (N, nx)
    layout.x_elements = np.concatenate([element_starts[:, None, :],
                                        xc_idx.reshape(n_el, d, nx)], axis=1)
    layout.z_elements = zc_idx.reshape(n_el, d, nz)
    return assemble(var, rows, objective, theta, layout)


def _rate_rows(problem: Problem, scheme: Scheme, frac: np.ndarray, length, rows: Rows,
               u_syms: dict) -> None:
    """Rate bounds: a constant control's change to the next element over the element's
    length; a collocated control's derivative at its points and its jump to the next element
    over the element's length."""
    n_el, d = len(frac), scheme.degree
    m = n_el * d
    dw = scheme.point_derivative_weights()
    w0, w1 = scheme.point_weights(0.0), scheme.point_weights(1.0)
    for c in problem.controls:
        if c.rate is None:
            continue
        u = u_syms[c.name]
        lo, hi = c.rate
        h = ca.DM(frac).T * length  # (1, N)
        if c.kind == "constant":
            if n_el > 1:
                diff = _sparse(n_el - 1, n_el, np.r_[np.arange(n_el - 1), np.arange(n_el - 1)],
                               np.r_[np.arange(1, n_el), np.arange(n_el - 1)],
                               np.r_[np.ones(n_el - 1), -np.ones(n_el - 1)])
                rows.add(ca.mtimes(diff, u) / h[:, :n_el - 1].T, lo, hi,
                         lambda i, name=c.name: f"rate of {name} from element {i} to {i + 1}")
            continue
        r_idx, c_idx, vals = [], [], []
        for k in range(n_el):
            for i in range(d):
                for r in range(d):
                    r_idx.append(k * d + i)
                    c_idx.append(k * d + r)
                    vals.append(dw[i, r])
        deriv = _sparse(m, m, r_idx, c_idx, vals)
        h_points = ca.repmat(h, d, 1)
        rows.add(ca.mtimes(deriv, u) / ca.vec(h_points), lo, hi,
                 lambda i, name=c.name: f"rate of {name} in element {i // d}, point "
                                        f"{i % d + 1}")
        if n_el > 1:
            r_idx, c_idx, vals = [], [], []
            for k in range(n_el - 1):
                for r in range(d):
                    r_idx += [k, k]
                    c_idx += [(k + 1) * d + r, k * d + r]
                    vals += [w0[r], -w1[r]]
            jump = _sparse(n_el - 1, m, r_idx, c_idx, vals)
            rows.add(ca.mtimes(jump, u) / h[:, :n_el - 1].T, lo, hi,
                     lambda i, name=c.name: f"rate of {name} from element {i} to {i + 1}")

