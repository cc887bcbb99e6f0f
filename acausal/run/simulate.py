"""Integration with SUNDIALS through CasADi: CVODES for ODEs, IDAS for index-1 DAEs."""

from __future__ import annotations

import math
import os
import warnings
from typing import Any

import numpy as np

from ..base.errors import AcausalError, InputError, SimulationError, did_you_mean
from ..base.progress import ProgressBar, progress_enabled
from ..compiler.compiled_model import CompiledModel
from ..language.model import Component
from . import sundials
from .event_detection import crossed, split_indicators
from .hybrid import HybridSimulation
from .initialize import initialize_with_branches, solve_algebraic
from .polish import newton_polish
from .solution import Solution
from .stuck_report import report_stuck
from .sundials import Settings

DEFAULT_INTERVALS = 500


def output_grid(t_start: float, t_end: float, n_points: int | None, dt: float | None,
                t_eval: Any, columns: int = 1) -> np.ndarray:
    """The output times: explicit ``t_eval``, a step ``dt``, or ``n_points`` equal intervals.

    The run always starts at ``t_start`` (initialised there) and ends at ``t_end``, whatever
    the output times: ``t_eval`` must lie inside ``[t_start, t_end]``, sorted (repeats
    allowed); it need not contain either end (:func:`run_grid` adds them for the run).
    ``columns``: the values stored per output point (time, states, algebraic variables);
    a grid whose results would not fit in memory is refused before it is allocated
    (:func:`check_output_memory`)."""
    if not (np.isfinite(t_start) and np.isfinite(t_end)) or t_end <= t_start:
        raise InputError(f"t_end ({t_end}) must be a finite time after t_start ({t_start}).")
    if t_eval is not None:
        try:
            grid = np.asarray(t_eval, dtype=float).ravel()
        except (TypeError, ValueError):
            raise InputError(f"t_eval must be an array of times in seconds, got {t_eval!r}."
                             ) from None
        if grid.size == 0 or not np.all(np.isfinite(grid)):
            raise InputError("t_eval must be a non-empty array of finite times, got "
                             f"{_short(grid)}.")
        back = np.nonzero(np.diff(grid) < 0)[0]
        if back.size:
            i = int(back[0])
            raise InputError(f"t_eval must be sorted (non-decreasing): t_eval[{i + 1}] = "
                             f"{float(grid[i + 1])!r} comes after t_eval[{i}] = "
                             f"{float(grid[i])!r}. Sort the times (np.sort(t_eval)).")
        outside = np.nonzero((grid < t_start) | (grid > t_end))[0]
        if outside.size:
            i = int(outside[0])
            raise InputError(
                f"t_eval[{i}] = {float(grid[i])!r} lies outside the simulated interval "
                f"[t_start, t_end] = [{t_start!r}, {t_end!r}]: the run starts at t_start "
                "(initialised there) and ends at t_end. Give output times inside it, or move "
                f"t_start/t_end to cover t_eval (here t_start <= {float(grid[0])!r} and t_end "
                f">= {float(grid[-1])!r}).")
        check_output_memory(grid.size, columns, f"t_eval ({grid.size} times)")
        return grid
    if dt is not None:
        dt = as_time(dt, "dt")
        if not dt > 0:
            raise InputError(f"dt must be a positive time step in seconds, got {dt}.")
        steps = (t_end - t_start) / dt  # may overflow to inf for a tiny dt: checked first
        check_output_memory(steps + 2, columns, f"dt={dt!r} over [{t_start!r}, {t_end!r}]")
        n = int(round(steps))
        grid = t_start + dt * np.arange(n + 1)
        if grid.size == 1 or grid[-1] < t_end - 1e-12 * max(1.0, abs(t_end)):
            grid = np.append(grid, t_end)
        grid[-1] = t_end  # the last step ends on t_end, not a rounding error before or past it
        return grid
    if n_points is not None and (isinstance(n_points, bool) or not (
            isinstance(n_points, (int, np.integer))  # an int of any size: no float overflow
            or float(as_time(n_points, "n_points")).is_integer())):
        raise InputError(f"n_points must be a whole number of output points, got {n_points!r}.")
    n = DEFAULT_INTERVALS if n_points is None else int(n_points) - 1
    if n < 1:
        raise InputError(f"n_points must be at least 2, got {n_points!r}.")
    check_output_memory(n + 1, columns, f"n_points={n_points!r}")
    return np.linspace(t_start, t_end, n + 1)


