"""1-D rotational sources (after ``Modelica.Mechanics.Rotational.Sources`` of MSL 4.0):
``Torque2``, ``LinearSpeedDependentTorque``, ``ConstantSpeed``, ``TorqueStep``, ``SignTorque``,
``EddyCurrentTorque``, ``Speed``, ``Position``, ``Accelerate``, ``Move``. ``Torque``,
``ConstantTorque`` and ``QuadraticSpeedDependentTorque`` are in
:mod:`acausal.components.rotational`.

Every source with one flange has MSL's optional support (``useSupport``, see
:class:`acausal.components.rotational.OptionalSupport`): its angle ``phi`` is measured from the
support, ``phi = flange.phi - phi_support``, and the support takes the reaction
``support.tau = -flange.tau``. A torque source's ``tau`` is the torque that accelerates the
flange along +phi (``tau = -flange.tau``), except ``EddyCurrentTorque`` whose ``tau`` is the
braking torque (``tau = flange.tau``), as in MSL.

Signal inputs (MSL ``RealInput``) are :class:`acausal.components.blocks.RealInput` connectors:
connect a block's output to them, or give their value ``<source>.<input>.u`` an equation.
1-D parts have no viewer shape.
"""

from __future__ import annotations

import sympy as sp

from acausal import (
    Component,
    Connector,
    Eq,
    Parameter,
    Potential,
    Variable,
    der,
    event_if,
    register_function,
    time,
)
from acausal.errors import ParameterError

from .blocks import RealInput
from .rotational import Flange, OptionalSupport
from .thermal import ConditionalHeatPortWithT

#: Modelica.Constants.eps (MSL 4.0)
EPS = 1e-15
#: MSL's StateSelect.prefer as a state priority
PREFER = 10


class _PartialTorque(OptionalSupport):
    """One flange driven relative to the (optional) support (MSL
    ``Rotational.Interfaces.PartialTorque``): ``phi = flange.phi - phi_support``."""

    flange = Flange()
    phi = Variable(unit="rad", description="angle of flange relative to the support")

    def equations(self):
        return [Eq(self.phi, self.flange.phi - self.phi_support),
                *self.support_equations(self.flange.tau)]


class Torque2(Component):
    """Torque from the signal ``tau`` acting between two flanges (MSL
    ``Rotational.Sources.Torque2``): a positive ``tau`` accelerates ``flange_b`` along +phi and
    ``flange_a`` along -phi.

    Equations: ``flange_a.tau = tau.u``; ``flange_b.tau = -tau.u`` [N.m].

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/Torque2.mo``.
    """

    flange_a = Flange()
    flange_b = Flange()
    tau = RealInput()

    def equations(self):
        return [Eq(self.flange_a.tau, self.tau.u), Eq(self.flange_b.tau, -self.tau.u)]


class LinearSpeedDependentTorque(_PartialTorque):
    """Torque linear in the speed (MSL ``Rotational.Sources.LinearSpeedDependentTorque``).

    Equations::

        w = der(phi);  tau = -flange.tau
        TorqueDirection:      tau = tau_nominal |w/w_nominal|
        not TorqueDirection:  tau = tau_nominal w/w_nominal

    ``tau_nominal < 0`` brakes a positive rotation. ``abs`` generates no event (MSL writes it
    without ``noEvent`` but the law is continuous).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/LinearSpeedDependentTorque.mo``.
    """

    tau_nominal = Parameter(1.0, unit="N.m", description="nominal torque (< 0: a load)")
    TorqueDirection = Parameter(True, description="same torque direction for both directions "
                                "of rotation")
    w_nominal = Parameter(1.0, min=EPS, unit="rad/s", description="nominal speed (> 0)")
    w = Variable(unit="rad/s", description="angular velocity of flange relative to the support")
    tau = Variable(unit="N.m", description="accelerating torque acting at flange (-flange.tau)")

    def equations(self):
        ratio = self.w / self.w_nominal
        law = sp.Abs(ratio) if self.TorqueDirection else ratio
        return [*super().equations(), Eq(self.w, der(self.phi)),
                Eq(self.tau, -self.flange.tau), Eq(self.tau, self.tau_nominal * law)]


