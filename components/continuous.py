"""Filter design for :class:`acausal.components.blocks.Filter` (after MSL 4.0
``Modelica.Blocks.Continuous.Internal.Filter``): prototype low-pass filters with a cut-off angular
frequency of 1 rad/s, and their poles and gains in the form the block implements.

Plain numbers only (no components): the block multiplies the results by its symbolic cut-off
angular frequency ``2*pi*f_cut``, so ``f_cut`` stays a parameter that can change without
recompiling, while the order, the characteristics and the normalisation are structural.

Prototype (``prototype``): a low pass ``H(p) = 1 / (prod_i (d1_i*p + 1) * prod_j (b2_j*p^2 + b1_j*p
+ 1))``, as MSL's ``base`` functions return it (``den1``, ``den2``):

* CriticalDamping: ``order`` equal real poles, ``d1 = alpha`` with ``alpha = sqrt(10^(3/(10*order))
  - 1)`` when normalised (amplitude ``10^(-3/20)`` at ``p = j``), else 1;
* Butterworth: ``b2 = 1``, ``b1 = 2*sin(pi*(j - 1/2)/order)``, one real pole ``d1 = 1`` for an
  odd order (amplitude ``1/sqrt(2)`` at ``p = j`` whatever ``normalized`` says: MSL does not
  rescale it);
* Bessel: the roots of the reverse Bessel polynomial ``sum_k (2n-k)!/(2^(n-k) k! (n-k)!) p^k``
  (unit group delay at zero frequency), rescaled to amplitude ``10^(-3/20)`` at ``p = j`` when
  normalised (MSL tabulates the same coefficients, ``BesselBaseCoefficients``);
* ChebyshevI: MSL's closed form from the pass-band ripple ``A_ripple`` [dB], rescaled likewise when
  normalised.

Realisation (``realization``): MSL's ``roots.lowPass`` / ``roots.highPass``: the real poles ``r``
and, for each complex pair ``a +- j b``, the input gain ``ku = (a^2 + b^2)/b`` and (high pass) the
output gains ``k1 = 2 a/ku``, ``k2 = (a^2 - b^2)/(a^2 + b^2)``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from acausal.errors import ParameterError

#: MSL's -3 dB: the amplitude 10^(-3/20) = 0.70795 a normalised filter has at its cut-off.
MINUS_3DB = 10.0 ** (-3.0 / 20.0)

ANALOG_FILTERS = ("CriticalDamping", "Bessel", "Butterworth", "ChebyshevI")
FILTER_TYPES = ("LowPass", "HighPass")
UNSUPPORTED_FILTER_TYPES = ("BandPass", "BandStop")


def _amplitude(den1, den2, w: float) -> float:
    """|H(j w)| of the prototype."""
    value = 1.0 + 0j
    for d1 in den1:
        value *= 1.0 + 1j * d1 * w
    for b2, b1 in den2:
        value *= 1.0 - b2 * w * w + 1j * b1 * w
    return 1.0 / abs(value)


def _normalized(den1, den2):
    """The prototype rescaled (p -> alpha*p) so that its amplitude at p = j is 10^(-3/20)."""
    def f(w):
        return math.log(_amplitude(den1, den2, w) / MINUS_3DB)

    hi = 1.0
    while f(hi) > 0:
        hi *= 2.0
    lo = hi / 2.0
    while f(lo) < 0:
        lo /= 2.0
    alpha = float(brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return [d1 * alpha for d1 in den1], [(b2 * alpha**2, b1 * alpha) for b2, b1 in den2]


def _bessel(order: int):
    """Delay-normalised Bessel prototype: real pole first (odd order), then the complex pairs
    from the most damped (smallest imaginary part) on, as MSL's table orders them."""
    coeffs = [math.factorial(2 * order - k) / (2 ** (order - k) * math.factorial(k)
                                               * math.factorial(order - k))
              for k in range(order, -1, -1)]
    poles = np.roots(coeffs)
    real = [float(p.real) for p in poles if abs(p.imag) <= 1e-9 * abs(p)]
    pairs = sorted((p for p in poles if p.imag > 1e-9 * abs(p)), key=lambda p: p.imag)
    den1 = [-1.0 / p for p in real]
    den2 = [(float(1.0 / abs(p) ** 2), float(-2.0 * p.real / abs(p) ** 2)) for p in pairs]
    return den1, den2