def run_grid(grid: np.ndarray, t_start: float, t_end: float
             ) -> tuple[np.ndarray, np.ndarray | None]:
    """(the times the run goes through, the positions of the output times in it or None).

    The run starts at ``t_start`` and ends at ``t_end`` even where the output times (a
    ``t_eval``) leave out either end: those are added for the run and dropped from the
    Solution afterwards (None: the run's times are the output times). Repeated output times
    are run once and reported as often as asked."""
    times = np.unique(np.concatenate([[t_start], grid, [t_end]]))
    if times.size == grid.size and np.array_equal(times, grid):  # from t_start to t_end
        return grid, None
    return times, np.searchsorted(times, grid)


#: The results may take at most this fraction of the memory of the machine (or of the
#: container's memory limit, where one is set) ...
OUTPUT_MEMORY_FRACTION = 0.5
#: ... or this many bytes where the operating system does not tell its memory (Windows).
OUTPUT_MEMORY_FALLBACK = 4 * 2**30


def output_memory_limit() -> int:
    """The bytes the stored results of one run may take: ``OUTPUT_MEMORY_FRACTION`` of the
    physical memory (``os.sysconf``) or of a smaller cgroup (container) limit, else
    ``OUTPUT_MEMORY_FALLBACK``.

    Physical memory, not the memory free at the moment: the same call should pass or fail
    the same way on one machine whatever else runs on it; half of it leaves room for the
    solver, the evaluation of the variables when they are read and the rest of the process."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        total = 0
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            with open(path) as f:
                text = f.read().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < (total or np.inf):
            total = int(text)  # a container limited below the machine's memory
    if total <= 0:
        return OUTPUT_MEMORY_FALLBACK
    return int(OUTPUT_MEMORY_FRACTION * total)


def check_output_memory(points: float, columns: int, source: str) -> None:
    """Refuse an output grid whose results (``points`` x ``columns`` values of 8 bytes: time,
    states and algebraic variables at every output point) would take more than
    :func:`output_memory_limit`, before anything is allocated: otherwise numpy fails with a
    MemoryError (or the system starts swapping) after the request, not naming it."""
    try:
        points = float(points)
    except OverflowError:  # n_points=10**400
        points = math.inf
    need = points * max(int(columns), 1) * 8
    limit = output_memory_limit()
    if need <= limit:
        return
    raise InputError(
        f"{source}: {_count(points)} output points x {int(columns)} stored values each (time, "
        f"states and algebraic variables) x 8 bytes would need {_count(need)} bytes"
        + (f" ({need / 2**30:.3g} GiB)" if math.isfinite(need) else "")
        + f" of memory, more than the {limit / 2**30:.3g} GiB the results may take here (half "
        "of the machine's memory; 4 GiB where it cannot be read). Ask for fewer output points: "
        "a smaller n_points, a larger dt, or t_eval with only the times you need.")


def _count(number: float) -> str:
    """A count for a message: digits grouped, or a power of ten past 15 digits."""
    if not math.isfinite(number):
        return "more than 1e308"
    return f"{number:,.0f}" if number < 1e15 else f"{number:.3g}"


def _short(values: np.ndarray) -> str:
    """An array for an error message: its first values only."""
    text = np.array2string(values[:6], separator=", ")
    return text[:-1] + ", ...]" if values.size > 6 else text


# The options of simulate(), with what each one accepts (quoted when a name is misspelled).
SIMULATE_OPTIONS = {
    "t_start": "start time [s] (0)",
    "n_points": "number of output points (501)",
    "dt": "output step [s]",
    "t_eval": "explicit output times [s], sorted, inside [t_start, t_end]",
    "params": "parameter values by dotted name",
    "start": "start values of variables by dotted name",
    "rtol": "relative tolerance (1e-6)",
    "atol": "absolute tolerance (1e-8, times each variable's nominal value)",
    "max_step": "largest integrator step [s]",
    "integrator_options": "max_num_steps, max_order, suppress_algebraic, method",
    "dynamic_state_selection": "re-select states during the run (None: when needed)",
    "progress": "progress display (None: on a terminal)",
    "verbose": "show the solver's own messages (False: kept for error messages)",
    "jit": "machine code for the solver's functions: 'auto' (default), True or False",
    "zeno": "events accumulating like Zeno behaviour: 'raise' (default), 'warn' or 'off'",
    "stuck_report": "warn about friction joints stuck through the whole run (True)",
}


def check_options(options: dict, accepted: dict = SIMULATE_OPTIONS, what: str = "simulate"
                  ) -> None:
    """Name a misspelled or unknown option and list the ones there are."""
    unknown = [k for k in options if k not in accepted]
    if unknown:
        name = unknown[0]
        listing = "; ".join(f"{k}: {v}" for k, v in accepted.items())
        raise InputError(f"{what}() has no option '{name}'.{did_you_mean(name, accepted)} "
                         f"The options are {listing}.")


def as_time(value: Any, name: str) -> float:
    """A time (or count) argument as a float, naming the argument when it is not a number."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got {value!r}.")
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name} must be a number (seconds for times), got {value!r}.") from None
    if not np.isfinite(number):
        raise InputError(f"{name} must be finite, got {value!r}.")
    return number


