"""The optimal control problem on a compiled system: what a user declares, checked by name.

:class:`Problem` (the base of the public :class:`~.api.OptimalControl`) collects controls
(parameters made time-varying), design parameters, the time horizon, start and end
conditions, path constraints and the objective; ``OptimalControl.solve`` transcribes it
(:mod:`.transcription`, or :mod:`.shooting`) and hands it to IPOPT. Every name is checked
where it is given, with a "did you mean" hint; every bound pair is checked (lower <= upper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import sympy as sp

from ...base.errors import (
    InputError,
    ModelDefinitionError,
    ParameterError,
    UnknownNameError,
    did_you_mean,
)
from .expressions import ModelNames

CONTROL_KINDS = ("constant", "collocated")


def _number(value: Any, what: str, allow_inf: bool = True) -> float:
    try:
        if isinstance(value, bool):
            raise TypeError
        out = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a real number, got {value!r}.") from None
    if math.isnan(out) or (not allow_inf and math.isinf(out)):
        raise InputError(f"{what} must be a {'finite ' if not allow_inf else ''}real number, "
                         f"got {value!r}.")
    return out


def bounds(lower: Any, upper: Any, what: str) -> tuple[float, float]:
    """``(lower, upper)`` as floats (None: unbounded), checked ``lower <= upper``."""
    lo = -math.inf if lower is None else _number(lower, f"the lower bound of {what}")
    hi = math.inf if upper is None else _number(upper, f"the upper bound of {what}")
    if lo > hi:
        raise InputError(f"The bounds of {what} are crossed: lower = {lo:g} > upper = {hi:g}. "
                         "Give lower <= upper.")
    return lo, hi


@dataclass
class Control:
    """A parameter of the model made a function of time (an ``Input`` or any parameter)."""

    name: str
    index: int  # position in p
    lower: float
    upper: float
    guess: float | None
    rate: tuple[float, float] | None
    kind: str
    nominal: float


@dataclass
class Design:
    """A parameter chosen by the optimisation, constant in time."""

    name: str
    index: int
    lower: float
    upper: float
    guess: float
    nominal: float


@dataclass
class Condition:
    """``lower <= expr <= upper`` (at the start, the end or along the path)."""

    label: str
    expr: sp.Expr
    lower: float
    upper: float
    name: str | None = None  # the variable's name when expr is one variable alone


@dataclass
class FreeTime:
    lower: float
    upper: float
    guess: float


class Problem:
    """An optimal control problem on a compiled system (declarations; ``OptimalControl`` adds
    ``solve``).

    ``system``: a compiled model (``acausal.compile(...)``). ``t_start``, ``t_end``: the time
    horizon [s] (``t_end=None`` and :meth:`free_end_time` for a free end time). ``params``:
    parameter values as in ``simulate(params=...)``. ``smooth_twin``: a model without events
    with the same names, optimised in place of ``system`` when ``system`` has events
    (stick/slip friction, ``When``); the result is verified on ``system``.

    Declare with :meth:`control`, :meth:`parameter`, :meth:`free_end_time`, :meth:`start`,
    :meth:`end`, :meth:`path`, :meth:`minimize`; then :meth:`solve`. See
    docs/optimal_control.md.
    """

    def __init__(self, system: Any, t_start: float = 0.0, t_end: float | None = None,
                 params: dict[str, float] | None = None, smooth_twin: Any = None) -> None:
        self.plant = system
        self.model = smooth_twin if smooth_twin is not None else system
        _check_events(system, smooth_twin)
        self.t_start = _number(t_start, "t_start", allow_inf=False)
        self.t_end: float | FreeTime | None = None
        if t_end is not None:
            t_end = _number(t_end, "t_end", allow_inf=False)
            if t_end <= self.t_start:
                raise InputError(f"t_end = {t_end:g} must be after t_start = "
                                 f"{self.t_start:g}.")
            self.t_end = t_end
        self.params = dict(params or {})
        self.p = self.model.parameter_vector(self.params)
        if smooth_twin is not None:
            system.parameter_vector(self.params)  # the same names must be valid on the plant
        self.names = ModelNames(self.model)
        self.controls: list[Control] = []
        self.design: list[Design] = []
        self.start_values: dict[str, float] = {}
        self.start_free: list[Condition] = []
        self.end_conditions: list[Condition] = []
        self.path_conditions: list[Condition] = []
        # path conditions made soft (label -> penalty per squared violation)
        self.soft: dict[str, float] = {}
        self.mayer: sp.Expr | None = None
        self.lagrange: sp.Expr | None = None

    # -- declarations ---------------------------------------------------------------------
    def _parameter(self, name: str, what: str) -> int:
        cs = self.model
        if not isinstance(name, str):
            raise InputError(f"A {what} is named by a string (a parameter's dotted name), got "
                             f"{name!r}.")
        if name in cs.flat.structural:
            raise cs.structural_parameter_error(name)
        index = cs.parameter_index()
        if name not in index:
            if name in cs.locations():
                raise InputError(
                    f"'{name}' is a variable of {cs.model_name}, not an input: a {what} must "
                    "be a parameter. Declare it with Input (u = Input(0.0, unit=...) and an "
                    "equation that uses it) or mark a source's value as an input, e.g. "
                    "Force(f=Input()) or Torque(tau=Input()).")
            raise UnknownNameError(
                f"'{name}' is not a parameter of {cs.model_name}."
                f"{did_you_mean(name, cs.parameter_names)} A {what} is an Input (here: "
                f"{', '.join(cs.input_names) or 'none declared'}) or any numeric parameter.")
        prm = cs.flat.parameters[index[name]]
        if prm.discrete:
            raise ParameterError(f"'{name}' is a discrete variable (it changes only at events) "
                                 f"and cannot be a {what}.")
        taken = [c.name for c in self.controls] + [d.name for d in self.design]
        if name in taken:
            raise InputError(f"'{name}' is already a control or a design parameter of this "
                             "problem.")
        return index[name]

    def control(self, name: str, lower: float | None = None, upper: float | None = None,
                guess: float | None = None, rate: tuple[float, float] | None = None,
                kind: str = "constant", nominal: float = 1.0) -> Problem:
        """Make the parameter ``name`` a control: a function of time chosen by the optimiser.

        ``lower``/``upper``: bounds (the parameter's unit); ``guess``: its initial guess
        (default: the parameter's value); ``rate=(lo, hi)``: bounds on its rate of change [unit/s];
        ``kind``: ``"constant"`` (one value per element) or ``"collocated"`` (a value at each
        collocation point, the polynomial through them within an element, as JModelica's
        Optimica); ``nominal``: its typical size (the optimiser works with value/nominal)."""
        index = self._parameter(name, "control")
        lo, hi = bounds(lower, upper, f"the control '{name}'")
        if kind not in CONTROL_KINDS:
            raise InputError(f"The kind of control '{name}' must be one of "
                             f"{', '.join(CONTROL_KINDS)}, got {kind!r}.")
        if rate is not None:
            if not isinstance(rate, (tuple, list)) or len(rate) != 2:
                raise InputError(f"rate of the control '{name}' must be a pair (lower, upper) "
                                 f"[unit/s], got {rate!r}.")
            rate = bounds(rate[0], rate[1], f"the rate of the control '{name}'")
        g = None if guess is None else _number(guess, f"the guess of the control '{name}'",
                                               allow_inf=False)
        nominal = _number(nominal, f"the nominal value of the control '{name}'", False)
        if nominal <= 0:
            raise InputError(f"The nominal value of the control '{name}' must be positive.")
        self.controls.append(Control(name, index, lo, hi, g, rate, kind, nominal))
        return self

    def parameter(self, name: str, lower: float | None = None, upper: float | None = None,
                  guess: float | None = None, nominal: float = 1.0) -> Problem:
        """Make the parameter ``name`` a design variable: one constant value chosen by the
        optimiser within ``[lower, upper]`` (e.g. a spring rate, a link length); ``guess``
        default: its value in the model."""
        index = self._parameter(name, "design parameter")
        lo, hi = bounds(lower, upper, f"the design parameter '{name}'")
        g = float(self.p[index]) if guess is None else _number(
            guess, f"the guess of the design parameter '{name}'", allow_inf=False)
        nominal = _number(nominal, f"the nominal value of '{name}'", False)
        self.design.append(Design(name, index, lo, hi, g, nominal))
        return self

    def free_end_time(self, lower: float | None = None, upper: float | None = None,
                      guess: float | None = None) -> Problem:
        """Let the end time be chosen by the optimiser within ``[lower, upper]`` [s]."""
        if lower is None or upper is None:
            raise InputError(
                "A free end time needs both bounds: free_end_time(lower=..., upper=...) [s], "
                "e.g. lower a little above t_start and upper a generous multiple of the "
                "expected time. Without them the problem has no bounded horizon to "
                "transcribe.")
        lo, hi = bounds(lower, upper, "the free end time")
        if lo <= self.t_start or not math.isfinite(hi):
            raise InputError(f"The free end time's bounds must be finite and above t_start = "
                             f"{self.t_start:g}; got [{lo:g}, {hi:g}].")
        g = 0.5 * (lo + hi) if guess is None else _number(guess, "the end time's guess", False)
        if not lo <= g <= hi:
            raise InputError(f"The end time's guess {g:g} is outside its bounds "
                             f"[{lo:g}, {hi:g}].")
        self.t_end = FreeTime(lo, hi, g)
        return self

    def _condition(self, expr: Any, lower: Any, upper: Any, where: str) -> Condition:
        parsed = self.names.parse(expr, where)
        name = self.names.plain_name(expr)
        lo, hi = bounds(lower, upper, where)
        if lo == -math.inf and hi == math.inf:
            raise InputError(f"{where} has no bound: give a value or lower= and/or upper=.")
        label = name if name is not None else str(expr)
        return Condition(label, parsed, lo, hi, name)

    def start(self, name: str, value: float | None = None, *, lower: float | None = None,
              upper: float | None = None) -> Problem:
        """The start of a variable: ``start(name, value)`` fixes it (as ``simulate(start=...)``
        with ``fixed=True``); ``start(name, lower=..., upper=...)`` frees it within bounds (its
        declared fixed start or default no longer holds). Without a call for it a variable
        starts as in ``simulate``: the model's fixed starts and initial equations."""
        where = f"start('{name}')"
        if isinstance(name, str) and name in self.model.parameter_index():
            raise InputError(f"{where}: '{name}' is a parameter; a start is given to a "
                             "variable (a design parameter is declared with parameter()).")
        if self.names.plain_name(name) is None:
            raise self.names.unknown_error(str(name), where)
        if value is not None:
            if lower is not None or upper is not None:
                raise InputError(f"{where}: give a value or bounds, not both.")
            self.start_values[name] = _number(value, f"the start value of '{name}'", False)
            return self
        cond = self._condition(name, lower, upper, where)
        self.start_free.append(cond)
        return self

    def end(self, expr: Any, value: float | None = None, *, lower: float | None = None,
            upper: float | None = None) -> Problem:
        """An end condition on any variable or expression: ``end("cart.s", 1.0)`` or
        ``end("cart.v", lower=-0.1, upper=0.1)``."""
        where = f"end({expr!r})"
        if value is not None:
            if lower is not None or upper is not None:
                raise InputError(f"{where}: give a value or bounds, not both.")
            lower = upper = _number(value, f"the end value of {expr!r}", False)
        self.end_conditions.append(self._condition(expr, lower, upper, where))
        return self

    def path(self, expr: Any, lower: float | None = None, upper: float | None = None, *,
             soft: float | None = None) -> Problem:
        """A path constraint ``lower <= expr <= upper`` at every collocation point (and the
        start), on any variable (algebraic ones included: a joint's normal force, a wheel's
        slip) or expression. ``soft=penalty``: an MPC may violate it at a cost of ``penalty``
        times the squared violation."""
        where = f"path({expr!r})"
        cond = self._condition(expr, lower, upper, where)
        self.path_conditions.append(cond)
        if soft is not None:
            penalty = _number(soft, f"the penalty of the soft constraint {expr!r}", False)
            if penalty <= 0:
                raise InputError(f"The penalty of the soft constraint {expr!r} must be "
                                 "positive.")
            self.soft[cond.label] = penalty
        return self

    def minimize(self, mayer: Any = None, lagrange: Any = None) -> Problem:
        """The objective: ``mayer`` evaluated at the end (``"time"`` there is the end time)
        plus the integral over the horizon of ``lagrange``; strings or sympy expressions of
        the model's names."""
        if mayer is None and lagrange is None:
            raise InputError("minimize() needs mayer= (a term at the end, e.g. 'time' for "
                             "minimum time) or lagrange= (an integrand, e.g. 'force.f**2').")
        self.mayer = None if mayer is None else self.names.parse(mayer, "the Mayer term")
        self.lagrange = None if lagrange is None else self.names.parse(lagrange,
                                                                       "the Lagrange term")
        return self

    def maximize(self, mayer: Any = None, lagrange: Any = None) -> Problem:
        """The objective negated (see :meth:`minimize`)."""
        self.minimize(mayer, lagrange)
        self.mayer = None if self.mayer is None else -self.mayer
        self.lagrange = None if self.lagrange is None else -self.lagrange
        return self

    # -- checks before a solve ------------------------------------------------------------
    def check(self) -> None:
        """Raise a named error for a problem that cannot be transcribed."""
        if self.t_end is None:
            raise InputError("The problem has no end time: give t_end=... or call "
                             "free_end_time(lower=..., upper=...).")
        if self.mayer is None and self.lagrange is None:
            raise InputError("The problem has no objective: call minimize(mayer=..., "
                             "lagrange=...).")
        if not self.controls and not self.design and not isinstance(self.t_end, FreeTime) \
                and not self.start_free:
            raise InputError("The problem has nothing to choose: declare a control "
                             "(control(name, ...)), a design parameter (parameter(...)), a "
                             "free end time or a free start.")

    def __repr__(self) -> str:
        horizon = (f"[{self.t_start:g}, {self.t_end:g}]" if isinstance(self.t_end, float)
                   else f"[{self.t_start:g}, free]")
        return (f"<OptimalControl of {self.model.model_name} on {horizon}: controls "
                f"{[c.name for c in self.controls]}, design {[d.name for d in self.design]}, "
                f"{len(self.path_conditions)} path and {len(self.end_conditions)} end "
                "conditions>")


_SMOOTH_ADVICE = (
    "Collocation needs smooth equations. Optimise a smooth twin of the model and verify the "
    "result on this one: OptimalControl(system, smooth_twin=twin, ...), where the twin models "
    "the same element with a smooth law: limit_S_triple or limit_S_form for a joint limit or "
    "an adhesion curve, LuGre (acausal.library.friction.lugre) for friction with sticking, or "
    "a regularised Stribeck/Coulomb curve (acausal.library.friction) in place of stick/slip "
    "friction (see docs/optimal_control.md, 'Models with events').")


def _check_events(system, twin) -> None:
    if twin is None:
        if system.events:
            labels = [ev.label for ev in system.events]
            shown = "; ".join(labels[:4]) + ("; ..." if len(labels) > 4 else "")
            raise ModelDefinitionError(
                f"{system.model_name} has {len(labels)} event(s) ({shown}). " + _SMOOTH_ADVICE)
        return
    if twin.events:
        labels = [ev.label for ev in twin.events]
        raise ModelDefinitionError(
            f"The smooth twin {twin.model_name} has events too ({'; '.join(labels[:4])}): a "
            "twin must be free of events. " + _SMOOTH_ADVICE)
    missing = [n for n in twin.input_names if n not in system.parameter_index()]
    if missing:
        raise InputError(f"The smooth twin's inputs {', '.join(missing)} are not parameters of "
                         f"{system.model_name}: the twin and the model must share the "
                         "controls' names (build both from the same parts).")

