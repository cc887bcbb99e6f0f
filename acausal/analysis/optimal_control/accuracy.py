"""How accurate a collocation result is: local errors per element, propagated to the end.

For each element ``k`` the model is integrated accurately (CVODES, or IDAS for a DAE; rtol
1e-10) over the element from the collocated start state ``X_k0`` with the same control
functions and design parameters; the difference between that end state and the collocation
polynomial's end ``sum_r D[r] X_kr`` is the element's local error ``delta_k``. The error of the
end state is bounded, to first order, by propagating the local errors with the elements'
sensitivities ``Phi_k = d x(end of k) / d x(start of k)`` (from the same integration): a
simulation of the same controls from the same start ends, to first order, at the collocated
end plus ``e_N = sum_k Phi_{N-1} ... Phi_{k+1} delta_k``, and the triangle inequality gives the
bound ::

    E_N = sum_k |Phi_{N-1} ... Phi_{k+1} delta_k|      (entrywise absolute values)

(each element's error carried exactly to the end, only the elements' contributions added
without cancellation; propagating ``|Phi_k|`` entrywise instead would grow without bound for a
rotating linearisation such as Van der Pol's). Far from the first-order regime (a coarse mesh
on a strongly nonlinear model: a slipping wheel) that bound can fall short, so the elements are
also integrated one after the other from the simulated state (``x^_0 = X_00``, ``x^_{k+1}`` the
integration of element ``k`` from ``x^_k``): ``|x^_N - X_N|`` measures how far an accurate
simulation of the same controls ends from the collocated end. The estimate
:attr:`OptimalControlResult.collocation_error` reports is the larger of the two (its largest
entry); the local errors relative to the states' nominal values drive mesh refinement.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from .collocation import Scheme
from .nlp import nominal_of

#: Tolerances of the element integrations (far below any collocation error worth reporting).
RTOL, ATOL = 1e-10, 1e-12


@dataclass
class Accuracy:
    local: np.ndarray  # (elements, nx): |delta_k|
    local_error: np.ndarray  # (elements,): max over states of |delta_k| / nominal
    end_error: np.ndarray  # (nx,): max(E_N, |x^_N - X_N|)
    bound: np.ndarray | None = None  # (nx,): the first-order bound E_N
    measured: np.ndarray | None = None  # (nx,): |x^_N - X_N|


def element_integrator(problem, scheme: Scheme) -> tuple[ca.Function, ca.Function]:
    """``F(x0, z0, params) -> (x_end, dx_end/dx0)`` over one element, and the integrator
    alone; ``params`` are the
    element's start time and length, each control's coefficients (one value, or one per
    collocation point), and the parameter vector."""
    cs = problem.model
    tau = ca.SX.sym("tau")
    t_a, h = ca.SX.sym("t_a"), ca.SX.sym("h")
    p = ca.SX.sym("p", cs.p.numel())
    coeffs = []
    pp = ca.SX(p)
    basis = scheme.point_basis(tau)
    for c in problem.controls:
        n = 1 if c.kind == "constant" else scheme.degree
        cc = ca.SX.sym(c.name, n)
        coeffs.append(cc)
        pp[c.index] = cc[0] if n == 1 else sum(basis[r] * cc[r] for r in range(n))
    dae = ca.Function("dae", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg])
    x, z = ca.SX.sym("x", cs.x.numel()), ca.SX.sym("z", cs.z.numel())
    ode, alg = dae(t_a + h * tau, x, z, pp)
    params = ca.vertcat(t_a, h, *coeffs, p)
    spec = {"t": tau, "x": x, "p": params, "ode": h * ode}
    if cs.z.numel():
        spec.update(z=z, alg=alg)
    opts = {"abstol": ATOL, "reltol": RTOL, "max_num_steps": 100000}
    integ = ca.integrator("element", "idas" if cs.z.numel() else "cvodes", spec, 0.0, 1.0, opts)
    x0 = ca.MX.sym("x0", cs.x.numel())
    z0 = ca.MX.sym("z0", cs.z.numel())
    pm = ca.MX.sym("p", params.numel())
    out = integ(x0=x0, z0=z0, p=pm)
    f = ca.Function("element_step", [x0, z0, pm], [out["xf"], ca.jacobian(out["xf"], x0)])
    return f, integ


def estimate(res) -> Accuracy:
    """The local and end errors of a collocation result (see the module's docstring)."""
    problem = res.problem
    cs = problem.model
    lay = res._nlp.layout
    scheme = lay.scheme
    nx = cs.x.numel()
    n_el = len(lay.frac)
    if res.method == "shooting":
        # each interval is integrated to the integrator's tolerance: that is its local error
        from .shooting import ATOL as S_ATOL
        from .shooting import RTOL as S_RTOL

        nodes = np.abs(res.x[:, 1:].T)
        local = S_RTOL * nodes + S_ATOL
        nominal = np.array([nominal_of(cs, v) for v in cs.states])
        return Accuracy(local, (local / nominal).max(axis=1, initial=0.0), local.sum(axis=0))
    f, integrate = cs.cached(("ocp_element_integrator", scheme.degree, scheme.name,
                      tuple((c.name, c.kind) for c in problem.controls)),
                     lambda: element_integrator(problem, scheme))
    X, Z = res.element_values()
    bounds = res.elements
    nominal = np.array([nominal_of(cs, v) for v in cs.states])
    local = np.zeros((n_el, nx))
    deltas, phis, params_of = [], [], []
    for k in range(n_el):
        coeffs = []
        for c in problem.controls:
            u = res._u[c.name]
            coeffs.append(u[k:k + 1] if c.kind == "constant"
                          else u[k * scheme.degree:(k + 1) * scheme.degree])
        params = np.concatenate([[bounds[k], bounds[k + 1] - bounds[k]], *coeffs, res._p])
        params_of.append(params)
        z0 = Z[k, 0] if Z.shape[2] else np.zeros(0)
        try:
            xf, phi = f(X[k, 0], z0, params)
            xf, phi = np.array(xf.full()).ravel(), np.array(phi.full())
        except RuntimeError:  # the integrator failed: no estimate for this element
            xf, phi = np.full(nx, np.inf), np.eye(nx)
        deltas.append(xf - scheme.D @ X[k])
        phis.append(phi)
        local[k] = np.abs(deltas[-1])
    bound = np.zeros(nx)
    carry = np.eye(nx)  # Phi_{N-1} ... Phi_{k+1}
    for k in range(n_el - 1, -1, -1):
        bound += np.abs(carry @ deltas[k]) if np.all(np.isfinite(deltas[k])) else np.inf
        carry = carry @ phis[k]
    # an accurate simulation of the same controls, element after element from its own state
    x_sim = X[0, 0].copy()
    for k in range(n_el):
        z0 = Z[k, 0] if Z.shape[2] else np.zeros(0)
        try:
            x_sim = np.array(integrate(x0=x_sim, z0=z0, p=params_of[k])["xf"].full()).ravel()
        except RuntimeError:  # the simulation failed: no measured deviation
            x_sim = np.full(nx, np.inf)
            break
    measured = np.abs(x_sim - res.x[:, -1])
    end = np.maximum(bound, measured)
    return Accuracy(local, (local / nominal).max(axis=1, initial=0.0), end, bound, measured)

