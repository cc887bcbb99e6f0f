"""The compiled model: CasADi functions plus everything needed to name and explain them.

A :class:`CompiledModel` is data with look-ups (names, indices, parameters, start values, the
equations as sympy); it knows nothing of simulation or export. The user-facing
:class:`acausal.CompiledSystem` (top layer, :mod:`acausal.system`) adds ``simulate()``,
``linearize()``, ``trim()``, ``export_fmu()`` and ``generate_c()`` on top of it.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import casadi as ca
import numpy as np
import sympy as sp

from ..base.errors import InputError, ParameterError, UnknownNameError, did_you_mean
from ..language.declarations import check_bounds
from ..language.symbolic import der, latex_symbol_names
from .flatten import FlatSystem, FlatVariable
from .realize import realize
from .structure.alias import AliasMap
from .structure.system import EquationSystem

#: Largest model whose equations a notebook shows as LaTeX (larger ones: the summary only).
LATEX_DISPLAY_MAX = 80


@dataclass
class CompiledModel:
    """A compiled model: CasADi functions plus everything needed to name and explain them."""

    model_name: str
    flat: FlatSystem
    system: EquationSystem  # after alias elimination and index reduction
    aliases: AliasMap
    dummies: set[int]
    states: list[int]  # variable indices (in ``system``) of the states
    algebraics: list[int]  # variable indices of the DAE's algebraic variables z
    t: ca.SX
    x: ca.SX
    z: ca.SX
    p: ca.SX
    ode: ca.SX
    alg: ca.SX
    observed: ca.SX  # value of every variable of ``system``, in index order
    parameter_names: list[str]
    parameter_values: np.ndarray
    initial_residuals: list[tuple[Any, str]] = field(default_factory=list)
    algebraic_equations: list[str] = field(default_factory=list)  # source of each row of alg
    #: what the sparse elimination of each large linear block did (compiler/linear_elimination)
    linear_eliminations: list = field(default_factory=list)
    events: list = field(default_factory=list)  # CompiledEvent per When clause
    selector: Any = None  # StateSelector of the index-reduced system
    orientation_rule: Any = None  # what structure.orientation_rule removed, or why not
    dynamic_selection: bool = False  # whether simulate() monitors and re-selects states
    timings: dict[str, float] = field(default_factory=dict)
    _functions: dict = field(default_factory=dict, repr=False)

    # -- sizes and names -------------------------------------------------------------------
    @property
    def state_names(self) -> list[str]:
        return [self.system.name(v) for v in self.states]

    @property
    def algebraic_names(self) -> list[str]:
        return [self.system.name(v) for v in self.algebraics]

    @property
    def is_ode(self) -> bool:
        return self.z.numel() == 0

    @property
    def n_states(self) -> int:
        return len(self.states)

    def parameters(self) -> dict[str, float]:
        """Default value of every numeric parameter, by dotted name (no discrete variables)."""
        return {prm.name: float(prm.value) for prm in self.flat.parameters if not prm.discrete}

    @property
    def input_names(self) -> list[str]:
        """Parameters declared as :class:`~acausal.Input` (or variables marked with one)."""
        return [prm.name for prm in self.flat.parameters if prm.is_input]

    @property
    def discrete_names(self) -> list[str]:
        """Discrete variables (inputs of the continuous equations that change at events)."""
        return [prm.name for prm in self.flat.parameters if prm.discrete]

    @property
    def has_events(self) -> bool:
        return bool(self.events)

    @property
    def computed_parameters(self) -> list[int]:
        """Indices in ``p`` of the parameters declared ``fixed=False``: unknowns of the
        initialisation (their value in ``p`` is the start guess; ``params`` may change it)."""
        return [i for i, prm in enumerate(self.flat.parameters) if not prm.fixed]

    def parameter_vector(self, params: dict[str, float] | None = None) -> np.ndarray:
        """The parameter vector with the given overrides (names checked, values finite)."""
        p = self.parameter_values.copy()
        if not params:
            return p
        index = self.parameter_index()
        if not isinstance(params, dict):
            raise InputError(f"params must be a dict of values by dotted name, got {params!r}.")
        for name, value in params.items():
            if name in self.flat.structural:
                raise self.structural_parameter_error(name)
            if name not in index and self.vector_elements(name) is None:
                hint = did_you_mean(name, self.parameter_names)
                raise ParameterError(f"'{name}' is not a parameter of {self.model_name}.{hint}")
            for element, number in self.elements(name, value, "params"):
                if element not in index:
                    raise ParameterError(f"'{element}' is not a parameter of {self.model_name}.")
                prm = self.flat.parameters[index[element]]
                if prm.discrete:
                    raise ParameterError(f"'{element}' is a discrete variable, not a parameter: "
                                         "give its value as the start of its Discrete "
                                         "declaration.")
                check_bounds(element, number, prm.min, prm.max, prm.description,
                             low_exclusive=prm.min_exclusive, high_exclusive=prm.max_exclusive)
                p[index[element]] = number
        return p

    def structural_parameter_error(self, name: str) -> ParameterError:
        """The error for a change of the structural parameter ``name`` after compilation."""
        owner, _, short = name.rpartition(".")
        return ParameterError(
            f"'{name}' is a structural parameter (now {self.flat.structural[name]!r}): it decides "
            "which equations the model has, so it cannot change without compiling again. Set it "
            f"where the model is built ({short}=... when creating '{owner or self.model_name}') "
            "and compile again.")

    @contextlib.contextmanager
    def start_values(self, start: dict[str, Any] | None):
        """Within the ``with`` block the named variables have the given start values (as if
        declared; ``fixed`` stays as declared), vectors as lists: ``simulate(start=...)`` uses
        this, so no recompilation is needed."""
        if not start:
            yield
            return
        if not isinstance(start, dict):
            raise InputError(f"start must be a dict of start values by dotted name, got "
                             f"{start!r}.")
        changes: dict[int, FlatVariable] = {}
        for name, value in start.items():
            for element, item in self.elements(name, value, "start"):
                sign, index = self.locate(element)
                info = self.system.info[index] if index >= 0 else None
                if info is None:
                    raise InputError(f"'{element}' has no start value of its own (it is a "
                                     "derivative or a constant): give the start of the variable "
                                     "it is the derivative of, or of a state.")
                changes[index] = replace(changes.get(index, info), start=sign * item, guess=None)
        with self.declarations_replaced(changes):
            yield

    @contextlib.contextmanager
    def declarations_replaced(self, changes: dict[int, FlatVariable]):
        """Within the ``with`` block the variables at the given indices of ``system.info``
        are declared as given (start, fixed, guess); the declarations are restored after it."""
        saved = {index: self.system.info[index] for index in changes}
        try:
            for index, info in changes.items():
                self.system.info[index] = info
            yield
        finally:
            for index, info in saved.items():
                self.system.info[index] = info

    def elements(self, name: str, value: Any, what: str) -> list[tuple[str, float]]:
        """(scalar name, float) pairs for a scalar or vector entry of ``params``/``start``:
        a vector gets one value per element, each a finite real number; ``what`` ("params" or
        "start") names the argument in the error (ParameterError or InputError)."""
        error = ParameterError if what == "params" else InputError
        if isinstance(value, (list, tuple, np.ndarray)):
            items = list(np.asarray(value, dtype=object).ravel())
            names = self.vector_elements(name)
            if names is None:
                raise error(f"'{name}' in {what} is given {len(items)} values, but it is not a "
                            "vector: give one number.")
            if len(names) != len(items):
                raise error(f"'{name}' in {what} is a vector of {len(names)} elements, but "
                            f"{len(items)} values were given.")
        else:
            items, names = [value], [name]
        out = []
        for element, item in zip(names, items):
            try:
                if isinstance(item, bool):
                    raise TypeError
                number = float(item)
            except (TypeError, ValueError):
                raise error(f"'{element}' in {what} got {item!r}; give a real number."
                            ) from None
            if not np.isfinite(number):
                raise error(f"'{element}' in {what} got the non-finite value {number}; "
                            "give a finite real number.")
            out.append((element, number))
        return out

    def vector_elements(self, name: str) -> list[str] | None:
        """``['body.r[0]', 'body.r[1]']`` when ``name`` is a vector variable or parameter (by
        its base name), else None."""
        locations, parameters = self.locations(), self.parameter_index()
        out = []
        while f"{name}[{len(out)}]" in locations or f"{name}[{len(out)}]" in parameters:
            out.append(f"{name}[{len(out)}]")
        return out or None

    def parameter_index(self) -> dict[str, int]:
        """Every parameter name -> its position in the parameter vector ``p``; built once."""
        idx = self._functions.get("param_index")
        if idx is None:
            idx = {n: i for i, n in enumerate(self.parameter_names)}
            self._functions["param_index"] = idx
        return idx

    def cached(self, key: Any, build: Callable[[], Any]) -> Any:
        """The value stored under ``key`` in this model's cache, built by ``build()`` the first
        time. The run, analysis and export layers keep what they derive from the model here
        (index maps, CasADi functions, buffers), so it is built once per compiled model; the
        cache is dropped when a model is sent to another process (``without_caches``)."""
        try:
            return self._functions[key]
        except KeyError:
            value = self._functions[key] = build()
            return value

    def without_caches(self) -> CompiledModel:
        """A shallow copy with an empty cache (what ensembles pickle to their workers)."""
        light = copy.copy(self)
        light._functions = {}
        return light

    def function(self, which: str) -> ca.Function:
        """CasADi Function ``ode``, ``alg``, ``observed``, ``event_indicators``,
        ``event_conditions`` or ``event_update_<i>`` with inputs (t, x, z, p)."""
        f = self._functions.get(which)
        if f is None:
            if which == "event_indicators":
                out = ca.vertcat(*[g for ev in self.events for g in ev.indicators]) \
                    if any(ev.indicators for ev in self.events) else ca.SX(0, 1)
            elif which == "event_conditions":
                out = ca.vertcat(*[ev.condition for ev in self.events]) if self.events \
                    else ca.SX(0, 1)
            elif which.startswith("event_update_"):
                ev = self.events[int(which.rsplit("_", 1)[1])]
                f = ca.Function(which, [self.t, self.x, self.z, self.p], [ev.x_new, ev.p_new],
                                ["t", "x", "z", "p"], ["x_new", "p_new"])
                self._functions[which] = f
                return f
            else:
                out = {"ode": self.ode, "alg": self.alg, "observed": self.observed}[which]
            f = ca.Function(which, [self.t, self.x, self.z, self.p], [out],
                            ["t", "x", "z", "p"], [which])
            self._functions[which] = f
        return f

    def locations(self) -> dict[str, tuple[float, int]]:
        """Every variable name (declared, derivative, alias) -> ``(sign, index)`` into the
        observed vector, ``value = sign * observed[index]`` (index -1: identically zero); built
        once."""
        loc = self._functions.get("locations")
        if loc is None:
            loc = {self.system.name(v): (1.0, v) for v in range(self.system.n_vars)}
            for old, name_old in enumerate(self.aliases.names):
                loc.setdefault(name_old, (float(self.aliases.sign[old]),
                                          self.aliases.target[old]))
            self._functions["locations"] = loc
        return loc

    def locate(self, name: str) -> tuple[float, int]:
        """``(sign, index)`` with ``value(name) = sign * observed[index]`` (index -1: zero)."""
        loc = self.locations()
        if name not in loc:
            hint = did_you_mean(name, list(loc) + self.parameter_names)
            raise UnknownNameError(f"'{name}' is not a variable of {self.model_name}.{hint}")
        return loc[name]

    def variable_names(self) -> list[str]:
        """Every variable name the model has (declared, derivatives, aliases)."""
        return sorted(self.locations())

    # -- symbolic output -------------------------------------------------------------------
    def equations(self, reduced: bool = False) -> list[sp.Basic]:
        """The equations as sympy relations.

        ``reduced=False``: the flattened equations as written in the components (connection
        equations included). ``reduced=True``: the system the code is generated from, after
        alias elimination and index reduction, with the differentiated equations added; each is
        ``residual = 0`` with derivatives shown as ``der(x)``.
        """
        if not reduced:
            return self.flat.equations_as_sympy()
        display = self._derivative_display()
        return [sp.Eq(self.system.residuals[e].xreplace(display), 0, evaluate=False)
                for e in range(self.system.n_eqs)]

    def _derivative_display(self) -> dict:
        """Placeholder symbols ``der(x)`` mapped to ``der(x)`` expressions, for printing."""
        out: dict = {}
        system = self.system
        for v in range(system.n_vars):
            if system.info[v] is None and system.diff_to_var[v] != -1:
                chain = []
                u = v
                while system.info[u] is None and system.diff_to_var[u] != -1:
                    chain.append(u)
                    u = system.diff_to_var[u]
                expr = system.symbols[u]
                for _ in chain:
                    expr = der(expr)
                out[system.symbols[v]] = expr
        return out

    def to_latex(self, reduced: bool = False) -> str:
        """LaTeX of the equations (one per line, aligned at the equals sign)."""
        eqs = self.equations(reduced)
        syms = set()
        for e in eqs:
            syms |= e.free_symbols
        names = latex_symbol_names(syms)
        lines = [sp.latex(e, symbol_names=names).replace("=", "&=", 1) for e in eqs]
        return "\\begin{aligned}\n" + " \\\\\n".join(lines) + "\n\\end{aligned}"

    # -- display (terminal and notebooks) ------------------------------------------------------
    def __repr__(self) -> str:
        states = ", ".join(self.state_names[:6]) + (", ..." if self.n_states > 6 else "")
        return (f"<{type(self).__name__} {self.model_name}: {self.n_states} states ({states}), "
                f"{self.z.numel()} algebraic, {self.system.n_eqs} equations, "
                f"{len(self.parameter_names)} parameters, {len(self.events)} events>")

    def _repr_html_(self) -> str:
        import html

        return (f"<b>{type(self).__name__}</b> <code>{html.escape(self.model_name)}</code>"
                f"<pre>{html.escape(self.summary())}</pre>")

    def _repr_latex_(self) -> str | None:
        """The flattened equations in a notebook (none for large models: see to_latex())."""
        if len(self.flat.equations) > LATEX_DISPLAY_MAX:
            return None
        return "$$" + self.to_latex() + "$$"

    def summary(self) -> str:
        """Counts, chosen states and what index reduction did, as text."""
        n_diff = sum(1 for e in range(self.system.n_eqs) if self.system.diff_to_eq[e] != -1)
        lines = [
            f"model {self.model_name}",
            f"  flattened: {len(self.flat.equations)} equations, {len(self.flat.variables)} "
            f"variables, {len(self.parameter_names)} parameters",
            f"  after alias elimination and index reduction: {self.system.n_eqs} equations "
            f"({n_diff} differentiated), {self.system.n_vars} variables",
            f"  states ({self.n_states}): {', '.join(self.state_names) or '-'}",
            "  dummy derivatives: "
            + (", ".join(sorted(self.system.name(v) for v in self.dummies)) or "-"),
            f"  algebraic (DAE) variables: {', '.join(self.algebraic_names) or '-'}",
            "  integrator: " + ("none (no states: algebraic equations at each output time)"
                                if not self.states else
                                "CVODE (ODE)" if self.is_ode else "IDA (index-1 DAE)"),
        ]
        rule = self.orientation_rule
        if rule is not None and not rule.skipped:
            lines.append(f"  orientation rule der(T) = -skew(w) T: {rule.variables_removed} "
                         f"derivatives of orientations and {rule.equations_removed} equations "
                         "removed")
        elif rule is not None and rule.skipped != "no 3-D frames":
            lines.append(f"  orientation rule not applied: {rule.skipped}")
        for report in self.linear_eliminations:
            lines.append("  linear block eliminated in its sparsity's order: " + report.line())
        return "\n".join(lines)

    def realization(self, dummies: set[int]) -> CompiledModel:
        """The same model compiled for another choice of dummy derivatives (cached)."""
        if set(dummies) == set(self.dummies):
            return self
        cache = self._functions.setdefault("realizations", {})
        key = frozenset(dummies)
        other = cache.get(key)
        if other is None:
            other = realize(self.flat, self.system, self.aliases, set(dummies), type(self))
            other.selector = self.selector
            other.dynamic_selection = self.dynamic_selection
            other._functions["realizations"] = cache
            cache[key] = other
        return other

