"""Signal blocks added for the MSL 4.0 Rotational/Translational examples and drivelines
(``math_blocks.Product``, ``acausal.components.signal_sources``) against closed-form values:
outputs at chosen times, their integrals through an ODE, and every switch as a time event at
its instant."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import Component, Eq, Variable, compile, connect, der
from acausal.components.blocks import Ramp, Sine
from acausal.components.math_blocks import Product
from acausal.components.signal_sources import Exponentials, ExpSine, TimeTable, Trapezoid
from acausal.errors import ParameterError

TIGHT = {"rtol": 1e-10, "atol": 1e-12}


class Integrated(Component):
    """x' = source output (the source's integral, x(0) = 0)."""

    x = Variable(start=0.0, fixed=True)

    def __init__(self, source):
        super().__init__()
        self.src = source

    def equations(self):
        return [Eq(der(self.x), self.src.y.u)]


def run(source, t_end, t):
    return compile(Integrated(source)).simulate(t_end, t_eval=t, **TIGHT)


def assert_close_to_run(values, exact):
    """A run's integral against its closed form, to the global error of an integration at
    rtol 1e-10: 50 rtol of the largest value (+ 1, the atol scale). Piecewise-linear sources,
    integrated piece by piece between their events, come within 10 rtol; the smooth ones
    (exponentials, sines) accumulate a few 1e-9 over their steps."""
    tol = 50 * TIGHT["rtol"] * (np.max(np.abs(exact)) + 1.0)
    assert np.max(np.abs(np.asarray(values) - exact)) <= tol


def event_times(sol):
    return [ev[0] for ev in sol.events]


class Products(Component):
    """y = u1 u2 with u1 = 2 sin(pi t), u2 a ramp 0 -> 3 over 2 s."""

    sine = Sine(amplitude=2.0, f=0.5)
    ramp = Ramp(height=3.0, duration=2.0)
    product = Product()

    def connections(self):
        return [connect(self.sine.y, self.product.u1), connect(self.ramp.y, self.product.u2)]


def test_product():
    t = np.linspace(0.0, 3.0, 31)
    sol = compile(Products()).simulate(3.0, t_eval=t)
    np.testing.assert_allclose(sol["product.y.u"],
                               2 * np.sin(np.pi * t) * np.minimum(1.5 * t, 3.0), atol=1e-13)


def test_exp_sine():
    a, f, d, phase, off, ts = 2.0, 1.5, 0.7, 0.3, 0.5, 0.2
    t = np.linspace(0.0, 3.0, 61)
    sol = run(ExpSine(amplitude=a, f=f, damping=d, phase=phase, offset=off, startTime=ts),
              3.0, t)
    s = np.maximum(t - ts, 0.0)
    w = 2 * math.pi * f
    wave = a * np.exp(-d * s) * np.sin(w * s + phase)
    np.testing.assert_allclose(sol["src.y.u"], off + np.where(t < ts, 0.0, wave), atol=1e-13)

    def primitive(u):  # of a exp(-d u) sin(w u + phase)
        return a * np.exp(-d * u) * (-d * np.sin(w * u + phase) - w * np.cos(w * u + phase)) \
            / (d * d + w * w)

    exact = off * t + np.where(t < ts, 0.0, primitive(s) - primitive(0.0))
    assert_close_to_run(sol["x"], exact)
    assert event_times(sol) == pytest.approx([ts], abs=1e-14)


def test_exponentials():
    out_max, rise, tr, tf, off, ts = 2.0, 0.4, 0.15, 0.3, 0.1, 0.3
    t = np.linspace(0.0, 3.0, 61)
    sol = run(Exponentials(outMax=out_max, riseTime=rise, riseTimeConst=tr, fallTimeConst=tf,
                           offset=off, startTime=ts), 3.0, t)
    s = t - ts
    y_rise = out_max * (1 - math.exp(-rise / tr))
    y = np.where(s < 0, 0.0, np.where(s < rise, out_max * (1 - np.exp(-s / tr)),
                                      y_rise * np.exp(-(s - rise) / tf)))
    np.testing.assert_allclose(sol["src.y.u"], off + y, atol=1e-13)
    area_rise = out_max * (rise - tr * (1 - math.exp(-rise / tr)))
    exact = off * t + np.where(
        s < 0, 0.0, np.where(s < rise, out_max * (s - tr * (1 - np.exp(-s / tr))),
                             area_rise + y_rise * tf * (1 - np.exp(-(s - rise) / tf))))
    assert_close_to_run(sol["x"], exact)
    assert event_times(sol) == pytest.approx([ts, ts + rise], abs=1e-14)
    # MSL's default: fallTimeConst = riseTimeConst
    same = run(Exponentials(outMax=1.0, riseTime=0.2, riseTimeConst=0.05), 0.5, [0.0, 0.4])
    assert same["src.y.u"][-1] == pytest.approx((1 - math.exp(-4)) * math.exp(-4), rel=1e-12)


def trapezoid_exact(t, amp, rise, width, fall, period, off, ts, nperiod=-1):
    """Output and integral of MSL's Trapezoid at the times t."""
    y, area = np.zeros_like(t), np.zeros_like(t)
    one_period = amp * (rise / 2 + width + fall / 2)

    def in_period(r):  # value and area from the period's start to r
        if r < rise:
            return amp * r / rise, amp * r * r / (2 * rise)
        if r < rise + width:
            return amp, amp * rise / 2 + amp * (r - rise)
        if r < rise + width + fall:
            q = rise + width + fall - r
            return amp * q / fall, one_period - amp * q * q / (2 * fall)
        return 0.0, one_period

    for i, ti in enumerate(t):
        if ti < ts:
            continue
        k, r = divmod(ti - ts, period)
        if 0 <= nperiod <= k:
            y[i], area[i] = 0.0, nperiod * one_period
            continue
        y[i], a = in_period(r)
        area[i] = k * one_period + a
    return off + y, off * t + area


