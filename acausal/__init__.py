"""acausal: equation-based component modeling in Python (sympy in, CasADi out).

Declare components with connectors and sympy relations, compose them into models, and
compile: flattening, alias elimination, Pantelides index reduction, dummy-derivative state
selection, BLT sorting and tearing, then CasADi functions integrated with SUNDIALS.
"""

from .analysis.linearize import OperatingPoint, StateSpace
from .analysis.optimal_control import MPC, OptimalControl, OptimalControlResult
from .base.errors import (
    AcausalError,
    InitializationError,
    InputError,
    ModelDefinitionError,
    OptimizationError,
    OverdeterminedError,
    ParameterError,
    SimulationError,
    StructuralError,
    StructurallySingularError,
    UnconnectedConnectorError,
    UnderdeterminedError,
    UnitError,
    UnknownNameError,
)
from .base.version import __version__
from .compiler.codegen import register_function
from .identify import Experiment, IdentificationResult, IdentificationWarning, identify
from .language.declarations import Discrete, Flow, Input, Parameter, Potential, Variable
from .language.events import When, assign, reinit
from .language.model import Component, Connection, Connector, Outer, connect
from .language.overdetermined import (
    Overdetermined,
    branch,
    is_root,
    potential_root,
    root,
    rooted,
)
from .language.rules import Rule
from .language.symbolic import Eq, der, event_if, pre, time, unit_free
from .language.visuals import Visual
from .run.ensemble import parameter_grid, simulate_many
from .run.simulate import simulate
from .run.solution import Solution, register_viewer
from .system import CompiledSystem, compile
from .view import view as _view

register_viewer(_view)  # Solution.view (run layer) calls the viewer (layer 4): see acausal.view

__all__ = [
    "AcausalError", "CompiledSystem", "MPC", "OptimalControl", "OptimalControlResult",
    "Experiment", "IdentificationResult",
    "IdentificationWarning", "identify", "Component", "Connection", "Connector", "Discrete", "Eq",
    "Flow", "Input", "Outer", "Overdetermined", "When", "branch", "is_root", "potential_root",
    "root", "rooted", "assign", "event_if", "pre", "reinit",
    "InitializationError", "InputError", "ModelDefinitionError", "OptimizationError",
    "OperatingPoint",
    "OverdeterminedError", "Parameter", "StateSpace",
    "ParameterError", "Potential", "Rule", "SimulationError", "Solution", "StructuralError",
    "StructurallySingularError", "UnconnectedConnectorError", "UnderdeterminedError",
    "UnitError", "UnknownNameError", "Variable", "Visual", "compile", "connect", "der",
    "register_function", "simulate", "simulate_many", "parameter_grid", "time", "unit_free",
    "__version__",
]
