"""The modeling language: variables, parameters, connectors, components, connections.

A component is a class whose attributes declare what it is made of::

    class Mass(Component):
        m = Parameter(1.0, unit="kg", description="mass")
        flange = Flange()
        s = Variable(unit="m")
        v = Variable(unit="m/s")

        def equations(self):
            return [Eq(self.s, self.flange.s), Eq(der(self.s), self.v),
                    Eq(self.m * der(self.v), self.flange.f)]

Declarations are templates. When a model is compiled, the tree is *bound*: every component
instance gets its own copy of each declared sub-component and connector, and every variable and
parameter becomes a sympy symbol named by its dotted path (``oscillator.mass.s``). Inside
``equations()`` and ``connections()`` the attributes are those bound symbols and objects.

Sub-components can also be created in ``__init__`` (after ``super().__init__(**overrides)``),
singly or as lists, which is how models with a size parameter are written.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import sympy as sp

from .errors import ModelDefinitionError, ParameterError, did_you_mean
from .symbolic import real_symbol

_MISSING = object()


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
    unit, description:
        Documentation (SI units).
    state_priority:
        Preference for this variable to become a state when index reduction has to choose
        (higher is more preferred; default 0; Multibody.jl's joints use 10).
    shape:
        ``()`` for a scalar (default) or ``(n,)`` for an n-vector (a sympy column Matrix).
    nominal:
        Typical magnitude (Modelica's ``nominal``), in the variable's unit: the solvers scale the
        variable by it and its absolute tolerance is ``atol * nominal``. When not given it is
        derived from the start and initial values (see ``acausal.sundials.nominal_values``).
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
        unit: str | None = None,
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

    def __init__(self, default: Any = None, *, unit: str | None = None, description: str = "",
                 structural: bool | None = None, min: float | None = None,
                 max: float | None = None) -> None:  # min, max: Modelica's attribute names
        self.default = default
        self.unit = unit
        self.description = description
        if structural is None:
            structural = default is None or isinstance(default, (bool, str))
        self.structural = structural
        self.min = min
        self.max = max

    def bounds_text(self) -> str:
        """The admissible range as text, e.g. '>= 0' ('' when unbounded)."""
        return _range_text(self.min, self.max)

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
                 max: float | None = None) -> None:
        super().__init__(float(default), unit=unit, description=description, structural=False,
                         min=min, max=max)

    def __repr__(self) -> str:
        return f"Input({self.default!r}, unit={self.unit!r})"


def _as_input(decl: Any, marker: Input, full: str) -> Input:
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
                 description: str = "") -> None:
    """Raise ParameterError when ``value`` lies outside the declared ``[low, high]``.

    Declared bounds are the physically possible values of a parameter (Modelica's ``min`` and
    ``max`` attributes, e.g. a mass ``>= 0``): a value outside them is a mistake, not a model.
    """
    if (low is None or value >= low) and (high is None or value <= high):
        return
    what = f" ({description})" if description else ""
    raise ParameterError(f"Parameter '{name}'{what} is {value:g}, but it must be "
                         f"{_range_text(low, high)}: give a value in that range.")


def _range_text(low: float | None, high: float | None) -> str:
    return " and ".join(([f">= {low:g}"] if low is not None else [])
                        + ([f"<= {high:g}"] if high is not None else []))


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
        start = self.decl.get("start")
        guess = self.decl.get("guess")
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


def _sets_start(override) -> bool:
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


def _as_number(value, name, owner_path, default=None):
    """Convert a numeric parameter value to float(s), naming the parameter on failure.

    The shape must agree with the declared default's: a list for a scalar parameter (or a
    number for a vector one) is a mistake that sympy would otherwise report from deep inside.
    """
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


def _make_symbol(name: str, shape: tuple[int, ...]):
    if shape == ():
        return real_symbol(name)
    if len(shape) != 1:
        raise ModelDefinitionError(
            f"'{name}': only scalars and vectors (shape (n,)) are supported.")
    return sp.Matrix([real_symbol(f"{name}[{i}]") for i in range(shape[0])])


# --------------------------------------------------------------------------------------------
# Components and connectors
# --------------------------------------------------------------------------------------------


class Outer:
    """Declaration of a shared part found in an enclosing model (Modelica ``outer``).

    ``world = Outer(World)`` makes ``self.world`` the nearest instance of ``World`` that is a
    part of this component or of one of its enclosing components (searched from the inside
    out). When the model has none, one with default parameters is added at the root under the
    class name in lower case (as Modelica tools add a default ``inner``).
    """

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def __repr__(self) -> str:
        return f"Outer({self.cls.__name__})"


def _is_declaration(value) -> bool:
    if isinstance(value, (Variable, Parameter, Node, Outer)):
        return True
    return (isinstance(value, (list, tuple)) and len(value) > 0
            and all(isinstance(v, Node) for v in value))


def _declaration_kind(value) -> str:
    if isinstance(value, Parameter):
        return "parameter"
    if isinstance(value, Variable):
        return "variable"
    if isinstance(value, Outer):
        return "outer"
    return "part or connector"


def _shadows(before, after) -> bool:
    """Whether redeclaring ``before`` as ``after`` breaks the equations that use the name: a
    variable or a part replaced by something of another kind. A parameter may become a part
    (a source's reference expression replaced by a signal input is the usual case)."""
    return not isinstance(before, Parameter) and \
        _declaration_kind(before) != _declaration_kind(after)


# Deepest nesting of parts a model may have. Deeper nesting is a component that contains or
# builds itself without end (Python would stop with a RecursionError from deep inside).
MAX_NESTING = 100
_construction_depth = [0]


def _guard_construction(init):
    """Wrap a component class's ``__init__`` so that endless self-construction is reported."""

    @functools.wraps(init)
    def guarded(self, *args, **kwargs):
        _construction_depth[0] += 1
        try:
            if _construction_depth[0] > MAX_NESTING:
                raise ModelDefinitionError(
                    f"{type(self).__name__} builds itself recursively: creating it creates parts "
                    f"nested more than {MAX_NESTING} deep. A component cannot contain an instance "
                    "of itself; build repeated structures as a list of parts (see the chain "
                    "examples) or stop the recursion with a size parameter.")
            return init(self, *args, **kwargs)
        except RecursionError:
            raise ModelDefinitionError(
                f"{type(self).__name__} builds itself recursively (Python's recursion limit was "
                "reached while creating it): a component cannot contain an instance of itself; "
                "build repeated structures as a list of parts.") from None
        finally:
            _construction_depth[0] -= 1

    guarded._acausal_guarded = True
    return guarded


class Node:
    """Common base of :class:`Component` and :class:`Connector`: declarations and binding."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not getattr(init, "_acausal_guarded", False):
            cls.__init__ = _guard_construction(init)

    def __new__(cls, *args, **kwargs):
        obj = super().__new__(cls)
        # Remember the constructor call so that a declaration (template) can be instantiated
        # afresh for every place it is used.
        object.__setattr__(obj, "_init_call", (args, kwargs))
        object.__setattr__(obj, "_instance_decls", {})
        object.__setattr__(obj, "_path", None)
        return obj

    def __init__(self, **overrides: Any) -> None:
        known = self._class_declarations()
        for key in overrides:
            if key not in known:
                raise ModelDefinitionError(
                    f"{type(self).__name__} has no parameter, variable or part named '{key}'."
                    + did_you_mean(key, known) + " Known: " + ", ".join(known) + ".")
        object.__setattr__(self, "_overrides", dict(overrides))

    # -- declarations ------------------------------------------------------------------------
    @classmethod
    def _class_declarations(cls) -> dict[str, Any]:
        cached = cls.__dict__.get("_decl_cache")
        if cached is not None:
            return cached
        decls: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            for key, value in vars(klass).items():
                if key.startswith("_"):
                    continue
                if _is_declaration(value):
                    before = decls.get(key)
                    if before is not None and _shadows(before, value):
                        raise ModelDefinitionError(
                            f"{klass.__name__}.{key} is declared as a {_declaration_kind(value)}, "
                            f"but a base class of {cls.__name__} declares '{key}' as a "
                            f"{_declaration_kind(before)} (its equations use it as one): give "
                            "the new declaration another name.")
                    decls[key] = value
                elif key in decls:  # a subclass may remove a declaration by overriding it
                    del decls[key]
        type.__setattr__(cls, "_decl_cache", decls)
        return decls

    def __setattr__(self, key: str, value: Any) -> None:
        if not key.startswith("_") and _is_declaration(value):
            declared = self._class_declarations().get(key)
            if declared is not None and _shadows(declared, value):
                raise ModelDefinitionError(
                    f"{type(self).__name__}.{key} is declared as a {_declaration_kind(declared)}"
                    f" in the class, and __init__ assigns a {_declaration_kind(value)} to it: "
                    "give the new part another name.")
            if value is self:
                raise ModelDefinitionError(
                    f"{type(self).__name__}: '{key}' is the component itself; a component cannot "
                    "contain itself.")
            if self._path is not None:
                raise ModelDefinitionError(
                    f"Cannot add '{key}' to '{self._path or type(self).__name__}' after it was "
                    "bound (compiled): add parts in __init__.")
            self._instance_decls[key] = value
        object.__setattr__(self, key, value)

    def _declarations(self) -> dict[str, Any]:
        decls = dict(self._class_declarations())
        decls.update(self._instance_decls)
        return decls

    def _fresh_copy(self) -> Node:
        args, kwargs = self._init_call
        return type(self)(*args, **kwargs)

    # -- binding -------------------------------------------------------------------------------
    def _bind(self, path: str) -> None:
        """Create this node's symbols and bound children under the dotted ``path``."""
        object.__setattr__(self, "_path", path)
        if path.count(".") >= MAX_NESTING:
            raise ModelDefinitionError(
                f"Parts are nested more than {MAX_NESTING} deep at '{path[:120]}...': "
                f"{type(self).__name__} contains itself (directly or through its parts). A "
                "component cannot contain an instance of itself.")
        prefix = path + "." if path else ""
        variables: list[BoundVariable] = []
        parameters: list[BoundParameter] = []
        children: list[Node] = []
        instance_level = self._instance_decls
        outers: list[tuple[str, Outer]] = []
        for name, decl in self._declarations().items():
            override = self._overrides.get(name, _MISSING)
            full = prefix + name
            if isinstance(override, Input):
                decl, override = _as_input(decl, override, full), _MISSING
            if isinstance(decl, Outer):
                outers.append((name, decl))
                continue
            if isinstance(decl, Parameter):
                value = decl.default if override is _MISSING else override
                if decl.structural:
                    object.__setattr__(self, name, value)
                    continue
                if value is None:
                    raise ParameterError(f"Parameter '{name}' of component '{path or '<root>'}' "
                                         "has no value: give one when creating the component.")
                number = _as_number(value, name, path or f"{type(self).__name__} (the model)",
                                    decl.default)
                for k, item in enumerate(number if isinstance(number, tuple) else (number,)):
                    label = full if not isinstance(number, tuple) else f"{full}[{k}]"
                    check_bounds(label, item, decl.min, decl.max, decl.description)
                shape = (len(number),) if isinstance(number, tuple) else ()
                symbol = _make_symbol(full, shape)
                parameters.append(BoundParameter(full, symbol, number, decl, self))
                object.__setattr__(self, name, symbol)
            elif isinstance(decl, Variable):
                merged = decl if override is _MISSING else decl.merged(override)
                symbol = _make_symbol(full, tuple(merged.get("shape")))
                depth = full.count(".")  # the depth of the component declaring the variable
                if override is not _MISSING and _sets_start(override):
                    depth -= 1  # written by the parent that created the component
                variables.append(BoundVariable(full, symbol, merged, self, max(depth, 0)))
                object.__setattr__(self, name, symbol)
            else:  # a sub-component, a connector, or a list of them
                template = decl if override is _MISSING else override
                if isinstance(template, Node):
                    child = template if (name in instance_level and override is _MISSING) \
                        else template._fresh_copy()
                    object.__setattr__(child, "_parent", self)
                    child._bind(full)
                    children.append(child)
                    object.__setattr__(self, name, child)
                else:
                    bound = []
                    for i, item in enumerate(template):
                        child = item if (name in instance_level and override is _MISSING) \
                            else item._fresh_copy()
                        object.__setattr__(child, "_parent", self)
                        child._bind(f"{full}[{i}]")
                        bound.append(child)
                    children.extend(bound)
                    object.__setattr__(self, name, bound)
        object.__setattr__(self, "_variables", variables)
        object.__setattr__(self, "_parameters", parameters)
        object.__setattr__(self, "_children", children)
        object.__setattr__(self, "_outers", outers)

    @classmethod
    def declarations(cls) -> dict[str, Any]:
        """The declarations of this class (and its bases) in order: parameters, variables,
        connectors and parts, by attribute name."""
        return dict(cls._class_declarations())

    def walk(self):
        """This node and, depth first in declaration order, every part and connector below it
        (after binding, e.g. after compiling)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(getattr(node, "_children", [])))

    @property
    def path(self) -> str:
        """The dotted path of this node in the bound model ('' for the root)."""
        if self._path is None:
            raise ModelDefinitionError(f"{type(self).__name__} is not bound yet: compile the "
                                       "model (or call bind()) before asking for paths.")
        return self._path

    def __repr__(self) -> str:
        where = f" at '{self._path}'" if self._path else ""
        return f"<{type(self).__name__}{where}>"


class Connector(Node):
    """A connector: a set of potential and flow variables shared at a connection.

    Declare the variables with :class:`Potential` and :class:`Flow`. A connector declared with
    ``required=True`` must be connected (a model that leaves it open is an error).
    """

    def __init__(self, required: bool = False, **overrides: Any) -> None:
        super().__init__(**overrides)
        object.__setattr__(self, "required", required)

    def _bind(self, path: str) -> None:
        super()._bind(path)
        for var in self._variables:
            if not isinstance(var.decl, (Potential, Flow)):
                raise ModelDefinitionError(
                    f"Connector {type(self).__name__} declares '{var.name}' as a plain Variable: "
                    "declare connector variables as Potential(...) or Flow(...).")

    def _signature(self) -> tuple:
        return tuple((v.name.rsplit(".", 1)[-1], v.decl.kind, tuple(v.decl.get("shape")))
                     for v in self._variables)


class Component(Node):
    """Base class of every component and model.

    Override :meth:`equations` to return the component's relations (``sympy.Eq`` objects,
    residual expressions meaning ``expr = 0``, or matrix equations), and :meth:`connections` to
    return ``connect(...)`` statements between connectors of its parts. Optionally override
    :meth:`initial_equations` for relations that hold at the start time only.

    ``solver_hint`` (class attribute, optional): advice that a simulation error quotes when the
    component's variables are where the solver fails, e.g. what makes its equations singular
    and which parameter to change.

    ``equations()`` should be a function of the component's declarations, parts, structural
    parameters and plain attributes, as a Modelica class is: instances that agree in all of
    these share one derivation of the equations (``shares_equations``).
    """

    solver_hint: str = ""
    #: Whether instances of the same kind may share one derivation of their equations (see
    #: :mod:`acausal.templates`): ``equations()`` is then called for the first instance only
    #: and renamed for the others. Set False on a class whose equations depend on anything but
    #: its declarations, parts, structural parameters and plain attributes (its path, global
    #: state, a user function that is told the path).
    shares_equations: bool = True

    def equations(self) -> Iterable:
        return []

    def connections(self) -> Iterable:
        return []

    def initial_equations(self) -> Iterable:
        return []

    def events(self) -> Iterable:
        """``When`` clauses of this component (state events, time events)."""
        return []

    def bind(self) -> Component:
        """Bind this component as the root of a model (names relative to it); returns self."""
        if self._path is None:
            object.__setattr__(self, "_parent", None)
            self._bind("")
            _resolve_outers(self)
        elif self._path != "":
            raise ModelDefinitionError(f"'{self._path}' is part of another model: compile that "
                                       "model, or create a new instance to use it alone.")
        return self

    def compile(self, **options: Any):
        """Compile this model (see :func:`acausal.compile`)."""
        from .compiler import compile_model

        return compile_model(self, **options)


def _resolve_outers(root: Component) -> None:
    """Point every ``Outer`` declaration at the nearest enclosing instance of its class."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        stack.extend(node._children)
        for name, decl in node._outers:
            found = None
            anc = node
            while anc is not None and found is None:
                for child in anc._children:
                    if isinstance(child, decl.cls) and child is not node:
                        found = child
                        break
                anc = getattr(anc, "_parent", None)
            if found is None:
                found = _default_inner(root, decl.cls)
            object.__setattr__(node, name, found)


