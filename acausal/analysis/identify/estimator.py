"""The fit: the NLP handed to IPOPT (:class:`Oracle` caches the evaluations; the Gauss-Newton
Hessian ``J^T W J`` with an adaptive Levenberg-Marquardt term; acausal's own convergence test on
the Gauss-Newton step), and :func:`fit`, which runs IPOPT and repeats it while the initial
states computed at the estimates move. What the solvers print while IPOPT runs is captured
(:func:`acausal.base.capture.captured`) and quoted in error messages."""

from __future__ import annotations

import signal as _signal
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass

import casadi as ca
import numpy as np

from ...base.capture import Captured, captured, to_terminal
from ...base.errors import AcausalError, ParameterError, SimulationError
from ...base.progress import ProgressBar
from ...run.initialize import initialize
from .experiments import Run
from .parameters import Theta
from .result import STEP_CONVERGED
from .statistics import Evaluation, covariance, gauss_newton_step

#: Hessian choices: Gauss-Newton ``J^T W J`` (exact first derivatives, no second ones) or
#: IPOPT's own limited-memory quasi-Newton update.
HESSIANS = ("gauss-newton", "limited-memory")
#: Largest number of re-fits when the initial states computed at the estimates differ from those
#: computed at the initial guess (initial states that depend on the estimated parameters).
MAX_REINITIALIZATIONS = 3


class Oracle:
    """Caches the last evaluations so that IPOPT's calls at one point (objective, constraints,
    gradient, Jacobian, Hessian) cost one integration with sensitivities."""

    def __init__(self, evaluator, objective_scale: float) -> None:
        self.evaluator = evaluator
        self.scale = objective_scale
        self._values: tuple[bytes, Evaluation] | None = None
        self._jacobians: tuple[bytes, Evaluation] | None = None
        self.evaluations = 0
        self.jacobian_evaluations = 0
        self.damping = 1e-3
        self.min_damping = 0.0
        self._last = None
        self.gap_tol = 1e-5
        self.step_tol = 1e-2
        self.sigma_known = False
        self.step_ratio = float("nan")
        self.converged_by_steps = False
        self.stop = False
        self.bounds: tuple[np.ndarray, np.ndarray] | None = None  # of the scaled parameters
        self.failure: str | None = None  # the last integrator failure (CasADi's message)

    def at(self, w: np.ndarray, jacobian: bool) -> Evaluation:
        key = np.asarray(w, float).tobytes()
        if self._jacobians is not None and self._jacobians[0] == key:
            return self._jacobians[1]
        if not jacobian and self._values is not None and self._values[0] == key:
            return self._values[1]
        w = np.asarray(w, float).ravel()
        try:
            result = self.evaluator.evaluate(w, jacobian)
        except RuntimeError as err:  # an integrator failure here: IPOPT cuts its step back
            self.failure = str(err)
            n_r, n_g, n_w = self.evaluator.n_r, self.evaluator.n_g, self.evaluator.n_w
            result = Evaluation(np.full(n_r, np.nan), np.full(n_g, np.nan), [],
                                np.full((n_r, n_w), np.nan) if jacobian else None,
                                np.full((n_g, n_w), np.nan) if jacobian else None)
        if jacobian:
            self.jacobian_evaluations += 1
            self._jacobians = (key, result)
        else:
            self.evaluations += 1
        self._values = (key, result)
        return result

    def f(self, w):
        r = self.at(w, False).r
        return 0.5 * self.scale * float(r @ r)

    def grad_f(self, w):
        ev = self.at(w, True)
        return 0.5 * self.scale * float(ev.r @ ev.r), self.scale * (ev.jr.T @ ev.r)

    def hessian(self, w, lam_f):
        ev = self.at(w, True)
        h = self.scale * (ev.jr.T @ ev.jr)
        if self.damping > 0:
            d = np.diag(h).copy()
            h[np.diag_indices_from(h)] += self.damping * (d + 1e-6 * max(d.max(), 1e-300))
        return lam_f * h

    def converged(self, w: np.ndarray) -> bool:
        """Whether a full Gauss-Newton step from ``w`` would move every estimate by less than
        ``step_tol`` of its standard deviation, with the continuity gaps below ``gap_tol``
        (checked where IPOPT has already evaluated the Jacobian)."""
        if self._jacobians is None or self._jacobians[0] != np.asarray(w, float).tobytes():
            return False
        ev = self._jacobians[1]
        if not (np.all(np.isfinite(ev.jr)) and np.all(np.isfinite(ev.r))):
            return False
        if ev.g.size and np.abs(ev.g).max() > self.gap_tol:
            return False
        n_theta = self.evaluator.n_theta
        step = gauss_newton_step(ev)
        cov, _ = covariance(ev.jr, ev.jg)
        dof = max(ev.r.size - (ev.jr.shape[1] - ev.jg.shape[0]), 1)
        factor = 1.0 if self.sigma_known else float(ev.r @ ev.r) / dof
        sd = np.sqrt(np.abs(np.diag(cov)[:n_theta]) * factor)
        if step is None or not np.all(np.isfinite(sd)):
            return False
        ratio = np.abs(step[:n_theta]) / np.maximum(sd, 1e-300)
        if self.bounds is not None:  # a step out through an active bound is not taken
            theta = np.asarray(w, float)[:n_theta]
            lower, upper = self.bounds
            near = 1e-6 * np.maximum(1.0, np.abs(theta))
            ratio[(theta - lower <= near) & (step[:n_theta] < 0)] = 0.0
            ratio[(upper - theta <= near) & (step[:n_theta] > 0)] = 0.0
        self.step_ratio = float(ratio.max())
        if self.step_ratio < self.step_tol:
            self.converged_by_steps = True
            return True
        return False

    def progress(self, f: float, g: np.ndarray, lam_g: np.ndarray) -> None:
        """Levenberg-Marquardt damping of the Gauss-Newton Hessian, adapted to the progress of
        the exact-penalty merit ``f + nu |g|_1`` (``nu`` above the largest multiplier)."""
        nu = 1.5 * float(np.abs(lam_g).max()) if lam_g.size else 0.0
        if self._last is not None:
            f_old, g_old, nu_old = self._last
            nu = max(nu, nu_old)
            merit, merit_old = f + nu * np.abs(g).sum(), f_old + nu * np.abs(g_old).sum()
            if merit < merit_old:
                self.damping = max(self.damping / 3.0, self.min_damping)
            else:
                self.damping = min(self.damping * 4.0, 1e6)
        self._last = (f, g, nu)


