"""Signal blocks (after ``Modelica.Blocks`` of the Modelica Standard Library (MSL) 4.0 and
``ModelingToolkitStandardLibrary.Blocks``): connectors, sources, the linear blocks of
``Blocks.Continuous`` (Integrator, Derivative, FirstOrder, SecondOrder, PI, PID, LimPID,
CriticalDamping, Filter) and ``Blocks.Nonlinear.Limiter``.

Signal connectors are acausal connectors with a single potential ``u`` (there is no flow):
connecting two of them makes their values equal. "Input" and "output" are only documentation;
a block's equations fix which side computes the value. Every block writes its relations on
``<connector>.u``.

Time-varying sources are written as expressions of :data:`acausal.time` (``sympy.Piecewise``
for the switching ones). The simulator evaluates them as written and generates no events
(Modelica ``noEvent``): the integrator steps across a kink or a jump under its error control.

Initialisation (MSL ``initType``) is the structural parameter ``init_type``: ``"none"``
(``Init.NoInit``), ``"steady_state"`` (``Init.SteadyState``), ``"initial_state"``
(``Init.InitialState``) or ``"initial_output"`` (``Init.InitialOutput``), as each block allows.
Start values are numbers in acausal: a state that no initial equation fixes starts at its
variable's start value, which the blocks set from ``x_start`` (etc.) when that is given as a number.
"""

from __future__ import annotations

import math

import sympy as sp

from acausal import Component, Connector, Eq, Parameter, Potential, Variable, der, event_if, time
from acausal.errors import ParameterError

from .continuous import ANALOG_FILTERS, realization

#: Modelica.Constants.eps (MSL 4.0: 1e-15), the threshold of the blocks' "zero gain" tests.
EPS = 1e-15


class RealInput(Connector):
    """Real signal input (MSL ``Blocks.Interfaces.RealInput``): one potential ``u``."""

    u = Potential(description="signal value (no unit: it carries the unit of the signal)")


class RealOutput(Connector):
    """Real signal output (MSL ``Blocks.Interfaces.RealOutput``): one potential ``u``."""

    u = Potential(description="signal value (no unit: it carries the unit of the signal)")


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


def _check_init(block, allowed: tuple[str, ...]) -> str:
    """The block's init_type, after checking that it is one of ``allowed``."""
    if block.init_type not in allowed:
        raise ParameterError(f"{type(block).__name__} '{block.path}': init_type must be one of "
                             f"{', '.join(repr(a) for a in allowed)}, got {block.init_type!r}.")
    return block.init_type


def _start_from(block, pairs) -> None:
    """MSL's ``x(start=x_start)``: give variable ``var`` the start value of parameter ``par`` when
    ``par`` is given as a number and ``var`` is not given (used where no initial equation fixes
    the state, e.g. init_type="none")."""
    given = block._overrides
    for var, par in pairs:
        value = given.get(par)
        if var not in given and isinstance(value, (int, float)) and not isinstance(value, bool):
            given[var] = Variable(start=float(value))


def _vector_state(block, n: int, description: str) -> None:
    """Declare the state vector ``x`` (length n) and its start parameter ``x_start`` (a number
    is broadcast) on this instance."""
    given = block._overrides
    start = given.get("x_start", 0.0)
    if isinstance(start, (int, float)):
        start = [float(start)] * n
    start = list(start)
    if len(start) != n:
        raise ParameterError(f"{type(block).__name__}: x_start has {len(start)} values, but the "
                             f"block has {n} states.")
    given["x_start"] = start
    block.x_start = Parameter([0.0] * n, unit="1", description="start values of the states x")
    numeric = all(isinstance(v, (int, float)) for v in start)
    block.x = Variable(shape=n, start=start if numeric else 0.0, unit="1",
                       description=description, state_priority=1)


def _limited(u, high, low, strict: bool):
    """``high if u > high else low if u < low else u``: with events at the limits (MSL's
    ``smooth(0, if ...)``), or as written without events when ``strict`` (MSL ``noEvent``)."""
    if strict:
        return sp.Piecewise((high, u > high), (low, u < low), (u, True))
    return u + event_if(u > high, high - u, 0) + event_if(u < low, low - u, 0)