def _default_inner(root: Component, cls: type) -> Node:
    base = cls.__name__.lower()
    name, k = base, 1
    while name in root.__dict__ or name in root._declarations():
        k += 1
        name = f"{base}{k}"
    inner = cls()
    object.__setattr__(inner, "_parent", root)
    inner._bind(name)
    object.__setattr__(root, name, inner)
    root._children.append(inner)
    return inner


@dataclass(frozen=True)
class Connection:
    """A ``connect(a, b)`` statement, as returned by :meth:`Component.connections`."""

    a: Connector
    b: Connector


def connect(a: Connector, b: Connector) -> Connection:
    """Connect two connectors of the same kind: potentials become equal, flows sum to zero."""
    for c in (a, b):
        if not isinstance(c, Connector):
            raise ModelDefinitionError(f"connect() takes connectors, got {c!r}: connect the "
                                       "component's connector (e.g. body.frame_a), not the "
                                       "component or a variable.")
    if a is b:
        where = a._path if a._path is not None else type(a).__name__
        raise ModelDefinitionError(f"connect({where}, {where}) connects a connector with itself, "
                                   "which states nothing: connect it to another connector.")
    if a._path is not None and b._path is not None and a._signature() != b._signature():
        raise ModelDefinitionError(
            f"connect({a.path}, {b.path}): the connectors do not match "
            f"({type(a).__name__} has {[s[0] for s in a._signature()]}, {type(b).__name__} has "
            f"{[s[0] for s in b._signature()]}); connect connectors of the same kind.")
    return Connection(a, b)


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Action:
    """``reinit(state, value)`` or ``assign(discrete, value)`` inside a :class:`When`."""

    kind: str  # "reinit" or "assign"
    target: Any  # the bound sympy symbol
    value: Any  # sympy expression, evaluated with the values just before the event


