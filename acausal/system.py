"""The user-facing compiled system: :func:`compile` and :class:`CompiledSystem`.

The compiler (``acausal.compiler``) returns a
:class:`~acausal.compiler.compiled_model.CompiledModel`: functions, names and indices, nothing
that runs it. This top-layer facade adds the verbs a user
calls on it, each delegating to the layer that owns it:

* ``simulate()``: :mod:`acausal.run.simulate`
* ``linearize()``, ``trim()``: :mod:`acausal.analysis.linearize`
* ``optimal_control()``: :mod:`acausal.analysis.optimal_control`
* ``export_fmu()``: :mod:`acausal.export.fmu`; ``generate_c()``: :mod:`acausal.export.c_code`

so that no layer below imports one above it (see docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from .compiler.compiled_model import CompiledModel
from .compiler.pipeline import compile_model
from .language.model import Component, register_compiler
from .run.simulate import simulate_compiled
from .run.solution import Solution

if TYPE_CHECKING:  # the analyses and exporters load when a verb is first called (import time)
    from .analysis.linearize import OperatingPoint, StateSpace
    from .analysis.optimal_control import OptimalControl


class CompiledSystem(CompiledModel):
    """A compiled model with the verbs a user calls on it (``simulate``, ``linearize``,
    ``trim``, ``export_fmu``, ``generate_c``); everything else is
    :class:`~acausal.compiler.compiled_model.CompiledModel`'s."""

    @classmethod
    def of(cls, model: CompiledModel) -> CompiledSystem:
        """The same compiled model (its fields shared, not copied) as a CompiledSystem."""
        if isinstance(model, cls):
            return model
        return cls(**{f.name: getattr(model, f.name) for f in fields(model)})

    def simulate(self, t_end: float, **options: Any) -> Solution:
        """Simulate this compiled system (see :func:`acausal.simulate`)."""
        return simulate_compiled(self, t_end, **options)

    def linearize(self, t: float = 0.0, operating_point: Any = None,
                  **options: Any) -> StateSpace:
        """State-space matrices (A, B, C, D) at an operating point, in the compiled states or
        in ``states=[...]`` (see :func:`acausal.analysis.linearize.linearize`)."""
        from .analysis.linearize import linearize

        return linearize(self, t, operating_point, **options)

    def trim(self, **options: Any) -> OperatingPoint:
        """A steady operating point: der(x) = 0 (see :func:`acausal.analysis.linearize.trim`)."""
        from .analysis.linearize import trim

        return trim(self, **options)

    def optimal_control(self, t_start: float = 0.0, t_end: float | None = None,
                        **options: Any) -> OptimalControl:
        """An optimal control problem on this system (see
        :class:`acausal.analysis.optimal_control.OptimalControl`)."""
        from .analysis.optimal_control import OptimalControl

        return OptimalControl(self, t_start=t_start, t_end=t_end, **options)

    def export_fmu(self, path: Any, fmi_version: str = "2.0", kind: str = "model-exchange",
                   **options: Any):
        """Write an FMU (FMI 2.0 model exchange or co-simulation) of this system (see
        :func:`acausal.export.fmu.export_fmu`)."""
        from .export.fmu import export_fmu

        return export_fmu(self, path, fmi_version=fmi_version, kind=kind, **options)

    def generate_c(self, directory: Any, **options: Any):
        """Write the model's functions as plain C (see
        :func:`acausal.export.c_code.generate_c`)."""
        from .export.c_code import generate_c

        return generate_c(self, directory, **options)


def compile(model: Component, **options: Any) -> CompiledSystem:  # noqa: A001 - the natural name
    """Compile a model instance into a :class:`CompiledSystem`.

    Options: ``stabilization=None | "baumgarte"`` with ``alpha``, ``beta``, and ``progress``
    (see :func:`acausal.compiler.pipeline.compile_model`).
    """
    return CompiledSystem.of(compile_model(model, **options))


register_compiler(compile)  # Component.compile() calls acausal.compile (the language layer
                            # cannot import the compiler: see acausal.language.model)
