"""Parameter identification: weighted least squares of model parameters against measured time
series, solved by IPOPT with exact integrator sensitivities.

``identify(system, experiments, parameters=[...])`` fits chosen numeric parameters (dotted names)
of one compiled system to one or more experiments. Each :class:`Experiment` holds measured time
series of any variables of the model (by dotted name), the known parameters and start values of
that run, and the noise level (``sigma``) or weight of each signal.

Problem solved (``theta``: the estimated parameters; ``y_ij``: signal ``i`` measured at time
``t_j`` in experiment ``e``; ``w_ij = 1/sigma_ij^2``)::

    minimise  1/2 sum_e sum_ij w_ij (y_ij - h_i(t_j, x_e(t_j), z_e(t_j), p_e(theta)))^2
    subject to  der(x_e) = f(t, x_e, z_e, p_e),  0 = g(t, x_e, z_e, p_e),  x_e(t0) = x0_e

**Multiple shooting** (the default; Bock 1981, Bock et al. 2007): each experiment's time span
is cut at sample times into ``intervals`` pieces; the states at the cuts are extra unknowns of
the NLP and continuity is an equality constraint. The cuts start from the measured values of
measured states, so the fit follows the data from the first iteration and is far less prone to
local minima than **single shooting** (``method="single_shooting"``: one integration per
experiment from its initial state), which the option gives for comparison and for short, stable
experiments. Both use CasADi's ``integrator`` (CVODES for ODEs, IDAS for index-1 DAEs) on the
compiled ``ode``/``alg`` with time and the parameters as inputs: nothing is recompiled for a
new parameter value, and derivatives are exact forward sensitivities (one integration of the
sensitivity system per NLP iterate, shared by the objective gradient, the constraint Jacobian
and the Gauss-Newton Hessian ``J^T W J``). Intervals with equal sample spacing share one
integrator, evaluated in parallel threads.

**Statistics** (Bard 1974; Seber and Wild 1989, ch. 2 and 5): at the optimum the covariance of
the estimates is the inverse Gauss-Newton Hessian of the least-squares problem, the shooting
nodes eliminated through the continuity constraints (the top-left block of the inverse KKT
matrix ``[[J^T W J, G^T], [G, 0]]``)::

    Cov(theta) = s^2 (J^T W J)^-1,   s^2 = sum w r^2 / (n_residuals - n_estimated)

When every signal of every experiment has a known ``sigma``, ``s^2`` is taken as 1 (the noise
level is known) and ``s^2`` is still reported as a check (it should be close to 1). The standard
deviations are those of a linearised model with independent Gaussian noise: they say how much
the estimates move with the noise, not how wrong the model is.

**Models with events** (``When`` clauses, ``event_if``): CasADi's integrators have no event
handling, so such models are fitted by single shooting through acausal's own hybrid
:func:`~acausal.run.simulate.simulate` with forward finite-difference sensitivities. This works
where the measured signals depend smoothly on the parameters (positions and velocities of
stick/slip motion); see docs/identification.md for what to do where they do not.

**The code**, one job per module (a module imports only the ones listed before it)::

    statistics   the problem linearised at a point: Evaluation, Gauss-Newton step, covariance
    experiments  Experiment (as given) checked and prepared into a Run
    parameters   what is estimated: Theta (names, guess, scale, bounds), free initial states
    result       IdentificationResult (summary, table, simulate, plot), build_result,
                 IdentificationWarning
    shooting     the evaluation: Shooting (multiple/single shooting on CasADi integrators),
                 initial_point, HybridSingleShooting (models with events)
    estimator    the NLP for IPOPT (Oracle), the fit loop (fit), FitSettings
    __init__     identify(): the arguments checked, the pieces put together

The public names are the four exported here (also from :mod:`acausal.identify` and
:mod:`acausal`). Names without a leading underscore in the modules above are their interface to
each other inside this package, not a public API; names with one are used only in their own
module.
"""

from __future__ import annotations

