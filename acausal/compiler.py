"""The compiler: runs the passes in order and emits CasADi functions.

    Component tree --flatten--> FlatSystem --alias--> --check--> --Pantelides-->
    --dummy derivatives--> --BLT/tearing--> CompiledSystem (CasADi SX functions)

The generated system is ``der(x) = f(t, x, z, p)``, ``0 = g(t, x, z, p)`` where ``x`` are the
selected states, ``z`` the tear variables of nonlinear (or large linear) algebraic loops (empty for
an ODE), and ``p`` every numeric parameter, so that changing a parameter never recompiles.
Every other variable is an observed expression of ``(t, x, z, p)``.
"""

from __future__ import annotations

import contextlib
import gc
import time as _time
from collections import ChainMap
from dataclasses import dataclass, field, replace
from typing import Any

import casadi as ca
import numpy as np
import sympy as sp

from .codegen import Translator
from .errors import (
    InputError,
    ModelDefinitionError,
    ParameterError,
    StructuralError,
    StructurallySingularError,
    UnknownNameError,
    did_you_mean,
)
from .flatten import FlatSystem, FlatVariable, flatten
from .model import Component, check_bounds
from .progress import StageLog, progress_enabled
from .structure.alias import AliasMap, compose_alias_maps, eliminate_aliases, has_alias_equations
from .structure.blt import blt, tear_block
from .structure.checks import check_structure
from .structure.dummy_derivatives import StateSelector, states_after_selection
from .structure.pantelides import pantelides
from .structure.system import EquationSystem, build_equation_system
from .symbolic import der, latex_symbol_names, time

#: Largest model whose equations a notebook shows as LaTeX (larger ones: the summary only).
LATEX_DISPLAY_MAX = 80

#: Largest linear algebraic loop (in tear variables) solved symbolically; larger ones go to IDA.
MAX_SYMBOLIC_LINEAR_LOOP = 12
#: Dynamic state selection is used when priorities left the choice to numbers and the
#: differentiated constraints number at most this many (planar mechanisms, not large chains).
DYNAMIC_SELECTION_LIMIT = 120


