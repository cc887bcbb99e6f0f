"""The first point on the new side of a zero crossing: where a located state event is handled.

SUNDIALS returns a root where the indicator may be exactly zero (or on the old side by
rounding), where a relation such as ``x > 21`` is still false. :func:`step_past` steps on (ODEs:
the explicit midpoint rule, second order, so that an indicator whose rate is zero there still
moves; DAEs: explicit Euler with the algebraic variables polished; over 1e-13 s the error is
~1e-26) until one of the indicators is across, by more than its rounding noise: first by twice
the step their rates ask for (ODEs; a few ulp for DAEs), then four times further each try.

The same step serves an indicator that is exactly zero where the solver (re)starts: SUNDIALS
(CVODE's and IDA's ``Rcheck1``) switches such a root function off until it has left zero and
takes the value it leaves with as its start, so the crossing it makes there is never reported.
:func:`leave_zero` finds that crossing at once, so that it fires at its own instant (the late
event of issue 41) and not at the next stop.
"""

from __future__ import annotations

import math

import casadi as ca
import numpy as np

from . import sundials
from .buffers import Buffered
from .polish import polish_algebraic

#: A located state event lies past the crossing by more than this many ulp of the indicator's
#: terms (sum of |dg/dy| * |y|).
ROOT_NOISE = 100
ROOT_NOISE_FRACTION = ROOT_NOISE * float(np.finfo(float).eps)


def _indicators_and_rates(cur) -> Buffered:
    def build() -> Buffered:
        w = ca.vertcat(cur.x, cur.z)
        g_sym = ca.vertcat(*[g for ev in cur.events for g in ev.indicators])
        return Buffered(ca.Function(
            "g_gjac", [cur.t, cur.x, cur.z, cur.p],
            [g_sym, ca.densify(ca.jacobian(g_sym, w)), ca.densify(ca.jacobian(g_sym, cur.t))]))
    return cur.cached("event_indicators_and_rates", build)


def step_past(cur, p: np.ndarray, span: float, nominal: np.ndarray | None, t_root: float,
              y_root: np.ndarray, g0: np.ndarray, rows: list[int]
              ) -> tuple[float, np.ndarray, bool]:
    """``(t, y, across)``: the first point after ``t_root`` where one of the indicators
    ``rows`` (event indicator indices) is on another side than ``g0`` (their values where the
    solver started; 0 counts as no side), by more than its rounding noise. ``across`` is False
    when none gets there within ``1e-9`` of the run's span (then ``t``, ``y`` are the last try).
    The rounding noise is estimated with the variables' sizes, at least ``nominal`` (None: the
    values themselves, for indicators that are exactly zero: their terms are exact there).
    """
    g_all = sundials.fast(cur, "event_indicators").evaluate
    n_x = len(cur.states)
    size = np.abs(y_root) if nominal is None else np.maximum(np.abs(y_root), nominal)
    g_root, dg, dg_dt = _indicators_and_rates(cur).evaluate(t_root, y_root[:n_x],
                                                             y_root[n_x:], p)
    dg = dg.reshape(y_root.size, -1).T  # CasADi stores column by column
    # past the crossing by more than the indicator's rounding noise (estimated from its
    # sensitivities): otherwise re-solving the algebraic variables at the event can flip a
    # relation back (event iteration would then toggle a branch forever)
    noise = ROOT_NOISE_FRACTION * (np.abs(dg[rows]) @ size)

    # plain Python over the few indicators (this runs at every event); the test of
    # event_detection.crossed, and beyond the noise
    g0_list, noise_list = np.asarray(g0, float).tolist(), noise.tolist()

    def across(g1) -> bool:
        for a, b, n in zip(g0_list, g1.tolist(), noise_list):
            if abs(b) > n and ((a > 0 and b < 0) or (a < 0 and b > 0) or (a == 0 and b != 0)):
                return True
        return False

    x, z = y_root[:n_x], y_root[n_x:]
    g_root = g_root[rows]
    if across(g_root):
        return t_root, y_root, True
    xdot = sundials.fast(cur, "ode").evaluate(t_root, x, z, p)[0]
    delta = 4 * np.spacing(max(abs(t_root), 1.0))
    limit = 1e-9 * max(abs(t_root), span, 1e-300)
    if not z.size:
        # an ODE: the indicators' rates dg/dt + dg/dx x' are exact, so the first try is
        # twice the time they need to clear their noise (one evaluation usually suffices;
        # the loop below grows it if not). A DAE's rates would need z' too: ulp steps.
        rates = np.abs(dg_dt[rows] + dg[rows] @ xdot).tolist()
        need = [2 * (n + abs(g)) / r
                for r, n, g in zip(rates, noise_list, g_root.tolist()) if r > 0]
        need = [v for v in need if math.isfinite(v)]
        if need:
            delta = min(max(delta, min(need)), limit)
    ode = sundials.fast(cur, "ode").evaluate
    t_try, y_try = t_root, y_root
    while delta <= limit:
        if z.size:
            x_try = x + delta * xdot
        else:
            # explicit midpoint: second order, so an indicator that leaves zero with a zero
            # rate (a position at rest under a force) is seen leaving it
            x_try = x + delta * ode(t_root + delta / 2, x + delta / 2 * xdot, z, p)[0]
        z_try = z
        if z.size:
            z_try = polish_algebraic(cur, np.array([t_root + delta]), x_try.reshape(-1, 1),
                                     z.reshape(-1, 1), p).ravel()
        t_try, y_try = t_root + delta, np.concatenate([x_try, z_try])
        if across(g_all(t_try, x_try, z_try, p)[0][rows]):
            return t_try, y_try, True
        delta *= 4
    return t_try, y_try, False


def leave_zero(cur, p: np.ndarray, span: float, t: float, y: np.ndarray,
               g_start: np.ndarray, rows: list[int], live: np.ndarray
               ) -> tuple[float, np.ndarray] | None:
    """Where the watched indicators that are exactly zero at the (re)start ``t`` leave zero:
    ``(t1, y1)`` a little after ``t`` (see the module docstring), or None when none is zero
    or none leaves it within ``1e-9`` of the span (a relation that stays at its threshold,
    such as a held speed)."""
    zero = [r for r, on in zip(rows, live) if on and g_start[r] == 0.0]
    if not zero:
        return None
    # exactly zero: no rounding noise to clear beyond the values' own (nominal=None)
    t1, y1, across = step_past(cur, p, span, None, t, y, np.zeros(len(zero)), zero)
    return (t1, y1) if across and t1 > t else None
