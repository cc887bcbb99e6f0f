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


def gauss_newton_step(ev: Evaluation) -> np.ndarray | None:
    """The full constrained Gauss-Newton step from the point of ``ev``: the solution of
    ``min |r + J d|^2`` subject to ``g + G d = 0`` (least-norm where not unique)."""
    n_w, n_g = ev.jr.shape[1], ev.jg.shape[0]
    kkt = np.zeros((n_w + n_g, n_w + n_g))
    kkt[:n_w, :n_w] = ev.jr.T @ ev.jr
    kkt[:n_w, n_w:] = ev.jg.T
    kkt[n_w:, :n_w] = ev.jg
    rhs = -np.concatenate([ev.jr.T @ ev.r, ev.g])
    try:
        solution = np.linalg.lstsq(kkt, rhs, rcond=1e-13)[0]
    except np.linalg.LinAlgError:
        return None
    return solution[:n_w]


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
