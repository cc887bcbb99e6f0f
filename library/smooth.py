"""Smooth replacements for sign, abs and step, as sympy expressions.

Each helper returns a plain sympy expression built from functions the code generator already
knows (``tanh``, ``sqrt``, ``Piecewise``), so it can be differentiated by sympy (index reduction)
and lowered to CasADi without registering anything.

* ``sign_tanh(x, eps)     = tanh(x/eps)``                 (C-infinity; error < 2 exp(-2|x|/eps))
* ``sign_sqrt(x, eps)     = x / sqrt(x^2 + eps^2)``        (C-infinity; algebraic decay of error)
* ``abs_sqrt(x, eps)      = sqrt(x^2 + eps^2)``            (C-infinity; ``abs_sqrt(0) = eps``)
* ``step_cubic(x, x0, h0, x1, h1)``: cubic blend from ``h0`` at ``x0`` to ``h1`` at ``x1``
  (C1; the Adams/MotionSolve ``STEP`` function:
  ``h0 + (h1 - h0) d^2 (3 - 2 d)`` with ``d = (x - x0)/(x1 - x0)``, constant outside).
"""

from __future__ import annotations

import sympy as sp

__all__ = ["abs_sqrt", "sign_sqrt", "sign_tanh", "step_cubic"]


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