def reinit(state: Any, value: Any) -> Action:
    """At the event, set the state ``state`` to ``value`` (Modelica ``reinit``)."""
    return Action("reinit", state, value)


def assign(discrete: Any, value: Any) -> Action:
    """At the event, set the discrete variable ``discrete`` to ``value``."""
    return Action("assign", discrete, value)


class When:
    """An event: when ``condition`` becomes true, the actions are applied.

    ``condition`` is a sympy relation (``self.h < 0``, ``time >= self.t_on``) or a logical
    combination of relations (``sympy.And``/``Or``/``Not``), also with discrete variables. The
    relations between continuous quantities are monitored for zero crossings; the clause fires
    at the instant the whole condition changes from false to true (not while it stays true, and
    not at the start time). Every action's value is computed from the values just before the
    event (``pre`` values); then all actions are applied together.
    """

    def __init__(self, condition: Any, *actions: Action) -> None:
        for a in actions:
            if not isinstance(a, Action):
                raise ModelDefinitionError(
                    f"When(...) takes reinit(...) or assign(...) actions, got {a!r}.")
        self.condition = condition
        self.actions = tuple(actions)

    def __repr__(self) -> str:
        return f"When({self.condition}, {', '.join(map(repr, self.actions))})"


# --------------------------------------------------------------------------------------------
# Overdetermined connectors (Modelica specification, section 9.4)
# --------------------------------------------------------------------------------------------


