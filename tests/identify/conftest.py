"""Shared fixtures of the identification tests: the example models, loaded from their files
(pytest runs with --import-mode=importlib, so neither examples/ nor this folder is on
sys.path)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def load_example(name: str):
    """The module examples/<name>.py, imported under a private name."""
    module_name = f"_acausal_example_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def friction_example():
    """examples/identify_friction.py: the LuGre friction oscillator and its experiments."""
    return load_example("identify_friction")


@pytest.fixture(scope="session")
def wheel_example():
    """examples/slipping_wheel.py: the wheel on a OneDOFSlippingWheelJoint."""
    return load_example("slipping_wheel")
