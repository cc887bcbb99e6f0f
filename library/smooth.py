"""Smooth replacements for sign, abs and step, as sympy expressions.

Each helper returns a plain sympy expression built from functions the code generator already
knows (``tanh``, ``sqrt``, ``Piecewise``), so it can be differentiated by sympy (index reduction)
and lowered to CasADi without registering anything.

* ``sign_tanh(x, eps)     = tanh(x/eps)``                 (C-infinity; error < 2 exp(-2|x|/eps))
* ``sign_sqrt(x, eps)     = x / sqrt(x^2 + eps^2)``        (C-infinity; algebraic decay of error)
* ``abs_sqrt(x, eps)      = sqrt(x^2 + eps^2)``            (C-infinity; ``abs_sqrt(0) = eps``)
* ``abs_huber(x, eps)``: ``|x|`` for ``|x| >= eps``, ``x^2/(2 eps) + eps/2`` inside (C1)
* ``max_huber(a, b, eps)  = (a + b + abs_huber(a - b, eps))/2``  (C1; ``Max(a, b)`` itself
  where ``|a - b| >= eps``, at most ``eps/4`` above it)
* ``step_cubic(x, x0, h0, x1, h1)``: cubic blend from ``h0`` at ``x0`` to ``h1`` at ``x1``
  (C1; the Adams/MotionSolve ``STEP`` function:
  ``h0 + (h1 - h0) d^2 (3 - 2 d)`` with ``d = (x - x0)/(x1 - x0)``, constant outside).
"""

from __future__ import annotations

import sympy as sp

__all__ = ["abs_huber", "abs_sqrt", "max_huber", "sign_sqrt", "sign_tanh", "step_cubic"]


def sign_tanh(x, eps):
    """Smooth sign ``tanh(x/eps)``; ``eps`` [unit of x] is the width of the transition."""
    x, eps = sp.sympify(x), sp.sympify(eps)
    return sp.tanh(x / eps)


def sign_sqrt(x, eps):
    """Smooth sign ``x / sqrt(x^2 + eps^2)``."""
    x, eps = sp.sympify(x), sp.sympify(eps)
    return x / sp.sqrt(x**2 + eps**2)


def abs_sqrt(x, eps):
    """Smooth absolute value ``sqrt(x^2 + eps^2)`` (always >= eps; subtract eps if needed)."""
    x, eps = sp.sympify(x), sp.sympify(eps)
    return sp.sqrt(x**2 + eps**2)


def abs_huber(x, eps):
    """Smooth absolute value that is exact outside ``[-eps, eps]``: ``|x|`` there and
    ``x^2/(2 eps) + eps/2`` inside (Huber's function shifted up by ``eps/2``), as a
    ``sympy.Piecewise``. C1 (the second derivative jumps at ``+-eps``), ``>= |x|``, above it by
    at most ``eps/2`` (at 0); ``eps`` [unit of x] > 0."""
    x, eps = sp.sympify(x), sp.sympify(eps)
    return sp.Piecewise((x**2 / (2 * eps) + eps / 2, sp.Abs(x) < eps), (sp.Abs(x), True))


def max_huber(a, b, eps):
    """Smooth maximum that is exact where ``|a - b| >= eps``: ``Max(a, b)`` there and
    ``(a + b + abs_huber(a - b, eps))/2 = (a + b)/2 + (a - b)^2/(4 eps) + eps/4`` inside, as a
    ``sympy.Piecewise``. C1, above ``max(a, b)`` by at most ``eps/4`` (at ``a = b``).

    Unlike ``Max``, its derivative is continuous where ``a`` and ``b`` cross. That matters where
    the maximum takes part in an algebraic loop of a DAE whose parameter sensitivities are
    integrated (identification): a kink there makes the sensitivities of the algebraic
    variables jump, which IDAS cannot step across; ``eps`` must then exceed the spread of the
    solver's Newton iterates of ``a - b`` (a few ``rtol`` times its size)."""
    a, b, eps = sp.sympify(a), sp.sympify(b), sp.sympify(eps)
    inside = (a + b) / 2 + (a - b) ** 2 / (4 * eps) + eps / 4
    return sp.Piecewise((inside, sp.Abs(a - b) < eps), (sp.Max(a, b), True))


def step_cubic(x, x0, h0, x1, h1):
    """Cubic step (Adams ``STEP(x, x0, h0, x1, h1)``), C1, as a ``sympy.Piecewise``.

    ``h0`` for ``x <= x0``, ``h1`` for ``x >= x1``, and in between
    ``h0 + (h1 - h0) d^2 (3 - 2 d)`` with ``d = (x - x0)/(x1 - x0)``. Requires ``x0 < x1``.
    Source: MSC Adams Solver function reference, ``STEP``; also used by MotionSolve.
    """
    x, x0, h0, x1, h1 = (sp.sympify(a) for a in (x, x0, h0, x1, h1))
    d = (x - x0) / (x1 - x0)
    return sp.Piecewise((h0, x <= x0), (h1, x >= x1),
                        (h0 + (h1 - h0) * d**2 * (3 - 2 * d), True))
