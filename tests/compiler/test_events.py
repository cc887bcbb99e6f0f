"""Events: state events with reinit, time events, discrete variables, event_if, chattering."""

import math
import warnings

import numpy as np
import pytest
import sympy as sp

from acausal import (
    Component,
    Discrete,
    Eq,
    ModelDefinitionError,
    Parameter,
    SimulationError,
    Variable,
    When,
    assign,
    compile,
    der,
    event_if,
    reinit,
    time,
)

G, E = 9.81, 0.8


class BouncingBall(Component):
    g = Parameter(G, unit="m/s2")
    e = Parameter(E, description="coefficient of restitution")
    h = Variable(start=1.0, fixed=True, unit="m")
    v = Variable(start=0.0, fixed=True, unit="m/s")

    def equations(self):
        return [Eq(der(self.h), self.v), Eq(der(self.v), -self.g)]

    def events(self):
        return [When(self.h < 0, reinit(self.v, -self.e * self.v))]


def bounce_times(n):
    v = math.sqrt(2 * G * 1.0)
    times = [v / G]
    for _ in range(n - 1):
        v *= E
        times.append(times[-1] + 2 * v / G)
    return times


def test_bouncing_ball_event_times_are_analytic():
    sol = compile(BouncingBall()).simulate(3.0, dt=1e-3, rtol=1e-12, atol=1e-14)
    got = [t for t, _ in sol.events]
    expected = [t for t in bounce_times(20) if t <= 3.0]
    assert len(got) == len(expected) == 6
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-8)
    assert sol["h"].min() > -1e-6  # the ball never sinks into the floor (beyond one output step)
    # between bounces the trajectory is the free-fall parabola: after bounce n (1-based) the
    # ball leaves the floor upwards at E**n * sqrt(2 g h0)
    for t_k in (0.3, 1.5, 2.5):
        k = int(np.argmin(np.abs(sol.t - t_k)))
        n = sum(1 for tb in expected if tb < sol.t[k])
        t_b = expected[n - 1] if n else 0.0
        tau = sol.t[k] - t_b
        h_exact = (1.0 - 0.5 * G * tau**2) if n == 0 else \
            E**n * math.sqrt(2 * G) * tau - 0.5 * G * tau**2
        assert sol["h"][k] == pytest.approx(h_exact, abs=1e-8)


def test_zeno_ball_is_reported_not_integrated_through():
    zeno = bounce_times(1)[0] * (1 + 2 * E / (1 - E))  # accumulation time of the bounces
    with pytest.raises(SimulationError, match="Zeno") as err:
        compile(BouncingBall()).simulate(zeno + 0.5, dt=1e-3, rtol=1e-10, atol=1e-12)
    predicted = float(str(err.value).split("accumulate at t = ")[1].split(",")[0])
    assert predicted == pytest.approx(zeno, abs=1e-4)


class Switched(Component):
    """A mass pushed by +1 N until t = 0.5 (time event), then by -1 N; a mode counter."""

    x = Variable(start=0.0, fixed=True)
    v = Variable(start=0.0, fixed=True)
    force = Discrete(start=1.0, unit="N")
    count = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.x), self.v), Eq(der(self.v), self.force)]

    def events(self):
        return [When(time >= 0.5, assign(self.force, -1.0), assign(self.count, self.count + 1))]


def test_time_event_and_discrete_variables():
    sol = compile(Switched()).simulate(1.0, dt=0.01, rtol=1e-10, atol=1e-12)
    assert len(sol.events) == 1 and sol.events[0][0] == pytest.approx(0.5, abs=1e-10)
    t = sol.t
    expected_v = np.where(t <= 0.5, t, 1.0 - t)
    np.testing.assert_allclose(sol["v"], expected_v, atol=1e-9)
    assert sol["force"][0] == 1.0 and sol["force"][-1] == -1.0
    assert sol["count"][-1] == 1.0


class Thermostat(Component):
    """Heating switched on below 19 and off above 21: a discrete mode firing both ways."""

    T = Variable(start=20.0, fixed=True)
    heating = Discrete(start=1.0)

    def equations(self):
        return [Eq(der(self.T), -0.5 * (self.T - 10.0) + 8.0 * self.heating)]

    def events(self):
        return [When(sp.And(self.T > 21, self.heating > 0.5), assign(self.heating, 0.0)),
                When(sp.And(self.T < 19, self.heating < 0.5), assign(self.heating, 1.0))]


