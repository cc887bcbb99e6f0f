"""The event tables of an exported FMU: the relation behind each event indicator, which events
the FMU may gate (hold their indicators), and the ``event_if`` branch variables set at the
start."""

from __future__ import annotations

import casadi as ca
import sympy as sp

from ...compiler.events import relations_of
from ...language.symbolic import der
from ...run.event_detection import MAX_GATED_RELATIONS
from ..c_code import ExportError

#: relation kinds of event indicators (the C enum REL_* of fmi2_wrapper.c, in this order)
RELATION_KINDS = {sp.StrictGreaterThan: 0, sp.GreaterThan: 1, sp.StrictLessThan: 2,
                  sp.LessThan: 3, sp.Equality: 4, sp.Unequality: 5}


def relation_kinds(cs) -> list[int]:
    """For each event indicator ``lhs - rhs``: which relation (``>``, ``>=``, ``<``, ``<=``,
    ``==``, ``!=``) it comes from, found as the compiler finds the indicators (same order)."""
    parameter_symbols = {prm.symbol for prm in cs.flat.parameters}
    kinds: list[int] = []
    for flat_event, event in zip(cs.flat.events, cs.events):
        cond = flat_event.condition
        if cond.has(der):
            cond = cond.xreplace({d: sp.Dummy(f"der({d.args[0]})") for d in cond.atoms(der)})
        relations = [rel for rel in relations_of(cond) if rel.free_symbols - parameter_symbols]
        if len(relations) != len(event.indicators):
            raise ExportError(
                f"{event.label}: {len(relations)} relations found for {len(event.indicators)} "
                "event indicators; the FMU cannot tell their kinds. Please report this model.")
        for rel in relations:
            kind = next((k for t, k in RELATION_KINDS.items() if isinstance(rel, t)), None)
            if kind is None:
                raise ExportError(f"{event.label}: the relation {rel} is not one of >, >=, <, "
                                  "<=, ==, != and cannot be exported.")
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


def event_if_branches(cs) -> list[tuple[int, int]]:
    """(parameter index, event index) of each event_if branch variable: the event whose action
    sets it to 1 (its value at the start follows that event's condition)."""
    sets_one = {}
    for e, ev in enumerate(cs.flat.events):
        for action in ev.actions:
            if action.kind == "assign" and action.value == 1:
                sets_one.setdefault(action.target, e)
    return [(i, sets_one[prm.symbol]) for i, prm in enumerate(cs.flat.parameters)
            if prm.follows is not None and prm.symbol in sets_one]
