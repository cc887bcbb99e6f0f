"""Dynamic state selection: a Cartesian pendulum released near horizontal.

No static choice of states is regular over a whole swing: y (with x computed from the length
constraint) is singular at the bottom, x at the horizontal. The simulation must re-select the
states on the way and still conserve energy; the swing's timing is checked against the exact
period of the nonlinear pendulum, T = 4 sqrt(L/g) K(sin^2(theta0/2)).
"""

import math

import mpmath
import numpy as np
import pytest

from acausal import Component, Eq, Parameter, Variable, compile, der

THETA0 = math.radians(85.0)
G = 9.81


class CartesianPendulum(Component):
    m = Parameter(1.0, unit="kg")
    L = Parameter(1.0, unit="m")
    g = Parameter(G, unit="m/s2")
    x = Variable(start=math.sin(THETA0), fixed=True)
    y = Variable(start=-math.cos(THETA0))
    vx = Variable(start=0.0, fixed=True)
    vy = Variable()
    lam = Variable()

    def equations(self):
        return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                Eq(self.m * der(self.vx), -self.lam * self.x),
                Eq(self.m * der(self.vy), -self.lam * self.y - self.m * self.g),
                Eq(self.x**2 + self.y**2, self.L**2)]


@pytest.fixture(scope="module")
def compiled():
    return compile(CartesianPendulum())


def test_states_switch_and_invariants_hold(compiled):
    assert compiled.dynamic_selection
    assert compiled.n_states == 2
    sol = compiled.simulate(5.0, rtol=1e-8, atol=1e-10)
    names = {tuple(sorted(n)) for _, n in sol.state_switches}
    assert ("vx", "x") in names and ("vy", "y") in names  # both choices were used
    x, y, vx, vy = (sol[n] for n in ("x", "y", "vx", "vy"))
    energy = 0.5 * (vx**2 + vy**2) + G * y
    assert np.max(np.abs(energy - energy[0])) < 1e-6 * G
    assert np.max(np.abs(x**2 + y**2 - 1.0)) < 1e-10


def test_swing_timing_matches_the_exact_period(compiled):
    period = 4 * math.sqrt(1.0 / G) * float(mpmath.ellipk(math.sin(THETA0 / 2) ** 2))
    sol = compiled.simulate(1.1 * period, dt=2e-3, rtol=1e-10, atol=1e-12)
    x = sol["x"]
    crossings = [np.interp(0.0, [x[k + 1], x[k]], [sol.t[k + 1], sol.t[k]])
                 for k in range(x.size - 1) if x[k] > 0 >= x[k + 1]]
    # x crosses zero downwards (the bottom, moving left) a quarter period after release
    assert crossings[0] == pytest.approx(period / 4, rel=1e-6)
    back = [np.interp(0.0, [x[k], x[k + 1]], [sol.t[k], sol.t[k + 1]])
            for k in range(x.size - 1) if x[k] < 0 <= x[k + 1]]
    assert back[0] == pytest.approx(3 * period / 4, rel=1e-6)


def test_the_output_grid_changes_neither_the_steps_nor_the_state_checks(compiled):
    # the state choice is checked on the solver's steps (a root function), at most once in each
    # of RESELECT_CHECKS intervals of the run, not at output points: 50x more output points
    # leave the solver's work and the number of checks as they were
    from acausal.run import hybrid

    runs = {n: compiled.simulate(2.0, n_points=n, rtol=1e-8, atol=1e-10) for n in (101, 5001)}
    coarse, fine = runs[101].stats, runs[5001].stats
    assert 10 < coarse["state_checks"] <= hybrid.RESELECT_CHECKS + 1
    assert fine["state_checks"] == coarse["state_checks"]
    assert fine["rhs_evaluations"] == coarse["rhs_evaluations"]
    assert len(runs[5001].state_switches) >= 1
    assert runs[5001].state_switches == runs[101].state_switches
    for sol in runs.values():
        energy = 0.5 * (sol["vx"] ** 2 + sol["vy"] ** 2) + G * sol["y"]
        assert np.max(np.abs(energy - energy[0])) < 1e-6 * G
    # the same motion on both grids (to the solver's accuracy at the common points)
    fine = runs[5001]
    assert np.allclose(fine["x"][::50], runs[101]["x"], atol=1e-6)