def prototype(analog: str, order: int, normalized: bool, A_ripple: float = 0.5):
    """(den1, den2) of the low-pass prototype with cut-off 1 rad/s (see the module docstring)."""
    m = order // 2
    if analog == "CriticalDamping":
        alpha = math.sqrt(10.0 ** (3.0 / 10.0 / order) - 1.0) if normalized else 1.0
        return [alpha] * order, []
    if analog == "Butterworth":
        den2 = [(1.0, -2.0 * math.cos(math.pi * (0.5 + (i - 0.5) / order)))
                for i in range(1, m + 1)]
        return [1.0] * (order % 2), den2
    if analog == "Bessel":
        den1, den2 = _bessel(order)
    elif analog == "ChebyshevI":
        if not A_ripple > 0:
            raise ParameterError(f"Filter: A_ripple must be > 0 dB, got {A_ripple!r}.")
        eps = math.sqrt(10.0 ** (A_ripple / 10.0) - 1.0)
        fac = math.asinh(1.0 / eps) / order
        den1 = [1.0 / math.sinh(fac)] * (order % 2)
        den2 = []
        for i in range(1, m + 1):
            c = math.cos((2 * i - 1) * math.pi / (2 * order) if order % 2 == 0
                         else i * math.pi / order)
            b2 = 1.0 / (math.cosh(fac) ** 2 - c * c)
            den2.append((b2, 2.0 * b2 * math.sinh(fac) * c))
        if not normalized:
            return den1, den2
    else:
        raise ParameterError(f"Filter: analogFilter must be one of {', '.join(ANALOG_FILTERS)}, "
                             f"got {analog!r}.")
    return _normalized(den1, den2) if normalized else (den1, den2)


def realization(analog: str, kind: str, order: int, normalized: bool, A_ripple: float = 0.5):
    """Poles and gains for a cut-off angular frequency of 1 rad/s (multiply ``r``, ``a``, ``b``,
    ``ku`` by ``2*pi*f_cut``; ``k1``, ``k2`` do not scale):
    ``(r, [(a, b, ku, k1, k2), ...])`` with ``k1 = k2 = 0`` for a low pass."""
    if kind in UNSUPPORTED_FILTER_TYPES:
        raise ParameterError(f"Filter: filterType {kind!r} is not implemented yet (MSL computes "
                             "its coefficients from f_min and f_cut by a root search at "
                             "initialisation); use 'LowPass' or 'HighPass'.")
    if kind not in FILTER_TYPES:
        raise ParameterError(f"Filter: filterType must be 'LowPass' or 'HighPass' ('BandPass', "
                             f"'BandStop' are not implemented yet), got {kind!r}.")
    den1, den2 = prototype(analog, order, normalized, A_ripple)
    cr = [1.0 / d1 for d1 in den1]
    c1 = [b1 / b2 for b2, b1 in den2]
    c0 = [1.0 / b2 for b2, _ in den2]
    if kind == "HighPass":  # p -> 1/p
        cr = [1.0 / c for c in cr]
        c1 = [c1_i / c0_i for c1_i, c0_i in zip(c1, c0, strict=True)]
        c0 = [1.0 / c0_i for c0_i in c0]
    pairs = []
    for c0_i, c1_i in zip(c0, c1, strict=True):
        a = -c1_i / 2.0
        b = math.sqrt(c0_i - a * a)
        ku = c0_i / b
        k1, k2 = (2.0 * a / ku, (a * a - b * b) / (a * a + b * b)) if kind == "HighPass" \
            else (0.0, 0.0)
        pairs.append((a, b, ku, k1, k2))
    return [-c for c in cr], pairs
