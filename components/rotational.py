"""1-D rotational mechanics (after Modelica.Mechanics.Rotational and
ModelingToolkitStandardLibrary.Mechanical.Rotational).

Connector ``Flange``: potential ``phi`` [rad] (absolute rotation angle), flow ``tau`` [N.m]
(cut torque acting *on* the component through the flange, positive along +phi). A flange left
open transmits no torque.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Connector, Eq, Flow, Parameter, Potential, Variable, der
from acausal.errors import ParameterError

from .blocks import RealInput, RealOutput
from .thermal import ConditionalHeatPort


class Flange(Connector):
    """1-D rotational flange: angle ``phi`` [rad] and cut torque ``tau`` [N.m]."""

    phi = Potential(unit="rad", description="absolute rotation angle of the flange")
    tau = Flow(unit="N.m", description="cut torque, positive into the component")


class OptionalSupport(Component):
    """The optional support (housing) flange of an elementary component (MSL 4.0
    ``Rotational.Interfaces.PartialElementaryOneFlangeAndSupport2`` and
    ``PartialElementaryTwoFlangesAndSupport2``).

    ``useSupport`` (structural, default False): with it the component gets the flange
    ``support`` and measures its angles from the support, ``phi_support = support.phi``, and the
    support takes the reaction torque, ``support.tau = -(sum of the flange torques)``; without it
    the component is grounded internally, ``phi_support = 0`` and the reaction goes to the
    ground. Subclasses use :attr:`phi_support` in their equations and add
    :meth:`support_equations` with their flange torques.
    """

    useSupport = Parameter(False, structural=True,
                           description="True: the support flange is enabled, else the "
                           "component is grounded internally")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("useSupport", False):
            self.support = Flange()

    @property
    def phi_support(self):
        """Angle of the support [rad]: ``support.phi``, or 0 without a support flange."""
        return self.support.phi if self.useSupport else 0

    def support_equations(self, *flange_torques) -> list:
        """``support.tau = -(flange torques)`` when the support flange exists, else nothing."""
        if not self.useSupport:
            return []
        return [Eq(self.support.tau, -sum(flange_torques))]


class PartialCompliant(Component):
    """Two flanges with a relative angle and an internal torque
    (Modelica ``Rotational.Interfaces.PartialCompliant``).

    Equations: ``phi_rel = flange_b.phi - flange_a.phi``; ``flange_b.tau = tau``;
    ``flange_a.tau = -tau``.
    """

    flange_a = Flange()
    flange_b = Flange()
    phi_rel = Variable(unit="rad", description="relative angle flange_b.phi - flange_a.phi")
    tau = Variable(unit="N.m", description="torque from flange_a to flange_b (twist positive)")

    def equations(self):
        return [Eq(self.phi_rel, self.flange_b.phi - self.flange_a.phi),
                Eq(self.flange_b.tau, self.tau),
                Eq(self.flange_a.tau, -self.tau)]


class Fixed(Component):
    """Flange fixed at angle ``phi0`` (Modelica ``Rotational.Components.Fixed``):
    ``flange.phi = phi0``."""

    phi0 = Parameter(0.0, unit="rad", description="fixed angle")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.phi, self.phi0)]


class Inertia(Component):
    """Rotating rigid body with two flanges (Modelica ``Rotational.Components.Inertia``).

    Equations: ``phi = flange_a.phi = flange_b.phi``; ``w = der(phi)``; ``a = der(w)``;
    ``J a = flange_a.tau + flange_b.tau``. ``flange`` is an alias of ``flange_a`` for one-port
    use.
    """

    J = Parameter(1.0, min=0.0, unit="kg.m2", description="moment of inertia")
    flange_a = Flange()
    flange_b = Flange()
    phi = Variable(unit="rad", description="absolute rotation angle", state_priority=1)
    w = Variable(unit="rad/s", description="angular velocity", state_priority=1)
    a = Variable(unit="rad/s2", description="angular acceleration")

    @property
    def flange(self) -> Flange:
        return self.flange_a

    def equations(self):
        return [Eq(self.phi, self.flange_a.phi), Eq(self.phi, self.flange_b.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
                Eq(self.J * self.a, self.flange_a.tau + self.flange_b.tau)]


class Spring(PartialCompliant):
    """Linear torsional spring (Modelica ``Rotational.Components.Spring``):
    ``tau = c (phi_rel - phi_rel0)``."""

    c = Parameter(1.0, min=0.0, unit="N.m/rad", description="spring constant")
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched spring angle")

    def equations(self):
        return [*super().equations(), Eq(self.tau, self.c * (self.phi_rel - self.phi_rel0))]


class Damper(PartialCompliant, ConditionalHeatPort):
    """Linear torsional damper (Modelica ``Rotational.Components.Damper``), with the optional
    heat port (``useHeatPort``, :class:`acausal.components.thermal.ConditionalHeatPort`).

    Equations::

        w_rel = der(phi_rel);  tau = d w_rel
        lossPower = tau w_rel
        heatPort.Q_flow = -lossPower          (with useHeatPort=True)

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/Damper.mo`` (MSL's
    ``stateSelect=prefer`` on phi_rel and w_rel is left to the compiler's state selection).
    """

    d = Parameter(1.0, min=0.0, unit="N.m.s/rad", description="damping constant")
    w_rel = Variable(unit="rad/s", description="relative angular velocity der(phi_rel)")

    def equations(self):
        return [*super().equations(), Eq(self.w_rel, der(self.phi_rel)),
                Eq(self.tau, self.d * self.w_rel),
                Eq(self.lossPower, self.tau * self.w_rel), *self.heat_port_equations()]


class SpringDamper(PartialCompliant, ConditionalHeatPort):
    """Torsional spring and damper in parallel (Modelica ``Rotational.Components.SpringDamper``),
    with the optional heat port (``useHeatPort``).

    Equations::

        w_rel = der(phi_rel);  tau = c (phi_rel - phi_rel0) + d w_rel
        lossPower = d w_rel^2                 (the damper's part of tau times w_rel)
        heatPort.Q_flow = -lossPower          (with useHeatPort=True)

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/SpringDamper.mo``.
    """

    c = Parameter(1.0, min=0.0, unit="N.m/rad", description="spring constant")
    d = Parameter(1.0, min=0.0, unit="N.m.s/rad", description="damping constant")
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched spring angle")
    w_rel = Variable(unit="rad/s", description="relative angular velocity der(phi_rel)")

    def equations(self):
        tau_d = self.d * self.w_rel
        return [*super().equations(), Eq(self.w_rel, der(self.phi_rel)),
                Eq(self.tau, self.c * (self.phi_rel - self.phi_rel0) + tau_d),
                Eq(self.lossPower, tau_d * self.w_rel), *self.heat_port_equations()]


class Torque(OptionalSupport):
    """Torque source driven by the variable ``tau`` (Modelica ``Rotational.Sources.Torque``):
    ``flange.tau = -tau`` (accelerates along +phi); with ``useSupport`` the reaction
    ``support.tau = -flange.tau`` acts on the support flange (see :class:`OptionalSupport`).

    ``tau`` is an input (MSL: a RealInput): give it an equation in an enclosing model, e.g.
    ``Eq(torque.tau, ramp.y.u)`` (or use ConstantTorque).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/Torque.mo``.
    """

    flange = Flange()
    tau = Variable(unit="N.m", description="driving torque, positive along +phi")

    def equations(self):
        return [Eq(self.flange.tau, -self.tau), *self.support_equations(self.flange.tau)]


class ConstantTorque(OptionalSupport):
    """Constant torque ``tau_constant`` along +phi on ``flange``
    (Modelica ``Rotational.Sources.ConstantTorque``): ``flange.tau = -tau_constant``; with
    ``useSupport`` the support takes ``support.tau = -flange.tau``."""

    tau_constant = Parameter(1.0, unit="N.m", description="torque")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.tau, -self.tau_constant),
                *self.support_equations(self.flange.tau)]


class TorqueSensor(Component):
    """Ideal sensor of the torque passed from ``flange_a`` to ``flange_b``
    (Modelica ``Rotational.Sensors.TorqueSensor``): a rigid, massless shaft.

    Equations::

        flange_a.phi = flange_b.phi
        0 = flange_a.tau + flange_b.tau
        tau.u = flange_a.tau                        [N.m]

    ``tau`` is a :class:`acausal.components.blocks.RealOutput` (value ``tau.u``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/TorqueSensor.mo`` (with
    ``Interfaces.PartialRelativeSensor``).
    """

    flange_a = Flange()
    flange_b = Flange()
    tau = RealOutput()

    def equations(self):
        return [Eq(self.flange_a.phi, self.flange_b.phi),
                Eq(self.flange_a.tau + self.flange_b.tau, 0),
                Eq(self.tau.u, self.flange_a.tau)]


class SpeedSensor(Component):
    """Ideal sensor of the absolute angular velocity of ``flange``
    (Modelica ``Rotational.Sensors.SpeedSensor``); it takes no torque.

    Equations::

        w.u = der(flange.phi)                       [rad/s]
        flange.tau = 0

    ``w`` is a :class:`acausal.components.blocks.RealOutput` (value ``w.u``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/SpeedSensor.mo`` (with
    ``Interfaces.PartialAbsoluteSensor``).
    """

    flange = Flange()
    w = RealOutput()

    def equations(self):
        return [Eq(self.w.u, der(self.flange.phi)), Eq(self.flange.tau, 0)]


class AngleSensor(Component):
    """Ideal sensor of the absolute angle of ``flange``
    (Modelica ``Rotational.Sensors.AngleSensor``); it takes no torque.

    Equations::

        phi.u = flange.phi                          [rad]
        flange.tau = 0

    ``phi`` is a :class:`acausal.components.blocks.RealOutput` (value ``phi.u``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/AngleSensor.mo`` (with
    ``Interfaces.PartialAbsoluteSensor``).
    """

    flange = Flange()
    phi = RealOutput()

    def equations(self):
        return [Eq(self.phi.u, self.flange.phi), Eq(self.flange.tau, 0)]


class QuadraticSpeedDependentTorque(OptionalSupport):
    """Torque quadratic in the speed of ``flange``, e.g. a fan or a pump load
    (Modelica ``Rotational.Sources.QuadraticSpeedDependentTorque``; ``useSupport`` as
    :class:`OptionalSupport`: angle and speed relative to the support, which takes
    ``support.tau = -flange.tau``).

    Parameters: ``tau_nominal`` [N.m] (torque at ``w_nominal``; negative: a load that brakes
    a positive rotation), ``w_nominal`` [rad/s] (> 0), ``TorqueDirection`` (bool, structural:
    the torque has the same direction for both directions of rotation).

    Equations::

        phi = flange.phi - phi_support;  w = der(phi);  tau = -flange.tau
        TorqueDirection:      tau = tau_nominal (w/w_nominal)^2
        not TorqueDirection:  tau = tau_nominal smooth(1, if w >= 0 then (w/w_nominal)^2
                                                          else -(w/w_nominal)^2)
                                  = tau_nominal w |w| / w_nominal^2

    ``tau`` is the torque that accelerates the flange along +phi. The second law is continuously
    differentiable (Modelica's ``smooth(1, ...)``: no event); it is written with ``Abs``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sources/QuadraticSpeedDependentTorque.mo``
    (with ``Interfaces.PartialTorque``).
    """

    tau_nominal = Parameter(1.0, unit="N.m", description="nominal torque (< 0: a load)")
    TorqueDirection = Parameter(True, description="same torque direction for both directions "
                                "of rotation")
    w_nominal = Parameter(1.0, min=1e-15, unit="rad/s", description="nominal speed (> 0)")
    flange = Flange()
    phi = Variable(unit="rad", description="angle of flange relative to the support")
    w = Variable(unit="rad/s", description="angular velocity of flange der(phi)")
    tau = Variable(unit="N.m", description="accelerating torque acting at flange (-flange.tau)")

    def equations(self):
        ratio = self.w / self.w_nominal
        law = ratio**2 if self.TorqueDirection else ratio * sp.Abs(ratio)
        return [Eq(self.phi, self.flange.phi - self.phi_support), Eq(self.w, der(self.phi)),
                Eq(self.tau, -self.flange.tau), Eq(self.tau, self.tau_nominal * law),
                *self.support_equations(self.flange.tau)]


class IdealGear(OptionalSupport):
    """Ideal gear without inertia (MSL ``Rotational.Components.IdealGear``; ``useSupport`` as
    :class:`OptionalSupport`: without it the housing is fixed).

    Equations::

        phi_a = flange_a.phi - phi_support;  phi_b = flange_b.phi - phi_support
        phi_a = ratio phi_b
        0 = ratio flange_a.tau + flange_b.tau
        useSupport:  support.tau = -flange_a.tau - flange_b.tau

    ``ratio`` [1] is flange_a.phi/flange_b.phi; the gear transmits power without loss
    (``flange_a.tau der(phi_a) + flange_b.tau der(phi_b) = 0``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/IdealGear.mo``.
    """

    ratio = Parameter(1.0, unit="1", description="transmission ratio flange_a.phi/flange_b.phi")
    flange_a = Flange()
    flange_b = Flange()
    phi_a = Variable(unit="rad", description="angle of flange_a relative to the support")
    phi_b = Variable(unit="rad", description="angle of flange_b relative to the support")

    def equations(self):
        return [Eq(self.phi_a, self.flange_a.phi - self.phi_support),
                Eq(self.phi_b, self.flange_b.phi - self.phi_support),
                Eq(self.phi_a, self.ratio * self.phi_b),
                Eq(0, self.ratio * self.flange_a.tau + self.flange_b.tau),
                *self.support_equations(self.flange_a.tau, self.flange_b.tau)]


class AccSensor(Component):
    """Ideal sensor of the absolute angular acceleration of ``flange``
    (MSL ``Rotational.Sensors.AccSensor``); it takes no torque.

    Equations::

        w = der(flange.phi)                         [rad/s]
        a.u = der(w)                                [rad/s2]
        flange.tau = 0

    ``a`` is a :class:`acausal.components.blocks.RealOutput` (value ``a.u``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/AccSensor.mo``.
    """

    flange = Flange()
    a = RealOutput()
    w = Variable(unit="rad/s", description="absolute angular velocity of flange")

    def equations(self):
        return [Eq(self.w, der(self.flange.phi)), Eq(self.a.u, der(self.w)),
                Eq(self.flange.tau, 0)]


#: MSL's StateSelect as the state priorities of acausal (InitializeFlange.stateSelect)
STATE_SELECT = {"default": 0, "prefer": 10, "always": 100}


class InitializeFlange(Component):
    """Initialise a flange with a given angle, speed and angular acceleration, usually reference
    signals (MSL ``Rotational.Components.InitializeFlange``); it takes no torque.

    Equations::

        phi_flange = flange.phi;  w_flange = der(phi_flange);  flange.tau = 0
        initial equations:
            use_phi_start:  flange.phi = phi_start.u
            use_w_start:    w_flange = w_start.u
            use_a_start:    der(w_flange) = a_start.u

    ``phi_start``, ``w_start``, ``a_start`` are :class:`acausal.components.blocks.RealInput`
    connectors (rad, rad/s, rad/s2), present when their ``use_*`` flag is True. MSL's
    ``stateSelect`` (default ``StateSelect.default``) is ``state_priority`` here (an integer
    given to ``phi_flange`` and ``w_flange``; MSL's ``StateSelect.prefer`` is about 10, the
    priority of a joint angle). MSL splits the three initial equations over the protected parts
    ``set_phi_start``, ``set_w_start``, ``set_a_start`` and ``set_flange_tau`` (each with
    ``flange.tau = 0``); this component writes them flat.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/InitializeFlange.mo``.
    """

    use_phi_start = Parameter(True, description="initial angle given by the input phi_start")
    use_w_start = Parameter(True, description="initial speed given by the input w_start")
    use_a_start = Parameter(True, description="initial acceleration given by the input a_start")
    stateSelect = Parameter("default", description="'default', 'prefer' or 'always': priority "
                            "of phi_flange and w_flange as states")
    flange = Flange()
    phi_flange = Variable(unit="rad", description="flange angle")
    w_flange = Variable(unit="rad/s", description="der(phi_flange)")

    def __init__(self, **overrides):
        select = overrides.get("stateSelect", "default")
        if select not in STATE_SELECT:
            raise ParameterError(f"InitializeFlange: stateSelect must be one of "
                                 f"{', '.join(STATE_SELECT)}, got {select!r}.")
        priority = STATE_SELECT[select]
        if priority:
            for name in ("phi_flange", "w_flange"):
                overrides.setdefault(name, Variable(state_priority=priority))
        super().__init__(**overrides)
        if overrides.get("use_phi_start", True):
            self.phi_start = RealInput()
        if overrides.get("use_w_start", True):
            self.w_start = RealInput()
        if overrides.get("use_a_start", True):
            self.a_start = RealInput()

    def equations(self):
        return [Eq(self.phi_flange, self.flange.phi), Eq(self.w_flange, der(self.phi_flange)),
                Eq(self.flange.tau, 0)]

    def initial_equations(self):
        eqs = []
        if self.use_phi_start:
            eqs.append(Eq(self.flange.phi, self.phi_start.u))
        if self.use_w_start:
            eqs.append(Eq(self.w_flange, self.w_start.u))
        if self.use_a_start:
            eqs.append(Eq(der(self.w_flange), self.a_start.u))
        return eqs
