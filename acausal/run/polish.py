"""Algebraic variables made consistent with the states: Newton steps on g(t, x, z) = 0.

The solvers return z accurate to their error tolerance only, while the DAE defines z exactly
from x: :func:`polish_algebraic` makes stored output points consistent to rounding error (a
pendulum's length constraint then holds to 1e-15 instead of to rtol), :func:`newton_polish`
the single point the solver restarts from after an event or a state switch (an inconsistent
start fails IDA's error test at tight tolerances).
"""

from __future__ import annotations

import casadi as ca
import numpy as np

from . import native
from .buffers import Buffered, columns
from .solver_functions import algebraic_jacobian

#: Output points share the Jacobian of the polishing steps in groups: at most about this many
#: Jacobians per stored stretch (see polish_algebraic).
POLISH_JACOBIANS = 500


def _residual_and_jacobian(cs) -> ca.Function:
    """(t, x, z, p) -> (g, dense dg/dz) of a realisation's algebraic equations (cached)."""
    return cs.cached("algebraic_residual_and_jacobian", lambda: ca.Function(
        "g_gz", [cs.t, cs.x, cs.z, cs.p], [cs.alg, ca.densify(algebraic_jacobian(cs))]))


def _polish_functions(cs, jit: bool) -> tuple:
    """(g, (g, dg/dz)) of a realisation; with ``jit`` as machine code (:mod:`.native`: the
    output points of a fine grid cost thousands of evaluations of each when first read)."""
    if not jit:
        return cs.function("alg"), _residual_and_jacobian(cs)
    return cs.cached("native_polish_functions", lambda: tuple(native.compiled(
        [cs.function("alg"), _residual_and_jacobian(cs)])))


