"""Event edge cases of the run layer, found with ``components/blocks.py``'s ``Limiter``:

* a model without states: its ``event_if`` branches switch and its When clauses fire (through
  ``acausal.run.simulate.AlgebraicRun``) at the crossings, located as in the run loop: time
  indicators to a few ulp (the time-event schedule), indicators of algebraic variables by
  bisection to 4 ulp of t;
* an ``event_if`` whose condition depends on parameters only: its branch is chosen at the start
  (also after a ``params=`` override) and it is not watched (it crashed the time-event search:
  an empty block of rates).

References are analytic; the crossing times of a sine ``2 sin(pi t) = +-1`` are 1/6 + k/3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from acausal import Component, Eq, Variable, compile, connect, time
from acausal.components.blocks import Constant, FirstOrder, Limiter, RealOutput, Sine
from acausal.components.event_sources import Pulse
from acausal.run.event_detection import TimeEvents, split_indicators

T = np.linspace(0.0, 3.0, 61)
#: crossing times are located to a few ulp of t (plus the rounding of sin near the crossing)
T_TOL = 1e-13


class ClippedSineNoState(Component):
    sine = Sine(amplitude=2.0, f=0.5)
    limiter = Limiter(uMax=1.0)

    def connections(self):
        return [connect(self.sine.y, self.limiter.u)]


@pytest.mark.parametrize("t_eval", [T, [0.0, 3.0]], ids=["fine", "ends_only"])
def test_limiter_without_states_switches(t_eval):
    t_eval = np.asarray(t_eval)
    sol = compile(ClippedSineNoState()).simulate(3.0, t_eval=t_eval)
    np.testing.assert_allclose(sol["limiter.y.u"], np.clip(2 * np.sin(np.pi * t_eval), -1, 1),
                               atol=1e-12)
    # entering and leaving each limit, found whatever the output grid (time indicators)
    expected = [1 / 6, 5 / 6, 7 / 6, 11 / 6, 13 / 6, 17 / 6]
    times = [t for t, _ in sol.events]
    assert len(times) == len(expected)
    np.testing.assert_allclose(times, expected, rtol=0, atol=T_TOL)
    labels = [labs[0] for _, labs in sol.events]
    assert "uMax) becoming true" in labels[0] and "uMax) becoming false" in labels[1]
    assert "uMin) becoming true" in labels[2] and "uMin) becoming false" in labels[3]


class CubicRoot(Component):
    """``w**3 + w = 3 sin(pi t)``: a nonlinear algebraic equation, so ``w`` stays an algebraic
    variable solved by Newton (the limiter's indicators depend on it, not on time alone)."""

    w = Variable(start=0.0)
    y = RealOutput()

    def equations(self):
        return [Eq(self.w**3 + self.w, 3 * sp.sin(sp.pi * time)), Eq(self.y.u, self.w)]


class ClippedRootNoState(Component):
    src = CubicRoot()
    limiter = Limiter(uMax=1.0)

    def connections(self):
        return [connect(self.src.y, self.limiter.u)]


def _cubic_root(s: float) -> float:
    roots = np.roots([1.0, 0.0, 1.0, -s])
    return float(np.real(roots[np.abs(np.imag(roots)) < 1e-9][0]))


def test_limiter_on_algebraic_variable_without_states():
    cs = compile(ClippedRootNoState())
    assert not cs.states and cs.algebraic_names == ["src.w"]
    sol = cs.simulate(3.0, t_eval=T)
    w = np.array([_cubic_root(3 * math.sin(math.pi * t)) for t in T])
    np.testing.assert_allclose(sol["limiter.y.u"], np.clip(w, -1, 1), atol=1e-12)
    # |w| = 1 where 3 sin(pi t) = +-2; located by bisection with w solved to rounding error
    a = math.asin(2 / 3) / math.pi
    expected = [a, 1 - a, 1 + a, 2 - a, 2 + a, 3 - a]
    np.testing.assert_allclose([t for t, _ in sol.events], expected, rtol=0, atol=1e-12)


class PulseNoState(Component):
    pulse = Pulse(period=0.4, width=25.0)


class PulseWithState(Component):
    pulse = Pulse(period=0.4, width=25.0)
    lag = FirstOrder()

    def connections(self):
        return [connect(self.pulse.y, self.lag.u)]


def test_when_clauses_fire_without_states():
    """A Pulse (a period counter advanced by a When clause, and two event_if) runs the same
    with and without a state in the model."""
    t = np.linspace(0.0, 2.0, 201)
    alone = compile(PulseNoState()).simulate(2.0, t_eval=t)
    with_state = compile(PulseWithState()).simulate(2.0, t_eval=t, rtol=1e-10, atol=1e-12)
    assert alone["pulse.count"][-1] == 4.0  # periods completed at 0.4, 0.8, 1.2, 1.6
    np.testing.assert_array_equal(alone["pulse.y.u"], with_state["pulse.y.u"])
    np.testing.assert_array_equal(alone["pulse.count"], with_state["pulse.count"])
    np.testing.assert_allclose([e[0] for e in alone.events], [e[0] for e in with_state.events],
                               rtol=0, atol=T_TOL)
    assert [e[1] for e in alone.events] == [e[1] for e in with_state.events]


class ConstantLimitedLag(Component):
    c = Constant(k=3.0)
    limiter = Limiter(uMax=1.0)
    lag = FirstOrder()  # k = 1, T = 1 s, starts at x = 0

    def connections(self):
        return [connect(self.c.y, self.limiter.u), connect(self.limiter.y, self.lag.u)]


@pytest.mark.parametrize("k, limited", [(None, 1.0), (0.5, 0.5), (-2.0, -1.0)])
def test_limiter_of_parameters_only(k, limited):
    params = None if k is None else {"c.k": k}
    sol = compile(ConstantLimitedLag()).simulate(1.0, t_eval=T[:21], params=params,
                                                 rtol=1e-10, atol=1e-12)
    t = T[:21]
    np.testing.assert_allclose(sol["limiter.y.u"], limited, atol=1e-14)
    np.testing.assert_allclose(sol["lag.y.u"], limited * (1 - np.exp(-t)), atol=1e-8)
    assert sol.events == []


class ConstantLimitedNoState(Component):
    c = Constant(k=3.0)
    limiter = Limiter(uMax=1.0)

    def connections(self):
        return [connect(self.c.y, self.limiter.u)]


def test_limiter_of_parameters_only_without_states():
    sol = compile(ConstantLimitedNoState()).simulate(1.0, params={"c.k": -0.25})
    np.testing.assert_allclose(sol["limiter.y.u"], -0.25, atol=1e-14)
    assert sol.events == []


class PulseAndConstantLimiter(Component):
    pulse = Pulse(period=0.4, width=25.0)
    c = Constant(k=3.0)
    limiter = Limiter(uMax=1.0)
    lag = FirstOrder()

    def connections(self):
        return [connect(self.c.y, self.limiter.u), connect(self.limiter.y, self.lag.u)]


def test_time_event_search_with_rows_constant_in_time():
    """The root cause of the crash: the schedule's blocks of values and rates hold the
    structural nonzeros only, so a row whose rate is structurally zero (parameters only)
    emptied or shifted the block of rates. The run loop no longer schedules such rows; the
    search itself must still cope with them next to rows of time."""
    cs = compile(PulseAndConstantLimiter())
    p = cs.parameter_vector(None)
    n_rows = sum(len(ev.indicators) for ev in cs.events)
    state_rows, time_rows = split_indicators(cs)
    constant = [i for i in range(n_rows) if i not in state_rows and i not in time_rows]
    assert len(constant) == 4  # the limiter's two relations, each in two clauses
    rows = sorted(time_rows + constant)
    te = TimeEvents(cs, rows, 0.0, 2.0)
    # from inside the first pulse (at t = 0 the indicator of time >= start_time is exactly 0)
    first = te.next_root(0.05, p, te.values(0.05, p))
    assert first == pytest.approx(0.1, abs=T_TOL)  # the pulse's first falling edge ...
    alone = TimeEvents(cs, time_rows, 0.0, 2.0)
    assert first == alone.next_root(0.05, p, alone.values(0.05, p))  # ... as without them
    sol = cs.simulate(2.0, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(sol["limiter.y.u"], 1.0, atol=1e-14)
    assert len(sol.events) == 9
