"""The event tables of an exported FMU: the relation behind each event indicator, and which
events the FMU may gate (hold their indicators). The ``event_if`` branch table is the run
layer's (:func:`acausal.run.initialize.event_if_branches`)."""

from __future__ import annotations

import casadi as ca
import sympy as sp

from ...run.event_detection import MAX_GATED_RELATIONS
from ..c_code import ExportError

#: relation kinds of event indicators (the C enum REL_* of fmi2_wrapper.c, in this order)
RELATION_KINDS = {sp.StrictGreaterThan: 0, sp.GreaterThan: 1, sp.StrictLessThan: 2,
                  sp.LessThan: 3, sp.Equality: 4, sp.Unequality: 5}


def relation_kinds(cs) -> list[int]:
    """For each event indicator ``lhs - rhs``: which relation (``>``, ``>=``, ``<``, ``<=``,
    ``==``, ``!=``) it comes from, as the compiler recorded it (``CompiledEvent.relation_types``,
    in the indicators' order)."""
    kinds: list[int] = []
    for event in cs.events:
        for relation in event.relation_types:
            kind = next((k for t, k in RELATION_KINDS.items() if issubclass(relation, t)), None)
            if kind is None:
                raise ExportError(f"{event.label}: the relation {relation.__name__} is not one "
                                  "of >, >=, <, <=, ==, != and cannot be exported.")
            kinds.append(kind)
    return kinds


def gated_events(cs) -> list[bool]:
    """Per event: whether its condition depends on its continuous relations and the parameters
    only (then the FMU holds the indicators that cannot change it, as acausal's run loop
    does, see :class:`acausal.run.event_detection.RelationGates`)."""
    continuous = ca.vertcat(cs.t, cs.x, cs.z)
    out = []
    for ev in cs.events:
        k = len(ev.indicators)
        out.append(0 < k <= MAX_GATED_RELATIONS and ev.gate is not None
                   and not ca.depends_on(ca.SX(ev.gate), continuous))
    return out
