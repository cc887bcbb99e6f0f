"""Solving a problem: mesh, transcription, guess, IPOPT, result; mesh refinement.

IPOPT (shipped with CasADi) runs with exact first and second derivatives (CasADi's
algorithmic differentiation of the SX transcription) and the sparse linear solver MUMPS.
A problem IPOPT cannot solve raises :class:`acausal.OptimizationError` with IPOPT's status and
the constraints violated most at its last iterate, by name.
"""

from __future__ import annotations

import time
from typing import Any

import casadi as ca
import numpy as np

from ...base.capture import captured
from ...base.errors import InputError, OptimizationError
from .collocation import Scheme
from .guess import Guess, consistent_algebraics, end_time_guess
from .nlp import Nlp
from .problem import Problem
from .start import start_rows
from .transcription import transcribe

#: IPOPT's options unless the user's ``ipopt=`` says otherwise.
IPOPT_DEFAULTS = {"tol": 1e-8, "linear_solver": "mumps", "max_iter": 3000,
                  "print_level": 0, "sb": "yes"}

METHODS = ("collocation", "shooting")


def mesh_fractions(elements: Any, mesh: Any) -> np.ndarray:
    """Relative element lengths (sum 1) from ``elements`` or the given ``mesh``."""
    if mesh is not None:
        frac = np.asarray(mesh, float).ravel()
        if frac.size == 0 or not np.all(np.isfinite(frac)) or np.any(frac <= 0):
            raise InputError(f"mesh must be positive element lengths (relative), got {mesh!r}.")
        return frac / frac.sum()
    if isinstance(elements, bool) or not isinstance(elements, (int, np.integer)) \
            or elements < 1:
        raise InputError(f"elements must be a whole number >= 1, got {elements!r}.")
    return np.full(int(elements), 1.0 / int(elements))


def ipopt_options(ipopt: dict | None, verbose: bool) -> dict:
    if ipopt is not None and not isinstance(ipopt, dict):
        raise InputError(f"ipopt must be a dict of IPOPT options, got {ipopt!r}.")
    opts = dict(IPOPT_DEFAULTS)
    if verbose:
        opts["print_level"] = 5
    opts.update(ipopt or {})
    return {"ipopt": opts, "print_time": False, "error_on_fail": False}


def initial_vector(problem: Problem, nlp: Nlp, guess: Guess, t0: float,
                   length: float | None = None) -> np.ndarray:
    """The NLP's start point (scaled), from the guess, on the horizon from ``t0`` of the given
    ``length`` (default: to the end time or the free end time's guess)."""
    cs, lay = problem.model, nlp.layout
    w0 = np.zeros(nlp.w.numel())
    if length is None:
        length = end_time_guess(problem, guess) - t0
    t_end = t0 + length

    def at(where):
        return t0 + np.asarray(where) * length

    names = cs.state_names
    for idx, where in ((lay.x_index, lay.x_where), (lay.x_extra_index, lay.x_extra_where)):
        if idx.size:
            w0[idx] = guess.values(names, at(where))
    for c in problem.controls:
        idx, where = lay.u_index[c.name]
        w0[idx] = guess.values([c.name], at(where))[:, 0]
    for i, c in enumerate(problem.design):
        w0[lay.design_index[i]] = c.guess
    if lay.q_index.size:
        w0[lay.q_index] = problem.p[cs.computed_parameters]
    if lay.t_end_index is not None:
        w0[lay.t_end_index] = t_end
    if lay.z_index.size:
        times = at(lay.z_where)
        x = guess.values(names, times)
        z = guess.values(cs.algebraic_names, times)
        p = np.tile(problem.p, (times.size, 1))
        for c in problem.controls:
            p[:, c.index] = guess.values([c.name], times)[:, 0]
        for c in problem.design:
            p[:, c.index] = c.guess
        w0[lay.z_index] = consistent_algebraics(cs, times, x, z, p)
    scaled = w0 / nlp.nominal
    return np.clip(scaled, nlp.lbw, nlp.ubw)


