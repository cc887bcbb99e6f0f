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

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..base.errors import ModelDefinitionError, ParameterError, did_you_mean
from .construction import MAX_NESTING, CallSite, binding_level, call_site, guard_construction
from .declarations import (
    MISSING,
    BoundParameter,
    BoundVariable,
    Flow,
    Input,
    Parameter,
    Potential,
    Variable,
    as_computed,
    as_input,
    as_number,
    check_bounds,
    check_structural,
    make_symbol,
    sets_start,
)
from .rules import check_rules, class_rules
from .symbolic import real_symbol

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


# Construction: endless self-construction reported, deep legal nesting allowed (the recursion
# limit raised as it deepens), and errors raised while a part is created named by its path; see
# acausal.language.construction. _guard_construction is kept under its old name.
_guard_construction = guard_construction


def _reserved(cls: type, key: str) -> bool:
    """Whether ``key`` is an attribute acausal's own component classes define (``path``,
    ``equations``, ``compile``, ...): a part or variable of that name would hide it."""
    return any(klass.__module__ == __name__ and key in vars(klass)
               and not _is_declaration(vars(klass)[key]) for klass in cls.__mro__)


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
        object.__setattr__(obj, "_declared_in", None)
        return obj

    def __set_name__(self, owner: type, name: str) -> None:
        # a template declared in a class body: the class and attribute, named by an error
        # about a connector of a part that is not in the model (unbound_connector_message)
        if self._declared_in is None:
            object.__setattr__(self, "_declared_in", (owner.__name__, name))

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
                    if _reserved(cls, key):
                        raise ModelDefinitionError(
                            f"{klass.__name__}.{key}: '{key}' is a name acausal uses on every "
                            "component; give the part or variable another name (e.g. "
                            f"'{key}_').")
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
        if not key.startswith("_") and _is_declaration(value) and _reserved(type(self), key):
            raise ModelDefinitionError(
                f"{type(self).__name__}: '{key}' is a name acausal uses on every component "
                f"({type(self).__name__}.{key}); give the part or variable another name (e.g. "
                f"'{key}_'), in __init__ and in the connections.")
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
            if isinstance(value, Node) and value._declared_in is None:
                object.__setattr__(value, "_declared_in", (type(self).__name__, key))
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
        overrides = self._overrides
        for name, decl in self._declarations().items():
            full = prefix + name
            # most declarations are not overridden: the override's markers are looked for
            # only where there is one (this loop runs for every declaration of a large model)
            override = overrides.get(name, MISSING) if overrides else MISSING
            if override is not MISSING:
                if isinstance(override, Input):
                    decl, override = as_input(decl, override, full), MISSING
                elif isinstance(override, Parameter):
                    decl, override = as_computed(decl, override, full), MISSING
            if isinstance(decl, Outer):
                outers.append((name, decl))
                continue
            if isinstance(decl, Parameter):
                value = decl.default if override is MISSING else override
                if decl.structural:
                    check_structural(value, full, f"{type(self).__name__} '{path}'" if path
                                     else f"{type(self).__name__} (the model)", decl)
                    object.__setattr__(self, name, value)
                    continue
                if value is None:
                    raise ParameterError(f"Parameter '{name}' of component '{path or '<root>'}' "
                                         "has no value: give one when creating the component.")
                number = as_number(value, name, path or f"{type(self).__name__} (the model)",
                                    decl.default)
                if isinstance(number, tuple):
                    for k, item in enumerate(number):
                        check_bounds(f"{full}[{k}]", item, decl.min, decl.max, decl.description,
                                     low_exclusive=decl.min_exclusive,
                                     high_exclusive=decl.max_exclusive)
                    symbol = make_symbol(full, (len(number),))
                else:
                    check_bounds(full, number, decl.min, decl.max, decl.description,
                                 low_exclusive=decl.min_exclusive,
                                 high_exclusive=decl.max_exclusive)
                    symbol = make_symbol(full, ())
                parameters.append(BoundParameter(full, symbol, number, decl, self))
                object.__setattr__(self, name, symbol)
            elif isinstance(decl, Variable):
                merged = decl if override is MISSING else decl.merged(override)
                shape = merged._given.get("shape")  # most variables are scalars: no shape given
                symbol = real_symbol(full) if shape is None else make_symbol(full, tuple(shape))
                depth = full.count(".")  # the depth of the component declaring the variable
                if override is not MISSING and sets_start(override):
                    depth -= 1  # written by the parent that created the component
                variables.append(BoundVariable(full, symbol, merged, self, max(depth, 0)))
                object.__setattr__(self, name, symbol)
            else:  # a sub-component, a connector, or a list of them
                template = decl if override is MISSING else override
                if isinstance(template, Node):
                    own = name in instance_level and override is MISSING
                    child = template if own else template._fresh_copy()
                    object.__setattr__(child, "_parent", self)
                    _bind_child(child, full, None if own else template)
                    children.append(child)
                    object.__setattr__(self, name, child)
                else:
                    if not (isinstance(template, (list, tuple))
                            and all(isinstance(item, Node) for item in template)):
                        # an override such as Mass(flange_a=3.0): a TypeError below otherwise
                        kind = "connector" if isinstance(decl, Connector) else "part"
                        raise ModelDefinitionError(
                            f"'{full}' is a {kind} of {type(self).__name__}, but it was given "
                            f"{template!r} ({name}={template!r}): give a {type(decl).__name__} "
                            "or leave it out; connectors are joined by connect(a, b) in "
                            "connections(), not by a value.")
                    bound = []
                    own = name in instance_level and override is MISSING
                    for i, item in enumerate(template):
                        child = item if own else item._fresh_copy()
                        object.__setattr__(child, "_parent", self)
                        _bind_child(child, f"{full}[{i}]", None if own else item)
                        bound.append(child)
                    children.extend(bound)
                    object.__setattr__(self, name, bound)
        object.__setattr__(self, "_variables", variables)
        object.__setattr__(self, "_parameters", parameters)
        object.__setattr__(self, "_children", children)
        object.__setattr__(self, "_outers", outers)

    def parameter_values(self) -> dict[str, Any]:
        """The value of each parameter of this bound node, by name: a structural parameter's
        value, a numeric parameter's number (a tuple for a vector)."""
        numbers = {bp.name.rpartition(".")[2]: bp.number for bp in self._parameters}
        return {name: numbers[name] if name in numbers else getattr(self, name, decl.default)
                for name, decl in self._declarations().items() if isinstance(decl, Parameter)}

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


