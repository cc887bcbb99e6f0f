"""Direct multiple shooting over CVODES (ODE) or IDAS (index-1 DAE).

The horizon is cut into intervals (the mesh's elements) with a piecewise-constant control on
each. The unknowns are the states at the intervals' ends (nodes), the algebraic variables at
the nodes, the controls, and the design parameters and free end time. On each interval
CasADi's integrator solves the model from the node's state over ``tau`` in [0, 1]
(``t = t_k + h_k tau``, so a free end time only rescales) and adds the Lagrange term as a
quadrature::

    X_{k+1} - x_end(X_k, Z_k, u_k, p) = 0        (scaled by nominal x)
    g(t_k, X_k, Z_k, p_k) = 0                     at every node
    J = Mayer(t_end, X_N, Z_N) + sum_k q_end(X_k, Z_k, u_k, p)

Path constraints hold at the nodes; the start and end conditions are those of the
collocation. The integrators give exact sensitivities (forward and adjoint); the Hessian is
CasADi's exact one through them (slower than collocation's, but the states are integrated to
the integrator's tolerance, rtol 1e-10).
"""

from __future__ import annotations

import casadi as ca
import numpy as np

from ...base.errors import InputError
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

#: Tolerances of the interval integrations.
RTOL, ATOL = 1e-10, 1e-12


def interval_integrator(problem: Problem) -> ca.Function:
    """The integrator of one interval: inputs x0, z0, p = (t_k, h_k, parameter vector)."""
    cs = problem.model
    tau = ca.SX.sym("tau")
    t_a, h = ca.SX.sym("t_a"), ca.SX.sym("h")
    p = ca.SX.sym("p", cs.p.numel())
    x, z = ca.SX.sym("x", cs.x.numel()), ca.SX.sym("z", cs.z.numel())
    t = t_a + h * tau
    dae = ca.Function("dae", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg])
    ode, alg = dae(t, x, z, p)
    spec = {"t": tau, "x": x, "p": ca.vertcat(t_a, h, p), "ode": h * ode}
    if problem.lagrange is not None:
        lagrange = expressions_function(problem.names, [problem.lagrange])
        spec["quad"] = h * lagrange(t, x, z, p)
    if cs.z.numel():
        spec.update(z=z, alg=alg)
    opts = {"abstol": ATOL, "reltol": RTOL, "max_num_steps": 100000}
    return ca.integrator("interval", "idas" if cs.z.numel() else "cvodes", spec, 0.0, 1.0,
                         opts)


