"""The run loop: integration between events, events, dynamic state selection, progress.

Every simulation goes through :class:`HybridSimulation` (one path, whatever is displayed).

* **Between events** one solver call (CVODE or IDA, :mod:`acausal.run.sundials`) integrates over all
  output points up to the next stop: the end, or the next *time event*.
* **State events**: every event indicator (one per relation between continuous quantities in a
  ``When`` condition or ``event_if``) that depends on states or algebraic variables is a SUNDIALS
  root function, tracked in both directions inside the solver's steps, so crossings are found
  whatever the output grid. The solver stops at the first one (located to SUNDIALS' root
  tolerance, ~100 ulp of t).
* **Time events**: indicators that depend on time and parameters only (``time >= t_switch``, a
  periodic source, ``sin(2*pi*f*time) > 0.9``) are scheduled: their next root is found from the
  indicator function itself (samples, a Hermite check for double crossings between samples,
  then Illinois refinement to a few ulp) and becomes the solver's stop time, so the solver steps
  exactly onto it, never across.
* **At an event** the clauses whose condition changed from false to true fire: their actions are
  computed from the values just before the event and applied (clauses firing together in
  declaration order); the algebraic variables are solved again, conditions re-evaluated and
  clauses that became true through the new values fire too (event iteration). The solver then
  restarts at the event. Too many events in too short a time is reported as chattering, events
  accumulating geometrically as Zeno behaviour.
* **Dynamic state selection** (when the compiler asks for it) checks the quality of the current
  state choice on the solver's steps, at most once in each of ``RESELECT_CHECKS`` equal intervals
  of the run, through an extra root function (:class:`SelectionWatch`): a poor choice stops the
  solver at that step, where a better realisation takes over. The output grid changes neither
  the steps nor the checks.
* **Progress** is reported from inside the solver's callbacks (every ``PROGRESS_EVERY`` calls), so
  showing it changes nothing in the integration; Ctrl-C makes the solver's callbacks return
  NaN, so that it stops at its next step with every output point it had reached; with the
  display on the solution so far is returned (``sol.interrupted``), without it
  KeyboardInterrupt is raised.
"""

from __future__ import annotations

import math
import re
import signal
import threading
import warnings
from collections import deque

import casadi as ca
import numpy as np

from ..base.errors import SimulationError, SimulationWarning
from . import integrator_choice, sundials, tiering
from .buffers import columns
from .event_detection import (
    CHATTER_EVENTS,
    Chatter,
    RelationGates,
    TimeEvents,
    output_rows,
    split_indicators,
)
from .polish import newton_polish, polish_algebraic
from .root_step import leave_zero, step_past
from .solution import Solution, non_finite_message
from .solver_functions import algebraic_jacobian, linear_in_algebraics

#: Re-select states when the current choice's quality falls below this fraction of its value at
#: the last (re)selection, and switch only to a choice at least SWITCH_GAIN times better.
RESELECT_FRACTION = 0.5
SWITCH_GAIN = 1.5
#: Event iteration limit at one instant.
MAX_EVENT_ITERATIONS = 50
#: Zeno detection: gaps between this many successive events shrinking geometrically (with a
#: steady ratio) towards an accumulation point inside the simulated time.
ZENO_EVENTS = 6
#: ... with the largest gap ratio within this factor of the smallest, and the last ratio at most
#: this factor above the first (a ratio climbing towards 1 converges to a positive gap)
ZENO_STEADY = 1.1
ZENO_TREND = 1.02
MAX_POLISHED_ALGEBRAICS = 40
#: An algebraic Jacobian whose smallest singular value fell below this fraction of its value
#: at the start is reported as singular when the solver fails.
SINGULAR_DROP = 1e-4
#: Fewest output points handed to the solver in one call (see HybridSimulation._run).
WINDOW_MIN = 1024
#: Dynamic state selection checks the state choice on the solver's steps, at most once in each
#: of this many equal intervals of the run (and at every step where steps are longer) ...
RESELECT_CHECKS = 500
#: ... and at least every this many solver steps: a solver that crawls towards a singular
#: configuration (steps of nanoseconds) is checked on its way, not only at the next interval.
RESELECT_STEPS = 50


