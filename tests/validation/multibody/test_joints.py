"""``ModelicaTest.MultiBody.Joints``: each joint alone, against the Dymola references and
their analytic solutions."""

from __future__ import annotations

import math

import numpy as np
import pytest

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


def test_spherical_holds_a_fixed_start_orientation_with_quaternion_states(compare):
    from acausal.components.multibody.examples import SphericalTest

    cs = compile(SphericalTest())
    # the body is the root of its part of the orientation graph: it carries quaternions
    assert {"body.Q[0]", "body.Q[1]", "body.Q[2]"} <= set(cs.state_names)
    sol = cs.simulate(1.1, t_eval=[0.0, 1.1], rtol=RTOL, atol=ATOL)
    # Q of 45 deg about x, then y, then z (MultiBody's to_Q), analytic
    q_start = [0.46193976625564, 0.19134171618254, 0.46193976625564, 0.73253781632874]
    np.testing.assert_allclose(sol["body.Q"].T, [q_start, q_start], atol=1e-12)
    compare(cs, "Spherical", rtol=RTOL, atol=ATOL)


def test_universal_swings_about_the_world_x_axis(compare):
    from acausal.components.multibody.examples import UniversalTest

    cs = compile(UniversalTest())
    sol = cs.simulate(1.1, t_eval=np.linspace(0, 1.1, 12), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["universal.phi_a"], math.pi / 2, atol=1e-9)
    # phi_b turns about world -x with the centre of mass at height L cos(phi_b), L = 0.5:
    # (I + m L^2) phi_b'' = m g L sin(phi_b)
    from scipy.integrate import solve_ivp

    exact = solve_ivp(lambda t, y: [y[1], G * 0.5 * math.sin(y[0]) / (0.001 + 0.25)],
                      (0, 1.1), [math.pi / 4, 0.0], t_eval=sol.t, rtol=1e-12, atol=1e-12).y
    np.testing.assert_allclose(sol["universal.phi_b"], exact[0], atol=1e-7)
    compare(cs, "Universal", rtol=RTOL, atol=ATOL)


def test_cylindrical_with_the_centre_of_mass_on_a_horizontal_axis_stays_put(compare):
    from acausal.components.multibody.examples import CylindricalTest

    cs = compile(CylindricalTest())
    sol = cs.simulate(1.1, t_eval=[0.0, 1.1], rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["cylindrical.s"], 0.3, atol=1e-12)
    np.testing.assert_allclose(sol["cylindrical.phi"], math.pi / 4, atol=1e-12)
    compare(cs, "Cylindrical", rtol=RTOL, atol=ATOL)


def test_free_motion_falls_freely_with_its_start_orientation(compare):
    from acausal.components.multibody.examples import FreeMotionTest

    cs = compile(FreeMotionTest())
    times = np.array([0.0, 0.5, 1.1])
    sol = cs.simulate(1.1, t_eval=times, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["freeMotion.r_rel_a[1]"], 0.4 - G * times**2 / 2, atol=1e-9)
    np.testing.assert_allclose(sol["freeMotion.Q[3]"], 0.73253781632874, atol=1e-12)
    compare(cs, "FreeMotion", rtol=RTOL, atol=ATOL)


def test_line_springs_hold_bodies_on_vertical_prismatic_joints(compare):
    from acausal.components.multibody.examples import SpringTest

    cs = compile(SpringTest())
    sol = cs.simulate(3.0, t_eval=[0.0, 3.0], rtol=RTOL, atol=ATOL)
    # the initial acceleration MultiBody fixes for spring1: -0.81 m/s2
    assert sol["prismatic1.a"][0] == pytest.approx(-0.81, abs=1e-9)
    compare(cs, "Spring", rtol=RTOL, atol=ATOL)


def test_line_dampers_with_a_sine_force_and_the_heat_they_dissipate(compare):
    from acausal.components.multibody.examples import DamperTest

    cs = compile(DamperTest())
    sol = cs.simulate(7.0, dt=0.0014, rtol=RTOL, atol=ATOL)
    # MultiBody's condition for damper2.d: the initial acceleration is 0.2 m/s2
    assert sol["prismatic2.a"][0] == pytest.approx(0.2, abs=1e-9)
    # the heat in the capacitor is the damper's dissipated work: C dT = integral d v^2 dt
    v = sol["prismatic1.v"]
    work = np.concatenate([[0.0], np.cumsum(0.5 * (v[1:]**2 + v[:-1]**2) * np.diff(sol.t))])
    # (the trapezoidal rule on the 1.4 ms output grid is good to about 2e-5 J of 23 J)
    np.testing.assert_allclose(100.0 * (sol["heatCapacitor.T"] - 293.15), 10.0 * work,
                               atol=1e-4)
    compare(cs, "Damper", rtol=RTOL, atol=ATOL)
