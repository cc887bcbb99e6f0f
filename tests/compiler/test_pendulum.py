"""End to end: the Cartesian pendulum (index 3) through every pass and the integrator."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import AcausalError, Component, Eq, Parameter, Variable, compile, der

G = 9.81
THETA0 = 0.5


class AnglePendulum(Component):
    """The same pendulum in its angle: ``der(theta) = w``; ``L der(w) = -g sin(theta)``."""

    L = Parameter(1.0, unit="m")
    g = Parameter(G, unit="m/s2")
    theta = Variable(start=THETA0, fixed=True)
    w = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.theta), self.w), Eq(self.L * der(self.w), -self.g * sp.sin(self.theta))]


@pytest.fixture(scope="module")
def compiled(pendulum):
    return compile(pendulum(THETA0))


@pytest.fixture(scope="module")
def solution(compiled):
    return compiled.simulate(10.0, rtol=1e-8, atol=1e-10)


def energy(sol, L=1.0, m=1.0):
    return 0.5 * m * (sol["vx"] ** 2 + sol["vy"] ** 2) + m * G * sol["y"]


def test_compiles_to_two_states(compiled):
    assert compiled.n_states == 2
    assert sorted(compiled.state_names) == ["vx", "x"]
    assert not compiled.is_ode  # y and the rod force come from an index-1 DAE
    summary = compiled.summary()
    assert "states (2)" in summary
    assert "2 differentiated" in summary


def test_energy_is_conserved(solution):
    e = energy(solution)
    e0 = -G * math.cos(THETA0)
    assert e[0] == pytest.approx(e0, rel=1e-12)
    assert np.max(np.abs(e - e0)) / abs(e0) < 1e-6


def test_length_constraint_holds(solution):
    residual = solution["x"] ** 2 + solution["y"] ** 2 - 1.0
    assert np.max(np.abs(residual)) < 1e-8


def test_velocity_constraint_holds(solution):
    residual = solution["x"] * solution["vx"] + solution["y"] * solution["vy"]
    assert np.max(np.abs(residual)) < 1e-6


def test_initial_values(solution):
    assert solution["x"][0] == pytest.approx(math.sin(THETA0), rel=1e-12)
    assert solution["y"][0] == pytest.approx(-math.cos(THETA0), rel=1e-10)
    assert solution["vx"][0] == 0.0
    assert solution["vy"][0] == pytest.approx(0.0, abs=1e-12)


def test_agrees_with_the_angle_formulation(solution):
    ref = compile(AnglePendulum()).simulate(10.0, t_eval=solution.t, rtol=1e-10, atol=1e-12)
    theta = ref["theta"]
    assert np.max(np.abs(solution["x"] - np.sin(theta))) < 1e-5
    assert np.max(np.abs(solution["y"] + np.cos(theta))) < 1e-5


def test_rod_force_and_accelerations(solution):
    x, y, vx, vy = (solution[n] for n in ("x", "y", "vx", "vy"))
    lam = solution["lam"]
    # lam = m (v^2 - g y) / L^2 from the twice differentiated constraint
    assert np.max(np.abs(lam - (vx ** 2 + vy ** 2 - G * y))) < 1e-6 * np.max(np.abs(lam))
    assert np.max(np.abs(solution["der(vx)"] + lam * x)) < 1e-6
    assert np.max(np.abs(solution["der(vy)"] + lam * y + G)) < 1e-6
    # der(x) is an alias of vx
    assert np.array_equal(solution["der(x)"], vx)


def test_swings_symmetrically(solution):
    x = solution["x"]
    assert np.max(x) == pytest.approx(math.sin(THETA0), rel=1e-6)
    assert np.min(x) == pytest.approx(-math.sin(THETA0), abs=1e-3)  # sampled grid
    assert np.max(solution["y"]) < -math.cos(THETA0) + 1e-6


def test_parameter_change_without_recompiling(compiled):
    """A longer rod: x starts at the same fixed value, y follows from the constraint."""
    sol = compiled.simulate(3.0, params={"L": 2.0}, rtol=1e-8, atol=1e-10)
    assert sol["x"][0] == pytest.approx(math.sin(THETA0))
    assert sol["y"][0] == pytest.approx(-math.sqrt(4.0 - math.sin(THETA0) ** 2))
    assert np.max(np.abs(sol["x"] ** 2 + sol["y"] ** 2 - 4.0)) < 1e-8
    e = 0.5 * (sol["vx"] ** 2 + sol["vy"] ** 2) + G * sol["y"]
    assert np.max(np.abs(e - e[0])) / abs(e[0]) < 1e-6


def test_horizontal_start_uses_y_as_state(pendulum):
    cs = compile(pendulum(1.3, fixed=("y", "vy")))
    assert sorted(cs.state_names) == ["vy", "y"]
    # before the bob reaches the bottom (a quarter period is ~0.6 s)
    sol = cs.simulate(0.3, rtol=1e-8, atol=1e-10)
    assert sol["x"][0] == pytest.approx(math.sin(1.3))
    assert np.max(np.abs(sol["x"] ** 2 + sol["y"] ** 2 - 1.0)) < 1e-8
    e = energy(sol)
    assert np.max(np.abs(e - e[0])) / abs(e[0]) < 1e-6


def test_horizontal_start_past_the_bottom_does_not_leak_internal_errors(pendulum):
    """The state selection is static: with y as state the bottom (x = 0) is singular. Either
    the integration copes or the failure is an AcausalError."""
    cs = compile(pendulum(1.3, fixed=("y", "vy")))
    try:
        sol = cs.simulate(2.0, rtol=1e-8, atol=1e-10)
    except AcausalError:
        return
    assert np.all(np.isfinite(sol["x"]))
    assert np.max(np.abs(sol["x"] ** 2 + sol["y"] ** 2 - 1.0)) < 1e-6


def test_fixed_start_values_are_reported_in_the_solution(solution):
    assert solution.defaulted_states == []
    assert "lam" in solution.names()
    assert solution["m"] == pytest.approx(np.ones_like(solution.t))


def test_state_priority_variant_gives_the_same_motion(solution, pendulum):
    cs = compile(pendulum(THETA0, y=Variable(state_priority=10)))
    assert sorted(cs.state_names) == ["vy", "y"]
    # near the bottom y is a poor state, but over a short time the motion is the same
    sol = cs.simulate(0.2, t_eval=solution.t[:11], rtol=1e-8, atol=1e-10)
    assert np.max(np.abs(sol["x"] - solution["x"][:11])) < 1e-6
