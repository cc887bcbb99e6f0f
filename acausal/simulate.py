"""Integration with SUNDIALS through CasADi: CVODES for ODEs, IDAS for index-1 DAEs."""

from __future__ import annotations

from typing import Any

import casadi as ca
import numpy as np

from .compiler import CompiledSystem
from .errors import AcausalError, SimulationError
from .hybrid import (
    MAX_POLISHED_ALGEBRAICS,
    HybridSimulation,
    exact_start_integrator,
    polish_algebraic,
)
from .initialize import initialize
from .model import Component
from .progress import ProgressBar, progress_enabled
from .solution import Solution

DEFAULT_INTERVALS = 500


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
    ``max_step`` (none), ``integrator_options`` (passed to CasADi's integrator),
    ``dynamic_state_selection`` (None: when the compiler found it needed), ``progress`` (None:
    a progress bar on a terminal; with it shown, Ctrl-C returns the solution so far, marked
    ``sol.interrupted``).
    """
    cs = model if isinstance(model, CompiledSystem) else model.compile()
    return simulate_compiled(cs, t_end, **options)


def simulate_compiled(cs: CompiledSystem, t_end: float, *, t_start: float = 0.0,
                      n_points: int | None = None, dt: float | None = None, t_eval: Any = None,
                      params: dict[str, float] | None = None, rtol: float = 1e-6,
                      atol: float = 1e-8, max_step: float | None = None,
                      integrator_options: dict | None = None,
                      dynamic_state_selection: bool | None = None,
                      progress: bool | None = None) -> Solution:
    grid = output_grid(float(t_start), float(t_end), n_points, dt, t_eval)
    p = cs.parameter_vector(params)
    init = _initialize_with_branches(cs, p, float(grid[0]))
    dynamic = cs.dynamic_selection if dynamic_state_selection is None else dynamic_state_selection
    dynamic = dynamic and cs.selector is not None and cs.selector.max_level > 0
    _check_initial_derivatives(cs, grid[0], init, p)
    show = progress_enabled(progress)
    if cs.has_events or dynamic or show:
        # piecewise integration: events, state re-selection, or a progress display (which also
        # lets Ctrl-C return the solution up to the interruption)
        opts = _integrator_options(rtol, atol, max_step, integrator_options or {})
        bar = ProgressBar(f"simulate {cs.model_name}", float(grid[-1] - grid[0]), show)
        return HybridSimulation(cs, grid, init, p, opts, reselect=dynamic, progress=bar).run()
    xs, zs = _integrate(cs, grid, init.x0, init.z0, p, rtol, atol, max_step,
                        integrator_options or {})
    if 0 < zs.shape[0] <= MAX_POLISHED_ALGEBRAICS:
        zs = polish_algebraic(cs, grid, xs, zs, p)
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


def _check_initial_derivatives(cs, t0, init, p) -> None:
    """Name the states whose derivative is not finite at the start (CasADi's own error only
    says that the integrator call failed)."""
    if not cs.states:
        return
    xdot = np.array(cs.function("ode")(t0, init.x0, init.z0, p)).ravel()
    bad = [cs.state_names[i] for i in np.nonzero(~np.isfinite(xdot))[0]]
    if bad:
        raise SimulationError(
            f"At t = {t0:g} the derivative of {', '.join(bad[:8])} is not finite (a division by "
            "zero: e.g. a zero mass or inertia, or a singular configuration). Check the "
            "parameters and start values of the components these belong to.")


def _initialize_with_branches(cs, p: np.ndarray, t0: float):
    """Initial values; event_if branches start on the side their condition holds at t0.

    The branch variables are inputs of the initialisation, and the conditions depend on the
    initial values: iterate until the branches agree with the solution (a few rounds at most).
    """
    branches = [(i, prm) for i, prm in enumerate(cs.flat.parameters) if prm.follows is not None]
    init = initialize(cs, p, t0)
    if not branches:
        return init
    conditions = cs.function("event_conditions")
    sets_one = {}
    for e, ev in enumerate(cs.flat.events):
        for action in ev.actions:
            if action.kind == "assign" and action.value == 1:
                sets_one[action.target] = e
    for _ in range(5):
        cond = np.array(conditions(t0, init.x0, init.z0, p)).ravel() > 0.5
        changed = False
        for i, prm in branches:
            value = 1.0 if cond[sets_one[prm.symbol]] else 0.0
            if p[i] != value:
                p[i], changed = value, True
        if not changed:
            return init
        init = initialize(cs, p, t0)
    raise SimulationError("The event_if branches at the start time do not settle: their "
                          "conditions change with the initial values they select.")


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
            out = exact_start_integrator(cs, float(steps[0]), grid.size - 1, opts, x0, z0, p,
                                         float(grid[0]))
            out = {"xf": out["xf"], "zf": out["zf"]}
    except RuntimeError as exc:
        raise SimulationError(
            f"The integrator ({plugin.upper()}) failed: {_short(exc)}. Try a smaller rtol/atol "
            "or max_step, check the model near the reported time, or look for a singular "
            "configuration.") from exc
    # one copy only: the first column is the start, the others come from the integrator
    xs = np.empty((n_x, grid.size))
    xs[:, 0] = x0
    xs[:, 1:] = out["xf"].full()
    if n_z:
        zs = np.empty((n_z, grid.size))
        zs[:, 0] = z0
        zs[:, 1:] = out["zf"].full()
    else:
        zs = np.zeros((0, grid.size))
    return xs, zs


def _integrator_options(rtol, atol, max_step, extra) -> dict:
    opts = {"reltol": rtol, "abstol": atol}
    if max_step is not None:
        opts["max_step_size"] = max_step
    opts.update(extra)
    return opts


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    keep = [line for line in text if "Error" in line or "failed" in line or "t =" in line]
    return " ".join((keep or text)[-3:])[:500]


__all__ = ["simulate", "simulate_compiled", "output_grid", "AcausalError"]