import math
import time as _time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...base.errors import InputError, ParameterError
from ...base.progress import ProgressBar, progress_enabled
from ...compiler.compiled_model import CompiledModel
from ...language.model import Component
from ...run.simulate import check_tolerances
from .estimator import HESSIANS, FitSettings, failure_location, fit, solver_output
from .experiments import Experiment, initialise, is_dataframe, prepare_run
from .parameters import free_initial_states, parameter_spec
from .result import IdentificationResult, IdentificationWarning, build_result
from .shooting import HybridSingleShooting, Shooting, initial_point
from .statistics import Evaluation

__all__ = ["Experiment", "IdentificationResult", "IdentificationWarning", "identify"]

#: Methods of :func:`identify`.
METHODS = ("multiple_shooting", "single_shooting")
#: Default number of shooting intervals per experiment (fewer when an experiment has fewer
#: samples): enough to keep each integration short, few enough to keep the NLP small.
DEFAULT_INTERVALS = 10


def identify(system: Component | CompiledModel, experiments: Any, parameters: Any, *,
             bounds: dict[str, tuple[float | None, float | None]] | None = None,
             params: dict[str, Any] | None = None,
             method: str | None = None, intervals: int = DEFAULT_INTERVALS,
             estimate_initial_states: bool | Sequence[str] = False,
             hessian: str = "gauss-newton", rtol: float = 1e-8, atol: float = 1e-8,
             max_iter: int = 100, tol: float = 1e-10, step_tol: float = 1e-2,
             threads: int | None = None,
             fd_step: float | None = None, ipopt_options: dict | None = None,
             progress: bool | None = None, verbose: bool = False) -> IdentificationResult:
    """Estimate parameters of ``system`` from measured time series by weighted least squares.

    What is fitted:

    * ``system``: a Component (compiled here) or a CompiledSystem; every experiment and every
      iteration reuses the one compiled system (parameters are inputs of its functions).
    * ``experiments``: an :class:`Experiment`, a DataFrame or dict of arrays (taken as an
      Experiment without known parameters), or a list of these.
    * ``parameters``: dotted names of the numeric parameters to estimate, or a dict ``{name:
      initial guess}`` (default guess: the model's value). The NLP works on ``theta /
      |initial guess|``, so parameters of very different sizes (a bristle stiffness of 1e5 N/m
      and a friction coefficient of 0.3) are equally well scaled.
    * ``bounds``: ``{name: (lower, upper)}``, None for no bound (default: the declared
      ``min``/``max`` of the parameter). ``params``: known parameter values for every
      experiment (an experiment's own ``params`` win).

    How:

    * ``method``: ``"multiple_shooting"`` (default for models without events) or
      ``"single_shooting"`` (the only one, and the default, for models with events: acausal's
      hybrid simulation with finite-difference sensitivities, step ``fd_step``, default
      ``sqrt(rtol)``). ``intervals``: shooting intervals per experiment (multiple shooting).
    * ``estimate_initial_states``: True (every state) or a list of state names whose initial
      values are estimated too, separately in each experiment. Otherwise each experiment's
      initial states come from acausal's initialisation with its start values at the initial
      guess, and again at the estimates (the fit is repeated when they differ).
    * ``hessian``: ``"gauss-newton"`` (``J^T W J`` from the exact sensitivities, with an
      adaptive Levenberg-Marquardt term that only shapes the path) or ``"limited-memory"``
      (IPOPT's quasi-Newton update).
    * ``rtol``, ``atol``: integrator tolerances (``atol`` relative to each state's size).
    * Convergence: the fit stops when the full Gauss-Newton step from the current iterate would
      move every estimate by less than ``step_tol`` of its standard deviation (with the
      shooting gaps below ``1000*max(rtol, atol)``), or when IPOPT's own test (``tol``) holds;
      ``max_iter`` limits IPOPT's iterations; ``ipopt_options`` passes any IPOPT option.
    * ``threads``: integrations run in parallel (default 2). ``progress``: the progress display
      (None: on a terminal; Ctrl-C then stops the fit and returns the result so far, marked
      ``interrupted``). ``verbose``: IPOPT's iteration log and the integrators' messages.

    Returns an :class:`IdentificationResult`. A fit that does not converge is not lost: it is
    returned with ``converged=False``, and an :class:`IdentificationWarning` says why (also in
    ``result.message``). Errors in the input (unknown names, bad data, bounds that exclude the
    guess, structural parameters) raise :class:`~acausal.base.errors.InputError`,
    :class:`~acausal.ParameterError` or :class:`~acausal.UnknownNameError` before
    any integration. So do fewer measured values (samples x signals, over all experiments)
    than estimated unknowns (parameters and estimated initial states): ``InputError`` with the
    numbers. With exactly as many (0 degrees of freedom) the fit is made, but the noise level
    cannot be estimated from the residuals: unless every signal has a ``sigma``, the standard
    deviations are NaN and an :class:`IdentificationWarning` says why (``result.s2`` is NaN).

    At the initial guess, before IPOPT starts: a parameter whose sensitivity is exactly zero in
    every experiment (the data cannot determine it) raises ``ParameterError`` naming it;
    sensitivities that cannot be computed (a model that is not differentiable along the
    trajectory: a kink or a square root at zero in an algebraic loop) raise
    :class:`~acausal.base.errors.SimulationError` naming the experiment and where.
    """
    started = _time.perf_counter()
    if isinstance(system, Component):
        cs = system.compile()
    elif isinstance(system, CompiledModel):
        cs = system
    else:
        raise InputError(f"identify() takes a Component instance or a CompiledSystem, got "
                         f"{system!r:.80}.")
    if isinstance(experiments, (Experiment, Mapping)) or is_dataframe(experiments):
        experiments = [experiments]
    if not isinstance(experiments, Sequence) or isinstance(experiments, str) or not experiments:
        raise InputError("experiments must be an Experiment (or a DataFrame or dict of "
                         "arrays) or a non-empty list of them.")
    events = cs.has_events
    if method is None:
        method = "single_shooting" if events else "multiple_shooting"
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}, got {method!r}.")
    if events and method == "multiple_shooting":
        raise InputError(
            f"{cs.model_name} has events (When clauses or event_if), which CasADi's "
            "integrators cannot handle, so multiple shooting is not available for it. Use "
            "method='single_shooting' (acausal's hybrid simulation with finite-difference "
            "sensitivities), or fit a smooth (regularised) version of the model; see "
            "docs/identification.md.")
    if hessian not in HESSIANS:
        raise InputError(f"hessian must be one of {', '.join(HESSIANS)}, got {hessian!r}.")
    _check_whole_number("intervals", intervals, 1)
    check_tolerances(rtol=rtol, atol=atol, tol=tol, step_tol=step_tol)
    _check_whole_number("max_iter", max_iter, 0)
    if ipopt_options is not None and not isinstance(ipopt_options, dict):
        raise InputError(f"ipopt_options must be a dict, got {ipopt_options!r}.")
    if threads is None:
        threads = 2
    _check_whole_number("threads", threads, 1)

    theta = parameter_spec(cs, parameters, bounds)
    runs = [prepare_run(cs, e, k, len(theta.names)) for k, e in enumerate(experiments)]
    seen: set[str] = set()
    for run in runs:
        if run.name in seen:
            raise InputError(f"Two experiments are named '{run.name}': give each its own name.")
        seen.add(run.name)
    free_x0 = free_initial_states(cs, estimate_initial_states)
    if free_x0 and events:
        raise InputError("estimate_initial_states is not available for models with events "
                         "(fitted through acausal's simulation): give the initial values as "
                         "start values of each experiment instead.")
    _check_enough_data(runs, theta.names, len(free_x0))
    guess = dict(zip(theta.names, theta.guess.tolist()))
    if params is not None:
        if not isinstance(params, Mapping):
            raise InputError(f"params must be a dict of known parameter values by dotted name, "
                             f"got {params!r}.")
        clash = [n for n in params if n in guess]
        if clash:
            raise ParameterError(f"'{clash[0]}' is given in params= (known) and also "
                                 "estimated: remove it from one of them.")
        for run in runs:
            run.params = {**params, **run.params}
    for run in runs:
        clash = [n for n in run.params if n in guess or
                 any(el in guess for el in (cs.vector_elements(n) or []))]
        if clash:
            raise ParameterError(f"Experiment '{run.name}' gives '{clash[0]}' as a known "
                                 "parameter, but it is also estimated: remove it from the "
                                 "experiment's params or from parameters=.")
        try:
            run.p = cs.parameter_vector({**run.params, **guess})
        except ParameterError as err:
            raise ParameterError(f"Experiment '{run.name}': {err}") from None
        initialise(cs, run)

    label = f"identify {cs.model_name}"
    bar = ProgressBar(label, float(max_iter), progress_enabled(progress), unit="iterations")
    settings = FitSettings(hessian=hessian, max_iter=int(max_iter), tol=float(tol),
                           verbose=bool(verbose), ipopt_options=dict(ipopt_options or {}),
                           bar=bar, label=label, step_tol=float(step_tol),
                           gap_tol=1e3 * max(rtol, atol),
                           sigma_known=all(run.known_sigma for run in runs))
    if events:
        evaluator = HybridSingleShooting(
            cs, runs, theta, rtol, atol, math.sqrt(rtol) if fd_step is None else fd_step)
        w0 = np.ones(len(theta.names))
        w_opt, info, rounds = fit(evaluator, w0, theta, None, settings)
    else:
        n_intervals = 1 if method == "single_shooting" else int(intervals)
        evaluator = Shooting(cs, runs, theta, n_intervals, free_x0, rtol, atol, threads)
        w0 = initial_point(cs, evaluator, runs, theta)
        w_opt, info, rounds = fit(evaluator, w0, theta, runs, settings)
    with solver_output(verbose):
        final = info["oracle"].at(w_opt, True)  # cached: IPOPT's last Jacobian is at w_opt
        if final.jr is None or not np.all(np.isfinite(final.jr)):
            # no sensitivities at the estimates: say where, and keep the values if any
            info["final_failure"] = failure_location(evaluator, w_opt)
            try:
                values = evaluator.evaluate(w_opt, False)
                final = Evaluation(values.r, values.g, values.fitted, final.jr, final.jg)
            except RuntimeError:
                pass
    bar.close("stopped" if info["interrupted"] else
              ("converged" if info["success"] else info["status"]))
    return build_result(cs, runs, theta, evaluator, w_opt, final, info, method, intervals,
                        free_x0, events, rounds, _time.perf_counter() - started, step_tol)


def _check_enough_data(runs: list, names: list[str], free_x0: int) -> None:
    """Fewer measured values than estimated unknowns cannot determine them: an InputError that
    gives the numbers (each experiment's samples and signals, the unknowns)."""
    values = sum(run.y.size for run in runs)
    unknowns = len(names) + free_x0 * len(runs)
    if values >= unknowns:
        return
    counts = ", ".join(f"'{run.name}': {run.t.size} sample(s) x {len(run.signals)} signal(s)"
                       for run in runs[:5]) + (", ..." if len(runs) > 5 else "")
    extra = (f" and {free_x0 * len(runs)} initial state(s)" if free_x0 else "")
    raise InputError(
        f"The experiments give {values} measured value(s) ({counts}) for {unknowns} estimated "
        f"unknown(s) ({len(names)} parameter(s): {', '.join(names)}{extra}): fewer values than "
        "unknowns cannot determine them. Measure more samples or signals, add an experiment, "
        "or estimate fewer parameters.")


def _check_whole_number(name: str, value: Any, minimum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be a whole number >= {minimum}, got {value!r}.")
