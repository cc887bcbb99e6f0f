"""Event indicators at run time: which ones the solver's root finding watches, which ones are
scheduled as time events, and which ones can change their clause's condition at all.

Used by :mod:`acausal.run.hybrid`; see ``docs/events.md`` for the semantics.
"""

from __future__ import annotations

import itertools
from collections import deque

import casadi as ca
import numpy as np

from .buffers import Buffered

#: Clauses with at most this many continuous relations get their crossings gated.
MAX_GATED_RELATIONS = 6
#: Time events: samples of a time-only indicator over the whole run when searching its roots.
TIME_EVENT_SAMPLES = 20_000
TIME_EVENT_BLOCK = 1024
#: Chattering: this many events (or stops at crossings) within CHATTER_FRACTION of the simulated
#: time span.
CHATTER_EVENTS = 20
CHATTER_FRACTION = 1e-6


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

    def crossed_rows(self, t_from: float, t_to: float, p: np.ndarray) -> list[int]:
        """The indicator rows (of the whole model) that crossed between two times."""
        if not self.rows:
            return []
        hit = crossed(self.values(t_from, p), self.values(t_to, p))
        return [self.rows[i] for i in np.flatnonzero(hit)]

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


class Chatter:
    """Events, and stops at zero crossings, that pile up at one instant: a condition that keeps
    crossing its threshold (``der(x) = event_if(x < 1, 1, -2)``: on either side of ``x = 1``
    the dynamics drive ``x`` back) has no continuation as written. The run loop reports each
    stop (:meth:`stop`, with the indicator rows that crossed) and each event (:meth:`event`,
    with the clauses that fired); :meth:`message` names the conditions that kept crossing, as
    written, with their components' paths, and what to do."""

    def __init__(self, span: float) -> None:
        self.limit = CHATTER_FRACTION * max(span, 1e-300)
        self.stops: deque = deque(maxlen=CHATTER_EVENTS)  # (t, indicator rows that crossed)
        self.events: deque = deque(maxlen=CHATTER_EVENTS)  # (t, labels of the clauses fired)

    def stop(self, t: float, rows=()) -> bool:
        """A stop at a crossing at ``t`` (``rows``: the indicators that crossed, if known);
        True when the last CHATTER_EVENTS stops lie within the chattering time."""
        self.stops.append((t, tuple(rows)))
        return self._piled_up(self.stops)

    def event(self, t: float, labels) -> bool:
        """Clauses ``labels`` fired at ``t``; True when the last CHATTER_EVENTS events lie
        within the chattering time."""
        self.events.append((t, tuple(labels)))
        return self._piled_up(self.events)

    def _piled_up(self, log: deque) -> bool:
        return len(log) == CHATTER_EVENTS and log[-1][0] - log[0][0] <= self.limit

    def message(self, cs, kind: str = "stops") -> str:
        """What chattered (``kind``: "stops" or "events") and what to do; ``cs`` the compiled
        model (its flattened ``When`` clauses give the conditions as written)."""
        log = self.stops if kind == "stops" else self.events
        t0, t1 = log[0][0], log[-1][0]
        counts: dict[str, int] = {}  # condition as written -> stops (or events) it took part in
        if kind == "stops":
            for _, rows in log:
                for text in dict.fromkeys(_condition_of_row(cs, r) for r in rows):
                    counts[text] = counts.get(text, 0) + 1
        if not counts:  # events, or crossings not known (a run without a solver): the clauses
            for _, labels in self.events:
                for text in dict.fromkeys(_condition_of_label(cs, lab) for lab in labels):
                    counts[text] = counts.get(text, 0) + 1
        what = ("zero crossings of event conditions" if kind == "stops" else "events")
        same = len(set(counts.values())) == 1  # counts shown where they tell one from another
        named = "; ".join(text if same else f"{text} ({n} times)"
                          for text, n in counts.items()) or "conditions not known"
        return (
            f"Chattering: {CHATTER_EVENTS} {what} between t = {t0:.12g} and {t1:.12g} (within "
            f"{CHATTER_FRACTION:g} of the simulated time span), of: {named}. The condition "
            "keeps crossing its threshold: on either side of it the model drives it back (a "
            "sliding mode, such as a switch whose two branches push towards each other, or "
            "a friction force that flips its sign at zero speed), so the run cannot go on as "
            "written. Change the model there: use a smooth law instead of the switch (e.g. "
            "tanh(v/v_reg) instead of sign(v), a regularised friction law); or add a hysteresis "
            "(a Discrete mode switched on at one threshold and off at another, e.g. "
            "When(x < 0.99, assign(on, 1)) and When(x > 1.01, assign(on, 0))); or, for "
            "friction, use the stick/slip element (acausal.components.friction), whose stuck "
            "mode gates the crossings at zero speed. (simulate(zeno='warn' or 'off') relaxes "
            "the test of events that accumulate geometrically, not this one.) The solution up "
            f"to t = {t1:.12g} is on the exception (err.solution).")


def _event_rows(cs) -> list[int]:
    """The clause (index into ``cs.events``) of each event indicator row."""
    return cs.cached("indicator_clauses", lambda: [
        k for k, ev in enumerate(cs.events) for _ in ev.indicators])


def _condition_of_row(cs, row: int) -> str:
    clauses = _event_rows(cs)
    if not 0 <= row < len(clauses):
        return "an event condition"
    return _condition_of_label(cs, cs.events[clauses[row]].label, clauses[row])


def _condition_of_label(cs, label: str, index: int | None = None) -> str:
    """A clause as its user wrote it: ``event_if(heater.T < 1) in equation 1 of Heater
    'heater'`` (both clauses an ``event_if`` is lowered to read alike), ``When(room.T < 19),
    event 1 of Thermostat 'room.thermostat'``."""
    for suffix in (" becoming true,", " becoming false,"):
        if suffix in label:
            return label.replace(suffix, " in", 1)
    flat = getattr(cs, "flat", None)
    events = getattr(flat, "events", None) or []
    if index is None:
        index = next((k for k, ev in enumerate(events) if ev.label == label), None)
    if index is not None and index < len(events) and events[index].label == label:
        return f"When({events[index].condition}), {label}"
    return label
