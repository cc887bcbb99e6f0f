"""Dummy-derivative state selection (S. E. Mattsson and G. Söderlind, SIAM J. Sci. Comput.
14(3), 1993).

After Pantelides, each differentiated equation chain ``f, f', ..., f^(c)`` says that some
derivatives are not independent. Working from the highest differentiation level down, level ``i``
takes the equations ``g_i`` of differentiation order ``c - i + 1 >= 1`` and chooses as many
variables as it has equations, among candidates ``z_i``, such that ``dg_i/dz_selected`` is
non-singular. The selected variables become *dummy derivatives* (ordinary algebraic unknowns);
the candidates of the next level are the variables one differentiation below the selected ones.
A variable is a state when its derivative occurs and that derivative is not a dummy.

The choice honours ``state_priority`` (the derivative of a high-priority variable is the last to
be made a dummy) and, among equal priorities, takes the largest pivot of the Jacobian evaluated at
the start values, falling back to a generic (random, seeded) point when the start point is
degenerate. The selection is static: it is valid near the start point (issue: dynamic
re-selection for mechanisms that pass a singular configuration).
"""

from __future__ import annotations

from collections import ChainMap

import casadi as ca
import numpy as np

from ...base.errors import StructurallySingularError
from ...language.symbolic import time
from ..codegen import Translator
from .checks import listing
from .system import EquationSystem


def _priority(system: EquationSystem, v: int) -> float:
    """Priority of keeping der-variable ``v``'s integrals as states.

    The sum of the ``state_priority`` of the variables below ``v`` in its derivative chain, so
    that a priority on either the position or the velocity counts, and a negative priority on
    one of them is not masked by the other's default 0.
    """
    total = 0.0
    u = system.diff_to_var[v]
    while u != -1:
        info = system.info[u]
        if info is not None:
            total += info.state_priority
        u = system.diff_to_var[u]
    return total


#: A column adds rank to the greedy choices below when its remaining part exceeds this fraction
#: of the block's largest entry.
RANK_TOLERANCE = 1e-9


def _pick_columns(a: np.ndarray, priorities: list[float], m: int) -> list[int] | None:
    """Greedy column choice by Gaussian elimination: low priority first, largest pivot next."""
    a = np.array(a, dtype=float)
    scale = np.max(np.abs(a)) if a.size else 0.0
    if scale == 0.0:
        return None
    tol = RANK_TOLERANCE * scale
    rows = list(range(a.shape[0]))
    chosen: list[int] = []
    for _ in range(m):
        best = None
        for p in sorted(set(priorities)):
            cols = [c for c in range(a.shape[1]) if priorities[c] == p and c not in chosen]
            if not cols:
                continue
            mags = [np.max(np.abs(a[rows, c])) for c in cols]
            k = int(np.argmax(mags))
            if mags[k] > tol:
                best = cols[k]
                break
        if best is None:
            return None
        r = rows[int(np.argmax(np.abs(a[rows, best])))]
        for other in rows:
            if other != r and a[other, best] != 0.0:
                a[other] -= a[other, best] / a[r, best] * a[r]
        rows.remove(r)
        chosen.append(best)
    return chosen


def _pick_columns_by_qr(a: np.ndarray, priorities: list[float], m: int) -> list[int] | None:
    """The same choice as :func:`_pick_columns` for larger blocks, vectorised: priority groups
    in ascending order, each orthogonalised against the columns chosen so far and then chosen
    from by QR with column pivoting (largest remaining norm first). Choosing low priorities
    first while a column adds rank is the greedy basis of the column matroid, so the columns
    left over (the states) are the highest-priority set that works."""
    from scipy.linalg import qr

    a = np.asarray(a, dtype=float)
    scale = np.max(np.abs(a)) if a.size else 0.0
    if scale == 0.0:
        return None
    tol = RANK_TOLERANCE * scale
    basis = np.zeros((a.shape[0], 0))
    chosen: list[int] = []
    for p in sorted(set(priorities)):
        cols = [c for c in range(a.shape[1]) if priorities[c] == p]
        block = a[:, cols]
        if basis.shape[1]:
            block = block - basis @ (basis.T @ block)
            block = block - basis @ (basis.T @ block)  # twice is enough (Kahan)
        q, r, piv = qr(block, mode="economic", pivoting=True)
        diag = np.abs(np.diag(r))
        k = min(int(np.sum(diag > tol)), m - len(chosen))
        chosen.extend(cols[j] for j in piv[:k])
        basis = np.hstack([basis, q[:, :k]])
        if len(chosen) == m:
            return chosen
    return None


