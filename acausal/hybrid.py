"""Piecewise integration: events (zero crossings of conditions) and dynamic state selection.

Used by :func:`acausal.simulate` when a model has ``When`` clauses (or ``event_if``) or when its
states may need re-selection; a model without either is integrated in one call instead.

Why an own event loop and not CasADi's: CasADi 3.8's integrator events are experimental; with
IDAS zero crossings are silently ignored and with CVODES only one crossing direction fires
(casadi/casadi issue #4393). Here the integrator runs over chunks of output intervals (time is
shifted, the start time is a parameter, so one integrator object serves every chunk); at every
output point the event indicators (one per relation between continuous quantities in a
condition) are evaluated. A sign change is located by the Illinois variant of regula falsi, each
trial point integrated afresh from the last point before the crossing, to a time tolerance of
``EVENT_TIME_TOLERANCE * max(1, |t|)``. At the located instant the clauses whose condition
changed from false to true fire: their actions are computed from the values just before the event
and applied (clauses firing together are applied in declaration order), the algebraic variables
are solved again, conditions are re-evaluated and clauses that became true through the new
values fire too (event iteration). Integration then restarts at the event.

Events are detected at output points: two crossings of the same indicator within one output
interval cancel and are missed, so choose an output grid (``dt``/``n_points``) finer than the
fastest switching of the model. Too many events in too short a time is reported as chattering
instead of being integrated forever.
"""

from __future__ import annotations

from collections import deque

import casadi as ca
import numpy as np

from .errors import SimulationError
from .solution import Solution

#: Re-select states when the current choice's quality falls below this fraction of its value at
#: the last (re)selection, and switch only to a choice at least SWITCH_GAIN times better.
RESELECT_FRACTION = 0.5
SWITCH_GAIN = 1.5
#: Output intervals per integrator call (restarting at every point costs accuracy).
CHUNK = 25
#: Events are located to this relative time tolerance.
EVENT_TIME_TOLERANCE = 1e-12
#: Event iteration limit at one instant.
MAX_EVENT_ITERATIONS = 50
#: Chattering: this many events within CHATTER_FRACTION of the simulated time span.
CHATTER_EVENTS = 20
CHATTER_FRACTION = 1e-6
#: Zeno detection: gaps between this many successive events shrinking geometrically (with a
#: steady ratio) towards an accumulation point inside the simulated time.
ZENO_EVENTS = 6
MAX_POLISHED_ALGEBRAICS = 40