class ConstantSpeed(_PartialTorque):
    """Flange turning at a constant speed, whatever torque that takes (MSL
    ``Rotational.Sources.ConstantSpeed``).

    Equations: ``w = der(phi)``; ``w = w_fixed``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/ConstantSpeed.mo``.
    """

    w_fixed = Parameter(1.0, unit="rad/s", description="fixed speed")
    w = Variable(unit="rad/s", description="angular velocity of flange relative to the support")

    def equations(self):
        return [*super().equations(), Eq(self.w, der(self.phi)), Eq(self.w, self.w_fixed)]


class TorqueStep(_PartialTorque):
    """Torque step at ``startTime`` (MSL ``Rotational.Sources.TorqueStep``).

    Equations: ``tau = -flange.tau``; ``tau = offsetTorque + (0 if time < startTime else
    stepTorque)``. The step is a time event (scheduled: the solver stops exactly on it).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/TorqueStep.mo``.
    """

    stepTorque = Parameter(1.0, unit="N.m", description="height of the torque step (< 0: load)")
    offsetTorque = Parameter(0.0, unit="N.m", description="torque before the step")
    startTime = Parameter(0.0, unit="s", description="time of the step")
    tau = Variable(unit="N.m", description="accelerating torque acting at flange (-flange.tau)")

    def equations(self):
        step = event_if(time < self.startTime, 0, self.stepTorque)
        return [*super().equations(), Eq(self.tau, -self.flange.tau),
                Eq(self.tau, self.offsetTorque + step)]


#: MSL's Modelica.Blocks.Types.Regularization
REGULARIZATIONS = ("Exp", "Sine", "Linear", "CoSine")


class SignTorque(_PartialTorque):
    """Constant torque whose sign follows the speed, regularised around zero speed (MSL
    ``Rotational.Sources.SignTorque``).

    ``reg`` (structural; MSL ``Modelica.Blocks.Types.Regularization``) chooses the law::

        "Exp":     tau = tau_nominal (2/(1 + exp(-w/(0.01 w0))) - 1)
        "Sine":    tau = tau_nominal (sign(w) if |w| >= w0 else sin(pi/2 w/w0))
        "Linear":  tau = tau_nominal (sign(w) if |w| >= w0 else w/w0)
        "CoSine":  tau = tau_nominal (sign(w) if |w| >= w0 else sign(w) (1 - cos(pi/2 w/w0)))

    with ``w = der(phi)``, ``tau = -flange.tau``. The switch ``|w| >= w0`` of "Linear" and
    "CoSine" is an event (MSL's relation has no ``noEvent``); "Sine" is continuously
    differentiable there (MSL ``smooth(1, ...)``) and switches without an event.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/SignTorque.mo``.
    """

    tau_nominal = Parameter(1.0, unit="N.m", description="nominal torque (< 0: a load)")
    reg = Parameter("Exp", description="regularisation: 'Exp', 'Sine', 'Linear' or 'CoSine'")
    w0 = Parameter(0.1, min=EPS, unit="rad/s", description="regularisation below w0 (> 0)")
    w = Variable(unit="rad/s", description="angular velocity of flange relative to the support")
    tau = Variable(unit="N.m", description="accelerating torque acting at flange (-flange.tau)")

    def __init__(self, **overrides):
        reg = overrides.get("reg", "Exp")
        if reg not in REGULARIZATIONS:
            raise ParameterError(f"SignTorque: reg must be one of {', '.join(REGULARIZATIONS)} "
                                 f"(MSL's Blocks.Types.Regularization), got {reg!r}.")
        super().__init__(**overrides)

    def equations(self):
        w, w0 = self.w, self.w0
        outside = sp.Abs(w) >= w0
        if self.reg == "Exp":
            law = 2 / (1 + sp.exp(-w / (0.01 * w0))) - 1
        elif self.reg == "Sine":  # MSL smooth(1, ...): continuous slope, no event
            law = sp.Piecewise((sp.sign(w), outside), (sp.sin(sp.pi / 2 * w / w0), True))
        else:
            inner = {"Linear": w / w0,
                     "CoSine": sp.sign(w) * (1 - sp.cos(sp.pi / 2 * w / w0))}[self.reg]
            law = event_if(outside, sp.sign(w), inner)
        return [*super().equations(), Eq(self.w, der(self.phi)),
                Eq(self.tau, -self.flange.tau), Eq(self.tau, self.tau_nominal * law)]


