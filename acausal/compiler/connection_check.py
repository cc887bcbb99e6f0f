"""Connection diagnostics: a forgotten ``connect`` named as such.

A connector that no ``connect`` reaches is *open*: its flow variables (force, torque, current)
are taken as zero (Modelica's rule, see flatten.py). Left open by mistake, that zero leaves a
part free or makes a spring transmit nothing, and the structural passes then stop at some
equation deep inside a library component, whose text says nothing of the missing connection.
This module looks at the connection graph instead, which is where the mistake is:

* :func:`connection_topology` (called by the flattening) records the open connectors, the
  *islands* (the components that connections join, directly or through other components), the
  parts referred to as ``Outer`` (a World), and the islands of overdetermined connectors (frames)
  whose orientation root is a free body because they are not connected to the world;
* :func:`explain_structural_error` puts, in front of a structural error, the open connectors of
  the islands of the parts the error names that could be connected to an open connector of the
  same kind in another island (with that one: the connect the user probably forgot), and a
  frame island not rooted in the world. An open connector that nothing could take is left out
  (a flange left open on purpose), and an error with no such connector is left as it was. The
  equation list of the original error follows as detail, without its advice to edit equations;
* :func:`open_connector_warnings` runs after alias elimination on a model that did compile and
  warns (``ConnectionWarning``) of a part connected to nothing and of a part whose open
  connector makes it transmit nothing (a spring or damper with one end open: all its flows are
  identically zero), the two forgotten connections that compile silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import sympy as sp

from ..base.errors import ConnectionWarning, user_stacklevel
from ..language.symbolic import der

if TYPE_CHECKING:
    from ..language.model import Component, Connector
    from .flatten import FlatSystem

#: the label of the equation ``flow = 0`` of a connector that no connect reaches
UNCONNECTED_FLOW = "unconnected flow"

#: at most this many open connectors or suggested connects in one message
_MAX_SHOWN = 6


@dataclass
class OpenConnector:
    """A connector that no connect statement reaches (its flows are zero)."""

    path: str
    kind: str  # the connector's class name (Frame, Flange_a, ...)
    signature: tuple  # connectors with equal signatures can be connected
    owner: str  # path of the component it belongs to
    owner_kind: str  # that component's class name
    flows: list[str]  # the flat names of its flow variables


@dataclass
class ConnectionTopology:
    """What the diagnostics need of the connection graph (see the module docstring)."""

    open_connectors: list[OpenConnector] = field(default_factory=list)
    island: dict[str, int] = field(default_factory=dict)  # component path -> island id
    kind: dict[str, str] = field(default_factory=dict)  # component path -> class name
    connectors_of: dict[str, list[Any]] = field(default_factory=dict)  # component -> connectors
    outer_targets: set[str] = field(default_factory=set)  # parts referred to as Outer
    potential_roots: set[str] = field(default_factory=set)  # components that may be a root
    unrooted_islands: set[int] = field(default_factory=set)  # frame islands without the world
    world_ends: list[str] = field(default_factory=list)  # open connectors of definite roots

    open_by_owner: dict[str, list[OpenConnector]] = field(default_factory=dict)

    def open_in(self, component: str) -> list[OpenConnector]:
        return self.open_by_owner.get(component, [])

    def flows_of(self, component: str) -> list[str]:
        """The flat names of the flow variables of all the component's connectors."""
        return [name for conn in self.connectors_of.get(component, [])
                for name in _flow_names(conn)]


def _flow_names(connector: Any) -> list[str]:
    return [name for bv in connector._variables if bv.decl.kind == "flow"
            for name, *_ in bv.scalars()]


def _owner_map(components: list[Component]) -> dict[int, Component]:
    """id(connector) -> the component it belongs to (nested connectors: the nearest one)."""
    owner: dict[int, Component] = {}
    for comp in components:
        stack = [child for child in comp._children if not _is_component(child)]
        while stack:
            node = stack.pop()
            owner[id(node)] = comp
            stack.extend(node._children)
    return owner


def _is_component(node: Any) -> bool:
    return hasattr(node, "connections")


