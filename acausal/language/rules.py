"""Validity rules of a component's parameters: what must hold between several parameters, or
of a vector parameter as a whole, beyond the bounds of each number (``Parameter(min=, max=)``).

A component class declares its rules in ``parameter_rules``, each with the parameters it reads
and a text that says what must hold (the component reference prints it)::

    class World(Component):
        n = Parameter((0.0, -1.0, 0.0), unit="1")
        parameter_rules = (
            Rule("n", "n is not the zero vector (it gives the direction of gravity)",
                 lambda n: sum(x * x for x in n) > 0),
        )

The rules of a class and of its bases all apply. They are checked when the model is flattened
(``Component.check_parameters``, after binding and the connection graph, before
``equations()``), where the component's path is known: a broken rule raises a
:class:`~acausal.errors.ParameterError` that names the component, its path, the parameters and
their values, and the rule; a rule declared ``warn=True`` gives a
:class:`~acausal.errors.ParameterWarning` instead. A rule sees the values the model is built
with: a structural parameter's value, a numeric parameter's number (a vector as a tuple); a rule
that reads a parameter computed at initialisation (``fixed=False``) is skipped (its value is only
a guess). Changing a numeric parameter later with ``simulate(params=...)`` checks its bounds
only (an estimation may pass through values a rule would refuse).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..base.errors import AcausalError, ModelDefinitionError, ParameterError, ParameterWarning

__all__ = ["Rule", "class_rules", "check_rules"]


class Rule:
    """A validity rule over parameters of a component.

    Parameters
    ----------
    parameters:
        The names of the parameters the rule reads (one name, or a sequence of names).
    text:
        What must hold, as a sentence (shown in the component reference and in the error),
        e.g. ``"n_x and n_y are not parallel"``.
    check:
        ``check(*values)``, called with the parameters' values in the order of ``parameters``:
        returns ``True`` (or ``None``) when the rule holds, ``False`` when it is broken, or a
        text that says what is wrong (also broken), e.g. ``"I_11 = 3 > I_22 + I_33 = 2"``.
    advice:
        What to do when it is broken (default: change the parameters so that it holds).
    warn:
        True: a broken rule is reported as a :class:`~acausal.errors.ParameterWarning` and the
        model is built (for values that are doubtful but in use, e.g. moments of inertia given
        as placeholders for axes the body cannot turn about); False (default): an error.
    """

    def __init__(self, parameters: str | Sequence[str], text: str,
                 check: Callable[..., Any], *, advice: str = "", warn: bool = False) -> None:
        names = (parameters,) if isinstance(parameters, str) else tuple(parameters)
        if not names or not all(isinstance(n, str) and n for n in names):
            raise ModelDefinitionError(f"Rule({parameters!r}, ...): name the parameters the rule "
                                       "reads (a name or a sequence of names).")
        if not callable(check):
            raise ModelDefinitionError(f"Rule({parameters!r}, {text!r}, ...): check must be a "
                                       f"function of the parameters' values, got {check!r}.")
        self.parameters = names
        self.text = str(text)
        self.check = check
        self.advice = advice
        self.warn = bool(warn)

    def broken(self, values: Sequence[Any]) -> str | None:
        """None when the rule holds for ``values`` (in the order of ``parameters``), else what
        is wrong."""
        verdict = self.check(*values)
        if verdict is None or verdict is True:
            return None
        if verdict is False:
            return f"the rule '{self.text}' is broken"
        if isinstance(verdict, str):
            return verdict or f"the rule '{self.text}' is broken"
        return None if verdict else f"the rule '{self.text}' is broken"

    def __repr__(self) -> str:
        return f"Rule({', '.join(self.parameters)}: {self.text})"


def class_rules(cls: type) -> tuple[Rule, ...]:
    """The rules of ``cls`` and its bases (base classes first; each rule once)."""
    cached = cls.__dict__.get("_rules_cache")
    if cached is not None:
        return cached
    rules: list[Rule] = []
    for klass in reversed(cls.__mro__):
        own = vars(klass).get("parameter_rules", ())
        if isinstance(own, Rule):
            own = (own,)
        for rule in own:
            if not isinstance(rule, Rule):
                raise ModelDefinitionError(
                    f"{klass.__name__}.parameter_rules holds {rule!r}: give Rule(...) objects.")
            if rule not in rules:
                rules.append(rule)
    out = tuple(rules)
    type.__setattr__(cls, "_rules_cache", out)
    return out


def check_rules(where: str, rules: Sequence[Rule], values: dict[str, Any],
                computed: set[str]) -> None:
    """Raise ParameterError for the first rule in ``rules`` that ``values`` (parameter name ->
    value) break (a ParameterWarning for a rule with ``warn=True``). ``where`` names the
    component (``"Body 'pendulum.link1'"``); rules that read a parameter in ``computed``
    (fixed=False: a guess until initialisation) are skipped."""
    for rule in rules:
        missing = [n for n in rule.parameters if n not in values]
        if missing:
            raise ModelDefinitionError(
                f"{where}: the parameter rule '{rule.text}' reads {', '.join(missing)}, which the "
                "component does not declare: correct the rule's parameter names.")
        if any(n in computed for n in rule.parameters):
            continue
        args = [values[n] for n in rule.parameters]
        shown = ", ".join(f"{n}={_shown(v)}" for n, v in zip(rule.parameters, args))
        try:
            problem = rule.broken(args)
        except AcausalError:
            raise
        except (TypeError, ValueError, ArithmeticError, IndexError, KeyError) as exc:
            raise ParameterError(
                f"{where}: the parameters {shown} cannot be checked against the rule "
                f"'{rule.text}' ({type(exc).__name__}: {exc}): give values of the kind the "
                "component's reference describes.") from exc
        if problem is None:
            continue
        advice = rule.advice or "change these parameters so that the rule holds"
        message = f"{where}: {problem} ({shown}). Rule: {rule.text}; {advice}."
        if rule.warn:
            warnings.warn(ParameterWarning(message), stacklevel=2)
            continue
        raise ParameterError(message)


def _shown(value: Any) -> str:
    """A value as the user gave it, numbers short (0.1 rather than 0.1000000000000000055)."""
    if isinstance(value, float):
        return f"{value:g}" if math.isfinite(value) else repr(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_shown(v) for v in value)
        return f"({inner}{',' if len(value) == 1 else ''})"
    return repr(value)