class Overdetermined:
    """A record of potentials with fewer degrees of freedom than numbers, declared on a
    :class:`Connector` class as ``overdetermined = Overdetermined(...)``.

    A rotation matrix is the usual case: 9 numbers, 3 freedoms. Equating all 9 numbers around
    a closed kinematic loop would state 6 equations too many, so the compiler treats the record
    as Modelica does (section 9.4): the connectors that carry it form a *virtual connection
    graph* (connect statements are breakable edges, :func:`branch` statements rigid ones); one
    root per connected part (:func:`root`, else the :func:`potential_root` with the smallest
    priority) and a spanning tree are chosen, deterministically; a connect edge of the tree
    equates the record element by element, and a connect edge that closes a loop gives
    ``residue(a, b)`` instead: as many equations as the record has freedoms.

    Parameters
    ----------
    names:
        The connector's potentials that form the record (e.g. ``"T", "w"``: the orientation
        matrix and the angular velocity that travels with it).
    residue:
        ``residue(a, b) -> list of expressions``, zero when the records ``a`` and ``b`` agree;
        ``a`` and ``b`` map each name to its bound value (a symbol or a sympy column Matrix).
    loop_hint:
        Advice that an error quotes when a loop's residue is redundant (its equations are
        dependent, e.g. a planar loop of 3-D joints): what the user should do about it.
    """

    def __init__(self, *names: str, residue, loop_hint: str = "") -> None:
        if not names or not callable(residue):
            raise ModelDefinitionError("Overdetermined(*names, residue=function): give the "
                                       "record's potential names and its residue function.")
        self.names = tuple(names)
        self.residue = residue
        self.loop_hint = loop_hint

    def __repr__(self) -> str:
        return f"Overdetermined({', '.join(self.names)})"