# Components without an __init__ of their own are created by Node.__init__: guarded too, so
# that every component under construction is one level (and its errors name it).
Node.__init__ = _guard_construction(Node.__init__)


def _bind_child(child: Node, path: str, template: Node | None) -> None:
    """Bind ``child`` at ``path``; ``template`` is the declaration it was copied from (None for
    a part created in ``__init__``, which is bound itself)."""
    with binding_level(template) as fresh:
        if not fresh:
            # binding copies a template; the same template further up: a class that contains
            # an instance of itself (directly or through its parts), copied without end
            raise ModelDefinitionError(
                f"{type(child).__name__} '{path}' contains itself: the declaration it is copied "
                f"from is being copied already further up ('{path.rpartition('.')[0]}' was "
                "made from it too), so binding would create parts without end. A component "
                "cannot contain an instance of itself; build repeated structures in __init__ "
                "with a size parameter.")
        child._bind(path)


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
        return tuple([(v.name.rpartition(".")[2], v.decl.kind, tuple(v.decl.get("shape")))
                      for v in self._variables])


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
    #: :mod:`acausal.language.templates`): ``equations()`` is then called for the first instance
    #: only and renamed for the others. Set False on a class whose equations depend on anything but
    #: its declarations, parts, structural parameters and plain attributes (its path, global
    #: state, a user function that is told the path).
    shares_equations: bool = True

    def equations(self) -> Iterable:
        return []

    def connections(self) -> Iterable:
        return []

    def initial_equations(self) -> Iterable:
        return []

    def structural_advice(self) -> str:
        """Advice that a structural error quotes when it names this bound component's
        variables ('' for none): what in its parameters or connections makes the equations
        singular (e.g. a free body without inertia). Override it to give such advice; it may
        use ``is_root`` and the component's values."""
        return ""

    #: Validity rules of the parameters (:class:`~acausal.language.rules.Rule`), checked when the
    #: model is flattened; the rules of the base classes apply too.
    parameter_rules: tuple = ()

    def check_parameters(self) -> None:
        """Check this bound component's parameters: its classes' ``parameter_rules``. Called by
        the compiler after binding and the connection graph (``is_root`` is known), before
        ``equations()``; a broken rule raises a ParameterError that names the component's path,
        the parameters and the rule. Override it (calling ``super().check_parameters()``) for a
        check no rule can state; raise :class:`~acausal.errors.ParameterError` naming
        ``self.path``."""
        rules = class_rules(type(self))
        if not rules:
            return
        computed = {bp.name.rpartition(".")[2] for bp in self._parameters if not bp.decl.fixed}
        where = f"{type(self).__name__} '{self._path}'" if self._path \
            else f"{type(self).__name__} (the model)"
        check_rules(where, rules, self.parameter_values(), computed)

    def visual_shapes(self) -> Iterable:
        """The shapes the 3-D viewer draws for this bound component
        (:class:`~acausal.language.visuals.Visual`, placed by its frames; none by default).
        Called when the model is compiled; may use the component's parameter values."""
        return []

    def monitors(self) -> Iterable:
        """What the run watches in this bound component
        (:class:`~acausal.language.monitors.StuckMonitor`: a friction contact reported when it
        stays stuck through a whole run; none by default). Called when the model is compiled."""
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
        if _compiler is None:  # only when acausal.language is used without the acausal package
            raise ModelDefinitionError("No compiler is registered: import acausal (its top "
                                       "package registers acausal.compile) before compiling.")
        return _compiler(self, **options)


