"""Events are found inside the solver's steps, whatever the output grid (issue: no blind spots).

Every case is run with output grids dt = 0.001, 0.05 and 1.0 and with t_eval = [t0, t_end]
only: the events (times to 1e-9 of the analytic ones) must be the same for all of them.
"""

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Discrete, Eq, Variable, When, assign, compile, der, reinit, time

F = 10.0  # Hz
LEVEL = 0.9
T_END = 5.0
GRIDS = [{"dt": 1e-3}, {"dt": 0.05}, {"dt": 1.0}, {"t_eval": [0.0, T_END]}]


def upward_crossings() -> list[float]:
    """sin(2 pi F t) rises through LEVEL at t = (asin(LEVEL) + 2 pi k) / (2 pi F)."""
    return [(math.asin(LEVEL) + 2 * math.pi * k) / (2 * math.pi * F) for k in range(int(F * T_END))]


class TimeCondition(Component):
    """The condition is a function of time only (a scheduled time event)."""

    x = Variable(start=0.0, fixed=True)
    n = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.x), 1.0)]

    def events(self):
        return [When(sp.sin(2 * sp.pi * F * time) > LEVEL, assign(self.n, self.n + 1))]


class StateCondition(Component):
    """The same signal as a state, y = sin(2 pi F t) (root finding in the solver's steps)."""

    y = Variable(start=0.0, fixed=True)
    n = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.y), 2 * sp.pi * F * sp.cos(2 * sp.pi * F * time))]

    def events(self):
        return [When(self.y > LEVEL, assign(self.n, self.n + 1))]


class AlgebraicCondition(Component):
    """The signal as an algebraic variable of a nonlinear loop, w + w^3/10 = y + y^3/10 (so
    w = y): an index-1 DAE, root finding by IDA."""

    y = Variable(start=0.0, fixed=True)
    w = Variable(start=0.0)
    n = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.y), 2 * sp.pi * F * sp.cos(2 * sp.pi * F * time)),
                Eq(self.w + self.w**3 / 10, self.y + self.y**3 / 10)]

    def events(self):
        return [When(self.w > LEVEL, assign(self.n, self.n + 1))]


def test_algebraic_condition_is_a_dae():
    assert compile(AlgebraicCondition()).algebraic_names == ["w"]


@pytest.mark.parametrize("model", [TimeCondition, StateCondition, AlgebraicCondition])
@pytest.mark.parametrize("grid", GRIDS, ids=lambda g: str(g))
def test_fast_condition_fires_at_every_crossing_for_any_grid(model, grid):
    sol = compile(model()).simulate(T_END, rtol=1e-12, atol=1e-14, **grid)
    got = [t for t, _ in sol.events]
    expected = upward_crossings()
    assert len(got) == len(expected) == 50
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert sol["n"][-1] == 50  # the discrete counter saw every event


G, E = 9.81, 0.8


class Ball(Component):
    h = Variable(start=1.0, fixed=True, unit="m")
    v = Variable(start=0.0, fixed=True, unit="m/s")

    def equations(self):
        return [Eq(der(self.h), self.v), Eq(der(self.v), -G)]

    def events(self):
        return [When(self.h < 0, reinit(self.v, -E * self.v))]


def bounce_times(t_end: float) -> list[float]:
    v = math.sqrt(2 * G * 1.0)
    times = [v / G]
    while True:
        v *= E
        nxt = times[-1] + 2 * v / G
        if nxt > t_end:
            return times
        times.append(nxt)


@pytest.mark.parametrize("grid", [{"dt": 1e-3}, {"dt": 0.05}, {"dt": 1.0}, {"t_eval": [0, 3.0]}],
                         ids=lambda g: str(g))
def test_bounce_times_are_analytic_for_any_grid(grid):
    sol = compile(Ball()).simulate(3.0, rtol=1e-12, atol=1e-14, **grid)
    got = [t for t, _ in sol.events]
    expected = bounce_times(3.0)
    assert len(got) == len(expected) == 6
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-9)
    assert sol.t[-1] == 3.0


@pytest.mark.parametrize("grid", [{"dt": 1e-3}, {"dt": 1.0}, {"t_eval": [0, 3.0]}],
                         ids=lambda g: str(g))
def test_event_values_are_the_values_after_each_event(grid):
    """Solution.event_values: the state the run continued from after each bounce (output points
    need not fall on events): v = E^k sqrt(2 g h0) upwards, h at the ground."""
    sol = compile(Ball()).simulate(3.0, rtol=1e-12, atol=1e-14, **grid)
    v_after = sol.event_values("v")
    expected = [E ** (k + 1) * math.sqrt(2 * G * 1.0) for k in range(len(sol.events))]
    np.testing.assert_allclose(v_after, expected, rtol=1e-9)
    assert np.all(np.abs(sol.event_values("h")) < 1e-9)
    np.testing.assert_array_equal(sol.event_values("t"), [t for t, _ in sol.events])
    np.testing.assert_allclose(sol.event_values("der(v)"), -G)


def test_event_values_of_a_discrete_variable_and_through_to_state():
    from acausal.base.errors import UnknownNameError
    from acausal.run.solution import Solution

    cs = compile(StateCondition())
    sol = cs.simulate(1.0, dt=0.5, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sol.event_values("n"), np.arange(1, 11))  # counter after each
    again = Solution.from_state(cs, sol.to_state())
    np.testing.assert_array_equal(again.event_values("n"), np.arange(1, 11))
    np.testing.assert_array_equal(again.event_values("y"), sol.event_values("y"))
    with pytest.raises(UnknownNameError):
        sol.event_values("nonsense")
    no_events = compile(Ball()).simulate(0.1)
    assert no_events.event_values("v").shape == (0,)