def connection_topology(components: list[Component], connectors: list[Connector],
                        sets: list[list[tuple[str, str]]], inside_connected: set[str],
                        graph: Any, graph_roots: list[tuple]) -> ConnectionTopology:
    """The topology of a model being flattened (``sets``: its connection sets as (path, role)
    elements; ``inside_connected``: the connectors that are an inside element of one; ``graph``:
    the overdetermined connection graph or None; ``graph_roots``: its root statements)."""
    topo = ConnectionTopology()
    owner = _owner_map(components)
    by_path = {c.path: c for c in connectors}
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for comp in components:
        if not comp.path:
            continue  # the model itself: its equations join anything, it is no island
        parent[comp.path] = comp.path
        topo.kind[comp.path] = type(comp).__name__
        for _, decl_target in _outer_parts(comp):
            topo.outer_targets.add(decl_target)
    for conn in connectors:
        comp = owner.get(id(conn))
        if comp is None or not comp.path:
            continue
        topo.connectors_of.setdefault(comp.path, []).append(conn)
        if conn.path not in inside_connected:
            end = OpenConnector(conn.path, type(conn).__name__, conn._signature(), comp.path,
                                type(comp).__name__, _flow_names(conn))
            topo.open_connectors.append(end)
            topo.open_by_owner.setdefault(comp.path, []).append(end)
    for members in sets:
        owners = {owner[id(by_path[p])].path for p, _ in members
                  if id(by_path[p]) in owner and owner[id(by_path[p])].path}
        first = next(iter(owners), None)
        for other in owners:
            parent[find(other)] = find(first)
    ids: dict[str, int] = {}
    for path in parent:
        topo.island[path] = ids.setdefault(find(path), len(ids))

    if graph is not None:
        definite = {id(c) for c, is_definite, _, _ in graph_roots if is_definite}
        for c, is_definite, _, _ in graph_roots:
            comp = owner.get(id(c))
            if not is_definite and comp is not None and comp.path:
                topo.potential_roots.add(comp.path)
        if definite:
            for root in graph.roots:
                comp = owner.get(id(root))
                if id(root) not in definite and comp is not None and comp.path in topo.island:
                    topo.unrooted_islands.add(topo.island[comp.path])
            open_paths = {c.path for c in topo.open_connectors}
            for c, is_definite, _, _ in graph_roots:
                comp = owner.get(id(c))
                if is_definite and comp is not None:
                    topo.world_ends += [c.path for c in topo.connectors_of.get(comp.path, [])
                                        if c.path in open_paths]
    return topo


def _outer_parts(comp: Component):
    """(attribute, path) of the parts ``comp`` refers to as Outer (resolved at binding)."""
    for name, _ in getattr(comp, "_outers", ()):
        target = getattr(comp, name, None)
        path = getattr(target, "_path", None)
        if path:
            yield name, path


# -- a structural error explained ------------------------------------------------------------

#: advice sentences of the structural errors that point at equations; dropped when an open
#: connector explains the error (editing a library part's equations is never the fix then)
_EQUATION_ADVICE = (
    " It duplicates (or contradicts) a connection or another equation: remove it.",
    "\nIt duplicates (or contradicts) a connection or another equation: remove it.",
    " (remove one, or the connection that duplicates it)",
    " (remove one, or remove a connection that duplicates it)",
    " (give each an equation, or connect the connector it belongs to)",
    " (add an equation, connect the connector they belong to, or give an input/source)",
)


def _mentioned(text: str, path: str) -> bool:
    return any(f"{before}{path}{after}" in text for before in ("'", " ", "{", "(", "\n")
               for after in (".", "'", "[", " ", ")"))


