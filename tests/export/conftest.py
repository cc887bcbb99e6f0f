"""Shared fixtures of the export tests (C code and FMUs).

The examples are imported by file path (they are scripts, not a package). The three models of
issue 16 are compiled once per session: the mass-spring-damper (an ODE), the planar piston
engine (an index-1 DAE after index reduction: 4 algebraic variables solved in the FMU) and
the Exudyn stick/slip example, case ``bristle`` (4 When clauses, discrete friction mode).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from acausal import compile

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def load_example(filename: str):
    """The example module ``examples/<filename>`` (imported once per session)."""
    name = "_acausal_export_test_" + Path(filename).stem
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _stick_slip_model():
    csde = load_example("coordinate_spring_damper_ext.py")
    params, v0, amplitude, _ = csde.CASES["bristle"]
    return csde.MassOnCoordinateSpringDamperExt(params, v0, force_amplitude=amplitude)


#: name -> (model factory, end time [s], output interval [s], signals compared, changed params)
MODELS = {
    "oscillator": (lambda: load_example("mass_spring_damper.py").Oscillator(), 5.0, 0.01,
                   ["mass.s", "mass.v", "spring.f", "damper.f"],
                   {"spring.c": 60.0, "mass.m": 1.5}),
    "piston_engine": (lambda: load_example("piston_engine.py").PistonEngine(), 10.0, 0.01,
                      ["revoluteDrive.phi", "revoluteDrive.w", "prismatic.s",
                       "bodyPiston.frame_a.fx"],
                      {"bodyPiston.m": 5.0, "pistonRod.r[0]": 1.0}),
    "stick_slip": (_stick_slip_model, 3.0, 1e-3,
                   ["mass.s", "mass.v", "csd.force", "csd.frictionMode"],
                   {"csd.fDynamicFriction": 4.0, "force_amplitude": 12.0}),
}


@pytest.fixture(scope="session")
def setups() -> dict:
    """:data:`MODELS` (test files cannot import this conftest in importlib mode)."""
    return MODELS


@pytest.fixture(scope="session")
def compiled():
    """name -> CompiledSystem of the three models (compiled on first use)."""
    cache: dict = {}

    def get(name: str):
        if name not in cache:
            cache[name] = compile(MODELS[name][0]())
        return cache[name]

    return get
