"""What several optimal control tests share: small models and loading a script by its path."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from acausal import Component, Input, Variable, connect
from acausal.components.translational import Force, Mass


class Sled(Component):
    """A unit mass at rest at 0 pushed by a force input ``force.f`` (a double integrator)."""

    mass = Mass(m=1.0, s=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True))
    force = Force(f=Input(0.0))

    def connections(self):
        return [connect(self.force.flange, self.mass.flange_a)]


def load_file(name: str, path: Path) -> ModuleType:
    """A module from its file, under ``name`` (pytest's --import-mode=importlib puts neither
    examples/ nor benchmarks/ on sys.path); registered before it runs, as dataclasses look
    their module up while the file runs."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