@dataclass
class CompiledSystem:
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
    events: list = field(default_factory=list)  # CompiledEvent per When clause
    selector: Any = None  # StateSelector of the index-reduced system
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

    def parameter_vector(self, params: dict[str, float] | None = None) -> np.ndarray:
        """The parameter vector with the given overrides (names checked, values finite)."""
        p = self.parameter_values.copy()
        if not params:
            return p
        index = self._parameter_index()
        if not isinstance(params, dict):
            raise InputError(f"params must be a dict of values by dotted name, got {params!r}.")
        for name, value in params.items():
            if name in self.flat.structural:
                raise self.structural_parameter_error(name)
            if name not in index and self.vector_elements(name) is None:
                hint = did_you_mean(name, self.parameter_names)
                raise ParameterError(f"'{name}' is not a parameter of {self.model_name}.{hint}")
            for element, number in self._elements(name, value, "params"):
                if element not in index:
                    raise ParameterError(f"'{element}' is not a parameter of {self.model_name}.")
                prm = self.flat.parameters[index[element]]
                if prm.discrete:
                    raise ParameterError(f"'{element}' is a discrete variable, not a parameter: "
                                         "give its value as the start of its Discrete "
                                         "declaration.")
                check_bounds(element, number, prm.min, prm.max, prm.description)
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
            for element, item in self._elements(name, value, "start"):
                sign, index = self.locate(element)
                info = self.system.info[index] if index >= 0 else None
                if info is None:
                    raise InputError(f"'{element}' has no start value of its own (it is a "
                                     "derivative or a constant): give the start of the variable "
                                     "it is the derivative of, or of a state.")
                changes[index] = replace(changes.get(index, info), start=sign * item, guess=None)
        saved = {index: self.system.info[index] for index in changes}
        try:
            for index, info in changes.items():
                self.system.info[index] = info
            yield
        finally:
            for index, info in saved.items():
                self.system.info[index] = info

    def _elements(self, name: str, value: Any, what: str) -> list[tuple[str, float]]:
        """(scalar name, float) pairs for a scalar or vector entry of ``params``/``start``."""
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
        locations, parameters = self._locations(), self._parameter_index()
        out = []
        while f"{name}[{len(out)}]" in locations or f"{name}[{len(out)}]" in parameters:
            out.append(f"{name}[{len(out)}]")
        return out or None

    def _parameter_index(self) -> dict[str, int]:
        idx = self._functions.get("param_index")
        if idx is None:
            idx = {n: i for i, n in enumerate(self.parameter_names)}
            self._functions["param_index"] = idx
        return idx

    def function(self, which: str) -> ca.Function:
        """CasADi Function ``ode``, ``alg``, ``observed`` or ``newton_step`` (one Newton step
        on the algebraic equations for z) with inputs (t, x, z, p)."""
        f = self._functions.get(which)
        if f is None:
            if which == "newton_step":
                jac = ca.jacobian(self.alg, self.z)
                out = self.z - ca.solve(jac, self.alg)
            elif which == "event_indicators":
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

    def _locations(self) -> dict[str, tuple[float, int]]:
        """Every variable name -> (sign, index into the observed vector); built once."""
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
        loc = self._locations()
        if name not in loc:
            hint = did_you_mean(name, list(loc) + self.parameter_names)
            raise UnknownNameError(f"'{name}' is not a variable of {self.model_name}.{hint}")
        return loc[name]

    def variable_names(self) -> list[str]:
        """Every variable name the model has (declared, derivatives, aliases)."""
        return sorted(self._locations())

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
        return (f"<CompiledSystem {self.model_name}: {self.n_states} states ({states}), "
                f"{self.z.numel()} algebraic, {self.system.n_eqs} equations, "
                f"{len(self.parameter_names)} parameters, {len(self.events)} events>")

    def _repr_html_(self) -> str:
        import html

        return (f"<b>CompiledSystem</b> <code>{html.escape(self.model_name)}</code>"
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
        return "\n".join(lines)

    def realization(self, dummies: set[int]) -> CompiledSystem:
        """The same model compiled for another choice of dummy derivatives (cached)."""
        if set(dummies) == set(self.dummies):
            return self
        cache = self._functions.setdefault("realizations", {})
        key = frozenset(dummies)
        other = cache.get(key)
        if other is None:
            other = realize(self.flat, self.system, self.aliases, set(dummies))
            other.selector = self.selector
            other.dynamic_selection = self.dynamic_selection
            other._functions["realizations"] = cache
            cache[key] = other
        return other

    def simulate(self, t_end: float, **options: Any):
        """Simulate this compiled system (see :func:`acausal.simulate`)."""
        from .simulate import simulate_compiled

        return simulate_compiled(self, t_end, **options)

    # -- beyond simulation (each in its own module, imported when used) ------------------------
    def linearize(self, t: float = 0.0, operating_point: Any = None, **options: Any):
        """State-space matrices (A, B, C, D) at an operating point (see
        :func:`acausal.linearize.linearize`)."""
        from .linearize import linearize

        return linearize(self, t, operating_point, **options)

    def trim(self, **options: Any):
        """A steady operating point: der(x) = 0 (see :func:`acausal.linearize.trim`)."""
        from .linearize import trim

        return trim(self, **options)

    def export_fmu(self, path: Any, fmi_version: str = "2.0", kind: str = "model-exchange",
                   **options: Any):
        """Write an FMU (FMI 2.0 model exchange) of this system (see
        :func:`acausal.fmu.export_fmu`)."""
        from .fmu import export_fmu

        return export_fmu(self, path, fmi_version=fmi_version, kind=kind, **options)

    def generate_c(self, directory: Any, **options: Any):
        """Write the model's functions as plain C (see :func:`acausal.export_c.generate_c`)."""
        from .export_c import generate_c

        return generate_c(self, directory, **options)


def _start_point(system: EquationSystem) -> dict[int, float]:
    point = {}
    for v, info in enumerate(system.info):
        if info is None:
            continue
        value = info.guess if info.guess is not None else info.start
        if value is not None:
            try:
                point[v] = float(value)
            except (TypeError, ValueError):
                pass
    return point


def compile_model(model: Component, stabilization: str | None = None, alpha: float = 10.0,
                  beta: float = 10.0, progress: bool | None = False) -> CompiledSystem:
    """Compile a model (a Component instance) into a :class:`CompiledSystem`.

    ``stabilization=None`` (default): index reduction by Pantelides and dummy derivatives, the
    constraints hold exactly. ``stabilization="baumgarte"``: the constraint-stabilised index-1
    formulation used in the multibody literature (J. Baumgarte, 1972): every constraint ``g``
    that index reduction differentiates twice is replaced by ``g'' + 2 alpha g' + beta^2 g = 0``
    (once: ``g' + 2 alpha g = 0``) and all positions and velocities are states, so the
    constraints drift slightly; ``alpha`` and ``beta`` [1/s] set how fast the drift decays.
    ``progress=True`` prints each stage and its time to stderr (``None``: on a terminal).
    """
    if stabilization not in (None, "baumgarte"):
        raise ModelDefinitionError(f"stabilization={stabilization!r}: use None (index "
                                   "reduction) or 'baumgarte'.")
    with _cyclic_gc_paused():
        return _compile(model, stabilization, alpha, beta, progress)


@contextlib.contextmanager
def _cyclic_gc_paused():
    """Pause Python's cyclic garbage collector while compiling.

    Compiling allocates hundreds of thousands of sympy and CasADi objects that all stay alive
    until the end; every full collection walks all of them, which made compile time grow faster
    than the model (it nearly doubled the compile time of a 1000-mass chain, see
    benchmarks/micro_costs.py).
    Reference counting still frees what is released; the collector runs again afterwards.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _compile(model: Component, stabilization: str | None, alpha: float, beta: float,
             progress: bool | None) -> CompiledSystem:
    timings: dict[str, float] = {}
    clock = _time.perf_counter()
    log = StageLog(f"compile {type(model).__name__}", progress_enabled(progress))

    def lap(name: str) -> None:
        nonlocal clock
        now = _time.perf_counter()
        timings[name] = now - clock
        log.stage(name, now - clock)
        clock = now

    flat = flatten(model)
    lap("flatten")
    with _loops_named_in(flat):
        return _compile_flat(flat, stabilization, alpha, beta, timings, lap)


@contextlib.contextmanager
def _loops_named_in(flat: FlatSystem):
    """A structural error among the parts of a closed loop of overdetermined connectors (a
    kinematic loop) is re-raised with the loop's components and the connector's advice for a
    loop whose closing equations are dependent (a planar loop of 3-D joints)."""
    try:
        yield
    except StructuralError as err:
        text = str(err)
        involved = [loop for loop in flat.loops
                    if any(_mentions_component(text, path) for path in loop.components)]
        if not involved:
            raise
        advice = []
        for loop in involved:
            advice.append(
                f"\nThese equations belong to the kinematic loop closed by "
                f"connect({loop.a.path}, {loop.b.path}), through "
                + ", ".join(f"'{c}'" for c in loop.components) + ". " + loop.hint)
        raise type(err)(text + "".join(advice)) from err


def _mentions_component(text: str, path: str) -> bool:
    return f"'{path}." in text or f" {path}." in text or f"{{{path}." in text


def _compile_flat(flat: FlatSystem, stabilization, alpha, beta, timings, lap) -> CompiledSystem:
    system = build_equation_system(flat)
    check_structure(system)
    lap("structure")
    reduced, aliases = eliminate_aliases(system)
    del system  # the unreduced system is not needed any more: free its memory for the next passes
    while has_alias_equations(reduced):  # substitution can create new ones (a = b + c, c = -b)
        reduced, second = eliminate_aliases(reduced)
        aliases = compose_alias_maps(aliases, second)
    lap("alias")
    matching = pantelides(reduced)
    del matching
    lap("pantelides")
    if stabilization == "baumgarte":
        reduced = baumgarte_system(reduced, alpha, beta)
        compiled = realize(flat, reduced, aliases, set())
        lap("blt and codegen")
        compiled.timings = timings
        return compiled
    param_values = {p.symbol: float(p.value) for p in flat.parameters}
    selector = StateSelector(reduced, param_values)
    dummies = selector.select(_start_point(reduced))
    lap("state selection")
    compiled = realize(flat, reduced, aliases, dummies)
    lap("blt and codegen")
    compiled.selector = selector
    compiled.dynamic_selection = (selector.decided_by_numbers
                                  and selector.level_size <= DYNAMIC_SELECTION_LIMIT)
    compiled.timings = timings
    return compiled


def baumgarte_system(system: EquationSystem, alpha: float, beta: float) -> EquationSystem:
    """Replace each differentiated equation chain by its Baumgarte-stabilised combination."""
    out = EquationSystem(symbols=list(system.symbols), info=list(system.info),
                         var_to_diff=list(system.var_to_diff),
                         diff_to_var=list(system.diff_to_var), residuals=[], incidence=[],
                         sources=[], eq_to_diff=[], diff_to_eq=[], parameters=system.parameters)
    out.index_of = dict(system.index_of)
    for e in range(system.n_eqs):
        if system.diff_to_eq[e] != -1:
            continue  # part of a chain, combined at its root
        chain = [e]
        while system.eq_to_diff[chain[-1]] != -1:
            chain.append(system.eq_to_diff[chain[-1]])
        if len(chain) == 1:
            out.add_equation(system.residuals[e], system.sources[e], list(system.incidence[e]))
            continue
        if len(chain) == 2:
            weights = [2.0 * alpha, 1.0]
        elif len(chain) == 3:
            weights = [beta**2, 2.0 * alpha, 1.0]
        else:
            raise StructurallySingularError(
                "Baumgarte stabilisation covers constraints of index 3 at most; this one is "
                f"differentiated {len(chain) - 1} times: {system.describe_eq(e)}")
        residual = sp.Add(*[w * system.residuals[k] for w, k in zip(weights, chain)])
        incidence = sorted({v for k in chain for v in system.incidence[k]})
        out.add_equation(residual, system.sources[e], incidence)
    return out


def realize(flat: FlatSystem, system: EquationSystem, aliases: AliasMap,
            dummies: set[int]) -> CompiledSystem:
    """Sort, tear and generate code for one choice of dummy derivatives."""
    states = states_after_selection(system, dummies)
    state_set = set(states)
    unknowns = [v for v in range(system.n_vars) if v not in state_set]
    blocks = blt(system, unknowns)
    return _generate(flat, system, aliases, dummies, states, blocks)


def _generate(flat, system: EquationSystem, aliases, dummies, states, blocks):
    t = ca.SX.sym("t")
    x = ca.SX.sym("x", len(states))
    p = ca.SX.sym("p", len(flat.parameters))
    values: dict[sp.Symbol, Any] = {time: t}
    for i, prm in enumerate(flat.parameters):
        values[prm.symbol] = p[i]
    for i, v in enumerate(states):
        values[system.symbols[v]] = x[i]
    z_syms: list[ca.SX] = []
    algebraics: list[int] = []
    alg_res: list[ca.SX] = []
    alg_labels: list[str] = []
    global_tr = Translator(values)
    for block in blocks:
        torn = tear_block(system, block)
        if not torn.tears:
            for v, _, expr in torn.assignments:
                values[system.symbols[v]] = global_tr(expr)
            continue
        tear_syms = [system.symbols[v] for v in torn.tears]
        local = ca.SX.sym("tear", len(torn.tears))
        tr1 = Translator(ChainMap({s: local[i] for i, s in enumerate(tear_syms)}, values))
        # assigned variables inside the loop, expressed in the tear variables
        for v, _, expr in torn.assignments:
            tr1.symbol_map.maps[0][system.symbols[v]] = tr1(expr)
        res = ca.vertcat(*[tr1(system.residuals[e]) for e in torn.residual_eqs])
        jac = ca.jacobian(res, local)
        solved = None
        if len(torn.tears) <= MAX_SYMBOLIC_LINEAR_LOOP and not ca.depends_on(jac, local):
            b = ca.substitute(res, local, ca.DM.zeros(len(torn.tears)))
            solved = ca.solve(jac, -b) if len(torn.tears) > 1 else -b / jac
            tear_values = [solved[i] for i in range(len(torn.tears))]
        else:
            tear_values = []
            for v in torn.tears:
                zi = ca.SX.sym(system.name(v))
                z_syms.append(zi)
                algebraics.append(v)
                tear_values.append(zi)
        tr2 = Translator(ChainMap({s: tear_values[i] for i, s in enumerate(tear_syms)}, values))
        for s, val in zip(tear_syms, tear_values):
            values[s] = val
        for v, _, expr in torn.assignments:
            values[system.symbols[v]] = tr2(expr)
            tr2.symbol_map.maps[0][system.symbols[v]] = values[system.symbols[v]]
        if solved is None:
            alg_res.extend(tr2(system.residuals[e]) for e in torn.residual_eqs)
            alg_labels.extend(system.describe_eq(e) for e in torn.residual_eqs)
    z = ca.vertcat(*z_syms) if z_syms else ca.SX(0, 1)
    ode = ca.vertcat(*[values[system.symbols[system.var_to_diff[v]]] for v in states]) \
        if states else ca.SX(0, 1)
    alg = ca.vertcat(*alg_res) if alg_res else ca.SX(0, 1)
    observed = ca.vertcat(*[values[s] for s in system.symbols])

    compiled = CompiledSystem(
        model_name=flat.model_name, flat=flat, system=system, aliases=aliases, dummies=dummies,
        states=states, algebraics=algebraics, t=t, x=x, z=z, p=p, ode=ode, alg=alg,
        observed=observed, parameter_names=[prm.name for prm in flat.parameters],
        parameter_values=np.array([float(prm.value) for prm in flat.parameters], dtype=float))
    compiled.algebraic_equations = alg_labels
    compiled.initial_residuals = _initial_residuals(flat, system, aliases, values)
    compiled.events = _compile_events(flat, system, aliases, values, states, x, p)
    return compiled


def _original_values(flat, system, aliases, values) -> tuple[dict, dict]:
    """SX value of every original (pre-alias) symbol, and of der() of each where it exists."""
    sym_values = dict(values)
    derivative_of: dict[sp.Symbol, Any] = {}
    for old, name in enumerate(aliases.names):
        sym = sp.Symbol(name, real=True)
        target, sign = aliases.target[old], aliases.sign[old]
        if target == -1:
            sym_values[sym], derivative_of[sym] = 0.0, 0.0
            continue
        sym_values[sym] = sign * values[system.symbols[target]]
        d = system.var_to_diff[target]
        if d != -1:
            derivative_of[sym] = sign * values[system.symbols[d]]
    return sym_values, derivative_of


def _with_derivatives(expr, derivative_of: dict, sym_values: dict, where: str):
    """Replace der(v) in an expression by placeholders whose SX value is the derivative."""
    if not expr.has(der):
        return expr
    rep = {}
    for d in expr.atoms(der):
        if d.args[0] not in derivative_of:
            raise UnknownNameError(f"{where} uses {d}, which the model does not have: only "
                                   "derivatives of states and of differentiated variables exist.")
        placeholder = sp.Dummy(f"der({d.args[0]})")
        sym_values[placeholder] = derivative_of[d.args[0]]
        rep[d] = placeholder
    return expr.xreplace(rep)


def _initial_residuals(flat, system, aliases, values):
    """User initial equations, translated to SX in (t, x, z, p) through the alias map."""
    if not flat.initial_equations:
        return []
    sym_values, derivative_of = _original_values(flat, system, aliases, values)
    out = []
    for eq in flat.initial_equations:
        residual = _with_derivatives(eq.residual, derivative_of, sym_values, eq.label)
        out.append((Translator(sym_values)(residual), eq.describe()))
    return out


@dataclass
class CompiledEvent:
    """One ``When`` clause in terms of (t, x, z, p) of one realisation."""

    label: str
    indicators: list  # SX zero-crossing functions (relations between continuous quantities)
    condition: Any  # SX, 1 where the clause's condition holds
    x_new: Any  # SX vector: the states after the actions (from pre-event values)
    p_new: Any  # SX vector: parameters and discrete variables after the actions
    # the condition with each indicator's relation replaced by a 0/1 input (SX vector
    # ``relation_inputs``, one per indicator): which relations can change the condition,
    # given the discrete variables (the run loop ignores crossings that cannot)
    gate: Any = None
    relation_inputs: Any = None


def _relations(cond) -> list:
    if isinstance(cond, sp.core.relational.Relational):
        return [cond]
    out = []
    for a in getattr(cond, "args", ()):
        if isinstance(a, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
            out.extend(_relations(a))
    return out


def _compile_events(flat, system, aliases, values, states, x, p) -> list[CompiledEvent]:
    if not flat.events:
        return []
    sym_values, derivative_of = _original_values(flat, system, aliases, values)
    discrete_syms = {prm.symbol for prm in flat.parameters if prm.discrete}
    param_index = {prm.symbol: i for i, prm in enumerate(flat.parameters)}
    state_pos = {v: i for i, v in enumerate(states)}
    name_index = {n: k for k, n in enumerate(aliases.names)}
    out = []
    for ev in flat.events:
        tr = Translator(sym_values)
        cond = _with_derivatives(ev.condition, derivative_of, sym_values, ev.label)
        indicators, switches = [], {}
        for rel in _relations(cond):
            if rel.free_symbols - set(param_index) - discrete_syms:  # continuous or time
                indicators.append(tr(rel.lhs - rel.rhs))
                switches[rel] = sp.Dummy(f"r{len(switches)}")
        b = ca.SX.sym("relations", len(switches))
        gate_map = ChainMap({d: b[k] for k, d in enumerate(switches.values())}, sym_values)
        gate = Translator(gate_map)(cond.xreplace({rel: sp.Gt(d, sp.Rational(1, 2))
                                                   for rel, d in switches.items()}))
        x_new = [x[i] for i in range(x.numel())]
        p_new = [p[i] for i in range(p.numel())]
        for action in ev.actions:
            value = tr(_with_derivatives(sp.sympify(action.value), derivative_of, sym_values,
                                         ev.label))
            if action.kind == "assign":
                p_new[param_index[action.target]] = value
                continue
            old = name_index[action.target.name]
            target, sign = aliases.target[old], aliases.sign[old]
            if target == -1 or target not in state_pos:
                names = ", ".join(system.name(v) for v in states) or "none"
                raise ModelDefinitionError(
                    f"{ev.label}: reinit({action.target}, ...) needs a state, but after index "
                    f"reduction '{action.target}' is not one (states: {names}). Reinit a "
                    "state, or give the variable a higher state_priority.")
            x_new[state_pos[target]] = value / sign
        out.append(CompiledEvent(ev.label, indicators, tr(cond),
                                 ca.vertcat(*x_new) if x_new else ca.SX(0, 1),
                                 ca.vertcat(*p_new) if p_new else ca.SX(0, 1),
                                 gate=ca.SX(gate) if not isinstance(gate, ca.SX) else gate,
                                 relation_inputs=b))
    return out
