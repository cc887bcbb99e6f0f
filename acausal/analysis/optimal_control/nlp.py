"""The pieces every transcription is made of: the NLP's unknowns and constraints with their
labels, where each unknown sits (for guesses, results and the MPC's shift), and the problem's
expressions as CasADi functions.

Every constraint row has a label in words ("collocation of cart.s in element 3, point 2",
"end cart.s = 1"), computed only when asked for (a failed solve names the rows violated most),
so a mesh of thousands of points costs no strings.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import casadi as ca
import numpy as np

from .collocation import Scheme
from .problem import Condition, FreeTime, Problem


@dataclass
class Variables:
    """The NLP's unknowns, allocated block by block (scaled: actual = nominal * symbol)."""

    symbols: list = field(default_factory=list)
    lower: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    nominal: list = field(default_factory=list)
    size: int = 0
    kind: type = ca.MX  # MX: the collocation maps one point's function; shooting integrates

    def add(self, name: str, n: int, lower, upper, nominal) -> tuple[ca.MX, np.ndarray]:
        """``n`` unknowns; returns (their actual values, their indices in w)."""
        sym = self.kind.sym(name, n)
        nom = np.broadcast_to(np.asarray(nominal, float), (n,)).copy()
        self.symbols.append(sym)
        self.lower.append(np.broadcast_to(np.asarray(lower, float), (n,)) / nom)
        self.upper.append(np.broadcast_to(np.asarray(upper, float), (n,)) / nom)
        self.nominal.append(nom)
        index = np.arange(self.size, self.size + n)
        self.size += n
        return sym * ca.DM(nom) if n else sym, index


class Labels:
    """The label of each constraint row, made on demand from blocks of rows."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.blocks: list[Callable[[int], str]] = []
        self.size = 0

    def add(self, n: int, label: str | list[str] | Callable[[int], str]) -> None:
        if isinstance(label, str):
            text = label
            self.blocks.append(lambda i: text)
        elif callable(label):
            self.blocks.append(label)
        else:
            items = list(label)
            self.blocks.append(items.__getitem__)
        self.starts.append(self.size)
        self.size += n

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, row: int) -> str:
        b = bisect.bisect_right(self.starts, int(row)) - 1
        return self.blocks[b](int(row) - self.starts[b])


@dataclass
class Rows:
    """The NLP's constraints ``lower <= g <= upper``, with a label per row."""

    exprs: list = field(default_factory=list)
    lower: list = field(default_factory=list)
    upper: list = field(default_factory=list)
    labels: Labels = field(default_factory=Labels)

    def add(self, expr, lower, upper, labels) -> None:
        """Rows ``lower <= vec(expr) <= upper``; ``labels``: one string for all, a list, or a
        function of the row's position in the block."""
        if not isinstance(expr, (ca.SX, ca.MX)):
            expr = ca.SX(expr)
        n = expr.numel()
        if not n:
            return
        self.exprs.append(ca.vec(expr))
        self.lower.append(np.broadcast_to(np.asarray(lower, float).ravel()
                                          if np.ndim(lower) else lower, (n,)))
        self.upper.append(np.broadcast_to(np.asarray(upper, float).ravel()
                                          if np.ndim(upper) else upper, (n,)))
        self.labels.add(n, labels)


@dataclass
class Layout:
    """Where each unknown sits in the NLP's vector, and the time of its point."""

    scheme: Scheme
    frac: np.ndarray  # relative element lengths (sum 1)
    x_index: np.ndarray  # (points, nx): start, then per element its collocation points and end
    x_where: np.ndarray  # (points,): relative time in [0, 1] of each row of x_index
    z_index: np.ndarray  # (points, nz): start, collocation points (and the end, Legendre)
    z_where: np.ndarray
    u_index: dict = field(default_factory=dict)  # control name -> (indices, relative times)
    design_index: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    q_index: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    t_end_index: int | None = None
    # the element ends' states that are not on the result's mesh (Radau: equal to the last
    # collocation point's by continuity): (points, nx) and their relative times, for guesses
    x_extra_index: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), int))
    x_extra_where: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # per element: the indices of X_k0 .. X_kd (n_el, d+1, nx) and Z_k1 .. Z_kd (n_el, d, nz)
    x_elements: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), int))
    z_elements: np.ndarray = field(default_factory=lambda: np.zeros((0, 0, 0), int))


@dataclass
class Nlp:
    w: ca.MX
    lbw: np.ndarray
    ubw: np.ndarray
    nominal: np.ndarray
    g: ca.MX
    lbg: np.ndarray
    ubg: np.ndarray
    labels: Labels
    f: ca.MX
    theta: ca.MX  # NLP parameters: t_start, then (MPC) the measured states
    layout: Layout


def assemble(var: Variables, rows: Rows, objective, theta, layout: Layout) -> Nlp:
    """The NLP from its unknowns, rows and objective."""
    kind = var.kind
    return Nlp(kind(ca.vertcat(*var.symbols)), np.concatenate(var.lower),
               np.concatenate(var.upper), np.concatenate(var.nominal),
               kind(ca.vertcat(*rows.exprs)) if rows.exprs else kind(0, 1),
               np.concatenate(rows.lower) if rows.lower else np.zeros(0),
               np.concatenate(rows.upper) if rows.upper else np.zeros(0), rows.labels,
               kind(objective), theta, layout)