def violations(nlp: Nlp, w: np.ndarray, theta: np.ndarray, g_value: np.ndarray | None = None,
               top: int = 5) -> tuple[float, list[tuple[str, float]]]:
    """Largest violation of the constraints (as the NLP's rows are written: collocation rows
    divided by the states' nominal values) and of the variable bounds (in the variables' units)
    at ``w``, and the ``top`` worst rows by name."""
    if g_value is None:
        g_value = np.array(ca.Function("g", [nlp.w, nlp.theta], [nlp.g])(w, theta).full()
                           ).ravel()
    over = np.maximum(g_value - nlp.ubg, 0.0) + np.maximum(nlp.lbg - g_value, 0.0)
    over[~np.isfinite(over)] = np.inf
    bound_over = (np.maximum(w - nlp.ubw, 0.0) + np.maximum(nlp.lbw - w, 0.0)) * nlp.nominal
    worst = [(nlp.labels[i], float(over[i])) for i in np.argsort(-over)[:top] if over[i] > 0]
    largest = float(max(over.max(initial=0.0), bound_over.max(initial=0.0)))
    return largest, worst


def solve_problem(problem: Problem, *, elements: Any, degree: int, scheme: str,
                  method: str, mesh: Any, guess: Any, refine: float | None,
                  max_refinements: int, ipopt: dict | None, verbose: bool, verify: bool):
    """See :meth:`OptimalControl.solve`."""
    from .result import OptimalControlResult

    problem.check()
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}.")
    frac = mesh_fractions(elements, mesh)
    col = Scheme(degree, scheme)
    if refine is not None and (not isinstance(refine, (int, float)) or refine <= 0):
        raise InputError(f"refine must be a positive tolerance on the collocation error, got "
                         f"{refine!r}.")
    cs = problem.model
    start = start_rows(cs, problem.p, problem.t_start, problem.start_values,
                       [c.name for c in problem.start_free])
    x_init = start.init.x0 if start.init is not None else start.s
    z_init = start.init.z0 if start.init is not None else np.zeros(cs.z.numel())
    source = guess
    result = None
    rounds = 0
    for _ in range(max_refinements + 1 if refine is not None else 1):
        g = Guess(problem, source, x_init, z_init)
        tic = time.perf_counter()
        if method == "shooting":
            from .shooting import transcribe_shooting

            nlp = transcribe_shooting(problem, start, frac, col)
        else:
            nlp = transcribe(problem, start, frac, col)
        opts = ipopt_options(ipopt, verbose)
        solver = ca.nlpsol("ocp", "ipopt", {"x": nlp.w, "f": nlp.f, "g": nlp.g,
                                            "p": nlp.theta}, opts)
        build_time = time.perf_counter() - tic
        w0 = initial_vector(problem, nlp, g, problem.t_start)
        tic = time.perf_counter()
        with captured(1, enabled=not verbose):
            out = solver(x0=w0, lbx=nlp.lbw, ubx=nlp.ubw, lbg=nlp.lbg, ubg=nlp.ubg,
                         p=[problem.t_start])
        solve_time = time.perf_counter() - tic
        stats = solver.stats()
        w = np.array(out["x"].full()).ravel()
        g_value = np.array(out["g"].full()).ravel()
        largest, worst = violations(nlp, w, np.array([problem.t_start]), g_value)
        if not stats.get("success", False):
            raise OptimizationError(_failure_message(problem, stats, largest, worst),
                                    status=stats.get("return_status", "unknown"),
                                    violations=worst)
        result = OptimalControlResult.from_nlp(
            problem, nlp, w, float(out["f"]), stats, build_time, solve_time, largest,
            method=method)
        result.refinements = rounds
        if refine is None or method == "shooting":
            break
        errors = result.element_errors()
        bad = errors > refine
        if not np.any(bad):
            break
        # halve the elements whose local error is too large, then solve again from this result
        frac = np.concatenate([[f / 2, f / 2] if b else [f] for f, b in zip(frac, bad)])
        source = result
        rounds += 1
    if verify:
        result.verification = result.verify()
    return result


def _failure_message(problem, stats: dict, largest: float, worst) -> str:
    status = stats.get("return_status", "unknown")
    lines = [f"IPOPT did not solve the optimal control problem on {problem.model.model_name}: "
             f"status '{status}' after {stats.get('iter_count', '?')} iterations; largest "
             f"constraint violation at the last iterate {largest:.3g}."]
    if worst:
        lines.append("The constraints violated most there:")
        lines += [f"  {label}: by {amount:.3g}" for label, amount in worst]
    if "Infeasible" in status or "infeasible" in status.lower():
        lines.append("The constraints may contradict each other (bounds too tight for the "
                     "horizon, end conditions out of reach): relax them, lengthen the horizon "
                     "or free the end time, or give a better guess.")
    else:
        lines.append("Give a better guess (guess=a simulation or a feedback law), more "
                     "elements, or looser bounds; solve(..., verbose=True) shows IPOPT's log.")
    return "\n".join(lines)