#: How far above the greedy choices' rank tolerance the certified bound of
#: :func:`_pick_whole_groups` must lie, for rounding: the computed inverse the bound rests on is
#: accurate to about cond * m * 1e-16 (below 1e-3 relative near the bound for m <= 800), and the
#: greedy choices' own pivots carry rounding of that order too.
CERTIFICATE_MARGIN = 10.0
#: Columns of the inverse solved for at once by :func:`_pick_whole_groups`.
_INVERSE_BLOCK = 8


def _pick_whole_groups(a: np.ndarray, priorities: list[float], m: int) -> list[int] | None:
    """The choice of :func:`_pick_columns` and :func:`_pick_columns_by_qr` where the priorities
    and the structure decide it, without their dense factorisation; None where numbers must.

    Both take the priority groups in ascending order and keep a column while it adds rank. When
    the lowest groups together have exactly ``m`` columns ``S`` and ``a[:, S]`` is regular,
    every column of ``S`` adds rank and the choice is ``S`` whatever the pivot order: a spatial
    chain's second level (triangular blocks of about 3 N rows, all chosen) and its first level
    below the joint angles are of this kind. Regular enough for both means: every pivot of the
    QR form is at least sigma_min(a[:, S]), and every column of an elimination step's Schur
    complement has an entry of at least sigma_min(a[:, S]) / sqrt(m) (the complement's inverse
    is a block of the inverse of ``a[:, S]``); so the bound ``sigma_min >= 1 / |a[:, S]^-1|_F``,
    from a sparse LU (SuperLU) and ``m`` solves, must exceed sqrt(m) times the tolerance, with
    :data:`CERTIFICATE_MARGIN` for rounding. Otherwise (a group split by numbers, singular or
    nearly singular at this point) the caller makes the greedy choice.

    It replaces, where it applies, the dense QR whose multi-threaded BLAS (LAPACK through
    OpenBLAS) costs many times its single-threaded time on a loaded 2-core machine: what made a
    100-link chain's state selection swing by seconds (docs/compiler.md).
    """
    from scipy.sparse import csc_matrix  # scipy loads on first use, not on `import acausal`
    from scipy.sparse.linalg import splu

    a = np.asarray(a, dtype=float)
    if not a.size or a.shape[0] != m or not np.all(np.isfinite(a)):
        return None
    scale = np.max(np.abs(a))
    if scale == 0.0:
        return None
    prio = np.asarray(priorities, dtype=float)
    groups, sizes = np.unique(prio, return_counts=True)  # ascending, as the greedy choices
    filled = np.nonzero(np.cumsum(sizes) == m)[0]
    if not filled.size:
        return None  # a group is split: its columns compete by their numbers
    cols = np.nonzero(prio <= groups[filled[0]])[0]
    try:
        lu = splu(csc_matrix(a[:, cols]))
    except RuntimeError:  # exactly singular
        return None
    # The inverse a few columns at a time: SuperLU hands a block of right-hand sides to BLAS
    # matrix products (rows x block width x supernode width), which OpenBLAS spreads over all
    # cores above 4 * 65536 multiply-adds (interface/gemm.c) - the same oversubscription as the
    # QR's, with the identity's hundreds of columns at once; one column per call costs more in
    # call overhead than the solve. The squares are summed by elementwise numpy, not by BLAS.
    squares = 0.0
    for start in range(0, m, _INVERSE_BLOCK):
        width = min(_INVERSE_BLOCK, m - start)
        unit = np.zeros((m, width), order="F")
        unit[start + np.arange(width), np.arange(width)] = 1.0
        columns = lu.solve(unit)
        squares += float(np.sum(columns * columns))
    bound = RANK_TOLERANCE * scale * np.sqrt(m) * CERTIFICATE_MARGIN
    if not (np.isfinite(squares) and np.sqrt(squares) * bound < 1.0):
        return None
    return cols.tolist()


