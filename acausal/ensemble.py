"""Parameter sweeps (public module path; the code is :mod:`acausal.run.ensemble`)."""

from .run.ensemble import (
    Ensemble,
    RunResult,
    deserialize_system,
    parameter_grid,
    serialize_system,
    simulate_many,
)

__all__ = ["Ensemble", "RunResult", "deserialize_system", "parameter_grid", "serialize_system",
           "simulate_many"]