class _Fn(ca.Callback):
    """A CasADi Function computed by a Python function (dense inputs and outputs)."""

    def __init__(self, name: str, function, shapes_in: list, shapes_out: list) -> None:
        ca.Callback.__init__(self)
        self.function = function
        self.shapes_in = shapes_in
        self.shapes_out = shapes_out
        self.construct(name, {})

    def get_n_in(self):
        return len(self.shapes_in)

    def get_n_out(self):
        return len(self.shapes_out)

    def get_sparsity_in(self, i):
        shape = self.shapes_in[i]
        return shape if isinstance(shape, ca.Sparsity) else ca.Sparsity.dense(*shape)

    def get_sparsity_out(self, i):
        shape = self.shapes_out[i]
        return shape if isinstance(shape, ca.Sparsity) else ca.Sparsity.dense(*shape)

    def eval(self, arg):
        return self.function(*[np.array(a.full()) for a in arg])


class _Iterations(ca.Callback):
    """IPOPT's iteration callback: progress display, history, and a clean stop on Ctrl-C."""

    def __init__(self, n_w: int, n_g: int, oracle: Oracle, bar: ProgressBar,
                 label: str) -> None:
        ca.Callback.__init__(self)
        self.n_w, self.n_g = n_w, n_g
        self.oracle, self.bar, self.label = oracle, bar, label
        self.history: list[float] = []
        self.construct("iterations", {})

    def get_n_in(self):
        return ca.nlpsol_n_out()

    def get_n_out(self):
        return 1

    def get_name_in(self, i):
        return ca.nlpsol_out(i)

    def get_name_out(self, i):
        return "ret"

    def get_sparsity_in(self, i):
        name = ca.nlpsol_out(i)
        if name == "f":
            return ca.Sparsity.dense(1)
        if name in ("x", "lam_x"):
            return ca.Sparsity.dense(self.n_w)
        if name in ("g", "lam_g"):
            return ca.Sparsity.dense(self.n_g)
        return ca.Sparsity(0, 0)

    def eval(self, arg):
        cost = float(arg[1])
        self.history.append(cost)
        self.oracle.progress(cost, np.array(arg[2]).ravel(), np.array(arg[4]).ravel())
        self.bar.label = f"{self.label} (cost {cost:.4g})"
        with to_terminal(2):
            self.bar.update(float(len(self.history)))
        if self.oracle.stop:
            return [1.0]
        return [1.0 if self.oracle.converged(np.array(arg[0]).ravel()) else 0.0]