def _jacobian_function(system: EquationSystem, eqs: list[int], cands: list[int], params: dict):
    """CasADi function (values of the involved variables, t) -> d eqs / d cands (sparse)."""
    involved = sorted({v for e in eqs for v in system.incidence[e]} | set(cands))
    # one symbol vector split into its elements: a named SX symbol per variable costs about
    # 5 us to create (and the function's input would be their concatenation)
    args = ca.SX.sym("v", len(involved))
    syms = dict(zip([system.symbols[v] for v in involved], ca.vertsplit(args)))
    t = ca.SX.sym("t")
    # the parameters are looked up, not copied: one level can hold thousands of equations
    tr = Translator(ChainMap(syms, {time: t}, params))
    res = ca.vertcat(*[tr(system.residuals[e]) for e in eqs])
    zs = ca.vertcat(*[syms[system.symbols[v]] for v in cands])
    return ca.Function("dummy_jacobian", [args, t], [ca.jacobian(res, zs)]), involved


class _LevelJacobian:
    """The Jacobian of one level's equations with respect to all its candidates, generated and
    evaluated once for the whole level: one sparse CasADi call rather than one function per
    connected part (thousands in a long chain), so that state selection stays linear in model
    size. The dense block of a connected part is cut out of the sparse result."""

    def __init__(self, system: EquationSystem, g: list[int], cands: list[int], params: dict):
        self.function, self.involved = _jacobian_function(system, g, cands, params)
        self.row_of = {e: r for r, e in enumerate(g)}
        self.col_of = {v: k for k, v in enumerate(cands)}
        self.generic: dict[int, list] | None = None  # the Jacobian at a generic point

    def evaluate(self, values: np.ndarray, t: float) -> dict[int, list]:
        """The nonzeros of the level's Jacobian at (values, t), as {row: [(column, value)]}."""
        jac = self.function(values, t)
        rows, cols = jac.sparsity().get_triplet()
        by_row: dict[int, list] = {}
        for r, c, x in zip(rows, cols, jac.nonzeros()):
            by_row.setdefault(r, []).append((c, x))
        return by_row

    def block(self, by_row: dict[int, list], eqs: list[int], cands: list[int]) -> np.ndarray:
        out = np.zeros((len(eqs), len(cands)))
        local = {self.col_of[v]: k for k, v in enumerate(cands)}
        for i, e in enumerate(eqs):
            for c, x in by_row.get(self.row_of[e], ()):
                k = local.get(c)
                if k is not None:
                    out[i, k] = x
        return out


#: Largest connected part of one level chosen by dense numeric elimination; larger parts up to
#: QR_SELECTION_LIMIT by the vectorised QR form of the same greedy choice (a closed 3-D loop
#: has a few hundred rows) unless whole priority groups decide it (:func:`_pick_whole_groups`),
#: and beyond that by a priority-ordered structural matching checked numerically (sparse LU),
#: which honours priorities only row by row.
DENSE_SELECTION_LIMIT = 60
QR_SELECTION_LIMIT = 800


def _components(system: EquationSystem, g: list[int], cands: list[int]) -> list[tuple]:
    """Connected parts of the bipartite graph (level equations, candidate variables)."""
    col = {v: k for k, v in enumerate(cands)}
    parent = list(range(len(g) + len(cands)))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a
    for r, e in enumerate(g):
        for v in system.incidence[e]:
            if v in col:
                ra, rb = find(r), find(len(g) + col[v])
                if ra != rb:
                    parent[ra] = rb
    groups: dict[int, tuple[list[int], list[int]]] = {}
    for r in range(len(g)):
        groups.setdefault(find(r), ([], []))[0].append(r)
    for k in range(len(cands)):
        groups.setdefault(find(len(g) + k), ([], []))[1].append(k)
    return [grp for grp in groups.values() if grp[0]]


