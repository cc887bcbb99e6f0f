"""The check by simulation: the optimal controls fed to ``simulate``'s run loop.

The optimal controls are piecewise functions of time on the mesh's elements, so the run goes
element by element (:mod:`acausal.run.segments`): each element is one run of the run loop
(events, stick/slip modes of a hybrid model included) from where the previous one ended, with
the element's controls. A piecewise-constant control is the element's parameter value; a
collocated control varies within the element, so the model is run as a *driven* copy in which
the control's entry of ``p`` is replaced by its polynomial
``u(t) = sum_r c_r l_r((t - t_a)/h)`` (:func:`driven_model`), with ``t_a``, ``h`` and the
coefficients ``c_r`` appended to ``p`` and set per element. A driven copy keeps the state
selection it starts with (no dynamic re-selection).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import casadi as ca
import numpy as np

from ...base.errors import InputError
from ...run.segments import RunPoint, initial_point, join, run_segment
from ...run.solution import Solution
from .start import changed_starts


@dataclass
class Verification:
    """The optimal controls simulated on the model (``simulate``): the end state of the
    simulation against the optimal one."""

    solution: Solution
    end_difference: dict[str, float]  # simulated - optimal, per state of the problem
    max_difference: float  # the largest absolute end difference
    collocation_error: float  # the result's estimate, for comparison
    rtol: float

    def __repr__(self) -> str:
        worst = max(self.end_difference.items(), key=lambda kv: abs(kv[1]), default=("-", 0.0))
        return (f"<Verification: end state differs by at most {self.max_difference:.3g} "
                f"({worst[0]}); estimated collocation error {self.collocation_error:.3g}; "
                f"simulated with rtol {self.rtol:g}>")


def driven_model(cs, problem, scheme):
    """A copy of ``cs`` in which each collocated control is the polynomial of its element's
    coefficients (appended to ``p`` after ``t_a`` and ``h``); the appended entries' names start
    with ``__element``."""
    t_a, h = ca.SX.sym("__element_start"), ca.SX.sym("__element_length")
    tau = (cs.t - t_a) / h
    basis = scheme.point_basis(tau)
    extra, names = [t_a, h], ["__element.start", "__element.length"]
    old, new = [], []
    index = cs.parameter_index()
    for c in problem.controls:
        if c.kind != "collocated":
            continue
        coeffs = ca.SX.sym(f"__coeff_{c.name}", scheme.degree)
        extra.append(coeffs)
        names += [f"__element.{c.name}[{r}]" for r in range(scheme.degree)]
        old.append(cs.p[index[c.name]])
        new.append(sum(basis[r] * coeffs[r] for r in range(scheme.degree)))
    p_ext = ca.vertcat(cs.p, *extra)
    n_extra = p_ext.numel() - cs.p.numel()

    def sub(expr):
        return ca.substitute(ca.SX(expr), ca.vertcat(*old), ca.vertcat(*new)) if old else expr

    events = [replace(ev, indicators=[sub(g) for g in ev.indicators],
                      condition=sub(ev.condition), x_new=sub(ev.x_new),
                      p_new=ca.vertcat(sub(ev.p_new), p_ext[cs.p.numel():]),
                      gate=None if ev.gate is None else sub(ev.gate))
              for ev in cs.events]
    driven = replace(cs, p=p_ext, ode=sub(cs.ode), alg=sub(cs.alg), observed=sub(cs.observed),
                     parameter_names=list(cs.parameter_names) + names,
                     parameter_values=np.concatenate([cs.parameter_values,
                                                      np.zeros(n_extra)]),
                     events=events, initial_residuals=[], _functions={})
    driven.dynamic_selection = False
    return driven


def verify(res, rtol: float = 1e-10, atol: float | None = None, model: Any = None,
           points_per_element: int = 4, **options: Any):
    """See :meth:`OptimalControlResult.verify`."""
    problem = res.problem
    plant = model if model is not None else problem.plant
    if options:
        raise InputError(f"verify() takes rtol, atol, model and points_per_element; got "
                         f"{', '.join(options)}.")
    atol = rtol * 1e-2 if atol is None else atol
    lay = res._nlp.layout
    scheme = lay.scheme
    collocated = any(c.kind == "collocated" for c in problem.controls)
    run_model = driven_model(plant, problem, scheme) if collocated else plant
    index = run_model.parameter_index()
    p = plant.parameter_vector(problem.params)
    # the optimum's design parameters and the parameters its start computed (fixed=False),
    # by name (the plant may be another model than the one optimised)
    model = problem.model
    for i in [model.parameter_index()[c.name] for c in problem.design] + \
            list(model.computed_parameters):
        name = model.parameter_names[i]
        if name not in index:
            raise InputError(f"verify(): the model simulated, {plant.model_name}, has no "
                             f"parameter '{name}' of the optimum; verify on a model built "
                             "from the same parts.")
        p[index[name]] = res._p[i]
    if collocated:
        p = np.concatenate([p, np.zeros(run_model.p.numel() - p.size)])
    # the start: the optimal one (every state of the problem fixed at its optimal start)
    x0 = res.x[:, 0] if res.x.shape[0] else np.zeros(0)
    starts = dict(zip(problem.model.state_names, x0.tolist()))
    if plant is problem.model and not collocated:
        point = RunPoint(plant, problem.t_start, x0.copy(), res.z[:, 0].copy(), p.copy())
    else:
        known = {n: v for n, v in starts.items() if n in plant.locations()}
        with changed_starts(run_model, known, []):
            point = initial_point(run_model, problem.t_start, p=p)
    bounds = res.elements
    solutions = []
    for k in range(len(lay.frac)):
        pk = point.p.copy()
        for c in problem.controls:
            u = res._u[c.name]
            if c.kind == "constant":
                pk[index[c.name]] = u[k]
            else:
                pk[index["__element.start"]] = bounds[k]
                pk[index["__element.length"]] = bounds[k + 1] - bounds[k]
                for r in range(scheme.degree):
                    pk[index[f"__element.{c.name}[{r}]"]] = u[k * scheme.degree + r]
        sol, point = run_segment(point, float(bounds[k + 1]), pk, n_points=points_per_element,
                                 rtol=rtol, atol=atol,
                                 reselect=False if collocated else None)
        solutions.append(sol)
    joined = join(solutions)
    end = {}
    for i, name in enumerate(problem.model.state_names):
        end[name] = float(joined[name][-1] - res.x[i, -1])
    largest = max((abs(v) for v in end.values()), default=0.0)
    return Verification(joined, end, largest, res.collocation_error, rtol)