def _default_lower(block, upper: str, lower: str) -> None:
    """MSL's ``lower = -upper`` default, applied when only ``upper`` is given (as a number); and
    the check ``upper >= lower`` when both are numbers."""
    given = block._overrides
    hi = given.get(upper, getattr(type(block), upper).default)
    if lower not in given and isinstance(hi, (int, float)):
        given[lower] = -float(hi)
    lo = given.get(lower, getattr(type(block), lower).default)
    if isinstance(hi, (int, float)) and isinstance(lo, (int, float)) and hi < lo:
        raise ParameterError(f"{type(block).__name__}: the limits are inconsistent: {upper} = "
                             f"{hi} < {lower} = {lo}.")


class Integrator(Component):
    """Integrator ``y = k/s u`` (MSL ``Blocks.Continuous.Integrator``).

    Equations::

        der(y) = k*u
        init_type = "initial_state" (default) or "initial_output":  y = y_start at the start
        init_type = "steady_state":  der(y) = 0 at the start (that is, u = 0)
        init_type = "none":          no initial equation

    Parameters: ``k`` [1] (the output carries unit(u)*s), ``y_start`` [unit of y]. MSL's
    optional reset and set ports (``use_reset``, ``use_set``: Boolean signals) are not provided.

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``Integrator``).
    """

    k = Parameter(1.0, unit="1", description="integrator gain")
    init_type = Parameter("initial_state", description="initialisation: 'initial_state', "
                          "'initial_output', 'steady_state' or 'none'")
    y_start = Parameter(0.0, unit="1", description="initial value of the output")
    u = RealInput()
    y = RealOutput()

    def equations(self):
        return [Eq(der(self.y.u), self.k * self.u.u)]

    def initial_equations(self):
        init = _check_init(self, ("initial_state", "initial_output", "steady_state", "none"))
        if init == "steady_state":
            return [Eq(der(self.y.u), 0)]
        return [Eq(self.y.u, self.y_start)] if init != "none" else []


class Derivative(Component):
    """Approximated derivative ``y = k s/(T s + 1) u`` (MSL ``Blocks.Continuous.Derivative``).

    Equations::

        der(x) = (u - x)/T
        y = (k/T)*(u - x)
        init_type = "none" (default):  no initial equation (x starts at x_start)
        init_type = "steady_state":    der(x) = 0 at the start
        init_type = "initial_state":   x = x_start
        init_type = "initial_output":  y = y_start (x = u if |k| < 1e-15, MSL's zeroGain)

    Parameters: ``k`` [1] (as MSL declares it; for slow inputs y = k*der(u)), ``T`` [s]
    (> 0), ``x_start`` [unit of u], ``y_start`` [unit of y]. MSL writes ``y = 0`` and
    ``der(x) = 0`` when |k| < eps; here the equations above give y = 0 for k = 0, and x keeps
    following u.

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``Derivative``).
    """

    k = Parameter(1.0, unit="1", description="gain")
    T = Parameter(0.01, min=0.0, unit="s", description="time constant (> 0)")
    init_type = Parameter("none", description="initialisation: 'none', 'steady_state', "
                          "'initial_state' or 'initial_output'")
    x_start = Parameter(0.0, unit="1", description="initial or guess value of the state x")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type="
                        "'initial_output'")
    u = RealInput()
    y = RealOutput()
    x = Variable(start=0.0, unit="1", description="state of the block", state_priority=1)

    def __init__(self, **overrides):
        super().__init__(**overrides)
        _start_from(self, [("x", "x_start")])

    def equations(self):
        return [Eq(der(self.x), (self.u.u - self.x) / self.T),
                Eq(self.y.u, self.k / self.T * (self.u.u - self.x))]

    def initial_equations(self):
        init = _check_init(self, ("none", "steady_state", "initial_state", "initial_output"))
        if init == "steady_state":
            return [Eq(der(self.x), 0)]
        if init == "initial_state":
            return [Eq(self.x, self.x_start)]
        if init == "initial_output":
            return [sp.Piecewise((self.x - self.u.u, sp.Abs(self.k) < EPS),
                                 (self.y.u - self.y_start, True))]
        return []