def _structural_pick(j_start: np.ndarray, j_generic: np.ndarray, prios: list[float]):
    """Priority-ordered matching of rows to columns, accepted if numerically non-singular.

    The columns of the lowest priority are tried alone first, then each next priority is
    admitted: so a variable of a higher priority becomes a dummy only where those of lower
    priority cannot do, over the whole part (a per-row order alone let a 100-link chain's
    matching take joint angles, priority 1, where rotation matrix entries would do)."""
    from scipy.sparse import csc_matrix  # scipy loads on first use, not on `import acausal`
    from scipy.sparse.linalg import splu

    from .matching import maximum_matching

    m, n = j_start.shape
    prio = np.asarray(prios, float)
    for limit in sorted(set(prios)):
        for jac in (j_start, j_generic):
            incidence = []
            for r in range(m):
                row = jac[r]
                nz = np.nonzero((row != 0.0) & (prio <= limit))[0]
                # lowest priority first, then the largest entry, then the column
                incidence.append(nz[np.lexsort((nz, -np.abs(row[nz]), prio[nz]))].tolist())
            match = maximum_matching(m, n, incidence, in_order=True)
            if any(c == -1 for c in match.eq_to_var):
                continue
            cols = match.eq_to_var
            try:
                # sparse LU (SuperLU): the block is large and has a few entries per row
                sol = splu(csc_matrix(jac[:, cols])).solve(np.ones(m))
            except RuntimeError:  # exactly singular
                continue
            if np.all(np.isfinite(sol)) and np.max(np.abs(sol)) < 1e12:
                return list(cols)
    return None


def _regularity(jac: np.ndarray, chosen: list[int]) -> float:
    """sigma_min(jac[:, chosen]) / sigma_max(jac), both in the 1-norm: the reciprocal
    condition number of the chosen square block from its LU factors (LAPACK ``dgecon``, an
    estimate within a factor of a few of the exact value) times ``|block|_1 / |jac|_1``; 0 for
    a singular block. One LU instead of two SVDs: a simulation checks this on its steps."""
    from scipy.linalg import lapack  # on first use (a dictionary look-up after that)

    top = np.abs(jac).sum(axis=0).max()
    if not top > 0.0:
        return 0.0
    block = jac[:, chosen]
    lu, _, info = lapack.dgetrf(block)
    if info != 0:
        return 0.0  # an exactly zero pivot: singular
    norm_block = np.abs(block).sum(axis=0).max()
    rcond, info = lapack.dgecon(lu, norm_block, norm="1")
    return float(rcond * norm_block / top) if info == 0 and np.isfinite(rcond) else 0.0


