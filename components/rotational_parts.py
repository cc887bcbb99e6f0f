"""Ideal 1-D rotational transmissions and relative sensors (after
``Modelica.Mechanics.Rotational.Components`` and ``.Sensors`` of MSL 4.0): ``Disc``,
``IdealPlanetary``, ``IdealGearR2T``, ``IdealRollingWheel``, ``MultiSensor``, ``PowerSensor``,
``RelAngleSensor``, ``RelSpeedSensor``, ``RelAccSensor``.

Connectors are :class:`acausal.components.rotational.Flange` (``phi`` [rad], ``tau`` [N.m]) and,
for the rotational-to-translational parts, :class:`acausal.components.translational.Flange`
(``s`` [m], ``f`` [N]); flows are positive into the component. None of these parts stores
energy: each one's power balance is zero (the sensors take no power at all).

1-D parts have no body in space, so they have no viewer shape (the viewer draws frames of
multibody and planar models).
"""

from __future__ import annotations

from acausal import Component, Eq, Parameter, Variable, der

from . import translational
from .blocks import RealOutput
from .rotational import Flange


class Disc(Component):
    """Rigid massless disc whose right flange is turned by a fixed angle against its left one
    (MSL ``Rotational.Components.Disc``).

    Equations::

        flange_a.phi = phi - deltaPhi/2
        flange_b.phi = phi + deltaPhi/2
        0 = flange_a.tau + flange_b.tau

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/Disc.mo``.
    """

    deltaPhi = Parameter(0.0, unit="rad",
                         description="fixed rotation flange_b.phi - flange_a.phi")
    flange_a = Flange()
    flange_b = Flange()
    phi = Variable(unit="rad", description="absolute rotation angle of the disc (mid-angle)")

    def equations(self):
        return [Eq(self.flange_a.phi, self.phi - self.deltaPhi / 2),
                Eq(self.flange_b.phi, self.phi + self.deltaPhi / 2),
                Eq(0, self.flange_a.tau + self.flange_b.tau)]


class IdealPlanetary(Component):
    """Ideal planetary gear box without inertia (MSL ``Rotational.Components.IdealPlanetary``).

    ``ratio`` is the number of ring teeth over the number of sun teeth (e.g. 100/50). Equations
    (the kinematics of a carrier with planets between sun and ring, and the static torque
    balance)::

        (1 + ratio) carrier.phi = sun.phi + ratio ring.phi
        ring.tau = ratio sun.tau
        carrier.tau = -(1 + ratio) sun.tau

    The three flange torques sum to zero and the power ``sum(tau der(phi))`` is zero. With the
    ring held, ``w_sun = (1 + ratio) w_carrier``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/IdealPlanetary.mo``.
    """

    ratio = Parameter(2.0, unit="1", description="number of ring teeth / number of sun teeth")
    sun = Flange()
    carrier = Flange()
    ring = Flange()

    def equations(self):
        r = self.ratio
        return [Eq((1 + r) * self.carrier.phi, self.sun.phi + r * self.ring.phi),
                Eq(self.ring.tau, r * self.sun.tau),
                Eq(self.carrier.tau, -(1 + r) * self.sun.tau)]


class RotationalToTranslational(Component):
    """A rotational flange ``flangeR`` and a translational flange ``flangeT`` with optional
    supports (MSL ``Rotational.Interfaces.PartialElementaryRotationalToTranslational``).

    ``useSupportR`` / ``useSupportT`` (structural, default False) add the rotational support
    ``supportR`` / the translational support ``supportT``; the motion is measured from them
    (:attr:`phi_supportR`, :attr:`s_supportT`: their angle and position, or 0 when grounded) and
    they take the reactions ``supportR.tau = -flangeR.tau``, ``supportT.f = -flangeT.f``
    (:meth:`support_equations`).
    """

    useSupportR = Parameter(False, structural=True,
                            description="True: rotational support flange supportR enabled")
    useSupportT = Parameter(False, structural=True,
                            description="True: translational support flange supportT enabled")
    flangeR = Flange()
    flangeT = translational.Flange()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("useSupportR", False):
            self.supportR = Flange()
        if overrides.get("useSupportT", False):
            self.supportT = translational.Flange()

    @property
    def phi_supportR(self):  # noqa: N802 - MSL's name
        """Angle of the rotational support [rad] (0 when grounded)."""
        return self.supportR.phi if self.useSupportR else 0

    @property
    def s_supportT(self):  # noqa: N802 - MSL's name
        """Position of the translational support [m] (0 when grounded)."""
        return self.supportT.s if self.useSupportT else 0

    def support_equations(self) -> list:
        eqs = []
        if self.useSupportR:
            eqs.append(Eq(self.supportR.tau, -self.flangeR.tau))
        if self.useSupportT:
            eqs.append(Eq(self.supportT.f, -self.flangeT.f))
        return eqs


class IdealGearR2T(RotationalToTranslational):
    """Gearbox turning rotation into translation, e.g. a rack and pinion or a spindle
    (MSL ``Rotational.Components.IdealGearR2T``; supports as
    :class:`RotationalToTranslational`).

    Equations::

        flangeR.phi - phi_supportR = ratio (flangeT.s - s_supportT)
        0 = ratio flangeR.tau + flangeT.f

    ``ratio`` [rad/m] is flangeR.phi / flangeT.s; no power is lost.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/IdealGearR2T.mo``.
    """

    ratio = Parameter(1.0, unit="rad/m", description="transmission ratio flangeR.phi/flangeT.s")

    def equations(self):
        return [Eq(self.flangeR.phi - self.phi_supportR,
                   self.ratio * (self.flangeT.s - self.s_supportT)),
                Eq(0, self.ratio * self.flangeR.tau + self.flangeT.f),
                *self.support_equations()]