def crossed(g_ref: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Which indicators have crossed zero since ``g_ref``: strictly to the other side, or away
    from exactly zero. (A value of exactly 0 is not across: ``x < 19`` is still false at 19.)"""
    return np.where(g_ref > 0, g < 0, np.where(g_ref < 0, g > 0, g != 0))


def _opts_key(opts: dict) -> tuple:
    return tuple(sorted((k, repr(v)) for k, v in opts.items()))


def _shifted_dae(cs, t_expr, scale=None):
    dae = {"x": cs.x}
    ode = ca.substitute(cs.ode, cs.t, t_expr)
    dae["ode"] = ode if scale is None else scale * ode
    if cs.z.numel():
        dae["z"] = cs.z
        dae["alg"] = ca.substitute(cs.alg, cs.t, t_expr)
    return dae


def chunk_integrator(cs, h: float, m: int, opts: dict) -> ca.Function:
    """Integrator over [t_k, t_k + m h] with outputs every h, for any t_k (a parameter)."""
    key = ("chunk", float(h), m, _opts_key(opts))
    integ = cs._functions.get(key)
    if integ is None:
        tau, t_k = ca.SX.sym("tau"), ca.SX.sym("t_k")
        dae = _shifted_dae(cs, tau + t_k)
        dae.update({"p": ca.vertcat(cs.p, t_k), "t": tau})
        plugin = "idas" if cs.z.numel() else "cvodes"
        integ = ca.integrator("chunk", plugin, dae, 0.0, [h * (j + 1) for j in range(m)], opts)
        cs._functions[key] = integ
    return integ


def span_integrator(cs, opts: dict) -> ca.Function:
    """Integrator from t_a to t_a + delta for any t_a and delta (time normalised to [0, 1])."""
    key = ("span", _opts_key(opts))
    integ = cs._functions.get(key)
    if integ is None:
        s, t_a, delta = ca.SX.sym("s"), ca.SX.sym("t_a"), ca.SX.sym("delta")
        dae = _shifted_dae(cs, t_a + s * delta, scale=delta)
        dae.update({"p": ca.vertcat(cs.p, t_a, delta), "t": s})
        plugin = "idas" if cs.z.numel() else "cvodes"
        integ = ca.integrator("span", plugin, dae, 0.0, 1.0, opts)
        cs._functions[key] = integ
    return integ


def exact_start_integrator(cs, h: float, m: int, opts: dict, x, z, p, t_k):
    """One chunk with IDAS started from the exact derivative der(x) = f(t_k, x, z).

    IDAS computes consistent initial values itself (IDACalcIC); its line search can fail on a
    start that is already consistent to rounding error. Our z is consistent, so this fallback
    skips IDACalcIC and gives IDAS the exact initial derivative (an integrator built for this
    start only; used only when the normal call failed that way).
    """
    xdot0 = np.array(cs.function("ode")(t_k, x, z, p)).ravel()
    tau, t_sym = ca.SX.sym("tau"), ca.SX.sym("t_k")
    dae = _shifted_dae(cs, tau + t_sym)
    dae.update({"p": ca.vertcat(cs.p, t_sym), "t": tau})
    integ = ca.integrator("chunk_exact_start", "idas", dae, 0.0,
                          [h * (j + 1) for j in range(m)],
                          {**opts, "calc_ic": False, "init_xdot": xdot0.tolist()})
    return integ(x0=x, z0=z, p=np.append(p, t_k))


def _call(integ, x, z, p_ext, has_z):
    args = {"x0": x, "p": p_ext}
    if has_z:
        args["z0"] = z
    return integ(**args)


def polish_algebraic(cs, times, xs, zs, p, steps: int = 2):
    """Newton steps on g(t, x, z) = 0 at the given times (z consistent to rounding error).

    IDAS returns z accurate to its error tolerance only; the DAE defines z exactly from x, so a
    couple of Newton steps make the outputs consistent (e.g. a pendulum's length constraint holds
    to rounding error instead of to rtol). Steps that would not improve the residual are not
    taken.
    """
    n = times.size
    step = cs.function("newton_step").map(n)
    alg = cs.function("alg").map(n)
    t_row = np.asarray(times, float).reshape(1, -1)
    p_cols = np.tile(p.reshape(-1, 1), (1, n))
    res = np.abs(np.array(alg(t_row, xs, zs, p_cols))).max(axis=0)
    for _ in range(steps):
        z_new = np.array(step(t_row, xs, zs, p_cols))
        res_new = np.abs(np.array(alg(t_row, xs, z_new, p_cols))).max(axis=0)
        better = np.isfinite(res_new) & (res_new <= res)
        zs = np.where(better, z_new, zs)
        res = np.where(better, res_new, res)
    return zs


class HybridSimulation:
    """One run: the current realisation, state, parameters and the bookkeeping of events."""

    def __init__(self, cs, grid, init, p, opts, reselect: bool, progress=None) -> None:
        from .initialize import _solve_algebraic

        self.solve_algebraic = _solve_algebraic
        self.root = cs
        self.cur = cs
        self.grid = grid
        self.p = p.copy()
        self.opts = opts
        self.reselect_on = reselect and cs.selector is not None and cs.selector.max_level > 0
        self.x = np.asarray(init.x0, float)
        self.z = np.asarray(init.z0, float)
        self.t = float(grid[0])
        self.values = np.empty((cs.system.n_vars, grid.size))
        self.p_history = np.empty((p.size, grid.size))
        self.switches: list[tuple[float, list[str]]] = []
        self.event_log: list[tuple[float, list[str]]] = []
        self.recent = deque(maxlen=CHATTER_EVENTS)
        self._check_step: float | None = None
        self.progress = progress
        steps = np.diff(grid)
        self.uniform = steps.size > 0 and np.allclose(steps, steps[0], rtol=1e-9, atol=0.0)
        self.span = float(grid[-1] - grid[0])

    # -- small helpers ---------------------------------------------------------------------
    def observe(self, t, x, z):
        return np.array(self.cur.function("observed")(t, x, z, self.p)).ravel()

    def indicators(self, t, x, z):
        if not self.cur.events:
            return np.zeros(0)
        return np.array(self.cur.function("event_indicators")(t, x, z, self.p)).ravel()

    def conditions(self, t, x, z):
        if not self.cur.events:
            return np.zeros(0, bool)
        return np.array(self.cur.function("event_conditions")(t, x, z, self.p)).ravel() > 0.5

    def restart_algebraic(self, t, x, z_guess):
        if not self.cur.algebraics:
            return np.zeros(0)
        return self.solve_algebraic(self.cur, self.p, t, x, z_guess)

    # -- integration ---------------------------------------------------------------------------
    def integrate_chunk(self, m: int):
        """From the current (aligned) point over the next m output intervals."""
        cur, k_h = self.cur, float(self.grid[1] - self.grid[0])
        integ = chunk_integrator(cur, k_h, m, self.opts)
        has_z = bool(cur.z.numel())
        try:
            out = _call(integ, self.x, self.z, np.append(self.p, self.t), has_z)
        except RuntimeError as exc:
            if "IDA_LINESEARCH_FAIL" not in str(exc):
                raise
            out = exact_start_integrator(cur, k_h, m, self.opts, self.x, self.z, self.p, self.t)
        xs = np.array(out["xf"].full()).reshape(cur.x.numel(), m)
        zs = np.array(out["zf"].full()).reshape(cur.z.numel(), m) if has_z else np.zeros((0, m))
        return xs, zs

    def integrate_span(self, t_a, x_a, z_a, t_b):
        cur = self.cur
        if t_b <= t_a:
            return x_a, z_a
        has_z = bool(cur.z.numel())
        out = _call(span_integrator(cur, self.opts), x_a, z_a,
                    np.concatenate([self.p, [t_a, t_b - t_a]]), has_z)
        x = np.array(out["xf"].full()).ravel()
        z = np.array(out["zf"].full()).ravel() if has_z else np.zeros(0)
        if has_z and z.size <= MAX_POLISHED_ALGEBRAICS:
            z = polish_algebraic(cur, np.array([t_b]), x.reshape(-1, 1), z.reshape(-1, 1),
                                 self.p).ravel()
        return x, z

    # -- events ---------------------------------------------------------------------------
    def locate(self, t_a, x_a, z_a, g_a, t_b, x_b, z_b, g_b):
        """Earliest sign change of an indicator in (t_a, t_b]: (t, x, z) just after it."""
        lo, hi = t_a, t_b
        g_lo, g_hi = g_a.copy(), g_b.copy()
        x_hi, z_hi = x_b, z_b
        last = ""  # which end the previous trial replaced (Illinois)
        tol = EVENT_TIME_TOLERANCE * max(1.0, abs(t_b))
        for _ in range(200):
            if hi - lo <= tol:
                break
            changed = np.nonzero(crossed(g_a, g_hi))[0]
            # the indicator whose linear crossing estimate comes first
            est = [lo + (hi - lo) * g_lo[i] / (g_lo[i] - g_hi[i]) if g_lo[i] != g_hi[i] else hi
                   for i in changed]
            i = changed[int(np.argmin(est))]
            gl, gh = g_lo[i], g_hi[i]
            tau = hi - gh * (hi - lo) / (gh - gl) if gh != gl else 0.5 * (lo + hi)
            if not (lo < tau < hi) or not np.isfinite(tau):
                tau = 0.5 * (lo + hi)
            # keep trial points off the ends so the bracket always shrinks
            tau = min(max(tau, lo + 1e-3 * (hi - lo)), hi - 1e-3 * (hi - lo))
            x_t, z_t = self.integrate_span(t_a, x_a, z_a, tau)
            g_t = self.indicators(tau, x_t, z_t)
            if np.any(crossed(g_a, g_t)):
                hi, g_hi, x_hi, z_hi = tau, g_t, x_t, z_t
                if last == "hi":  # lo kept twice: halve its value (Illinois)
                    g_lo = 0.5 * g_lo
                last = "hi"
            else:
                lo, g_lo = tau, g_t
                if last == "lo":
                    g_hi = 0.5 * g_hi
                last = "lo"
        return hi, x_hi, z_hi

    def fire(self, t, x, z, cond_prev):
        """Apply the clauses whose condition became true at t; event iteration."""
        fired_all: list[str] = []
        for _ in range(MAX_EVENT_ITERATIONS):
            cond = self.conditions(t, x, z)
            fired = [i for i in range(cond.size) if cond[i] and not cond_prev[i]]
            cond_prev = cond
            if not fired:
                return x, z, cond_prev, fired_all
            for i in fired:
                out = self.cur.function(f"event_update_{i}")(t, x, z, self.p)
                x = np.array(out[0]).ravel()
                self.p = np.array(out[1]).ravel()
                fired_all.append(self.cur.events[i].label)
            z = self.restart_algebraic(t, x, z)
        raise SimulationError(
            f"Event iteration did not settle at t = {t:.12g}: these clauses keep firing: "
            + "; ".join(sorted(set(fired_all))) + ". Check that the actions do not make their "
            "own conditions true again.")

    def event_check_step(self):
        """Step between event checks after an event: a quarter of the time between the last two
        events, doubled after every check without an event (None: the output spacing)."""
        return self._check_step

    def _after_check(self, had_event: bool) -> None:
        if had_event and len(self.recent) >= 2:
            gap = self.recent[-1] - self.recent[-2]
            self._check_step = max(0.25 * gap,
                                   10 * EVENT_TIME_TOLERANCE * max(1.0, abs(self.recent[-1])))
        elif self._check_step is not None:
            self._check_step *= 2.0

    def record_event(self, t, labels):
        self.event_log.append((t, labels))
        self.recent.append(t)
        self._check_zeno(labels)
        if len(self.recent) == CHATTER_EVENTS and \
                self.recent[-1] - self.recent[0] <= CHATTER_FRACTION * max(self.span, 1e-300):
            names = sorted({lab for _, labs in self.event_log[-CHATTER_EVENTS:] for lab in labs})
            raise SimulationError(
                f"Chattering: {CHATTER_EVENTS} events between t = {self.recent[0]:.12g} and "
                f"{self.recent[-1]:.12g} ({'; '.join(names)}). The model switches faster and "
                "faster (e.g. a bouncing ball coming to rest, or stick/slip at zero velocity). "
                "Stop the simulation before that time, add a rest condition to the model, or "
                "use a regularised (smooth) law.")

    def _check_zeno(self, labels) -> None:
        """Events whose gaps shrink geometrically towards a point inside the run (a ball coming
        to rest): integration past that point would be wrong without a rest condition."""
        if len(self.recent) < ZENO_EVENTS:
            return
        times = np.array(list(self.recent)[-ZENO_EVENTS:])
        gaps = np.diff(times)
        if not np.all(gaps > 0):
            return
        ratios = gaps[1:] / gaps[:-1]
        if not (np.all(ratios < 0.95) and ratios.max() < 1.5 * ratios.min()):
            return  # not a steady geometric shrinking
        ratio = float(np.exp(np.mean(np.log(ratios))))
        t_zeno = times[-1] + gaps[-1] * ratio / (1.0 - ratio)
        if t_zeno < self.grid[-1]:
            raise SimulationError(
                f"Zeno behaviour: events ({'; '.join(sorted(set(labels)))}) follow each other "
                f"ever faster (gap ratio {ratio:.3g}, last gap {gaps[-1]:.3g} s) and accumulate "
                f"at t = {t_zeno:.10g}, inside the simulated time. Stop the simulation before "
                "that time, or add a rest condition (e.g. a discrete 'resting' mode) to the "
                "model.")

    # -- state re-selection ----------------------------------------------------------------
    def maybe_reselect(self, t, v, q_ref, forced=False):
        sel = self.root.selector
        point = dict(enumerate(v.tolist()))
        q_now = sel.quality(self.cur.dummies, point, t)
        if not forced and q_now >= RESELECT_FRACTION * q_ref:
            return False, q_ref
        best = sel.select(point, t)
        if best == set(self.cur.dummies):
            return False, q_now
        q_best = sel.quality(best, point, t)
        if q_best <= SWITCH_GAIN * q_now and not forced:
            return False, q_now
        self.cur = self.root.realization(best)
        self.switches.append((float(t), self.cur.state_names))
        return True, q_best

    # -- the loop --------------------------------------------------------------------------
    def run(self) -> Solution:
        """Integrate over the whole grid; Ctrl-C returns the solution up to that point."""
        self._stored = 0
        try:
            self._run()
        except KeyboardInterrupt:
            k = self._stored
            if self.progress is not None:
                self.progress.close(f"interrupted at t = {self.grid[k]:g}")
            sol = Solution(self.root, self.grid[:k + 1], np.zeros((0, k + 1)),
                           np.zeros((0, k + 1)), self.p, [], values=self.values[:, :k + 1],
                           state_switches=self.switches, p_history=self.p_history[:, :k + 1],
                           events=self.event_log)
            sol.interrupted = True
            return sol
        if self.progress is not None:
            self.progress.close()
        return Solution(self.root, self.grid, np.zeros((0, self.grid.size)),
                        np.zeros((0, self.grid.size)), self.p, [], values=self.values,
                        state_switches=self.switches, p_history=self.p_history,
                        events=self.event_log)

    def _run(self) -> None:
        grid = self.grid
        x, z, t = self.x, self.z, self.t
        v = self.observe(t, x, z)
        q_ref = 1.0
        if self.reselect_on:
            # the static choice was made from start values; with the consistent initial values
            # a clearly better one may exist (compared with the best possible quality, 1)
            switched, _ = self.maybe_reselect(t, v, 1.0)
            if switched:
                x = v[self.cur.states]
                z = self.restart_algebraic(t, x, v[self.cur.algebraics])
                v = self.observe(t, x, z)
            q_ref = self.root.selector.quality(self.cur.dummies, dict(enumerate(v.tolist())), t)
        self.values[:, 0] = v
        self.p_history[:, 0] = self.p
        g = self.indicators(t, x, z)
        cond = self.conditions(t, x, z)
        k = 0  # index of the last stored grid point
        fine_until = 0
        forced_at = -1.0
        while k < grid.size - 1:
            aligned = t == grid[k]
            m = min(CHUNK, grid.size - 1 - k) if (aligned and self.uniform and k >= fine_until) \
                else 1
            self.x, self.z, self.t = x, z, t
            try:
                if m > 1 or (aligned and self.uniform):
                    xs, zs = self.integrate_chunk(m)
                    times = grid[k + 1:k + 1 + m]
                    if zs.shape[0] and zs.shape[0] <= MAX_POLISHED_ALGEBRAICS:
                        zs = polish_algebraic(self.cur, times, xs, zs, self.p)
                else:
                    # after an event: up to the next output point, in sub-steps no longer than
                    # a quarter of the last time between events, so that an accelerating
                    # sequence of events (a ball coming to rest) is followed, not stepped over
                    t_next = float(grid[k + 1])
                    h_check = self.event_check_step()
                    if h_check is not None and t + h_check < t_next:
                        t_next = t + h_check
                    xb, zb = self.integrate_span(t, x, z, t_next)
                    xs, zs, times = xb.reshape(-1, 1), zb.reshape(-1, 1), np.array([t_next])
            except RuntimeError as exc:
                if m > 1:  # something happened inside the chunk: go one interval at a time
                    fine_until = k + CHUNK
                    continue
                if self.reselect_on and forced_at != t:
                    forced_at = t
                    switched, q_ref = self.maybe_reselect(t, self.observe(t, x, z), q_ref,
                                                          forced=True)
                    if switched:
                        v = self.observe(t, x, z)
                        x = v[self.cur.states]
                        z = self.restart_algebraic(t, x, v[self.cur.algebraics])
                        continue
                raise SimulationError(
                    f"The integrator failed after t = {t:g} with states "
                    f"{', '.join(self.cur.state_names) or '-'}: {_short(exc)}. Try a smaller "
                    "rtol/atol or max_step, or check the model near that time.") from exc
            restarted = False
            for j in range(times.size):
                t_j = float(times[j])
                x_j, z_j = xs[:, j], zs[:, j]
                if g.size:
                    g_j = self.indicators(t_j, x_j, z_j)
                    if np.any(crossed(g, g_j)):
                        t_e, x_e, z_e = self.locate(t, x, z, g, t_j, x_j, z_j, g_j)
                        x_new, z_new, cond, labels = self.fire(t_e, x_e, z_e, cond)
                        if labels:
                            self.record_event(t_e, labels)
                        self._after_check(bool(labels))
                        t, x, z = t_e, x_new, z_new
                        g = self.indicators(t, x, z)
                        if t_e >= t_j - EVENT_TIME_TOLERANCE * max(1.0, abs(t_j)):
                            # the event is at the output point itself: store the new values
                            self.values[:, k + 1] = self.observe(t, x, z)
                            self.p_history[:, k + 1] = self.p
                            k += 1
                            self._stored = k
                            t = float(grid[k])
                        restarted = True
                        break
                    g = g_j
                if t_j < grid[k + 1]:  # a check point between output points: not stored
                    t, x, z = t_j, x_j, z_j
                    self._after_check(False)
                    break
                v = self.observe(t_j, x_j, z_j)
                if not np.all(np.isfinite(v)):
                    raise SimulationError(
                        f"Non-finite values at t = {t_j:g} (states "
                        f"{', '.join(self.cur.state_names) or '-'}). A division by zero or a "
                        "singular configuration is likely; check parameters and start values.")
                t, x, z = t_j, x_j, z_j
                if self.reselect_on:
                    switched, q_ref = self.maybe_reselect(t, v, q_ref)
                    if switched:
                        x = v[self.cur.states]
                        z = self.restart_algebraic(t, x, v[self.cur.algebraics])
                        v = self.observe(t, x, z)
                        g = self.indicators(t, x, z)
                        restarted = True
                self.values[:, k + 1] = v
                self.p_history[:, k + 1] = self.p
                k += 1
                self._stored = k
                if self.progress is not None:
                    self.progress.update(t - grid[0])
                if restarted:
                    break


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    keep = [line for line in text if "Error" in line or "failed" in line or "t =" in line]
    return " ".join((keep or text)[-3:])[:500]