# The compiler lives two layers above the language, so the language cannot import it. The top
# package (acausal/__init__.py, always imported before any of its sub-modules) registers
# acausal.compile here; Component.compile() calls it. Dependency inversion, not an import.
_compiler: Callable[..., Any] | None = None


def register_compiler(compile_function: Callable[..., Any]) -> None:
    """Make ``Component.compile()`` call ``compile_function`` (acausal registers
    :func:`acausal.compile` when it is imported)."""
    global _compiler
    _compiler = compile_function


def _resolve_outers(root: Component) -> None:
    """Point every ``Outer`` declaration at the nearest enclosing instance of its class.

    Modelica's rule: an ``outer`` element refers to the ``inner`` one of the nearest enclosing
    level that has one, so a sub-model's own World overrides the model's for its parts. Two
    instances at that one level would be ambiguous (bodies would silently take the first, with
    its gravity): that is refused, naming both."""
    stack: list[Node] = [root]
    while stack:
        node = stack.pop()
        stack.extend(node._children)
        for name, decl in node._outers:
            found = None
            anc = node
            while anc is not None and found is None:
                matches = [child for child in anc._children
                           if isinstance(child, decl.cls) and child is not node]
                if len(matches) > 1:
                    level = f"'{anc.path}'" if anc.path else "the model"
                    raise ModelDefinitionError(
                        f"{type(node).__name__} '{node.path}' uses the {decl.cls.__name__} of "
                        f"an enclosing level (Outer({decl.cls.__name__}), Modelica outer), but "
                        f"{level} has {len(matches)} of them: "
                        + ", ".join(f"'{m.path}'" for m in matches)
                        + f". Which one it means is ambiguous: keep one {decl.cls.__name__} per "
                        "level (a sub-model may have its own, which then serves its parts).")
                found = matches[0] if matches else None
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
    """A ``connect(a, b)`` statement, as returned by :meth:`Component.connections`; ``site``:
    where it was written (quoted when it connects a part that is not in the model);
    ``matched``: :func:`connect` compared the two connectors' variables already (both were
    bound), so flattening need not compare them again."""

    a: Connector
    b: Connector
    site: CallSite | None = field(default=None, compare=False, repr=False)
    matched: bool = field(default=False, compare=False, repr=False)


