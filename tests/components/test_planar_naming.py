"""One naming across the planar and the 3-D libraries: the planar parameters carry Modelica
MultiBody's names (``use_axis_flange``, ``r_CM``, a scalar ``g`` with a direction ``n``), the
former spellings are refused with an error naming the new one, and the planar package exports
its classes at package level as the multibody package does."""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipk

import acausal.components.multibody as mb
import acausal.components.planar as pl
from acausal import Component, Connector, Variable, compile, connect
from acausal.errors import AcausalError, ModelDefinitionError, ParameterError

PLANAR_DIR = Path(pl.__file__).parent
TIGHT = {"rtol": 1e-11, "atol": 1e-13}


# ------------------------------------------------------------------------------------------
# former spellings
# ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("cls", [pl.Revolute, pl.Prismatic, pl.RevoluteWithFriction,
                                 pl.PrismaticWithFriction])
def test_use_flange_names_use_axis_flange(cls):
    with pytest.raises(ModelDefinitionError) as err:
        cls(use_flange=True)
    assert "use_flange was renamed use_axis_flange (as in Modelica MultiBody)" in str(err.value)
    assert f"{cls.__name__}(use_axis_flange=...)" in str(err.value)
    joint = cls(use_axis_flange=True)
    assert hasattr(joint, "flange_a")
    # the 3-D joints have the same parameter (their flange is called axis)
    assert "use_axis_flange" in (mb.Revolute if "Revolute" in cls.__name__
                                 else mb.Prismatic)._class_declarations()


def test_r_cm_names_r_CM():
    with pytest.raises(ModelDefinitionError, match=r"r_cm was renamed r_CM \(as in Modelica "
                                                   r"MultiBody\)"):
        pl.BodyShape(r=[1.0, 0.0], r_cm=[0.5, 0.0])
    assert "r_CM" in pl.BodyShape._class_declarations()
    assert "r_CM" in mb.BodyShape._class_declarations()


@pytest.mark.parametrize("given, instead", [([0.0, -9.81], "g=9.81, n=[0, -1]"),
                                            ((0, -9.81), "g=9.81, n=[0, -1]"),
                                            (np.array([3.0, -4.0]), "g=5, n=[0.6, -0.8]")])
def test_vector_gravity_says_give_g_and_n(given, instead):
    with pytest.raises(ParameterError) as err:
        pl.World(g=given)
    message = str(err.value)
    assert f"give {instead}" in message
    assert "9.80665" in message and "g=9.81 to reproduce PlanarMechanics" in message


def test_errors_are_of_the_acausal_family_and_unknown_keywords_still_say_so():
    for make in (lambda: pl.Revolute(use_flange=True), lambda: pl.BodyShape(r_cm=[0.5, 0.0]),
                 lambda: pl.World(g=[0.0, -9.81])):
        with pytest.raises(AcausalError):
            make()
    # a misspelling that is no former name keeps the generic message with the suggestion
    with pytest.raises(ModelDefinitionError, match="Did you mean 'use_axis_flange'"):
        pl.Revolute(use_axis_flang=True)


# ------------------------------------------------------------------------------------------
# package-level exports
# ------------------------------------------------------------------------------------------

def test_package_exports_the_components():
    for name in ("World", "Body", "BodyShape", "Fixed", "FixedTranslation", "FixedRotation",
                 "Revolute", "Prismatic", "RevoluteWithFriction", "PrismaticWithFriction",
                 "Spring", "Damper", "SpringDamper", "WorldForce", "WorldTorque", "Frame",
                 "TSDA", "RSDA", "IdealRolling", "SlipBasedWheelJoint", "CutForce", "Power"):
        assert name in pl.__all__ and hasattr(pl, name), name
    assert sorted(pl.__all__) == sorted(set(pl.__all__))
    assert pl.Revolute is __import__("acausal.components.planar.joints",
                                     fromlist=["Revolute"]).Revolute
    # every public component or connector class of a planar module is exported
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules([str(PLANAR_DIR)]):
        # drawing shapes; the renaming mixin; the example models of examples/ (not parts)
        if info.name in ("animation", "naming") or info.name.startswith("examples"):
            continue
        module = importlib.import_module(f"acausal.components.planar.{info.name}")
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and obj.__module__ == module.__name__
                    and not name.startswith("_") and issubclass(obj, (Component, Connector))):
                assert getattr(pl, name, None) is obj, f"{info.name}.{name} is not exported"


# No import circle between the package and its modules (the package now imports them all):
# tests/test_architecture.py::test_no_import_circle checks it for every module.


# ------------------------------------------------------------------------------------------
# gravity g*n
# ------------------------------------------------------------------------------------------

def test_default_gravity_is_standard_gravity_along_minus_y():
    class Fall(Component):
        body = pl.Body(m=1.0, I=0.1)

    cs = compile(Fall())
    params = cs.parameters()
    assert params["world.g"] == 9.80665
    assert (params["world.n[0]"], params["world.n[1]"]) == (0.0, -1.0)
    sol = cs.simulate(0.5, n_points=3, **TIGHT)
    np.testing.assert_allclose(sol["body.a"], [[0.0] * 3, [-9.80665] * 3], rtol=1e-12,
                               atol=1e-12)
    # n is normalised: a longer n gives the same gravity
    sol = cs.simulate(0.5, n_points=3, params={"world.n[1]": -3.0}, **TIGHT)
    np.testing.assert_allclose(sol["body.a"][1], -9.80665, rtol=1e-12)


def pendulum(theta0: float, **world) -> Component:
    """A point mass (m = 1, I = 0) on a massless 1 m rod, released at rest theta0 from the
    downward vertical."""

    class Pendulum(Component):
        def __init__(self):
            super().__init__()
            self.world = pl.World(**world)
            self.fixed = pl.Fixed()
            self.revolute = pl.Revolute(phi=Variable(start=-math.pi / 2 + theta0, fixed=True),
                                        w=Variable(start=0.0, fixed=True))
            self.rod = pl.FixedTranslation(r=[1.0, 0.0])
            self.body = pl.Body(m=1.0, I=0.0)

        def connections(self):
            return [connect(self.fixed.frame, self.revolute.frame_a),
                    connect(self.revolute.frame_b, self.rod.frame_a),
                    connect(self.rod.frame_b, self.body.frame_a)]

    return Pendulum()


def half_period(sol) -> float:
    """The first return of w to zero (the turning point), interpolated linearly."""
    w = sol["revolute.w"]
    k = np.flatnonzero((w[1:-1] < 0.0) & (w[2:] >= 0.0))[0] + 1
    return float(sol.t[k] - w[k] * (sol.t[k + 1] - sol.t[k]) / (w[k + 1] - w[k]))


@pytest.mark.parametrize("world, g", [({"g": 9.81}, 9.81), ({}, 9.80665)])
def test_pendulum_period_follows_g(world, g):
    """The period 4 sqrt(L/g) K(sin^2(theta0/2)) of the exact pendulum, to 1e-8: the two
    gravities differ by 3.4e-4, so a pendulum on the wrong g misses by 1.7e-4."""
    theta0 = 0.5
    exact = 4.0 * math.sqrt(1.0 / g) * ellipk(math.sin(theta0 / 2) ** 2)
    t = np.linspace(0.0, 0.6 * exact, 6001)
    sol = compile(pendulum(theta0, **world)).simulate(float(t[-1]), t_eval=t, **TIGHT)
    assert 2.0 * half_period(sol) == pytest.approx(exact, rel=1e-8)
