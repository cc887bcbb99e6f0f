"""acausal: equation-based component modeling in Python (sympy in, CasADi out).

Declare components with connectors and sympy relations, compose them into models, and
compile: flattening, alias elimination, Pantelides index reduction, dummy-derivative state
selection, BLT sorting and tearing, then CasADi functions integrated with SUNDIALS.

Importing the package loads the language, the compiler and the run layer (sympy, CasADi,
numpy). Linearisation, optimal control, the sweeps, the viewer and the exporters, and what
they and the solver pull in (scipy, scikit-sundae, multiprocessing, ...), load when first
used: the public names are the same, some are resolved on first access (PEP 562
``__getattr__``). ``benchmarks/import_time.py`` measures it (target: 0.8 s on two cores).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

# eager, though an analysis: the function ``acausal.identify`` shares its name with the module
# ``acausal/identify.py``, and a first import of that module would otherwise bind the module over
# the function as the package's attribute (~15 ms)
from .identify import Experiment, IdentificationResult, IdentificationWarning, identify
from .language.declarations import Discrete, Flow, Input, Parameter, Potential, Variable
from .language.events import When, assign, reinit
from .language.model import Component, Connection, Connector, Outer, connect
from .language.monitors import StuckMonitor
from .language.overdetermined import (
    Overdetermined,
    branch,
    is_root,
    potential_root,
    root,
    rooted,
)
from .language.rules import Rule
from .language.symbolic import Eq, der, event_if, initial, pre, time, unit_free
from .language.visuals import Visual
from .run.simulate import simulate
from .run.solution import Solution, register_viewer
from .system import CompiledSystem, compile

if TYPE_CHECKING:  # what the lazy names below resolve to, for type checkers and IDEs
    from .analysis.linearize import OperatingPoint, StateSpace
    from .analysis.optimal_control import MPC, OptimalControl, OptimalControlResult
    from .run.ensemble import parameter_grid, simulate_many

#: public names loaded on first access, and the module (relative to this package) that owns them
_LAZY = {
    "OperatingPoint": ".analysis.linearize", "StateSpace": ".analysis.linearize",
    "MPC": ".analysis.optimal_control", "OptimalControl": ".analysis.optimal_control",
    "OptimalControlResult": ".analysis.optimal_control",
    "parameter_grid": ".run.ensemble", "simulate_many": ".run.ensemble",
}
#: modules that importing the package used to load, reachable as attributes on first access
#: (`import acausal; acausal.view.View`); their own sub-modules are imported as usual
_LAZY_MODULES = frozenset({"ensemble", "export", "export_c", "view"})


def __getattr__(name: str) -> Any:
    """A lazy public name: its module is imported on first access, then the name is cached
    in the package's namespace so later look-ups are ordinary attribute reads."""
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'acausal' has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | _LAZY_MODULES)


def _view(solution: Solution, path: Any = None, **options: Any) -> Any:
    """``Solution.view``: the viewer (layer 4) and its page assets load on the first view."""
    from .view import view

    return view(solution, path, **options)


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
    "StructurallySingularError", "StuckMonitor", "UnconnectedConnectorError",
    "UnderdeterminedError",
    "UnitError", "UnknownNameError", "Variable", "Visual", "compile", "connect", "der",
    "initial", "register_function", "simulate", "simulate_many", "parameter_grid", "time",
    "unit_free",
    "__version__",
]