class EddyCurrentTorque(_PartialTorque, ConditionalHeatPortWithT):
    """Rotational eddy current brake (MSL ``Rotational.Sources.EddyCurrentTorque``), with the
    optional heat port of MSL's ``PartialElementaryConditionalHeatPort``
    (:class:`acausal.components.thermal.ConditionalHeatPortWithT`).

    Equations::

        tau = flange.tau                           (braking torque)
        w = der(phi)
        w_normalized = w / (w_nominal (1 + alpha (TheatPort - TRef)))
            alpha = alpha20 / (1 + alpha20 (TRef - 293.15 K))      (alpha20 given at 20 degC)
        tau = 2 tau_nominal w_normalized / (1 + w_normalized^2)
        lossPower = tau w
        useHeatPort:      TheatPort = heatPort.T;  heatPort.Q_flow = -lossPower
        not useHeatPort:  TheatPort = T            (fixed device temperature)

    The torque is largest, ``tau_nominal``, at ``w = w_nominal`` (at the reference temperature);
    the nominal speed grows with the temperature (the conductor's resistance,
    ``Electrical.Machines.Thermal.linearTemperatureDependency``). MSL's
    ``alpha20Copper`` is 3.92e-3 1/K.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/EddyCurrentTorque.mo``,
    ``Modelica/Thermal/HeatTransfer/Interfaces/PartialElementaryConditionalHeatPort.mo``,
    ``Modelica/Electrical/Machines/Thermal/linearTemperatureDependency.mo`` and
    ``convertAlpha.mo``.
    """

    tau_nominal = Parameter(1.0, unit="N.m", description="maximum torque (always braking)")
    w_nominal = Parameter(1.0, min=EPS, unit="rad/s", description="speed of the maximum torque "
                          "at the reference temperature (> 0)")
    TRef = Parameter(293.15, unit="K", description="reference temperature")
    alpha20 = Parameter(0.0, unit="1/K", description="temperature coefficient of the "
                        "conductor's resistance at 20 degC")
    tau = Variable(unit="N.m", description="braking torque (= flange.tau)")
    w = Variable(unit="rad/s", description="angular velocity of flange relative to the support")
    w_normalized = Variable(unit="1", description="relative speed w/w_nominal (at TheatPort)")

    def equations(self):
        alpha = self.alpha20 / (1 + self.alpha20 * (self.TRef - 293.15))
        wn = self.w_normalized
        return [*super().equations(), Eq(self.tau, self.flange.tau), Eq(self.w, der(self.phi)),
                Eq(wn * self.w_nominal * (1 + alpha * (self.TheatPort - self.TRef)), self.w),
                Eq(self.tau, 2 * self.tau_nominal * wn / (1 + wn * wn)),
                Eq(self.lossPower, self.tau * self.w), *self.heat_port_equations()]


def _filter_state_priority(exact: bool) -> int:
    return 0 if exact else PREFER


