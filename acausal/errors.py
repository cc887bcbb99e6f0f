"""The acausal error family, at its public module path (defined in :mod:`acausal.base.errors`).

Every error acausal raises derives from :class:`AcausalError`; catch it to catch them all.
"""

from .base.errors import (
    AcausalError,
    ConnectionWarning,
    InitializationError,
    InputError,
    ModelDefinitionError,
    OptimizationError,
    OverdeterminedError,
    ParameterError,
    ParameterWarning,
    SimulationError,
    SimulationWarning,
    StructuralError,
    StructurallySingularError,
    UnconnectedConnectorError,
    UnderdeterminedError,
    UnitError,
    UnknownNameError,
    did_you_mean,
)

__all__ = [
    "AcausalError", "ConnectionWarning", "InitializationError", "InputError",
    "ModelDefinitionError",
    "OptimizationError",
    "OverdeterminedError", "ParameterError", "ParameterWarning", "SimulationError",
    "SimulationWarning", "StructuralError",
    "StructurallySingularError", "UnconnectedConnectorError", "UnderdeterminedError",
    "UnitError", "UnknownNameError", "did_you_mean",
]
