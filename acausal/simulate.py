"""Integration with SUNDIALS through CasADi: CVODES for ODEs, IDAS for index-1 DAEs."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .compiler import CompiledSystem
from .errors import AcausalError, SimulationError
from .initialize import initialize
from .model import Component
from .solution import Solution

DEFAULT_INTERVALS = 500
#: Up to this many algebraic variables, outputs get Newton-polished (symbolic linear solve).
MAX_POLISHED_ALGEBRAICS = 40


def output_grid(t_start: float, t_end: float, n_points: int | None, dt: float | None,
                t_eval: Any) -> np.ndarray:
    """The output times: explicit ``t_eval``, a step ``dt``, or ``n_points`` equal intervals."""
    if t_eval is not None:
        grid = np.asarray(t_eval, dtype=float).ravel()
        if grid.size == 0 or np.any(np.diff(grid) <= 0) or not np.all(np.isfinite(grid)):
            raise SimulationError("t_eval must be a non-empty, strictly increasing array of "
                                  "finite times.")
        return grid
    if not (np.isfinite(t_start) and np.isfinite(t_end)) or t_end <= t_start:
        raise SimulationError(f"t_end ({t_end}) must be a finite time after t_start ({t_start}).")
    if dt is not None:
        if not dt > 0:
            raise SimulationError(f"dt must be positive, got {dt}.")
        n = int(round((t_end - t_start) / dt))
        grid = t_start + dt * np.arange(n + 1)
        if grid[-1] < t_end - 1e-12 * max(1.0, abs(t_end)):
            grid = np.append(grid, t_end)
        grid[-1] = min(grid[-1], t_end)
        return grid
    n = DEFAULT_INTERVALS if n_points is None else int(n_points) - 1
    if n < 1:
        raise SimulationError("n_points must be at least 2.")
    return np.linspace(t_start, t_end, n + 1)


def simulate(model: Component | CompiledSystem, t_end: float, **options: Any) -> Solution:
    """Compile (if needed), initialise and integrate a model.

    Options: ``t_start`` (0), ``n_points`` (501 output points) or ``dt`` or ``t_eval``,
    ``params`` (dict of parameter overrides by dotted name), ``rtol`` (1e-6), ``atol`` (1e-8),
    ``max_step`` (none), ``integrator_options`` (passed to CasADi's integrator).
    """
    cs = model if isinstance(model, CompiledSystem) else model.compile()
    return simulate_compiled(cs, t_end, **options)


def simulate_compiled(cs: CompiledSystem, t_end: float, *, t_start: float = 0.0,
                      n_points: int | None = None, dt: float | None = None, t_eval: Any = None,
                      params: dict[str, float] | None = None, rtol: float = 1e-6,
                      atol: float = 1e-8, max_step: float | None = None,
                      integrator_options: dict | None = None,
                      dynamic_state_selection: bool | None = None) -> Solution:
    grid = output_grid(float(t_start), float(t_end), n_points, dt, t_eval)
    p = cs.parameter_vector(params)
    init = initialize(cs, p, float(grid[0]))
    dynamic = cs.dynamic_selection if dynamic_state_selection is None else dynamic_state_selection
    if dynamic and cs.selector is not None and cs.selector.max_level > 0:
        return _simulate_with_state_reselection(cs, grid, init, p, rtol, atol, max_step,
                                                integrator_options or {})
    xs, zs = _integrate(cs, grid, init.x0, init.z0, p, rtol, atol, max_step,
                        integrator_options or {})
    if 0 < zs.shape[0] <= MAX_POLISHED_ALGEBRAICS:
        zs = _polish_algebraic(cs, grid, xs, zs, p)
    for label, arr, names in (("states", xs, cs.state_names), ("algebraic", zs,
                                                                cs.algebraic_names)):
        bad = ~np.all(np.isfinite(arr), axis=1)
        if bad.any():
            first = int(np.min(np.nonzero(~np.all(np.isfinite(arr), axis=0))[0]))
            raise SimulationError(
                f"Non-finite values (NaN or inf) from t = {grid[first]:g} on in {label}: "
                + ", ".join(names[i] for i in np.nonzero(bad)[0][:8]) + ". A division by zero "
                "or a singular configuration (e.g. a mechanism at a dead centre) is likely; "
                "check parameters and start values.")
    return Solution(cs, grid, xs, zs, p, init.defaulted)


def _integrate(cs, grid, x0, z0, p, rtol, atol, max_step, extra):
    n_x, n_z = cs.x.numel(), cs.z.numel()
    if n_x == 0:
        # Nothing to integrate: solve the algebraic equations at every output time.
        zs = np.zeros((n_z, grid.size))
        z = z0
        for k, tk in enumerate(grid):
            if n_z:
                from .initialize import _solve_algebraic
                z = _solve_algebraic(cs, p, float(tk), np.zeros(0), z)
            zs[:, k] = z
        return np.zeros((0, grid.size)), zs
    plugin = "cvodes" if n_z == 0 else "idas"
    opts = _integrator_options(rtol, atol, max_step, extra)
    key = ("integrator", plugin, grid.tobytes(), tuple(sorted(
        (k, repr(v)) for k, v in opts.items())))
    integ = cs._functions.get(key)
    if integ is None:
        dae = {"x": cs.x, "p": cs.p, "t": cs.t, "ode": cs.ode}
        if n_z:
            dae["z"] = cs.z
            dae["alg"] = cs.alg
        try:
            integ = ca.integrator("sim", plugin, dae, float(grid[0]), grid[1:], opts)
        except RuntimeError as exc:
            raise SimulationError(f"CasADi rejected the integrator options {opts}: {exc}") from exc
        cs._functions = {k: v for k, v in cs._functions.items() if k[0] != "integrator"} \
            if isinstance(cs._functions, dict) else {}
        cs._functions[key] = integ
    args = {"x0": x0, "p": p}
    if n_z:
        args["z0"] = z0
    try:
        try:
            out = integ(**args)
        except RuntimeError as exc:
            if "IDA_LINESEARCH_FAIL" not in str(exc):
                raise
            steps = np.diff(grid)
            if not np.allclose(steps, steps[0], rtol=1e-9, atol=0.0):
                raise
            out = _integrate_exact_start(cs, float(steps[0]), grid.size - 1, opts, x0, z0, p,
                                         float(grid[0]))
            out = {"xf": ca.DM(np.array(out["xf"].full())), "zf": out["zf"]}
    except RuntimeError as exc:
        raise SimulationError(
            f"The integrator ({plugin.upper()}) failed: {_short(exc)}. Try a smaller rtol/atol "
            "or max_step, check the model near the reported time, or look for a singular "
            "configuration.") from exc
    xs = np.hstack([np.asarray(x0, dtype=float).reshape(-1, 1), np.array(out["xf"].full())])
    if n_z:
        zs = np.hstack([np.asarray(z0, dtype=float).reshape(-1, 1), np.array(out["zf"].full())])
    else:
        zs = np.zeros((0, grid.size))
    return xs, zs


#: Re-select states when the current choice's quality falls below this fraction of its value at
#: the last (re)selection, and switch only to a choice at least SWITCH_GAIN times better.
RESELECT_FRACTION = 0.5
SWITCH_GAIN = 1.5


def _integrator_options(rtol, atol, max_step, extra) -> dict:
    opts = {"reltol": rtol, "abstol": atol}
    if max_step is not None:
        opts["max_step_size"] = max_step
    opts.update(extra)
    return opts


#: Output intervals integrated per integrator call while states may be re-selected: restarting
#: the integrator at every output point costs accuracy (it restarts at low order).
RESELECT_CHUNK = 25


def _integrate_exact_start(cs, h, m, opts, x, z, p, t_k):
    """One chunk with IDAS started from the exact derivative der(x) = f(t_k, x, z).

    IDAS computes consistent initial values itself (IDACalcIC); its line search can fail on a
    start that is already consistent to rounding error. Our z is consistent, so this fallback
    skips IDACalcIC and hands IDAS the exact initial derivative instead (an integrator built for
    this one start: used only when the normal call failed).
    """
    xdot0 = np.array(cs.function("ode")(t_k, x, z, p)).ravel()
    tau = ca.SX.sym("tau")
    t_sym = ca.SX.sym("t_k")
    dae = {"x": cs.x, "z": cs.z, "p": ca.vertcat(cs.p, t_sym), "t": tau,
           "ode": ca.substitute(cs.ode, cs.t, tau + t_sym),
           "alg": ca.substitute(cs.alg, cs.t, tau + t_sym)}
    integ = ca.integrator("chunk_exact_start", "idas", dae, 0.0,
                          [h * (j + 1) for j in range(m)],
                          {**opts, "calc_ic": False, "init_xdot": xdot0.tolist()})
    return integ(x0=x, z0=z, p=np.append(p, t_k))


def _chunk_integrator(cs: CompiledSystem, h: float, m: int, opts: dict) -> ca.Function:
    """Integrator over [t_k, t_k + m h] with outputs every h, for any t_k (time shifted,
    t_k an extra parameter)."""
    key = ("chunk", float(h), m, tuple(sorted((k, repr(v)) for k, v in opts.items())))
    integ = cs._functions.get(key)
    if integ is None:
        tau = ca.SX.sym("tau")
        t_k = ca.SX.sym("t_k")
        dae = {"x": cs.x, "p": ca.vertcat(cs.p, t_k), "t": tau,
               "ode": ca.substitute(cs.ode, cs.t, tau + t_k)}
        plugin = "cvodes"
        if cs.z.numel():
            plugin = "idas"
            dae["z"] = cs.z
            dae["alg"] = ca.substitute(cs.alg, cs.t, tau + t_k)
        integ = ca.integrator("chunk", plugin, dae, 0.0, [h * (j + 1) for j in range(m)], opts)
        cs._functions[key] = integ
    return integ


def _simulate_with_state_reselection(cs, grid, init, p, rtol, atol, max_step, extra):
    """Integrate in chunks and re-select the states when the choice degrades.

    At every output point the quality of the current dummy-derivative choice is measured (see
    StateSelector.quality). When it has fallen below RESELECT_FRACTION of its value at the last
    selection, the selection is made afresh at this point; if the new choice is clearly better
    the model switches to its realisation there: the new states take their values from the
    current solution, the algebraic variables are solved again, and integration restarts.
    """
    from .initialize import _solve_algebraic

    selector = cs.selector
    opts = _integrator_options(rtol, atol, max_step, extra)
    values = np.empty((cs.system.n_vars, grid.size))
    switches: list[tuple[float, list[str]]] = []
    steps = np.diff(grid)
    uniform = np.allclose(steps, steps[0], rtol=1e-9, atol=0.0)  # CSV grids: rounding

    def observe(real, t, x, z):
        return np.array(real.function("observed")(t, x, z, p)).ravel()

    def as_point(v):
        return dict(enumerate(v.tolist()))

    def reselect(real, t, v, q_now, forced=False):
        best = selector.select(as_point(v), t)
        if best == set(real.dummies):
            return real, q_now
        q_best = selector.quality(best, as_point(v), t)
        if q_best <= SWITCH_GAIN * q_now and not forced:
            return real, q_now
        switches.append((float(t), cs.realization(best).state_names))
        return cs.realization(best), q_best

    def restart(real, t, v):
        x = v[real.states]
        z = _solve_algebraic(real, p, t, x, v[real.algebraics]) if real.algebraics \
            else np.zeros(0)
        return x, z, observe(real, t, x, z)

    cur = cs
    x, z = np.asarray(init.x0, float), np.asarray(init.z0, float)
    v = observe(cur, grid[0], x, z)
    q_ref = selector.quality(cur.dummies, as_point(v), grid[0])
    new, q_ref = reselect(cur, grid[0], v, q_ref)
    if new is not cur:
        cur = new
        x, z, v = restart(cur, grid[0], v)
    values[:, 0] = v
    k = 0
    single_until = 0  # after a failed chunk, go one output interval at a time for a while
    forced_at = -1
    while k < grid.size - 1:
        m = min(RESELECT_CHUNK, grid.size - 1 - k) if uniform and k >= single_until else 1
        integ = _chunk_integrator(cur, float(grid[k + 1] - grid[k]), m, opts)
        args = {"x0": x, "p": np.append(p, grid[k])}
        if cur.z.numel():
            args["z0"] = z
        try:
            try:
                out = integ(**args)
            except RuntimeError as exc:
                if "IDA_LINESEARCH_FAIL" not in str(exc):
                    raise
                out = _integrate_exact_start(cur, float(grid[k + 1] - grid[k]), m, opts, x, z,
                                             p, float(grid[k]))
        except RuntimeError as exc:
            if m > 1:  # the states may have become singular inside the chunk: go finer
                single_until = k + RESELECT_CHUNK
                continue
            if forced_at != k:  # re-select at the start of the failing interval and retry
                forced_at = k
                new, q_ref = reselect(cur, grid[k], values[:, k], 0.0, forced=True)
                if new is not cur:
                    cur = new
                    x, z, _ = restart(cur, grid[k], values[:, k])
                    continue
            raise SimulationError(
                f"The integrator failed after t = {grid[k]:g} with states "
                f"{', '.join(cur.state_names)}: {_short(exc)}. Try a smaller rtol/atol or "
                "max_step.") from exc
        xs = np.array(out["xf"].full())
        zs = np.array(out["zf"].full()) if cur.z.numel() else np.zeros((0, m))
        if 0 < zs.shape[0] <= MAX_POLISHED_ALGEBRAICS:
            zs = _polish_algebraic(cur, grid[k + 1:k + 1 + m], xs, zs, p)
        switched = False
        for j in range(m):
            t_j = float(grid[k + 1 + j])
            x, z = xs[:, j], zs[:, j]
            v = observe(cur, t_j, x, z)
            if not np.all(np.isfinite(v)):
                raise SimulationError(f"Non-finite values at t = {t_j:g} (states "
                                      f"{', '.join(cur.state_names)}).")
            q = selector.quality(cur.dummies, as_point(v), t_j)
            if q < RESELECT_FRACTION * q_ref:
                new, q_ref = reselect(cur, t_j, v, q)
                if new is not cur:
                    cur = new
                    x, z, v = restart(cur, t_j, v)
                    switched = True
            values[:, k + 1 + j] = v
            if switched:
                k += j + 1
                break
        if not switched:
            k += m
    return Solution(cs, grid, np.zeros((0, grid.size)), np.zeros((0, grid.size)), p,
                    init.defaulted, values=values, state_switches=switches)


def _polish_algebraic(cs, grid, xs, zs, p, steps: int = 2):
    """Newton steps on g(t, x, z) = 0 at every output time.

    IDAS returns z accurate to its error tolerance only; the DAE defines z exactly from x, so a
    couple of Newton steps make the outputs consistent (e.g. a pendulum's length constraint holds
    to rounding error instead of to rtol). Steps that would not improve the residual are not
    taken.
    """
    step = cs.function("newton_step").map(grid.size)
    alg = cs.function("alg").map(grid.size)
    t_row = grid.reshape(1, -1)
    p_cols = np.tile(p.reshape(-1, 1), (1, grid.size))
    res = np.abs(np.array(alg(t_row, xs, zs, p_cols))).max(axis=0)
    for _ in range(steps):
        z_new = np.array(step(t_row, xs, zs, p_cols))
        res_new = np.abs(np.array(alg(t_row, xs, z_new, p_cols))).max(axis=0)
        better = np.isfinite(res_new) & (res_new <= res)
        zs = np.where(better, z_new, zs)
        res = np.where(better, res_new, res)
    return zs


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    keep = [line for line in text if "Error" in line or "failed" in line or "t =" in line]
    return " ".join((keep or text)[-3:])[:500]


__all__ = ["simulate", "simulate_compiled", "output_grid", "AcausalError"]