def explain_structural_error(topo: ConnectionTopology | None, text: str) -> str | None:
    """The error ``text`` led by the open connectors and unrooted frames that explain it, or
    None when the connection graph offers no explanation (the error is then left as it is)."""
    if topo is None or not topo.open_connectors:
        return None
    named = [p for p in topo.island if _mentioned(text, p)]
    # the innermost parts only (a path that is a prefix of another named one is its parent)
    named = [p for p in named if not any(q.startswith(p + ".") for q in named)]
    if not named:
        return None
    islands = {topo.island[p] for p in named}
    lines: list[str] = []
    suggestions: list[str] = []
    shown: set[str] = set()
    for island in sorted(islands):
        ends = [c for c in topo.open_connectors if topo.island.get(c.owner) == island]
        for end in ends:
            partners = [c for c in topo.open_connectors if c.signature == end.signature
                        and topo.island.get(c.owner) != island]
            if not partners:
                continue  # an open end that nothing could take: left open on purpose, likely
            shown.add(end.path)
            lines.append(_describe_open(end, topo))
            for partner in partners[:2]:
                if partner.path not in shown:
                    shown.add(partner.path)
                    lines.append(_describe_open(partner, topo))
                suggestions.append(f"connect({end.path}, {partner.path})")
    unrooted = [i for i in sorted(islands) if i in topo.unrooted_islands]
    rooted_text = ""
    if unrooted:
        parts = sorted(p for p, i in topo.island.items() if i in unrooted)
        world = ", ".join(topo.world_ends[:2])
        rooted_text = (
            "\nThe frames of " + _names(parts) + " are not connected to the world (the root "
            "that fixes position and orientation): the chain is free-floating, carried by a "
            "body taken as its root. Connect its first frame to the world"
            + (f" (open: {world})" if world else "") + ".")
    if not lines and not rooted_text:
        return None
    lead = "A connection seems to be missing. "
    if lines:
        lead += ("These connectors are not connected, so their flows (forces, torques, "
                 "currents) are taken as zero:" + "".join(f"\n  {s}" for s in lines[:_MAX_SHOWN]))
    lead += rooted_text
    if suggestions:
        lead += ("\nConnect them, e.g. " + "; ".join(dict.fromkeys(suggestions[:3])) + ".")
    detail = text
    for advice in _EQUATION_ADVICE:
        detail = detail.replace(advice, "")
    return (f"{lead}\nThe equations below are where the structural analysis stopped; they follow "
            f"from the open connectors above (do not edit them):\n{detail}")


def _describe_open(end: OpenConnector, topo: ConnectionTopology) -> str:
    free = ""
    if end.owner not in topo.outer_targets and end.path not in topo.world_ends and \
            len(topo.open_in(end.owner)) == len(topo.connectors_of.get(end.owner, [])):
        free = f": '{end.owner}' is connected to nothing, so nothing holds or drives it"
    return f"{end.path} ({end.kind} of {end.owner_kind} '{end.owner}'){free}"


def _names(paths: list[str]) -> str:
    shown = ", ".join(f"'{p}'" for p in paths[:_MAX_SHOWN])
    return shown + (f" and {len(paths) - _MAX_SHOWN} more" if len(paths) > _MAX_SHOWN else "")


# -- warnings on a model that compiled -------------------------------------------------------