def test_trapezoid():
    p = {"amp": 2.0, "rise": 0.1, "width": 0.2, "fall": 0.3, "period": 1.0, "off": 0.5,
         "ts": 0.25}
    t = np.linspace(0.0, 4.0, 81)
    for nperiod in (-1, 2):
        sol = run(Trapezoid(amplitude=p["amp"], rising=p["rise"], width=p["width"],
                            falling=p["fall"], period=p["period"], offset=p["off"],
                            startTime=p["ts"], nperiod=nperiod), 4.0, t)
        y, area = trapezoid_exact(t, nperiod=nperiod, **p)
        np.testing.assert_allclose(sol["src.y.u"], y, atol=1e-12)
        assert_close_to_run(sol["x"], area)
        # the switches stay events after nperiod periods too (the output is held at offset)
        expected = sorted(0.25 + k + d for k in range(4) for d in (0.0, 0.1, 0.3, 0.6))
        assert event_times(sol) == pytest.approx(expected, abs=1e-13)
    # a rectangle (no rising or falling time): two switches per period (output points off
    # the switching instants, where the closed form's rounding would pick a side)
    t = np.arange(0.0, 3.0, 0.05) + 0.01
    sol = run(Trapezoid(amplitude=2.0, width=0.4, period=0.8), 3.0, t)
    y, area = trapezoid_exact(t, 2.0, 0.0, 0.4, 0.0, 0.8, 0.0, 0.0)
    np.testing.assert_allclose(sol["src.y.u"], y, atol=1e-12)
    assert_close_to_run(sol["x"], area)


def test_trapezoid_started_in_a_later_period():
    """The period count is set at the start time (MSL's initial algorithm)."""
    t = np.linspace(2.1, 3.0, 19)
    sol = compile(Integrated(Trapezoid(amplitude=1.0, rising=0.2, width=0.3, falling=0.2,
                                       period=1.0))).simulate(3.0, t_start=2.1, t_eval=t,
                                                              **TIGHT)
    y, area = trapezoid_exact(t, 1.0, 0.2, 0.3, 0.2, 1.0, 0.0, 0.0)
    np.testing.assert_allclose(sol["src.y.u"], y, atol=1e-12)
    assert_close_to_run(sol["x"], area - trapezoid_exact(np.array([2.1]), 1.0, 0.2, 0.3, 0.2,
                                                          1.0, 0.0, 0.0)[1][0])


def test_time_table():
    """MSL's TimeTable: a jump at 1 s, offset from startTime = shiftTime = 0.2 s, linear
    extrapolation after the last row."""
    table = [[0.0, 1.0], [1.0, 2.0], [1.0, 0.0], [2.0, 3.0]]
    t = np.linspace(0.0, 3.0, 61)
    sol = run(TimeTable(table=table, offset=0.5, startTime=0.2), 3.0, t)
    s = t - 0.2
    y = 0.5 + np.where(s < 0, 0.0, np.where(s < 1, 1 + s, 3 * (s - 1)))
    np.testing.assert_allclose(sol["src.y.u"], y, atol=1e-13)
    area = np.where(s < 0, 0.0, np.where(s < 1, s + s * s / 2, 1.5 + 1.5 * (s - 1) ** 2))
    assert_close_to_run(sol["x"], 0.5 * t + area)
    assert event_times(sol) == pytest.approx([0.2, 1.2, 2.2], abs=1e-14)
    with pytest.raises(ParameterError, match="first time of the table must be 0"):
        TimeTable(table=[[1.0, 0.0], [2.0, 1.0]])
    with pytest.raises(ParameterError, match="3 columns"):
        TimeTable(table=[[0.0, 0.0, 1.0], [2.0, 1.0, 0.0]])
