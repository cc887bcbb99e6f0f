"""The result of an optimal control problem: a ``Solution`` on the collocation mesh.

``res["cart.s"]`` reads any variable on the mesh (the start, then every collocation point; the
Legendre scheme adds the end), ``res.interpolate(name, times)`` between them with the
collocation polynomials; ``to_pandas()``, ``plot()`` and ``view()`` work as on a simulation.
Besides: the objective, IPOPT's status, iterations and times, the largest constraint violation,
the optimal controls and design parameters, the estimated collocation error
(:mod:`.accuracy`) and a check by simulation (:meth:`OptimalControlResult.verify`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base.errors import InputError
from ...run.solution import Solution
from .nlp import Nlp, control_values
from .problem import FreeTime, Problem
from .replay import Verification


class OptimalControlResult(Solution):
    """The optimum on the mesh, read like a ``Solution`` (see the module's docstring)."""

    problem: Problem
    objective: float
    status: str
    success: bool
    iterations: int
    build_time: float
    solve_time: float
    max_violation: float
    method: str
    refinements: int

    @classmethod
    def from_nlp(cls, problem: Problem, nlp: Nlp, w_scaled: np.ndarray, objective: float,
                 stats: dict, build_time: float, solve_time: float, max_violation: float,
                 method: str = "collocation") -> OptimalControlResult:
        cs, lay = problem.model, nlp.layout
        w = w_scaled * nlp.nominal
        t0 = problem.t_start
        t_end = float(w[lay.t_end_index]) if lay.t_end_index is not None else (
            t0 + (float(problem.t_end) - problem.t_start))
        times = t0 + lay.x_where * (t_end - t0)
        x = w[lay.x_index].T if lay.x_index.size else np.zeros((0, times.size))
        z = w[lay.z_index].T if lay.z_index.size else np.zeros((0, times.size))
        u = {c.name: w[lay.u_index[c.name][0]] for c in problem.controls}
        design = {c.name: float(w[lay.design_index[i]]) for i, c in enumerate(problem.design)}
        p = problem.p.copy()
        for c in problem.design:
            p[c.index] = design[c.name]
        if lay.q_index.size:
            p[cs.computed_parameters] = w[lay.q_index]
        points = _mesh_points(lay, method)
        history = np.tile(p[:, None], (1, times.size))
        for col, (k, j, tau) in enumerate(points):
            values = control_values(problem, lay.scheme, u, k, j, tau)
            for c in problem.controls:
                history[c.index, col] = values[c.name]
        self = cls(cs, times, x, z, p,
                   p_history=(history, np.ones(times.size, int)) if problem.controls else None)
        self.problem = problem
        self.objective = objective
        self.status = str(stats.get("return_status", ""))
        self.success = bool(stats.get("success", False))
        self.iterations = int(stats.get("iter_count", -1))
        self.build_time = build_time
        self.solve_time = solve_time
        self.max_violation = max_violation
        self.method = method
        self.refinements = 0
        self.t_end = t_end
        self.design = design
        self._nlp = nlp
        self._w = w
        self._u = u
        self._accuracy = None
        #: the check by simulation when solve(verify=True) asked for it (else None)
        self.verification: Verification | None = None
        self.stats = {"solver": "ipopt", "status": self.status,
                      "iterations": self.iterations, "build_time": build_time,
                      "solve_time": solve_time, "method": method,
                      "elements": len(lay.frac), "degree": lay.scheme.degree,
                      "scheme": lay.scheme.name}
        return self

    # -- values -------------------------------------------------------------------------------
    @property
    def controls(self) -> dict[str, np.ndarray]:
        """Each control's values on the mesh (``res.t``)."""
        return {c.name: self[c.name] for c in self.problem.controls}

    @property
    def elements(self) -> np.ndarray:
        """The element boundaries [s] (start, ..., end)."""
        frac = self._nlp.layout.frac
        t0 = self.problem.t_start
        return t0 + np.concatenate([[0.0], np.cumsum(frac)]) * (self.t_end - t0)

    def element_values(self) -> tuple[np.ndarray, np.ndarray]:
        """States ``X[k, r]`` (elements, d+1, nx) and algebraic variables ``Z[k, j]``
        (elements, d, nz) at each element's start and collocation points."""
        lay = self._nlp.layout
        return self._w[lay.x_elements], self._w[lay.z_elements]

    def control_at(self, times: Any) -> dict[str, np.ndarray]:
        """Each control at the given times, as the optimiser parametrised it (piecewise
        constant or the collocation polynomial of each element)."""
        k, tau = self._locate(np.atleast_1d(np.asarray(times, float)))
        lay = self._nlp.layout
        out = {c.name: np.zeros(k.size) for c in self.problem.controls}
        for i in range(k.size):
            values = control_values(self.problem, lay.scheme, self._u, int(k[i]), None, tau[i])
            for name, value in values.items():
                out[name][i] = float(value)
        return out

    def _locate(self, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        frac = self._nlp.layout.frac
        t0 = self.problem.t_start
        rel = (times - t0) / (self.t_end - t0)
        starts = np.concatenate([[0.0], np.cumsum(frac)[:-1]])
        # a time on an element boundary belongs to the element that ends there (its last
        # Radau point; piecewise-constant controls are continuous from the left, as on the mesh)
        k = np.clip(np.searchsorted(starts, rel, side="left") - 1, 0, frac.size - 1)
        return k, (rel - starts[k]) / frac[k]

    def interpolate(self, name: str, times: Any) -> np.ndarray:
        """``name`` at any times within the horizon, from the collocation polynomials: states
        through their element's d+1 values, algebraic variables and collocated controls
        through the d collocation points, every other variable from these by the model's
        equations."""
        self._check_name(name)
        if self.method == "shooting":
            raise InputError("interpolate() uses the collocation polynomials; a multiple "
                             "shooting result has none: read it on its nodes (res[name]) or "
                             "simulate its controls (res.verify().solution).")
        times = np.atleast_1d(np.asarray(times, float))
        if np.any(times < self.problem.t_start - 1e-12) or np.any(times > self.t_end + 1e-9):
            raise InputError(f"interpolate: times must lie in the horizon "
                             f"[{self.problem.t_start:g}, {self.t_end:g}] s.")
        cs = self.problem.model
        if name in ("t", "time"):
            return times
        controls = self.control_at(times)
        if name in controls:
            return controls[name]
        if name in self.parameters:
            return np.full(times.size, self.parameters[name])
        k, tau = self._locate(times)
        lay = self._nlp.layout
        X, Z = self.element_values()
        x = np.zeros((cs.x.numel(), times.size))
        z = np.zeros((cs.z.numel(), times.size))
        for i in range(times.size):
            x[:, i] = lay.scheme.state_weights(tau[i]) @ X[k[i]]
            if z.shape[0]:
                z[:, i] = lay.scheme.point_weights(tau[i]) @ Z[k[i]]
        p = np.tile(self._p[:, None], (1, times.size))
        for c in self.problem.controls:
            p[c.index] = controls[c.name]
        sign, v = cs.locate(name)
        if v < 0:
            return np.zeros(times.size)
        f = cs.function("observed")
        values = np.array(f.map(times.size)(times[None, :], x, z, p).full())
        return sign * values[v]

    # -- accuracy and the check by simulation ----------------------------------------------
    def _estimate(self):
        if self._accuracy is None:
            from .accuracy import estimate

            self._accuracy = estimate(self)
        return self._accuracy

    @property
    def collocation_error(self) -> float:
        """Estimated error of the optimal end state (largest over the states, in their units):
        the local error of each element (its polynomial against an accurate integration of the
        same controls over the element) propagated to the end by the elements' sensitivities
        (see :mod:`.accuracy`)."""
        return float(self._estimate().end_error.max(initial=0.0))

    @property
    def end_errors(self) -> dict[str, float]:
        """The estimated error of each state at the end."""
        return dict(zip(self.problem.model.state_names, self._estimate().end_error.tolist()))

    def element_errors(self) -> np.ndarray:
        """The local error of each element (largest over the states, relative to the states'
        nominal values): what mesh refinement halves elements by."""
        return self._estimate().local_error

    def verify(self, rtol: float = 1e-10, atol: float | None = None, model: Any = None,
               **options: Any) -> Verification:
        """Simulate the optimal controls (and design parameters) on the model with
        ``simulate`` from the optimal start, and compare the end states. ``model``: another
        compiled model with the same names (default: the problem's system, i.e. the hybrid
        model when a smooth twin was optimised)."""
        from .replay import verify

        return verify(self, rtol=rtol, atol=atol, model=model, **options)

    # -- display ----------------------------------------------------------------------------
    def summary(self) -> str:
        lines = [f"optimal control of {self.problem.model.model_name}: {self.status}",
                 f"  objective {self.objective:.10g}, {self.iterations} iterations, build "
                 f"{self.build_time:.3g} s, solve {self.solve_time:.3g} s",
                 f"  horizon [{self.problem.t_start:g}, {self.t_end:.6g}] s"
                 + (" (free end time)" if isinstance(self.problem.t_end, FreeTime) else ""),
                 f"  mesh: {len(self._nlp.layout.frac)} elements, {self.stats['scheme']} "
                 f"degree {self.stats['degree']} ({self.method})",
                 f"  largest constraint violation {self.max_violation:.3g}"]
        if self.design:
            lines.append("  design: " + ", ".join(f"{k} = {v:.6g}"
                                                  for k, v in self.design.items()))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<OptimalControlResult {self.problem.model.model_name}: {self.status}, "
                f"objective {self.objective:.8g}, {self.iterations} iterations, t_end "
                f"{self.t_end:.6g}>")


def _mesh_points(lay, method: str) -> list[tuple[int, int | None, float | None]]:
    """(element, collocation point or None, tau) of each mesh point, in the mesh's order."""
    n_el, d = len(lay.frac), lay.scheme.degree
    if method == "shooting":
        return [(min(k, n_el - 1), None, 0.0 if k < n_el else 1.0) for k in range(n_el + 1)]
    out: list[tuple[int, int | None, float | None]] = [(0, None, 0.0)]
    for k in range(n_el):
        out += [(k, j, None) for j in range(1, d + 1)]
    if not lay.scheme.ends_on_point:
        out.append((n_el - 1, None, 1.0))
    return out
