"""Collocation coefficients: Radau IIA and Gauss-Legendre points of any degree.

On an element ``[t_k, t_k + h]`` with ``tau = (t - t_k)/h`` the states are the polynomial of
degree ``d`` through ``tau_0 = 0`` and the ``d`` collocation points ``tau_1 .. tau_d`` (CasADi's
``collocation_points``: the Radau points end at ``tau_d = 1``, the Legendre points do not)::

    x(tau) = sum_r l_r(tau) X_r,   l_r the Lagrange basis of tau_0 .. tau_d
    dx/dt(tau_j) = (1/h) sum_r C[r, j] X_r,   C[r, j] = l_r'(tau_j)
    x(1) = sum_r D[r] X_r,   D[r] = l_r(1)
    integral over the element of L dt ~= h sum_j B[j] L(tau_j),   B[j] = int_0^1 l_j

(the construction of Biegler, "Nonlinear Programming", SIAM 2010, section 10.2, and of CasADi's
``direct_collocation`` example). A collocated control (or an algebraic variable) lives at the
collocation points only: its polynomial is the one of degree ``d - 1`` through ``tau_1 ..
tau_d`` (:meth:`Scheme.point_weights`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from ...base.errors import InputError

SCHEMES = ("radau", "legendre")


def _lagrange(points: np.ndarray, r: int) -> np.poly1d:
    """The Lagrange basis polynomial of ``points`` that is 1 at ``points[r]``."""
    poly = np.poly1d([1.0])
    for s, ps in enumerate(points):
        if s != r:
            poly *= np.poly1d([1.0, -ps]) / (points[r] - ps)
    return poly


@dataclass
class Scheme:
    """Collocation points and coefficients of one degree and family."""

    degree: int
    name: str
    tau: np.ndarray = field(init=False)  # tau_0 = 0, then the d collocation points
    C: np.ndarray = field(init=False)  # (d+1, d+1): C[r, j] = l_r'(tau_j)
    D: np.ndarray = field(init=False)  # (d+1,): l_r(1)
    B: np.ndarray = field(init=False)  # (d+1,): quadrature weights (B[0] = 0)

    def __post_init__(self) -> None:
        if self.name not in SCHEMES:
            raise InputError(f"scheme must be one of {', '.join(SCHEMES)}, got {self.name!r}.")
        if isinstance(self.degree, bool) or not isinstance(self.degree, (int, np.integer)) \
                or not 1 <= self.degree <= 12:
            raise InputError(f"degree must be a whole number from 1 to 12, got "
                             f"{self.degree!r}.")
        d = int(self.degree)
        self.tau = np.array([0.0] + list(ca.collocation_points(d, self.name)))
        self.C = np.zeros((d + 1, d + 1))
        self.D = np.zeros(d + 1)
        self.B = np.zeros(d + 1)
        for r in range(d + 1):
            poly = _lagrange(self.tau, r)
            self.D[r] = poly(1.0)
            deriv = np.polyder(poly)
            for j in range(d + 1):
                self.C[r, j] = deriv(self.tau[j])
            self.B[r] = np.polyint(poly)(1.0)

    @property
    def ends_on_point(self) -> bool:
        """Whether the last collocation point is the element's end (Radau)."""
        return abs(self.tau[-1] - 1.0) < 1e-14

    def state_weights(self, tau: float) -> np.ndarray:
        """Weights of ``X_0 .. X_d`` giving the state polynomial at ``tau``."""
        return np.array([_lagrange(self.tau, r)(tau) for r in range(self.degree + 1)])

    def point_weights(self, tau: float) -> np.ndarray:
        """Weights of the values at ``tau_1 .. tau_d`` giving their polynomial (degree
        ``d - 1``) at ``tau``: collocated controls and algebraic variables."""
        pts = self.tau[1:]
        return np.array([_lagrange(pts, r)(tau) for r in range(self.degree)])

    def point_basis(self, tau: ca.SX) -> list[ca.SX]:
        """The Lagrange basis through ``tau_1 .. tau_d`` as SX expressions of ``tau`` (what
        :meth:`point_weights` evaluates numerically): a collocated control as a function of
        time, for integrations and simulations of it."""
        pts = self.tau[1:]
        out = []
        for r in range(self.degree):
            term = ca.SX(1.0)
            for s, ps in enumerate(pts):
                if s != r:
                    term = term * (tau - ps) / (pts[r] - ps)
            out.append(term)
        return out

    def point_derivative_weights(self) -> np.ndarray:
        """(d, d): row i gives d/dtau of the point polynomial at ``tau_{i+1}``."""
        pts = self.tau[1:]
        out = np.zeros((self.degree, self.degree))
        for r in range(self.degree):
            deriv = np.polyder(_lagrange(pts, r))
            for i in range(self.degree):
                out[i, r] = deriv(pts[i])
        return out
