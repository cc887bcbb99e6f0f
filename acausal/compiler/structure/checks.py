"""Balance and structural checks with messages that name the culprits.

The count follows Modelica: the unknowns are the declared variables (``x`` and ``der(x)`` count
once), and a model is balanced when a perfect matching between equations and unknowns exists.
Unmatched equations make the model over-determined there, unmatched variables under-determined.
"""

from __future__ import annotations

from ...base.errors import OverdeterminedError, StructurallySingularError, UnderdeterminedError
from .matching import maximum_matching
from .system import EquationSystem

_MAX_LISTED = 12


def listing(items: list[str]) -> str:
    shown = items[:_MAX_LISTED]
    more = f"\n  ... and {len(items) - len(shown)} more" if len(items) > len(shown) else ""
    return "".join(f"\n  {s}" for s in shown) + more


def check_structure(system: EquationSystem) -> None:
    """Raise Over/UnderdeterminedError unless every equation and variable can be matched."""
    declared = [v for v in range(system.n_vars) if system.info[v] is not None]
    column = {v: k for k, v in enumerate(declared)}
    # each variable's column (a derivative counts as its base variable), found once per
    # variable rather than once per occurrence
    column_of = [column.get(v if integral == -1 else system.base_var(v))
                 for v, integral in enumerate(system.diff_to_var)]
    incidence = []
    for e, variables in enumerate(system.incidence):
        if not variables:
            raise OverdeterminedError(
                "An equation contains no unknowns (it only relates parameters and constants, or "
                f"it is 0 = 0 after connections):\n  {system.describe_eq(e)}\nRemove it, or make "
                "it a relation between variables.")
        incidence.append(sorted({column_of[v] for v in variables}))
    m = maximum_matching(system.n_eqs, len(declared), incidence, any_perfect=True)
    free_eqs = [e for e in range(system.n_eqs) if m.eq_to_var[e] == -1]
    free_vars = [declared[k] for k in range(len(declared)) if m.var_to_eq[k] == -1]
    counts = f"The model has {system.n_eqs} equations and {len(declared)} unknowns."
    if free_eqs and free_vars:
        raise StructurallySingularError(
            f"{counts} The model is structurally singular: some equations over-determine "
            "their variables while other variables are determined by no equation. Left "
            "undetermined (give each an equation, or connect the connector it belongs to):"
            + listing([system.describe_var(v) for v in free_vars])
            + "\nOne equation too many where these are (remove one, or the connection that "
            "duplicates it):" + listing([system.describe_eq(e) for e in free_eqs]))
    if free_eqs:
        raise OverdeterminedError(
            f"{counts} These equations are more than their variables can satisfy (remove one, "
            "or remove a connection that duplicates it):" + listing(
                [system.describe_eq(e) for e in free_eqs]))
    if free_vars:
        raise UnderdeterminedError(
            f"{counts} No equation determines these variables (add an equation, connect the "
            "connector they belong to, or give an input/source):" + listing(
                [system.describe_var(v) for v in free_vars]))
