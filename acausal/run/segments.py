"""Runs in segments: a simulation whose parameters (inputs) change at given times.

A sampled controller, a piecewise-defined input or an optimiser's controls change some entries
of ``p`` at known instants. Each segment is one run of the run loop
(:class:`~acausal.run.hybrid.HybridSimulation`: events, state re-selection) from the point the
previous segment ended at, with that segment's parameters: the states are continuous, the
algebraic variables are made consistent with the new parameters, and the model's ``When``
clauses whose conditions the change makes true fire then (with event iteration, as at an
event of the model). The segments' solutions are joined into one ``Solution``, with two points
at each segment boundary (before and after the change), as at an event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base.errors import InputError
from .hybrid import HybridSimulation
from .initialize import InitialValues, initialize_with_branches, solve_algebraic
from .simulate import as_time, solver_settings
from .solution import Solution


@dataclass
class RunPoint:
    """Where a run stands: its realisation (whose states ``x`` are), time, states, algebraic
    variables and parameters."""

    model: Any
    t: float
    x: np.ndarray
    z: np.ndarray
    p: np.ndarray

    def value(self, name: str) -> float:
        """Any variable or parameter of the model at this point, by name."""
        cs = self.model
        index = cs.parameter_index().get(name)
        if index is not None:
            return float(self.p[index])
        sign, v = cs.locate(name)
        if v < 0:
            return 0.0
        observed = np.array(cs.function("observed")(self.t, self.x, self.z, self.p).full())
        return float(sign * observed.ravel()[v])


def initial_point(cs, t_start: float = 0.0, params: dict | None = None,
                  start: dict | None = None, p: np.ndarray | None = None) -> RunPoint:
    """The consistent start of a run, as ``simulate`` finds it (``params``/``start`` as
    there; ``p``: a parameter vector given whole instead of ``params``)."""
    t_start = as_time(t_start, "t_start")
    p = cs.parameter_vector(params) if p is None else np.asarray(p, float).copy()
    with cs.start_values(start):
        init = initialize_with_branches(cs, p, t_start)
    return RunPoint(cs, t_start, np.asarray(init.x0, float), np.asarray(init.z0, float), p)


def run_segment(point: RunPoint, t_end: float, p: np.ndarray, *, n_points: int = 2,
                rtol: float = 1e-6, atol: float = 1e-8, max_step: float | None = None,
                reselect: bool | None = None) -> tuple[Solution, RunPoint]:
    """Integrate from ``point`` to ``t_end`` with the parameters ``p``; the segment's
    solution (``n_points`` output points, both ends included) and the point it ends at."""
    if not t_end > point.t:
        raise InputError(f"A segment must end after it starts: t = {point.t:g} to "
                         f"{t_end:g}.")
    cs = point.model
    p = np.asarray(p, float).copy()
    z = point.z
    if z.size:
        z = solve_algebraic(cs, p, point.t, point.x, z)
    grid = np.linspace(point.t, t_end, max(int(n_points), 2))
    settings = solver_settings(rtol, atol, max_step, {})
    dynamic = cs.dynamic_selection if reselect is None else reselect
    sim = HybridSimulation(cs, grid, InitialValues(point.x.copy(), z, 0.0, []), p, settings,
                           reselect=dynamic)
    if cs.events:
        # the change of parameters is an instant of the model's time: a When clause whose
        # condition it makes true fires now (a force stepping past static friction breaks the
        # stuck mode away), with event iteration, as at any event
        before = np.array(cs.function("event_conditions")(point.t, point.x, point.z,
                                                          point.p).full()).ravel() > 0.5
        x, z_new, _, fired = sim.fire(point.t, point.x.copy(), z, before)
        if fired:
            sim.x, sim.z = np.asarray(x, float), np.asarray(z_new, float)
            sim.record_event(point.t, fired, sim.x, sim.z)
    sol = sim.run()
    return sol, RunPoint(sim.cur, float(grid[-1]), np.asarray(sim.x, float).copy(),
                         np.asarray(sim.z, float).copy(), sim.p.copy())


def join(solutions: list[Solution]) -> Solution:
    """The segments' solutions as one (in order; all of one compiled model's root)."""
    if len(solutions) == 1:
        return solutions[0]
    first = solutions[0]
    root = first.compiled
    t = np.concatenate([s.t for s in solutions])
    params, counts = [], []
    for s in solutions:
        if s._p_history is None:
            params.append(s._p.reshape(-1, 1))
            counts.append(np.array([s.t.size]))
        else:
            params.append(s._p_history[0])
            counts.append(s._p_history[1])
    history = (np.hstack(params), np.concatenate(counts))
    last = solutions[-1]
    events = [e for s in solutions for e in s.events]
    switches = [e for s in solutions for e in s.state_switches]
    if all(s.compiled is root and s._values is None for s in solutions):
        x = np.hstack([s.x for s in solutions])
        z = np.hstack([s.z for s in solutions])
        out = Solution(root, t, x, z, last._p, first.defaulted_states, p_history=history,
                       events=events, state_switches=switches)
    else:
        values = np.hstack([s._evaluate(None) if s._values is None else s._values
                            for s in solutions])
        n = t.size
        out = Solution(root, t, np.zeros((0, n)), np.zeros((0, n)), last._p,
                       first.defaulted_states, values=values, p_history=history,
                       events=events, state_switches=switches)
    out.stats = {"solver": first.stats.get("solver", ""), "segments": len(solutions),
                 "rhs_evaluations": sum(s.stats.get("rhs_evaluations", 0) for s in solutions),
                 "events": sum(s.stats.get("events", 0) for s in solutions)}
    return out