def _solve_nlp(oracle: Oracle, w0: np.ndarray, lower: np.ndarray, upper: np.ndarray,
               n_g: int, settings: FitSettings) -> tuple[np.ndarray, dict]:
    n_w = w0.size
    empty = (0, 1)
    f = _Fn("f", lambda w: [oracle.f(w)], [(n_w, 1)], [(1, 1)])
    g = _Fn("g", lambda w: [oracle.at(w, False).g], [(n_w, 1)], [(n_g, 1)])
    grad_f = _Fn("nlp_grad_f", lambda w, p: list(oracle.grad_f(w)), [(n_w, 1), empty],
                 [(1, 1), (n_w, 1)])
    jac_g = _Fn("nlp_jac_g", lambda w, p: [oracle.at(w, True).g, oracle.at(w, True).jg],
                [(n_w, 1), empty], [(n_g, 1), (n_g, n_w)])
    upper_tri = ca.Sparsity.upper(n_w)
    hess = _Fn("nlp_hess_l",
               lambda w, p, lam_f, lam_g: [ca.triu(ca.DM(oracle.hessian(w, float(lam_f[0, 0]))))],
               [(n_w, 1), empty, (1, 1), (n_g, 1)], [upper_tri])
    iterations = _Iterations(n_w, n_g, oracle, settings.bar, settings.label)
    w = ca.MX.sym("w", n_w)
    ipopt = {"print_level": 5 if settings.verbose else 0, "sb": "yes",
             "max_iter": settings.max_iter, "tol": settings.tol, "mu_strategy": "adaptive"}
    if settings.hessian == "limited-memory":
        ipopt["hessian_approximation"] = "limited-memory"
    ipopt.update(settings.ipopt_options)
    options = {"grad_f": grad_f, "jac_g": jac_g, "ipopt": ipopt, "print_time": False,
               "calc_lam_p": False, "no_nlp_grad": True, "iteration_callback": iterations,
               "error_on_fail": False}
    if settings.hessian == "gauss-newton":
        options["hess_lag"] = hess
    solver = ca.nlpsol("identify", "ipopt", {"x": w, "f": f(w), "g": g(w)}, options)
    stop_on_interrupt = (settings.bar.enabled
                         and threading.current_thread() is threading.main_thread())
    previous = None
    if stop_on_interrupt:
        def _interrupt(signum, frame):
            oracle.stop = True
        previous = _signal.signal(_signal.SIGINT, _interrupt)
    oracle.converged_by_steps = False
    try:
        with solver_output(settings.verbose) as output:
            out = solver(x0=w0, lbx=lower, ubx=upper, lbg=np.zeros(n_g), ubg=np.zeros(n_g))
    finally:
        if previous is not None:
            _signal.signal(_signal.SIGINT, previous)
    stats = solver.stats()
    w = np.clip(np.array(out["x"]).ravel(), lower, upper)  # IPOPT relaxes bounds by ~1e-8
    status = stats.get("return_status", "unknown")
    success = bool(stats.get("success", False))
    if oracle.converged_by_steps:
        status = STEP_CONVERGED
        success = True
    info = {"status": status, "success": success,
            "iterations": int(stats.get("iter_count", len(iterations.history))),
            "history": list(iterations.history), "interrupted": oracle.stop,
            "solver_messages": last_messages(output.text), "oracle": oracle}
    return w, info