def simulate(model: Component | CompiledModel, t_end: float, **options: Any) -> Solution:
    """Compile (if needed), initialise and integrate a model.

    Options: ``t_start`` (0), ``n_points`` (501 output points) or ``dt`` or ``t_eval``
    (the run always starts at ``t_start``, initialised there, and ends at ``t_end``; ``t_eval``
    gives the output times: sorted, inside ``[t_start, t_end]``, and the Solution holds exactly
    these, whether or not they include either end; a grid whose results (time, states and
    algebraic variables at every point, 8 bytes each) would take more than half of the machine's
    memory, or 4 GiB where the system does not tell it, is refused with an InputError before
    anything is allocated: see :func:`output_memory_limit`), ``params`` (dict of parameter
    overrides by dotted name, vectors as lists), ``start`` (dict of start values by dotted name:
    replaces the declared start of a variable, ``fixed`` or guess as declared, without
    recompiling), ``rtol`` (1e-6), ``atol`` (1e-8),
    ``max_step`` (none), ``integrator_options`` (``max_num_steps`` between output points,
    ``max_order``, ``suppress_algebraic``, ``method``: ``"auto"``, the default, Adams until
    the run finds the model stiff, then BDF, see :mod:`acausal.run.integrator_choice`; or
    ``"BDF"`` or ``"Adams"`` throughout; ``sol.stats["method"]`` says which ran), ``jit``
    (``"auto"``, the default: the run starts in CasADi's virtual machine at once and switches
    to machine code between two solver steps once the system's C compiler has built it in the
    background, for a run long enough for that to pay, or loads it from the cache at the start;
    True: the functions the solver calls at every step are compiled to machine code before the
    run, once per model and machine, kept in a cache folder; False: the virtual machine only;
    see docs/compiler.md, "Native code" and "Tiered native code"),
    ``dynamic_state_selection`` (None: when the compiler found it needed), ``progress`` (None:
    a progress bar on a terminal; with it shown, Ctrl-C returns the solution so far, marked
    ``sol.interrupted``), ``verbose`` (False: SUNDIALS' own warnings are kept off the terminal
    and quoted in error messages; True: printed to stderr as they come), ``zeno`` (what events
    whose gaps shrink towards an accumulation point inside the run do: ``"raise"`` a
    SimulationError (default), ``"warn"`` once with a SimulationWarning and go on, ``"off"``: no
    test; see docs/events.md), ``stuck_report`` (True: a SimulationWarning names each friction
    joint that stayed stuck through the whole run while it held a load, with the friction it
    could hold against the load it held; False: no check; see docs/joint_friction.md, "Stuck
    joints").
    """
    check_options(options)
    if not isinstance(model, (Component, CompiledModel)):
        raise InputError(f"simulate() takes a Component instance or a CompiledSystem, got "
                         f"{model!r}.")
    cs = model if isinstance(model, CompiledModel) else model.compile()
    return simulate_compiled(cs, t_end, **options)


