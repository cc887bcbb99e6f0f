"""Integration with SUNDIALS through CasADi: CVODES for ODEs, IDAS for index-1 DAEs."""

from __future__ import annotations

from typing import Any

import numpy as np

from .compiler import CompiledSystem
from .errors import AcausalError, SimulationError
from .hybrid import HybridSimulation
from .initialize import initialize, solve_algebraic
from .model import Component
from .progress import ProgressBar, progress_enabled
from .solution import Solution
from .sundials import Settings

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
    ``max_step`` (none), ``integrator_options`` (``max_num_steps`` between output points,
    ``max_order``, ``suppress_algebraic``),
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
    settings = solver_settings(rtol, atol, max_step, integrator_options or {})
    p = cs.parameter_vector(params)
    init = _initialize_with_branches(cs, p, float(grid[0]))
    dynamic = cs.dynamic_selection if dynamic_state_selection is None else dynamic_state_selection
    dynamic = dynamic and cs.selector is not None and cs.selector.max_level > 0
    _check_initial_derivatives(cs, grid[0], init, p)
    if cs.x.numel() == 0:
        return _algebraic_only(cs, grid, init, p)
    # one path for every model: the display only reads the time from the solver's callbacks
    bar = ProgressBar(f"simulate {cs.model_name}", float(grid[-1] - grid[0]),
                      progress_enabled(progress))
    return HybridSimulation(cs, grid, init, p, settings, reselect=dynamic, progress=bar).run()


def solver_settings(rtol: float, atol: float, max_step: float | None,
                    extra: dict) -> Settings:
    """Check the tolerances and options a user gave and name the one that is wrong."""
    for name, value in (("rtol", rtol), ("atol", atol)):
        if not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
            raise SimulationError(f"{name} must be a positive number, got {value!r}.")
    if max_step is not None and not (np.isfinite(max_step) and max_step > 0):
        raise SimulationError(f"max_step must be a positive number or None, got {max_step!r}.")
    known = {"max_num_steps", "max_order", "suppress_algebraic", "max_step_size"}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise SimulationError(
            f"Unknown integrator_options {', '.join(unknown)}; known: {', '.join(sorted(known))} "
            "(rtol, atol and max_step are arguments of simulate).")
    settings = Settings(float(rtol), float(atol), max_step)
    if "max_step_size" in extra:
        settings.max_step = float(extra["max_step_size"])
    if "max_num_steps" in extra:
        settings.max_num_steps = int(extra["max_num_steps"])
    if "max_order" in extra:
        settings.max_order = int(extra["max_order"])
    settings.suppress_algebraic = bool(extra.get("suppress_algebraic", False))
    return settings


def _algebraic_only(cs, grid, init, p) -> Solution:
    """No states: solve the algebraic equations at every output time."""
    n_z = cs.z.numel()
    zs = np.zeros((n_z, grid.size))
    z = init.z0
    for k, tk in enumerate(grid):
        if n_z:
            z = solve_algebraic(cs, p, float(tk), np.zeros(0), z)
        zs[:, k] = z
    return Solution(cs, grid, np.zeros((0, grid.size)), zs, p, init.defaulted)


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


__all__ = ["simulate", "simulate_compiled", "output_grid", "AcausalError"]
