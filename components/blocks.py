"""Signal blocks (after ``Modelica.Blocks`` of the Modelica Standard Library (MSL) and
``ModelingToolkitStandardLibrary.Blocks``): connectors, sources and a first-order filter.

Only the blocks that the examples and validation models need are provided.

Signal connectors are acausal connectors with a single potential ``u`` (there is no flow):
connecting two of them makes their values equal. "Input" and "output" are only documentation;
a block's equations fix which side computes the value. Every block writes its relations on
``<connector>.u``.

Time-varying sources are written as expressions of :data:`acausal.time` (``sympy.Piecewise``
for the switching ones). The simulator evaluates them as written and generates no events
(Modelica ``noEvent``): the integrator steps across a kink or a jump under its error control.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Connector, Eq, Parameter, Potential, Variable, der, time
from acausal.errors import ParameterError


class RealInput(Connector):
    """Real signal input (MSL ``Blocks.Interfaces.RealInput``): one potential ``u``."""

    u = Potential(unit="1", description="signal value (carries the unit of the signal)")


class RealOutput(Connector):
    """Real signal output (MSL ``Blocks.Interfaces.RealOutput``): one potential ``u``."""

    u = Potential(unit="1", description="signal value (carries the unit of the signal)")


class Constant(Component):
    """Constant signal (MSL ``Blocks.Sources.Constant``).

    Equation: ``y = k``.
    """

    k = Parameter(1.0, unit="1", description="constant output value")
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.k)]


class Step(Component):
    """Step signal (MSL ``Blocks.Sources.Step``).

    Equation: ``y = offset + (height if time >= start_time else 0)``.
    """

    height = Parameter(1.0, unit="1", description="height of the step")
    offset = Parameter(0.0, unit="1", description="output value before the step")
    start_time = Parameter(0.0, unit="s", description="time of the step")
    y = RealOutput()

    def equations(self):
        return [Eq(self.y.u, self.offset + sp.Piecewise((self.height, time >= self.start_time),
                                                        (0, True)))]


class Ramp(Component):
    """Ramp signal (MSL ``Blocks.Sources.Ramp``).

    Equation::

        y = offset                                        time < start_time
        y = offset + height*(time - start_time)/duration   start_time <= time < t_end
        y = offset + height                                time >= t_end
        (t_end = start_time + duration)

    Source: MSL ``Modelica/Blocks/Sources.mo`` (block ``Ramp``; parameters ``height``,
    ``duration``, ``offset``, ``startTime``).
    """

    height = Parameter(1.0, unit="1", description="height of the ramp")
    duration = Parameter(2.0, min=0.0, unit="s", description="duration of the ramp (> 0)")
    offset = Parameter(0.0, unit="1", description="output value before the ramp")
    start_time = Parameter(0.0, unit="s", description="time at which the ramp starts")
    y = RealOutput()

    def equations(self):
        t0, dur = self.start_time, self.duration
        ramp = sp.Piecewise((0, time < t0),
                            (self.height * (time - t0) / dur, time < t0 + dur),
                            (self.height, True))
        return [Eq(self.y.u, self.offset + ramp)]


class Sine(Component):
    """Sine signal (MSL ``Blocks.Sources.Sine``).

    Equation: ``y = offset + (amplitude*sin(2*pi*f*(time - start_time) + phase)
    if time >= start_time else 0)``.
    """

    amplitude = Parameter(1.0, unit="1", description="amplitude of the sine wave")
    f = Parameter(1.0, unit="Hz", description="frequency of the sine wave")
    phase = Parameter(0.0, unit="rad", description="phase of the sine wave")
    offset = Parameter(0.0, unit="1", description="offset of the output signal")
    start_time = Parameter(0.0, unit="s", description="output = offset for time < start_time")
    y = RealOutput()

    def equations(self):
        wave = self.amplitude * sp.sin(2 * sp.pi * self.f * (time - self.start_time) + self.phase)
        return [Eq(self.y.u, self.offset + sp.Piecewise((wave, time >= self.start_time),
                                                        (0, True)))]


class FirstOrder(Component):
    """First-order transfer function ``y = k/(T s + 1) u`` (MSL ``Blocks.Continuous.FirstOrder``).

    Equations::

        x = y.u;  T*D(x) = k*u.u - x
        init_type = "steady_state":    D(x) = 0 at the start
        init_type = "initial_output":  x = y_start at the start
        init_type = "none":            no initial equation (x starts at the start value of
                                       ``x``, default 0; override with ``x=Variable(...)``)

    Source: MSL ``Modelica/Blocks/Continuous.mo`` (block ``FirstOrder``; ``initType``
    ``Init.SteadyState`` / ``Init.InitialOutput`` / ``Init.NoInit``).
    """

    k = Parameter(1.0, unit="1", description="gain")
    T = Parameter(1.0, min=0.0, unit="s", description="time constant (> 0)")
    init_type = Parameter("none", description="initialisation: 'steady_state', "
                          "'initial_output' or 'none'")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type='initial_output'")
    u = RealInput()
    y = RealOutput()
    x = Variable(start=0.0, unit="1", description="filter state (= output y.u)",
                 state_priority=1)

    def equations(self):
        return [Eq(self.x, self.y.u), Eq(self.T * der(self.x), self.k * self.u.u - self.x)]

    def initial_equations(self):
        if self.init_type == "steady_state":
            return [Eq(der(self.x), 0)]
        if self.init_type == "initial_output":
            return [Eq(self.x, self.y_start)]
        if self.init_type == "none":
            return []
        raise ParameterError(f"FirstOrder '{self.path}': init_type must be 'steady_state', "
                             f"'initial_output' or 'none', got {self.init_type!r}.")
