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
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import signal as _signal
import sys
import tempfile
import threading
import time as _time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import casadi as ca
import numpy as np

from ..base.errors import (
    AcausalError,
    InputError,
    ParameterError,
    SimulationError,
    UnknownNameError,
    did_you_mean,
)
from ..base.progress import ProgressBar, progress_enabled
from ..compiler.compiled_model import CompiledModel
from ..language.model import Component
from ..run.initialize import initialize

__all__ = ["Experiment", "IdentificationResult", "IdentificationWarning", "identify"]

#: Methods of :func:`identify`.
METHODS = ("multiple_shooting", "single_shooting")
#: Hessian choices: Gauss-Newton ``J^T W J`` (exact first derivatives, no second ones) or
#: IPOPT's own limited-memory quasi-Newton update.
HESSIANS = ("gauss-newton", "limited-memory")
#: Default number of shooting intervals per experiment (fewer when an experiment has fewer
#: samples): enough to keep each integration short, few enough to keep the NLP small.
DEFAULT_INTERVALS = 10
#: Largest number of re-fits when the initial states computed at the estimates differ from those
#: computed at the initial guess (initial states that depend on the estimated parameters).
MAX_REINITIALIZATIONS = 3
#: ``status`` of a fit stopped by acausal's own test: the full Gauss-Newton step from the last
#: iterate would move every estimate by less than ``step_tol`` standard deviations.
STEP_CONVERGED = "Converged_Gauss_Newton_Step"
#: Lag-1 autocorrelation of a signal's residuals above which the fit is reported as not
#: following those data (white noise gives ~0 +- 1/sqrt(samples)).
MISFIT_AUTOCORRELATION = 0.8
#: Relative singular value below which a direction of the reduced Gauss-Newton Hessian counts
#: as not identifiable.
RANK_TOLERANCE = 1e-10


class IdentificationWarning(UserWarning):
    """The fit did not converge, an estimate lies on a bound, or a parameter is not
    identifiable from the data: the result is returned, with the reason in its ``message``."""


# --------------------------------------------------------------------------------------------
# experiments
# --------------------------------------------------------------------------------------------

@dataclass
class Experiment:
    """One measured run of the model.

    ``data``: a pandas DataFrame (time in a column ``t`` or ``time``, or in the index; one
    column per measured variable, named by its dotted name; a unit suffix as written by
    ``Solution.to_csv``, ``"mass.s [m]"``, is ignored) or a mapping of arrays
    (``{"t": ..., "mass.s": ...}``). ``params``: parameter values of this run by dotted name
    (known inputs such as a drive's amplitude); ``start``: start values of this run (as
    ``simulate(start=...)``). ``sigma``: standard deviation of the measurement noise, one number
    for every signal or a dict by signal (a number or an array over the samples); ``weights``:
    instead of ``sigma``, relative weights of signals (``w = 1/sigma^2``). Signals with neither
    are weighted by ``1/range^2`` of their data, so that signals of different units count alike.
    ``signals``: the columns to fit (default: all but time); ``t_start``: the start time of the
    run (default: the first sample time); ``name``: used in messages, summaries and plots.
    """

    data: Any
    params: dict[str, Any] | None = None
    start: dict[str, Any] | None = None
    sigma: float | dict[str, Any] | None = None
    weights: dict[str, Any] | None = None
    signals: list[str] | None = None
    t_start: float | None = None
    name: str | None = None


@dataclass
class _Run:
    """An experiment checked and prepared: arrays, weights and the parameter vector."""

    name: str
    t: np.ndarray  # sample times (n,)
    signals: list[str]
    y: np.ndarray  # measured values (n, m)
    sqrt_w: np.ndarray  # square root of the weights (n, m)
    known_sigma: bool  # every signal has a sigma
    params: dict[str, Any]
    start: dict[str, Any]
    t0: float
    p: np.ndarray = field(default=None, repr=False)  # parameter vector (estimates: guess)
    x0: np.ndarray = field(default=None, repr=False)
    z0: np.ndarray = field(default=None, repr=False)


def _strip_unit(name: str) -> str:
    name = str(name).strip()
    if name.endswith("]") and " [" in name:
        name = name[: name.rindex(" [")]
    return name


