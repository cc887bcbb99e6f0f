"""The start conditions of an optimal control problem: the model's initialisation, as in
``simulate``, with the problem's changes.

``simulate`` starts from the square system of :mod:`acausal.run.initial_system`: the algebraic
equations, every ``fixed=True`` start, the initial equations, and a default ``x_i = start_i``
for each state they leave free. The problem keeps exactly these rows as equality constraints at
``t_start`` (so an optimisation starts where a simulation would), except that

* ``start(name, value)`` makes ``name`` fixed at ``value`` (as ``simulate(start=...)`` with
  ``fixed=True``);
* ``start(name, lower=, upper=)`` frees ``name``: its fixed start (or its state's default row)
  is dropped, and so is the default row of any state that becomes free only because of it.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, replace

import casadi as ca
import numpy as np

from ...base.errors import AcausalError, InputError
from ...run.initial_system import build_initial_system
from ...run.initialize import InitialValues, initialize_with_branches


@dataclass
class StartRows:
    """``rows(t, w, p, s) = 0`` with ``w = (x, z, q)``: the start constraints."""

    function: ca.Function  # (t, w, p, s) -> rows
    labels: list[str]
    s: np.ndarray  # the start values of the states (defaulted states' values)
    computed: list[int]  # indices in p of the parameters computed at initialisation (q)
    init: InitialValues | None  # simulate's initial point (None when it could not be found)


@contextmanager
def changed_starts(cs, fixed: dict[str, float], freed: list[str]):
    """Within the block the named variables are fixed at the given values or not fixed."""
    changes = {}
    for name, value in fixed.items():
        sign, v = cs.locate(name)
        info = cs.system.info[v] if v >= 0 else None
        if info is None:
            raise InputError(f"start('{name}'): '{name}' has no start of its own (a derivative, "
                             "or identically zero): give the start of the variable it is the "
                             "derivative of, or of a state.")
        changes[v] = replace(info, start=sign * value, fixed=True, guess=None)
    for name in freed:
        _, v = cs.locate(name)
        info = changes.get(v, cs.system.info[v] if v >= 0 else None)
        if info is None:
            raise InputError(f"start('{name}'): '{name}' has no start of its own to free.")
        changes[v] = replace(info, fixed=False)
    with cs.declarations_replaced(changes):
        yield


def _default_rows(system) -> dict[int, int]:
    """state index -> its default row in ``system.residual``."""
    if system.only_states_fixed:
        n_alg = system.residual.numel() - system.s.numel()
        return {i: n_alg + i for i in system.defaulted}
    n = system.residual.numel()
    first = n - len(system.defaulted)
    return {i: first + k for k, i in enumerate(system.defaulted)}


def start_rows(cs, p: np.ndarray, t0: float, fixed: dict[str, float],
               freed: list[str]) -> StartRows:
    """The start constraints of ``cs`` with the problem's fixed and freed starts."""
    with changed_starts(cs, fixed, {}):
        before = build_initial_system(cs)
        try:
            init = initialize_with_branches(cs, p.copy(), t0)
        except AcausalError:
            init = None  # the guess falls back to the declared starts
    with changed_starts(cs, fixed, freed):
        after = build_initial_system(cs)
    freed_states = set()
    for name in freed:
        _, v = cs.locate(name)
        if v in cs.states:
            freed_states.add(cs.states.index(v))
    newly = set(after.defaulted) - set(before.defaulted)
    drop = {row for i, row in _default_rows(after).items() if i in freed_states | newly}
    keep = [r for r in range(after.residual.numel()) if r not in drop]
    rows = after.residual[keep] if keep else ca.SX(0, 1)
    function = ca.Function("start_rows", [cs.t, after.w, cs.p, after.s], [rows])
    guesses = np.zeros(cs.x.numel())
    for i, v in enumerate(cs.states):
        info = cs.system.info[v]
        if info is not None:
            g = info.start if info.start is not None else info.guess
            guesses[i] = 0.0 if g is None else float(g)
    if init is not None:
        guesses = np.asarray(init.x0, float).copy()
    for name, value in fixed.items():
        sign, v = cs.locate(name)
        if v in cs.states:
            guesses[cs.states.index(v)] = sign * value
    return StartRows(function, [after.labels[r] for r in keep], after.start_values(guesses),
                     list(cs.computed_parameters), init)