def simulate_compiled(cs: CompiledModel, t_end: float, **options: Any) -> Solution:
    """Initialise and integrate a compiled system (options as :func:`simulate`)."""
    check_options(options)
    return _simulate(cs, t_end, **options)


def _simulate(cs: CompiledModel, t_end: float, *, t_start: float = 0.0,
              n_points: int | None = None, dt: float | None = None, t_eval: Any = None,
              params: dict[str, float] | None = None, start: dict[str, float] | None = None,
              rtol: float = 1e-6, atol: float = 1e-8, max_step: float | None = None,
              integrator_options: dict | None = None,
              dynamic_state_selection: bool | None = None,
              progress: bool | None = None, verbose: bool = False,
              jit: bool | str = "auto", zeno: str = "raise",
              stuck_report: bool = True) -> Solution:
    t_end, t_start = as_time(t_end, "t_end"), as_time(t_start, "t_start")
    grid = output_grid(t_start, t_end, n_points, dt, t_eval,
                       columns=1 + cs.x.numel() + cs.z.numel())
    grid, take = run_grid(grid, t_start, t_end)
    if integrator_options is not None and not isinstance(integrator_options, dict):
        raise InputError(f"integrator_options must be a dict, got {integrator_options!r}.")
    settings = solver_settings(rtol, atol, max_step, integrator_options or {})
    settings.verbose = bool(verbose)
    if not (isinstance(jit, bool) or jit == "auto"):
        raise InputError(f"jit must be 'auto', True or False, got {jit!r} (see "
                         "docs/compiler.md, 'Tiered native code').")
    settings.jit = jit
    if zeno not in ("raise", "warn", "off"):
        raise InputError(f"zeno must be 'raise', 'warn' or 'off', got {zeno!r} (see "
                         "docs/events.md, 'Chattering and Zeno behaviour').")
    settings.zeno = zeno
    if not isinstance(stuck_report, bool):
        raise InputError(f"stuck_report must be True or False, got {stuck_report!r}.")
    p = cs.parameter_vector(params)
    with cs.start_values(start):
        init = initialize_with_branches(cs, p, t_start)
    dynamic = cs.dynamic_selection if dynamic_state_selection is None else dynamic_state_selection
    rule = getattr(cs, "orientation_rule", None)
    if dynamic_state_selection and rule is not None and not rule.skipped:
        warnings.warn(
            f"dynamic_state_selection=True: the states of {cs.model_name} stay the ones the "
            "compiler chose. It replaced the derivatives of its frames' orientations by "
            "der(T) = -skew(w) T for that choice (docs/compiler.md, 'The orientation rule'), "
            "so there is no other choice to switch to.", RuntimeWarning, stacklevel=3)
    dynamic = dynamic and cs.selector is not None and cs.selector.max_level > 0
    if cs.x.numel() and jit == "auto" and not dynamic:
        # the solver problem first (built once per compiled model): its machine code's cache
        # keys are computed in a thread (native.Planning) while the start values are checked
        # (with dynamic state selection the run may start on another realisation)
        sundials.problem_for(cs, split_indicators(cs)[0], jit)
    _check_initial_values(cs, t_start, init, p)
    try:
        if cs.x.numel() == 0:
            if cs.events:
                sol = AlgebraicRun(cs, grid, init, p, settings, reselect=False).run()
            else:
                sol = _algebraic_only(cs, grid, init, p)
        else:
            # one path for every model: the display only reads the time from the solver's
            # callbacks
            bar = ProgressBar(f"simulate {cs.model_name}", t_end - t_start,
                              progress_enabled(progress))
            sol = HybridSimulation(cs, grid, init, p, settings, reselect=dynamic,
                                   progress=bar).run()
    except SimulationError as err:
        if take is not None and err.solution is not None:
            err.solution._keep_points(take)  # the results so far, at the requested times only
        raise
    if stuck_report and not sol.interrupted:  # over the whole run, before t_eval's cut
        report_stuck(sol)
    if take is not None:
        sol._keep_points(take)
    return sol


