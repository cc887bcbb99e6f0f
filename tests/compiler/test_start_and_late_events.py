"""Two edges of event detection (issue 41) and ``When(initial(), ...)``.

* A crossing right after a (re)start: SUNDIALS switches a root function that is exactly zero
  where it starts off until it has left zero, and takes the value it leaves with as its start,
  so that crossing was never reported; the clause fired late, at the next stop (or never).
  ``acausal.run.root_step.leave_zero`` steps past it at once.
* ``When(initial(), assign(...))`` sets discrete variables from the consistent initial values.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import (
    Component,
    Discrete,
    Eq,
    Parameter,
    Variable,
    When,
    assign,
    compile,
    der,
    event_if,
    initial,
    time,
)
from acausal.errors import ModelDefinitionError
from acausal.language.events import reinit


class LeavesZeroAtStart(Component):
    """v starts exactly at 0 and falls at once: ``v < 0`` becomes true just after t = 0."""

    v = Variable(start=0.0, fixed=True, unit="m/s")
    n = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.v), -1)]

    def events(self):
        return [When(self.v < 0, assign(self.n, self.n + 1))]


def test_a_crossing_just_after_the_start_fires():
    sol = compile(LeavesZeroAtStart()).simulate(1.0)
    assert len(sol.events) == 1
    assert 0.0 < sol.events[0][0] < 1e-9
    assert sol["n"][-1] == 1.0


class LateAction(Component):
    """A time event at t = 0.5 releases v (held at exactly 0 until then: der(v) = -k); the
    crossing v < 0 that follows at once switches x on (der(x) = m). Fired at its instant,
    x(1) = 0.5; fired late at the next stop (the end), x(1) = 0."""

    x = Variable(start=0.0, fixed=True, unit="m")
    v = Variable(start=0.0, fixed=True, unit="m/s")
    k = Discrete(start=0.0)
    m = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.v), -self.k), Eq(der(self.x), self.m)]

    def events(self):
        return [When(time >= 0.5, assign(self.k, 1)),
                When(self.v < 0, assign(self.m, 1))]


@pytest.mark.parametrize("rtol", [1e-6, 1e-10])
def test_a_crossing_just_after_an_event_is_its_own_event(rtol):
    sol = compile(LateAction()).simulate(1.0, dt=0.1, rtol=rtol, atol=rtol * 1e-2)
    times = [t for t, _ in sol.events]
    assert len(times) == 2
    assert times[0] == pytest.approx(0.5, abs=1e-12)
    # the second event within the event location's accuracy after the first
    assert 0.0 < times[1] - times[0] < 1e-9
    assert sol["x"][-1] == pytest.approx(0.5, abs=1e-9)
    assert sol["v"][-1] == pytest.approx(-0.5, abs=1e-9)


class SignedStart(Component):
    """``mode`` from the sign of the initial speed (as a friction element's initial mode)."""

    v = Variable(start=-2.0, fixed=True, unit="m/s")
    mode = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.v), -self.mode)]

    def events(self):
        return [When(initial(), assign(self.mode, sp.Piecewise((1, self.v > 0), (-1, self.v < 0),
                                                               (0, True))))]


def test_initial_assignment_sets_the_mode_from_the_initial_values():
    cs = compile(SignedStart())
    sol = cs.simulate(1.0, dt=0.5)
    np.testing.assert_array_equal(sol["mode"], -1.0)
    assert sol["v"][-1] == pytest.approx(-1.0, abs=1e-9)  # der(v) = +1
    assert sol.events == []  # it is no event of the run
    # another start value, same compiled system: the other mode
    sol = cs.simulate(1.0, dt=0.5, start={"v": 3.0})
    np.testing.assert_array_equal(sol["mode"], 1.0)
    assert sol["v"][-1] == pytest.approx(2.0, abs=1e-9)


class Settles(Component):
    """The assigned value depends on a variable that depends on the assigned value: y = 1 - d,
    d := (y > 0.5): d = 0 gives y = 1, so d := 1; then y = 0, so d := 0 ... never settles."""

    x = Variable(start=0.0, fixed=True, unit="1")
    y = Variable(unit="1")
    d = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.x), 0), Eq(self.y, 1 - self.d)]

    def events(self):
        return [When(initial(), assign(self.d, sp.Piecewise((1, self.y > 0.5), (0, True))))]


def test_initial_assignments_that_do_not_settle_are_an_error():
    from acausal.errors import SimulationError
    with pytest.raises(SimulationError, match="do not settle: d keep changing"):
        compile(Settles()).simulate(1.0)


class ReinitAtStart(Component):
    v = Variable(start=0.0, fixed=True, unit="m/s")

    def equations(self):
        return [Eq(der(self.v), 0)]

    def events(self):
        return [When(initial(), reinit(self.v, 1.0))]


def test_initial_takes_assign_actions_only():
    with pytest.raises(ModelDefinitionError, match="assign"):
        compile(ReinitAtStart())


class SumOfTimes(Component):
    """``event_if(time < p0 + p1 + p2 + p3, 1, 0)``: with these values the relation as written
    and its indicator (sympy's order of ``lhs - rhs``) round differently at the located root."""

    p0 = Parameter(0.25, unit="s")
    p1 = Parameter(0.3, unit="s")
    p2 = Parameter(0.05, unit="s")
    p3 = Parameter(0.15, unit="s")
    x = Variable(start=0.0, fixed=True, unit="s")

    def equations(self):
        return [Eq(der(self.x), event_if(time < self.p0 + self.p1 + self.p2 + self.p3, 1, 0))]


def test_a_condition_is_decided_by_its_indicator_so_no_time_event_is_lost():
    # the condition was evaluated as written and the indicator as sympy orders it: at the
    # located root the indicator had crossed, the condition was still false, nothing fired,
    # and the crossing was never seen again (x kept growing to 2.0)
    sol = compile(SumOfTimes()).simulate(2.0, dt=0.1)
    assert sol["x"][-1] == pytest.approx(0.75, abs=1e-9)
    assert len(sol.events) == 1


def test_a_pulse_with_rounding_sensitive_switch_times_keeps_every_switch():
    from acausal.components.event_sources import Pulse

    class Pulsed(Component):
        pulse = Pulse(start_time=0.35, width=45, period=0.45)
        x = Variable(start=0.0, fixed=True, unit="1")

        def equations(self):
            return [Eq(der(self.x), self.pulse.y.u)]

    sol = compile(Pulsed()).simulate(2.0, dt=0.1, rtol=1e-10, atol=1e-12)
    # high for 45 % of each 0.45 s period from 0.35 s: four pulses of 0.2025 s, starting at
    # 0.35, 0.8, 1.25 and 1.7 s, all over before 2 s: 4*0.2025 = 0.81 (one lost switch: 0.9075)
    assert sol["x"][-1] == pytest.approx(0.81, abs=1e-8)


class RestingUnderAForce(Component):
    """x and v start at 0 under a constant acceleration: ``x > 0`` leaves zero with a zero
    rate (x = t^2), just after the start."""

    x = Variable(start=0.0, fixed=True, unit="m")
    v = Variable(start=0.0, fixed=True, unit="m/s")
    n = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(der(self.v), 2)]

    def events(self):
        return [When(self.x > 0, assign(self.n, self.n + 1))]


def test_an_indicator_that_leaves_zero_with_zero_rate_fires():
    sol = compile(RestingUnderAForce()).simulate(1.0)
    assert len(sol.events) == 1 and 0.0 < sol.events[0][0] < 1e-6
    assert sol["n"][-1] == 1.0
