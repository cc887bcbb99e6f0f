"""The least-squares problem linearised at one point of the NLP: its values and Jacobians
(:class:`Evaluation`), the full constrained Gauss-Newton step, the covariance of the unknowns
(the inverse Gauss-Newton Hessian reduced to the null space of the continuity constraints),
and the residuals' lag-1 autocorrelation."""

from __future__ import annotations

import numpy as np

#: Relative singular value below which a direction of the reduced Gauss-Newton Hessian counts
#: as not identifiable.
RANK_TOLERANCE = 1e-10


class Evaluation:
    """Values (and Jacobians, when computed) at one point ``w`` of the NLP."""

    def __init__(self, r: np.ndarray, g: np.ndarray, fitted: list[np.ndarray],
                 jr: np.ndarray | None = None, jg: np.ndarray | None = None) -> None:
        self.r, self.g, self.fitted, self.jr, self.jg = r, g, fitted, jr, jg


def gauss_newton_step(ev: Evaluation, basis: np.ndarray | None = None) -> np.ndarray | None:
    """The full constrained Gauss-Newton step from the point of ``ev``: the solution of
    ``min |r + J d|^2`` subject to ``g + G d = 0`` (least-norm where not unique).

    Solved in the null space of ``G`` (``basis``, computed when not given): ``d = d_g + Z y``
    with ``d_g`` the least-norm solution of ``G d = -g`` and ``y`` the least-squares solution of
    ``J Z y = -(r + J d_g)``. This works on ``J`` itself; the KKT matrix
    ``[[J^T J, G^T], [G, 0]]`` squares its condition number, and with unmeasured states at the
    shooting nodes (a stiff friction bristle, an energy integral) that matrix is singular to
    working precision, so that its least-squares solution gave a wrong step and the fit never
    passed the step test."""
    from scipy.linalg import null_space

    n_w, n_g = ev.jr.shape[1], ev.jg.shape[0]
    try:
        if n_g:
            if basis is None:
                basis = null_space(ev.jg)
            d_g = np.linalg.lstsq(ev.jg, -ev.g, rcond=None)[0]
        else:
            basis, d_g = np.eye(n_w), np.zeros(n_w)
        y = np.linalg.lstsq(ev.jr @ basis, -(ev.r + ev.jr @ d_g), rcond=None)[0]
    except (np.linalg.LinAlgError, ValueError):
        return None
    return d_g + basis @ y


def covariance(jr: np.ndarray, jg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(M, reduced eigenvalues): ``M`` the top-left block of the inverse KKT matrix of the
    linearised constrained least-squares problem (= (J^T J)^-1 without constraints), the
    inverse of the Gauss-Newton Hessian reduced to the null space of the constraints; NaN
    rows/columns for directions that the data do not determine."""
    from scipy.linalg import null_space

    n_w = jr.shape[1]
    basis = null_space(jg) if jg.shape[0] else np.eye(n_w)
    reduced = basis.T @ (jr.T @ jr) @ basis
    values, vectors = np.linalg.eigh(reduced)
    top = max(values.max(initial=0.0), 1e-300)
    good = values > RANK_TOLERANCE * top
    inverse = (vectors[:, good] / values[good]) @ vectors[:, good].T
    cov = basis @ inverse @ basis.T
    if not good.all():
        # directions without information: infinite variance for every unknown they touch
        weak = basis @ vectors[:, ~good]
        touched = np.abs(weak).max(axis=1) > 1e-8
        cov[touched, :] = np.nan
        cov[:, touched] = np.nan
    return cov, values


def lag1_autocorrelation(residual: np.ndarray) -> float:
    """The lag-1 autocorrelation of residuals over time (~0 for white noise)."""
    r = residual - residual.mean()
    denominator = float(r @ r)
    return float(r[1:] @ r[:-1]) / denominator if r.size > 2 and denominator > 0 else 0.0