def solver_settings(rtol: float, atol: float, max_step: float | None,
                    extra: dict) -> Settings:
    """Check the tolerances and options a user gave and name the one that is wrong."""
    check_tolerances(rtol=rtol, atol=atol)
    if max_step is not None and not (isinstance(max_step, (int, float))
                                     and np.isfinite(max_step) and max_step > 0):
        raise InputError(f"max_step must be a positive number or None, got {max_step!r}.")
    known = {"max_num_steps", "max_order", "suppress_algebraic", "max_step_size", "method"}
    unknown = sorted(set(extra) - known)
    if unknown:
        raise InputError(
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
    if "method" in extra:
        if extra["method"] not in ("auto", "BDF", "Adams"):
            raise InputError(f"integrator_options method={extra['method']!r}: use 'auto' "
                             "(default: Adams, switching to BDF where the run finds the model "
                             "stiff), 'BDF' (stiff systems) or 'Adams' (non-stiff ODEs).")
        settings.method = extra["method"]
    return settings


def check_tolerances(**tolerances: Any) -> None:
    """Check tolerances given by name (``check_tolerances(rtol=rtol, atol=atol)``): each a
    positive finite number, or an InputError that names the first one that is not (also used
    by :func:`acausal.identify.identify` for its integrator and fit tolerances)."""
    for name, value in tolerances.items():
        if not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
            raise InputError(f"{name} must be a positive number, got {value!r}.")


def _algebraic_only(cs, grid, init, p) -> Solution:
    """No states and no events: solve the algebraic equations at every output time."""
    n_z = cs.z.numel()
    zs = np.zeros((n_z, grid.size))
    z = init.z0
    for k, tk in enumerate(grid):
        if n_z:
            z = solve_algebraic(cs, p, float(tk), np.zeros(0), z)
        zs[:, k] = z
    return Solution(cs, grid, np.zeros((0, grid.size)), zs, p, init.defaulted)


class AlgebraicRun(HybridSimulation):
    """A model without states but with events (a source feeding a ``Limiter``): nothing to
    integrate, so the algebraic equations are solved at each output point and at each event,
    and the events go through the run loop's own ``fire`` (actions, event iteration, chattering
    and Zeno checks, ``sol.events``).

    Time indicators are scheduled as in the run loop (:class:`TimeEvents`: located to a few ulp,
    whatever the output grid). Indicators of algebraic variables are compared between
    consecutive stops and their crossing located by bisection (solving the algebraic equations
    at each trial time) to 4 ulp of t; a crossing and back between two output points is not
    seen (there is no solver step to watch them on)."""

    def _run(self) -> bool:
        """The output points and events in time order (HybridSimulation.run calls it)."""
        grid, x = self.grid, self.x
        t, z = self.t, self.z
        cond = self.conditions(t, x, z)
        z_rows, _ = split_indicators(self.cur)
        te = self.schedule()
        times, zs = [float(grid[0])], [z]  # output points not stored yet (same parameters)
        k = 1
        while k < grid.size:
            if self.interrupt.flag:
                return True
            t_next = float(grid[k])
            t_time = te.next_root(t, self.p, te.values(t, self.p)) if te.rows else None
            # a time event a few ulp after an output point (located past its crossing) comes
            # first, and the point gets the values after it, as in the run loop
            if t_time is not None and t_time <= t_next + 1e-14 * max(1.0, abs(t_next)):
                t_stop = float(t_time)
            else:
                t_stop, t_time = t_next, None
            z_stop = self.restart_algebraic(t_stop, x, z)
            t_event, z_event = self._crossing(z_rows, t, z, t_stop, z_stop)
            if t_event is None and t_time is None:  # no event up to the output point
                times.append(t_stop)
                zs.append(z_stop)
                t, z, k = t_stop, z_stop, k + 1
                continue
            if t_event is None:
                t_event, z_event = t_stop, z_stop
            self._keep(times, zs)  # the points before the event, with their parameters
            times, zs = [], []
            self.record_root(t_event)
            x, z, cond, labels = self.fire(t_event, x, z_event, cond)
            if labels:
                self.record_event(t_event, labels, x, z)
            t = t_event
            while k < grid.size and grid[k] <= t + 1e-14 * max(1.0, abs(t)):
                # an event on an output point (or a few ulp after one): the values after it
                times.append(float(grid[k]))
                zs.append(z)
                k += 1
        self._keep(times, zs)
        self.x, self.z, self.t = x, z, t
        return False

    def restart_algebraic(self, t, x, z_guess):
        # to rounding error, not to Newton's tolerance: the crossings of indicators of
        # algebraic variables are located from these values
        z = super().restart_algebraic(t, x, z_guess)
        return newton_polish(self.cur, t, x, z, self.p) if z.size else z

    def _keep(self, times: list, zs: list) -> None:
        if times:
            self.store(np.array(times), np.zeros((0, len(times))),
                       np.array(zs, float).reshape(len(times), -1).T)

    def _crossing(self, rows, t0, z0, t1, z1):
        """(time, algebraic values) of the first crossing in (t0, t1] of an indicator of
        algebraic variables whose relation can change its clause, or (None, None)."""
        if not rows or not z0.size:
            return None, None
        rows = np.asarray(rows)[self.gates().live(self.p)[rows]]
        indicators = sundials.fast(self.cur, "event_indicators").evaluate

        def g(t, z):
            return indicators(t, self.x, z, self.p)[0][rows]

        g0 = g(t0, z0)
        if not crossed(g0, g(t1, z1)).any():
            return None, None
        lo, hi, z_lo, z_hi = t0, t1, z0, z1
        while hi - lo > 4 * np.spacing(max(abs(hi), 1e-300)):
            mid = 0.5 * (lo + hi)
            z_mid = self.restart_algebraic(mid, self.x, z_lo)
            if crossed(g0, g(mid, z_mid)).any():
                hi, z_hi = mid, z_mid
            else:
                lo, z_lo = mid, z_mid
        return float(hi), z_hi


def _check_initial_values(cs, t0, init, p) -> None:
    """Name what is not finite at the start: state derivatives, and any variable (``y = 1/x``
    at ``x = 0``), with the zero-valued parameters of the components they belong to (a zero
    mass or inertia). Without this check a NaN would only surface when the result is read."""
    bad_der: list[str] = []
    if cs.states:
        xdot = np.array(cs.function("ode")(t0, init.x0, init.z0, p)).ravel()
        bad_der = [cs.state_names[i] for i in np.nonzero(~np.isfinite(xdot))[0]]
    values = np.array(cs.function("observed")(t0, init.x0, init.z0, p)).ravel()
    bad_var = [cs.system.name(v) for v in np.nonzero(~np.isfinite(values))[0]]
    bad_var = [n for n in bad_var if not n.startswith("der(")]
    if not bad_der and not bad_var:
        return
    parts = []
    if bad_der:
        parts.append(f"the derivative of {', '.join(bad_der[:8])}")
    if bad_var:
        parts.append(f"the value of {', '.join(bad_var[:8])}")
    zeros = _zero_parameters(cs, bad_der + bad_var, p)
    many = len(zeros) > 1
    cause = (f" The parameter{'s' * many} {', '.join(zeros)} {'are' if many else 'is'} 0: "
             f"give {'them' if many else 'it'} a non-zero value." if zeros else
             " Check the parameters and start values of the components these belong to.")
    plural = len(bad_der) + len(bad_var) > 1
    raise SimulationError(
        f"At t = {t0:g} {' and '.join(parts)} {'are' if plural else 'is'} not finite (NaN or "
        "inf: a division by zero, e.g. a zero mass or inertia, or a singular configuration)."
        + cause)


def _zero_parameters(cs, names: list[str], p: np.ndarray) -> list[str]:
    """The parameters (e.g. 'inertia.J') equal to zero in the components that own ``names``,
    among those declared with the lower bound 0 (``min=0``: a mass, an inertia, a stiffness,
    where 0 is allowed but may divide): an unbounded parameter at 0 (an angle offset, a
    coordinate) is an ordinary value, and naming it would be wrong advice."""
    origin = {v.name: v.origin for v in cs.flat.variables}
    owners = {origin.get(n, n.rpartition(".")[0]) for n in names}
    return [prm.name for i, prm in enumerate(cs.flat.parameters)
            if prm.origin in owners and not prm.discrete and prm.follows is None and p[i] == 0
            and prm.min == 0]


__all__ = ["simulate", "simulate_compiled", "output_grid", "run_grid", "AcausalError"]
