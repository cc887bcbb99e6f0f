"""The square initialisation system, symbolic: one builder for acausal's own initialisation
(:func:`acausal.run.initialize.initialize` solves it numerically) and for the FMU export (which
generates it as C and solves it at ``fmi2ExitInitializationMode``).

Unknowns ``w = (x, z, q)``: the states and the algebraic variables of the compiled DAE, and
the parameters declared ``fixed=False`` (``q``, taking the place of their entries of ``p`` in
every row: Modelica's parameters computed at initialisation). Rows, in this order before the
matching:

1. the algebraic equations ``g(t, x, z, p) = 0``;
2. one row per variable declared ``fixed=True`` (any variable, expressed through the observed
   function; a state's row reads ``x_i - s_i``), then the model's ``initial_equations()``;
3. a *default* row ``x_i - s_i`` for each state that (1) and (2) leave structurally free,
   states with a start value first, until the system is square.

``s`` is an input: the states' start values (the fixed value of a fixed state, the start value
or guess of a defaulted one). A structural matching (algebraic equations first) chooses the
rows of the square system; the fixed values and initial equations it leaves out are
over-specified and become ``check``, to be verified after the solve. When every fixed value is
on a state and there are no initial equations (``only_states_fixed``) the system is simply the
algebraic equations and ``x = s`` (in the states' order), no matching needed.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np

from ..base.errors import InitializationError
from ..compiler.structure.matching import Matching


@dataclass(frozen=True)
class InitialSystem:
    """The square system ``residual(w, t, p, s) = 0`` in ``w = (x, z)`` (CasADi SX in the
    symbols of the compiled model and ``s``), and the over-specified conditions ``check``."""

    w: ca.SX  # the unknowns (x, z, q): q are the parameters computed at initialisation
    s: ca.SX  # input: the states' start values
    residual: ca.SX  # the square system (as many rows as w)
    labels: list[str]  # per row of residual: the equation or start value it comes from
    check: ca.SX  # the fixed values and initial equations the matching left out
    check_labels: list[str]
    fixed_labels: list[str]  # the label of every fixed start value (item 2), in order
    check_fixed: list[int]  # per row of check: its index in fixed_labels (-1: not one)
    fixed_states: dict[int, float]  # state index -> its fixed start value
    defaulted: list[int]  # the states given a default row x_i - s_i (in the rows' order)
    only_states_fixed: bool  # the system is (g = 0, x = s): x needs no solve

    @property
    def exact(self) -> list[bool]:
        """Per state: whether the system sets it to its start value ``s_i`` (fixed or
        defaulted); otherwise ``s_i`` is not used and the state is computed."""
        defaulted = set(self.defaulted)
        return [i in self.fixed_states or i in defaulted for i in range(self.s.numel())]

    def start_values(self, guesses: np.ndarray) -> np.ndarray:
        """``s`` from the states' guesses: the fixed states' fixed values in their place."""
        s = np.array(guesses, dtype=float)
        for i, value in self.fixed_states.items():
            s[i] = value
        return s


def _fixed_conditions(cs) -> list[tuple[int, float, str]]:
    """``(variable index, value, name)`` of every variable of ``cs`` declared ``fixed=True``."""
    out = []
    for v, info in enumerate(cs.system.info):
        if info is not None and info.fixed and info.start is not None:
            out.append((v, float(info.start), info.name))
    return out


def build_initial_system(cs, *, settable_starts: bool = False) -> InitialSystem:
    """The initialisation system of the compiled model ``cs`` (see the module's docstring).

    Raises :class:`acausal.InitializationError` naming the unknowns that no equation, fixed
    value or default determines. ``settable_starts``: the states' start values are set after
    the build (an FMU's importer sets them), so the labels of their rows name the state without
    its value ("fixed start value of the state x", "start value of the state x") instead of
    acausal's "fixed start value x = 0.5", "default start value of state x".
    """
    n_x, n_z = cs.x.numel(), cs.z.numel()
    s = ca.SX.sym("s", n_x)
    computed = cs.computed_parameters
    q = ca.SX.sym("q", len(computed))
    w = ca.vertcat(cs.x, cs.z, q)

    def with_q(expr):
        """``expr`` with the computed parameters' entries of p replaced by the unknowns q."""
        if not computed:
            return expr
        return ca.substitute(ca.SX(expr), ca.vertcat(*[cs.p[i] for i in computed]), q)

    # row i is x_i - s_i; built as one vector expression and indexed in blocks (a Python loop
    # over 2000 states' SX elements took 60 ms of a 1000-mass chain's 80 ms simulate)
    state_rows = cs.x - s
    state_pos = {v: i for i, v in enumerate(cs.states)}
    state_names = cs.state_names
    fixed = _fixed_conditions(cs)
    fixed_states: dict[int, float] = {}

    def fixed_label(name: str, value: float, state: bool) -> str:
        if settable_starts and state:
            return f"fixed start value of the state {name}"
        return f"fixed start value {name} = {value:g}"

    def default_label(i: int) -> str:
        return (f"start value of the state {state_names[i]}" if settable_starts
                else f"default start value of state {state_names[i]}")

    if all(v in state_pos for v, _, _ in fixed) and not cs.initial_residuals and not computed:
        fixed_labels = []
        for v, value, name in fixed:
            fixed_states[state_pos[v]] = value
            fixed_labels.append(fixed_label(name, value, True))
        square_labels = list(cs.algebraic_equations) + [
            fixed_label(state_names[i], fixed_states[i], True) if i in fixed_states
            else default_label(i) for i in range(n_x)]
        return InitialSystem(w, s, ca.vertcat(cs.alg, state_rows), square_labels, ca.SX(0, 1),
                             [], fixed_labels, [], fixed_states,
                             [i for i in range(n_x) if i not in fixed_states], True)

    alg = with_q(cs.alg) if n_z else cs.alg
    eqs: list = [alg[i] for i in range(n_z)]
    labels = list(cs.algebraic_equations)
    kinds = ["alg"] * n_z
    fixed_rows: list[int] = []
    for v, value, name in fixed:
        fixed_rows.append(len(eqs))
        if v in state_pos:
            i = state_pos[v]
            fixed_states[i] = value
            eqs.append(state_rows[i])
        else:
            eqs.append(with_q(cs.observed[v]) - value)
        labels.append(fixed_label(name, value, v in state_pos))
        kinds.append("fixed")
    for expr, text in cs.initial_residuals:
        eqs.append(with_q(expr))
        labels.append(text)
        kinds.append("initial")
    fixed_labels = [labels[k] for k in fixed_rows]

    # match the rows to the unknowns (algebraic equations first), then add defaults
    incidence: list[list[int]] = [[] for _ in eqs]
    if eqs:
        rows, cols = ca.jacobian(_column(eqs), w).sparsity().get_triplet()
        for r, c in zip(rows, cols):
            incidence[r].append(c)
    n_w = n_x + n_z + len(computed)
    m = Matching(len(eqs), n_w)
    order = [k for k in range(len(eqs)) if kinds[k] == "alg"] + \
            [k for k in range(len(eqs)) if kinds[k] != "alg"]
    dropped = [k for k in order if not m.augment(k, incidence)]
    info = cs.system.info
    with_start = [i for i in range(n_x) if info[cs.states[i]] is not None
                  and info[cs.states[i]].start is not None]
    defaulted = []
    for i in with_start + [i for i in range(n_x) if i not in with_start]:
        if m.var_to_eq[i] != -1:
            continue
        incidence.append([i])
        m.grow(len(incidence), n_w)
        if m.augment(len(incidence) - 1, incidence):
            defaulted.append(i)
        else:  # cannot happen for a free variable; keep the structure consistent
            incidence.pop()
            m.eq_to_var.pop()
    free = [k for k in range(n_w) if m.var_to_eq[k] == -1]
    if free:
        names = cs.state_names + cs.algebraic_names + [
            f"{cs.parameter_names[i]} (a parameter with fixed=False)" for i in computed]
        raise InitializationError(
            "The initial values are under-determined for: " + ", ".join(names[k] for k in free)
            + ". Give these variables start values with fixed=True, or initial equations (a "
            "parameter with fixed=False needs one initial equation or fixed value more).")
    used = [k for k in range(len(eqs)) if k not in dropped]
    return InitialSystem(
        w, s, ca.vertcat(_column([eqs[k] for k in used]),
                         state_rows[defaulted] if defaulted else ca.SX(0, 1)),
        [labels[k] for k in used] + [default_label(i) for i in defaulted],
        _column([eqs[k] for k in dropped]), [labels[k] for k in dropped], fixed_labels,
        [fixed_rows.index(k) if k in fixed_rows else -1 for k in dropped], fixed_states,
        defaulted, False)


def _column(items: list) -> ca.SX:
    return ca.vertcat(*items) if items else ca.SX(0, 1)
