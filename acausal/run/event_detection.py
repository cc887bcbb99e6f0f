"""Event indicators at run time: which ones the solver's root finding watches, which ones are
scheduled as time events, and which ones can change their clause's condition at all.

Used by :mod:`acausal.run.hybrid`; see ``docs/events.md`` for the semantics.
"""

from __future__ import annotations

import itertools

import casadi as ca
import numpy as np

from .buffers import Buffered

#: Clauses with at most this many continuous relations get their crossings gated.
MAX_GATED_RELATIONS = 6
#: Time events: samples of a time-only indicator over the whole run when searching its roots.
TIME_EVENT_SAMPLES = 20_000
TIME_EVENT_BLOCK = 1024


def crossed(g_ref: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Which indicators have crossed zero since ``g_ref``: strictly to the other side, or away
    from exactly zero. (A value of exactly 0 is not across: ``x < 19`` is still false at 19.)"""
    return np.where(g_ref > 0, g < 0, np.where(g_ref < 0, g > 0, g != 0))


def output_rows(values: np.ndarray, sorted_grid: np.ndarray) -> np.ndarray:
    """Which values are points of the sorted grid (exactly): O(m log n), where np.isin would
    sort the whole remaining grid after every event."""
    if sorted_grid.size == 0:
        return np.zeros(values.size, bool)
    idx = np.minimum(np.searchsorted(sorted_grid, values), sorted_grid.size - 1)
    return sorted_grid[idx] == values


def split_indicators(cs) -> tuple[list[int], list[int]]:
    """Indicator rows that depend on states/algebraics (root finding) and on time only.

    Rows of parameters and discrete variables only are in neither: they are constant between
    events, so no crossing can be found by watching them (the branches of such an ``event_if``
    are chosen at the start, and event iteration evaluates such relations after each event)."""
    def build() -> tuple[list[int], list[int]]:
        indicators = [g for ev in cs.events for g in ev.indicators]
        w = ca.vertcat(cs.x, cs.z)
        state_rows, time_rows = [], []
        for i, g in enumerate(indicators):
            if w.numel() and ca.depends_on(g, w):
                state_rows.append(i)
            elif ca.depends_on(g, cs.t):
                time_rows.append(i)
        return state_rows, time_rows

    return cs.cached("indicator_split", build)


#: Masks kept per combination of the gates' discrete variables (a continuous one, such as a
#: position stored at every event, would otherwise grow the cache without bound).
MAX_CACHED_MASKS = 64


class RelationGates:
    """Which event indicators can change a clause's condition, given the discrete variables.

    ``When(sp.And(v > 0, stuck > 0.5), ...)``: while ``stuck`` is 0, a crossing of ``v = 0``
    cannot make the condition true, so stopping the solver there is wasted work. A relation is
    *live* when, for some truth values of the clause's other continuous relations, flipping it
    changes the condition (all combinations are tried; clauses with more than
    ``MAX_GATED_RELATIONS`` relations keep all of them live). Masked indicators are held at a
    constant of their sign by the root function until the next stop, where the masks are
    computed again.
    """

    def __init__(self, cs) -> None:
        self.n_rows = sum(len(ev.indicators) for ev in cs.events)
        self.parts = []  # (first row, number of relations, mapped gate function, combinations)
        # the gates read a few discrete variables only: the masks are cached on those (a
        # continuous discrete variable such as a last sticking position changes at every event)
        position = {cs.p[i].name(): i for i in range(cs.p.numel())}
        read: set[int] = set()
        row = 0
        for ev in cs.events:
            k = len(ev.indicators)
            if 0 < k <= MAX_GATED_RELATIONS and ev.gate is not None:
                try:
                    f = ca.Function("gate", [ev.relation_inputs, cs.p], [ev.gate])
                except RuntimeError:  # depends on more than the discrete variables: all live
                    f = None
                if f is not None:
                    combos = np.array(list(itertools.product((0.0, 1.0), repeat=k))).T
                    mapped = Buffered(f.map(combos.shape[1]))
                    mapped.arg[mapped.function.name_in(0)][:] = combos.ravel(order="F")
                    self.parts.append((row, k, mapped, combos))
                    read.update(position[v.name()] for v in ca.symvar(ev.gate)
                                if v.name() in position)
            row += k
        self._read = np.array(sorted(read), dtype=int)
        # masks by the values of the discrete variables the gates read: a mode that switches
        # back and forth (stick/slip) finds its masks again
        self._cache: dict[bytes, np.ndarray] = {}

    def live(self, p: np.ndarray) -> np.ndarray:
        key = p[self._read].tobytes()
        live = self._cache.get(key)
        if live is not None:
            return live
        live = np.ones(self.n_rows, bool)
        for row, k, f, combos in self.parts:
            f.arg[f.function.name_in(1)].reshape(combos.shape[1], -1)[:] = p
            f()
            value = f.out[0] > 0.5
            for j in range(k):
                off, on = combos[j] == 0.0, combos[j] == 1.0
                live[row + j] = bool(np.any(value[off] != value[on]))
        if len(self._cache) >= MAX_CACHED_MASKS:
            self._cache.clear()
        self._cache[key] = live
        return live


class TimeEvents:
    """The next root of the indicators that depend on time (and parameters) only."""

    def __init__(self, cs, rows: list[int], t0: float, t1: float) -> None:
        self.rows = rows
        if rows:
            # built once per compiled system and evaluated through buffers: a block of 1024
            # samples costs ~50 us instead of ~300 us through CasADi's ordinary call (which
            # also copies the parameters for every sample), which is most of a short run's
            # time with a time event
            def build() -> tuple:
                indicators = [g for ev in cs.events for g in ev.indicators]
                # dense: the buffers hold the structural nonzeros only, so a row whose rate
                # is structurally zero (an indicator constant in time) would otherwise empty
                # the block of rates or shift its rows against the block of values
                g = ca.densify(ca.vertcat(*[indicators[i] for i in rows]))
                f = ca.Function("time_indicators", [cs.t, cs.p], [g])
                df = ca.Function("time_indicator_rates", [cs.t, cs.p],
                                 [ca.densify(ca.jacobian(g, cs.t))])
                return tuple(Buffered(h) for h in (
                    f, df, f.map("time_indicator_block", "serial", TIME_EVENT_BLOCK, [1], []),
                    df.map("time_indicator_rate_block", "serial", TIME_EVENT_BLOCK, [1], [])))

            fns = cs.cached(("time_events", tuple(rows)), build)
            self._g, self._dg, self._g_block, self._dg_block = fns
        self.h = max(t1 - t0, 1e-300) / TIME_EVENT_SAMPLES
        self.t1 = t1
        self._last: tuple | None = None

    def values(self, t: float, p: np.ndarray) -> np.ndarray:
        return self._g.evaluate(t, p)[0]

    def rates(self, t: float, p: np.ndarray) -> np.ndarray:
        return self._dg.evaluate(t, p)[0]

    def _blocks(self, ts: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Indicators and their time derivatives at the TIME_EVENT_BLOCK times ``ts``: arrays
        of one row per indicator."""
        out = []
        for b in (self._g_block, self._dg_block):
            b.evaluate(ts, p)
            out.append(b.out[0].reshape(TIME_EVENT_BLOCK, -1).T.copy())
        return out[0], out[1]

    def next_root(self, t_from: float, p: np.ndarray, g_from: np.ndarray) -> float | None:
        """Earliest time in (t_from, t1] at which an indicator has crossed relative to
        ``g_from`` (the first representable time on the new side), or None."""
        if not self.rows or t_from >= self.t1:
            return None
        # the previous answer stands while the parameters (discrete variables) and the sides of
        # the indicators are the same and its root has not been reached
        key = (p.tobytes(), np.sign(g_from).tobytes())
        if self._last is not None:
            last_key, last_from, last_root = self._last
            if last_key == key and last_from <= t_from and (last_root is None
                                                             or t_from < last_root):
                return last_root
        root = self._search(t_from, p, g_from)
        self._last = (key, t_from, root)
        return root

    def _search(self, t_from: float, p: np.ndarray, g_from: np.ndarray) -> float | None:
        t_a = t_from
        while t_a < self.t1:
            ts = t_a + self.h * np.arange(1, TIME_EVENT_BLOCK + 1)
            ts = np.minimum(ts, self.t1)
            gs, d_block = self._blocks(ts, p)
            hit = crossed(g_from[:, None], gs)
            first = TIME_EVENT_BLOCK
            if hit.any():
                first = int(np.argmax(hit.any(axis=0)))
            # a double crossing between two samples (an extremum that dips across): Hermite
            t_lo = np.concatenate([[t_a], ts[:first + 1]])
            g_lo = np.concatenate([self.values(t_a, p)[:, None], gs[:, :first + 1]], axis=1)
            d_lo = np.concatenate([self.rates(t_a, p).reshape(-1, 1), d_block[:, :first + 1]],
                                  axis=1)
            doubled = self._double_crossing(t_lo[:-1], g_lo[:, :-1], d_lo[:, :-1], p, g_from) \
                if first < TIME_EVENT_BLOCK else \
                self._double_crossing(t_lo, g_lo, d_lo, p, g_from)
            if doubled is not None:
                return doubled
            if first < TIME_EVENT_BLOCK:
                lo = t_a if first == 0 else float(ts[first - 1])
                return self._refine(lo, float(ts[first]), p, g_from)
            if ts[-1] >= self.t1:
                return None
            t_a = float(ts[-1])
        return None

    def _double_crossing(self, ts, gs, ds, p, g_from):
        """Intervals between samples where the cubic Hermite interpolant of an indicator turns
        back across zero: sampled finely, the first crossing found is refined."""
        if ts.size < 2:
            return None
        h = np.diff(ts)
        g0, g1, d0, d1 = gs[:, :-1], gs[:, 1:], ds[:, :-1] * h, ds[:, 1:] * h
        # slopes of opposite sign at the ends: an extremum inside
        suspicious = (d0 * d1 < 0) & (np.sign(g0) == np.sign(g1))
        for i, k in zip(*np.nonzero(suspicious)):
            s = np.linspace(0.0, 1.0, 65)
            h00, h10 = 2 * s**3 - 3 * s**2 + 1, s**3 - 2 * s**2 + s
            h01, h11 = -2 * s**3 + 3 * s**2, s**3 - s**2
            cubic = h00 * g0[i, k] + h10 * d0[i, k] + h01 * g1[i, k] + h11 * d1[i, k]
            if not np.any(np.sign(cubic) != np.sign(g0[i, k])):
                continue
            sub = ts[k] + s * h[k]
            vals = np.array([self.values(float(t), p) for t in sub]).T
            hit = crossed(g_from[:, None], vals)
            if hit.any():
                j = int(np.argmax(hit.any(axis=0)))
                return self._refine(float(sub[j - 1]), float(sub[j]), p, g_from)
        return None

    def _refine(self, lo: float, hi: float, p, g_from) -> float:
        """Illinois regula falsi on the earliest crossing in (lo, hi]; returns the upper end
        (the first point on the new side) once the bracket is a few ulp wide."""
        g_lo, g_hi = self.values(lo, p), self.values(hi, p)
        side = ""
        for _ in range(200):
            if hi - lo <= 4 * np.spacing(max(abs(hi), 1e-300)):
                break
            rows = np.nonzero(crossed(g_from, g_hi))[0]
            est = [lo + (hi - lo) * g_lo[i] / (g_lo[i] - g_hi[i]) if g_lo[i] != g_hi[i] else hi
                   for i in rows]
            i = rows[int(np.argmin(est))]
            tau = hi - g_hi[i] * (hi - lo) / (g_hi[i] - g_lo[i]) if g_hi[i] != g_lo[i] \
                else 0.5 * (lo + hi)
            if not (lo < tau < hi) or not np.isfinite(tau):
                tau = 0.5 * (lo + hi)
            g_t = self.values(tau, p)
            if np.any(crossed(g_from, g_t)):
                hi, g_hi = tau, g_t
                if side == "hi":
                    g_lo = 0.5 * g_lo
                side = "hi"
            else:
                lo, g_lo = tau, g_t
                if side == "lo":
                    g_hi = 0.5 * g_hi
                side = "lo"
        return hi