class FirstOrder(Component):
    """First-order transfer function ``y = k/(T s + 1) u`` (MSL ``Blocks.Continuous.FirstOrder``).

    Equations::

        x = y.u;  T*D(x) = k*u.u - x
        init_type = "steady_state":    D(x) = 0 at the start
        init_type = "initial_output" or "initial_state":  x = y_start at the start
        init_type = "none":            no initial equation (x starts at the start value of
                                       ``x``, default 0; override with ``x=Variable(...)``)

    Parameters: ``k`` [1], ``T`` [s], ``y_start`` [unit of y].

    Source: MSL ``Modelica/Blocks/Continuous.mo`` (block ``FirstOrder``; ``initType``
    ``Init.SteadyState`` / ``Init.InitialOutput`` / ``Init.InitialState`` / ``Init.NoInit``).
    """

    k = Parameter(1.0, unit="1", description="gain")
    T = Parameter(1.0, min=0.0, unit="s", description="time constant (> 0)")
    init_type = Parameter("none", description="initialisation: 'steady_state', "
                          "'initial_output', 'initial_state' or 'none'")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type="
                        "'initial_output' or 'initial_state'")
    u = RealInput()
    y = RealOutput()
    x = Variable(start=0.0, unit="1", description="filter state (= output y.u)",
                 state_priority=1)

    def equations(self):
        return [Eq(self.x, self.y.u), Eq(self.T * der(self.x), self.k * self.u.u - self.x)]

    def initial_equations(self):
        init = _check_init(self, ("steady_state", "initial_output", "initial_state", "none"))
        if init == "steady_state":
            return [Eq(der(self.x), 0)]
        if init in ("initial_output", "initial_state"):
            return [Eq(self.x, self.y_start)]
        return []


class SecondOrder(Component):
    """Second-order transfer function ``y = k/((s/w)^2 + 2 D (s/w) + 1) u`` (MSL
    ``Blocks.Continuous.SecondOrder``).

    Equations::

        der(y) = yd
        der(yd) = w*(w*(k*u - y) - 2*D*yd)
        init_type = "none" (default):  no initial equation (y, yd start at y_start, yd_start)
        init_type = "steady_state":    der(y) = 0, der(yd) = 0
        init_type = "initial_state" or "initial_output":  y = y_start, yd = yd_start

    Parameters: ``k`` [1], ``w`` [rad/s] (angular frequency), ``D`` [1] (damping),
    ``y_start`` [unit of y], ``yd_start`` [unit of y per s].

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``SecondOrder``).
    """

    k = Parameter(1.0, unit="1", description="gain")
    w = Parameter(1.0, min=0.0, unit="rad/s", description="angular frequency")
    D = Parameter(1.0, min=0.0, unit="1", description="damping")
    init_type = Parameter("none", description="initialisation: 'none', 'steady_state', "
                          "'initial_state' or 'initial_output'")
    y_start = Parameter(0.0, unit="1", description="initial or guess value of the output")
    yd_start = Parameter(0.0, unit="1/s", description="initial or guess value of der(y)")
    u = RealInput()
    y = RealOutput()
    x = Variable(start=0.0, unit="1", description="output state (= y.u)", state_priority=1)
    yd = Variable(start=0.0, unit="1/s", description="derivative of the output",
                  state_priority=1)

    def __init__(self, **overrides):
        super().__init__(**overrides)
        _start_from(self, [("x", "y_start"), ("yd", "yd_start")])

    def equations(self):
        return [Eq(self.x, self.y.u), Eq(der(self.x), self.yd),
                Eq(der(self.yd), self.w * (self.w * (self.k * self.u.u - self.x)
                                           - 2 * self.D * self.yd))]

    def initial_equations(self):
        init = _check_init(self, ("none", "steady_state", "initial_state", "initial_output"))
        if init == "steady_state":
            return [Eq(der(self.x), 0), Eq(der(self.yd), 0)]
        if init in ("initial_state", "initial_output"):
            return [Eq(self.x, self.y_start), Eq(self.yd, self.yd_start)]
        return []


class PI(Component):
    """Proportional-integral controller ``y = k (1 + 1/(T s)) u`` (MSL
    ``Blocks.Continuous.PI``).

    Equations::

        der(x) = u/T
        y = k*(x + u)
        init_type = "none" (default):  no initial equation (x starts at x_start)
        init_type = "steady_state":    der(x) = 0 (that is, u = 0)
        init_type = "initial_state":   x = x_start
        init_type = "initial_output":  y = y_start

    Parameters: ``k`` [1], ``T`` [s] (> 0), ``x_start`` [unit of u], ``y_start`` [unit of y].

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``PI``).
    """

    k = Parameter(1.0, unit="1", description="gain")
    T = Parameter(1.0, min=0.0, unit="s", description="time constant (> 0)")
    init_type = Parameter("none", description="initialisation: 'none', 'steady_state', "
                          "'initial_state' or 'initial_output'")
    x_start = Parameter(0.0, unit="1", description="initial or guess value of the state x")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type="
                        "'initial_output'")
    u = RealInput()
    y = RealOutput()
    x = Variable(start=0.0, unit="1", description="state of the block (integral of u/T)",
                 state_priority=1)

    def __init__(self, **overrides):
        super().__init__(**overrides)
        _start_from(self, [("x", "x_start")])

    def equations(self):
        return [Eq(der(self.x), self.u.u / self.T), Eq(self.y.u, self.k * (self.x + self.u.u))]

    def initial_equations(self):
        init = _check_init(self, ("none", "steady_state", "initial_state", "initial_output"))
        if init == "steady_state":
            return [Eq(der(self.x), 0)]
        if init == "initial_state":
            return [Eq(self.x, self.x_start)]
        return [Eq(self.y.u, self.y_start)] if init == "initial_output" else []