class StateSelector:
    """Dummy-derivative selection for one index-reduced system, reusable during simulation.

    ``select(point)`` chooses the dummy derivatives at a point; ``quality(dummies, values)``
    measures how regular a given choice is at a point: the smallest, over the connected parts of
    every level, of sigma_min(chosen columns) / sigma_max(all candidate columns) of the level's
    Jacobian (1-norm estimates, :func:`_regularity`). A choice whose quality falls towards zero
    is about to become singular.
    """

    def __init__(self, system: EquationSystem, params: dict) -> None:
        self.system = system
        self.params = params
        self.chains = []
        for e in range(system.n_eqs):
            if system.diff_to_eq[e] != -1:
                continue
            chain = [e]
            while system.eq_to_diff[chain[-1]] != -1:
                chain.append(system.eq_to_diff[chain[-1]])
            if len(chain) > 1:
                self.chains.append(chain)
        self.max_level = max((len(c) - 1 for c in self.chains), default=0)
        self._functions: dict[tuple, tuple] = {}
        self._part_cache: dict[tuple, list] = {}
        self._probes: dict[frozenset, list | None] = {}
        self.decided_by_numbers = False  # set by select(): a tie in priority was broken numerically

    @property
    def level_size(self) -> int:
        return sum(len(c) - 1 for c in self.chains)

    def _level_equations(self, i: int) -> list[int]:
        return [c[len(c) - i] for c in self.chains if len(c) - i >= 1]

    def _candidates(self, i: int, g: list[int], selected: list[int]) -> list[int]:
        system = self.system
        if i == 1:
            return sorted({v for e in g for v in system.incidence[e]
                           if system.diff_to_var[v] != -1 and system.var_to_diff[v] == -1})
        return sorted({system.diff_to_var[v] for v in selected if system.diff_to_var[v] != -1})

    def _level(self, g: list[int], cands: list[int]) -> _LevelJacobian:
        key = (tuple(g), tuple(cands))
        level = self._functions.get(key)
        if level is None:
            level = self._functions[key] = _LevelJacobian(self.system, g, cands, self.params)
        return level

    def _parts(self, g: list[int], cands: list[int]) -> list[tuple]:
        """The connected parts of a level (cached: the simulation asks for the quality of the
        choice at every output point, and the parts never change)."""
        key = (tuple(g), tuple(cands))
        parts = self._part_cache.get(key)
        if parts is None:
            parts = self._part_cache[key] = _components(self.system, g, cands)
        return parts

    @staticmethod
    def _at(level: _LevelJacobian, point: dict[int, float], t: float) -> dict[int, list]:
        """The level's Jacobian at ``point`` (variables missing from it taken as 0)."""
        args = np.array([point.get(v, 0.0) for v in level.involved], dtype=float)
        return level.evaluate(args, t)

    def _evaluate_generic(self, level: _LevelJacobian, eqs, cands, rng) -> np.ndarray:
        if level.generic is None:
            n = len(level.involved)
            values = rng.uniform(0.5, 1.5, n) * rng.choice([-1.0, 1.0], n)
            level.generic = level.evaluate(values, 0.37)
        return level.block(level.generic, eqs, cands)

    def select(self, point: dict[int, float], t: float = 0.0) -> set[int]:
        system = self.system
        rng = np.random.default_rng(20260101)
        dummies: set[int] = set()
        selected: list[int] = []
        self.decided_by_numbers = False
        for i in range(1, self.max_level + 1):
            g = self._level_equations(i)
            if not g:
                break
            cands = self._candidates(i, g, selected)
            if len(cands) < len(g):
                raise StructurallySingularError(
                    "State selection found fewer candidate derivatives than differentiated "
                    "constraints at one level:" + listing([system.describe_eq(e) for e in g]))
            chosen: list[int] = []
            level = self._level(g, cands)
            at_point = self._at(level, point, t)
            for rows, cols in self._parts(g, cands):
                eqs = [g[r] for r in rows]
                sub = [cands[k] for k in cols]
                if len(cols) < len(rows):
                    raise StructurallySingularError(
                        "State selection: these differentiated constraints involve fewer "
                        "candidate derivatives than there are constraints:" + listing(
                            [system.describe_eq(e) for e in eqs]))
                prios = [_priority(system, v) for v in sub]
                j_start = level.block(at_point, eqs, sub)
                if len(rows) <= DENSE_SELECTION_LIMIT:
                    pick = _pick_columns(j_start, prios, len(rows))
                    if pick is None:
                        pick = _pick_columns(self._evaluate_generic(level, eqs, sub, rng), prios,
                                             len(rows))
                elif len(rows) <= QR_SELECTION_LIMIT:
                    pick = _pick_whole_groups(j_start, prios, len(rows))
                    if pick is None:
                        pick = _pick_columns_by_qr(j_start, prios, len(rows))
                    if pick is None:
                        pick = _pick_columns_by_qr(self._evaluate_generic(level, eqs, sub, rng),
                                                   prios, len(rows))
                else:
                    pick = _structural_pick(j_start, self._evaluate_generic(level, eqs, sub, rng),
                                            prios)
                if pick is None:
                    raise StructurallySingularError(
                        "The differentiated constraints are singular with respect to every "
                        "choice of derivatives (redundant constraints?):" + listing(
                            [system.describe_eq(e) for e in eqs]))
                chosen_prios = {prios[k] for k in pick}
                if any(prios[k] in chosen_prios for k in range(len(sub)) if k not in pick):
                    self.decided_by_numbers = True
                chosen.extend(sub[k] for k in pick)
            selected = chosen
            dummies.update(selected)
        return dummies

    def quality(self, dummies: set[int], point: dict[int, float], t: float = 0.0) -> float:
        """Regularity of the choice ``dummies`` at ``point`` (1 = best possible scale, 0 =
        singular). ``point`` maps variable indices to values (missing ones count as 0)."""
        values = np.zeros(self.system.n_vars)
        for v, x in point.items():
            if 0 <= v < values.size:
                values[v] = x
        return self.quality_at(dummies, values, t)

    def quality_at(self, dummies: set[int], values: np.ndarray, t: float = 0.0) -> float:
        """:meth:`quality` at the values of every variable (``values[v]``, one per variable
        index, e.g. the simulation's observed vector): the form a simulation checks at its
        steps, with the level Jacobians' dense blocks cut out by index arrays built once per
        choice."""
        key = frozenset(dummies)
        probe = self._probes.get(key)
        if probe is None:
            probe = self._probes[key] = self._probe(key)
        if probe is None:
            return 0.0
        worst = 1.0
        for level, involved, parts in probe:
            nz = np.asarray(level.function(values[involved], t).nonzeros(), float)
            for shape, at, where, chosen in parts:
                jac = np.zeros(shape)
                jac[where] = nz[at]
                worst = min(worst, _regularity(jac, chosen))
                if worst == 0.0:
                    return 0.0
        return worst

    def _probe(self, dummies: frozenset) -> list | None:
        """Per level: (level Jacobian, involved variables, per connected part (block shape,
        positions of the part's nonzeros in the level's nonzeros, their (row, column) in the
        block, the chosen columns)); None when a part's choice is not square (quality 0)."""
        probe = []
        selected: list[int] = []
        for i in range(1, self.max_level + 1):
            g = self._level_equations(i)
            if not g:
                break
            cands = self._candidates(i, g, selected)
            selected = [v for v in cands if v in dummies]
            level = self._level(g, cands)
            rows, cols = level.function.sparsity_out(0).get_triplet()
            rows, cols = np.asarray(rows, int), np.asarray(cols, int)
            parts = []
            for part_rows, part_cols in self._parts(g, cands):
                sub = [cands[k] for k in part_cols]
                chosen = [k for k, v in enumerate(sub) if v in dummies]
                if len(chosen) != len(part_rows):
                    return None
                r_local = np.full(len(g), -1)
                r_local[part_rows] = np.arange(len(part_rows))
                c_local = np.full(len(cands), -1)
                c_local[part_cols] = np.arange(len(part_cols))
                at = np.nonzero((r_local[rows] >= 0) & (c_local[cols] >= 0))[0]
                parts.append(((len(part_rows), len(part_cols)), at,
                              (r_local[rows[at]], c_local[cols[at]]), chosen))
            probe.append((level, np.asarray(level.involved, int), parts))
        return probe


def select_dummy_derivatives(system: EquationSystem, point: dict[int, float],
                             params: dict) -> set[int]:
    """Return the set of dummy derivative variables of a system after Pantelides.

    ``point`` maps variable indices to start values; ``params`` maps parameter symbols to values.
    """
    return StateSelector(system, params).select(point)


def states_after_selection(system: EquationSystem, dummies: set[int]) -> list[int]:
    """Variables that are integrated: their derivative occurs and is not a dummy."""
    return [v for v in range(system.n_vars)
            if system.var_to_diff[v] != -1 and system.var_to_diff[v] not in dummies]
