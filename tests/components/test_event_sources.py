"""Event-generating signal sources (``acausal.components.event_sources``) against piecewise
closed-form solutions: every switching instant must be an event located exactly, and the
systems they drive must match their piecewise-analytic solutions.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect, der
from acausal.components import translational
from acausal.components.blocks import FirstOrder
from acausal.components.event_sources import Pulse, Ramp, Sine, Step

TIGHT = {"rtol": 1e-11, "atol": 1e-13}
AMP, WIDTH, PERIOD, OFFSET, START = 2.0, 30.0, 1.0, 0.5, 0.2
TAU, MASS = 0.3, 2.0


class PulseDriven(Component):
    """A pulse drives an RC-type low-pass (FirstOrder, T = TAU) and, as a force, a free mass."""

    pulse = Pulse(amplitude=AMP, width=WIDTH, period=PERIOD, offset=OFFSET, start_time=START)
    lowpass = FirstOrder(T=TAU, init_type="initial_output", y_start=0.0)
    force = translational.Force()
    mass = translational.Mass(m=MASS, s=Variable(start=0.0, fixed=True),
                              v=Variable(start=0.0, fixed=True))

    def equations(self):
        return [Eq(self.force.f, self.pulse.y.u)]

    def connections(self):
        return [connect(self.pulse.y, self.lowpass.u),
                connect(self.force.flange, self.mass.flange_a)]


def pulse_switches(t_end):
    """[(t, u after t)] of the pulse: offset until START, then offset + AMP on
    [START + k P, START + k P + WIDTH% P)."""
    out = [(0.0, OFFSET)]
    k = 0
    while START + k * PERIOD < t_end:
        t_on = START + k * PERIOD
        out.append((t_on, OFFSET + AMP))
        out.append((t_on + WIDTH / 100 * PERIOD, OFFSET))
        k += 1
    return [(t, u) for t, u in out if t < t_end]


def exact(t_grid, t_end):
    """Low-pass y' = (u - y)/TAU: y = u + (y_s - u) exp(-(t - t_s)/TAU) on each piece; mass
    under the force u: v, s piecewise linear / quadratic."""
    pieces = pulse_switches(t_end)
    y = np.empty_like(t_grid)
    v = np.empty_like(t_grid)
    s = np.empty_like(t_grid)
    y_s = v_s = s_s = 0.0
    for j, (t_s, u) in enumerate(pieces):
        t_e = pieces[j + 1][0] if j + 1 < len(pieces) else math.inf
        sel = (t_grid >= t_s) & (t_grid <= t_e)
        dt = t_grid[sel] - t_s
        y[sel] = u + (y_s - u) * np.exp(-dt / TAU)
        v[sel] = v_s + u / MASS * dt
        s[sel] = s_s + v_s * dt + 0.5 * u / MASS * dt**2
        if t_e < math.inf:
            d = t_e - t_s
            y_s = u + (y_s - u) * math.exp(-d / TAU)
            s_s, v_s = s_s + v_s * d + 0.5 * u / MASS * d**2, v_s + u / MASS * d
    return y, v, s


def test_pulse_driven_lowpass_and_mass_are_piecewise_analytic():
    t_end = 3.5
    sol = compile(PulseDriven()).simulate(t_end, dt=0.01, **TIGHT)
    switches = [t for t, _ in pulse_switches(t_end)[1:]]
    # every switching instant is an event, located exactly (0.2, 0.5, 1.2, 1.5, ...)
    event_times = [t for t, _ in sol.events]
    assert len(event_times) == len(switches) == 7
    np.testing.assert_allclose(event_times, switches, rtol=0, atol=1e-11)
    y, v, s = exact(sol.t, t_end)
    # the low-pass forgets an error with its time constant: its error is the sum of the local
    # errors (each at most atol + rtol range y) of the steps within the last TAU, some
    # N TAU / t_end of the run's N < 1.5e3 steps (1.2e3 right-hand sides): K = 130, 2.4e-9
    # (measured: K = 31 at rtol 0.8e-11 .. 1.3e-11); 1 % more TAU moves y by 9e-3
    steps = 1.5e3
    bound = steps * TAU / t_end * (TIGHT["atol"] + TIGHT["rtol"] * np.ptp(y))
    np.testing.assert_allclose(sol["lowpass.y.u"], y, rtol=0, atol=bound)
    np.testing.assert_allclose(sol["mass.v"], v, rtol=0, atol=1e-9)
    np.testing.assert_allclose(sol["mass.s"], s, rtol=0, atol=1e-9)
    # the output itself, away from the switching instants, and the period counter
    k = np.floor((sol.t - START) / PERIOD)
    phase = sol.t - START - k * PERIOD
    u = np.where((sol.t >= START) & (phase < WIDTH / 100 * PERIOD), OFFSET + AMP, OFFSET)
    away = np.min(np.abs(sol.t[:, None] - np.array(switches)[None, :]), axis=1) > 1e-9
    np.testing.assert_array_equal(sol["pulse.y.u"][away], u[away])
    assert sol["pulse.count"][-1] == 3.0  # periods completed at 1.2, 2.2, 3.2


class Signals(Component):
    step = Step(height=2.0, offset=1.0, start_time=0.35)
    step0 = Step(height=3.0, start_time=0.0)  # on from the start time
    ramp = Ramp(height=1.5, duration=0.4, offset=-1.0, start_time=0.25)
    sine = Sine(amplitude=2.0, f=1.5, phase=0.3, offset=0.1, start_time=0.55)
    integral = Variable(start=0.0, fixed=True)  # of the step: kinks exactly at the event

    def equations(self):
        return [Eq(der(self.integral), self.step.y.u)]


def test_step_ramp_sine_switch_at_time_events():
    sol = compile(Signals()).simulate(1.0, dt=0.01, **TIGHT)
    t = sol.t
    event_times = sorted(t_e for t_e, _ in sol.events)
    np.testing.assert_allclose(event_times, [0.25, 0.35, 0.55, 0.65], rtol=0, atol=1e-11)
    np.testing.assert_allclose(sol["step0.y.u"], 3.0)
    away = np.min(np.abs(t[:, None] - np.array([0.25, 0.35, 0.55, 0.65])[None, :]), axis=1) \
        > 1e-9
    np.testing.assert_allclose(sol["step.y.u"][away], np.where(t < 0.35, 1.0, 3.0)[away])
    ramp = -1.0 + 1.5 * np.clip((t - 0.25) / 0.4, 0.0, 1.0)
    np.testing.assert_allclose(sol["ramp.y.u"], ramp, atol=1e-12)
    sine = 0.1 + np.where(t >= 0.55, 2.0 * np.sin(2 * np.pi * 1.5 * (t - 0.55) + 0.3), 0.0)
    np.testing.assert_allclose(sol["sine.y.u"][away], sine[away], atol=1e-12)
    integral = np.where(t < 0.35, t, 0.35 + 3.0 * (t - 0.35))
    np.testing.assert_allclose(sol["integral"], integral, atol=1e-10)
    assert sol["integral"][-1] == pytest.approx(0.35 + 3 * 0.65, abs=1e-10)