@dataclass(frozen=True)
class Branch:
    """``branch(a, b)``: the overdetermined records of ``a`` and ``b`` are rigidly related by
    the component's own equations (Modelica ``Connections.branch``)."""

    a: Connector
    b: Connector


@dataclass(frozen=True)
class Root:
    """``root(a)`` or ``potential_root(a, priority)`` (Modelica ``Connections.root`` and
    ``Connections.potentialRoot``)."""

    connector: Connector
    definite: bool
    priority: int = 0


def _check_overdetermined(c: Any, what: str) -> None:
    if not isinstance(c, Connector) or getattr(type(c), "overdetermined", None) is None:
        raise ModelDefinitionError(
            f"{what} takes a connector with an overdetermined record (a connector class that "
            f"declares overdetermined = Overdetermined(...)), got {c!r}.")


def branch(a: Connector, b: Connector) -> Branch:
    """Declare (in ``connections()``) that the component's equations relate the overdetermined
    records of ``a`` and ``b`` rigidly, e.g. ``frame_b.T = R_rel * frame_a.T`` in a joint."""
    _check_overdetermined(a, "branch()")
    _check_overdetermined(b, "branch()")
    return Branch(a, b)


def root(a: Connector) -> Root:
    """Declare (in ``connections()``) that ``a``'s overdetermined record is given by the
    component (a definite root, such as the world frame)."""
    _check_overdetermined(a, "root()")
    return Root(a, True)


