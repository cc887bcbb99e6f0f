"""Parameter sweeps (public module path; the code is :mod:`acausal.run.ensemble`)."""

from .run.ensemble import (
    FIRST_MEMBER_DECIDES_S,
    WORKER_START_S,
    Ensemble,
    RunResult,
    deserialize_system,
    parameter_grid,
    serialize_system,
    simulate_many,
)

__all__ = ["FIRST_MEMBER_DECIDES_S", "WORKER_START_S", "Ensemble", "RunResult",
           "deserialize_system", "parameter_grid", "serialize_system", "simulate_many"]