def solver_output(verbose: bool) -> AbstractContextManager[Captured]:
    """Keep what SUNDIALS (file descriptor 2) and CasADi (Python's ``sys.stderr``) print while
    IPOPT runs off the terminal, unless ``verbose``: failed integrations at trial points are
    expected and handled (IPOPT cuts its step back). The progress display still reaches the
    terminal (:func:`~acausal.base.capture.to_terminal`); ``.text`` of what the block yields is
    the captured text afterwards."""
    return captured(2, python=True, enabled=not verbose)


def last_messages(text: str, limit: int = 3) -> list[str]:
    """The last distinct integrator messages in captured solver output (for error messages)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if ("CVode" in line or "IDA" in line or "At t =" in line) and line not in found:
            found.append(line[:200])
    return found[-limit:]


@dataclass
class FitSettings:
    """How IPOPT is run and when the fit counts as converged."""

    hessian: str
    max_iter: int
    tol: float
    verbose: bool
    ipopt_options: dict
    bar: ProgressBar
    label: str
    step_tol: float
    gap_tol: float
    sigma_known: bool


def fit(evaluator, w0: np.ndarray, theta: Theta, runs: list[Run] | None,
        settings: FitSettings) -> tuple[np.ndarray, dict, int]:
    """IPOPT from ``w0``; for shooting, again from the solution while the initial states that
    acausal's initialisation computes at the estimates differ from those used."""
    lower = np.full(w0.size, -np.inf)
    upper = np.full(w0.size, np.inf)
    n = len(theta.names)
    lower[:n] = theta.lower / theta.scale
    upper[:n] = theta.upper / theta.scale
    oracle = Oracle(evaluator, 1.0)
    with solver_output(settings.verbose) as output:
        first = oracle.at(w0, False)
    if not np.all(np.isfinite(first.r)):
        said = last_messages(output.text)
        raise SimulationError(
            "The model cannot be integrated over the experiments at the initial guess (NaN "
            "or a solver failure"
            + (f": {said[-1]}" if said else "") + "); check the initial guess, the "
            "experiments' params and start values, or simulate one experiment to see where "
            "it fails.")
    oracle.failure = None
    with solver_output(settings.verbose) as output:
        start = oracle.at(w0, True)  # cached: IPOPT's first gradient is taken here
    check_sensitivities(evaluator, theta, w0, start, oracle.failure,
                        last_messages(output.text), settings.verbose)
    cost0 = float(first.r @ first.r)
    oracle.scale = 1.0 / cost0 if cost0 > 0 else 1.0
    oracle.sigma_known = settings.sigma_known
    oracle.gap_tol = settings.gap_tol
    oracle.step_tol = settings.step_tol
    oracle.bounds = (lower[:n], upper[:n])
    w, info = _solve_nlp(oracle, w0, lower, upper, evaluator.n_g, settings)
    rounds = 0
    if runs is None or info["interrupted"]:
        return w, info, rounds
    cs = evaluator.cs
    while rounds < MAX_REINITIALIZATIONS:
        estimates = dict(zip(theta.names, (theta.scale * w[:n]).tolist()))
        moved = False
        for e, run in enumerate(runs):
            p = cs.parameter_vector({**run.params, **estimates})
            old = run.x0
            try:
                with cs.start_values(run.start):
                    init = initialize(cs, p, run.t0)
            except AcausalError:
                continue
            change = np.abs(init.x0 - old) / evaluator.nominal[e]
            fixed = evaluator.node_cols[e][0] < 0
            if np.any(change[fixed] > 1e-9):
                run.x0 = np.asarray(init.x0, float)
                evaluator.x0_scaled[e] = run.x0 / evaluator.nominal[e]
                moved = True
        if not moved:
            break
        rounds += 1
        history = info["history"]
        w, info = _solve_nlp(oracle, w, lower, upper, evaluator.n_g, settings)
        info["history"] = history + info["history"]
    return w, info, rounds