def connect(a: Connector, b: Connector) -> Connection:
    """Connect two connectors of the same kind: potentials become equal, flows sum to zero."""
    for k, c in enumerate((a, b)):
        if not isinstance(c, Connector):
            # name both arguments: the connector given with the wrong one locates the connect()
            shown = [x._path if isinstance(x, Node) and x._path else repr(x) for x in (a, b)]
            raise ModelDefinitionError(
                f"connect({shown[0]}, {shown[1]}): the {('first', 'second')[k]} argument is "
                f"{c!r} ({type(c).__name__}), not a connector. connect() takes two connectors "
                "(e.g. connect(self.mass.flange_a, self.spring.flange_b)), not a component, a "
                "variable or a number.")
    if a is b:
        where = a._path if a._path is not None else type(a).__name__
        raise ModelDefinitionError(f"connect({where}, {where}) connects a connector with itself, "
                                   "which states nothing: connect it to another connector.")
    matched = a._path is not None and b._path is not None
    if matched and a._signature() != b._signature():
        raise ModelDefinitionError(
            f"connect({a.path}, {b.path}): the connectors do not match "
            f"({type(a).__name__} has {[s[0] for s in a._signature()]}, {type(b).__name__} has "
            f"{[s[0] for s in b._signature()]}); connect connectors of the same kind.")
    return Connection(a, b, call_site(), matched)


def unbound_connector_message(where: str, conn: Connection, connector: Connector) -> str:
    """What to say about ``conn`` (stated by the component ``where``) whose ``connector`` has no
    path after binding: the connector of a part that is not in the model (created but not
    assigned to an attribute), or a connect() made in ``__init__``, before the parts exist as
    the model's own copies (there ``self.spring.flange_a`` is still the class's declaration)."""
    site = conn.site
    k = 0 if connector is conn.a else 1
    written = site.argument(k) if site is not None else None
    statement = None
    if site is not None:
        args = [site.argument(0), site.argument(1)]
        if None not in args:
            statement = f"connect({args[0]}, {args[1]}) ({site.where()})"
    statement = statement or f"a connect() of a {type(connector).__name__}"
    owner, name = getattr(connector, "_declared_in", None) or (None, None)
    what = written or f"a {type(connector).__name__}"
    if site is not None and site.constructing and "connections" not in site.function():
        return (
            f"{where}: {statement} was made in {site.function() or 'the module'}, while the "
            f"model was being created: there {what} is the declaration of the part's class, "
            "not the connector of the model's own part (parts get their connectors when the "
            "model is compiled). Return the connect() statements from connections() instead, "
            "which is called when the model is compiled: def connections(self): return "
            "[connect(...), ...].")
    holder = written.rpartition(".")[0] if written and "." in written else ""
    if holder and not holder.startswith("self.") and holder.isidentifier():
        # a part held by a variable (``spring = Spring(...)``, then ``spring.flange_a``)
        advice = (f"create {holder} as a child of the model instead of a variable: "
                  f"self.{holder} = ... in the model's __init__ (or {holder} = ... in its class "
                  f"body), and connect self.{written}")
    else:
        advice = ("add the part as a child of the model: assign it to an attribute of the "
                  "model or of one of its parts (self.name = Part(...) in __init__, or name = "
                  "Part(...) in the class body)")
    declared = f" ({name}, declared by {owner})" if name and owner and not written else ""
    return (
        f"{where}: {statement} connects {what}{declared}, a connector of a part that is not "
        f"in the model: the part was created but is not a child of the model; {advice}. (A "
        "list of parts must be complete when it is assigned: self.parts = [...], not "
        "self.parts = [] and append() afterwards.)")


