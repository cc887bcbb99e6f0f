"""The ScalarVariables of an exported FMU: every parameter, input, discrete variable, state, state
derivative and other variable of the model, in the order of modelDescription.xml (their value
references), with where the C wrapper finds each value; and the ``outputs=`` of the export."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import casadi as ca
import numpy as np

from ...base.errors import InputError, UnknownNameError, did_you_mean

#: kinds of value references (the C enum VR_* of fmi2_wrapper.c, in this order)
VR_KINDS = ("parameter", "input", "discrete", "state", "derivative", "observed")


@dataclass
class ScalarVariable:
    """One ScalarVariable of modelDescription.xml and how the C code finds its value."""

    name: str
    kind: str  # one of VR_KINDS
    index: int  # into p, x, xdot or the observed vector (-1: the constant 0)
    sign: float = 1.0
    causality: str = "local"
    variability: str = "continuous"
    initial: str | None = None
    start: float | None = None
    unit: str | None = None
    description: str | None = None
    min: float | None = None
    max: float | None = None
    nominal: float | None = None
    derivative: int | None = None  # 1-based index of the state (derivatives)
    reinit: bool = False


def scalar_variables(cs, x0: np.ndarray, p0: np.ndarray,
                     exact: list[bool]) -> list[ScalarVariable]:
    """Every ScalarVariable, in the order of modelDescription.xml (parameters, discrete
    variables, states, derivatives, then every other variable by name). ``exact``: per state,
    whether the initialisation keeps its start value (``initial="exact"``, else ``"approx"``)."""
    info = cs.system.info
    flat_vars = {v.name: v for v in cs.flat.variables}
    out: list[ScalarVariable] = []
    for i, prm in enumerate(cs.flat.parameters):
        if prm.discrete:
            continue
        if prm.is_input:
            out.append(ScalarVariable(prm.name, "input", i, causality="input",
                                      start=float(p0[i]), unit=prm.unit,
                                      description=prm.description, min=prm.min, max=prm.max))
        else:
            out.append(ScalarVariable(prm.name, "parameter", i, causality="parameter",
                                      variability="tunable", initial="exact",
                                      start=float(p0[i]), unit=prm.unit,
                                      description=prm.description, min=prm.min, max=prm.max))
    for i, prm in enumerate(cs.flat.parameters):
        if prm.discrete:
            out.append(ScalarVariable(prm.name, "discrete", i, variability="discrete",
                                      initial="exact", start=float(p0[i]), unit=prm.unit,
                                      description=prm.description))
    reinit = [any(not ca.is_equal(ev.x_new[i], cs.x[i]) for ev in cs.events)
              for i in range(cs.x.numel())]
    state_base = len(out)
    for i, v in enumerate(cs.states):
        vi = info[v]
        declared = getattr(vi, "nominal", None) if vi is not None else None
        out.append(ScalarVariable(cs.system.name(v), "state", i,
                                  initial="exact" if exact[i] else "approx",
                                  start=float(x0[i]), unit=vi.unit if vi is not None else None,
                                  description=vi.description if vi is not None else None,
                                  nominal=abs(float(declared)) if declared is not None else None,
                                  reinit=reinit[i]))
    for i, v in enumerate(cs.states):
        d = cs.system.var_to_diff[v]
        di = info[d] if d != -1 else None
        unit = di.unit if di is not None else None
        out.append(ScalarVariable(f"der({cs.system.name(v)})", "derivative", i,
                                  initial="calculated", unit=unit, derivative=state_base + i + 1,
                                  description=f"time derivative of {cs.system.name(v)}"))
    used = {var.name for var in out} | set(cs.parameter_names)
    for name, (sign, index) in sorted(cs.locations().items()):
        if name in used:
            continue
        fv = flat_vars.get(name)
        target = info[index] if index >= 0 else None
        unit = fv.unit if fv is not None else (target.unit if target is not None else None)
        desc = fv.description if fv is not None else (
            target.description if target is not None else None)
        out.append(ScalarVariable(name, "observed", index,
                                  sign=float(sign) if index >= 0 else 0.0,
                                  initial="calculated", unit=unit, description=desc))
    return out


def mark_outputs(cs, variables: list[ScalarVariable], outputs: Any) -> None:
    """Give the variables named in ``outputs`` (dotted names, vectors by their base name)
    ``causality="output"``; raises for an unknown name, a parameter or an input."""
    if outputs is None:
        return
    if isinstance(outputs, str):
        outputs = [outputs]
    try:
        names = [str(n) for n in outputs]
    except TypeError:
        raise InputError(f"outputs must be a list of variable names, got {outputs!r}.") from None
    by_name = {var.name: var for var in variables}
    for name in names:
        targets = [name] if name in by_name else (cs.vector_elements(name) or [name])
        for element in targets:
            var = by_name.get(element)
            if var is None:
                hint = did_you_mean(element, list(by_name))
                raise UnknownNameError(
                    f"outputs: '{element}' is not a variable of {cs.model_name}.{hint} Give "
                    "dotted variable names (`acausal equations` lists them).")
            if var.kind in ("parameter", "input"):
                raise InputError(
                    f"outputs: '{element}' is a {var.kind} of {cs.model_name}; it is in the FMU "
                    f"already (causality=\"{var.causality}\"). Outputs are variables computed "
                    "by the model.")
            var.causality = "output"