def test_discrete_mode_fires_in_both_directions():
    sol = compile(Thermostat()).simulate(20.0, dt=0.01, rtol=1e-10, atol=1e-12)
    labels = [lab for _, labs in sol.events for lab in labs]
    assert any("event 1" in lab for lab in labels) and any("event 2" in lab for lab in labels)
    assert 19 - 1e-6 < sol["T"][sol.t > 1].min() and sol["T"].max() < 21 + 1e-6
    # heating on: T -> 26 exponentially from 20; first switch-off when T = 21
    t_off = -2.0 * math.log((26.0 - 21.0) / (26.0 - 20.0))
    assert sol.events[0][0] == pytest.approx(t_off, abs=1e-8)
    # a variable that reads the mode, evaluated stretch by stretch with the mode of each
    heating = sol["heating"]
    assert set(np.unique(heating)) == {0.0, 1.0}
    np.testing.assert_allclose(sol["der(T)"], -0.5 * (sol["T"] - 10.0) + 8.0 * heating,
                               rtol=0, atol=1e-12)


class EventIf(Component):
    """der(x) = 1 while x < 1, then 0.5: event_if keeps the branch between events."""

    x = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), event_if(self.x < 1, 1.0, 0.5))]


class SlidingMode(Component):
    """der(x) = 1 below 1 and -2 above: x is pinned at 1, the switch chatters."""

    x = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), event_if(self.x < 1, 1.0, -2.0))]


def test_event_if_switches_at_the_crossing():
    sol = compile(EventIf()).simulate(1.5, dt=0.01, rtol=1e-10, atol=1e-12)
    assert len(sol.events) == 1 and sol.events[0][0] == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(sol["x"], np.where(sol.t < 1, sol.t, 1 + 0.5 * (sol.t - 1)),
                               atol=1e-9)


def test_sliding_mode_is_reported_as_chattering():
    with pytest.raises(SimulationError, match="Chattering"):
        compile(SlidingMode()).simulate(1.5, dt=0.01)


def test_reinit_of_a_variable_that_is_not_a_state_is_an_error():
    class Bad(Component):
        x = Variable(start=0.0, fixed=True)
        y = Variable()

        def equations(self):
            return [Eq(der(self.x), 1.0), Eq(self.y, 2 * self.x)]

        def events(self):
            return [When(self.x > 0.5, reinit(self.y, 0.0))]

    with pytest.raises(ModelDefinitionError, match="reinit"):
        compile(Bad())


class NestedEventIf(Component):
    """der(x) = 1 below 1, 0.5 between 1 and 1.5, 0.25 above: nested event_if."""

    x = Variable(start=0.0, fixed=True)

    def equations(self):
        return [Eq(der(self.x), event_if(self.x < 1, 1.0, event_if(self.x < 1.5, 0.5, 0.25)))]


def test_nested_event_if():
    sol = compile(NestedEventIf()).simulate(3.0, dt=0.01, rtol=1e-10, atol=1e-12)
    times = sorted({round(t, 9) for t, _ in sol.events})
    assert times == [1.0, 2.0]  # x = 1 at t = 1, x = 1.5 at t = 2
    np.testing.assert_allclose(sol["x"][-1], 1.5 + 0.25 * 1.0, atol=1e-9)


@pytest.mark.parametrize("e", [0.3, 0.5])
def test_fast_decaying_bounces_are_reported_before_the_ball_falls_through(e):
    zeno = bounce_times(1)[0] * (1 + 2 * e / (1 - e))
    with pytest.raises(SimulationError, match="Zeno"):
        compile(BouncingBall()).simulate(3.0, dt=0.005, params={"e": e}, rtol=1e-10,
                                         atol=1e-12)
    assert zeno < 3.0


def test_non_finite_initial_derivative_names_the_state():
    class ZeroMass(Component):
        m = Parameter(0.0)
        x = Variable(start=0.0, fixed=True)
        v = Variable(start=0.0, fixed=True)

        def equations(self):
            return [Eq(der(self.x), self.v), Eq(self.m * der(self.v), 1.0)]

    with pytest.raises(SimulationError, match="derivative of v"):
        compile(ZeroMass()).simulate(1.0)