def _columns_of(data: Any, label: str) -> tuple[np.ndarray, dict[str, Any]]:
    """(times, {column name: values}) of a DataFrame or a mapping of arrays."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is optional
        pd = None
    if pd is not None and isinstance(data, pd.DataFrame):
        names = {_strip_unit(c): c for c in data.columns}
        key = next((k for k in ("t", "time") if k in names), None)
        if key is not None:
            times = data[names[key]].to_numpy()
            columns = {n: data[c].to_numpy() for n, c in names.items() if n != key}
        elif isinstance(data.index, pd.RangeIndex):
            raise InputError(f"{label}: the DataFrame has no time: give it a column 't' or "
                             "'time', or the times as its index (df.set_index('t')).")
        else:
            times = data.index.to_numpy()
            columns = {n: data[c].to_numpy() for n, c in names.items()}
        return times, columns
    if isinstance(data, Mapping):
        names = {_strip_unit(k): k for k in data}
        key = next((k for k in ("t", "time") if k in names), None)
        if key is None:
            raise InputError(f"{label}: the data have no time: give the sample times as 't' "
                             f"(got the keys {', '.join(map(repr, data))}).")
        return (data[names[key]],
                {n: data[k] for n, k in names.items() if n != key})
    raise InputError(f"{label}: data must be a pandas DataFrame or a dict of arrays "
                     f"({{'t': times, 'mass.s': values}}), got {type(data).__name__}.")


def _as_array(values: Any, what: str) -> np.ndarray:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be numbers, got {values!r:.80}.") from None
    if array.ndim != 1:
        array = array.ravel() if array.size == max(array.shape, default=0) else array
    if array.ndim != 1:
        raise InputError(f"{what} must be one-dimensional, got shape {array.shape}.")
    return array


def _per_signal(option: Any, signals: list[str], n: int, label: str, what: str
                ) -> dict[str, np.ndarray]:
    """``sigma`` or ``weights`` of an experiment as one array per signal (missing: absent)."""
    if option is None:
        return {}
    if isinstance(option, Mapping):
        unknown = [k for k in option if k not in signals]
        if unknown:
            raise InputError(f"{label}: {what} names '{unknown[0]}', which is not one of its "
                             f"signals ({', '.join(signals)}).{did_you_mean(unknown[0], signals)}")
        items = dict(option)
    else:
        items = {s: option for s in signals}
    out = {}
    for name, value in items.items():
        array = np.asarray(value, dtype=float)
        if array.ndim == 0:
            array = np.full(n, float(array))
        array = array.ravel()
        if array.size != n:
            raise InputError(f"{label}: {what} of '{name}' has {array.size} values for "
                             f"{n} samples; give one number or one per sample.")
        if not np.all(np.isfinite(array)) or np.any(array <= 0):
            raise InputError(f"{label}: {what} of '{name}' must be positive and finite.")
        out[name] = array
    return out


def _prepare_run(cs: CompiledModel, experiment: Any, index: int) -> _Run:
    if not isinstance(experiment, Experiment):
        experiment = Experiment(experiment)
    name = experiment.name or f"experiment {index}"
    label = f"Experiment '{name}'"
    times, columns = _columns_of(experiment.data, label)
    t = _as_array(times, f"{label}: the sample times")
    if experiment.signals is not None:
        wanted = [str(s) for s in experiment.signals]
        missing = [s for s in wanted if s not in columns]
        if missing:
            raise InputError(f"{label}: signals lists '{missing[0]}', which is not a column of "
                             f"its data ({', '.join(columns) or 'none'}).")
        columns = {s: columns[s] for s in wanted}
    if t.size == 0 or not columns:
        raise InputError(f"{label} has no data: give at least one measured signal with at "
                         "least one sample (columns other than time, by dotted name).")
    if not np.all(np.isfinite(t)):
        raise InputError(f"{label}: the sample times contain NaN or inf at position "
                         f"{int(np.nonzero(~np.isfinite(t))[0][0])}; remove those rows.")
    steps = np.diff(t)
    if np.any(steps <= 0):
        k = int(np.nonzero(steps <= 0)[0][0])
        raise InputError(f"{label}: the sample times must increase strictly; t[{k + 1}] = "
                         f"{t[k + 1]:g} follows t[{k}] = {t[k]:g}. Sort the data by time and "
                         "drop repeated times.")
    signals = list(columns)
    for s in signals:
        if s in cs.parameter_names:
            raise InputError(f"{label}: '{s}' is a parameter, not a time-varying variable; to "
                             "estimate it, list it in parameters=.")
        try:
            cs.locate(s)
        except UnknownNameError as err:
            raise UnknownNameError(f"{label}: {err}") from None
    y = np.column_stack([_as_array(columns[s], f"{label}: signal '{s}'") for s in signals])
    if y.shape[0] != t.size:
        raise InputError(f"{label}: the signals have {y.shape[0]} values for {t.size} times.")
    bad = ~np.isfinite(y)
    if bad.any():
        j, i = (int(a[0]) for a in np.nonzero(bad))
        raise InputError(f"{label}: signal '{signals[i]}' has {int(bad[:, i].sum())} NaN or "
                         f"inf value(s), the first at t = {t[j]:g}. Remove those samples "
                         "(df.dropna()) or fit that signal in an experiment of its own.")
    n = t.size
    sigma = _per_signal(experiment.sigma, signals, n, label, "sigma")
    weights = _per_signal(experiment.weights, signals, n, label, "weights")
    both = sorted(set(sigma) & set(weights))
    if both:
        raise InputError(f"{label}: '{both[0]}' has both sigma and weights; give one of them.")
    sqrt_w = np.empty_like(y)
    for i, s in enumerate(signals):
        if s in sigma:
            sqrt_w[:, i] = 1.0 / sigma[s]
        elif s in weights:
            sqrt_w[:, i] = np.sqrt(weights[s])
        else:
            spread = float(np.ptp(y[:, i]))
            if not spread > 0:
                raise InputError(f"{label}: signal '{s}' is constant in the data, so it has no "
                                 "range to weight it by; give its noise level with sigma={"
                                 f"'{s}': ...}}.")
            sqrt_w[:, i] = 1.0 / spread
    t0 = float(t[0]) if experiment.t_start is None else float(experiment.t_start)
    if not np.isfinite(t0) or t0 > t[0]:
        raise InputError(f"{label}: t_start = {experiment.t_start!r} must be a finite time at "
                         f"or before the first sample ({t[0]:g}).")
    for what, value in (("params", experiment.params), ("start", experiment.start)):
        if value is not None and not isinstance(value, Mapping):
            raise InputError(f"{label}: {what} must be a dict by dotted name, got {value!r}.")
    return _Run(name, t, signals, y, sqrt_w, len(sigma) == len(signals),
                dict(experiment.params or {}), dict(experiment.start or {}), t0)


# --------------------------------------------------------------------------------------------
# estimated parameters
# --------------------------------------------------------------------------------------------

@dataclass
class _Theta:
    names: list[str]
    index: np.ndarray  # positions in the parameter vector
    guess: np.ndarray
    scale: np.ndarray  # theta = scale * theta_scaled
    lower: np.ndarray
    upper: np.ndarray
    units: list[str]


def _parameter_spec(cs: CompiledModel, parameters: Any, bounds: Any) -> _Theta:
    if isinstance(parameters, str):
        parameters = [parameters]
    if isinstance(parameters, Mapping):
        items = list(parameters.items())
    elif isinstance(parameters, Sequence):
        items = [(p, None) for p in parameters]
    else:
        raise InputError("parameters must be a list of dotted parameter names or a dict "
                         f"{{name: initial guess}}, got {parameters!r}.")
    index = cs.parameter_index()
    declared = {prm.name: prm for prm in cs.flat.parameters}
    names, guesses = [], []
    for name, guess in items:
        name = str(name)
        if name in cs.flat.structural:
            raise cs.structural_parameter_error(name)
        elements = cs.vector_elements(name) if name not in index else None
        if name not in index and not elements:
            if name in cs.locations():
                raise ParameterError(
                    f"'{name}' is a variable of {cs.model_name}, not a parameter. To estimate "
                    "its initial value, use estimate_initial_states=['<state name>'].")
            hint = did_you_mean(name, cs.parameter_names)
            raise ParameterError(f"'{name}' is not a parameter of {cs.model_name}.{hint}")
        for k, element in enumerate(elements or [name]):
            prm = declared[element]
            if prm.discrete:
                raise ParameterError(f"'{element}' is a discrete variable (it changes at "
                                     "events), not a parameter: it cannot be estimated.")
            if element in names:
                raise InputError(f"parameters lists '{element}' twice.")
            value = guess[k] if elements and guess is not None else guess
            names.append(element)
            guesses.append(cs.parameter_values[index[element]] if value is None else value)
    if not names:
        raise InputError("parameters is empty: name at least one parameter to estimate.")
    guess = np.array([_number(g, f"the initial guess of '{n}'") for n, g in zip(names, guesses)])
    lower = np.full(len(names), -np.inf)
    upper = np.full(len(names), np.inf)
    for k, n in enumerate(names):
        prm = declared[n]
        if prm.min is not None:
            lower[k] = float(prm.min)
        if prm.max is not None:
            upper[k] = float(prm.max)
    if bounds is not None:
        if not isinstance(bounds, Mapping):
            raise InputError("bounds must be a dict {name: (lower, upper)} (None for no "
                             f"bound), got {bounds!r}.")
        for name, pair in bounds.items():
            if name not in names:
                raise ParameterError(f"bounds are given for '{name}', which is not estimated "
                                     f"(parameters: {', '.join(names)}).")
            try:
                lo, hi = pair
            except (TypeError, ValueError):
                raise InputError(f"bounds of '{name}' must be a pair (lower, upper), got "
                                 f"{pair!r}.") from None
            k = names.index(name)
            prm = declared[name]
            lo = -np.inf if lo is None else _number(lo, f"the lower bound of '{name}'", True)
            hi = np.inf if hi is None else _number(hi, f"the upper bound of '{name}'", True)
            if not lo < hi:
                raise ParameterError(f"bounds of '{name}': the lower bound {lo:g} must be "
                                     f"below the upper bound {hi:g}.")
            if prm.min is not None and lo < prm.min:
                raise ParameterError(f"bounds of '{name}': the lower bound {lo:g} is below the "
                                     f"parameter's declared minimum {prm.min:g}; raise it.")
            if prm.max is not None and hi > prm.max:
                raise ParameterError(f"bounds of '{name}': the upper bound {hi:g} is above the "
                                     f"parameter's declared maximum {prm.max:g}; lower it.")
            lower[k], upper[k] = lo, hi
    for k, n in enumerate(names):
        if not lower[k] <= guess[k] <= upper[k]:
            raise ParameterError(f"The initial guess {guess[k]:g} of '{n}' is outside its "
                                 f"bounds [{lower[k]:g}, {upper[k]:g}]: change the guess or the "
                                 "bounds.")
    scale = np.abs(guess)
    for k in range(len(names)):
        if scale[k] == 0.0:
            span = upper[k] - lower[k]
            scale[k] = span if np.isfinite(span) and span > 0 else 1.0
    units = [declared[n].unit or "" for n in names]
    return _Theta(names, np.array([index[n] for n in names], dtype=int), guess, scale, lower,
                  upper, units)


def _number(value: Any, what: str, allow_inf: bool = False) -> float:
    try:
        if isinstance(value, bool):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must be a real number, got {value!r}.") from None
    if np.isnan(number) or (not allow_inf and not np.isfinite(number)):
        raise ParameterError(f"{what} must be a finite number, got {value!r}.")
    return number


# --------------------------------------------------------------------------------------------
# evaluators: residuals r(w), continuity g(w) and their Jacobians
# --------------------------------------------------------------------------------------------

class _Evaluation:
    """Values (and Jacobians, when computed) at one point ``w`` of the NLP."""

    def __init__(self, r: np.ndarray, g: np.ndarray, fitted: list[np.ndarray],
                 jr: np.ndarray | None = None, jg: np.ndarray | None = None) -> None:
        self.r, self.g, self.fitted, self.jr, self.jg = r, g, fitted, jr, jg


def _measurement_function(cs: CompiledModel, signals: list[str]) -> ca.Function:
    """h(t, x, z, p): the measured variables (sign applied; parameters and zeros as values)."""
    rows = []
    for s in signals:
        sign, index = cs.locate(s)
        rows.append(ca.SX(0.0) if index < 0 else sign * cs.observed[index])
    return ca.Function("measured", [cs.t, cs.x, cs.z, cs.p], [ca.vertcat(*rows)])


class _Shooting:
    """Multiple (or, with one interval, single) shooting on CasADi integrators.

    Unknowns ``w = [theta / scale, free initial states, states at the cuts]``, the states
    scaled by their nominal values. Each interval is one call of an integrator whose grid is
    the interval's sample times relative to its start; time, the parameters and the nominal
    values are inputs, so intervals with the same relative grid share one integrator, called
    through a threaded ``map``.
    """

    def __init__(self, cs: CompiledModel, runs: list[_Run], theta: _Theta, intervals: int,
                 free_x0: list[int], rtol: float, atol: float, threads: int) -> None:
        self.cs, self.runs, self.theta = cs, runs, theta
        self.n_x, self.n_z = cs.x.numel(), cs.z.numel()
        self.n_theta = len(theta.names)
        self.free_x0 = list(free_x0)
        self.rtol, self.atol, self.threads = rtol, atol, threads
        self._dae = self._scaled_dae()
        self._integrators: dict = {}
        self._mapped: dict = {}
        self._layout(intervals)

    # -- structure ------------------------------------------------------------------------
    def _scaled_dae(self) -> dict:
        cs = self.cs
        tau = ca.SX.sym("tau")
        shift = ca.SX.sym("t_shift")
        xs, zs = ca.SX.sym("xs", self.n_x), ca.SX.sym("zs", self.n_z)
        dx, dz = ca.SX.sym("x_nominal", self.n_x), ca.SX.sym("z_nominal", self.n_z)
        ode, alg = ca.substitute([cs.ode, cs.alg], [cs.t, cs.x, cs.z],
                                 [tau + shift, dx * xs, dz * zs])
        dae = {"t": tau, "x": xs, "p": ca.vertcat(cs.p, shift, dx, dz), "ode": ode / dx}
        if self.n_z:
            dae.update(z=zs, alg=alg)
        return dae

    def _layout(self, intervals: int) -> None:
        """Cut points, unknowns and residual positions of every interval."""
        nx = self.n_x
        self.n_w = self.n_theta
        self.cuts, self.node_cols, self.r_offset = [], [], []
        self.g_offset, n_r, n_g = [], 0, 0
        self.x0_cols = []
        for run in self.runs:
            n = run.t.size
            k_max = max(1, min(intervals, n - 1)) if n > 1 else 1
            cuts = np.unique(np.round(np.linspace(0, n - 1, k_max + 1)).astype(int))
            if cuts.size == 1:  # one sample: one interval from t0 to it
                cuts = np.array([0, 0])
            self.cuts.append(cuts)
            cols = []
            first = np.full(nx, -1)
            for i in self.free_x0:
                first[i] = self.n_w
                self.n_w += 1
            self.x0_cols.append(first)
            cols.append(first)
            for _ in range(1, cuts.size - 1):
                cols.append(np.arange(self.n_w, self.n_w + nx))
                self.n_w += nx
            self.node_cols.append(cols)
            self.r_offset.append(n_r)
            n_r += run.y.size
            self.g_offset.append(n_g)
            n_g += nx * (cuts.size - 2)
        self.n_r, self.n_g = n_r, n_g
        # intervals grouped by their relative grid and signals: one integrator per group
        self.groups: dict = {}
        for e, run in enumerate(self.runs):
            cuts = self.cuts[e]
            for k in range(cuts.size - 1):
                a, b = cuts[k], cuts[k + 1]
                start = run.t0 if k == 0 else run.t[a]
                grid = run.t[a:b + 1] - start
                if k == 0 and run.t0 < run.t[0]:
                    grid = np.concatenate([[0.0], run.t[: b + 1] - start])
                length = float(f"{grid[-1]:.12g}")
                key = (tuple(np.round(grid / max(grid[-1], 1e-300), 10)) + (length,),
                       tuple(run.signals))
                self.groups.setdefault(key, {"grid": grid, "signals": run.signals,
                                             "members": []})["members"].append((e, k))

    def _functions(self, key) -> tuple[ca.Function, ca.Function]:
        """(values, values and Jacobians) of one interval of a group, as CasADi Functions."""
        if key in self._integrators:
            return self._integrators[key]
        group = self.groups[key]
        cs, th = self.cs, self.theta
        grid = np.asarray(group["grid"], float)
        if grid[-1] <= 0:  # a single sample at t0: a trivially short interval
            grid = np.array([0.0, 1e-12])
        h = _measurement_function(cs, group["signals"])
        plugin = "idas" if self.n_z else "cvodes"
        options = {"reltol": self.rtol, "abstol": self.atol, "max_num_steps": 200_000,
                   "fsens_err_con": True}
        if self.n_z:
            options["calc_ic"] = True
        integrator = ca.integrator(f"interval_{len(self._integrators)}", plugin, self._dae,
                                   0.0, grid, options)
        n_out = grid.size
        s = ca.MX.sym("s", self.n_x)
        theta = ca.MX.sym("theta", self.n_theta)
        p_run = ca.MX.sym("p", cs.p.numel())
        t_k = ca.MX.sym("t_k")
        dx, dz = ca.MX.sym("dx", self.n_x), ca.MX.sym("dz", self.n_z)
        z_guess = ca.MX.sym("z_guess", self.n_z)
        mask = np.ones(cs.p.numel())
        mask[th.index] = 0.0
        select = ca.DM(ca.Sparsity.triplet(cs.p.numel(), self.n_theta, list(th.index),
                                           list(range(self.n_theta))), 1.0)
        p = p_run * mask + ca.mtimes(select, th.scale * theta)
        args = {"x0": s, "p": ca.vertcat(p, t_k, dx, dz)}
        if self.n_z:
            args["z0"] = z_guess
        out = integrator(**args)
        xf = out["xf"] * ca.repmat(dx, 1, n_out)
        zf = out["zf"] * ca.repmat(dz, 1, n_out) if self.n_z else ca.MX(0, n_out)
        times = t_k + ca.DM(grid).T
        y = h.map(n_out)(times, xf, zf, ca.repmat(p, 1, n_out))
        outputs = ca.vertcat(ca.vec(y), out["xf"][:, -1])
        inputs = [s, theta, p_run, t_k, dx, dz, z_guess]
        values = ca.Function("interval", inputs, [outputs])
        jac = ca.Function("interval_jacobian", inputs,
                          [outputs, ca.jacobian(outputs, ca.vertcat(s, theta))])
        self._integrators[key] = (values, jac)
        return values, jac

    # -- evaluation -----------------------------------------------------------------------
    def node(self, w: np.ndarray, e: int, k: int) -> np.ndarray:
        cols = self.node_cols[e][k]
        base = self.x0_scaled[e] if k == 0 else np.zeros(self.n_x)
        return np.where(cols >= 0, w[np.maximum(cols, 0)], base)

    def set_point(self, x0_scaled: list[np.ndarray], nominal: list[np.ndarray],
                  z_nominal: list[np.ndarray], z_guess: list[list[np.ndarray]]) -> None:
        self.x0_scaled, self.nominal = x0_scaled, nominal
        self.z_nominal, self.z_guess = z_nominal, z_guess

    def _inputs(self, w: np.ndarray, e: int, k: int) -> list:
        run = self.runs[e]
        start = run.t0 if k == 0 else run.t[self.cuts[e][k]]
        node = self.node(w, e, k)
        if self.n_z:
            self._consistent_z(w, e, k, node, start)
        return [node, w[: self.n_theta], run.p, [start], self.nominal[e],
                self.z_nominal[e], self.z_guess[e][k]]

    def _consistent_z(self, w: np.ndarray, e: int, k: int, node: np.ndarray,
                      start: float) -> None:
        """Algebraic variables consistent with a node (Newton from the last ones), so that
        IDAS's own consistent-initialisation starts at its solution."""
        from ..run.initialize import solve_algebraic

        p = self.runs[e].p.copy()
        p[self.theta.index] = self.theta.scale * w[: self.n_theta]
        guess = self.z_guess[e][k] * self.z_nominal[e]
        try:
            z = solve_algebraic(self.cs, p, start, node * self.nominal[e], guess)
        except AcausalError:
            return
        if np.all(np.isfinite(z)):
            self.z_guess[e][k] = z / self.z_nominal[e]

    def evaluate(self, w: np.ndarray, jacobian: bool) -> _Evaluation:
        r = np.zeros(self.n_r)
        g = np.zeros(self.n_g)
        jr = np.zeros((self.n_r, self.n_w)) if jacobian else None
        jg = np.zeros((self.n_g, self.n_w)) if jacobian else None
        fitted = [np.zeros_like(run.y) for run in self.runs]
        nx = self.n_x
        for key, group in self.groups.items():
            values, jac = self._functions(key)
            members = group["members"]
            columns = [self._inputs(w, e, k) for e, k in members]
            stacked = [np.column_stack([np.asarray(c[i], float).reshape(-1) for c in columns])
                       if columns[0][i] is not None and np.size(columns[0][i]) else
                       np.zeros((0, len(columns))) for i in range(7)]
            function = jac if jacobian else values
            if len(members) > 1:
                mapped_key = (key, jacobian)
                if mapped_key not in self._mapped:
                    self._mapped[mapped_key] = function.map(len(members), "thread",
                                                            self.threads)
                function = self._mapped[mapped_key]
            result = function(*stacked)
            outputs = np.array(result[0] if jacobian else result)
            if jacobian:
                jac_all = np.array(result[1])
            m = len(group["signals"])
            for c, (e, k) in enumerate(members):
                run = self.runs[e]
                cuts = self.cuts[e]
                a, b = cuts[k], cuts[k + 1]
                last = k == cuts.size - 2
                lead = 1 if (k == 0 and run.t0 < run.t[0]) else 0  # output at t0, no sample
                first = a
                n_use = (b - a + 1) if last else (b - a)
                if cuts.size == 2 and cuts[0] == cuts[1]:
                    n_use = 1
                vec = outputs[:, c]
                y_model = vec[lead * m: (lead + n_use) * m].reshape(n_use, m)
                fitted[e][first: first + n_use] = y_model
                rows = slice(self.r_offset[e] + first * m, self.r_offset[e] + (first + n_use) * m)
                weights = run.sqrt_w[first: first + n_use].reshape(-1)
                r[rows] = (y_model.reshape(-1) - run.y[first: first + n_use].reshape(-1)) * weights
                end = vec[-nx:]
                if not last:
                    g_rows = slice(self.g_offset[e] + k * nx, self.g_offset[e] + (k + 1) * nx)
                    g[g_rows] = end - self.node(w, e, k + 1)
                if not jacobian:
                    continue
                block = jac_all[:, c * (nx + self.n_theta): (c + 1) * (nx + self.n_theta)]
                d_y = block[lead * m: (lead + n_use) * m] * weights[:, None]
                d_end = block[-nx:]
                cols = self.node_cols[e][k]
                free = cols >= 0
                jr[rows, : self.n_theta] = d_y[:, nx:]
                jr[rows, cols[free]] = d_y[:, :nx][:, free]
                if not last:
                    jg[g_rows, : self.n_theta] = d_end[:, nx:]
                    jg[g_rows, cols[free]] = d_end[:, :nx][:, free]
                    nxt = self.node_cols[e][k + 1]
                    jg[g_rows, nxt] -= np.eye(nx)
        return _Evaluation(r, g, fitted, jr, jg)