def _derivative_part(td, t_d, u, xd):
    """(der(xd), y) of MSL's ``Derivative`` D(k=Td, T=t_d) as used by PID and LimPID, with its
    zeroGain case (|Td| < eps: der(xd) = 0, y = 0)."""
    zero = sp.Abs(td) < EPS
    return (sp.Piecewise((0, zero), ((u - xd) / t_d, True)),
            sp.Piecewise((0, zero), (td / t_d * (u - xd), True)))


class PID(Component):
    """PID controller in additive form ``y = k (1 + 1/(Ti s) + Td s/((Td/Nd) s + 1)) u`` (MSL
    ``Blocks.Continuous.PID``).

    MSL builds it from parts: ``P`` (Gain 1), ``I`` (Integrator, k = 1/Ti, state ``I.y``),
    ``D`` (Derivative, k = Td, T = max(Td/Nd, 100*eps), state ``D.x``), ``Add`` (Add3) and
    ``Gain`` (k). This block writes the same equations flat; ``xi`` is MSL's ``I.y`` and ``xd``
    is MSL's ``D.x``::

        der(xi) = u/Ti
        T_D = max(Td/Nd, 100*eps)
        der(xd) = (u - xd)/T_D            (0 if |Td| < eps)
        yD = (Td/T_D)*(u - xd)             (0 if |Td| < eps)
        y = k*(u + xi + yD)
        init_type = "initial_state" (default):  xi = xi_start, xd = xd_start
        init_type = "steady_state":   der(xi) = 0 (u = 0) and der(xd) = 0 (written xd = u)
        init_type = "initial_output": y = y_start and der(xd) = 0 (xd = u); xi is free
        init_type = "none":           no initial equation

    Parameters: ``k`` [1], ``Ti`` [s] (> 0), ``Td`` [s] (>= 0), ``Nd`` [1] (> 0), ``xi_start``,
    ``xd_start`` [unit of u], ``y_start`` [unit of y].

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``PID``).
    """

    k = Parameter(1.0, unit="1", description="gain")
    Ti = Parameter(0.5, min=0.0, unit="s", description="time constant of the integrator (> 0)")
    Td = Parameter(0.1, min=0.0, unit="s", description="time constant of the derivative block")
    Nd = Parameter(10.0, min=0.0, unit="1", description="the higher Nd, the more ideal the "
                   "derivative block (> 0)")
    init_type = Parameter("initial_state", description="initialisation: 'initial_state', "
                          "'steady_state', 'initial_output' or 'none'")
    xi_start = Parameter(0.0, unit="1", description="initial or guess value of the integrator "
                         "output xi (MSL I.y)")
    xd_start = Parameter(0.0, unit="1", description="initial or guess value of the derivative "
                         "block state xd (MSL D.x)")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type="
                        "'initial_output'")
    u = RealInput()
    y = RealOutput()
    xi = Variable(start=0.0, unit="1", description="integrator state (MSL I.y)",
                  state_priority=1)
    xd = Variable(start=0.0, unit="1", description="derivative block state (MSL D.x)",
                  state_priority=1)

    def __init__(self, **overrides):
        super().__init__(**overrides)
        _start_from(self, [("xi", "xi_start"), ("xd", "xd_start")])

    def equations(self):
        u = self.u.u
        der_xd, y_d = _derivative_part(self.Td, sp.Max(self.Td / self.Nd, 100 * EPS), u, self.xd)
        return [Eq(der(self.xi), u / self.Ti), Eq(der(self.xd), der_xd),
                Eq(self.y.u, self.k * (u + self.xi + y_d))]

    def initial_equations(self):
        init = _check_init(self, ("initial_state", "steady_state", "initial_output", "none"))
        if init == "initial_state":
            return [Eq(self.xi, self.xi_start), Eq(self.xd, self.xd_start)]
        if init == "steady_state":
            return [Eq(der(self.xi), 0), Eq(self.xd, self.u.u)]
        if init == "initial_output":
            return [Eq(self.y.u, self.y_start), Eq(self.xd, self.u.u)]
        return []