class ModeSwitchedLoop(Component):
    """A mass that slides until v < 0 and then sticks; the mode enters an algebraic loop as a
    coefficient (``f = stuck*sa + (1 - stuck)*F``) that vanishes in the other mode."""

    x = Variable(start=0.0, fixed=True)
    v = Variable(start=1.0, fixed=True)
    a = Variable()
    f = Variable()
    sa = Variable()
    stuck = Discrete(start=0.0)

    def equations(self):
        s = self.stuck
        return [Eq(der(self.x), self.v), Eq(der(self.v), self.a),
                Eq(self.a, 0.5 - self.f),
                Eq(self.f, s * self.sa + (1 - s) * 1.0),
                Eq(self.a, (1 - s) * (self.sa - 2.0))]

    def events(self):
        return [When(self.v < 0, assign(self.stuck, 1.0))]


def test_mode_variable_is_no_pivot_in_an_algebraic_loop():
    sol = compile(ModeSwitchedLoop()).simulate(4.0, dt=0.01, rtol=1e-10, atol=1e-12)
    # sliding: a = 0.5 - 1 = -0.5 until v = 0 at t = 2; stuck afterwards: a = 0, v stays 0
    assert sol.events[0][0] == pytest.approx(2.0, abs=1e-9)
    late = sol.t > 2.0 + 1e-9
    np.testing.assert_allclose(sol["v"][late], 0.0, atol=1e-9)
    np.testing.assert_allclose(sol["x"][-1], 1.0, atol=1e-9)
    np.testing.assert_allclose(sol["f"][late], 0.5, atol=1e-9)  # the force needed to stick


class SpinUp(Component):
    """A rotor speeding up at a constant rate; an event at every half turn (sin(phi) changes
    sign). The gaps shrink (ratios 0.90, 0.91, 0.93, ...) but their ratio climbs towards 1: they
    converge to zero only as t -> infinity, never at a finite time (not Zeno)."""

    alpha = Parameter(1.0, unit="rad/s2")
    phi = Variable(start=0.0, fixed=True, unit="rad")
    w = Variable(start=4.08, fixed=True, unit="rad/s")
    count = Discrete(start=0.0)

    def equations(self):
        return [Eq(der(self.phi), self.w), Eq(der(self.w), self.alpha)]

    def events(self):
        return [When(sp.sin(self.phi) < 0, assign(self.count, self.count + 1)),
                When(sp.sin(self.phi) > 0, assign(self.count, self.count + 1))]


def test_gaps_that_shrink_without_accumulating_are_not_zeno():
    # a geometric fit of the first six gaps (the test before the ratio's trend was checked)
    # put the accumulation point at t ~ 8.3, inside this run
    sol = compile(SpinUp()).simulate(10.0, rtol=1e-10, atol=1e-12)
    times = [t for t, _ in sol.events]
    # analytic: the k-th half turn at phi = k*pi, t_k = (-w0 + sqrt(w0^2 + 2 alpha k pi))/alpha
    # (k = 0 too: sin(phi) starts exactly at 0 and leaves it upwards at once, so sin(phi) > 0
    # changes from false to true just after the start, an event of its own)
    half_turns = int((4.08 * 10.0 + 0.5 * 10.0**2) / math.pi)  # phi(10) = 90.8 rad
    expected = [-4.08 + math.sqrt(4.08**2 + 2 * k * math.pi) for k in range(0, half_turns + 1)]
    assert len(times) == half_turns + 1 == 29
    np.testing.assert_allclose(times, expected, atol=1e-7)


def test_zeno_option_warns_or_turns_the_test_off():
    from acausal.errors import InputError, SimulationWarning

    ball = compile(BouncingBall())
    zeno = bounce_times(1)[0] * (1 + 2 * E / (1 - E))
    # warned once, the run goes on to its end (the ball then falls through the floor: the
    # model has no rest condition, which is what the warning says)
    with pytest.warns(SimulationWarning, match="accumulate at t = 4.0637") as caught:
        sol = ball.simulate(zeno + 0.5, dt=1e-3, rtol=1e-10, atol=1e-12, zeno="warn")
    assert len(caught) == 1
    assert sol.t[-1] == pytest.approx(zeno + 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol_off = ball.simulate(zeno + 0.5, dt=1e-3, rtol=1e-10, atol=1e-12, zeno="off")
    first = [t for t, _ in sol_off.events][:10]
    np.testing.assert_allclose(first, bounce_times(10), atol=1e-8)
    with pytest.raises(InputError, match="zeno must be 'raise', 'warn' or 'off'"):
        ball.simulate(1.0, zeno=True)
