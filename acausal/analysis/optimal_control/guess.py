"""Initial guesses of the NLP's unknowns.

A guess is a function of time for every state, algebraic variable and control:

* ``None``: constants, the point ``simulate`` would start from (the model's initialisation)
  and each control's guess (else its parameter value);
* a ``Solution`` (a simulation, or an earlier optimal control result): every variable by name,
  interpolated linearly in time;
* a dict ``name -> value`` or ``name -> (times, values)`` (interpolated): the named variables,
  the others as with ``None``;
* a callable feedback law ``law(t, values) -> {control: value}`` (``values`` reads any
  variable by name): the model simulated under it, sampled and held per element
  (:func:`.sampled.simulate_sampled`), then as a ``Solution``.

Whatever the source, the algebraic variables are then made consistent with the states and
controls: ``g(t, x, z, p) = 0`` solved for ``z`` at every point by Newton's method from the
interpolated guess (where Newton fails the interpolated value stays).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import casadi as ca
import numpy as np

from ...base.errors import InputError, UnknownNameError, did_you_mean
from ...run.solution import Solution
from .problem import FreeTime, Problem
from .sampled import guess_by_feedback

Signal = Callable[[np.ndarray], np.ndarray]


def _constant(value: float) -> Signal:
    return lambda t: np.full(np.shape(t), float(value))


def _table(times: Any, values: Any, name: str) -> Signal:
    ts = np.asarray(times, float).ravel()
    vs = np.asarray(values, float).ravel()
    if ts.size != vs.size or ts.size == 0:
        raise InputError(f"The guess of '{name}' has {ts.size} times and {vs.size} values; "
                         "give as many of each (at least one).")
    if not (np.all(np.isfinite(ts)) and np.all(np.isfinite(vs))):
        raise InputError(f"The guess of '{name}' must be finite numbers.")
    if np.any(np.diff(ts) < 0):
        raise InputError(f"The times of the guess of '{name}' must increase.")
    return lambda t: np.interp(t, ts, vs)


class Guess:
    """Time functions of the guess, by name (states, algebraic variables, controls)."""

    def __init__(self, problem: Problem, source: Any, start_x: np.ndarray,
                 start_z: np.ndarray) -> None:
        cs = problem.model
        self.signals: dict[str, Signal] = {}
        for name, value in zip(cs.state_names, start_x):
            self.signals[name] = _constant(value)
        for name, value in zip(cs.algebraic_names, start_z):
            self.signals[name] = _constant(value)
        for c in problem.controls:
            self.signals[c.name] = _constant(c.guess if c.guess is not None
                                             else problem.p[c.index])
        if source is None:
            return
        if callable(source) and not isinstance(source, Solution):
            source = guess_by_feedback(problem, source)
        if isinstance(source, Solution):
            for name in list(self.signals):
                if name in source:
                    values = np.asarray(source[name], float)
                    if values.shape == source.t.shape:
                        self.signals[name] = _table(source.t, values, name)
            return
        if not isinstance(source, dict):
            raise InputError(
                f"guess must be a Solution (e.g. system.simulate(...) or an earlier result), a "
                f"dict of name -> value or (times, values), or a feedback law law(t, values) "
                f"-> {{control: value}}; got {type(source).__name__}.")
        for name, value in source.items():
            if name not in self.signals:
                known = list(self.signals)
                raise UnknownNameError(
                    f"The guess names '{name}', which is not a state, algebraic variable or "
                    f"control of the problem.{did_you_mean(name, known)} Guesses are given for "
                    f"{', '.join(known[:12])}{', ...' if len(known) > 12 else ''}.")
            if isinstance(value, (tuple, list)) and len(value) == 2:
                self.signals[name] = _table(value[0], value[1], name)
            else:
                try:
                    number = float(value)
                except (TypeError, ValueError):
                    raise InputError(f"The guess of '{name}' must be a number or (times, "
                                     f"values), got {value!r}.") from None
                self.signals[name] = _constant(number)

    def values(self, names: list[str], times: np.ndarray) -> np.ndarray:
        """(len(times), len(names)) of the guess."""
        if not names:
            return np.zeros((times.size, 0))
        return np.column_stack([self.signals[n](times) for n in names])


def end_time_guess(problem: Problem, guess: Guess) -> float:
    """The end time the guess is laid out on: fixed, or the free end time's guess."""
    if isinstance(problem.t_end, FreeTime):
        return problem.t_end.guess
    return float(problem.t_end)


def consistent_algebraics(cs, times: np.ndarray, x: np.ndarray, z: np.ndarray,
                          p: np.ndarray) -> np.ndarray:
    """``z`` (points, nz) solving ``g(t, x, z, p) = 0`` at each point from the guess ``z``;
    ``p``: (points, np). Where Newton does not converge the guess stays."""
    nz = cs.z.numel()
    if nz == 0 or times.size == 0:
        return z

    def build():
        params = ca.vertcat(cs.t, cs.x, cs.p)
        g = ca.Function("g", [cs.z, params], [cs.alg])
        rf = ca.rootfinder("consistent_z", "newton", g,
                           {"error_on_fail": False, "abstol": 1e-10, "max_iter": 50})
        return rf, g

    rf, g = cs.cached("ocp_consistent_z", build)
    params = np.vstack([times[None, :], x.T, p.T])
    solved = np.array(rf.map(times.size)(z.T, params).full())
    residual = np.abs(np.array(g.map(times.size)(solved, params).full()))
    good = np.all(np.isfinite(solved), axis=0) & np.all(residual < 1e-6, axis=0)
    out = z.copy()
    out[good] = solved[:, good].T
    return out
