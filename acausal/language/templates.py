"""Equation templates: a component's equations derived once per kind of instance, then renamed.

A model of N identical parts (a chain of masses, the links of a mechanism) would otherwise build
N times the same sympy expressions from the same ``equations()`` code, which costs about a tenth
of a millisecond per equation. Modelica compilers flatten a class once and instantiate it by
renaming; so does acausal:

* Two instances share a template when they are the same class with the same structure below
  them: the same parts and connectors (by relative path and class), the same variable and
  parameter names and shapes, the same structural parameter values and other attributes, private
  ones too (numbers, strings, tuples, arrays compared by value; other objects, such as a user
  function, by identity), and the same shared parts outside them (``Outer``, by identity).
  Parameter *values* are not part of the key: parameters are symbols in the equations.
* The first instance's ``equations()`` is called as usual; its residuals, after the chain rule
  for ``der(expression)``, are the template. Every further instance gets them by renaming the
  first instance's symbols to its own, rebuilding the expression trees without sympy's
  re-canonicalisation (about a tenth of the cost of ``xreplace``). Each residual is read once
  into a *recipe*, its tree in postfix order with the symbols as positions in the instance's
  symbol list; an instance runs the recipes (no dictionary look-up per node, and the
  sub-trees without the component's symbols are taken as they are).
* A template is only made when the first instance's equations use nothing but the symbols of
  its own subtree, of the shared outside parts in its key, and ``time``; anything else (a symbol
  reached through a parent, a symbol created on the fly) keeps that class instance-by-instance.
  A class whose equations depend on anything else (its path, global state) sets
  ``shares_equations = False``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from .model import Component, Node
from .symbolic import rebuilt, substituted, time

#: Attributes the language itself keeps on every node (binding state, the constructor call and
#: the parameter values given to it): not part of a key. Everything else a component stores,
#: private attributes too (a flag computed in ``__init__`` from a parameter's value), is.
#: ``_graph_parent`` is the connector's neighbour towards the root in the spanning tree of the
#: connection graph (set by :func:`~.connection_graph.build_connection_graph`): another node for
#: every instance of a chain, so as a key part it would give each link its own template. It is
#: read by parameter checks, which run on every instance; what equations may read of the graph
#: (``is_root``, ``rooted``: the flags ``_graph_root`` and ``_rooted``) stays in the key.
_BINDING_ATTRIBUTES = frozenset({"_children", "_graph_parent", "_init_call", "_instance_decls",
                                 "_outers", "_overrides", "_parameters", "_parent", "_path",
                                 "_variables"})

#: Components with more nodes than this below them are not templated: such a component is
#: usually unique (a whole model), and computing its key walks its whole subtree.
MAX_TEMPLATE_NODES = 200


@dataclass
class Template:
    """The equations of the first instance of a kind of component."""

    symbols: list[sp.Symbol]  # the first instance's subtree symbols, in binding order
    # residual, display, number, plain, unit-checked (see flatten's _component_equations)
    equations: list[tuple[sp.Expr, Any, int, bool, bool]]
    recipes: list[list] = field(default_factory=list)  # of each residual (see _add_recipe)


class _Unshared(Exception):
    """Raised while computing a key: this instance cannot share a template."""


def subtree_symbols(comp: Node) -> list[sp.Symbol]:
    """Every variable and parameter symbol of ``comp`` and its parts, in binding order."""
    out: list[sp.Symbol] = []
    for node in comp.walk():
        for bound in (*node._variables, *node._parameters):
            value = bound.value
            if isinstance(value, sp.MatrixBase):
                out.extend(value)
            else:
                out.append(value)
    return out


class TemplateCache:
    """Templates of one flattening, by key (see the module docstring)."""

    def __init__(self) -> None:
        self.templates: dict[tuple, Template | None] = {}  # None: this kind stays per instance

    def key(self, comp: Component) -> tuple | None:
        """The template key of ``comp``, or None when it cannot share equations."""
        if not getattr(comp, "shares_equations", True) or not comp._path:
            return None
        prefix = comp._path + "."
        parts: list = [type(comp)]
        try:
            for count, node in enumerate(comp.walk()):
                if count > MAX_TEMPLATE_NODES:
                    return None
                rel = node._path[len(prefix):] if node is not comp else ""
                declared = node._class_declarations()
                own = node._instance_decls
                # list comprehensions, not generators: this runs for every node of a model
                attrs = tuple([(name, _canonical(value, prefix))
                               for name, value in vars(node).items()
                               if name not in _BINDING_ATTRIBUTES
                               and not ((name in declared or name in own)
                                        and isinstance(value, (sp.Basic, sp.MatrixBase)))])
                names = tuple([(b.name[len(prefix):], _shape(b.value))
                               for b in (*node._variables, *node._parameters)])
                parts.append((rel, type(node), attrs, names))
        except _Unshared:
            return None
        return tuple(parts)

    def lookup(self, key: tuple) -> Template | None:
        return self.templates.get(key)

    def known(self, key: tuple) -> bool:
        return key in self.templates

    def record(self, key: tuple, comp: Component, equations: list[tuple]) -> None:
        """Make the template of ``key`` from ``comp``'s equations (residual, display, number,
        plain, unit-checked), or remember that this kind stays per instance."""
        symbols = subtree_symbols(comp)
        allowed = set(symbols)
        allowed.add(time)
        for node in _outside_nodes(comp):
            allowed.update(subtree_symbols(node))
        for residual, display, *_ in equations:
            if not residual.free_symbols <= allowed:
                self.templates[key] = None
                return
            if display is not None and not _free_symbols(display) <= allowed:
                self.templates[key] = None
                return
        position = {s: i for i, s in enumerate(symbols)}
        recipes = []
        for residual, *_ in equations:
            recipe: list = []
            _add_recipe(residual, position, recipe)
            recipes.append(recipe)
        self.templates[key] = Template(symbols, equations, recipes)

    @staticmethod
    def instantiate(template: Template, comp: Component) -> list[tuple]:
        """The template's equations in the symbols of ``comp``."""
        symbols = subtree_symbols(comp)
        if len(symbols) != len(template.symbols):
            raise ValueError(f"{comp.path} has {len(symbols)} symbols, its template "
                             f"{len(template.symbols)}")
        return [(_run_recipe(recipe, symbols),
                 LazyRenamed(d, template.symbols, symbols) if d is not None else None,
                 number, plain, checked)
                for recipe, (_, d, number, plain, checked) in zip(template.recipes,
                                                                  template.equations)]


