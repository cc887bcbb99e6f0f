"""The planar World (an Outer/inner part): gravity for every body, found from the inside out."""

import numpy as np
import pytest

from acausal import Component, compile
from acausal.components.planar.parts import Body, World


class FreeFall(Component):
    body = Body(m=2.0, I=0.1)


class MoonFall(Component):
    world = World(g=1.62)
    body = Body(m=2.0, I=0.1)


class TwoLevels(Component):
    """An inner model with its own world next to a body that uses the outer one."""

    world = World(g=1.0)
    outer_body = Body()
    inner = MoonFall()


def test_default_world_is_added_and_gravity_is_a_parameter():
    cs = compile(FreeFall())
    # standard gravity along -y, as MultiBody's World (PlanarMechanics' was 9.81)
    assert cs.parameters()["world.g"] == pytest.approx(9.80665)
    assert cs.parameters()["world.n[1]"] == pytest.approx(-1.0)
    sol = cs.simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["body.r[1]"], -0.5 * 9.80665 * sol.t**2, atol=1e-9)
    sol = cs.simulate(1.0, params={"world.g": 3.0}, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["body.r[1]"], -1.5 * sol.t**2, atol=1e-9)
    # the direction is normalised: n = (3, -4) is 0.6 along x and 0.8 along -y
    sol = cs.simulate(1.0, params={"world.g": 2.0, "world.n[0]": 3.0, "world.n[1]": -4.0},
                      rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["body.r[0]"], 0.6 * sol.t**2, atol=1e-9)
    np.testing.assert_allclose(sol["body.r[1]"], -0.8 * sol.t**2, atol=1e-9)


def test_nearest_world_wins():
    sol = compile(TwoLevels()).simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["outer_body.r[1]"], -0.5 * sol.t**2, atol=1e-9)
    np.testing.assert_allclose(sol["inner.body.r[1]"], -0.81 * sol.t**2, atol=1e-9)


def test_a_body_can_override_gravity():
    class Weightless(Component):
        body = Body(g=[0.0, 0.0])

    sol = compile(Weightless()).simulate(1.0)
    assert np.max(np.abs(sol["body.r[1]"])) == 0.0
