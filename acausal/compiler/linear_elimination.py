"""Sparse symbolic elimination of a linear block: the block's own sparsity decides the order.

A block of the sorted system (``structure/blt.py``) whose equations are linear in its unknowns
``u`` reads ``A u + b = 0`` with ``A``, ``b`` CasADi SX expressions of the time, the states, the
parameters and earlier blocks' unknowns. Tearing solves such a block through its tear variables,
but the torn system is dense: the assignments between the tears chain through the whole block,
so a serial chain of N bodies becomes a dense system of 2N - 2 unknowns, ``O(N^3)`` operations
in the generated code. Eliminated in the right order, the same block is no denser than itself:
for a tree, leaves first (what the articulated-body algorithm of Featherstone does by hand), no
entry fills in and the cost is ``O(N)``.

The order is the block's own: level by level of a breadth-first search of the block's graph
(unknowns sharing an equation are neighbours; or, where the caller names the component that
owns each unknown, of the graph of those components, which sweeps a chain body by body), the
farthest level first, and within a level
the pivot ``(equation, unknown)`` with the smallest Markowitz count ``(r - 1)(c - 1)`` (r, c:
the entries left in its row and column, which bounds the fill the step creates), among the
pivots that are *safe*:

* the pivot is not a function of a discrete variable (a mode that makes it zero in another mode);
* at every sample point (the start point and random points around it: see
  ``compiler/realize.py``) it is at least ``THRESHOLD`` times the largest entry of its column
  (threshold pivoting, which bounds the growth of the entries), and it has the same sign at all
  of them. A continuous pivot that takes both signs over the configurations passes through zero
  somewhere (an entry of a rotation matrix such as ``sin(phi)``): it is never taken. Pivots made
  of numbers and parameters are preferred among equal counts.

What no safe pivot can eliminate is the *remainder* (for a closed loop: the cut's unknowns); its
Schur complement is returned as a small linear system that the caller solves as before (a
symbolic QR when small, else a numeric LU with partial pivoting at run time). Entries that the
samples show to cancel exactly (zero at every sample, relative to the terms that made them) are
dropped: such cancellation is an identity such as ``cos^2 + sin^2 - 1`` written out, not a
coincidence of the sample.

The unknowns then follow by back substitution in reverse order of elimination, as SX expressions
in the remainder's unknowns; the generated code shares every common subexpression.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

#: A pivot must be at least this fraction of the largest entry in its column at every sample.
THRESHOLD = 1e-3
#: Points at which the pivots are checked (the start point and random points around it).
SAMPLES = 16
#: An updated entry whose samples are all below this fraction of the terms that formed it is an
#: exact cancellation and is dropped.
CANCELLED = 1e-11

#: Columns of the farthest level (those with the fewest entries) compared for the best pivot at
#: each step. Comparing the whole level shortens the spatial chain's right-hand side by 10 % but
#: makes the search several times slower (each step changes the best pivot of most columns in
#: its level, and each must be found again).
LOOK = 8

#: A probe whose fill exceeds RUNAWAY times the least fill once RUNAWAY_AFTER of the block is
#: eliminated stops early (before the comparison at half of the block, see :func:`_race`).
RUNAWAY = 3.0
RUNAWAY_AFTER = 0.2

_binary = ca.SX.binary
_unary = ca.SX.unary


@dataclass
class EliminationReport:
    """What the elimination of one linear block did (shown in the compile summary)."""

    size: int  # unknowns of the block
    entries: int  # structural nonzeros of A
    eliminated: int  # unknowns eliminated symbolically
    expression_pivots: int  # pivots that are functions of the states (not numbers or parameters)
    fill: int  # entries created by the elimination
    remainder: list[str] = field(default_factory=list)  # unknowns left for the numeric solve
    order: list[str] = field(default_factory=list)  # unknowns in the order of elimination

    def line(self) -> str:
        rest = (f", remainder {len(self.remainder)} solved as one dense block: "
                + ", ".join(self.remainder[:6]) + (", ..." if len(self.remainder) > 6 else "")
                if self.remainder else ", no remainder")
        first = ", ".join(self.order[:4]) + (", ..." if len(self.order) > 4 else "")
        return (f"{self.size} unknowns, {self.entries} entries: {self.eliminated} eliminated "
                f"({self.expression_pivots} pivots on expressions), fill {self.fill}{rest}; "
                f"order {first}")


@dataclass
class Elimination:
    """The steps of an elimination and the remainder it left (see :func:`eliminate`)."""

    #: (pivot column, the pivot row's other entries {column: SX}, the row's b, the pivot)
    steps: list[tuple[int, dict[int, Any], Any, Any]]
    remainder_cols: list[int]  # the unknowns left (column indices), in order
    remainder_rows: list[int]  # the equations left (row indices), in order
    remainder_a: ca.SX  # the remainder's matrix (its rows: the rows left, in order)
    remainder_b: ca.SX
    report: EliminationReport

    def solve(self, remainder_values: list[Any]) -> dict[int, Any]:
        """Every unknown (column index -> SX) by back substitution, given the remainder's
        unknowns (in ``remainder_cols`` order)."""
        solution: dict[int, Any] = dict(zip(self.remainder_cols, remainder_values))
        for c, others, b_r, pivot in reversed(self.steps):
            acc = b_r
            for j, e in others.items():
                acc = _binary(ca.OP_ADD, acc, _binary(ca.OP_MUL, e, solution[j]))
            solution[c] = _unary(ca.OP_NEG, _binary(ca.OP_DIV, acc, pivot))
        return solution


def eliminate(a: ca.SX, b: ca.SX, samples_of_a: np.ndarray, varying: ca.SX, discrete: ca.SX,
              names: list[str], owners: list[str] | None = None) -> Elimination:
    """Eliminate ``A u + b = 0`` as far as safe pivots go.

    ``a`` (n x n, sparse SX) and ``b`` (n x 1); ``samples_of_a`` the values of ``a``'s nonzeros
    (in CasADi's column-major nonzero order) at random points, one column per point (columns
    with a NaN are ignored); ``varying`` the symbols that change during a run (time, states,
    earlier unknowns: an entry free of them is made of numbers and parameters), ``discrete`` the
    discrete variables (never in a pivot); ``names`` the unknowns' names (for the report);
    ``owners`` the path of the component that owns each unknown, or None.

    The breadth-first search starts at either end of the graph's longest path or at its
    middle, in the unknowns' own graph and, where ``owners`` are given, in the components'
    graph too (:func:`_component_levels`; the 100-link chain's right-hand side 152 000
    instructions against 217 000, while the unknowns' graph serves a tree whose components are
    close together in it: a hand's fingers, whose joints about one axis share their
    orientation's rows, 8 086 instructions against 9 251). The starts are tried
    side by side on the numbers alone (:class:`_Probe`,
    :func:`_race`), and the best (the least work left: the fill plus the cube of the
    remainder's size; one without pivots on expressions first) is carried out on the
    expressions (:func:`_replay`). For a tree the best
    is leaves to root, the order of the articulated-body algorithm; searched from a free end
    instead (its fixed end eliminated first), the pivots of a mechanism's accelerations change
    sign and the elimination fills in twice as much or stops early.
    """
    n = a.size1()
    rows_nz, cols_nz = a.sparsity().get_triplet()
    nz = a.nonzeros()
    good = np.all(np.isfinite(samples_of_a), axis=0)
    values = samples_of_a[:, good]
    has_discrete = discrete.numel() > 0
    kept = [k for k in range(len(nz)) if not nz[k].is_zero()]
    entries = [(rows_nz[k], cols_nz[k]) for k in kept]
    constant = [nz[k].is_constant() or not ca.depends_on(nz[k], varying) for k in kept]
    on_discrete = [has_discrete and ca.depends_on(nz[k], discrete) for k in kept]
    neighbours = _column_graph(entries, n)
    levels = [_bfs_levels(neighbours, n, start) for start in _starts(neighbours, n)]
    if owners is not None:
        levels += _component_levels(neighbours, owners)
    samples = _Samples(values.shape[1])
    probes = [_Probe(n, entries, values[kept], constant, on_discrete, level, samples)
              for level in levels]
    probe = _race(probes, n)
    sx_rows: list[dict[int, Any]] = [{} for _ in range(n)]
    for k in kept:
        sx_rows[rows_nz[k]][cols_nz[k]] = nz[k]
    steps, rows_left = _replay(sx_rows, [b[i] for i in range(n)], probe.steps)
    rem_rows = sorted(probe.alive_rows)
    rem_cols = sorted(probe.alive_cols)
    k = len(rem_cols)
    a_rem = ca.SX(k, k)
    b_rem = ca.SX(k, 1)
    position = {j: q for q, j in enumerate(rem_cols)}
    for q, i in enumerate(rem_rows):
        for j, e in sx_rows[i].items():
            a_rem[q, position[j]] = e
        b_rem[q] = rows_left[i]
    report = EliminationReport(
        size=n, entries=len(kept), eliminated=len(steps),
        expression_pivots=probe.expression_pivots, fill=probe.fill,
        remainder=[names[j] for j in rem_cols], order=[names[c] for _, c, _ in probe.steps])
    return Elimination(steps=steps, remainder_cols=rem_cols, remainder_rows=rem_rows,
                       remainder_a=a_rem, remainder_b=b_rem, report=report)


class _Samples:
    """The sample values of the entries of all the probes of one race, one row per entry (each
    probe has its own entries), and what the pivot test needs of each entry: its least and
    largest sample (:func:`_sample_range`), whether it is made of numbers and parameters only,
    and whether it depends on a discrete variable (arrays of bool: a step computes them for all
    its entries at once). One store serves all the probes so that a round of the race updates
    them all with one set of array operations (:func:`_eliminate`): a step's arrays are small,
    and the cost of an operation is mostly its call."""

    def __init__(self, points: int) -> None:
        self.values = np.empty((0, points))
        self.size = 0
        self.low: list[float] = []
        self.high: list[float] = []
        self.constant = np.empty(0, dtype=bool)
        self.on_discrete = np.empty(0, dtype=bool)

    def add(self, values: np.ndarray, constant, on_discrete) -> int:
        """Store new entries; returns the id of the first (the others follow)."""
        first, need = self.size, self.size + len(values)
        if need > len(self.values):
            room = max(need, 2 * len(self.values))
            self.values = _grown(self.values, first, room)
            self.constant = _grown(self.constant, first, room)
            self.on_discrete = _grown(self.on_discrete, first, room)
        self.values[first:need] = values
        self.constant[first:need] = constant
        self.on_discrete[first:need] = on_discrete
        self.size = need
        low, high = _sample_range(values)
        self.low.extend(low)
        self.high.extend(high)
        return first


class _Probe:
    """One elimination on the sample values alone, in the order of one set of levels: which
    pivots, and which entries cancel (recorded in :attr:`steps` for :func:`_replay`). A step
    is :meth:`choose`, then :func:`_eliminate` (:meth:`begin`, the arithmetic, :meth:`end`)."""

    def __init__(self, n: int, entries: list[tuple[int, int]], values: np.ndarray,
                 constant: list[bool], on_discrete: list[bool], level: list[int],
                 samples: _Samples) -> None:
        self.level = level
        self.samples = samples
        first = samples.add(np.asarray(values, dtype=float), constant, on_discrete)
        self.row: list[dict[int, int]] = [{} for _ in range(n)]  # row -> {column: entry id}
        self.col: list[dict[int, int]] = [{} for _ in range(n)]  # column -> {row: entry id}
        for k, (i, j) in enumerate(entries, first):
            self.row[i][j] = k
            self.col[j][i] = k
        self.alive_cols = set(range(n))
        self.alive_rows = set(range(n))
        #: (pivot row, pivot column, entries that cancelled in this step as (row, column))
        self.steps: list[tuple[int, int, list[tuple[int, int]]]] = []
        self.fill = 0
        self.expression_pivots = 0
        self._best: dict[int, Any] = {}  # column -> its best pivot (cached until it changes)
        # column -> its safe rows (_safe_rows), cached until an entry of the column changes:
        # a step that only lengthens the rows of a column changes its best pivot's count alone
        self._safe: dict[int, list[tuple[int, bool]]] = {}
        # The columns by key (_key), the smallest first: the heap holds a column's key each
        # time it changed; only those equal to its current key count (copies included: each
        # takes a place among the LOOK compared), the others are stale. A column without a
        # safe pivot, and an eliminated one, has no current key (None) until a step changes it.
        self._bits = max(n, *level, 1).bit_length()  # of each field of a key (_key)
        self._farthest = max(level, default=0)
        self._current: list[Any] = [self._key(j) for j in range(n)]
        self._heap = list(self._current)
        heapq.heapify(self._heap)

    def _key(self, j: int) -> int:
        """A column with one entry first wherever it is (no fill, no choice), then the farthest
        level, then the fewest entries, then the column: the tuple ``(count > 1, -level,
        count, j)`` packed in one integer (in the same order, compared much faster)."""
        count, bits = len(self.col[j]), self._bits
        return ((((count > 1) << bits | (self._farthest - self.level[j])) << bits | count)
                << bits | j)

    def choose(self) -> tuple[int, int, bool] | None:
        """The next pivot ``(row, column, on an expression)``, or None when no safe pivot is
        left: the best among the first ``LOOK`` columns of the smallest key's group."""
        heap, current, best_of = self._heap, self._current, self._best
        mask, group = (1 << self._bits) - 1, 2 * self._bits  # the column; count > 1 and level
        best = None
        popped = []
        while heap:
            item = heap[0]
            j = item & mask
            if item != current[j]:
                heapq.heappop(heap)  # stale
                continue
            if popped and (item >> group != popped[0] >> group or len(popped) >= LOOK):
                break
            heapq.heappop(heap)
            found = best_of.get(j)
            found = self._best_in_column(j) if found is None else found[0]
            if found is None:
                current[j] = None
                continue
            popped.append(item)
            if best is None or found < best[0]:
                best = (found, j)
        for item in popped:
            heapq.heappush(heap, item)
        if best is None:
            return None
        (_, is_expression, r), c = best
        return r, c, is_expression

    def _best_in_column(self, j: int):
        """The column's safe pivot ``(Markowitz count, on an expression, row)``, or None."""
        safe = self._safe.get(j)
        if safe is None:
            safe = self._safe[j] = self._safe_rows(j)
        row, others = self.row, len(self.col[j]) - 1
        best = None
        for i, on_expression in safe:
            key = ((len(row[i]) - 1) * others, on_expression, i)
            if best is None or key < best:
                best = key
        self._best[j] = (best,)
        return best

    def _safe_rows(self, j: int) -> list[tuple[int, bool]]:
        """The rows whose entry in column ``j`` is a safe pivot, each with whether the entry
        is an expression (not made of numbers and parameters only).

        An entry of one sign whose least magnitude is at least ``THRESHOLD`` times the largest
        magnitude in its column passes the threshold test at every sample (rounding is
        monotone, so the bound holds for the products as computed). Only where the ranges do
        not decide are the samples compared (:meth:`_passes_threshold`), so the pivots are
        those of the sample-by-sample test."""
        samples = self.samples
        low, high, on_discrete = samples.low, samples.high, samples.on_discrete
        top = 0.0  # the largest magnitude in the column
        candidates = []  # (row, entry, least magnitude) of one sign, free of discrete variables
        for i, k in self.col[j].items():
            lo, hi = low[k], high[k]
            if hi > top:
                top = hi
            if -lo > top:
                top = -lo
            if (lo > 0 or hi < 0) and not on_discrete[k]:  # a NaN has no sign
                candidates.append((i, k, lo if lo > 0 else -hi))
        safe = []
        passed = None
        bound = THRESHOLD * top
        for i, k, least in candidates:
            if not bound <= least < np.inf:  # the ranges do not decide
                if passed is None:
                    passed = self._passes_threshold(j)
                if i not in passed:
                    continue
            safe.append((i, not samples.constant[k]))
        return safe

    def _passes_threshold(self, j: int) -> set[int]:
        """The rows of column ``j`` whose entry is at least ``THRESHOLD`` times the column's
        largest at every sample."""
        rows = list(self.col[j])
        a = np.abs(self.samples.values.take(list(self.col[j].values()), axis=0))
        ok = (a >= THRESHOLD * a.max(axis=0)).all(axis=1)
        return {rows[q] for q in np.flatnonzero(ok).tolist()}

    def begin(self, r: int, c: int, is_expression: bool) -> tuple:
        """Take the pivot ``(r, c)`` out of the structure; returns what the arithmetic needs:
        the pivot's entry, the other rows of its column with their entries there (the
        factors' numerators), the pivot row's other columns with their entries, and the entry
        each pair (row, column) updates (-1: a new entry), row by row."""
        row, col = self.row, self.col
        self.expression_pivots += is_expression
        pivot_row = row[r]
        lower = [(i, k) for i, k in col[c].items() if i != r]
        others = [(j, k) for j, k in pivot_row.items() if j != c]
        targets = [row[i].get(j, -1) for i, _ in lower for j, _ in others]
        self.alive_rows.discard(r)
        self.alive_cols.discard(c)
        for j, _ in others:
            del col[j][r]
        self._current[c] = None
        return pivot_row[c], lower, others, targets

    def end(self, r: int, c: int, lower: list, others: list, dropped: list[tuple[int, int]],
            created: list[tuple[int, int, int]]) -> None:
        """Record the step (``lower``, ``others``: as :meth:`begin` gave them): the entries
        that cancelled (row, column) leave the structure, the new ones (row, column, entry)
        enter it; the changed columns are looked at again."""
        row, col = self.row, self.col
        # the columns of the pivot row and of the rows it updated: their counts or pivots
        # change (the entries that cancel or appear are in the pivot row's columns)
        changed: set[int] = set(row[r])
        for i, _ in lower:
            changed.update(row[i])
        changed.discard(c)
        for i, j in dropped:
            del row[i][j]
            del col[j][i]
        for i, j, k in created:
            row[i][j] = k
            col[j][i] = k
        self.fill += len(created)
        for i, _ in lower:
            del row[i][c]
        col[c] = {}
        row[r] = {}
        self.steps.append((r, c, dropped))
        for j, _ in others:  # the columns whose entries the step rewrote
            self._safe.pop(j, None)
        best_of, current, heap, key = self._best, self._current, self._heap, self._key
        for j in changed:
            best_of.pop(j, None)
            current[j] = key(j)
            heapq.heappush(heap, current[j])


def _eliminate(chosen: list[tuple[_Probe, tuple[int, int, bool]]]) -> None:
    """One step of each probe: its pivot's row times (entry in the pivot column / pivot)
    subtracted from each other row of the pivot column, for all the probes at once (entry by
    entry the same floating-point operations as one probe at a time)."""
    if not chosen:
        return
    samples = chosen[0][0].samples
    plans = [probe.begin(*pivot) for probe, pivot in chosen]
    # one item per pair (row of the pivot column, column of the pivot row), probe by probe:
    # the update of entry ``target`` (-1: a new one) is numerator / pivot * factor
    numerator, pivot, factor, target = [], [], [], []
    for pivot_id, lower, others, targets in plans:
        row_ids = [k for _, k in others]
        for _, k in lower:
            numerator.extend([k] * len(row_ids))
        pivot.extend([pivot_id] * len(targets))
        factor.extend(row_ids * len(lower))
        target.extend(targets)
    numerator, pivot, factor = (np.array(ids, dtype=np.intp)
                                for ids in (numerator, pivot, factor))
    values, constant, on_discrete = samples.values, samples.constant, samples.on_discrete
    updates = values.take(numerator, axis=0) / values.take(pivot, axis=0) \
        * values.take(factor, axis=0)
    # an update is made of numbers and parameters if its three entries are; it is discrete if
    # one of them is
    pair_constant = constant[numerator] & constant[pivot] & constant[factor]
    pair_discrete = on_discrete[numerator] | on_discrete[pivot] | on_discrete[factor]
    target_ids = np.array(target, dtype=np.intp)
    exists = target_ids >= 0
    old_at, new_at = np.flatnonzero(exists), np.flatnonzero(~exists)
    old_ids, upd = target_ids[old_at], updates[old_at]
    old = values[old_ids]
    new = old - upd
    # cancelled: below CANCELLED times the terms at every sample; tested at the first sample
    # on all, at the others only where the first passes (the same outcome, a sixteenth of it)
    first_cancels = np.abs(new[:, 0]) <= CANCELLED * (np.abs(old[:, 0]) + np.abs(upd[:, 0])) \
        if new.shape[1] else np.ones(len(new), dtype=bool)
    cancelled = np.flatnonzero(first_cancels)
    if len(cancelled):
        c_new, c_old, c_upd = new[cancelled], old[cancelled], upd[cancelled]
        cancelled = cancelled[(np.abs(c_new) <= CANCELLED * (np.abs(c_old) + np.abs(c_upd)))
                              .all(axis=1)]
    values[old_ids] = new
    old_list = old_ids.tolist()
    low, high = samples.low, samples.high
    for k, lo, hi in zip(old_list, *_sample_range(new)):
        low[k], high[k] = lo, hi
    constant[old_ids] &= pair_constant[old_at]
    on_discrete[old_ids] |= pair_discrete[old_at]
    new_list = new_at.tolist()
    first = samples.add(-updates[new_at], pair_constant[new_at], pair_discrete[new_at])
    # back to the probes (the pairs of each are consecutive, and so are their new entries)
    gone = old_at[cancelled].tolist()
    at_gone = at_new = 0
    start = 0
    for (probe, (r, c, _)), (_, lower, others, targets) in zip(chosen, plans):
        end, width = start + len(targets), len(others)
        dropped = []
        while at_gone < len(gone) and gone[at_gone] < end:
            p, q = divmod(gone[at_gone] - start, width)
            dropped.append((lower[p][0], others[q][0]))
            at_gone += 1
        created = []
        while at_new < len(new_list) and new_list[at_new] < end:
            p, q = divmod(new_list[at_new] - start, width)
            created.append((lower[p][0], others[q][0], first + at_new))
            at_new += 1
        probe.end(r, c, lower, others, dropped, created)
        start = end


def _grown(a: np.ndarray, used: int, room: int) -> np.ndarray:
    """``a`` with room for ``room`` rows, its first ``used`` kept."""
    grown = np.empty((room, *a.shape[1:]), dtype=a.dtype)
    grown[:used] = a[:used]
    return grown


def _sample_range(v: np.ndarray) -> tuple[list[float], list[float]]:
    """The least and the largest sample of each entry (a row of ``v``), -inf and inf for an
    entry with a NaN sample (it has no sign, and its column's threshold test is then never
    decided by the ranges); with no samples at all, no entry has a sign."""
    if not v.shape[1]:
        return [-np.inf] * len(v), [np.inf] * len(v)
    by_point = np.ascontiguousarray(v.T)  # reduced along its rows: several times faster
    low, high = by_point.min(axis=0), by_point.max(axis=0)  # NaN where a sample is NaN
    nan = np.isnan(low)
    if nan.any():
        low[nan], high[nan] = -np.inf, np.inf
    return low.tolist(), high.tolist()


def _race(probes: list[_Probe], n: int) -> _Probe:
    """Run the probes side by side, a pivot each in turn; once half of the block is eliminated, a
    probe that has filled in 60 % more than the least-filled one stops (the wrong end of a chain
    fills in about twice as fast all along; but a start in the middle is cheap at first, from
    both ends, and fills in fast once the two fronts meet, so an earlier or closer comparison
    drops the best start); before that, once a fifth of the block is eliminated
    (``RUNAWAY_AFTER``), one that has filled in ``RUNAWAY`` = 3 times as much as the
    least-filled one stops (a runaway start: the 100-link chain under the orientation rule had
    two starts at 5 400 and 7 400 entries there against 1 500, that reached 28 000 and 47 000 at
    half and took half of its compile time; the starts chosen, and so the code, stay the same
    for the chains, the hand, EngineV6 and the R3 robot). Of those that ran to their end, one
    that took no pivot on an expression if there is one (its pivots, numbers and parameters,
    cannot vanish during a run, while a pivot on an expression is known to keep its sign only at
    the sample points: EngineV6's loops take three such by components, one of which vanishes
    0.04 s into the run, and none from the ends of the unknowns' graph), and among those the one
    that leaves the least work: its fill plus a dense solve of its remainder (the cube of its
    size). A probe without such pivots is compared with the others without them only. In a
    round, each running probe chooses its pivot, then :func:`_eliminate` takes them all."""
    running = list(probes)
    finished: list[_Probe] = []
    while running:
        chosen = []
        for probe in running:
            pivot = probe.choose()
            if pivot is None:
                finished.append(probe)
            else:
                chosen.append((probe, pivot))
        _eliminate(chosen)
        running = [probe for probe, _ in chosen]
        done = len(running[0].steps) if running else 0
        if done > RUNAWAY_AFTER * n:
            factor = 1.6 if done > 0.5 * n else RUNAWAY
            least = {}
            for p in running:
                kind = p.expression_pivots == 0
                least[kind] = min(least.get(kind, p.fill), p.fill)
            running = [p for p in running
                       if p.fill <= factor * least[p.expression_pivots == 0] + 50]
    return min(finished, key=lambda p: (p.expression_pivots > 0,
                                        p.fill + len(p.alive_cols) ** 3, probes.index(p)))


def _replay(row: list[dict[int, Any]], rhs: list, probe_steps) -> tuple[list, list]:
    """The probe's eliminations on the expressions: ``row`` (SX entries) and ``rhs`` are
    updated in place; returns the back-substitution steps and the right-hand sides."""
    n = len(row)
    col: list[set[int]] = [set() for _ in range(n)]
    for i, r in enumerate(row):
        for j in r:
            col[j].add(i)
    steps = []
    for r, c, dropped in probe_steps:
        pivot_row = row[r]
        pivot = pivot_row[c]
        others = [(j, e) for j, e in pivot_row.items() if j != c]
        steps.append((c, dict(others), rhs[r], pivot))
        gone = set(dropped)
        for j, _ in others:
            col[j].discard(r)
        for i in col[c]:
            if i == r:
                continue
            target = row[i]
            factor = _binary(ca.OP_DIV, target.pop(c), pivot)
            for j, e_rj in others:
                if (i, j) in gone:
                    del target[j]
                    col[j].discard(i)
                    continue
                update = _binary(ca.OP_MUL, factor, e_rj)
                old = target.get(j)
                if old is None:
                    target[j] = _unary(ca.OP_NEG, update)
                    col[j].add(i)
                else:
                    target[j] = _binary(ca.OP_SUB, old, update)
            rhs[i] = _binary(ca.OP_SUB, rhs[i], _binary(ca.OP_MUL, factor, rhs[r]))
        col[c] = set()
        row[r] = {}
    return steps, rhs


def _column_graph(entries: list[tuple[int, int]], n: int) -> list[set[int]]:
    """Columns that share a row."""
    by_row: dict[int, list[int]] = {}
    for i, j in entries:
        by_row.setdefault(i, []).append(j)
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for cols in by_row.values():
        for j in cols:
            neighbours[j].update(cols)
    for j in range(n):
        neighbours[j].discard(j)
    return neighbours


def _bfs_levels(neighbours: list[set[int]], n: int, start: int | list[int]) -> list[int]:
    """Breadth-first levels of the column graph from ``start`` (one column or several;
    unreached columns: level 0)."""
    level = [-1] * n
    frontier = [start] if isinstance(start, int) else list(start)
    for j in frontier:
        level[j] = 0
    while frontier:
        nxt = []
        for j in frontier:
            for k in neighbours[j]:
                if level[k] == -1:
                    level[k] = level[j] + 1
                    nxt.append(k)
        frontier = nxt
    return [max(lv, 0) for lv in level]


def _component_levels(neighbours: list[set[int]], owners: list[str]) -> list[list[int]]:
    """The unknowns' levels by their components: the breadth-first levels (from each start of
    :func:`_starts`) of the graph whose nodes are the owning components (two are neighbours
    where unknowns of both share an equation), each unknown at its component's level.

    Levels of the unknowns' own graph sweep a serial chain unevenly: a link's force balance
    reaches the next link's forces in fewer equations than its kinematics reaches the next
    link's accelerations, so one level holds the forces of one link and the accelerations of
    another several links away, and every unknown in between stays in the front (the 20-link
    chain: rows of up to 32 entries). By components, the elimination takes a body and its
    joint together, as the articulated-body algorithm does."""
    index: dict[str, int] = {}
    group = [index.setdefault(o, len(index)) for o in owners]
    graph: list[set[int]] = [set() for _ in index]
    for j, near in enumerate(neighbours):
        for k in near:
            if group[k] != group[j]:
                graph[group[j]].add(group[k])
    return [[lv[group[j]] for j in range(len(owners))]
            for lv in (_bfs_levels(graph, len(graph), s) for s in _starts(graph, len(graph)))]


def _starts(neighbours: list[set[int]], n: int) -> list:
    """Where the breadth-first search may start: both ends of a longest path (a
    pseudo-peripheral column, George and Liu's search of repeated breadth-first searches, and
    the farthest column from it) and the columns at its middle (for a tree rooted at its
    centre, such as a hand of fingers on a palm)."""
    if n == 0:
        return []
    start = 0
    level = _bfs_levels(neighbours, n, start)
    for _ in range(8):
        far = max(range(n), key=lambda j: (level[j], -j))
        new = _bfs_levels(neighbours, n, far)
        if max(new) <= max(level):
            break
        start, level = far, new
    other = max(range(n), key=lambda j: (level[j], -j))
    back = _bfs_levels(neighbours, n, other)
    length = level[other]
    middle = [j for j in range(n) if level[j] + back[j] == length
              and abs(level[j] - back[j]) <= 1]
    starts: list = [start]
    if other != start:
        starts.append(other)
    if middle and length > 2:
        starts.append(middle)
    return starts