class LazyRenamed:
    """A display relation renamed only when it is printed (most never are)."""

    __slots__ = ("expr", "old", "new")

    def __init__(self, expr: Any, old: list, new: list) -> None:
        self.expr = expr
        self.old = old
        self.new = new

    def resolve(self) -> Any:
        return substituted(self.expr, dict(zip(self.old, self.new)))


def _add_recipe(expr: sp.Basic, position: dict, recipe: list) -> bool:
    """Append the recipe of ``expr`` to ``recipe``; whether it holds a renamed symbol.

    A recipe is the tree in postfix order: an ``int`` stands for the symbol at that position
    of the instance's symbol list (``position``: the template's symbols, found by equality, so
    that an equal copy of a symbol, which sympy's cache may hand out, counts too), a tuple
    ``(node, n, sum_class)`` for ``node`` rebuilt from the last ``n`` values (``sum_class``:
    for a sum, its class and commutativity, read here once; a sum is rebuilt as
    :func:`~.symbolic.rebuilt` would, without its dispatch), anything else for itself (a
    number, ``time``, a sub-tree without renamed symbols)."""
    if expr.is_Symbol:
        k = position.get(expr)
        recipe.append(expr if k is None else k)
        return k is not None
    args = expr.args
    if not args:
        recipe.append(expr)
        return False
    start = len(recipe)
    renamed = False
    for arg in args:
        renamed = _add_recipe(arg, position, recipe) or renamed
    if not renamed:
        del recipe[start:]
        recipe.append(expr)
        return False
    recipe.append((expr, len(args), (expr.func, expr.is_commutative) if expr.is_Add else None))
    return True


def _run_recipe(recipe: list, symbols: list) -> sp.Basic:
    """The expression of ``recipe`` (see :func:`_add_recipe`) in ``symbols``."""
    stack: list = []
    push = stack.append
    for step in recipe:
        kind = type(step)
        if kind is int:
            push(symbols[step])
        elif kind is tuple:
            node, n, sum_class = step
            args = tuple(stack[-n:])
            del stack[-n:]
            if sum_class is None:
                push(rebuilt(node, args))
            else:
                push(sum_class[0]._from_args(args, sum_class[1]))
        else:
            push(step)
    return stack[0]


def _free_symbols(display: Any) -> set:
    return display.free_symbols if isinstance(display, sp.Basic) else set()


def _shape(value: Any) -> tuple:
    return tuple(value.shape) if isinstance(value, sp.MatrixBase) else ()


def _outside_nodes(comp: Component) -> list[Node]:
    """Nodes outside ``comp`` that its subtree refers to through attributes (Outer parts)."""
    prefix = comp._path + "."
    out = []
    for node in comp.walk():
        for name, value in vars(node).items():
            if not name.startswith("_") and isinstance(value, Node) and value._path is not None \
                    and not value._path.startswith(prefix):
                out.append(value)
    return out


def _canonical(value: Any, prefix: str) -> Any:
    """A hashable description of a plain attribute for the template key."""
    if value is None or isinstance(value, (bool, int, float, complex, str)):
        return (type(value).__name__, value)
    if isinstance(value, Node):
        path = value._path
        if path is not None and path.startswith(prefix):
            return ("part", path[len(prefix):])
        return ("outside", id(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_canonical(v, prefix) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((_canonical(k, prefix), _canonical(v, prefix))
                              for k, v in value.items()))
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return ("array", tuple(_canonical(v, prefix) for v in value.ravel()), value.shape)
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        raise _Unshared  # a symbolic attribute of its own: its meaning may differ per instance
    if isinstance(value, (np.floating, np.integer, np.bool_)):
        return (type(value).__name__, value.item())
    return ("object", id(value))  # functions, tables, ...: shared only by the same object
