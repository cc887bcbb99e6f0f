"""Every component of the libraries passes the unit check (issue 28).

Each public component class of ``acausal.components`` is flattened as a model of its own (its
3-D frames tied to a World, its required signal inputs fed by a Constant) and its equations,
initial equations and events are checked for dimensional consistency. Flattening is all the
check needs (it runs right after flattening, before any structural pass), so a component that
would not make a solvable model on its own is still checked. The example models are compiled by
their own tests with the check on (it is the default); the 3-D and planar validation models are
listed here as well, so that this file alone covers them.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pkgutil
import sys
from pathlib import Path

import pytest

import acausal.components as library
from acausal import Component, connect, time
from acausal.compiler.flatten import flatten
from acausal.compiler.units import check_units
from acausal.components.blocks import Constant, RealInput
from acausal.components.multibody.interfaces import Frame
from acausal.components.multibody.world import World

#: Constructor arguments of the components that need some (the sources' reference signals).
#: A reference such as ``3*time`` has a literal with an implied unit (rad/s2, m/s2...).
#: by class name, or by module.class where two modules share a name
TABLE = ((0.0, 1.0, 2.0), (1.0, 3.0, 5.0))
ARGUMENTS = {
    "sources.Position": dict(phi_ref=3 * time), "sources.Speed": dict(w_ref=3 * time),
    "sources.Accelerate": dict(a_ref=3 * time), "TranslationalPosition": dict(s_ref=3 * time),
    "CombiTable1Ds": dict(table=TABLE), "CombiTable1Dv": dict(table=TABLE),
    "CombiTimeTable": dict(table=TABLE), "TimeTable": dict(table=tuple(r[:2] for r in TABLE)),
    "TranslationalSpeed": dict(v_ref=3 * time), "TranslationalAccelerate": dict(a_ref=3 * time),
    # MSL gives these no default length (r is required there)
    "BodyBox": dict(r=(0.5, 0.0, 0.0)), "BodyCylinder": dict(r=(0.5, 0.0, 0.0)),
}


def _public_components() -> list[type]:
    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(library.__path__, library.__name__ + "."):
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and issubclass(cls, Component) \
                    and cls.__module__ == module.__name__ and not name.startswith("_"):
                found[f"{cls.__module__}.{name}"] = cls
    return [found[k] for k in sorted(found)]


def _declared(part: Component, kind: type) -> list[str]:
    """Names of the connectors of ``kind`` that ``part`` declares (in its class or __init__)."""
    names = {**type(part)._class_declarations(), **vars(part)}
    return [name for name, value in names.items()
            if not name.startswith("_") and isinstance(value, kind)]


class _Rig(Component):
    """A component with its 3-D frames tied to a World and its required signal inputs fed."""

    def __init__(self, part: Component, **kw) -> None:
        super().__init__(**kw)
        self.part = part
        self.world = World()
        self._frames = _declared(part, Frame)
        self._inputs = [n for n in _declared(part, RealInput)
                        if getattr(type(part), n, None) is not None
                        and getattr(getattr(type(part), n), "required", False)]
        if self._inputs:
            self.sources = [Constant() for _ in self._inputs]

    def connections(self):
        out = [connect(self.world.frame_b, getattr(self.part, n)) for n in self._frames]
        for i, name in enumerate(self._inputs):
            out.append(connect(self.sources[i].y, getattr(self.part, name)))
        return out


def _model(cls: type) -> Component:
    module = cls.__module__.rsplit(".", 1)[-1]
    part = cls(**ARGUMENTS.get(f"{module}.{cls.__name__}", ARGUMENTS.get(cls.__name__, {})))
    return _Rig(part) if _declared(part, Frame) or _declared(part, RealInput) else part


COMPONENTS = _public_components()


def test_the_library_is_found():
    assert len(COMPONENTS) > 150


@pytest.mark.parametrize("cls", COMPONENTS, ids=lambda c: f"{c.__module__[19:]}.{c.__name__}")
def test_every_library_component_passes_the_unit_check(cls):
    check_units(flatten(_model(cls)))


# ------------------------------------------------------------------------------------------
# The example scripts' models
# ------------------------------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example_models() -> list[tuple[str, type]]:
    found = []
    for path in sorted(EXAMPLES.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"_units_example_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses and pickling look the module up
        spec.loader.exec_module(module)  # every example runs its work under __main__ only
        for name, cls in vars(module).items():
            if inspect.isclass(cls) and issubclass(cls, Component) \
                    and cls.__module__ == module.__name__:
                found.append((f"{path.stem}.{name}", cls))
    return found


EXAMPLE_MODELS = _example_models()


def test_the_examples_are_found():
    assert len(EXAMPLE_MODELS) >= 11


def _example_arguments(name: str) -> list[dict]:
    """Constructor arguments of the example models (each case of the examples that have
    several), taken from the example itself."""
    if name == "MassOnCoordinateSpringDamperExt":
        module = sys.modules["_units_example_coordinate_spring_damper_ext"]
        return [dict(csd_parameters=params, v0=v0, force_amplitude=amplitude)
                for params, v0, amplitude, _ in module.CASES.values()]
    return [{}]


@pytest.mark.parametrize("cls", [c for _, c in EXAMPLE_MODELS],
                         ids=[n for n, _ in EXAMPLE_MODELS])
def test_every_example_model_passes_the_unit_check(cls):
    for arguments in _example_arguments(cls.__name__):
        check_units(flatten(cls(**arguments)))
