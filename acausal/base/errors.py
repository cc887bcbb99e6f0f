"""The acausal error family.

Every error a user can cause (a bad model, bad input, a failed initialisation or integration)
is raised as a subclass of :class:`AcausalError`. Messages name the component path and the
variables or equations concerned, and say what to do about it.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable


class AcausalError(Exception):
    """Base class of every error raised by acausal for a user's model or input."""


class ModelDefinitionError(AcausalError):
    """A component or model is declared wrongly (unknown override, bad declaration, bad connect)."""


class UnitError(ModelDefinitionError):
    """An equation whose terms have different units (found by the compiler's unit check,
    ``compile(model, check_units=True)``, the default): the message names the component, the
    equation as written and the unit of each term."""


class UnknownNameError(AcausalError, KeyError):
    """A dotted name (variable, parameter, component) does not exist in the model."""

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0]) if self.args else ""


class ParameterError(AcausalError, ValueError):
    """A parameter value is invalid (not finite, wrong shape, unknown parameter)."""


class InputError(AcausalError, ValueError):
    """An argument given to an acausal function is invalid: a simulate option, a time, a
    start value or a file path. The message names the argument and the values it accepts."""


class StructuralError(AcausalError):
    """The equations cannot be solved for the variables, judged by structure alone."""


class UnderdeterminedError(StructuralError):
    """Fewer equations than unknowns (in the whole model or in a part of it)."""


class OverdeterminedError(StructuralError):
    """More equations than unknowns (in the whole model or in a part of it)."""


class StructurallySingularError(StructuralError):
    """Index reduction cannot make the system solvable (e.g. conflicting constraints)."""


class UnconnectedConnectorError(ModelDefinitionError):
    """A connector declared ``required=True`` is not connected to anything."""


class InitializationError(AcausalError):
    """No consistent initial values were found (or fixed start values conflict)."""


class SimulationError(AcausalError):
    """The integrator failed (step size too small, singular Jacobian, non-finite values, ...).

    ``err.solution`` holds the results up to the failure when a run had started (else None).
    """

    solution = None


class OptimizationError(AcausalError):
    """An optimal control or MPC problem that IPOPT could not solve (infeasible, diverged, out
    of iterations). ``err.status`` is IPOPT's return status; ``err.violations`` the
    constraints violated most at the last iterate, as (label, amount) pairs."""

    def __init__(self, message: str, status: str = "", violations: list | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.violations = list(violations or [])


class ParameterWarning(UserWarning):
    """A parameter value that the model accepts but that is physically doubtful, e.g. moments
    of inertia no mass distribution has, given as placeholders for axes a joint does not let
    the body turn about (the message names the component, the parameters and the rule)."""


class SimulationWarning(UserWarning):
    """A simulation went on past something a user should know of (e.g. events that look like
    Zeno behaviour with ``simulate(zeno="warn")``)."""


class ConnectionWarning(UserWarning):
    """A model that compiles but where a forgotten connection probably leaves a part without
    effect: a part connected to nothing, or a spring or damper with an open end, which then
    transmits no force (the message names the component and its open connectors)."""


def user_stacklevel() -> int:
    """The ``stacklevel`` for a ``warnings.warn`` made by the function that calls this which
    points the warning at the first caller outside acausal (the user's ``compile`` or
    ``simulate`` call, however deep the layers below it are)."""
    frame, level = sys._getframe(1), 1  # the function that warns: stacklevel 1
    while frame is not None and frame.f_globals.get("__name__", "").split(".")[0] == "acausal":
        frame, level = frame.f_back, level + 1
    return level


def did_you_mean(name: str, candidates: Iterable[str], n: int = 3) -> str:
    """A short 'did you mean ...?' hint for an unknown name, or an empty string."""
    close = difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.6)
    if not close:
        return ""
    return " Did you mean " + ", ".join(repr(c) for c in close) + "?"