def check_sensitivities(evaluator, theta: Theta, w0: np.ndarray, ev: Evaluation,
                        failure: str | None, said: list[str], verbose: bool) -> None:
    """Refuse a start at which IPOPT could only stop (``Invalid_Number_Detected``, or a
    parameter it cannot move): sensitivities that are not finite (``SimulationError``, naming
    the parameters, the experiment and where), or a parameter whose sensitivity is exactly
    zero in every experiment (``ParameterError``: the data cannot determine it)."""
    n = len(theta.names)
    finite = (ev.jr is not None and np.all(np.isfinite(ev.jr))
              and np.all(np.isfinite(ev.jg)))
    if not finite:
        if failure is not None and hasattr(evaluator, "failures"):
            where = failure_location(evaluator, w0) or "the integration with sensitivities"
            said = []
            names = ", ".join(f"'{p}'" for p in theta.names)
        else:
            bad = ~np.all(np.isfinite(ev.jr), axis=0)
            names = ", ".join(f"'{theta.names[k]}'" for k in range(n) if bad[k]) or "the "\
                "shooting nodes"
            row = int(np.nonzero(~np.all(np.isfinite(ev.jr), axis=1))[0][0]) \
                if (~np.isfinite(ev.jr)).any() else None
            where = _row_location(evaluator.runs, row) if row is not None else "a node"
        raise SimulationError(
            f"The sensitivities of the measured signals with respect to {names} cannot be "
            f"computed at the initial guess ({where}"
            + (f": {said[-1]}" if said else "") + "). The model's equations are not "
            "differentiable along this trajectory: a kink (abs, max, min, a Piecewise in the "
            "states) or a square root at zero, most often in an algebraic loop, makes the "
            "sensitivities jump or become infinite. Replace it by a smooth version "
            "(acausal.library.smooth: abs_sqrt, abs_huber, max_huber), or give the model's "
            "regularisation (an eps parameter) a positive value; see docs/identification.md, "
            "'Errors and failed fits'.")
    zero = [k for k in range(n) if not np.any(ev.jr[:, k]) and not np.any(ev.jg[:, k])]
    if zero:
        k = zero[0]
        runs = evaluator.runs
        at_start = all(np.all(run.t == run.t0) for run in runs)
        reason = (" (each experiment's samples are at its start time, where the states are "
                  "the initial states: give t_start= before the first sample, or measure "
                  "later samples)" if at_start else "")
        raise ParameterError(
            f"The measured signals do not depend on '{theta.names[k]}' at its initial guess "
            f"{theta.guess[k]:g}: its sensitivity is exactly zero in every experiment"
            f"{reason}, so the data cannot determine it. Measure a signal that depends on it, "
            "change the initial guess, or give it as a known parameter (params=) instead of "
            "estimating it.")


def failure_location(evaluator, w: np.ndarray) -> str:
    """Where the integration with sensitivities fails at ``w`` (the first interval, in the
    experiment's time, with the integrator's message), or "" when it does not fail there or
    the evaluator cannot say (hybrid single shooting)."""
    if not hasattr(evaluator, "failures"):
        return ""
    found = evaluator.failures(w)
    if not found:
        return ""
    name, a, b, text = found[0]
    return (f"experiment '{name}', the shooting interval t = {a:g} ... {b:g} s"
            + (f", {text.rstrip('.')}" if text else "")
            + (f"; and {len(found) - 1} more interval(s)" if len(found) > 1 else ""))


def _row_location(runs: list[Run], row: int) -> str:
    """'experiment 'x', signal 's' at t = ...' of a residual row (runs in order, samples
    major, signals minor)."""
    for run in runs:
        if row < run.y.size:
            j, i = divmod(row, len(run.signals))
            return f"experiment '{run.name}', signal '{run.signals[i]}' at t = {run.t[j]:g} s"
        row -= run.y.size
    return "a node"