class _Interrupt:
    """Ctrl-C during a run: a flag that makes the solver's callbacks return NaN (the solver then
    stops at its next step, keeping every output point it had reached). With the display on
    (``keep``) the run returns the solution so far; without it the run raises
    KeyboardInterrupt once the solver has stopped (Python's own handler would raise it inside
    a solver callback, and a callback called from C, as the compiled driver's are, cannot pass
    an exception on). Signals reach the main thread only: elsewhere nothing is installed."""

    def __init__(self, keep: bool) -> None:
        self.keep = keep
        self.enabled = threading.current_thread() is threading.main_thread()
        self.flag = False
        self.problem = None
        self._previous = None

    def __enter__(self):
        if self.enabled:
            self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        self.flag = True
        if self.problem is not None:
            self.problem.interrupted = True

    def __exit__(self, *exc):
        if self.enabled:
            signal.signal(signal.SIGINT, self._previous)
        return False


def choose_states(selector, dummies, t: float, v: np.ndarray, q_ref: float,
                  forced: bool = False) -> tuple[set | None, float]:
    """(new dummy set or None, quality reference): whether the realisation with ``dummies``
    should give way to a better one at time ``t`` and values ``v`` of every variable.

    Re-select only when the quality fell below RESELECT_FRACTION of ``q_ref`` (1 at the start:
    the best possible), and switch only to a choice SWITCH_GAIN times better (``forced``: take
    the best whatever the gain). The one rule for simulation, linearisation and FMU export."""
    v = np.asarray(v, float)
    q_now = selector.quality_at(dummies, v, t)
    if not forced and q_now >= RESELECT_FRACTION * q_ref:
        return None, q_ref
    best = selector.select(dict(enumerate(v.tolist())), t)
    if best == set(dummies):
        return None, q_now
    q_best = selector.quality_at(best, v, t)
    if q_best <= SWITCH_GAIN * q_now and not forced:
        return None, q_now
    return best, q_best


class SelectionWatch:
    """Dynamic state selection's check as the solver's extra root function
    (:meth:`sundials.Problem.set_watch`).

    SUNDIALS evaluates its root functions after every step. At the first step end in each of
    ``RESELECT_CHECKS`` equal intervals of the run that holds one, and after every
    ``RESELECT_STEPS`` steps without a check, the watch measures the quality
    of the current state choice there; when it fell below ``RESELECT_FRACTION`` of the
    reference, the function is -1 from that step on (+1 before it), so the solver stops there
    as at an event and the run loop chooses again. The checks thus follow the solver's steps,
    whatever the output grid, and cost nothing between check times."""

    def __init__(self, sim: HybridSimulation, prob: sundials.Problem, q_ref: float,
                 tspan: np.ndarray) -> None:
        self.sim, self.prob = sim, prob
        # SUNDIALS also evaluates the root functions at the output times inside a step
        # (interpolated): no check there, so that the checks, the switches and with them the
        # solver's steps are the same whatever the output grid
        self.outputs = frozenset(tspan.tolist())
        t_start = float(tspan[0])
        self.threshold = RESELECT_FRACTION * q_ref
        # check times: t_0 + k * span / RESELECT_CHECKS over the whole run
        self.t0, self.interval = float(sim.grid[0]), sim.span / RESELECT_CHECKS
        self.next_check = self._check_after(t_start)
        self.stop_from = np.inf
        self.since_check = 0  # evaluations (steps, root iterations) since the last check
        self.n_x = sim.cur.x.numel()

    def _check_after(self, t: float) -> float:
        if not self.interval > 0:
            return -np.inf  # a run of no length: check at every evaluation
        return self.t0 + (np.floor((t - self.t0) / self.interval) + 1.0) * self.interval

    def __call__(self, t: float, u: np.ndarray) -> float:
        if t >= self.stop_from:
            return -1.0
        if t in self.outputs:
            return 1.0
        self.since_check += 1
        if t < self.next_check and self.since_check < RESELECT_STEPS:
            return 1.0
        self.next_check = self._check_after(t)
        self.since_check = 0
        sim = self.sim
        y = self.prob.unknowns_at(t, u)
        v = sim.observe(t, y[:self.n_x], y[self.n_x:])
        if not np.all(np.isfinite(v)):
            return 1.0  # the solver's own failure handling takes over (it re-selects too)
        sim.state_checks += 1
        if sim.root.selector.quality_at(sim.cur.dummies, v, t) < self.threshold:
            self.stop_from = t
            return -1.0
        return 1.0


