"""Flattening: from a tree of components to one flat list of variables, parameters, equations.

Connection semantics follow the Modelica specification (section 9.2): every ``connect`` adds an
edge between two connector *elements*; an element is *inside* when the connector belongs to a
sub-component of the component that states the connect, *outside* when it is the component's own
connector. Each connected set of elements gives

* potentials: all equal;
* flows: sum over inside elements minus sum over outside elements equals zero;

and every flow of a connector that is never an inside element of any connection is zero
(an open flange transmits no force). Each equation keeps its origin (component path and a label)
so that errors can name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from ..base.errors import AcausalError, ModelDefinitionError, UnconnectedConnectorError
from ..language.connection_graph import Loop, build_connection_graph
from ..language.declarations import BoundParameter, BoundVariable, Input, Parameter
from ..language.events import When, assign
from ..language.model import Component, Connection, Connector, Node, unbound_connector_message
from ..language.monitors import StuckMonitor, check_monitor
from ..language.overdetermined import Branch, Root
from ..language.symbolic import (
    UnitFree,
    der,
    event_if,
    initial,
    matrix_residuals,
    residual,
    sum_of,
    time,
)
from ..language.templates import LazyRenamed, TemplateCache
from ..language.visuals import Visual, check_visual
from .connection_check import UNCONNECTED_FLOW, ConnectionTopology, connection_topology


@dataclass(slots=True)
class FlatVariable:
    """One scalar unknown of the flat model."""

    name: str
    symbol: sp.Symbol
    start: Any
    fixed: bool
    guess: Any
    unit: str | None
    description: str
    state_priority: float
    origin: str  # path of the declaring component (or connector)
    kind: str  # "variable", "potential" or "flow"
    nominal: float | None = None  # typical magnitude (Modelica nominal); None: derived
    start_depth: int = 0  # where the start was written (smaller: higher up, stronger)


@dataclass(slots=True)
class FlatParameter:
    """One scalar numeric parameter of the flat model."""

    name: str
    symbol: sp.Symbol
    value: float
    unit: str | None
    description: str
    origin: str
    discrete: bool = False  # a discrete variable: an input that changes only at events
    follows: Any = None  # for event_if branches: the condition whose value it tracks
    min: float | None = None  # declared bounds (Parameter(min=..., max=...)), checked on change
    max: float | None = None
    is_input: bool = False  # declared with Input: a run-time input (linearize, FMU causality)
    fixed: bool = True  # False: computed at initialisation (value: its start guess)
    min_exclusive: bool = False  # the bound itself is outside the range (Parameter(min=0,
    max_exclusive: bool = False  # min_exclusive=True): '> 0')


@dataclass
class FlatEvent:
    """A ``When`` clause after flattening (symbols are the flat names)."""

    condition: Any
    actions: tuple
    origin: str
    label: str


@dataclass(slots=True)
class FlatEquation:
    """One scalar equation ``residual = 0`` with where it came from."""

    residual: sp.Expr
    origin: str  # component path, '' for the root
    label: str  # human-readable description of where it came from
    # the relation as the user wrote it (sympy Eq), for printing; a LazyRelation or
    # LazyRenamed until it is first printed
    display: Any = None
    # known to contain neither der() of an expression nor event_if, so the rewrites at the end
    # of flattening can skip it (False: not known, look)
    plain: bool = False
    # whether the unit check looks at it: False for an equation marked unit_free(...), for
    # a copy of an already checked template equation (same units under other names) and for a
    # connection equation whose members declare one unit string
    check_units: bool = True

    def relation(self) -> sp.Basic:
        if isinstance(self.display, (LazyRelation, LazyRenamed)):
            self.display = self.display.resolve()
        if self.display is not None:
            return self.display
        return sp.Eq(self.residual, 0, evaluate=False)

    def describe(self) -> str:
        return f"{self.label}: {sp.sstr(self.relation())}"


@dataclass
class FlatSystem:
    """The flattened model: everything the structural passes need, nothing hierarchical."""

    model_name: str
    variables: list[FlatVariable]
    parameters: list[FlatParameter]
    equations: list[FlatEquation]
    initial_equations: list[FlatEquation] = field(default_factory=list)
    events: list[FlatEvent] = field(default_factory=list)
    hints: dict[str, str] = field(default_factory=dict)  # component path -> solver_hint
    # dotted name -> value of every structural parameter (set when the model is built)
    structural: dict[str, Any] = field(default_factory=dict)
    # loops of overdetermined connectors closed by a residue (see acausal.language.connection_graph)
    loops: list[Loop] = field(default_factory=list)
    # what the 3-D viewer draws: every component's Visual shapes, frames by full path
    visuals: list[Visual] = field(default_factory=list)
    # what the run watches (friction contacts stuck through a run): acausal.run.stuck_report
    monitors: list[StuckMonitor] = field(default_factory=list)
    # open connectors and islands, for the diagnostics of a forgotten connect
    topology: ConnectionTopology | None = None

    def hint_for(self, path: str) -> str:
        """The ``solver_hint`` of the component at ``path`` or of the nearest one above it."""
        while True:
            if path in self.hints:
                return self.hints[path]
            if not path:
                return ""
            path = path.rpartition(".")[0]

    def equations_as_sympy(self) -> list[sp.Basic]:
        return [e.relation() for e in self.equations]


class LazyRelation:
    """``lhs = rhs`` as a sympy relation, built only when it is printed."""

    __slots__ = ("lhs", "rhs")

    def __init__(self, lhs: Any, rhs: Any) -> None:
        self.lhs = lhs
        self.rhs = rhs

    def resolve(self) -> sp.Basic:
        return sp.Eq(self.lhs, self.rhs, evaluate=False)


def is_plain(residual: sp.Expr) -> bool:
    """Whether a residual has neither ``der`` of an expression nor ``event_if`` (what the
    rewrites at the end of flattening look for)."""
    return not residual.has(event_if) and all(d.args[0].is_Symbol or isinstance(d.args[0], der)
                                              for d in residual.atoms(der))


def _describe_component(node: Node) -> str:
    return f"{type(node).__name__} '{node.path or '<root>'}'"


def _to_residuals(item: Any, where: str) -> list[tuple[sp.Expr, Any]]:
    """Normalise one user relation into scalar residuals (with the relation for display)."""
    if isinstance(item, sp.Equality):
        lhs, rhs = item.lhs, item.rhs
        if isinstance(lhs, sp.MatrixBase) or isinstance(rhs, sp.MatrixBase):
            return matrix_residuals(lhs, rhs, where)  # refuses sides of different shapes
        return [(residual(lhs, rhs), item)]
    if isinstance(item, sp.MatrixBase):
        return [(item[i], None) for i in range(item.shape[0] * item.shape[1])]
    if isinstance(item, (bool, sp.logic.boolalg.BooleanAtom)):
        raise ModelDefinitionError(
            f"{where} is the constant {item}: sympy evaluated the relation before acausal saw "
            "it (sympy.Eq(x, x) is True; sympy.Eq of a vector and a scalar is False). Write a "
            "relation between different expressions with acausal's Eq, which does not evaluate "
            "(a vector equation with the same shape on both sides, e.g. Eq(self.r, [0, 0, 0])).")
    if isinstance(item, (sp.Expr, int, float)):
        return [(sp.sympify(item), None)]
    raise ModelDefinitionError(
        f"{where} is a {type(item).__name__} ({item!r}): equations() must return sympy.Eq "
        "relations, residual expressions or matrix equations.")


class _user_code:  # noqa: N801 - used as a function: with _user_code(where, method)
    """Errors raised while a component's own method runs (a sympy operation on something that
    is not an expression, a misspelled attribute) are reported with the component's path.

    A class rather than a generator context manager: it wraps several calls per component, and
    entering and leaving it costs a fifth as much."""

    __slots__ = ("where", "method")

    def __init__(self, where: str, method: str) -> None:
        self.where = where
        self.method = method

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, exc: BaseException | None, traceback: Any) -> bool:
        if exc is None or isinstance(exc, AcausalError):
            return False
        where, method = self.where, self.method
        if isinstance(exc, RecursionError):
            raise ModelDefinitionError(f"{where}.{method}() recursed without end: a component's "
                                       "methods must not call themselves.") from None
        if isinstance(exc, (sp.SympifyError, TypeError, ValueError, AttributeError, IndexError,
                            KeyError, ZeroDivisionError)):
            raise ModelDefinitionError(
                f"{where}.{method}() failed with {type(exc).__name__}: "
                f"{str(exc).rstrip('.')}. Check the expressions it builds (every name must be a "
                "variable, parameter or number of the component, and a part is not a "
                "number).") from exc
        return False


def _component_equations(comp: Component, where: str, var_symbols: set) -> list[tuple]:
    """(residual, display, number, plain, unit-checked) of each scalar equation of
    ``comp.equations()``, with der() of expressions expanded by the chain rule."""
    out = []
    with _user_code(where, "equations"):
        for i, item in enumerate(_iter_relations(comp.equations()), start=1):
            checked = not isinstance(item, UnitFree)
            if not checked:
                item = item.relation
            for expr, display in _to_residuals(item, f"equation {i} of {where}"):
                if expr.has(der):
                    expr = _expanded_derivatives(expr, var_symbols)
                out.append((expr, display, i, is_plain(expr), checked))
    return out


def _iter_relations(items: Any):
    if items is None:
        return
    if isinstance(items, (sp.Basic, sp.MatrixBase, bool, int, float)):
        yield items
        return
    for item in items:
        if isinstance(item, (list, tuple)):
            yield from _iter_relations(item)
        else:
            yield item


def flatten(model: Component, share_templates: bool = True) -> FlatSystem:
    """Bind ``model`` as a root and return its flat system of equations.

    ``share_templates=False`` calls every component's ``equations()`` instead of renaming the
    equations of the first instance of its kind (see :mod:`acausal.language.templates`); the
    result is the same, only slower (the tests compare the two).
    """
    if not isinstance(model, Component):
        raise ModelDefinitionError(f"Expected a Component instance to compile, got {model!r}.")
    model.bind()

    components: list[Component] = []
    connectors: list[Connector] = []
    stack: list[Node] = [model]
    while stack:  # depth-first, in declaration order
        node = stack.pop()
        if isinstance(node, Component):
            components.append(node)
        else:
            connectors.append(node)
        stack.extend(reversed(node._children))

    variables: list[FlatVariable] = []
    parameters: list[FlatParameter] = []
    fields: dict = {}
    for node in components + connectors:
        for bv in node._variables:
            if bv.decl.kind == "discrete":
                for name, symbol, start, _ in bv.scalars():
                    parameters.append(FlatParameter(
                        name, symbol, 0.0 if start is None else float(start), bv.decl.get("unit"),
                        bv.decl.get("description"), node.path, discrete=True))
                continue
            variables.extend(_flat_variables(bv, node, fields))
        for bp in node._parameters:
            parameters.extend(_flat_parameters(bp, node, fields))

    equations: list[FlatEquation] = []
    initial: list[FlatEquation] = []
    events: list[FlatEvent] = []
    connection_sets = _ConnectionSets()
    in_model = {id(c) for c in connectors}
    var_symbols = {v.symbol for v in variables}
    overdetermined = [c for c in connectors if getattr(type(c), "overdetermined", None)]
    graph_connects: list[tuple] = []
    graph_branches: list[tuple] = []
    graph_roots: list[tuple] = []
    # each component as its errors name it, made once (five loops below report by it)
    described = [(comp, _describe_component(comp)) for comp in components]
    for comp, where in described:
        if not _declares(comp, "connections"):
            continue
        with _user_code(where, "connections"):
            connections = list(_iter_relations(comp.connections()))
        for conn in connections:
            if isinstance(conn, (Branch, Root)):
                _check_graph_statement(conn, comp, where, in_model)
                if isinstance(conn, Branch):
                    graph_branches.append((conn.a, conn.b, comp.path))
                else:
                    graph_roots.append((conn.connector, conn.definite, conn.priority, comp.path))
                continue
            if not isinstance(conn, Connection):
                raise ModelDefinitionError(
                    f"{where}.connections() returned {conn!r}: return connect(a, b) statements "
                    "(or branch, root, potential_root statements).")
            ends = []
            for c in (conn.a, conn.b):
                if c._path is None:  # names the part and says to add it as a child
                    raise ModelDefinitionError(unbound_connector_message(where, conn, c))
                if id(c) not in in_model or not _belongs_to(c, comp):
                    raise ModelDefinitionError(
                        f"{where} connects {c!r}, which is not a connector of this component or "
                        "of one of its parts: connect only connectors inside the component.")
                role = "outside" if c.path.rpartition(".")[0] == comp.path and \
                    _owned_by(c, comp) else "inside"
                ends.append((c.path, role))
            a, b = ends
            if not conn.matched and conn.a._signature() != conn.b._signature():
                raise ModelDefinitionError(
                    f"connect({conn.a.path}, {conn.b.path}) in {where}: the connectors do not "
                    "match; connect connectors of the same kind.")
            connection_sets.join(a, b)
            if getattr(type(conn.a), "overdetermined", None) is not None:
                graph_connects.append((conn.a, conn.b, comp.path))
    graph = build_connection_graph(overdetermined, graph_connects, graph_branches, graph_roots) \
        if overdetermined else None
    # the parameters' validity rules, before equations() reads the values; after the
    # connection graph, so that a check may depend on the structure (is_root: a free body)
    for comp, where in described:
        with _user_code(where, "check_parameters"):
            comp.check_parameters()

    templates = TemplateCache()
    for comp, where in described:
        key = templates.key(comp) if share_templates else None
        template = templates.lookup(key) if key is not None else None
        if template is not None:
            # a copy of the first instance's equations: the unit check saw them there
            path = comp.path
            equations.extend([FlatEquation(expr, path, f"equation {i} of {where}", display,
                                           plain, False)
                              for expr, display, i, plain, _ in templates.instantiate(template,
                                                                                      comp)])
        else:
            own = _component_equations(comp, where, var_symbols)
            if key is not None and not templates.known(key):
                templates.record(key, comp, own)
            equations.extend(FlatEquation(expr, comp.path, f"equation {i} of {where}", display,
                                          plain, checked)
                             for expr, display, i, plain, checked in own)
        if _declares(comp, "initial_equations"):
            with _user_code(where, "initial_equations"):
                for i, item in enumerate(_iter_relations(comp.initial_equations()), start=1):
                    label = f"initial equation {i} of {where}"
                    checked = not isinstance(item, UnitFree)
                    for expr, display in _to_residuals(item if checked else item.relation,
                                                       label):
                        initial.append(FlatEquation(expr, comp.path, label, display,
                                                    check_units=checked))
        clauses = []
        if _declares(comp, "events"):
            with _user_code(where, "events"):
                clauses = list(comp.events() or ())
        for i, when in enumerate(clauses, start=1):
            if not isinstance(when, When):
                raise ModelDefinitionError(f"{where}.events() returned {when!r}: return When(...) "
                                           "clauses.")
            events.append(FlatEvent(when.condition, when.actions, comp.path,
                                    f"event {i} of {where}"))
    by_path = {c.path: c for c in connectors}
    inside_connected: set[str] = set()
    sets = connection_sets.sets()
    for nodes in sets:
        equations.extend(_connection_set_equations(nodes, by_path))
        inside_connected.update(path for path, role in nodes if role == "inside")
    if graph is not None:
        equations.extend(_overdetermined_equations(graph))

    any_open = False
    for c in connectors:
        if c.path in inside_connected:
            continue
        any_open = True
        if getattr(c, "required", False):
            raise UnconnectedConnectorError(
                f"Connector '{c.path}' ({type(c).__name__}) is required but not connected: "
                f"connect it to another connector in the model that contains "
                f"'{c.path.rpartition('.')[0] or '<root>'}'.")
        for bv in c._variables:
            if bv.decl.kind == "flow":
                for name, symbol, _, _ in bv.scalars():
                    equations.append(FlatEquation(
                        symbol, c.path, f"{UNCONNECTED_FLOW} {name} = 0",
                        LazyRelation(symbol, sp.S.Zero), plain=True))

    flat = FlatSystem(type(model).__name__, variables, parameters, equations, initial, events)
    flat.loops = graph.loops if graph is not None else []
    flat.hints = {c.path: type(c).solver_hint for c in components if type(c).solver_hint}
    flat.visuals = _visuals(described)
    flat.monitors = _monitors(described, variables, parameters)
    # the diagnostics read the topology only when some connector is open (a model whose
    # connectors are all connected, most large ones, is spared walking its connection graph)
    flat.topology = connection_topology(components, connectors, sets, inside_connected, graph,
                                        graph_roots) if any_open else ConnectionTopology()
    flat.structural = {(c.path + "." if c.path else "") + name: getattr(c, name, decl.default)
                       for c in components for name, decl in _structural_declarations(c)}
    _expand_derivatives_of_expressions(flat, var_symbols)
    _lower_event_ifs(flat)
    _check_events(flat, var_symbols)
    return flat


def _declares(comp: Component, method: str) -> bool:
    """Whether ``comp`` has a ``method`` of its own (of its class, or set on the instance)
    rather than Component's, which returns nothing: the default is not called (most parts have
    no connections, initial equations, events, monitors or shapes, and a model can have
    thousands of parts)."""
    return getattr(type(comp), method) is not getattr(Component, method) or method in vars(comp)


def _monitors(described: list[tuple[Component, str]], variables: list, parameters: list
              ) -> list[StuckMonitor]:
    """The checked ``monitors()`` of every component (plain data with sympy expressions of
    the flat names, read by the run layer at the end of a run)."""
    known: set[str] | None = None  # made for the first monitor: most models have none
    out = []
    for comp, where in described:
        if not _declares(comp, "monitors"):
            continue
        with _user_code(where, "monitors"):
            for m in comp.monitors() or ():
                if known is None:
                    known = {str(v.symbol) for v in variables} | \
                        {str(p.symbol) for p in parameters}
                out.append(check_monitor(m, comp, where, known))
    return out


def _visuals(described: list[tuple[Component, str]]) -> list[Visual]:
    """The shapes of every component (``visual_shapes()``), checked and with full frame
    paths. Plain data: kept by the compiled model for the viewer (``Solution.view``)."""
    out = []
    for comp, where in described:
        if not _declares(comp, "visual_shapes"):
            continue
        with _user_code(where, "visual_shapes"):
            shapes = list(comp.visual_shapes() or ())
            out.extend(check_visual(shape, comp, where) for shape in shapes)
    return out


class _ConnectionSets:
    """Connector elements ``(path, role)`` joined by connect statements (union-find)."""

    def __init__(self) -> None:
        self.parent: dict[tuple[str, str], tuple[str, str]] = {}

    def _root(self, x: tuple[str, str]) -> tuple[str, str]:
        parent = self.parent
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:  # path compression
            parent[x], x = root, parent[x]
        return root

    def join(self, a: tuple[str, str], b: tuple[str, str]) -> None:
        for x in (a, b):
            self.parent.setdefault(x, x)
        ra, rb = self._root(a), self._root(b)
        if ra != rb:
            self.parent[rb] = ra

    def sets(self) -> list[list[tuple[str, str]]]:
        """Every connection set, its elements sorted, the sets ordered by their first element."""
        members: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for x in self.parent:
            members.setdefault(self._root(x), []).append(x)
        return sorted((sorted(m) for m in members.values()), key=lambda m: m[0])


def _structural_declarations(comp: Component):
    """(name, declaration) of the structural parameters of ``comp``."""
    own = comp._instance_decls  # declarations made in __init__ replace the class's
    for name, decl in comp._class_declarations().items():
        if name not in own and isinstance(decl, Parameter) and decl.structural:
            yield name, decl
    for name, decl in own.items():
        if isinstance(decl, Parameter) and decl.structural:
            yield name, decl


def _lower_event_ifs(flat: FlatSystem) -> None:
    """Replace each ``event_if(c, a, b)`` by a hidden discrete branch variable and two events.

    The branch variable ``<component>.__if<k>`` is 1 while ``c`` holds and 0 otherwise; it is
    switched by ``When(c, assign(d, 1))`` and ``When(Not(c), assign(d, 0))``. Its value at the
    start time follows ``c`` (set during initialisation).
    """
    counter = 0
    for eq in flat.equations:
        if eq.plain:
            continue
        while eq.residual.has(event_if):  # innermost first: nested event_ifs are lowered too
            counter = _lower_innermost_event_ifs(flat, eq, counter)


def _lower_innermost_event_ifs(flat: FlatSystem, eq: FlatEquation, counter: int) -> int:
    """Lower the event_ifs of ``eq`` that contain no other event_if; return the new counter."""
    rep = {}
    innermost = [n for n in eq.residual.atoms(event_if)
                 if not any(a.has(event_if) for a in n.args)]
    for node in sorted(innermost, key=sp.default_sort_key):
        cond, a, b = node.args
        if not isinstance(cond, (sp.core.relational.Relational, sp.logic.boolalg.Boolean)):
            raise ModelDefinitionError(f"{eq.label}: the first argument of event_if must be a "
                                       f"relation such as x > 0, got {cond}.")
        counter += 1
        prefix = eq.origin + "." if eq.origin else ""
        branch = sp.Symbol(f"{prefix}__if{counter}", real=True)
        flat.parameters.append(FlatParameter(
            branch.name, branch, 0.0, "1", f"branch of event_if({cond}, ...) in {eq.label}",
            eq.origin, discrete=True, follows=cond))
        flat.events.append(FlatEvent(cond, (assign(branch, 1),), eq.origin,
                                     f"event_if({cond}) becoming true, {eq.label}"))
        flat.events.append(FlatEvent(sp.Not(cond), (assign(branch, 0),), eq.origin,
                                     f"event_if({cond}) becoming false, {eq.label}"))
        rep[node] = sp.Piecewise((a, branch > 0.5), (b, True))
    eq.residual = eq.residual.xreplace(rep)
    return counter


def _check_events(flat: FlatSystem, continuous: set) -> None:
    """Targets of reinit must be continuous variables (``continuous``: their symbols), of
    assign discrete ones."""
    discrete = {p.symbol for p in flat.parameters if p.discrete}
    for ev in flat.events:
        _check_condition(ev.condition, ev.label, discrete)
        for action in ev.actions:
            target = action.target
            if action.kind == "reinit" and target not in continuous:
                raise ModelDefinitionError(
                    f"{ev.label}: reinit({target}, ...) needs a continuous variable (a state).")
            if action.kind == "assign" and target not in discrete:
                raise ModelDefinitionError(
                    f"{ev.label}: assign({target}, ...) needs a Discrete variable; declare it "
                    "with Discrete(start=...), or use reinit for a state.")


def _check_condition(condition: Any, label: str, discrete: set) -> None:
    """An event condition must be a relation or a logical combination of relations: anything
    else (``x - 0.5``, a number, a continuous variable) would never fire."""
    from sympy.logic.boolalg import BooleanAtom, BooleanFunction

    def ok(c) -> bool:
        if isinstance(c, sp.Rel):
            return True
        if isinstance(c, BooleanFunction):
            return all(ok(a) for a in c.args)
        return isinstance(c, sp.Symbol) and c in discrete

    if isinstance(condition, initial):
        return
    if isinstance(condition, (bool, BooleanAtom)):
        raise ModelDefinitionError(
            f"{label}: the condition is the constant {condition} (sympy evaluated it before "
            "acausal saw it), so the event would never fire: write a relation between "
            "variables, e.g. When(self.x > 0.5, ...).")
    if not ok(condition):
        raise ModelDefinitionError(
            f"{label}: the condition {sp.sstr(condition)} is not a relation, so it would never "
            "fire: write a relation such as When(self.x > 0.5, ...) (or And/Or/Not of "
            "relations).")


def _declaration_fields(bound: BoundVariable | BoundParameter, fields: dict, read) -> tuple:
    """``(scalars, known)``: the scalars of ``bound`` and what ``read(declaration, n)`` gives
    for its declaration and element count, read once per declaration. ``fields``: what the
    flattening read of each declaration so far (the identical parts of a model share their
    class's declarations, and reading one costs a dozen look-ups)."""
    d = bound.decl
    scalars = bound.scalars()
    key = (id(d), len(scalars))
    known = fields.get(key)
    if known is None:
        known = fields[key] = (*read(d, len(scalars)), d)  # d: alive while its id is a key
    return scalars, known


def _flat_variables(bv: BoundVariable, node: Node, fields: dict) -> list[FlatVariable]:
    """The scalar FlatVariables of ``bv`` (``fields``: see :func:`_declaration_fields`)."""
    scalars, (units, fixed, description, priority, nominal, d) = _declaration_fields(
        bv, fields, lambda d, n: (element_units(d.get("unit"), n, bv.name),
                                  bool(d.get("fixed")), d.get("description"),
                                  float(d.get("state_priority")),
                                  _nominal(d.get("nominal"), node, bv)))
    path, kind, depth = node.path, d.kind, bv.start_depth
    return [FlatVariable(name, symbol, start, fixed, guess, units[k], description, priority,
                         path, kind, nominal[k] if isinstance(nominal, list) else nominal, depth)
            for k, (name, symbol, start, guess) in enumerate(scalars)]


def _flat_parameters(bp: BoundParameter, node: Node, fields: dict) -> list[FlatParameter]:
    """The scalar FlatParameters of ``bp`` (``fields``: see :func:`_declaration_fields`)."""
    scalars, (units, description, low, high, is_input, fixed, low_excl, high_excl, _) = \
        _declaration_fields(bp, fields, lambda d, n: (
            element_units(d.unit, n, bp.name), d.description, d.min, d.max,
            isinstance(d, Input), getattr(d, "fixed", True), d.min_exclusive,
            d.max_exclusive))
    path = node.path
    # positional: the fields in FlatParameter's order (discrete False, follows None)
    return [FlatParameter(name, symbol, value, units[k], description, path, False, None, low,
                          high, is_input, fixed, low_excl, high_excl)
            for k, (name, symbol, value) in enumerate(scalars)]


def element_units(unit: Any, n: int, name: str) -> list:
    """The unit of each of the ``n`` elements of a declaration: one unit for all, or a tuple of
    one per element (a planar force (fx, fy, tau) is ``unit=("N", "N", "N.m")``)."""
    if not isinstance(unit, (tuple, list)):
        return [unit] * n
    if len(unit) != n or not all(u is None or isinstance(u, str) for u in unit):
        raise ModelDefinitionError(
            f"'{name}' has unit={tuple(unit)!r}: give one unit string for all its {n} elements "
            f"or a tuple of {n} unit strings (None for an unknown one).")
    return list(unit)


def _nominal(value, node: Node, bv: BoundVariable):
    """A positive finite number (or one per element of a vector variable), or None."""
    if value is None:
        return None
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    try:
        numbers = [float(v) for v in values]
    except (TypeError, ValueError):
        numbers = []
    if not numbers or not all(np.isfinite(v) and v > 0 for v in numbers):
        raise ModelDefinitionError(
            f"{node.path or 'model'}: nominal={value!r} of a variable must be a positive finite "
            "number (its typical magnitude, in its unit).")
    return numbers if isinstance(value, (list, tuple)) else numbers[0]


def _owned_by(connector: Connector, comp: Component) -> bool:
    return any(child is connector for child in comp._children)


def _belongs_to(connector: Connector, comp: Component) -> bool:
    if comp.path == "":
        return True
    return connector.path.startswith(comp.path + ".")


def _connection_set_equations(nodes: list[tuple[str, str]], by_path: dict[str, Connector]):
    """Equations of one connection set: equal potentials, flows summing to zero.

    The sums are built unevaluated (their terms are distinct symbols, nothing can combine) and
    the displayed relations only when printed: connections make up half of a large model's
    equations. Members that declare one unit (the same string, as connectors of one class do)
    give equations the unit check need not look at.
    """
    first_path = nodes[0][0]
    label = "connection set {" + ", ".join(p for p, _ in nodes) + "}"
    first = by_path[first_path]
    record = getattr(type(first), "overdetermined", None)
    skipped = record.names if record is not None else ()
    eqs = []
    for k, bv in enumerate(first._variables):
        members = [(by_path[p]._variables[k], role) for p, role in nodes]
        if bv.decl.kind == "potential" and bv.name.rpartition(".")[2] in skipped:
            continue  # an overdetermined record: equated along the connection graph's tree
        unit = bv.decl.get("unit")
        checked = unit is None or any(m.decl.get("unit") != unit for m, _ in members)
        if bv.decl.kind == "potential":
            ref = members[0][0]
            seen = {ref.name}
            for other, _ in members[1:]:
                if other.name in seen:  # the same connector inside and outside
                    continue
                seen.add(other.name)
                for (_, s1, _, _), (_, s2, _, _) in zip(ref.scalars(), other.scalars()):
                    eqs.append(FlatEquation(residual(s1, s2), "", label,
                                            LazyRelation(s1, s2), plain=True,
                                            check_units=checked))
        else:
            terms: list[list] = []
            for other, role in members:
                for j, (_, s, _, _) in enumerate(other.scalars()):
                    if j == len(terms):
                        terms.append([])
                    terms[j].append(s if role == "inside" else -s)
            for items in terms:
                expr = sum_of(items)
                eqs.append(FlatEquation(expr, "", label, LazyRelation(expr, sp.S.Zero),
                                        plain=True, check_units=checked))
    return eqs


def _check_graph_statement(statement: Branch | Root, comp: Component, where: str,
                           in_model: set) -> None:
    """A branch or root statement must name connectors of the component or its parts."""
    ends = (statement.a, statement.b) if isinstance(statement, Branch) else (statement.connector,)
    for c in ends:
        if c._path is None or id(c) not in in_model or not _belongs_to(c, comp):
            raise ModelDefinitionError(
                f"{where} states {type(statement).__name__.lower()}({c!r}), which is not a "
                "connector of this component or of one of its parts.")


def _record_values(connector: Connector) -> dict[str, Any]:
    return {name: getattr(connector, name) for name in type(connector).overdetermined.names}


def _overdetermined_equations(graph) -> list[FlatEquation]:
    """Element-wise equalities of the records on the tree's connect edges, the residue on the
    connect edges that close loops."""
    eqs = []
    for a, b in graph.tree_connects:
        label = f"connection {a.path} = {b.path}"
        va, vb = _record_values(a), _record_values(b)
        for name in va:
            xs = list(va[name]) if isinstance(va[name], sp.MatrixBase) else [va[name]]
            ys = list(vb[name]) if isinstance(vb[name], sp.MatrixBase) else [vb[name]]
            eqs.extend(FlatEquation(residual(x, y), "", label, LazyRelation(x, y), plain=True)
                       for x, y in zip(xs, ys))
    for loop in graph.loops:
        where = loop.stated_by
        label = (f"loop closure connect({loop.a.path}, {loop.b.path}) (residue of "
                 f"{type(loop.a).__name__}.overdetermined)")
        with _user_code(f"{type(loop.a).__name__}.overdetermined.residue", "residue"):
            residues = type(loop.a).overdetermined.residue(_record_values(loop.a),
                                                           _record_values(loop.b))
        for k, r in enumerate(residues, start=1):
            expr = sp.sympify(r)
            eqs.append(FlatEquation(expr, where, f"{label} {k}", LazyRelation(expr, sp.S.Zero),
                                    plain=is_plain(expr)))
    return eqs


def _expand_derivatives_of_expressions(flat: FlatSystem, var_symbols: set) -> None:
    """Rewrite der(expression) by the chain rule so that der() applies to variables only
    (``var_symbols``: the symbols of the variables)."""
    for eqs in (flat.equations, flat.initial_equations):
        for eq in eqs:
            if not eq.plain and eq.residual.has(der):
                eq.residual = _expanded_derivatives(eq.residual, var_symbols)


def _expanded_derivatives(residual: sp.Expr, var_symbols: set) -> sp.Expr:
    rep = {}
    for d in residual.atoms(der):
        arg = d.args[0]
        if arg in var_symbols or isinstance(arg, der):  # der(der(x)) is kept as is
            continue
        rep[d] = expand_der(arg, var_symbols)
    return residual.xreplace(rep) if rep else residual


def expand_der(expr: sp.Expr, var_symbols) -> sp.Expr:
    """d/dt of an expression: sum of partial derivatives times der(variable), plus d/d time."""
    if expr.has(der):
        raise ModelDefinitionError(
            f"der({expr}) takes the derivative of an expression that contains der(): introduce "
            "a variable for the inner derivative.")
    result = sp.diff(expr, time) if expr.has(time) else sp.S.Zero
    for s in sorted(expr.free_symbols & var_symbols, key=lambda s: s.name):
        result += sp.diff(expr, s) * der(s)
    return result
