"""The planar World (an Outer/inner part): gravity for every body, found from the inside out."""

import numpy as np
import pytest

from acausal import Component, compile
from acausal.components.planar.parts import Body, World


class FreeFall(Component):
    body = Body(m=2.0, I=0.1)


class MoonFall(Component):
    world = World(g=[0.0, -1.62])
    body = Body(m=2.0, I=0.1)


class TwoLevels(Component):
    """An inner model with its own world next to a body that uses the outer one."""

    world = World(g=[0.0, -1.0])
    outer_body = Body()
    inner = MoonFall()


def test_default_world_is_added_and_gravity_is_a_parameter():
    cs = compile(FreeFall())
    assert cs.parameters()["world.g[1]"] == pytest.approx(-9.81)
    sol = cs.simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["body.r[1]"], -0.5 * 9.81 * sol.t**2, atol=1e-9)
    sol = cs.simulate(1.0, params={"world.g[1]": -3.0}, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["body.r[1]"], -1.5 * sol.t**2, atol=1e-9)


def test_nearest_world_wins():
    sol = compile(TwoLevels()).simulate(1.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["outer_body.r[1]"], -0.5 * sol.t**2, atol=1e-9)
    np.testing.assert_allclose(sol["inner.body.r[1]"], -0.81 * sol.t**2, atol=1e-9)


def test_a_body_can_override_gravity():
    class Weightless(Component):
        body = Body(g=[0.0, 0.0])

    sol = compile(Weightless()).simulate(1.0)
    assert np.max(np.abs(sol["body.r[1]"])) == 0.0
