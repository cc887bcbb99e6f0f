"""acausal: equation-based component modeling in Python (sympy in, CasADi out).

Declare components with connectors and sympy relations, compose them into models, and
compile: flattening, alias elimination, Pantelides index reduction, dummy-derivative state
selection, BLT sorting and tearing, then CasADi functions integrated with SUNDIALS.
"""

from .codegen import register_function
from .compiler import CompiledSystem, compile_model
from .ensemble import simulate_many
from .errors import (
    AcausalError,
    InitializationError,
    InputError,
    ModelDefinitionError,
    OverdeterminedError,
    ParameterError,
    SimulationError,
    StructuralError,
    StructurallySingularError,
    UnconnectedConnectorError,
    UnderdeterminedError,
    UnknownNameError,
)
from .identify import Experiment, IdentificationResult, IdentificationWarning, identify
from .linearize import OperatingPoint, StateSpace
from .model import (
    Component,
    Connection,
    Connector,
    Discrete,
    Flow,
    Input,
    Outer,
    Overdetermined,
    Parameter,
    Potential,
    Variable,
    When,
    assign,
    branch,
    connect,
    is_root,
    potential_root,
    reinit,
    root,
    rooted,
)
from .simulate import simulate
from .solution import Solution
from .symbolic import Eq, der, event_if, pre, time


def compile(model: Component, **options) -> CompiledSystem:  # noqa: A001 - the natural name
    """Compile a model instance into a :class:`CompiledSystem`.

    Options: ``stabilization=None | "baumgarte"`` with ``alpha``, ``beta`` (see
    :func:`acausal.compiler.compile_model`).
    """
    return compile_model(model, **options)


__version__ = "0.1.0"

__all__ = [
    "AcausalError", "CompiledSystem", "Experiment", "IdentificationResult",
    "IdentificationWarning", "identify", "Component", "Connection", "Connector", "Discrete", "Eq",
    "Flow", "Input", "Outer", "Overdetermined", "When", "branch", "is_root", "potential_root",
    "root", "rooted", "assign", "event_if", "pre", "reinit",
    "InitializationError", "InputError", "ModelDefinitionError", "OperatingPoint",
    "OverdeterminedError", "Parameter", "StateSpace",
    "ParameterError", "Potential", "SimulationError", "Solution", "StructuralError",
    "StructurallySingularError", "UnconnectedConnectorError", "UnderdeterminedError",
    "UnknownNameError", "Variable", "compile", "connect", "der", "register_function",
    "simulate", "simulate_many", "time",
]