def polish_algebraic(cs, times, xs, zs, p, steps: int = 2, jit: bool = False):
    """Newton steps on g(t, x, z) = 0 at the given times (z consistent to rounding error).

    The solver returns z accurate to its error tolerance only; the DAE defines z exactly from x,
    so a few steps make the outputs consistent (e.g. a pendulum's length constraint holds to
    rounding error instead of to rtol). Steps that would not improve the residual are not
    taken. ``p`` is one parameter vector or one column per time.

    Chord steps: dg/dz (many times the cost of g for a spatial loop) is evaluated at one point
    in each ``POLISH_JACOBIANS``-th of the points and used for the points up to the next
    one, and the steps evaluate g alone; z starts within the solver's tolerance, so a Jacobian
    from a nearby point still contracts the error by orders of magnitude per step, and a
    fine output grid costs no more Jacobians than the default one. Evaluations go through
    :class:`~.buffers.Columns` and the linear solves are one batched LAPACK call per step;
    ``jit``: the evaluations are machine code (the run was ``simulate(jit=True)``).
    """
    n, n_z = times.size, zs.shape[0]
    p = np.asarray(p, float)
    if n == 1 and p.ndim == 1 and not jit:
        # one point (the run loop's, at every event): the same steps without the machinery
        # for many (a quarter of a millisecond a call on EngineV6, measured during development)
        return _polish_point(cs, float(np.asarray(times, float).ravel()[0]), xs[:, 0],
                             zs[:, 0], p, steps).reshape(-1, 1)
    shared = () if p.ndim == 2 else (3,)  # one parameter vector for all points, or a column each
    g_of = columns(cs, ("alg", jit), lambda: _polish_functions(cs, jit)[0], shared)
    g_and_jacobian = columns(cs, ("algebraic_residual_and_jacobian", jit),
                             lambda: _polish_functions(cs, jit)[1], shared)
    t_row = np.asarray(times, float).reshape(1, -1)
    stride = max(1, n // POLISH_JACOBIANS)
    anchors = np.arange(0, n, stride)
    _, jz = g_and_jacobian(t_row[:, anchors], xs[:, anchors], zs[:, anchors],
                           p[:, anchors] if p.ndim == 2 else p)
    # one block per anchor (side by side in jz); the points from one anchor to the next share
    # its block: one LU per anchor for all of them (a batched LAPACK call per step)
    jz = jz.reshape(n_z, anchors.size, n_z).transpose(1, 0, 2)
    g = g_of(t_row, xs, zs, p)[0]
    res = np.abs(g).max(axis=0)
    for _ in range(steps):
        with np.errstate(all="ignore"):
            delta = _chord_steps(jz, g, stride)
        z_new = zs - delta
        g_new = g_of(t_row, xs, z_new, p)[0]
        res_new = np.abs(g_new).max(axis=0)
        better = np.isfinite(res_new) & (res_new < res)
        if not better.any():
            break
        zs = np.where(better, z_new, zs)
        g = np.where(better, g_new, g)
        res = np.where(better, res_new, res)
    return zs


def _polish_point(cs, t: float, x: np.ndarray, z: np.ndarray, p: np.ndarray,
                  steps: int) -> np.ndarray:
    """:func:`polish_algebraic` at one point: the Jacobian once, chord steps on g, each taken
    only where it reduces the residual (the same LAPACK solve, so the same numbers)."""
    g_of = _buffered(cs, "alg", lambda: cs.function("alg"))
    n_z = z.size
    g, jz = _buffered(cs, "algebraic_residual_and_jacobian",
                      lambda: _residual_and_jacobian(cs)).evaluate(t, x, z, p)
    jz = jz.reshape(n_z, n_z, order="F")  # CasADi stores column by column
    res = np.abs(g).max()
    for _ in range(steps):
        with np.errstate(all="ignore"):
            delta = _newton_delta(jz, g)
        z_new = z - delta
        g_new = g_of.evaluate(t, x, z_new, p)[0]
        res_new = np.abs(g_new).max()
        if not (np.isfinite(res_new) and res_new < res):
            break
        z, g, res = z_new, g_new, res_new
    return z


def _buffered(cs, which: str, build) -> Buffered:
    """The cached :class:`~.buffers.Buffered` of a realisation's function ``build()``."""
    return cs.cached(("buffered", which), lambda: Buffered(build()))


def _chord_steps(jz: np.ndarray, g: np.ndarray, stride: int) -> np.ndarray:
    """jz[k // stride]^-1 g[:, k] for every point k (columns of g); NaN (no step) for the
    points of a singular block."""
    n_z, n = g.shape
    groups = jz.shape[0]
    padded = np.zeros((n_z, groups * stride))
    padded[:, :n] = g
    rhs = padded.reshape(n_z, groups, stride).transpose(1, 0, 2)
    try:
        steps = np.linalg.solve(jz, rhs)
    except np.linalg.LinAlgError:  # some block is singular: no step for its points
        steps = np.stack([_newton_delta(jz[a], rhs[a]) for a in range(groups)])
    return steps.transpose(1, 0, 2).reshape(n_z, groups * stride)[:, :n]


def _newton_delta(jz: np.ndarray, g: np.ndarray) -> np.ndarray:
    """jz^-1 g, or NaN (no step) where jz is singular."""
    try:
        return np.linalg.solve(jz, g)
    except np.linalg.LinAlgError:
        return np.full(g.shape, np.nan)


def newton_polish(cs, t: float, x: np.ndarray, z: np.ndarray, p: np.ndarray,
                  steps: int = 3) -> np.ndarray:
    """Numeric Newton steps on g(t, x, z) = 0 for one point (dense LU), stopping at the first
    step that does not reduce the residual: the solver's start after an event or a switch."""
    # through buffers: a call with numpy arrays converts g and the dense dg/dz through DM
    # (EngineV6's 48 x 48: 0.2 ms, seven times the evaluation, measured during development;
    # this runs at every restart)
    f = _buffered(cs, "algebraic_residual_and_jacobian", lambda: _residual_and_jacobian(cs))
    n_z = z.size

    def evaluate(z_at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        g_at, jz_at = f.evaluate(t, x, z_at, p)
        return g_at, jz_at.reshape(n_z, n_z, order="F")  # CasADi stores column by column

    g, jz = evaluate(z)
    norm = np.abs(g).max()
    for _ in range(steps):
        try:
            z_new = z - np.linalg.solve(jz, g)
        except np.linalg.LinAlgError:
            break
        g_new, jz_new = evaluate(z_new)
        norm_new = np.abs(g_new).max()
        if not (np.isfinite(norm_new) and norm_new < norm):
            break
        z, g, jz, norm = z_new, g_new, jz_new, norm_new
    return z