class Limiter(Component):
    """Limit the range of a signal (MSL ``Blocks.Nonlinear.Limiter``).

    Equation::

        y = uMax if u > uMax, uMin if u < uMin, else u

    written as MSL's non-strict ``smooth(0, if ...)``: the limits are crossed at state events
    (``event_if``); with ``strict=True`` as written without events (MSL ``noEvent``). When only
    ``uMax`` is given, ``uMin = -uMax`` (MSL's default). MSL's ``homotopyType`` (a simplified
    model for homotopy-based initialisation) is not provided.

    Parameters: ``uMax``, ``uMin`` [unit of u] (uMax >= uMin).

    Source: MSL 4.0 ``Modelica/Blocks/Nonlinear.mo`` (block ``Limiter``).
    """

    uMax = Parameter(1.0, unit="1", description="upper limit of the input signal")
    uMin = Parameter(-1.0, unit="1", description="lower limit (default -uMax)")
    strict = Parameter(False, description="True: limits without events (MSL noEvent)")
    u = RealInput()
    y = RealOutput()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        _default_lower(self, "uMax", "uMin")

    def equations(self):
        return [Eq(self.y.u, _limited(self.u.u, self.uMax, self.uMin, self.strict))]


class LimPID(Component):
    """P, PI, PD or PID controller with limited output, anti-windup, set-point weighting and an
    optional feed-forward input (MSL ``Blocks.Continuous.LimPID``).

    MSL builds it from parts (``addP``, ``P``, ``addD``, ``D``, ``addI``, ``I``, ``addPID``,
    ``gainPID``, ``addFF``, ``limiter``, ``addSat``, ``gainTrack``); this block writes the same
    equations flat. ``xi`` is MSL's ``I.y``, ``xd`` is ``D.x``, ``y_unlimited`` is
    ``limiter.u`` (= ``addFF.y``)::

        controlError = u_s - u_m
        yP = wp*u_s - u_m                                        (P.y)
        D part (controllerType "PD", "PID"), T_D = max(Td/Nd, 1e-14):
            der(xd) = (wd*u_s - u_m - xd)/T_D,  yD = (Td/T_D)*(wd*u_s - u_m - xd)
            (both 0 if |Td| < eps); otherwise xd = 0, yD = 0
        I part (controllerType "PI", "PID"):
            der(xi) = (u_s - u_m + (y - y_unlimited)/(k*Ni))/Ti   (anti-windup through the limiter)
            otherwise xi = 0
        y_unlimited = k*(yP + yD + xi) + kFF*u_ff                 (u_ff only if with_feed_forward)
        y = yMax if y_unlimited > yMax, yMin if y_unlimited < yMin, else y_unlimited

    The limiter is :class:`Limiter`'s (events at the limits; ``strict=True``: no events).

    Initialisation (as MSL passes ``initType`` to its I and D parts)::

        "initial_state" (default): xi = xi_start, xd = xd_start
        "steady_state":   der(xi) = 0, der(xd) = 0 (written xd = wd*u_s - u_m)
        "initial_output": k*(yP + yD + xi) = y_start (MSL gainPID.y), der(xd) = 0
        "none":           no initial equation

    Parameters: ``k`` [1] (> 0), ``Ti``, ``Td`` [s], ``yMax``, ``yMin`` [unit of y] (yMin =
    -yMax when only yMax is given), ``wp``, ``wd`` [1] (set-point weights), ``Ni`` [1] (Ni*Ti is
    the anti-windup time constant), ``Nd`` [1], ``kFF`` [1], ``xi_start``, ``xd_start``,
    ``y_start``. MSL's ``homotopyType`` is not provided.

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``LimPID``).
    """

    controllerType = Parameter("PID", description="'P', 'PI', 'PD' or 'PID'")
    k = Parameter(1.0, min=0.0, unit="1", description="gain of the controller (> 0)")
    Ti = Parameter(0.5, min=0.0, unit="s", description="time constant of the integrator (> 0)")
    Td = Parameter(0.1, min=0.0, unit="s", description="time constant of the derivative block")
    yMax = Parameter(1.0, unit="1", description="upper limit of the output")
    yMin = Parameter(-1.0, unit="1", description="lower limit of the output (default -yMax)")
    wp = Parameter(1.0, min=0.0, unit="1", description="set-point weight of the P part")
    wd = Parameter(0.0, min=0.0, unit="1", description="set-point weight of the D part")
    Ni = Parameter(0.9, min=0.0, unit="1", description="Ni*Ti is the time constant of the "
                   "anti-windup compensation (> 0)")
    Nd = Parameter(10.0, min=0.0, unit="1", description="the higher Nd, the more ideal the "
                   "derivative block (> 0)")
    with_feed_forward = Parameter(False, description="True: add the input u_ff (feed-forward)")
    kFF = Parameter(1.0, unit="1", description="gain of the feed-forward input")
    init_type = Parameter("initial_state", description="initialisation: 'initial_state', "
                          "'steady_state', 'initial_output' or 'none'")
    xi_start = Parameter(0.0, unit="1", description="initial or guess value of xi (MSL I.y)")
    xd_start = Parameter(0.0, unit="1", description="initial or guess value of xd (MSL D.x)")
    y_start = Parameter(0.0, unit="1", description="initial value of k*(yP + yD + xi) for "
                        "init_type='initial_output'")
    strict = Parameter(False, description="True: limiter without events (MSL noEvent)")
    u_s = RealInput()
    u_m = RealInput()
    y = RealOutput()
    controlError = Variable(unit="1", description="control error u_s - u_m")
    xi = Variable(start=0.0, unit="1", description="integrator state (MSL I.y)",
                  state_priority=1)
    xd = Variable(start=0.0, unit="1", description="derivative block state (MSL D.x)",
                  state_priority=1)
    y_unlimited = Variable(unit="1", description="limiter input (MSL limiter.u)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        kind = overrides.get("controllerType", "PID")
        if kind not in ("P", "PI", "PD", "PID"):
            raise ParameterError(f"LimPID: controllerType must be 'P', 'PI', 'PD' or 'PID', got "
                                 f"{kind!r}.")
        _default_lower(self, "yMax", "yMin")
        _start_from(self, [("xi", "xi_start"), ("xd", "xd_start")])
        if overrides.get("with_feed_forward", False):
            self.u_ff = RealInput()

    def _parts(self):
        """(with_I, with_D, yP, yD, der(xd) or None)."""
        kind = self.controllerType
        u_s, u_m = self.u_s.u, self.u_m.u
        with_i, with_d = kind in ("PI", "PID"), kind in ("PD", "PID")
        y_p = self.wp * u_s - u_m
        der_xd, y_d = _derivative_part(self.Td, sp.Max(self.Td / self.Nd, 1e-14),
                                       self.wd * u_s - u_m, self.xd) if with_d else (None, 0)
        return with_i, with_d, y_p, y_d, der_xd

    def equations(self):
        with_i, with_d, y_p, y_d, der_xd = self._parts()
        u_s, u_m, y = self.u_s.u, self.u_m.u, self.y.u
        feed = self.kFF * self.u_ff.u if self.with_feed_forward else 0
        eqs = [Eq(self.controlError, u_s - u_m),
               Eq(self.y_unlimited, self.k * (y_p + y_d + self.xi) + feed),
               Eq(y, _limited(self.y_unlimited, self.yMax, self.yMin, self.strict))]
        eqs.append(Eq(der(self.xd), der_xd) if with_d else Eq(self.xd, 0))
        eqs.append(Eq(der(self.xi), (u_s - u_m + (y - self.y_unlimited) / (self.k * self.Ni))
                      / self.Ti) if with_i else Eq(self.xi, 0))
        return eqs

    def initial_equations(self):
        init = _check_init(self, ("initial_state", "steady_state", "initial_output", "none"))
        with_i, with_d, y_p, y_d, _ = self._parts()
        eqs = []
        if init == "initial_output":
            eqs.append(Eq(self.k * (y_p + y_d + self.xi), self.y_start))
        if with_i and init in ("initial_state", "steady_state"):
            eqs.append(Eq(self.xi, self.xi_start) if init == "initial_state"
                       else Eq(der(self.xi), 0))
        if with_d and init != "none":
            eqs.append(Eq(self.xd, self.xd_start) if init == "initial_state"
                       else Eq(self.xd, self.wd * self.u_s.u - self.u_m.u))
        return eqs


class CriticalDamping(Component):
    """Filter of order n with critical damping ``y = 1/(s/w + 1)^n u`` (MSL
    ``Blocks.Continuous.CriticalDamping``): n equal first-order filters in series.

    Equations (``x[0]`` .. ``x[n-1]`` are MSL's ``x[1]`` .. ``x[n]``)::

        alpha = sqrt(2^(1/n) - 1) if normalized else 1;  w = 2*pi*f/alpha
        der(x[0]) = (u - x[0])*w;  der(x[i]) = (x[i-1] - x[i])*w  (i = 1 .. n-1);  y = x[n-1]
        init_type = "none" (default):  no initial equation (x starts at x_start)
        init_type = "steady_state":    der(x) = 0
        init_type = "initial_state":   x = x_start
        init_type = "initial_output":  y = y_start, der(x[0:n-1]) = 0

    Normalised, the amplitude at f is 1/sqrt(2) (-3.01 dB) for every order. Parameters: ``n``
    (structural), ``f`` [Hz] (cut-off frequency), ``x_start``, ``y_start`` [unit of u].

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``CriticalDamping``).
    """

    n = Parameter(2, structural=True, description="order of the filter")
    f = Parameter(1.0, min=0.0, unit="Hz", description="cut-off frequency")
    normalized = Parameter(True, description="True: amplitude 1/sqrt(2) at f")
    init_type = Parameter("none", description="initialisation: 'none', 'steady_state', "
                          "'initial_state' or 'initial_output'")
    x_start = Parameter([0.0, 0.0], unit="1", description="start values of the states x "
                        "(a number is used for every state)")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type="
                        "'initial_output'")
    u = RealInput()
    y = RealOutput()
    x = Variable(shape=2, start=0.0, unit="1", description="filter states (n of them)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        n = overrides.get("n", 2)
        if not isinstance(n, int) or n < 1:
            raise ParameterError(f"CriticalDamping: n must be an integer >= 1, got {n!r}.")
        _vector_state(self, n, "filter states (MSL x[1..n] are x[0..n-1])")

    def equations(self):
        n, x = self.n, self.x
        alpha = math.sqrt(2.0 ** (1.0 / n) - 1.0) if self.normalized else 1.0
        w = 2 * sp.pi * self.f / alpha
        return [Eq(der(x[0]), (self.u.u - x[0]) * w), Eq(self.y.u, x[n - 1])] + \
            [Eq(der(x[i]), (x[i - 1] - x[i]) * w) for i in range(1, n)]

    def initial_equations(self):
        init = _check_init(self, ("none", "steady_state", "initial_state", "initial_output"))
        n, x = self.n, self.x
        if init == "steady_state":
            return [Eq(der(x[i]), 0) for i in range(n)]
        if init == "initial_state":
            return [Eq(x[i], self.x_start[i]) for i in range(n)]
        if init == "initial_output":
            return [Eq(self.y.u, self.y_start)] + [Eq(der(x[i]), 0) for i in range(n - 1)]
        return []


class Filter(Component):
    """Low-pass or high-pass filter of type CriticalDamping, Bessel, Butterworth or ChebyshevI
    (MSL ``Blocks.Continuous.Filter``; ``filterType`` "BandPass" and "BandStop" are not
    implemented yet and raise ``ParameterError``).

    A prototype low pass with cut-off 1 rad/s (see :mod:`acausal.components.continuous`) is moved
    to ``w = 2*pi*f_cut`` (high pass: ``p -> w/s``, low pass: ``p -> s/w``) and realised as MSL
    does: the real poles first, then one pair of states per complex pole pair ``a +- j b``
    (``r``, ``a``, ``b``, ``ku`` scale with w; ``k1``, ``k2`` do not)::

        uu[0] = u/u_nominal
        real pole i:    der(x[i]) = r_i*(x[i] - uu[i]);
                        uu[i+1] = x[i]  (LowPass),  uu[i] - x[i]  (HighPass)
        pair j (states x1 = x[nr+2j], x2 = x[nr+2j+1]):
                        der(x1) = a_j*x1 - b_j*x2 + ku_j*uu;  der(x2) = b_j*x1 + a_j*x2
                        uu_next = x2  (LowPass),  k1_j*x1 + k2_j*x2 + uu  (HighPass)
        y = gain*u_nominal*uu[last]
        init_type = "steady_state" (default): der(x) = 0;  "initial_state": x = x_start;
        "initial_output": y = y_start, der(x[0:order-1]) = 0;  "none": no initial equation

    Normalised (default), the amplitude at f_cut is ``gain*10^(-3/20)`` (MSL's -3 dB) for
    CriticalDamping, Bessel and ChebyshevI; Butterworth always has ``gain/sqrt(2)`` there. Not
    normalised: CriticalDamping has its poles at -w, Bessel a group delay of 1/w at zero
    frequency, ChebyshevI its pass-band edge at f_cut.

    Parameters: ``analogFilter``, ``filterType``, ``order``, ``normalized``, ``A_ripple`` [dB]
    (ChebyshevI pass-band ripple) are structural; ``f_cut`` [Hz], ``gain`` [1] (amplitude at
    zero frequency for a low pass, at infinite frequency for a high pass), ``u_nominal`` [unit of
    u] (scales the states), ``x_start`` [1], ``y_start`` [unit of y].

    Source: MSL 4.0 ``Modelica/Blocks/Continuous.mo`` (block ``Filter`` and package
    ``Internal.Filter``; MSL's parameter ``init`` is ``init_type`` here).
    """

    analogFilter = Parameter("CriticalDamping", description="'CriticalDamping', 'Bessel', "
                             "'Butterworth' or 'ChebyshevI'")
    filterType = Parameter("LowPass", description="'LowPass' or 'HighPass'")
    order = Parameter(2, structural=True, description="order of the filter")
    f_cut = Parameter(1.0, min=0.0, unit="Hz", description="cut-off frequency (> 0)")
    gain = Parameter(1.0, unit="1", description="gain (amplitude at zero frequency)")
    A_ripple = Parameter(0.5, structural=True, unit="dB", description="pass-band ripple of "
                         "ChebyshevI (> 0; otherwise not used)")
    normalized = Parameter(True, description="True: amplitude at f_cut is -3 dB")
    init_type = Parameter("steady_state", description="initialisation: 'steady_state', "
                          "'initial_state', 'initial_output' or 'none'")
    x_start = Parameter([0.0, 0.0], unit="1", description="start values of the states x "
                        "(a number is used for every state)")
    y_start = Parameter(0.0, unit="1", description="initial output for init_type="
                        "'initial_output'")
    u_nominal = Parameter(1.0, min=0.0, unit="1", description="nominal value of the input "
                          "(scales the states; > 0)")
    u = RealInput()
    y = RealOutput()
    x = Variable(shape=2, start=0.0, unit="1", description="filter states (order of them)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        order = overrides.get("order", 2)
        if not isinstance(order, int) or order < 1:
            raise ParameterError(f"Filter: order must be an integer >= 1, got {order!r}.")
        analog = overrides.get("analogFilter", "CriticalDamping")
        if analog not in ANALOG_FILTERS:
            raise ParameterError(f"Filter: analogFilter must be one of "
                                 f"{', '.join(ANALOG_FILTERS)}, got {analog!r}.")
        self._design = realization(analog, overrides.get("filterType", "LowPass"), order,
                                   overrides.get("normalized", True),
                                   overrides.get("A_ripple", 0.5))
        _vector_state(self, order, "filter states (MSL x[1..nx] are x[0..nx-1])")

    def equations(self):
        x, w, high = self.x, 2 * sp.pi * self.f_cut, self.filterType == "HighPass"
        real, pairs = self._design
        uu, eqs = self.u.u / self.u_nominal, []
        for i, r in enumerate(real):
            eqs.append(Eq(der(x[i]), r * w * (x[i] - uu)))
            uu = uu - x[i] if high else x[i]
        for j, (a, b, ku, k1, k2) in enumerate(pairs):
            x1, x2 = x[len(real) + 2 * j], x[len(real) + 2 * j + 1]
            eqs += [Eq(der(x1), w * (a * x1 - b * x2 + ku * uu)),
                    Eq(der(x2), w * (b * x1 + a * x2))]
            uu = k1 * x1 + k2 * x2 + uu if high else x2
        return eqs + [Eq(self.y.u, self.gain * self.u_nominal * uu)]

    def initial_equations(self):
        init = _check_init(self, ("steady_state", "initial_state", "initial_output", "none"))
        n, x = self.order, self.x
        if init == "steady_state":
            return [Eq(der(x[i]), 0) for i in range(n)]
        if init == "initial_state":
            return [Eq(x[i], self.x_start[i]) for i in range(n)]
        if init == "initial_output":
            return [Eq(self.y.u, self.y_start)] + [Eq(der(x[i]), 0) for i in range(n - 1)]
        return []
