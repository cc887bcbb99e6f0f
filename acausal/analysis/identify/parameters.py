"""What is estimated: the parameters (:class:`Theta`: names, positions in the parameter vector,
initial guess, scale and bounds, checked against the model's declarations) and the states whose
initial values are estimated too."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...base.errors import InputError, ParameterError, did_you_mean
from ...compiler.compiled_model import CompiledModel


@dataclass
class Theta:
    """The estimated parameters: ``theta = scale * w[:n]`` with ``w`` the NLP's unknowns."""

    names: list[str]
    index: np.ndarray  # positions in the parameter vector
    guess: np.ndarray
    scale: np.ndarray  # theta = scale * theta_scaled
    lower: np.ndarray
    upper: np.ndarray
    units: list[str]


def parameter_spec(cs: CompiledModel, parameters: Any, bounds: Any) -> Theta:
    """The estimated parameters (``parameters`` and ``bounds`` as given to identify) checked
    against the model's declarations, with their initial guess, scale and bounds."""
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
    return Theta(names, np.array([index[n] for n in names], dtype=int), guess, scale, lower,
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


def free_initial_states(cs: CompiledModel, option: bool | Sequence[str]) -> list[int]:
    """Positions of the states whose initial values are estimated
    (``estimate_initial_states`` as given to identify)."""
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