class IdealRollingWheel(RotationalToTranslational):
    """Ideal wheel rolling without slip and without inertia (MSL
    ``Rotational.Components.IdealRollingWheel``; supports as
    :class:`RotationalToTranslational`).

    Equations (the wheel's angle times its radius is the distance travelled; the contact force
    times the radius balances the axle torque)::

        (flangeR.phi - phi_supportR) radius = flangeT.s - s_supportT
        0 = radius flangeT.f + flangeR.tau

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/IdealRollingWheel.mo``.
    """

    radius = Parameter(0.3, min=0.0, min_exclusive=True, unit="m", description="wheel radius")

    def equations(self):
        return [Eq((self.flangeR.phi - self.phi_supportR) * self.radius,
                   self.flangeT.s - self.s_supportT),
                Eq(0, self.radius * self.flangeT.f + self.flangeR.tau),
                *self.support_equations()]


class _RelativeSensor(Component):
    """Two flanges of a sensor (MSL ``Rotational.Interfaces.PartialRelativeSensor``):
    ``0 = flange_a.tau + flange_b.tau``."""

    flange_a = Flange()
    flange_b = Flange()

    def equations(self):
        return [Eq(0, self.flange_a.tau + self.flange_b.tau)]


class MultiSensor(_RelativeSensor):
    """Ideal sensor of the torque and the power passed from ``flange_a`` to ``flange_b`` and of
    the absolute speed (MSL ``Rotational.Sensors.MultiSensor``): a rigid massless shaft.

    Equations::

        flange_a.phi = flange_b.phi;  0 = flange_a.tau + flange_b.tau
        w.u = der(flange_a.phi)                     [rad/s]
        tau.u = flange_a.tau                        [N.m]
        power.u = tau.u w.u                         [W]

    ``power``, ``w``, ``tau`` are :class:`acausal.components.blocks.RealOutput` connectors.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/MultiSensor.mo``.
    """

    power = RealOutput()
    w = RealOutput()
    tau = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.flange_a.phi, self.flange_b.phi),
                Eq(self.w.u, der(self.flange_a.phi)), Eq(self.tau.u, self.flange_a.tau),
                Eq(self.power.u, self.tau.u * self.w.u)]


class PowerSensor(_RelativeSensor):
    """Ideal sensor of the power passed from ``flange_a`` to ``flange_b``
    (MSL ``Rotational.Sensors.PowerSensor``).

    Equations: ``flange_a.phi = flange_b.phi``; ``0 = flange_a.tau + flange_b.tau``;
    ``power.u = flange_a.tau der(flange_a.phi)`` [W].

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/PowerSensor.mo``.
    """

    power = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.flange_a.phi, self.flange_b.phi),
                Eq(self.power.u, self.flange_a.tau * der(self.flange_a.phi))]


class RelAngleSensor(_RelativeSensor):
    """Ideal sensor of the relative angle of two flanges (MSL
    ``Rotational.Sensors.RelAngleSensor``); it takes no torque.

    Equations: ``phi_rel.u = flange_b.phi - flange_a.phi`` [rad]; ``0 = flange_a.tau``;
    ``0 = flange_a.tau + flange_b.tau``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/RelAngleSensor.mo``.
    """

    phi_rel = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.phi_rel.u, self.flange_b.phi - self.flange_a.phi),
                Eq(0, self.flange_a.tau)]


class RelSpeedSensor(_RelativeSensor):
    """Ideal sensor of the relative angular velocity of two flanges (MSL
    ``Rotational.Sensors.RelSpeedSensor``); it takes no torque.

    Equations: ``phi_rel = flange_b.phi - flange_a.phi``; ``w_rel.u = der(phi_rel)`` [rad/s];
    ``0 = flange_a.tau``; ``0 = flange_a.tau + flange_b.tau``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/RelSpeedSensor.mo``.
    """

    phi_rel = Variable(unit="rad", description="relative angle flange_b.phi - flange_a.phi")
    w_rel = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.phi_rel, self.flange_b.phi - self.flange_a.phi),
                Eq(self.w_rel.u, der(self.phi_rel)), Eq(0, self.flange_a.tau)]


class RelAccSensor(_RelativeSensor):
    """Ideal sensor of the relative angular acceleration of two flanges (MSL
    ``Rotational.Sensors.RelAccSensor``); it takes no torque.

    Equations: ``phi_rel = flange_b.phi - flange_a.phi``; ``w_rel = der(phi_rel)``;
    ``a_rel.u = der(w_rel)`` [rad/s2]; ``0 = flange_a.tau``; ``0 = flange_a.tau +
    flange_b.tau``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Sensors/RelAccSensor.mo``.
    """

    phi_rel = Variable(unit="rad", description="relative angle flange_b.phi - flange_a.phi")
    w_rel = Variable(unit="rad/s", description="relative angular velocity der(phi_rel)")
    a_rel = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.phi_rel, self.flange_b.phi - self.flange_a.phi),
                Eq(self.w_rel, der(self.phi_rel)), Eq(self.a_rel.u, der(self.w_rel)),
                Eq(0, self.flange_a.tau)]


__all__ = ["Disc", "IdealGearR2T", "IdealPlanetary", "IdealRollingWheel", "MultiSensor",
           "PowerSensor", "RelAccSensor", "RelAngleSensor", "RelSpeedSensor",
           "RotationalToTranslational"]