def potential_root(a: Connector, priority: int = 0) -> Root:
    """Declare (in ``connections()``) that ``a``'s record *may* be a root: chosen when nothing
    else roots its part of the graph (a free body); the smallest ``priority`` wins."""
    _check_overdetermined(a, "potential_root()")
    return Root(a, False, int(priority))


def is_root(a: Connector) -> bool:
    """Whether ``a``'s overdetermined record was selected as the root of its part of the
    connection graph (Modelica ``Connections.isRoot``). Call it in ``equations()``."""
    _check_overdetermined(a, "is_root()")
    flag = getattr(a, "_graph_root", None)
    if flag is None:
        raise ModelDefinitionError(f"is_root({a!r}) is known once the connection graph is built: "
                                   "call it in equations(), not in connections().")
    return flag


def rooted(a: Connector) -> bool:
    """For ``branch(a, b)``: whether ``a`` is closer to the root of the spanning tree than ``b``
    (Modelica ``Connections.rooted``), i.e. whether the component should compute ``b``'s record
    from ``a``'s (True) or ``a``'s from ``b``'s (False). Call it in ``equations()``."""
    _check_overdetermined(a, "rooted()")
    flag = getattr(a, "_rooted", None)
    if flag is None:
        raise ModelDefinitionError(
            f"rooted({a!r}) needs a branch({a!r}, b) statement with this connector first, and is "
            "known once the connection graph is built: call it in equations().")
    return flag