class _HybridSingleShooting:
    """Single shooting through acausal's own simulate (events handled), with forward
    finite-difference sensitivities of the residuals with respect to the scaled parameters."""

    def __init__(self, cs: CompiledModel, runs: list[_Run], theta: _Theta, rtol: float,
                 atol: float, fd_step: float) -> None:
        self.cs, self.runs, self.theta = cs, runs, theta
        self.n_theta = self.n_w = len(theta.names)
        self.n_r = sum(run.y.size for run in runs)
        self.n_g = 0
        self.rtol, self.atol, self.fd_step = rtol, atol, fd_step

    def _residuals(self, w: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
        from ..run.simulate import simulate_compiled

        values = self.theta.scale * w[: self.n_theta]
        r, fitted = [], []
        for run in self.runs:
            params = dict(run.params)
            params.update(zip(self.theta.names, values.tolist()))
            grid = run.t if run.t0 == run.t[0] else np.concatenate([[run.t0], run.t])
            take = slice(grid.size - run.t.size, None)
            if grid.size == 1:  # one sample at the start time: simulate a moment past it
                grid, take = np.array([run.t0, run.t0 + 1e-9]), slice(0, 1)
            try:
                sol = simulate_compiled(self.cs, float(grid[-1]), t_start=float(grid[0]),
                                        t_eval=grid, params=params, start=run.start,
                                        rtol=self.rtol, atol=self.atol, progress=False)
                model = np.column_stack([np.asarray(sol[s], float) for s in run.signals])[take]
            except AcausalError:
                model = np.full_like(run.y, np.nan)
            fitted.append(model)
            r.append(((model - run.y) * run.sqrt_w).reshape(-1))
        return np.concatenate(r), fitted

    def evaluate(self, w: np.ndarray, jacobian: bool) -> _Evaluation:
        r, fitted = self._residuals(w)
        if not jacobian:
            return _Evaluation(r, np.zeros(0), fitted)
        jr = np.zeros((r.size, self.n_w))
        for i in range(self.n_w):
            step = self.fd_step * max(1.0, abs(w[i]))
            shifted = w.copy()
            shifted[i] += step
            jr[:, i] = (self._residuals(shifted)[0] - r) / step
        return _Evaluation(r, np.zeros(0), fitted, jr, np.zeros((0, self.n_w)))


# --------------------------------------------------------------------------------------------
# the NLP for IPOPT
# --------------------------------------------------------------------------------------------

class _Oracle:
    """Caches the last evaluations so that IPOPT's calls at one point (objective, constraints,
    gradient, Jacobian, Hessian) cost one integration with sensitivities."""

    def __init__(self, evaluator, objective_scale: float) -> None:
        self.evaluator = evaluator
        self.scale = objective_scale
        self._values: tuple[bytes, _Evaluation] | None = None
        self._jacobians: tuple[bytes, _Evaluation] | None = None
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

    def at(self, w: np.ndarray, jacobian: bool) -> _Evaluation:
        key = np.asarray(w, float).tobytes()
        if self._jacobians is not None and self._jacobians[0] == key:
            return self._jacobians[1]
        if not jacobian and self._values is not None and self._values[0] == key:
            return self._values[1]
        w = np.asarray(w, float).ravel()
        try:
            result = self.evaluator.evaluate(w, jacobian)
        except RuntimeError:  # an integrator failure at this point: IPOPT cuts its step back
            n_r, n_g, n_w = self.evaluator.n_r, self.evaluator.n_g, self.evaluator.n_w
            result = _Evaluation(np.full(n_r, np.nan), np.full(n_g, np.nan), [],
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
        step = _gauss_newton_step(ev)
        cov, _ = _covariance(ev.jr, ev.jg)
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

    def __init__(self, n_w: int, n_g: int, oracle: _Oracle, bar: ProgressBar,
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
        with _terminal_stderr():
            self.bar.update(float(len(self.history)))
        if self.oracle.stop:
            return [1.0]
        return [1.0 if self.oracle.converged(np.array(arg[0]).ravel()) else 0.0]


def _solve_nlp(oracle: _Oracle, w0: np.ndarray, lower: np.ndarray, upper: np.ndarray,
               n_g: int, settings: _Settings) -> tuple[np.ndarray, dict]:
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
        with _captured_stderr(not settings.verbose) as captured:
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
            "solver_messages": _last_messages(captured[0]), "oracle": oracle}
    return w, info


_TERMINAL: list = []  # the terminal's stderr while the solvers' output is captured


@contextlib.contextmanager
def _captured_stderr(enabled: bool):
    """Keep what SUNDIALS (file descriptor 2) and CasADi (Python's ``sys.stderr``) print while
    IPOPT runs off the terminal: failed integrations at trial points are expected and handled
    (IPOPT cuts its step back). Yields a list whose item is the captured text afterwards."""
    text = [""]
    if not enabled:
        yield text
        return
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        yield text
        return
    python_stderr = sys.stderr
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        terminal = os.fdopen(os.dup(saved), "w")
        buffer = io.StringIO()
        sys.stderr = buffer
        _TERMINAL.append(terminal)
        try:
            yield text
        finally:
            _TERMINAL.pop()
            sys.stderr = python_stderr
            terminal.close()
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            text[0] = buffer.getvalue() + tmp.read().decode("utf-8", "replace")


@contextlib.contextmanager
def _terminal_stderr():
    """Inside :func:`_captured_stderr`: write to the terminal (the progress display)."""
    if not _TERMINAL:
        yield
        return
    captured = sys.stderr
    sys.stderr = _TERMINAL[-1]
    try:
        yield
    finally:
        sys.stderr.flush()
        sys.stderr = captured


def _last_messages(text: str, limit: int = 3) -> list[str]:
    """The last distinct integrator messages in captured solver output (for error messages)."""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if ("CVode" in line or "IDA" in line or "At t =" in line) and line not in found:
            found.append(line[:200])
    return found[-limit:]


# --------------------------------------------------------------------------------------------
# statistics
# --------------------------------------------------------------------------------------------

def _gauss_newton_step(ev: _Evaluation) -> np.ndarray | None:
    """The full constrained Gauss-Newton step from the point of ``ev``: the solution of
    ``min |r + J d|^2`` subject to ``g + G d = 0`` (least-norm where not unique)."""
    n_w, n_g = ev.jr.shape[1], ev.jg.shape[0]
    kkt = np.zeros((n_w + n_g, n_w + n_g))
    kkt[:n_w, :n_w] = ev.jr.T @ ev.jr
    kkt[:n_w, n_w:] = ev.jg.T
    kkt[n_w:, :n_w] = ev.jg
    rhs = -np.concatenate([ev.jr.T @ ev.r, ev.g])
    try:
        solution = np.linalg.lstsq(kkt, rhs, rcond=1e-13)[0]
    except np.linalg.LinAlgError:
        return None
    return solution[:n_w]


def _covariance(jr: np.ndarray, jg: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(M, reduced eigenvalues): ``M`` the top-left block of the inverse KKT matrix of the
    linearised constrained least-squares problem (= (J^T J)^-1 without constraints), the
    inverse of the Gauss-Newton Hessian reduced to the null space of the constraints; NaN
    rows/columns for directions that the data do not determine."""
    from scipy.linalg import null_space

    n_w = jr.shape[1]
    basis = null_space(jg) if jg.shape[0] else np.eye(n_w)
    reduced = basis.T @ (jr.T @ jr) @ basis
    values, vectors = np.linalg.eigh(reduced)
    top = max(values.max(initial=0.0), 1e-300)
    good = values > RANK_TOLERANCE * top
    inverse = (vectors[:, good] / values[good]) @ vectors[:, good].T
    cov = basis @ inverse @ basis.T
    if not good.all():
        # directions without information: infinite variance for every unknown they touch
        weak = basis @ vectors[:, ~good]
        touched = np.abs(weak).max(axis=1) > 1e-8
        cov[touched, :] = np.nan
        cov[:, touched] = np.nan
    return cov, values


# --------------------------------------------------------------------------------------------
# result
# --------------------------------------------------------------------------------------------

class IdentificationResult:
    """What :func:`identify` found.

    ``estimates``, ``std`` (standard deviations) and ``initial_guess``: dicts by parameter name;
    ``covariance`` and ``correlation``: arrays in the order of ``parameters``; ``residuals``,
    ``fitted`` and ``measured``: ``{experiment name: {signal: array}}`` over ``times[name]``
    (residual = measured - fitted); ``initial_states``: ``{experiment: {state: value}}`` (with
    ``initial_state_std`` when estimated); ``s2``: the weighted residual variance
    ``sum w r^2 / dof``; ``sigma_known``: whether the covariance used the given sigmas (True)
    or ``s2`` (False); ``converged``, ``status`` (IPOPT's return status), ``message`` (why a
    result is doubtful, or ""), ``iterations``, ``history`` (cost per iteration), ``seconds``.
    """

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        state = "converged" if self.converged else "NOT converged"
        return (f"<IdentificationResult of {self.model_name}: {len(self.parameters)} "
                f"parameters, {state}, cost {self.cost:.4g}>")

    def __str__(self) -> str:
        lines = []
        if self.status == STEP_CONVERGED:
            state = (f"converged (Gauss-Newton step < {self.step_tol:g} standard deviations)")
        elif self.converged:
            state = f"converged (IPOPT: {self.status})"
        else:
            state = f"did NOT converge (IPOPT: {self.status})"
        lines.append(f"Identification of {self.model_name}: {state} after {self.iterations} "
                     f"iterations, {self.seconds:.2f} s")
        shooting = (f"multiple shooting, {self.intervals} intervals per experiment"
                    if self.method == "multiple_shooting" else "single shooting")
        if self.sensitivities == "finite differences":
            shooting += " (hybrid simulation, finite-difference sensitivities)"
        lines.append(f"{shooting}; {len(self.times)} experiment(s), {self.n_residuals} "
                     f"residuals, {self.n_estimated} estimated unknowns")
        if self.message:
            lines.append(f"note: {self.message}")
        width = max(len(n) for n in self.parameters + ["parameter"])
        lines.append("")
        lines.append(f"{'parameter':<{width}}  {'estimate':>12}  {'std. dev.':>10}  "
                     f"{'rel. %':>7}  {'initial':>11}  unit")
        for n in self.parameters:
            est, sd = self.estimates[n], self.std[n]
            rel = abs(sd / est) * 100 if est != 0 and np.isfinite(sd) else float("nan")
            mark = "  (at a bound)" if n in self.at_bounds else ""
            lines.append(f"{n:<{width}}  {est:>12.6g}  {sd:>10.3g}  {rel:>7.3g}  "
                         f"{self.initial_guess[n]:>11.4g}  {self.units.get(n, '')}{mark}")
        for run_name, values in self.initial_states.items():
            sds = self.initial_state_std.get(run_name, {})
            for state, value in values.items():
                if state in sds:
                    lines.append(f"{run_name}: initial {state} = {value:.6g} +- {sds[state]:.3g}")
        basis = ("the given sigmas (s^2 taken as 1)" if self.sigma_known
                 else "s^2 estimated from the residuals")
        lines.append(f"standard deviations: s^2 (J^T W J)^-1 with {basis}; s^2 = "
                     f"{self.s2:.4g} (dof {self.dof})")
        if len(self.parameters) > 1:
            lines.append("correlation:")
            short = [f"[{k}]" for k in range(len(self.parameters))]
            lines.append(" " * (width + 6) + "".join(f"{s:>8}" for s in short))
            for k, n in enumerate(self.parameters):
                row = "".join(f"{c:>8.3f}" for c in self.correlation[k])
                lines.append(f"{short[k]:>4}  {n:<{width}}{row}")
        lines.append("fit (RMS of measured - fitted):")
        for run_name, signals in self.residuals.items():
            for s, res in signals.items():
                span = float(np.ptp(self.measured[run_name][s]))
                rms = float(np.sqrt(np.mean(res**2)))
                share = f" ({100 * rms / span:.3g} % of range)" if span > 0 else ""
                unit = self.signal_units.get(s, "")
                rho = self.residual_autocorrelation[run_name][s]
                lines.append(f"  {run_name}: {s}  {rms:.4g} {unit}{share}, residual "
                             f"autocorrelation {rho:.2f}")
        return "\n".join(lines)

    def table(self):
        """The estimates as a pandas DataFrame (estimate, std, relative std, initial guess,
        lower and upper bound, unit) indexed by parameter name."""
        import pandas as pd

        return pd.DataFrame(
            {"estimate": [self.estimates[n] for n in self.parameters],
             "std": [self.std[n] for n in self.parameters],
             "rel_std": [abs(self.std[n] / self.estimates[n]) if self.estimates[n] else np.nan
                         for n in self.parameters],
             "initial": [self.initial_guess[n] for n in self.parameters],
             "lower": [self.bounds[n][0] for n in self.parameters],
             "upper": [self.bounds[n][1] for n in self.parameters],
             "unit": [self.units.get(n, "") for n in self.parameters]},
            index=pd.Index(self.parameters, name="parameter"))

    def simulate(self, experiment: int | str = 0, **options: Any):
        """Simulate one experiment (by index or name) with the estimated parameters (and
        initial states, where estimated) and its own known parameters and start values, from
        its start time over its sample times (when that starts before the first sample, the
        Solution starts there too); options as for :func:`acausal.run.simulate`."""
        from ..run.simulate import simulate_compiled

        names = list(self.times)
        if isinstance(experiment, int) and not isinstance(experiment, bool):
            if not -len(names) <= experiment < len(names):
                raise InputError(f"No experiment {experiment}: there are {len(names)}.")
            key = names[experiment]
        else:
            key = experiment
        if key not in self.times:
            raise InputError(f"No experiment '{key}'; the experiments are "
                             f"{', '.join(names)}.")
        params = dict(self._run_params[key])
        params.update(self.estimates)
        start = dict(self._run_start[key])
        start.update(self.initial_states_estimated.get(key, {}))
        t, t0 = self.times[key], self._run_t0[key]
        options.setdefault("t_eval", t if t0 == t[0] else np.concatenate([[t0], t]))
        options.setdefault("t_start", t0)
        return simulate_compiled(self.compiled, float(t[-1]), params=params, start=start,
                                 **options)

    def plot(self, path: Any = None, *, residuals: bool = True, experiments: Any = None):
        """Measured (dots) and fitted (line) values of every signal of every experiment, one
        panel each, with the residuals beside them (``residuals=False``: without). ``path``:
        save the figure there (PNG, PDF, ...; no window) and return it; otherwise a pyplot
        figure. ``experiments``: names or indices to show (default all). Returns the Figure."""
        try:
            import matplotlib  # noqa: F401 - only whether it is installed
        except ImportError as exc:  # pragma: no cover
            raise AcausalError("plot() needs matplotlib: pip install 'acausal[plot]'.") from exc
        names = list(self.times)
        if experiments is not None:
            chosen = [names[e] if isinstance(e, int) else e for e in experiments]
            for c in chosen:
                if c not in self.times:
                    raise InputError(f"No experiment '{c}'; the experiments are "
                                     f"{', '.join(names)}.")
            names = chosen
        panels = [(e, s) for e in names for s in self.measured[e]]
        n_cols = 2 if residuals else 1
        size = (11 if residuals else 8, 2.3 * len(panels) + 0.8)
        if path is not None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            fig = Figure(figsize=size, layout="constrained")
            FigureCanvasAgg(fig)
        else:
            import matplotlib.pyplot as plt

            fig = plt.figure(figsize=size, layout="constrained")
        widths = [3, 1.3] if residuals else [1]
        axes = fig.subplots(len(panels), n_cols, squeeze=False, width_ratios=widths)
        for row, (e, s) in enumerate(panels):
            t = self.times[e]
            unit = self.signal_units.get(s, "")
            ax = axes[row, 0]
            ax.plot(t, self.measured[e][s], ".", ms=2.5, color="0.55", label="measured")
            ax.plot(t, self.fitted[e][s], "-", lw=1.3, color="C0", label="fitted")
            ax.set_ylabel(f"{s}\n[{unit}]" if unit else s, fontsize="small")
            ax.set_title(e, fontsize="small", loc="left")
            ax.grid(True, alpha=0.3)
            if row == 0:
                ax.legend(fontsize="small", loc="best")
            if residuals:
                rax = axes[row, 1]
                rax.plot(t, self.residuals[e][s], ".", ms=2, color="C3")
                rax.axhline(0.0, color="k", lw=0.6)
                rax.set_title("measured - fitted", fontsize="small", loc="left")
                rax.grid(True, alpha=0.3)
        for ax in axes[-1]:
            ax.set_xlabel("time [s]")
        fig.suptitle(f"identification of {self.model_name}")
        if path is not None:
            fig.savefig(path, dpi=100)
        return fig


# --------------------------------------------------------------------------------------------
# identify
# --------------------------------------------------------------------------------------------

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
    any integration.
    """
    started = _time.perf_counter()
    if isinstance(system, Component):
        cs = system.compile()
    elif isinstance(system, CompiledModel):
        cs = system
    else:
        raise InputError(f"identify() takes a Component instance or a CompiledSystem, got "
                         f"{system!r:.80}.")
    if isinstance(experiments, (Experiment, Mapping)) or _is_dataframe(experiments):
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
    if isinstance(intervals, bool) or not isinstance(intervals, (int, np.integer)) \
            or intervals < 1:
        raise InputError(f"intervals must be a whole number >= 1, got {intervals!r}.")
    for name, value in (("rtol", rtol), ("atol", atol), ("tol", tol), ("step_tol", step_tol)):
        if not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0:
            raise InputError(f"{name} must be a positive number, got {value!r}.")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 0:
        raise InputError(f"max_iter must be a whole number >= 0, got {max_iter!r}.")
    if ipopt_options is not None and not isinstance(ipopt_options, dict):
        raise InputError(f"ipopt_options must be a dict, got {ipopt_options!r}.")
    if threads is None:
        threads = 2
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise InputError(f"threads must be a whole number >= 1, got {threads!r}.")

    theta = _parameter_spec(cs, parameters, bounds)
    runs = [_prepare_run(cs, e, k) for k, e in enumerate(experiments)]
    seen: set[str] = set()
    for run in runs:
        if run.name in seen:
            raise InputError(f"Two experiments are named '{run.name}': give each its own name.")
        seen.add(run.name)
    free_x0 = _free_initial_states(cs, estimate_initial_states)
    if free_x0 and events:
        raise InputError("estimate_initial_states is not available for models with events "
                         "(fitted through acausal's simulation): give the initial values as "
                         "start values of each experiment instead.")
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
        _initialise(cs, run)

    label = f"identify {cs.model_name}"
    bar = ProgressBar(label, float(max_iter), progress_enabled(progress), unit="iterations")
    settings = _Settings(hessian=hessian, max_iter=int(max_iter), tol=float(tol),
                         verbose=bool(verbose), ipopt_options=dict(ipopt_options or {}),
                         bar=bar, label=label, step_tol=float(step_tol),
                         gap_tol=1e3 * max(rtol, atol),
                         sigma_known=all(run.known_sigma for run in runs))
    if events:
        evaluator = _HybridSingleShooting(
            cs, runs, theta, rtol, atol, math.sqrt(rtol) if fd_step is None else fd_step)
        w0 = np.ones(len(theta.names))
        w_opt, info, rounds = _fit(evaluator, w0, theta, None, settings)
    else:
        n_intervals = 1 if method == "single_shooting" else int(intervals)
        evaluator = _Shooting(cs, runs, theta, n_intervals, free_x0, rtol, atol, threads)
        w0 = _initial_point(cs, evaluator, runs, theta)
        w_opt, info, rounds = _fit(evaluator, w0, theta, runs, settings)
    with _captured_stderr(not verbose):
        final = info["oracle"].at(w_opt, True)  # cached: IPOPT's last Jacobian is at w_opt
    bar.close("stopped" if info["interrupted"] else
              ("converged" if info["success"] else info["status"]))
    return _result(cs, runs, theta, evaluator, w_opt, final, info, method, intervals, free_x0,
                   events, rounds, _time.perf_counter() - started, step_tol)


@dataclass
class _Settings:
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


def _is_dataframe(value: Any) -> bool:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return False
    return isinstance(value, pd.DataFrame)


def _free_initial_states(cs: CompiledModel, option: bool | Sequence[str]) -> list[int]:
    if option is False or option is None:
        return []
    if option is True:
        return list(range(cs.n_states))
    if isinstance(option, str):
        option = [option]
    names = cs.state_names
    out = []
    for name in option:
        if name not in names:
            raise InputError(f"estimate_initial_states: '{name}' is not a state of "
                             f"{cs.model_name} (states: {', '.join(names)})."
                             f"{did_you_mean(name, names)}")
        out.append(names.index(name))
    return sorted(set(out))


def _initialise(cs: CompiledModel, run: _Run) -> None:
    try:
        with cs.start_values(run.start):
            init = initialize(cs, run.p, run.t0)
    except AcausalError as err:
        raise type(err)(f"Experiment '{run.name}': {err}") from None
    run.x0, run.z0 = np.asarray(init.x0, float), np.asarray(init.z0, float)


def _initial_point(cs: CompiledModel, ev: _Shooting, runs: list[_Run], theta: _Theta
                   ) -> np.ndarray:
    """Nominal values, start of the NLP and algebraic guesses from a simulation at the initial
    guess (acausal's simulate); the cuts of measured states start at the measured values."""
    from ..run.simulate import simulate_compiled
    from ..run.sundials import nominal_values

    w0 = np.zeros(ev.n_w)
    w0[: ev.n_theta] = 1.0
    guess = dict(zip(theta.names, theta.guess.tolist()))
    x0_scaled, nominals, z_nominals, z_guesses = [], [], [], []
    for e, run in enumerate(runs):
        grid = run.t if run.t0 == run.t[0] else np.concatenate([[run.t0], run.t])
        offset = grid.size - run.t.size
        xs = zs = None
        if grid.size > 1:
            try:
                sol = simulate_compiled(cs, float(grid[-1]), t_start=float(grid[0]),
                                        t_eval=grid, params={**run.params, **guess},
                                        start=run.start, progress=False)
                xs, zs = np.asarray(sol.x, float), np.asarray(sol.z, float)
                if xs.shape[1] != grid.size or not np.all(np.isfinite(xs)):
                    xs = zs = None
            except AcausalError:
                xs = zs = None
        if xs is None:
            warnings.warn(f"Experiment '{run.name}': the model could not be simulated at the "
                          "initial guess; the shooting intervals start from the initial state.",
                          IdentificationWarning, stacklevel=3)
            xs = np.tile(run.x0.reshape(-1, 1), (1, grid.size))
            zs = np.tile(run.z0.reshape(-1, 1), (1, grid.size))
        xs = xs[:, offset:] if grid.size > run.t.size else xs
        zs = zs[:, offset:] if grid.size > run.t.size else zs
        base, _ = nominal_values(cs, run.x0, run.z0)
        measured_states = _measured_states(cs, run)
        rates = _measured_rates(cs, measured_states)
        x_nominal = base[: ev.n_x].copy()
        for i in range(ev.n_x):
            size = max(np.abs(xs[i]).max(initial=0.0), abs(run.x0[i]))
            if i in measured_states:
                col, sign = measured_states[i]
                size = max(size, np.abs(run.y[:, col]).max())
            if size > 0:
                x_nominal[i] = size
        z_nominal = base[ev.n_x:].copy()
        for i in range(ev.n_z):
            size = np.abs(zs[i]).max(initial=0.0)
            if size > 0:
                z_nominal[i] = size
        nominals.append(x_nominal)
        z_nominals.append(z_nominal)
        x0_scaled.append(run.x0 / x_nominal)
        cuts = ev.cuts[e]
        guesses = []
        for k in range(cuts.size - 1):
            a = cuts[k]
            z_at = run.z0 if k == 0 else zs[:, a]
            guesses.append(z_at / z_nominal if ev.n_z else np.zeros(0))
            if k == 0:
                cols = ev.node_cols[e][0]
                free = cols >= 0
                w0[cols[free]] = run.x0[free] / x_nominal[free]
                continue
            node = xs[:, a].copy()
            for i, (col, sign) in measured_states.items():
                node[i] = sign * run.y[a, col]
            for j, (col, sign) in rates.items():
                node[j] = sign * _smoothed_derivative(run.t, run.y[:, col], a)
            w0[ev.node_cols[e][k]] = node / x_nominal
        z_guesses.append(guesses)
    ev.set_point(x0_scaled, nominals, z_nominals, z_guesses)
    return w0


def _measured_rates(cs: CompiledModel, measured: dict[int, tuple[int, float]]
                    ) -> dict[int, tuple[int, float]]:
    """{state position j: (signal column, sign)} for unmeasured states that are the time
    derivative of a measured state (``der(mass.s) = mass.v``): their shooting nodes start at
    the smoothed derivative of the data."""
    out = {}
    for i, (col, sign) in measured.items():
        for j in range(cs.n_states):
            if j in measured or j in out:
                continue
            if ca.is_equal(cs.ode[i], cs.x[j], 1):
                out[j] = (col, sign)
            elif ca.is_equal(-cs.ode[i], cs.x[j], 2):
                out[j] = (col, -sign)
    return out


def _smoothed_derivative(t: np.ndarray, y: np.ndarray, k: int) -> float:
    """The slope at sample ``k`` of a least-squares quadratic through the samples around it
    (a Savitzky-Golay estimate: 1 % of the samples, at least 3, either side)."""
    half = max(3, t.size // 100)
    lo, hi = max(0, k - half), min(t.size, k + half + 1)
    if hi - lo < 3:
        return 0.0
    tau = t[lo:hi] - t[k]
    coefficients = np.polyfit(tau, y[lo:hi], 2)
    return float(coefficients[1])


def _measured_states(cs: CompiledModel, run: _Run) -> dict[int, tuple[int, float]]:
    """{state position: (signal column, sign)} for signals that are (+-) a state."""
    position = {v: i for i, v in enumerate(cs.states)}
    out = {}
    for col, s in enumerate(run.signals):
        sign, index = cs.locate(s)
        if index in position and position[index] not in out:
            out[position[index]] = (col, float(sign))
    return out


def _fit(evaluator, w0: np.ndarray, theta: _Theta, runs: list[_Run] | None,
         settings: _Settings) -> tuple[np.ndarray, dict, int]:
    """IPOPT from ``w0``; for shooting, again from the solution while the initial states that
    acausal's initialisation computes at the estimates differ from those used."""
    lower = np.full(w0.size, -np.inf)
    upper = np.full(w0.size, np.inf)
    n = len(theta.names)
    lower[:n] = theta.lower / theta.scale
    upper[:n] = theta.upper / theta.scale
    with _captured_stderr(not settings.verbose) as captured:
        first = _Oracle(evaluator, 1.0).at(w0, False)
    if not np.all(np.isfinite(first.r)):
        said = _last_messages(captured[0])
        raise SimulationError(
            "The model cannot be integrated over the experiments at the initial guess (NaN "
            "or a solver failure"
            + (f": {said[-1]}" if said else "") + "); check the initial guess, the "
            "experiments' params and start values, or simulate one experiment to see where "
            "it fails.")
    cost0 = float(first.r @ first.r)
    oracle = _Oracle(evaluator, 1.0 / cost0 if cost0 > 0 else 1.0)
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


def _result(cs, runs, theta, evaluator, w, final, info, method, intervals, free_x0, events,
            rounds, seconds, step_tol) -> IdentificationResult:
    n = len(theta.names)
    n_r = final.r.size
    n_estimated = evaluator.n_w - evaluator.n_g
    dof = max(n_r - n_estimated, 1)
    ssr = float(final.r @ final.r)
    s2 = ssr / dof
    sigma_known = all(run.known_sigma for run in runs)
    messages = []
    if final.jr is not None and np.all(np.isfinite(final.jr)):
        cov_w, _ = _covariance(final.jr, final.jg)
    else:
        cov_w = np.full((evaluator.n_w, evaluator.n_w), np.nan)
        messages.append("the Jacobian at the estimates is not finite: no standard deviations")
    factor = 1.0 if sigma_known else s2
    cov_w = cov_w * factor
    scale = theta.scale
    cov = cov_w[:n, :n] * np.outer(scale, scale)
    std = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    std = np.where(np.isnan(np.diag(cov)), np.nan, std)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(std, std)
    estimates = scale * w[:n]
    unidentified = [theta.names[k] for k in range(n) if not np.isfinite(std[k])]
    if unidentified:
        messages.append("the data do not determine " + ", ".join(unidentified)
                        + " (singular Gauss-Newton Hessian): measure signals that depend on "
                        "them, fix them, or add an experiment that excites them")
    span = theta.upper - theta.lower
    at_bounds = [theta.names[k] for k in range(n)
                 if (np.isfinite(theta.lower[k]) and estimates[k] - theta.lower[k]
                     <= 1e-6 * max(abs(estimates[k]), np.nan_to_num(span[k], posinf=1.0)))
                 or (np.isfinite(theta.upper[k]) and theta.upper[k] - estimates[k]
                     <= 1e-6 * max(abs(estimates[k]), np.nan_to_num(span[k], posinf=1.0)))]
    if at_bounds:
        messages.append(", ".join(at_bounds) + " ended on a bound: the standard deviation "
                        "there is not meaningful; widen the bound or check the model")
    autocorrelation = {}
    misfits = []
    for run, model in zip(runs, final.fitted):
        autocorrelation[run.name] = {}
        for i, sig in enumerate(run.signals):
            rho = _lag1_autocorrelation(run.y[:, i] - model[:, i])
            autocorrelation[run.name][sig] = rho
            if rho > MISFIT_AUTOCORRELATION:
                misfits.append(f"{run.name}: {sig} ({rho:.2f})")
    if misfits:
        messages.append(
            "the residuals of " + ", ".join(misfits) + " are strongly correlated in time "
            "(lag-1 autocorrelation): the model does not follow these data (a local minimum, "
            "a wrong model or input, or correlated noise); the standard deviations assume "
            "independent noise. Look at result.plot(); try another initial guess")
    converged = bool(info["success"]) and not info["interrupted"]
    if info["interrupted"]:
        messages.insert(0, "stopped by the user (Ctrl-C): the estimates are those of the last "
                        "iteration")
    elif not converged:
        messages.insert(0, f"IPOPT did not converge ({info['status']}): the estimates are those "
                        "of its last iterate; try a better initial guess, more intervals, "
                        "bounds, or max_iter")
    message = "; ".join(messages)
    if message:
        warnings.warn(f"identify({cs.model_name}): {message}.", IdentificationWarning,
                      stacklevel=3)
    times, measured, fitted, residuals = {}, {}, {}, {}
    for run, model in zip(runs, final.fitted):
        times[run.name] = run.t
        measured[run.name] = {s: run.y[:, i] for i, s in enumerate(run.signals)}
        fitted[run.name] = {s: model[:, i] for i, s in enumerate(run.signals)}
        residuals[run.name] = {s: run.y[:, i] - model[:, i] for i, s in enumerate(run.signals)}
    initial_states, initial_std, estimated_x0 = {}, {}, {}
    names = cs.state_names
    for e, run in enumerate(runs):
        if events:
            break
        x0 = evaluator.node(w, e, 0) * evaluator.nominal[e]
        initial_states[run.name] = dict(zip(names, x0.tolist()))
        cols = evaluator.x0_cols[e]
        if free_x0:
            sd = {names[i]: float(np.sqrt(max(cov_w[cols[i], cols[i]], 0.0))
                                  * evaluator.nominal[e][i]) for i in free_x0}
            initial_std[run.name] = sd
            estimated_x0[run.name] = {names[i]: float(x0[i]) for i in free_x0}
    units = {}
    declared = {prm.name: prm.unit for prm in cs.flat.parameters}
    units = {nm: declared.get(nm) or "" for nm in theta.names}
    signal_units = {}
    variable_units = {v.name: v.unit for v in cs.flat.variables}
    for run in runs:
        for s in run.signals:
            signal_units[s] = variable_units.get(s) or _alias_unit(cs, s, variable_units)
    return IdentificationResult(
        model_name=cs.model_name, compiled=cs, parameters=list(theta.names),
        estimates=dict(zip(theta.names, estimates.tolist())),
        std=dict(zip(theta.names, std.tolist())), covariance=cov, correlation=corr,
        initial_guess=dict(zip(theta.names, theta.guess.tolist())),
        bounds={nm: (float(lo), float(hi)) for nm, lo, hi in
                zip(theta.names, theta.lower, theta.upper)},
        units=units, signal_units=signal_units, at_bounds=at_bounds, times=times,
        measured=measured, fitted=fitted, residuals=residuals, initial_states=initial_states,
        initial_state_std=initial_std, initial_states_estimated=estimated_x0,
        cost=0.5 * ssr, s2=s2, dof=dof, n_residuals=n_r, n_estimated=n_estimated,
        sigma_known=sigma_known, converged=converged, status=info["status"], message=message,
        iterations=info["iterations"], history=info["history"], interrupted=info["interrupted"],
        method=method, intervals=int(intervals) if method == "multiple_shooting" else 1,
        sensitivities="finite differences" if events else "CVODES/IDAS forward sensitivities",
        reinitializations=rounds, seconds=seconds, step_tol=step_tol,
        residual_autocorrelation=autocorrelation,
        _run_params={run.name: dict(run.params) for run in runs},
        _run_start={run.name: dict(run.start) for run in runs},
        _run_t0={run.name: run.t0 for run in runs})


def _lag1_autocorrelation(residual: np.ndarray) -> float:
    r = residual - residual.mean()
    denominator = float(r @ r)
    return float(r[1:] @ r[:-1]) / denominator if r.size > 2 and denominator > 0 else 0.0


def _alias_unit(cs: CompiledModel, name: str, units: dict) -> str:
    """The unit of a variable that is known under another name (an alias, a derivative)."""
    if name.startswith("der(") and name.endswith(")"):
        from ..run.solution import per_second

        inner = units.get(name[4:-1])
        return per_second(inner) if inner else ""
    sign, index = cs.locate(name)
    if index >= 0:
        return units.get(cs.system.name(index)) or ""
    return ""