class HybridSimulation:
    """One run: the current realisation, state, parameters and the bookkeeping of events."""

    def __init__(self, cs, grid, init, p, settings: sundials.Settings, reselect: bool,
                 progress=None) -> None:
        from .initialize import solve_algebraic

        self.solve_algebraic = solve_algebraic
        self.root = cs
        self.cur = cs
        self.grid = grid
        self.p = p.copy()
        # CVODE's method: the user's, or chosen by the run ("auto": integrator_choice)
        self.choice = integrator_choice.MethodChoice(settings, float(grid[0]))
        self.settings = self.choice.settings
        self.reselect_on = reselect and cs.selector is not None and cs.selector.max_level > 0
        self.x = np.asarray(init.x0, float)
        self.z = np.asarray(init.z0, float)
        self.t = float(grid[0])
        self.defaulted = init.defaulted
        self.switches: list[tuple[float, list[str]]] = []
        self.event_log: list[tuple[float, list[str]]] = []
        # (realisation, t, x, z, p) just after each event of event_log (Solution.event_values)
        self.event_points: list[tuple] = []
        self.recent = deque(maxlen=CHATTER_EVENTS)
        self.chatter = Chatter(float(grid[-1] - grid[0]))
        self.zeno_warned = False
        self.progress = progress
        self.span = float(grid[-1] - grid[0])
        # stored output: one block per stretch integrated by one realisation
        self.blocks: list[tuple] = []
        self.n_stored = 0
        self.problems: dict = {}
        self.time_events: dict = {}
        # output points per solver call: bounded only where events make stops frequent
        self.window = WINDOW_MIN if cs.events else grid.size
        self.solver_calls = 0
        self.interrupt = _Interrupt(progress is not None and progress.enabled)
        self.state_checks = 0  # quality checks of the state choice during the run
        self.tiers = tiering.RunTiers(self._progress)  # jit="auto", the drivers that ran

    # -- small helpers ---------------------------------------------------------------------
    def observe(self, t, x, z):
        return sundials.fast(self.cur, "observed").evaluate(t, x, z, self.p)[0]

    def conditions(self, t, x, z):
        if not self.cur.events:
            return np.zeros(0, bool)
        return sundials.fast(self.cur, "event_conditions").evaluate(t, x, z, self.p)[0] > 0.5

    def restart_algebraic(self, t, x, z_guess):
        if not self.cur.algebraics:
            return np.zeros(0)
        return self.solve_algebraic(self.cur, self.p, t, x, z_guess)

    def problem(self) -> sundials.Problem:
        """The solver problem of the current realisation, set up for this run."""
        cur = self.cur
        key = id(cur)
        entry = self.problems.get(key)
        if entry is None:
            rows, _ = split_indicators(cur)
            prob = sundials.problem_for(cur, rows, self.settings.jit)
            t0 = float(self.grid[0])
            report = None
            if self.progress is not None and self.progress.enabled:
                bar = self.progress
                report = lambda t: bar.update(t - t0)  # noqa: E731
            nominal, declared = sundials.nominal_values(cur, self.x, self.z)
            prob.begin(nominal, self.settings,
                       self.tiers.monitor(prob, self.choice.monitor(prob, report)), declared)
            entry = self.problems[key] = (cur, prob)  # cur kept alive: id(cur) stays unique
        prob = entry[1]
        self.interrupt.problem = prob
        prob.interrupted = self.interrupt.flag
        self.choice.prepare(prob)
        return prob

    def gates(self) -> RelationGates:
        return self.cur.cached("relation_gates", lambda: RelationGates(self.cur))

    def schedule(self) -> TimeEvents:
        key = id(self.cur)
        te = self.time_events.get(key)
        if te is None:
            _, rows = split_indicators(self.cur)
            te = (self.cur, TimeEvents(self.cur, rows, float(self.grid[0]), float(self.grid[-1])))
            self.time_events[key] = te
        return te[1]

    # -- storing results -------------------------------------------------------------------------
    def store(self, times, xs, zs, z_pending: sundials.Problem | None = None) -> None:
        """Output points (columns), all from the current realisation and parameters.

        The algebraic variables are finished when first needed (:meth:`_finish`), not here:
        ``z_pending`` is the problem whose linear loop gives them (z not computed yet), else
        z is the solver's, made consistent by :func:`polish_algebraic` where the loop is
        nonlinear and small enough. So output points cost the solver's interpolation only,
        until the results are read."""
        if times.size == 0:
            return
        cur = self.cur
        n_z = len(cur.algebraics)
        polish = z_pending is None and 0 < n_z <= MAX_POLISHED_ALGEBRAICS and \
            not linear_in_algebraics(cur)
        if not np.isfinite(xs).all():
            self._raise(non_finite_message("states", times, xs, cur.state_names))
        if z_pending is None and n_z and not np.isfinite(zs).all():
            self._raise(non_finite_message("algebraic variables", times, zs,
                                           cur.algebraic_names))
        pending = ("solve", z_pending) if z_pending is not None else \
            (("polish", None) if polish else None)
        self.blocks.append([cur, times.copy(), xs.copy(), zs.copy(), self.p.copy(), pending])
        self.n_stored += times.size

    def _finish(self, block: list) -> np.ndarray:
        """A stored block's algebraic variables, computed or polished on first need."""
        cur, times, xs, zs, p, pending = block
        if pending is not None:
            kind, prob = pending
            if kind == "solve":
                zs = prob.z_at(times, xs)
            else:
                zs = polish_algebraic(cur, times, xs, zs, p, jit=self.settings.jit is True)
            block[3], block[5] = zs, None
        return block[3]

    def solution(self, interrupted: bool = False) -> Solution:
        k = self.n_stored
        blocks = list(self.blocks)
        t = np.concatenate([b[1] for b in blocks]) if blocks else self.grid[:0]
        p_hist = None  # parameters of each stretch, when discrete variables changed
        params = np.column_stack([b[4] for b in blocks]) if blocks else None
        if params is not None and not np.all(params == self.p.reshape(-1, 1)):
            p_hist = (params, np.array([b[1].size for b in blocks]))
        if all(b[0] is self.root for b in blocks):
            nx, nz = self.root.x.numel(), self.root.z.numel()
            xs = np.concatenate([b[2] for b in blocks], axis=1) if blocks \
                else np.zeros((nx, 0))

            def algebraic() -> np.ndarray:
                return np.concatenate([self._finish(b) for b in blocks], axis=1) if blocks \
                    else np.zeros((nz, 0))
            sol = Solution(self.root, t, xs, algebraic, self.p, self.defaulted,
                           state_switches=self.switches, p_history=p_hist,
                           events=self.event_log,
                           event_points=self.event_points)
        else:
            values = np.empty((self.root.system.n_vars, k))
            col = 0
            for block in blocks:
                cur, times, xs, _, p, _ = block
                n = times.size
                observed = columns(cur, "observed", lambda c=cur: c.function("observed"), (3,))
                values[:, col:col + n] = observed(times.reshape(1, -1), xs, self._finish(block),
                                                  p)[0]
                col += n
            sol = Solution(self.root, t, np.zeros((0, k)), np.zeros((0, k)), self.p,
                           self.defaulted, values=values, state_switches=self.switches,
                           p_history=p_hist, events=self.event_log,
                           event_points=self.event_points)
        sol.interrupted = interrupted
        problems = [entry[1] for entry in self.problems.values()]
        sol.stats = {"solver": "/".join(sorted({prob.solver_name for prob in problems})),
                     "driver": "/".join(sorted(self.tiers.drivers or
                                               {prob.driver for prob in problems})),
                     "solver_calls": self.solver_calls,
                     "rhs_evaluations": sum(prob.calls for prob in problems),
                     "root_evaluations": sum(prob.root_calls for prob in problems),
                     "events": len(self.event_log),
                     "state_checks": self.state_checks,
                     "method": self.choice.describe(problems),
                     **tiering.native_stats(problems, self.tiers.switch)}
        return sol

    def _raise(self, message: str, cause: Exception | None = None):
        err = SimulationError(message)
        err.solution = self.solution()
        if cause is not None:
            raise err from cause
        raise err

    # -- events ---------------------------------------------------------------------------
    def fire(self, t, x, z, cond_prev):
        """Apply the clauses whose condition became true at t; event iteration."""
        fired_all: list[str] = []
        for _ in range(MAX_EVENT_ITERATIONS):
            cond = self.conditions(t, x, z)
            fired = [i for i, (now, before) in enumerate(zip(cond.tolist(), cond_prev.tolist()))
                     if now and not before]
            cond_prev = cond
            if not fired:
                return x, z, cond_prev, fired_all
            for i in fired:
                x, self.p = sundials.fast(self.cur, f"event_update_{i}").evaluate(t, x, z, self.p)
                fired_all.append(self.cur.events[i].label)
            z = self.restart_algebraic(t, x, z)
        self._raise(
            f"Event iteration did not settle at t = {t:.12g}: these clauses keep firing: "
            + "; ".join(sorted(set(fired_all))) + ". Check that the actions do not make their "
            "own conditions true again.")

    def record_event(self, t, labels, x, z):
        """An event at t (``labels``: the clauses that fired; x, z: the values after it)."""
        self.event_log.append((t, labels))
        self.event_points.append((self.cur, t, x.copy(), z.copy(), self.p.copy()))
        self.recent.append(t)
        self._check_zeno(labels)
        if self.chatter.event(t, labels):
            self._raise(self.chatter.message(self.cur, "events"))

    def record_root(self, t, rows=()) -> None:
        """Every stop at a crossing (``rows``: the indicators that crossed), fired or not: a
        crossing that repeats without end at one instant (a condition dithering around its
        threshold) is chattering too (:class:`Chatter` names the conditions)."""
        if self.chatter.stop(t, rows):
            self._raise(self.chatter.message(self.cur))

    def _check_zeno(self, labels) -> None:
        """Events whose gaps shrink geometrically towards a point inside the run (a ball coming
        to rest): integration past that point would be wrong without a rest condition.

        Zeno behaviour shows as a steady gap ratio: the ratios of successive gaps stay within
        ZENO_STEADY of each other and do not grow (by more than ZENO_TREND from the first to the
        last). Gaps that shrink while their ratio climbs towards 1 (a machine speeding up
        towards a finite speed: dead centres of an engine) converge to a positive gap, not to
        a point, and are not Zeno; neither is an accumulation point past the end of the run."""
        if self.settings.zeno == "off" or self.zeno_warned or len(self.recent) < ZENO_EVENTS:
            return
        # plain Python on a handful of numbers (this runs after every event)
        times = list(self.recent)[-ZENO_EVENTS:]
        gaps = [b - a for a, b in zip(times, times[1:])]
        if min(gaps) <= 0:
            return
        ratios = [b / a for a, b in zip(gaps, gaps[1:])]
        if not (max(ratios) < 0.95 and max(ratios) < ZENO_STEADY * min(ratios)
                and ratios[-1] <= ZENO_TREND * ratios[0]):
            return  # not a steady geometric shrinking
        ratio = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        t_zeno = times[-1] + gaps[-1] * ratio / (1.0 - ratio)
        if t_zeno >= self.grid[-1]:
            return
        message = (
            f"Zeno behaviour: events ({'; '.join(sorted(set(labels)))}) follow each other "
            f"ever faster (gap ratio {ratio:.3g}, last gap {gaps[-1]:.3g} s) and accumulate "
            f"at t = {t_zeno:.10g}, inside the simulated time. Stop the simulation before "
            "that time, or add a rest condition (e.g. a discrete 'resting' mode) to the "
            "model. If the events do not accumulate, simulate(zeno='warn') or zeno='off' "
            "turns this test off.")
        if self.settings.zeno == "warn":
            self.zeno_warned = True
            warnings.warn(f"{self.root.model_name}: {message}", SimulationWarning, stacklevel=2)
            return
        self._raise(message)

    # -- state re-selection ----------------------------------------------------------------
    def choose_states(self, t, v, q_ref, forced=False):
        """(new dummy set or None, quality reference): whether to switch realisation at t."""
        return choose_states(self.root.selector, self.cur.dummies, t, v, q_ref, forced)

    def switch_states(self, best, t, v) -> None:
        """Continue with the realisation whose dummy derivatives are ``best``, from values v."""
        self.cur = self.root.realization(best)
        self.switches.append((float(t), self.cur.state_names))
        self.x = v[self.cur.states]
        self.z = self.restart_algebraic(t, self.x, v[self.cur.algebraics])

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> Solution:
        """Integrate over the whole grid; Ctrl-C returns the solution so far (display on) or
        raises KeyboardInterrupt (display off)."""
        try:
            with self.interrupt:
                interrupted = self._run()
        finally:
            # the cached problems outlive the run: no watch may keep this run alive
            for _, prob in self.problems.values():
                prob.set_watch(None)
        if interrupted and not self.interrupt.keep:
            raise KeyboardInterrupt
        if not interrupted:  # jit="auto": native code for the next run of a warm model
            self.tiers.after_run([prob for _, prob in self.problems.values()])
        if self.progress is not None:
            if interrupted:
                done = self.blocks[-1][1][-1] if self.blocks else self.grid[0]
                self.progress.close(f"interrupted at t = {done:g}")
            else:
                self.progress.close()
        return self.solution(interrupted)

    def _run(self) -> bool:
        """The loop over stretches between stops; True when interrupted."""
        grid = self.grid
        t = self.t
        q_ref = 1.0
        if self.reselect_on:
            # the static choice was made from start values; with the consistent initial values
            # a clearly better one may exist (compared with the best possible quality, 1)
            v = self.observe(t, self.x, self.z)
            best, _ = self.choose_states(t, v, 1.0)
            if best is not None:
                self.switch_states(best, t, v)
                v = self.observe(t, self.x, self.z)
            q_ref = self.root.selector.quality_at(self.cur.dummies, v, t)
        cond = self.conditions(t, self.x, self.z)
        k = 0  # index of the next grid point to store
        forced_at = None
        while k < grid.size:
            if self.interrupt.flag:
                return True
            while k < grid.size and grid[k] <= t + 1e-14 * max(1.0, abs(t)):
                # the start, or an event at an output point (or a few ulp after one, where the
                # located event was moved past its crossing): store the values after it
                self.store(np.array([grid[k]]), self.x.reshape(-1, 1), self.z.reshape(-1, 1))
                k += 1
            if k == grid.size:
                break
            # the next stop: the end or the next time event
            te = self.schedule()
            t_time = te.next_root(t, self.p, te.values(t, self.p)) if te.rows else None
            time_event = t_time is not None and t_time < grid[-1]
            t_stop = t_time if time_event else float(grid[-1])
            j = int(np.searchsorted(grid, t_stop, side="right"))
            if j - k > self.window:
                # the output points go to the solver in windows (its per-call cost grows with
                # the points handed over, whether reached or not): a window longer than four
                # times the last stretch between events; one that ends without an event
                # restarts the solver there, and the next one is four times longer
                j = k + self.window
                t_stop, time_event = float(grid[j - 1]), False
            outs = grid[k:j]
            ends_on_output = outs.size > 0 and outs[-1] == t_stop
            tspan = np.concatenate([[t], outs] if ends_on_output else [[t], outs, [t_stop]])
            prob = self.problem()
            if self.z.size:
                # consistent to rounding error, not to the initialisation's or the solver's
                # tolerance: an inconsistent start fails IDA's error test at tight tolerances
                self.z = newton_polish(self.cur, t, self.x, self.z, self.p)
            y0 = np.concatenate([self.x, self.z])
            prob.set_parameters(self.p, t, y0)
            g_start = None  # the indicators at the start (hold signs, the side a root leaves)
            if prob.rows:
                g_start = sundials.fast(self.cur, "event_indicators").evaluate(
                    t, self.x, self.z, self.p)[0]
                live = self.gates().live(self.p)[prob.rows]
                prob.set_live(live, t, y0, g_start[prob.rows])
                # an indicator exactly zero here is switched off by SUNDIALS until it has left
                # zero, and the crossing it makes then is never reported: find it now
                left = leave_zero(self.cur, self.p, self.span, t, y0, g_start, prob.rows, live)
                if left is not None:
                    t, y1 = left
                    n_x = self.cur.x.numel()
                    x, z = y1[:n_x], y1[n_x:]
                    self.record_root(t, [r for r, on in zip(prob.rows, live)
                                         if on and g_start[r] == 0.0])
                    x, z, cond, labels = self.fire(t, x, z, cond)
                    if labels:
                        self.record_event(t, labels, x, z)
                    self.x, self.z, self.t = x, z, t
                    continue
            prob.set_watch(SelectionWatch(self, prob, q_ref, tspan) if self.reselect_on else None)
            tier = self.tiers.before_call(prob, t)  # jit="auto": machine code from here?
            out = prob.solve(tspan, y0)
            self.solver_calls += 1
            res_t, res_y, status = np.asarray(out.t, float), np.atleast_2d(out.y), out.status
            if self.choice.after_call(prob, float(res_t[-1]), status, self.problems):
                status = 0  # stopped to change the method: go on from its last step
            # stopped for the machine code: likewise
            status = self.tiers.after_call(prob, tier, status, float(res_t[-1]),
                                           self.interrupt.flag)
            reported = sundials.reported_roots(out)
            # the state choice's watch alone stopped the solver (an event takes precedence: the
            # watch checks again after it)
            watched = status == sundials.ROOT_RETURN and prob.watch_fired(reported) and \
                not any(i < len(prob.rows) for i in reported)
            if status == sundials.ROOT_RETURN and not prob.interrupted and not watched:
                res_t[-1], res_y[-1] = self._past_root(prob, float(res_t[-1]), res_y[-1],
                                                       g_start, reported)
            n_x = self.cur.x.numel()
            # rows 1.. are output points, except a stop at a root or at a time event
            is_output = output_rows(res_t, outs)
            last_is_output = bool(is_output[-1])
            is_output[0] = False
            if status == sundials.ROOT_RETURN or (time_event and not ends_on_output):
                is_output[-1] = last_is_output and status != sundials.ROOT_RETURN
            rows = np.nonzero(is_output)[0]
            if rows.size:
                ys = res_y[rows].T
                self.store(res_t[rows], ys[:n_x], ys[n_x:], prob if prob.eliminated else None)
                k += rows.size
            if watched:
                pass  # a state switch is no event: the window stays as it was
            elif status == sundials.ROOT_RETURN or time_event:
                self.window = max(WINDOW_MIN, 4 * rows.size)
            elif k < grid.size:
                self.window *= 4
            if prob.interrupted or self.interrupt.flag:
                return True  # the output points reached are stored
            t = float(res_t[-1])
            x, z = res_y[-1][:n_x], res_y[-1][n_x:]
            if status < 0:
                if self.reselect_on and forced_at != t and rows.size:
                    # the state choice may have become singular: choose again, forced
                    forced_at = t
                    t = float(res_t[rows[-1]])
                    y = prob.completed(t, res_y[rows[-1]])
                    v = self.observe(t, y[:n_x], y[n_x:])
                    best, q_ref = self.choose_states(t, v, q_ref, forced=True)
                    if best is not None:
                        self.switch_states(best, t, v)
                        self.t = t
                        cond = self.conditions(t, self.x, self.z)
                        continue
                self._failure(prob, status, t, x, z)
            if watched:  # the state choice became poor: choose again here
                v = self.observe(t, x, z)
                best, q_ref = self.choose_states(t, v, q_ref)
                if best is not None:
                    self.switch_states(best, t, v)
                    cond = self.conditions(t, self.x, self.z)
                else:
                    self.x, self.z = x, z
                self.t = t
                continue
            at_time_event = time_event and t == t_stop
            if status == sundials.ROOT_RETURN or at_time_event:
                self.record_root(t, [prob.rows[i] for i in reported if i < len(prob.rows)]
                                 if status == sundials.ROOT_RETURN else
                                 te.crossed_rows(self.t, t, self.p))
                if z.size and z.size <= MAX_POLISHED_ALGEBRAICS:
                    z = polish_algebraic(self.cur, np.array([t]), x.reshape(-1, 1),
                                         z.reshape(-1, 1), self.p).ravel()
                x, z, cond, labels = self.fire(t, x, z, cond)
                if labels:
                    self.record_event(t, labels, x, z)
            elif t >= grid[-1]:
                self.x, self.z, self.t = x, z, t
                break
            self.x, self.z, self.t = x, z, t
        return False

    def _progress(self, t: float) -> float:
        """The fraction of the run's time span done at ``t``."""
        return (t - float(self.grid[0])) / self.span if self.span > 0 else 1.0

    def _past_root(self, prob, t_root, y_root, g_start, reported):
        """The first point on the new side of the crossing SUNDIALS stopped at (root_step):
        ``reported`` are positions in ``prob.rows``."""
        rows = [prob.rows[i] for i in reported if i < len(prob.rows)]
        if not rows:
            return t_root, y_root
        t, y, _ = step_past(self.cur, self.p, self.span, prob.nominal, t_root, y_root,
                            g_start[rows], rows)
        return t, y

    def _singular_loop(self, prob, t, x, z) -> str:
        """Advice when the algebraic equations have become singular in z where the solver
        failed: det(dg/dz) changed sign since the start (of this realisation), or the smallest
        singular value of dg/dz (scaled as at the start) fell by more than 1/SINGULAR_DROP. Then
        the DAE has no unique continuation there, and no tolerance fixes it. Quotes the
        ``solver_hint`` of the components involved."""
        cur = self.cur
        if not z.size or not self.blocks or self.blocks[-1][0] is not cur:
            return ""
        jac = cur.cached("algebraic_jacobian_dense", lambda: ca.Function(
            "gz", [cur.t, cur.x, cur.z, cur.p], [ca.densify(algebraic_jacobian(cur))]))
        d_z = prob.nominal[cur.x.numel():]
        first = len(self.blocks) - 1  # the first stored point of this realisation's stretch
        while first > 0 and self.blocks[first - 1][0] is cur:
            first -= 1
        _, times, xs, _, _, _ = self.blocks[first]
        zs = self._finish(self.blocks[first])
        # both Jacobians scaled alike: columns by the nominal values, rows by the start's rows
        j_start = np.array(jac(times[0], xs[:, 0], zs[:, 0], self.p)) * d_z
        j_fail = np.array(jac(t, x, z, self.p)) * d_z
        rows = np.abs(j_start).max(axis=1)
        rows = np.where(np.isfinite(rows) & (rows > 0), rows, 1.0)[:, None]
        j_start, j_fail = j_start / rows, j_fail / rows
        if not (np.all(np.isfinite(j_start)) and np.all(np.isfinite(j_fail))):
            return ""
        flipped = np.sign(np.linalg.det(j_start)) != np.sign(np.linalg.det(j_fail))
        s_start = np.linalg.svd(j_start, compute_uv=False)[-1]
        s_fail = np.linalg.svd(j_fail, compute_uv=False)[-1]
        if not flipped and not s_fail < SINGULAR_DROP * s_start:
            return ""
        names = cur.algebraic_names
        paths = sorted({cur.system.info[v].origin for v in cur.algebraics
                        if cur.system.info[v] is not None})
        hints = []
        for path in paths:
            hint = self.root.flat.hint_for(path)
            if hint and hint not in hints:
                hints.append(hint)
        where = (f"its determinant changed sign between t = {times[0]:.10g} and t = {t:.10g}"
                 if flipped else f"its smallest singular value fell to {s_fail / s_start:.1e} "
                 f"of its value at t = {times[0]:.10g}")
        return (f"The algebraic equations lose their solution here: their Jacobian with respect "
                f"to {', '.join(names[:6])} is singular ({where}), so the model has no unique "
                "continuation (a fold of an algebraic loop); no tolerance or step size fixes "
                "this, the model or its parameters must change." +
                ("".join(f" {h}" for h in hints)))

    def _failure(self, prob, status, t, x, z):
        """The solver's flag, the time reached, the variables that blow up; raises with the
        solution so far on the exception (``err.solution``)."""
        flag = sundials.flag_name(prob.solver_name, status)
        t = _time_reached(prob.messages or prob.last_message, t)
        cur = self.cur
        culprits = []
        try:
            xdot = np.array(cur.function("ode")(t, x, z, self.p)).ravel()
        except RuntimeError:
            xdot = np.full(x.size, np.nan)
        res = np.array(cur.function("alg")(t, x, z, self.p)).ravel() if z.size else np.zeros(0)
        nominal = prob.nominal
        for i, name in enumerate(cur.state_names):
            size = max(abs(x[i]), abs(xdot[i])) / nominal[i] if np.isfinite(x[i] + xdot[i]) \
                else np.inf
            culprits.append((size, f"{name} = {x[i]:.4g} (der = {xdot[i]:.4g})"))
        for i, label in enumerate(cur.algebraic_equations):
            size = abs(res[i]) / prob.row_scale[i] if np.isfinite(res[i]) else np.inf
            if not np.isfinite(res[i]) or size > 1e-6:
                culprits.append((size, f"residual {res[i]:.4g} of {label}"))
        culprits.sort(key=lambda c: -c[0])
        named = "; ".join(c[1] for c in culprits[:5]) or "-"
        if flag in sundials.TOLERANCE_FLAGS:
            advice = ("The requested accuracy cannot be met at the size of these variables: "
                      "use a larger rtol/atol, or declare nominal values (Variable(nominal=...)) "
                      "for variables much smaller or larger than 1.")
        elif flag.endswith("TOO_MUCH_WORK") and "t + h = t" not in prob.messages:
            advice = ("The solver needed more than max_num_steps steps between two output "
                      "points: the model is very stiff or fast here; use a finer output grid or "
                      "integrator_options={'max_num_steps': ...}, or check these variables.")
        else:
            advice = ("The step size fell to its minimum: look for a variable that blows up or "
                      "turns NaN (above, largest first), a singular configuration, or a "
                      "discontinuity that is not declared as an event. If atol is far below "
                      "the variables' rounding error (e.g. atol < 1e-12 for values of order "
                      "1e4), a larger atol or nominal values are the fix, not a smaller one.")
        singular = self._singular_loop(prob, t, x, z)
        if singular:
            advice = singular
        said = f" ({prob.last_message})" if prob.last_message else ""
        self._raise(
            f"The integrator ({prob.solver_name}) failed with {flag}{said} at t = {t:.10g} with "
            f"states {', '.join(cur.state_names) or '-'}. Largest relative to their nominal "
            f"values: {named}. {advice} The solution up to the failure is on the exception "
            "(err.solution).")


def _time_reached(messages: str, t: float) -> float:
    """The solver's own time at a failure: the last "At t = 0.33 ..." or "Internal t = 0.33 and
    h = ..." before ``t`` among what it printed in the failed call. Not only its last message:
    that may be about the output point it was heading for ("Trouble interpolating at tout =
    0.34", as the native library's run says after the step size vanished)."""
    found = re.findall(r"\bt = ([-+0-9.eE]+)", messages or "")
    for text in reversed(found):
        try:
            reached = float(text)
        except ValueError:
            continue
        if np.isfinite(reached) and reached <= t:
            return reached
    return t