def control_values(problem: Problem, scheme: Scheme, u_syms: dict, k: int,
                   j: int | None, tau: float | None = None) -> dict:
    """Each control's value at collocation point ``j`` (1-based) of element ``k``, or at the
    relative position ``tau`` in the element (then ``j`` is None)."""
    out = {}
    for c in problem.controls:
        u = u_syms[c.name]
        if c.kind == "constant":
            out[c.name] = u[k]
        elif j is not None:
            out[c.name] = u[k * scheme.degree + j - 1]
        else:
            w = scheme.point_weights(tau)
            out[c.name] = sum(float(w[i]) * u[k * scheme.degree + i]
                              for i in range(scheme.degree))
    return out


def nominal_of(cs, v: int) -> float:
    info = cs.system.info[v]
    nominal = getattr(info, "nominal", None) if info is not None else None
    return float(abs(nominal)) if nominal else 1.0


def expressions_function(names, exprs: list) -> ca.Function:
    cs = names.cs
    out = [names.to_sx(e) for e in exprs]
    return ca.Function("expressions", [cs.t, cs.x, cs.z, cs.p],
                       [ca.vertcat(*out) if out else ca.SX(0, 1)])


def split_path(problem: Problem, cs):
    """Path conditions on one state or tear variable alone become bounds of the NLP's
    variables; the others are constraint rows. Returns ((x_lo, x_hi), (z_lo, z_hi), rows)."""
    nx, nz = cs.x.numel(), cs.z.numel()
    x_lo, x_hi = np.full(nx, -math.inf), np.full(nx, math.inf)
    z_lo, z_hi = np.full(nz, -math.inf), np.full(nz, math.inf)
    state_pos = {v: i for i, v in enumerate(cs.states)}
    alg_pos = {v: i for i, v in enumerate(cs.algebraics)}
    general: list[Condition] = []
    for c in problem.path_conditions:
        if c.name is not None and c.label not in problem.soft and \
                c.name not in cs.parameter_index():
            sign, v = cs.locate(c.name)
            a, b = sorted((sign * c.lower, sign * c.upper))
            if v in state_pos:
                i = state_pos[v]
                x_lo[i], x_hi[i] = max(x_lo[i], a), min(x_hi[i], b)
                continue
            if v in alg_pos:
                i = alg_pos[v]
                z_lo[i], z_hi[i] = max(z_lo[i], a), min(z_hi[i], b)
                continue
        general.append(c)
    return (x_lo, x_hi), (z_lo, z_hi), general


def horizon(problem: Problem, var: Variables, layout: Layout, t0,
            length: float | None = None) -> tuple:
    """``(t_end, length)`` of the horizon from ``t0``: the free end time an unknown (its index
    kept in ``layout``), else fixed (``length`` given: an MPC's horizon)."""
    if isinstance(problem.t_end, FreeTime):
        ft = problem.t_end
        t_end, idx = var.add("t_end", 1, ft.lower, ft.upper, max(abs(ft.guess), 1e-3))
        layout.t_end_index = int(idx[0])
        return t_end, t_end - t0
    if length is None:
        length = float(problem.t_end) - problem.t_start
    return t0 + length, length


def constant_unknowns(problem: Problem, var: Variables, layout: Layout,
                      computed: list[int]) -> tuple:
    """The design parameters and the parameters computed at initialisation, as unknowns."""
    design, layout.design_index = var.add(
        "design", len(problem.design), [c.lower for c in problem.design],
        [c.upper for c in problem.design], [c.nominal for c in problem.design] or 1.0)
    q, layout.q_index = var.add("computed", len(computed), -math.inf, math.inf, 1.0)
    return design, q


def start_state_bounds(problem: Problem, x_lo: np.ndarray, x_hi: np.ndarray) -> tuple:
    """Bounds of the start states: the path bounds, narrowed by ``start(name, lower=,
    upper=)`` on a state."""
    cs = problem.model
    lo0, hi0 = x_lo.copy(), x_hi.copy()
    for c in problem.start_free:
        if c.name is not None:
            sign, v = cs.locate(c.name)
            if v in cs.states:
                i = cs.states.index(v)
                a, b = sorted((sign * c.lower, sign * c.upper))
                lo0[i], hi0[i] = max(lo0[i], a), min(hi0[i], b)
    return lo0, hi0


def parameters_of(problem: Problem, u, design, q, computed: list[int]):
    """The parameter vector with the controls ``u`` (in the problem's order), design and
    computed parameters in their places."""
    entries = [float(v) for v in problem.p]
    for i, c in enumerate(problem.controls):
        entries[c.index] = u[i]
    for i, c in enumerate(problem.design):
        entries[c.index] = design[i]
    for i, k in enumerate(computed):
        entries[k] = q[i]
    return ca.vertcat(*entries) if entries else ca.SX(0, 1)
