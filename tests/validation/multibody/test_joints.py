"""``ModelicaTest.MultiBody.Joints``: each joint alone, against the Dymola references and
their analytic solutions."""

from __future__ import annotations

import math

import numpy as np

from acausal import compile
from acausal.components.multibody.examples import PrismaticTest, RevoluteTest

RTOL, ATOL = 1e-9, 1e-11
G = 9.80665


def test_revolute_with_the_centre_of_mass_on_its_axis_stays_put(compare):
    cs = compile(RevoluteTest())
    sol = cs.simulate(1.1, t_eval=[0.0, 0.5, 1.1], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["revolute.phi"], math.pi / 4, atol=1e-12)
    np.testing.assert_allclose(sol["revolute.w"], 0.0, atol=1e-12)
    compare(cs, "Revolute", rtol=RTOL, atol=ATOL)


def test_prismatic_on_a_diagonal_axis_falls_with_g_over_root_two(compare):
    cs = compile(PrismaticTest())
    times = np.array([0.0, 0.5, 1.1])
    sol = cs.simulate(1.1, t_eval=times, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["prismatic.s"], 0.3 - G / math.sqrt(2) * times**2 / 2,
                               atol=1e-9)
    np.testing.assert_allclose(sol["prismatic.v"], -G / math.sqrt(2) * times, atol=1e-9)
    compare(cs, "Prismatic", rtol=RTOL, atol=ATOL)