def open_connector_warnings(topo: ConnectionTopology | None, zero: set[str],
                            referenced: Callable[[str], bool],
                            inert: Callable[[str], bool], drawn: set[str]) -> list[str]:
    """Messages for the parts a forgotten connection leaves without effect (the checks, apart
    from the equations that :func:`warn_open_connectors` reads for them).

    ``zero``: the flat names of the variables that alias elimination found identically zero;
    ``referenced(path)``: whether the component at ``path`` has dynamics of its own (a free
    body: a model of something falling) or equations of other components use its variables (a
    controller reading it); asked only of the parts with every connector open. ``inert(path)``:
    whether the part's own equations make all its flows zero because its open flows are zero (a
    spring with an open end; not a mass whose force is zero only because the spring it hangs on
    is open, nor an ideal sensor, whose flows are zero by design). ``drawn``: the components
    that show a shape in the viewer; they are not warned of (a massless rod or a fixed frame
    placed only to be seen, such as a wheel's spoke or a target mark).
    """
    if topo is None or not topo.open_connectors:
        return []
    with_connectors = [p for p in topo.connectors_of if topo.connectors_of[p]]
    if len(with_connectors) < 2:
        return []  # a model of one part: nothing it could be connected to
    messages = []
    for comp in topo.open_by_owner:
        paths = topo.connectors_of[comp]
        # a signal connector (no flows) left open loses nothing: an output read by the user
        open_ends = [c for c in topo.open_in(comp) if c.flows]
        if not open_ends or comp in topo.outer_targets or comp in drawn:
            continue
        flows = topo.flows_of(comp)
        names = ", ".join(c.path for c in open_ends[:_MAX_SHOWN])
        if len(topo.open_in(comp)) == len(paths):
            if comp in topo.potential_roots or referenced(comp):
                continue  # a free body or mass, or a part read by an equation elsewhere
            messages.append(
                f"{topo.kind[comp]} '{comp}' is connected to nothing (open: {names}): it has no "
                "effect on the rest of the model. Connect it (a forgotten connect?) or remove "
                "the part.")
        elif flows and all(f in zero for f in flows) and inert(comp):
            messages.append(
                f"{names} of {topo.kind[comp]} '{comp}' "
                + ("is" if len(open_ends) == 1 else "are")
                + " not connected: the flows there are taken as zero, so every force or torque "
                f"'{comp}' transmits is zero and it acts on nothing. Connect "
                + ("it" if len(open_ends) == 1 else "them")
                + " (a forgotten connect?), or remove the part.")
    return messages


def warn_open_connectors(flat: FlatSystem, aliases: Any) -> None:
    """Issue :func:`open_connector_warnings` as ``ConnectionWarning``s for a flattened model
    whose aliases were eliminated (``aliases``: the alias map, ``target -1`` = zero)."""
    topo = flat.topology
    if topo is None or not topo.open_connectors:
        return
    zero = {name for name, target in zip(aliases.names, aliases.target) if target == -1}
    users: dict[str, set[str]] | None = None

    def own_equations(path: str) -> list:
        prefix = path + "."
        return [eq for eq in flat.equations if eq.origin == path or eq.origin.startswith(prefix)]

    def referenced(path: str) -> bool:
        nonlocal users
        if any(eq.residual.has(der) for eq in own_equations(path)):
            return True  # dynamics of its own: a free body or mass, falling or coasting
        if users is None:  # the origins of the equations that use each variable; built once
            users = {}
            for eq in flat.equations:
                for symbol in eq.residual.free_symbols:
                    users.setdefault(symbol.name, set()).add(eq.origin)
        prefix = path + "."
        return any(name.startswith(prefix) and any(
            origin != path and not origin.startswith(prefix) for origin in origins)
            for name, origins in users.items())

    def inert(path: str) -> bool:
        own = own_equations(path)
        flows = set(topo.flows_of(path))
        by_design = _zero_by_substitution([eq.residual for eq in own
                                           if not eq.label.startswith(UNCONNECTED_FLOW)])
        return not flows <= by_design and flows <= _zero_by_substitution(
            [eq.residual for eq in own])

    drawn = {visual.component for visual in flat.visuals}
    for message in open_connector_warnings(topo, zero, referenced, inert, drawn):
        warnings.warn(message, ConnectionWarning, stacklevel=user_stacklevel())


def _zero_by_substitution(residuals: list[sp.Expr]) -> set[str]:
    """Names of the variables that ``residuals`` make zero: an equation that reads ``a = 0``
    or ``c a = 0`` once the zeros found so far are put in (so chains ``a = b``, ``b = -c``
    pass a zero on), repeated until nothing changes."""
    zero: set[sp.Symbol] = set()
    changed = True
    while changed:
        changed = False
        for r in residuals:
            r = r.xreplace({z: sp.S.Zero for z in zero}) if zero else r
            if r.is_Symbol:
                found = {r}
            elif r.is_Mul and len(r.args) == 2 and r.args[0].is_number and r.args[1].is_Symbol:
                found = {r.args[1]}
            else:
                continue
            if not found <= zero:
                zero |= found
                changed = True
    return {z.name for z in zero}
