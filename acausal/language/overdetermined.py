"""Overdetermined connectors and the operators on their connection graph (Modelica
specification, section 9.4: ``Connections.branch``, ``root``, ``potentialRoot``, ``isRoot``,
``rooted``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..base.errors import ModelDefinitionError
from .model import Connector

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
        dependent, e.g. a planar loop of 3-D joints): what the user should do about it. A
        text, or a function ``loop_hint(components) -> str`` of the components that state the
        loop's branches (in order), called only when such an error is raised: advice that
        depends on the loop (a planar loop of 3-D joints or a spatial one).
    """

    def __init__(self, *names: str, residue, loop_hint: str | Callable[[list], str] = "") -> None:
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