class Speed(OptionalSupport):
    """Flange moved by a reference speed signal ``w_ref`` (MSL ``Rotational.Sources.Speed``).

    Equations::

        phi = flange.phi - phi_support;  w = der(phi)
        exact:      w = w_ref.u;  a = 0
        not exact:  a = der(w);  a = (w_ref.u - w) w_crit      (first-order filter,
                    w_crit = 2 pi f_crit; initial equation w = w_ref.u)

    ``phi`` starts fixed at 0 (MSL ``phi(start=0, fixed=true)``; give ``phi=Variable(...)`` to
    change it). ``exact`` is structural.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/Speed.mo``.
    """

    exact = Parameter(False, description="True: exact treatment, False: filter the input")
    f_crit = Parameter(50.0, min=0.0, min_exclusive=True, unit="Hz",
                       description="critical frequency of the input filter (exact=False)")
    flange = Flange()
    w_ref = RealInput()
    phi = Variable(start=0.0, fixed=True, unit="rad", state_priority=PREFER,
                   description="angle of flange relative to the support")
    w = Variable(unit="rad/s", description="angular velocity of flange relative to the support")
    a = Variable(unit="rad/s2", description="angular acceleration (exact=True: 0, a dummy)")

    def __init__(self, **overrides):
        overrides.setdefault("w", Variable(state_priority=_filter_state_priority(
            overrides.get("exact", False))))
        super().__init__(**overrides)

    def equations(self):
        eqs = [Eq(self.phi, self.flange.phi - self.phi_support), Eq(self.w, der(self.phi)),
               *self.support_equations(self.flange.tau)]
        if self.exact:
            return [*eqs, Eq(self.w, self.w_ref.u), Eq(self.a, 0)]
        w_crit = 2 * sp.pi * self.f_crit
        return [*eqs, Eq(self.a, der(self.w)), Eq(self.a, (self.w_ref.u - self.w) * w_crit)]

    def initial_equations(self):
        return [] if self.exact else [Eq(self.w, self.w_ref.u)]


class Position(OptionalSupport):
    """Flange moved by a reference angle signal ``phi_ref`` (MSL
    ``Rotational.Sources.Position``).

    Equations::

        phi = flange.phi - phi_support
        exact:      phi = phi_ref.u;  w = 0;  a = 0                 (w, a are dummies)
        not exact:  w = der(phi);  a = der(w)
                    a = ((phi_ref.u - phi) w_crit - af w) (w_crit/bf)
                    (second-order Bessel filter: af = 1.3617, bf = 0.6180,
                    w_crit = 2 pi f_crit; initial equation phi = phi_ref.u; w starts at 0)

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/Position.mo``.
    """

    exact = Parameter(False, description="True: exact treatment, False: filter the input")
    f_crit = Parameter(50.0, min=0.0, min_exclusive=True, unit="Hz",
                       description="critical frequency of the input filter (exact=False)")
    flange = Flange()
    phi_ref = RealInput()
    phi = Variable(unit="rad", description="angle of flange relative to the support")
    w = Variable(start=0.0, unit="rad/s",
                 description="angular velocity (exact=False; exact=True: 0, a dummy)")
    a = Variable(start=0.0, unit="rad/s2",
                 description="angular acceleration (exact=False; exact=True: 0, a dummy)")

    #: the s and s^2 coefficients of the Bessel filter (MSL constants af, bf)
    af, bf = 1.3617, 0.6180

    def __init__(self, **overrides):
        priority = _filter_state_priority(overrides.get("exact", False))
        for name in ("phi", "w"):
            overrides.setdefault(name, Variable(state_priority=priority))
        super().__init__(**overrides)

    def equations(self):
        eqs = [Eq(self.phi, self.flange.phi - self.phi_support),
               *self.support_equations(self.flange.tau)]
        if self.exact:
            return [*eqs, Eq(self.phi, self.phi_ref.u), Eq(self.w, 0), Eq(self.a, 0)]
        w_crit = 2 * sp.pi * self.f_crit
        return [*eqs, Eq(self.w, der(self.phi)), Eq(self.a, der(self.w)),
                Eq(self.a, ((self.phi_ref.u - self.phi) * w_crit - self.af * self.w)
                   * (w_crit / self.bf))]

    def initial_equations(self):
        return [] if self.exact else [Eq(self.phi, self.phi_ref.u)]


