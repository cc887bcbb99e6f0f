"""Events: ``When`` clauses with their ``reinit`` and ``assign`` actions (Modelica's
``when`` equations)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..base.errors import ModelDefinitionError

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