def transcribe_shooting(problem: Problem, start: StartRows, frac: np.ndarray,
                        scheme: Scheme) -> Nlp:
    """The multiple-shooting NLP of ``problem`` on the intervals ``frac``."""
    cs = problem.model
    collocated = [c.name for c in problem.controls if c.kind != "constant"]
    if collocated:
        raise InputError(f"Multiple shooting holds each control constant on an interval; "
                         f"{', '.join(collocated)} is declared kind='collocated'. Declare it "
                         "kind='constant' or solve with method='collocation'.")
    if any(c.rate is not None for c in problem.controls) or problem.soft:
        raise InputError("Rate bounds and soft constraints are transcribed by collocation "
                         "only: solve with method='collocation'.")
    nx, nz = cs.x.numel(), cs.z.numel()
    n = len(frac)
    var, rows = Variables(kind=ca.MX), Rows()
    theta = ca.MX.sym("theta", 1)
    t0 = theta[0]
    nom_x = np.array([nominal_of(cs, v) for v in cs.states])
    nom_z = np.array([nominal_of(cs, v) for v in cs.algebraics])
    layout = Layout(scheme, frac, np.zeros((0, nx), int), np.zeros(0), np.zeros((0, nz), int),
                    np.zeros(0))
    t_end, length = horizon(problem, var, layout, t0)
    nodes = np.concatenate([[0.0], np.cumsum(frac)])
    nodes[-1] = 1.0
    computed = start.computed
    design, q = constant_unknowns(problem, var, layout, computed)
    u_syms = {}
    for c in problem.controls:
        u_syms[c.name], idx = var.add(c.name, n, c.lower, c.upper, c.nominal)
        layout.u_index[c.name] = (idx, nodes[:-1] + 0.5 * frac)

    def p_at(k: int) -> ca.MX:
        return parameters_of(problem, [u_syms[c.name][k] for c in problem.controls], design,
                             q, computed)

    dae = ca.Function("dae", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg])
    (x_lo, x_hi), (z_lo, z_hi), general = split_path(problem, cs)
    path_f = expressions_function(problem.names, [c.expr for c in general])
    end_f = expressions_function(problem.names, [c.expr for c in problem.end_conditions])
    mayer_f = expressions_function(problem.names, [problem.mayer] if problem.mayer is not None
                                   else [])
    start_f = expressions_function(problem.names, [c.expr for c in problem.start_free])
    integrate = interval_integrator(problem)
    objective = 0

    def node(k: int, x, z, p, t) -> None:
        rows.add(dae(t, x, z, p)[1], 0.0, 0.0,
                 [f"{e} at node {k}" for e in cs.algebraic_equations])
        if general:
            values = path_f(t, x, z, p)
            for i, c in enumerate(general):
                rows.add(values[i], c.lower, c.upper,
                         f"path {c.label} in [{c.lower:g}, {c.upper:g}] at node {k}")

    lo0, hi0 = start_state_bounds(problem, x_lo, x_hi)
    x_k, x_idx = var.add("x[0]", nx, lo0, hi0, nom_x)
    z_k, z_idx = var.add("z[0]", nz, z_lo, z_hi, nom_z)
    x_rows, z_rows = [x_idx], [z_idx]
    p0 = p_at(0)
    rows.add(start.function(t0, ca.vertcat(x_k, z_k, q), p0, ca.DM(start.s)), 0.0, 0.0,
             [f"start: {label}" for label in start.labels])
    if problem.start_free:
        values = start_f(t0, x_k, z_k, p0)
        for i, c in enumerate(problem.start_free):
            if c.name is None or cs.locate(c.name)[1] not in cs.states:
                rows.add(values[i], c.lower, c.upper,
                         f"start of {c.label} in [{c.lower:g}, {c.upper:g}]")
    if general:
        values = path_f(t0, x_k, z_k, p0)
        for i, c in enumerate(general):
            rows.add(values[i], c.lower, c.upper,
                     f"path {c.label} in [{c.lower:g}, {c.upper:g}] at the start")
    for k in range(n):
        pk = p_at(k)
        h = frac[k] * length
        t_k = t0 + nodes[k] * length
        out = integrate(x0=x_k, z0=z_k, p=ca.vertcat(t_k, h, pk))
        if problem.lagrange is not None:
            objective += out["qf"]
        x_k, x_idx = var.add(f"x[{k + 1}]", nx, x_lo, x_hi, nom_x)
        rows.add((x_k - out["xf"]) / ca.DM(nom_x), 0.0, 0.0,
                 [f"shooting gap of {s} at the end of interval {k}" for s in cs.state_names])
        z_k, z_idx = var.add(f"z[{k + 1}]", nz, z_lo, z_hi, nom_z)
        x_rows.append(x_idx)
        z_rows.append(z_idx)
        t_next = t0 + nodes[k + 1] * length
        if k + 1 < n:
            node(k + 1, x_k, z_k, p_at(k + 1), t_next)
        else:
            rows.add(dae(t_next, x_k, z_k, pk)[1], 0.0, 0.0,
                     [f"{e} at the end" for e in cs.algebraic_equations])
    p_end = p_at(n - 1)
    if problem.end_conditions:
        values = end_f(t_end, x_k, z_k, p_end)
        for i, c in enumerate(problem.end_conditions):
            rows.add(values[i], c.lower, c.upper, f"end {c.label} in [{c.lower:g}, "
                     f"{c.upper:g}]" if c.lower != c.upper else f"end {c.label} = {c.lower:g}")
    if problem.mayer is not None:
        objective += mayer_f(t_end, x_k, z_k, p_end)[0]
    layout.x_index = np.array(x_rows, int).reshape(n + 1, nx)
    layout.x_where = nodes.copy()
    layout.z_index = np.array(z_rows, int).reshape(n + 1, nz)
    layout.z_where = nodes.copy()
    layout.x_extra_index = np.zeros((0, nx), int)
    layout.x_elements = layout.x_index[:-1].reshape(n, 1, nx)
    layout.z_elements = layout.z_index[:-1].reshape(n, 1, nz)
    return assemble(var, rows, objective, theta, layout)