class Accelerate(OptionalSupport):
    """Flange moved by an angular acceleration signal ``a_ref`` (MSL
    ``Rotational.Sources.Accelerate``).

    Equations: ``phi = flange.phi - phi_support``; ``w = der(phi)``; ``a = der(w)``;
    ``a = a_ref.u``. ``phi`` and ``w`` start fixed at 0 (MSL ``fixed=true``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/Accelerate.mo``.
    """

    flange = Flange()
    a_ref = RealInput()
    phi = Variable(start=0.0, fixed=True, unit="rad", state_priority=PREFER,
                   description="angle of flange relative to the support")
    w = Variable(start=0.0, fixed=True, unit="rad/s", state_priority=PREFER,
                 description="angular velocity of flange relative to the support")
    a = Variable(unit="rad/s2", description="angular acceleration relative to the support")

    def equations(self):
        return [Eq(self.phi, self.flange.phi - self.phi_support), Eq(self.w, der(self.phi)),
                Eq(self.a, der(self.w)), Eq(self.a, self.a_ref.u),
                *self.support_equations(self.flange.tau)]


class RealVectorInput(Connector):
    """A signal input of three values (MSL ``RealInput u[3]``): the potential vector ``u``."""

    u = Potential(shape=3, description="signal values (no unit: they carry the signal's)")


class move_zero(sp.Function):  # noqa: N801 - sympy function naming
    """``move_zero(q, qd, qdd, t)`` = 0: the derivative of the Move functions with respect to
    the signals. It is 0 when evaluated but not to sympy, so that a differentiated Move
    equation keeps the signals' derivatives in its structure: the index reduction (Pantelides)
    carries a matching over to the derivative of an equation assuming the derivatives of its
    variables occur in it."""

    nargs = 4

    def fdiff(self, argindex=1):
        return sp.S.Zero


class move_position(sp.Function):  # noqa: N801 - sympy function naming
    """``move_position(q, qd, qdd, t)`` = ``q``, whose time derivative is ``qd`` and second
    derivative ``qdd`` (MSL ``Move.position`` with ``derivative(noDerivative=q_qd_qdd)``): the
    signals are not differentiated (their derivatives enter with the factor
    :class:`move_zero`)."""

    nargs = 4
    unit_branches = (0,)

    def fdiff(self, argindex=1):
        return move_speed(*self.args) if argindex == 4 else move_zero(*self.args)


class move_speed(sp.Function):  # noqa: N801 - sympy function naming
    """``move_speed(q, qd, qdd, t)`` = ``qd`` (MSL ``Move.position_der``)."""

    nargs = 4
    unit_branches = (1,)

    def fdiff(self, argindex=1):
        return move_acceleration(*self.args) if argindex == 4 else move_zero(*self.args)


class move_acceleration(sp.Function):  # noqa: N801 - sympy function naming
    """``move_acceleration(q, qd, qdd, t)`` = ``qdd`` (MSL ``Move.position_der2``); Move gives
    no third derivative (its derivative is :class:`move_zero`)."""

    nargs = 4
    unit_branches = (2,)

    def fdiff(self, argindex=1):
        return move_zero(*self.args)


register_function(move_zero, lambda q, qd, qdd, t: 0 * q)
register_function(move_position, lambda q, qd, qdd, t: q)
register_function(move_speed, lambda q, qd, qdd, t: qd)
register_function(move_acceleration, lambda q, qd, qdd, t: qdd)


class Move(OptionalSupport):
    """Flange moved by an angle, speed and acceleration signal ``u = (phi, w, a)`` (MSL
    ``Rotational.Sources.Move``).

    Equations::

        phi = flange.phi - phi_support
        phi = move_position(u[0], u[1], u[2], time)

    ``move_position`` is ``u[0]``; its first and second time derivatives, which index
    reduction needs, are ``u[1]`` and ``u[2]`` (the signals themselves are not differentiated):
    the three signals must be consistent, as in MSL.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/Move.mo``.
    """

    flange = Flange()
    u = RealVectorInput()
    phi = Variable(unit="rad", description="angle of flange relative to the support")

    def equations(self):
        u = self.u.u
        return [Eq(self.phi, self.flange.phi - self.phi_support),
                Eq(self.phi, move_position(u[0], u[1], u[2], time)),
                *self.support_equations(self.flange.tau)]


__all__ = ["Accelerate", "ConstantSpeed", "EddyCurrentTorque", "LinearSpeedDependentTorque",
           "Move", "Position", "RealVectorInput", "SignTorque", "Speed", "Torque2", "TorqueStep"]
