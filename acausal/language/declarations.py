"""Declarations of variables and parameters, and what they become when a model is bound.

``Variable`` (``Potential``, ``Flow``, ``Discrete``), ``Parameter`` and ``Input`` are the
templates a component class declares; binding turns each into a ``BoundVariable`` or
``BoundParameter`` with its sympy symbol(s), which the compiler collects.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from ..base.errors import ModelDefinitionError, ParameterError
from .symbolic import real_symbol

MISSING = object()  # "not given" where None is a meaningful value


# --------------------------------------------------------------------------------------------
# Declarations of variables and parameters
# --------------------------------------------------------------------------------------------


class Variable:
    """Declaration of a time-varying unknown.

    Parameters
    ----------
    start:
        Start value. A guess for initialisation unless ``fixed=True``; for a state that nothing
        else determines it is also the initial value (Modelica semantics).
    fixed:
        If True the start value is a hard initial condition.
    guess:
        Initial guess for the initialisation solver only (never an initial condition).
    unit:
        The unit in Modelica's syntax (``"m/s"``, ``"N.m"``, ``"1"``), checked by the compiler
        (docs/user_guide.md, "Units"); None: unknown. A vector may give one per element,
        ``("N", "N", "N.m")``.
    description:
        Documentation.
    state_priority:
        Preference for this variable to become a state when index reduction has to choose
        (higher is more preferred; default 0; Multibody.jl's joints use 10).
    shape:
        ``()`` for a scalar (default) or ``(n,)`` for an n-vector (a sympy column Matrix).
    nominal:
        Typical magnitude (Modelica's ``nominal``), in the variable's unit: the solvers scale the
        variable by it and its absolute tolerance is ``atol * nominal``. When not given it is
        derived from the start and initial values (see ``acausal.run.sundials.nominal_values``).
    """

    _FIELDS = ("start", "fixed", "guess", "unit", "description", "state_priority", "shape",
               "nominal")
    kind = "variable"

    def __init__(
        self,
        start: Any = None,
        *,
        fixed: bool | None = None,
        guess: Any = None,
        unit: str | tuple | None = None,
        description: str | None = None,
        state_priority: float | None = None,
        shape: int | tuple[int, ...] | None = None,
        nominal: float | None = None,
    ) -> None:
        if isinstance(shape, int):
            shape = (shape,)
        values = dict(start=start, fixed=fixed, guess=guess, unit=unit, description=description,
                      state_priority=state_priority, shape=shape, nominal=nominal)
        self._given = {k: v for k, v in values.items() if v is not None}

    _DEFAULTS = dict(start=None, fixed=False, guess=None, unit=None, description="",
                     state_priority=0, shape=(), nominal=None)

    def get(self, field: str):
        """The effective value of a field (the declared one, else the default)."""
        return self._given.get(field, self._DEFAULTS[field])

    def merged(self, override: Any) -> Variable:
        """This declaration with the fields an override gives replaced (a number sets start)."""
        new = type(self).__new__(type(self))
        new._given = dict(self._given)
        if isinstance(override, Variable):
            new._given.update(override._given)
        else:
            new._given["start"] = override
        return new

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._given.items())
        return f"{type(self).__name__}({args})"


class Potential(Variable):
    """A connector variable that is equal across a connection (position, voltage, angle)."""

    kind = "potential"


class Flow(Variable):
    """A connector variable that sums to zero across a connection (force, current, torque).

    Sign convention: a flow is positive when it goes *into* the component through the connector.
    An unconnected flow is zero (Modelica semantics).
    """

    kind = "flow"


class Discrete(Variable):
    """A variable that is constant between events and changes only in event actions
    (Modelica ``discrete``). ``start`` is its value at the start time (default 0).

    For the continuous equations a discrete variable is a known input, like a parameter; it is
    changed by :func:`assign` in a :class:`When` clause.
    """

    kind = "discrete"


class Parameter:
    """Declaration of a constant of the model.

    Numeric parameters become symbols and are inputs of the compiled functions: changing one
    does not recompile. Parameters whose value is a bool, a string or None, or that are declared
    ``structural=True``, are plain Python values used while the model is built (e.g. whether a
    joint has a flange).
    """

    def __init__(self, default: Any = None, *, unit: str | tuple | None = None,
                 description: str = "",
                 structural: bool | None = None, min: float | None = None,
                 max: float | None = None, fixed: bool = True, min_exclusive: bool = False,
                 max_exclusive: bool = False) -> None:
        # min, max, fixed: Modelica's attribute names. min and max are inclusive, as Modelica's;
        # min_exclusive / max_exclusive make a bound strict (XML Schema's minExclusive): a
        # length or radius that a law divides by is Parameter(1e-3, min=0.0, min_exclusive=True)
        # ('> 0'), which Modelica can only say with an assert.
        for flag, bound, what in ((min_exclusive, min, "min"), (max_exclusive, max, "max")):
            if flag and bound is None:
                raise ModelDefinitionError(
                    f"Parameter({default!r}, {what}_exclusive=True) has no {what}: give the bound "
                    f"that is excluded, e.g. {what}=0.0.")
        self.default = default
        self.unit = unit
        self.description = description
        if structural is None:
            structural = default is None or isinstance(default, (bool, str))
        self.structural = structural
        self.min = min
        self.max = max
        self.min_exclusive = bool(min_exclusive)
        self.max_exclusive = bool(max_exclusive)
        #: False: the value is a start guess; the parameter is computed at initialisation
        #: together with the initial values, from the model's initial equations or fixed
        #: start values (Modelica ``parameter Real L(fixed=false)``), and is a constant of
        #: the run
        self.fixed = bool(fixed)
        if not self.fixed and self.structural:
            raise ModelDefinitionError(
                f"Parameter({default!r}, fixed=False): a parameter computed at initialisation "
                "must be numeric (not structural: its value is only known once the model "
                "is initialised).")

    def bounds_text(self) -> str:
        """The admissible range as text, e.g. '>= 0' or '> 0' ('' when unbounded)."""
        return _range_text(self.min, self.max, self.min_exclusive, self.max_exclusive)

    def admits(self, value: float) -> bool:
        """Whether the number ``value`` lies within the declared bounds."""
        return _within(value, self.min, self.max, self.min_exclusive, self.max_exclusive)

    def __repr__(self) -> str:
        return f"Parameter({self.default!r}, unit={self.unit!r})"


class Input(Parameter):
    """A value given from outside the model at run time (Modelica ``input``).

    To the compiled functions an input is a numeric parameter (an entry of ``p``): a simulation
    holds it at its value (``params={name: value}`` changes it without recompiling), while
    :meth:`~acausal.CompiledSystem.linearize` takes it as a column of ``B``/``D`` and
    ``export_fmu`` declares it ``causality="input"``. Typical use: a torque or force source's
    value, ``u = Input(0.0, unit="N.m")`` with ``Eq(self.motor.tau, self.u)``.
    """

    def __init__(self, default: float = 0.0, *, unit: str | None = None,
                 description: str = "", min: float | None = None,
                 max: float | None = None, min_exclusive: bool = False,
                 max_exclusive: bool = False) -> None:
        super().__init__(float(default), unit=unit, description=description, structural=False,
                         min=min, max=max, min_exclusive=min_exclusive,
                         max_exclusive=max_exclusive)

    def __repr__(self) -> str:
        return f"Input({self.default!r}, unit={self.unit!r})"


def as_computed(decl: Any, marker: Parameter, full: str) -> Parameter:
    """A numeric parameter given as ``Parameter(guess, fixed=False)`` when its component is
    created (``SphericalSpherical(rod_length=Parameter(1.0, fixed=False))``, Modelica's
    modifier ``rodLength(fixed=false, start=1.0)``): the declaration with that guess, computed
    at initialisation. Only a numeric parameter can be."""
    if not isinstance(decl, Parameter) or decl.structural or isinstance(decl, Input):
        raise ModelDefinitionError(
            f"'{full}' is given as a Parameter(...) object, which only a numeric parameter "
            "can be (to make it fixed=False: computed at initialisation). Give a number, or "
            "declare a Parameter(..., fixed=False) in the enclosing model.")
    low = (decl.min, decl.min_exclusive) if marker.min is None else (marker.min,
                                                                      marker.min_exclusive)
    high = (decl.max, decl.max_exclusive) if marker.max is None else (marker.max,
                                                                      marker.max_exclusive)
    return Parameter(marker.default, unit=marker.unit or decl.unit,
                     description=marker.description or decl.description,
                     min=low[0], max=high[0], fixed=marker.fixed, min_exclusive=low[1],
                     max_exclusive=high[1])


def as_input(decl: Any, marker: Input, full: str) -> Input:
    """A variable or numeric parameter marked as an input when its component is created
    (``Torque(tau=Input())``, ``ConstantTorque(tau_constant=Input(2.0))``): it becomes an
    :class:`Input` with the declaration's unit. A connector, a part, a vector, a discrete or a
    connector (potential/flow) variable cannot be marked: they keep their role in connections
    and events."""
    if isinstance(decl, Parameter) and not decl.structural:
        unit, description = decl.unit, decl.description
    elif isinstance(decl, Variable) and decl.kind == "variable" and not decl.get("shape"):
        unit, description = decl.get("unit"), decl.get("description") or ""
    else:
        what = ("a vector variable" if isinstance(decl, Variable) and decl.get("shape") else
                f"a {decl.kind} variable" if isinstance(decl, Variable) else
                "a structural parameter" if isinstance(decl, Parameter) else
                "a part or connector")
        raise ModelDefinitionError(
            f"'{full}' is {what} and cannot be marked as an Input: only a plain scalar variable "
            "(a source's value such as Torque.tau or Force.f) or a numeric parameter can. Add an "
            "Input to the enclosing model and an equation that uses it.")
    return Input(marker.default, unit=marker.unit or unit,
                 description=marker.description or description, min=marker.min, max=marker.max)


def check_bounds(name: str, value: float, low: float | None, high: float | None,
                 description: str = "", *, low_exclusive: bool = False,
                 high_exclusive: bool = False) -> None:
    """Raise ParameterError when ``value`` lies outside the declared ``[low, high]`` (a bound
    excluded when ``low_exclusive``/``high_exclusive``).

    Declared bounds are the physically possible values of a parameter (Modelica's ``min`` and
    ``max`` attributes, e.g. a mass ``>= 0``): a value outside them is a mistake, not a model.
    """
    if _within(value, low, high, low_exclusive, high_exclusive):
        return
    what = f" ({description})" if description else ""
    raise ParameterError(f"Parameter '{name}'{what} is {value:g}, but it must be "
                         f"{_range_text(low, high, low_exclusive, high_exclusive)}: give a "
                         "value in that range.")


def _within(value: float, low: float | None, high: float | None, low_exclusive: bool = False,
            high_exclusive: bool = False) -> bool:
    above = low is None or (value > low if low_exclusive else value >= low)
    below = high is None or (value < high if high_exclusive else value <= high)
    return above and below


def _range_text(low: float | None, high: float | None, low_exclusive: bool = False,
                high_exclusive: bool = False) -> str:
    return " and ".join(([f"{'>' if low_exclusive else '>='} {low:g}"] if low is not None
                         else [])
                        + ([f"{'<' if high_exclusive else '<='} {high:g}"] if high is not None
                           else []))


def check_structural(value: Any, name: str, owner: str, decl: Parameter) -> None:
    # name: the parameter's full dotted name (rev.n); owner: the component ("Revolute 'rev'")
    """Check the value of a structural parameter that is (or should be) numeric: a number or a
    vector of numbers must be finite and within the declared bounds, and where the declared
    default is numeric a string is refused (``n=("a", 0, 1)``), naming the parameter.

    Structural numbers (joint axes, inertias, shapes) become constants of the equations, so a
    NaN would surface as an equation sympy evaluated to False, and a string as a ValueError
    from inside ``equations()``. Values of other types (a function, a part, a keyword) are the
    component's business and pass unchecked.
    """
    where = f"Parameter '{name}' of {owner}"
    default = decl.default
    numeric_default = _is_real(default) or (
        isinstance(default, (list, tuple, np.ndarray)) and len(default) > 0
        and all(_is_real(v) for v in np.asarray(default, dtype=object).ravel()))
    if isinstance(value, (str, bytes)):
        if numeric_default:
            raise ParameterError(f"{where} is a number{' vector' * (not _is_real(default))}, but "
                                 f"it was given the string {value!r}: give "
                                 f"{'a number' if _is_real(default) else 'numbers'}.")
        return
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(np.asarray(value, dtype=object).ravel()) if not any(
            isinstance(v, (list, tuple, np.ndarray)) for v in value) else _leaves(value)
        texts = [v for v in items if isinstance(v, (str, bytes))]
        if texts and (numeric_default or any(_is_real(v) for v in items)):
            raise ParameterError(f"{where} is a vector of numbers, but it was given "
                                 f"{_shown(value)}, which contains the string {texts[0]!r}: "
                                 "give numbers only.")
    elif _is_real(value):
        items = [value]
    else:
        return
    for k, item in enumerate(items):
        if not _is_real(item):
            continue
        number = float(item)
        label = name if len(items) == 1 and _is_real(value) else f"{name}[{k}]"
        if not math.isfinite(number):
            within = "" if _is_real(value) else f" in {_shown(value)}"
            raise ParameterError(f"{where} is not finite ({label} = {number!r}{within}): give "
                                 "a finite real number.")
        if not _within(number, decl.min, decl.max, decl.min_exclusive, decl.max_exclusive):
            what = f" ({decl.description})" if decl.description else ""
            shown = f"{label} = {number:g}" if label != name else f"{number:g}"
            raise ParameterError(
                f"Parameter '{name}'{what} of {owner} is {shown}, but it must be "
                f"{decl.bounds_text()}: give a value in that range.")


def _is_real(value: Any) -> bool:
    """A real number (not a bool, which is a structural switch)."""
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return False
    if isinstance(value, (int, float, np.integer, np.floating)):
        return True
    return isinstance(value, sp.Basic) and value.is_Number and value.is_real is True


def _leaves(value: Any) -> list:
    out: list = []
    for v in value:
        out.extend(_leaves(v) if isinstance(v, (list, tuple, np.ndarray)) else [v])
    return out


def _shown(value: Any) -> str:
    return repr(tuple(value)) if isinstance(value, np.ndarray) else repr(value)


# --------------------------------------------------------------------------------------------
# Bound items: what the compiler collects after binding
# --------------------------------------------------------------------------------------------


@dataclass
class BoundVariable:
    """A variable after binding: its full name, symbol(s) and merged declaration."""

    name: str
    value: Any  # sp.Symbol or sp.Matrix of symbols
    decl: Variable
    owner: Any  # the Component or Connector that declares it
    # Nesting depth of the component whose code wrote the start value (0: the model itself).
    # Modelica's rule: a start value written higher up in the hierarchy (a modifier such as
    # Revolute(phi=Variable(start=...))) outranks a library component's own default.
    start_depth: int = 0

    def scalars(self):
        """(name, symbol, start, guess) for each scalar element."""
        # both default to None: read from the given fields directly (flattening asks every
        # variable of a model for its scalars, connectors' twice)
        given = self.decl._given
        start = given.get("start")
        guess = given.get("guess")
        if isinstance(self.value, sp.MatrixBase):
            n = self.value.shape[0]
            starts = _broadcast(start, n, self.name)
            guesses = _broadcast(guess, n, self.name)
            return [(f"{self.name}[{i}]", self.value[i], starts[i], guesses[i]) for i in range(n)]
        return [(self.name, self.value, start, guess)]


@dataclass
class BoundParameter:
    """A numeric parameter after binding: its full name, symbol(s), value and declaration."""

    name: str
    value: Any  # sp.Symbol or sp.Matrix
    number: Any  # float or tuple of floats
    decl: Parameter
    owner: Any

    def scalars(self):
        if isinstance(self.value, sp.MatrixBase):
            return [(f"{self.name}[{i}]", self.value[i], self.number[i])
                    for i in range(self.value.shape[0])]
        return [(self.name, self.value, self.number)]


def sets_start(override) -> bool:
    return not isinstance(override, Variable) or "start" in override._given \
        or "guess" in override._given


def _broadcast(value, n, name):
    if value is None:
        return [None] * n
    arr = np.atleast_1d(np.asarray(value, dtype=object))
    if arr.size == 1:
        return [arr[0]] * n
    if arr.size != n:
        raise ModelDefinitionError(f"'{name}': a value of length {arr.size} was given for a "
                                   f"vector of length {n}.")
    return list(arr)


#: The types of a scalar parameter's usual value and default, compared exactly (a bool, a numpy
#: number or a sympy number takes the general path of ``as_number``).
_PLAIN_NUMBERS = (float, int)


def as_number(value, name, owner_path, default=None):
    """Convert a numeric parameter value to float(s), naming the parameter on failure.

    The shape must agree with the declared default's: a list for a scalar parameter (or a
    number for a vector one) is a mistake that sympy would otherwise report from deep inside.
    """
    if type(value) in _PLAIN_NUMBERS and type(default) in _PLAIN_NUMBERS:
        # the usual case, a number for a scalar parameter: no shape to compare (every
        # parameter of a large model comes here)
        number = float(value)
        if math.isfinite(number):
            return number
    where = f"Parameter '{name}' of component '{owner_path or '<root>'}'"
    is_seq = isinstance(value, (list, tuple, np.ndarray, sp.MatrixBase))
    if default is not None and not isinstance(default, (bool, str)):
        default_seq = isinstance(default, (list, tuple, np.ndarray, sp.MatrixBase))
        if is_seq and not default_seq:
            raise ParameterError(f"{where} is a scalar, but it was given {value!r}: give one "
                                 "number.")
        if default_seq and not is_seq:
            n = len(np.asarray(default, dtype=object).ravel())
            raise ParameterError(f"{where} is a vector of {n} numbers, but it was given "
                                 f"{value!r}: give a list of {n} numbers.")
        if default_seq and is_seq:
            n = len(np.asarray(default, dtype=object).ravel())
            m = len(np.asarray(value, dtype=object).ravel())
            if n != m:
                raise ParameterError(f"{where} is a vector of {n} numbers, but it was given "
                                     f"{m}: give a list of {n} numbers.")
    try:
        if isinstance(value, (list, tuple, np.ndarray, sp.MatrixBase)):
            numbers = tuple(float(v) for v in np.asarray(value, dtype=object).ravel())
            bad = [v for v in numbers if not math.isfinite(v)]
        else:
            numbers = float(value)
            bad = [] if math.isfinite(numbers) else [numbers]
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{where} has the value {value!r}, which is not a number: give a "
                             "real number.") from exc
    if bad:
        raise ParameterError(f"{where} is not finite ({value!r}): give a finite real number.")
    return numbers


def make_symbol(name: str, shape: tuple[int, ...]):
    if shape == ():
        return real_symbol(name)
    if len(shape) != 1:
        raise ModelDefinitionError(
            f"'{name}': only scalars and vectors (shape (n,)) are supported.")
    return sp.Matrix([real_symbol(f"{name}[{i}]") for i in range(shape[0])])


