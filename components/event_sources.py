"""Signal sources whose discontinuities are time events (after ``Modelica.Blocks.Sources`` of
the Modelica Standard Library (MSL): ``Step``, ``Ramp``, ``Sine``, ``Pulse``).

Unlike :mod:`acausal.components.blocks` (whose Step/Ramp/Sine are ``Piecewise`` expressions
evaluated without events, Modelica ``noEvent``), every jump or kink of these sources is an
event: the integrator stops exactly at the switching time and restarts there, so it never steps
across a discontinuity (as Modelica's event-generating ``if time < startTime`` does).

How: each switch is an ``event_if(time >= t_switch, ...)`` (a hidden Discrete branch variable
switched by ``When`` clauses; its value at the start time follows the condition, so a source
whose ``start_time`` lies at or before the start of the simulation is already on). The periodic
:class:`Pulse` also counts its periods in a Discrete variable ``count`` advanced by
``When(time >= start_time + (count + 1)*period, count := count + 1)``: after each period event
the next switching time is ``start_time + count*period``, a new zero crossing of the same
indicator.

The outputs are signal connectors (:class:`acausal.components.blocks.RealOutput`); connect them
to a RealInput, or use ``<source>.y.u`` in an equation, e.g. ``Eq(force.f, pulse.y.u)`` to drive a
``translational.Force`` or ``Eq(torque.tau, pulse.y.u)`` for a ``rotational.Torque``.

Use an output grid (``dt``) finer than the shortest time between switches: events are detected
at output points (see ``docs/events.md``).
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Discrete, Eq, Parameter, When, assign, event_if, time

from . import blocks
from .blocks import RealOutput


class Step(blocks.Step):
    """Step with a time event (MSL ``Blocks.Sources.Step``).

    Equation: ``y = offset + (height if time >= start_time else 0)``; the jump is a time event.
    Parameters and output: those of the ``blocks`` twin without events.
    """

    def equations(self):
        return [Eq(self.y.u, self.offset + event_if(time >= self.start_time, self.height, 0))]


class Ramp(blocks.Ramp):
    """Ramp with time events at both kinks (MSL ``Blocks.Sources.Ramp``).

    Equation::

        y = offset                                        time < start_time
        y = offset + height*(time - start_time)/duration   start_time <= time < t_end
        y = offset + height                                time >= t_end
        (t_end = start_time + duration)

    written as MSL writes it, ``offset + (height if time >= t1 else (height*(time - t0)/duration
    if time >= t0 else 0))`` with ``t1 = t0 + duration`` and event-generating switches: after
    the ramp the output is exactly ``offset + height`` (a difference of two ramps is off by a
    few ulp, and a normal force ``1 - ramp`` then flickers around zero).
    Parameters and output: those of the ``blocks`` twin without events.
    """

    def equations(self):
        t0 = self.start_time
        t1 = t0 + self.duration
        rising = self.height * (time - t0) / self.duration
        return [Eq(self.y.u, self.offset
                   + event_if(time >= t1, self.height, event_if(time >= t0, rising, 0)))]


class Sine(blocks.Sine):
    """Sine switched on at a time event (MSL ``Blocks.Sources.Sine``).

    Equation: ``y = offset + (amplitude*sin(2*pi*f*(time - start_time) + phase) if time >=
    start_time else 0)``; the switch-on is a time event.
    Parameters and output: those of the ``blocks`` twin without events.
    """

    def equations(self):
        wave = self.amplitude * sp.sin(2 * sp.pi * self.f * (time - self.start_time) + self.phase)
        return [Eq(self.y.u, self.offset + event_if(time >= self.start_time, wave, 0))]


class Pulse(Component):
    """Periodic rectangular pulse with time events (MSL ``Blocks.Sources.Pulse``, ``nperiod =
    -1``: unlimited periods).

    Equations (``count`` a Discrete variable, the number of completed periods)::

        T_start = start_time + count*period                 (start of the current period)
        y = offset + amplitude   if start_time <= time < T_start + width/100*period
        y = offset               otherwise
        when time >= start_time + (count + 1)*period:  count := count + 1

    MSL keeps ``T_start`` itself as the discrete variable (``when sample(startTime, period) then
    T_start = time``); counting periods gives the same switching times without accumulating
    rounding. ``0 < width < 100``. The simulation must start before ``start_time + period``
    (a When clause never fires at the start time).
    """

    amplitude = Parameter(1.0, unit="1", description="amplitude of the pulse")
    width = Parameter(50.0, min=0.0, max=100.0, unit="1",
                      description="width of the pulse in % of the period")
    period = Parameter(1.0, min=0.0, unit="s", description="time for one period (> 0)")
    offset = Parameter(0.0, unit="1", description="offset of the output signal")
    start_time = Parameter(0.0, unit="s", description="output = offset for time < start_time")
    count = Discrete(start=0.0, description="number of completed periods")
    y = RealOutput()

    def equations(self):
        t_start = self.start_time + self.count * self.period
        on = event_if(time >= self.start_time, 1, 0) * \
            event_if(time < t_start + self.width / 100 * self.period, 1, 0)
        return [Eq(self.y.u, self.offset + self.amplitude * on)]

    def events(self):
        next_period = self.start_time + (self.count + 1) * self.period
        return [When(time >= next_period, assign(self.count, self.count + 1))]
