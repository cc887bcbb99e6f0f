"""Signal sources of ``Modelica.Blocks.Sources`` (Modelica Standard Library (MSL) 4.0) that
:mod:`acausal.components.blocks` and :mod:`acausal.components.event_sources` do not have:
:class:`ExpSine`, :class:`Exponentials`, :class:`Trapezoid` and :class:`TimeTable` (the
multi-column :class:`acausal.components.tables.CombiTimeTable` is in ``tables``).

As in ``event_sources``, every switching instant (the start time, the kinks of a trapezoid, the
rows of a time table) is a time event: the integrator stops there and never steps across it.
Parameter names are MSL's (``startTime``, ``nperiod``, ...); the output is the RealOutput ``y``.

Which sources the MSL 4.0 examples of ``Modelica.Mechanics.Rotational.Examples`` and
``Modelica.Mechanics.Translational.Examples`` use, and where they are here:
``Blocks.Sources.Constant`` (``blocks.Constant``), ``Step``, ``Ramp``, ``Sine``, ``Pulse``
(``event_sources``), ``CombiTimeTable`` (``tables``, the translational ``Vehicle`` example);
``Blocks.Math.Gain``, ``Feedback``, ``Product`` (``math_blocks``).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from acausal import Component, Discrete, Eq, Parameter, When, assign, event_if, initial, time
from acausal.errors import ParameterError

from .blocks import RealOutput
from .tables import CombiTimeTable, before, reached


class ExpSine(Component):
    """Exponentially damped sine (MSL ``Blocks.Sources.ExpSine``).

    Equation: ``y = offset + (0 if time < startTime else amplitude*exp(-(time -
    startTime)*damping)*sin(2*pi*f*(time - startTime) + phase))``; the switch-on is a time
    event.

    Source: MSL 4.0 ``Modelica/Blocks/Sources.mo`` (block ``ExpSine``).
    """

    amplitude = Parameter(1.0, unit="1", description="amplitude of the sine wave")
    f = Parameter(2.0, unit="Hz", description="frequency of the sine wave")
    phase = Parameter(0.0, unit="rad", description="phase of the sine wave")
    damping = Parameter(1.0, unit="1/s", description="damping coefficient of the sine wave")
    offset = Parameter(0.0, unit="1", description="offset of the output signal")
    startTime = Parameter(0.0, unit="s", description="output = offset for time < startTime")
    y = RealOutput()

    def equations(self):
        t = time - self.startTime
        wave = self.amplitude * sp.exp(-t * self.damping) * \
            sp.sin(2 * sp.pi * self.f * t + self.phase)
        return [Eq(self.y.u, self.offset + event_if(reached(self.startTime), wave, 0))]


class Exponentials(Component):
    """A rising and then falling exponential (MSL ``Blocks.Sources.Exponentials``).

    Equations (``t = time - startTime``, ``y_riseTime = outMax*(1 - exp(-riseTime/
    riseTimeConst))``)::

        y = offset                                                   t < 0
        y = offset + outMax*(1 - exp(-t/riseTimeConst))              0 <= t < riseTime
        y = offset + y_riseTime*exp(-(t - riseTime)/fallTimeConst)   t >= riseTime

    Both switches are time events. ``fallTimeConst`` defaults to ``riseTimeConst`` (MSL).

    Source: MSL 4.0 ``Modelica/Blocks/Sources.mo`` (block ``Exponentials``).
    """

    outMax = Parameter(1.0, unit="1", description="height of the output for infinite riseTime")
    riseTime = Parameter(0.5, min=0.0, unit="s", description="rise time")
    riseTimeConst = Parameter(0.1, min=0.0, min_exclusive=True, unit="s",
                              description="rise time constant (> 0)")
    fallTimeConst = Parameter(0.1, min=0.0, min_exclusive=True, unit="s",
                              description="fall time constant (> 0, default riseTimeConst)")
    offset = Parameter(0.0, unit="1", description="offset of the output signal")
    startTime = Parameter(0.0, unit="s", description="output = offset for time < startTime")
    y = RealOutput()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if "fallTimeConst" not in overrides and "riseTimeConst" in overrides:
            self._overrides["fallTimeConst"] = overrides["riseTimeConst"]  # MSL's default

    def equations(self):
        t = time - self.startTime
        y_rise = self.outMax * (1 - sp.exp(-self.riseTime / self.riseTimeConst))
        rising = self.outMax * (1 - sp.exp(-t / self.riseTimeConst))
        falling = y_rise * sp.exp(-(t - self.riseTime) / self.fallTimeConst)
        shape = event_if(before(self.startTime + self.riseTime), rising, falling)
        return [Eq(self.y.u, self.offset + event_if(reached(self.startTime), shape, 0))]


class Trapezoid(Component):
    """Periodic trapezoid (MSL ``Blocks.Sources.Trapezoid``).

    Equations (``count`` a Discrete variable, the number of completed periods; ``T_start =
    startTime + count*period``; ``T_rising = rising``, ``T_width = T_rising + width``,
    ``T_falling = T_width + falling``; ``t = time - T_start``)::

        y = offset        time < startTime, or nperiod >= 0 and count >= nperiod
        y = offset + amplitude*t/rising                   t < T_rising
        y = offset + amplitude                             T_rising <= t < T_width
        y = offset + amplitude*(T_falling - t)/falling     T_width <= t < T_falling
        y = offset                                         t >= T_falling
        when time >= startTime + (count + 1)*period:  count := count + 1

    ``count`` starts as ``floor((time - startTime)/period)`` at the start time (MSL's initial
    algorithm); every switch is a time event. ``nperiod < 0``: unlimited periods.

    Source: MSL 4.0 ``Modelica/Blocks/Sources.mo`` (block ``Trapezoid``).
    """

    amplitude = Parameter(1.0, unit="1", description="amplitude of the trapezoid")
    rising = Parameter(0.0, min=0.0, unit="s", description="rising duration")
    width = Parameter(0.5, min=0.0, unit="s", description="width duration")
    falling = Parameter(0.0, min=0.0, unit="s", description="falling duration")
    period = Parameter(1.0, min=0.0, min_exclusive=True, unit="s",
                       description="time for one period (> 0)")
    nperiod = Parameter(-1, structural=True, unit="1",
                        description="number of periods (< 0: unlimited)")
    offset = Parameter(0.0, unit="1", description="offset of the output signal")
    startTime = Parameter(0.0, unit="s", description="output = offset for time < startTime")
    count = Discrete(start=0.0, description="number of completed periods")
    y = RealOutput()

    def equations(self):
        t_start = self.startTime + self.count * self.period
        t_rise = t_start + self.rising
        t_width = t_rise + self.width
        t_fall = t_width + self.falling
        shape = event_if(before(t_rise), self.amplitude * (time - t_start) / self.rising,
                         event_if(before(t_width), self.amplitude,
                                  event_if(before(t_fall),
                                           self.amplitude * (t_fall - time) / self.falling, 0)))
        if self.nperiod >= 0:  # no output after nperiod periods (count changes at events only)
            shape = sp.Piecewise((shape, self.count < self.nperiod - 0.5), (0, True))
        return [Eq(self.y.u, self.offset + event_if(reached(self.startTime), shape, 0))]

    def events(self):
        next_period = self.startTime + (self.count + 1) * self.period
        return [When(initial(), assign(self.count,
                                       sp.floor((time - self.startTime) / self.period))),
                When(reached(next_period), assign(self.count, self.count + 1))]


class TimeTable(CombiTimeTable):
    """A signal by linear interpolation in a table of time (MSL ``Blocks.Sources.TimeTable``).

    ``table`` has two columns, time and value (or is the path of such a CSV file), and starts
    at time 0 (MSL's assertion); two rows with the same time make a jump. Equations::

        y = offset                                               time < startTime
        y = offset + (table interpolated at time - shiftTime)/timeScale   time >= startTime

    with linear extrapolation through the first (last) two rows outside the table; the start
    time and every row's time are time events. It is :class:`CombiTimeTable` with
    ``columns=[2]``, ``LinearSegments``, ``LastTwoPoints`` and one output ``y`` (a RealOutput,
    not a list). Parameters: ``table``, ``offset``, ``startTime`` [s], ``shiftTime`` [s]
    (default startTime), ``timeScale`` [s].

    Source: MSL 4.0 ``Modelica/Blocks/Sources.mo`` (block ``TimeTable``).
    """

    columns = smoothness = extrapolation = verboseRead = verboseExtrapolation = None
    _fixed = {"columns": [2], "smoothness": "LinearSegments", "extrapolation": "LastTwoPoints"}
    offset = Parameter(0.0, unit="1", description="offset of the output signal")

    def __init__(self, **overrides: Any):
        super().__init__(**overrides)
        if self._data.shape[1] != 2:
            raise ParameterError(f"TimeTable: the table has {self._data.shape[1]} columns; give "
                                 "two (time, value), or use CombiTimeTable.")
        if self._data.shape[0] > 1 and self._data[0, 0] != 0:
            raise ParameterError(f"TimeTable: the first time of the table must be 0 (MSL), but "
                                 f"table[0, 0] = {self._data[0, 0]}.")
        self.y = RealOutput()

    def _outputs(self) -> list:
        return [self.y]

