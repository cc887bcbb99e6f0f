"""The experiments of a fit: an :class:`Experiment` as the user gives it (data, known
parameters, start values, noise levels), checked and prepared into a :class:`Run` (sample
times, measured values, square-root weights, parameter vector and initial state)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...base.errors import AcausalError, InputError, UnknownNameError, did_you_mean
from ...compiler.compiled_model import CompiledModel
from ...run.initialize import initialize


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
class Run:
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


def prepare_run(cs: CompiledModel, experiment: Any, index: int, unknowns: int = 0) -> Run:
    """``experiment`` (an Experiment, or data taken as one) checked against the model and
    prepared: sample times, signals, weights; named in messages as given or by ``index``
    (``unknowns``: how many the fit estimates, quoted when the data are too few)."""
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
    arrays = [_as_array(columns[s], f"{label}: signal '{s}'") for s in signals]
    for s, values in zip(signals, arrays):
        if values.size != t.size:
            raise InputError(f"{label}: signal '{s}' has {values.size} values for {t.size} "
                             "sample times; give one value per sample time (the same length "
                             "as the times).")
    y = np.column_stack(arrays)
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
            if n == 1:  # no range to weight by, and not "constant": one value
                needed = (f" (this fit estimates {unknowns} parameter(s), so it needs at least "
                          f"{unknowns} measured value(s), samples x signals, over all "
                          "experiments)" if unknowns else "")
                raise InputError(
                    f"{label} has one sample (t = {t[0]:g}), so signal '{s}' has no range to "
                    "weight it by (without sigma= a signal is weighted by 1/range^2 of its "
                    "data). Give at least two samples per signal, and at least as many measured "
                    f"values as the fit has unknowns{needed}; or, to fit one sample, give its "
                    f"noise level with sigma={{'{s}': ...}}.")
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
    return Run(name, t, signals, y, sqrt_w, len(sigma) == len(signals),
               dict(experiment.params or {}), dict(experiment.start or {}), t0)


def is_dataframe(value: Any) -> bool:
    """Whether ``value`` is a pandas DataFrame (False without pandas)."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return False
    return isinstance(value, pd.DataFrame)


def initialise(cs: CompiledModel, run: Run) -> None:
    """The initial state of a run (``run.x0``, ``run.z0``) by acausal's initialisation with its
    start values and parameter vector; errors name the experiment."""
    try:
        with cs.start_values(run.start):
            init = initialize(cs, run.p, run.t0)
    except AcausalError as err:
        raise type(err)(f"Experiment '{run.name}': {err}") from None
    run.x0, run.z0 = np.asarray(init.x0, float), np.asarray(init.z0, float)
