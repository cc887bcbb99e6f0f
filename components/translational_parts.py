"""1-D translational sensors, speed-dependent forces, the eddy-current brake, the rolling
resistance and a vehicle (after ``Modelica.Mechanics.Translational.Sensors``, ``.Sources`` and
``.Components`` of the Modelica Standard Library (MSL) 4.0).

Sensors: :class:`PositionSensor`, :class:`SpeedSensor`, :class:`AccSensor`,
:class:`ForceSensor`, :class:`PowerSensor`, :class:`MultiSensor`, :class:`RelPositionSensor`,
:class:`RelSpeedSensor`, :class:`RelAccSensor`; their outputs are
:class:`acausal.components.blocks.RealOutput` connectors (value ``<output>.u``).
Forces: :class:`QuadraticSpeedDependentForce`, :class:`EddyCurrentForce` (with the optional
heat port), :class:`RollingResistance`. :class:`Vehicle`: mass, drive-train inertia, wheel,
air drag, rolling and grade resistance.

Connectors are :class:`acausal.components.translational.Flange` (``s`` [m], ``f`` [N], the
force into the component); the base parts (mass, springs, sources) are in
:mod:`acausal.components.translational`. 1-D parts have no body in space, so they have no
viewer shape (the viewer draws frames of multibody and planar models).
"""

from __future__ import annotations

import math

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der, event_if
from acausal.errors import ParameterError

from . import rotational, translational_shapes
from .blocks import RealInput, RealOutput
from .thermal import ConditionalHeatPortWithT
from .translational import Flange, OptionalSupport

#: Modelica.Constants.g_n [m/s2].
G_N = 9.80665
#: Modelica.Constants.eps (MSL 4.0), the smallest nominal speed.
EPS = 1e-15


# ----------------------------------------------------------------------------------------------
# Sensors
# ----------------------------------------------------------------------------------------------


class PositionSensor(Component):
    """Ideal sensor of the absolute position of ``flange`` (MSL
    ``Translational.Sensors.PositionSensor``); it takes no force.

    Equations: ``s.u = flange.s`` [m]; ``flange.f = 0``.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/PositionSensor.mo``.
    """

    flange = Flange()
    s = RealOutput()

    def equations(self):
        return [Eq(self.s.u, self.flange.s), Eq(self.flange.f, 0)]


class SpeedSensor(Component):
    """Ideal sensor of the absolute velocity of ``flange`` (MSL
    ``Translational.Sensors.SpeedSensor``); it takes no force.

    Equations: ``v.u = der(flange.s)`` [m/s]; ``flange.f = 0``.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/SpeedSensor.mo``.
    """

    flange = Flange()
    v = RealOutput()

    def equations(self):
        return [Eq(self.v.u, der(self.flange.s)), Eq(self.flange.f, 0)]


class AccSensor(Component):
    """Ideal sensor of the absolute acceleration of ``flange`` (MSL
    ``Translational.Sensors.AccSensor``); it takes no force.

    Equations: ``v = der(flange.s)``; ``a.u = der(v)`` [m/s2]; ``flange.f = 0``.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/AccSensor.mo``.
    """

    flange = Flange()
    a = RealOutput()
    v = Variable(unit="m/s", description="absolute velocity of flange")

    def equations(self):
        return [Eq(self.v, der(self.flange.s)), Eq(self.a.u, der(self.v)), Eq(self.flange.f, 0)]


class _RelativeSensor(Component):
    """Two flanges of a sensor (MSL ``Translational.Interfaces.PartialRelativeSensor``):
    ``0 = flange_a.f + flange_b.f``."""

    flange_a = Flange()
    flange_b = Flange()

    def equations(self):
        return [Eq(0, self.flange_a.f + self.flange_b.f)]


class ForceSensor(_RelativeSensor):
    """Ideal sensor of the force passed from ``flange_a`` to ``flange_b`` (MSL
    ``Translational.Sensors.ForceSensor``): a rigid massless rod of length 0.

    Equations: ``flange_a.s = flange_b.s``; ``0 = flange_a.f + flange_b.f``;
    ``f.u = flange_a.f`` [N].

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/ForceSensor.mo``.
    """

    f = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.flange_a.s, self.flange_b.s),
                Eq(self.f.u, self.flange_a.f)]


class PowerSensor(_RelativeSensor):
    """Ideal sensor of the power passed from ``flange_a`` to ``flange_b`` (MSL
    ``Translational.Sensors.PowerSensor``).

    Equations: ``flange_a.s = flange_b.s``; ``0 = flange_a.f + flange_b.f``;
    ``power.u = flange_a.f der(flange_a.s)`` [W].

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/PowerSensor.mo``.
    """

    power = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.flange_a.s, self.flange_b.s),
                Eq(self.power.u, self.flange_a.f * der(self.flange_a.s))]


class MultiSensor(_RelativeSensor):
    """Ideal sensor of the force and the power passed from ``flange_a`` to ``flange_b`` and of
    the absolute velocity (MSL ``Translational.Sensors.MultiSensor``).

    Equations::

        flange_a.s = flange_b.s;  0 = flange_a.f + flange_b.f
        f.u = flange_a.f                  [N]
        v.u = der(flange_a.s)             [m/s]
        power.u = f.u v.u                 [W]

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/MultiSensor.mo``.
    """

    power = RealOutput()
    f = RealOutput()
    v = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.flange_a.s, self.flange_b.s),
                Eq(self.f.u, self.flange_a.f), Eq(self.v.u, der(self.flange_a.s)),
                Eq(self.power.u, self.f.u * self.v.u)]


class RelPositionSensor(_RelativeSensor):
    """Ideal sensor of the relative position of two flanges (MSL
    ``Translational.Sensors.RelPositionSensor``); it takes no force.

    Equations: ``s_rel.u = flange_b.s - flange_a.s`` [m]; ``0 = flange_a.f``;
    ``0 = flange_a.f + flange_b.f``.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/RelPositionSensor.mo``.
    """

    s_rel = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.s_rel.u, self.flange_b.s - self.flange_a.s),
                Eq(0, self.flange_a.f)]


class RelSpeedSensor(_RelativeSensor):
    """Ideal sensor of the relative velocity of two flanges (MSL
    ``Translational.Sensors.RelSpeedSensor``); it takes no force.

    Equations: ``s_rel = flange_b.s - flange_a.s``; ``v_rel.u = der(s_rel)`` [m/s];
    ``0 = flange_a.f``; ``0 = flange_a.f + flange_b.f``.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/RelSpeedSensor.mo``.
    """

    s_rel = Variable(unit="m", description="relative position flange_b.s - flange_a.s")
    v_rel = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.s_rel, self.flange_b.s - self.flange_a.s),
                Eq(self.v_rel.u, der(self.s_rel)), Eq(0, self.flange_a.f)]


class RelAccSensor(_RelativeSensor):
    """Ideal sensor of the relative acceleration of two flanges (MSL
    ``Translational.Sensors.RelAccSensor``); it takes no force.

    Equations: ``s_rel = flange_b.s - flange_a.s``; ``v_rel = der(s_rel)``;
    ``a_rel.u = der(v_rel)`` [m/s2]; ``0 = flange_a.f``; ``0 = flange_a.f + flange_b.f``.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sensors/RelAccSensor.mo``.
    """

    s_rel = Variable(unit="m", description="relative position flange_b.s - flange_a.s")
    v_rel = Variable(unit="m/s", description="relative velocity der(s_rel)")
    a_rel = RealOutput()

    def equations(self):
        return [*super().equations(), Eq(self.s_rel, self.flange_b.s - self.flange_a.s),
                Eq(self.v_rel, der(self.s_rel)), Eq(self.a_rel.u, der(self.v_rel)),
                Eq(0, self.flange_a.f)]


# ----------------------------------------------------------------------------------------------
# Forces
# ----------------------------------------------------------------------------------------------


class _PartialForce(OptionalSupport):
    """A force element on ``flange`` against its support (MSL
    ``Translational.Interfaces.PartialForce``): ``s = flange.s - s_support``, ``v = der(s)``,
    ``f = flange.f`` (the force the element takes; it pushes the flange with ``-f``)."""

    flange = Flange()
    s = Variable(unit="m", description="distance between flange and support")
    v = Variable(unit="m/s", description="velocity of flange with respect to support der(s)")
    f = Variable(unit="N", description="force at flange (= flange.f; the element pushes the "
                 "flange with -f)")

    def equations(self):
        return [Eq(self.s, self.flange.s - self.s_support), Eq(self.v, der(self.s)),
                Eq(self.f, self.flange.f), *self.support_equations(self.flange.f)]


class QuadraticSpeedDependentForce(_PartialForce):
    """Force quadratic in the speed of ``flange`` (against its support), e.g. air drag (MSL
    ``Translational.Sources.QuadraticSpeedDependentForce``).

    Equations (with ``s``, ``v``, ``f`` of the partial force, see :class:`_PartialForce`)::

        ForceDirection:      f = -f_nominal (v/v_nominal)^2
        not ForceDirection:  f = -f_nominal v |v| / v_nominal^2

    ``f_nominal`` < 0 is a load that brakes a motion along +s. The second law is continuously
    differentiable (MSL's ``smooth(1, ...)``), written with ``Abs`` without an event.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sources/QuadraticSpeedDependentForce.mo``.
    """

    f_nominal = Parameter(1.0, unit="N", description="nominal force at v_nominal (< 0: a load "
                          "braking a motion along +s)")
    ForceDirection = Parameter(True, description="same direction of the force in both "
                               "directions of motion")
    v_nominal = Parameter(1.0, min=EPS, unit="m/s", description="nominal speed (> 0)")

    def equations(self):
        ratio = self.v / self.v_nominal
        law = ratio**2 if self.ForceDirection else ratio * sp.Abs(ratio)
        return [*super().equations(), Eq(self.f, -self.f_nominal * law)]


class EddyCurrentForce(_PartialForce, ConditionalHeatPortWithT):
    """Eddy-current brake: a braking force that rises linearly with the speed, peaks at
    ``f_nominal`` at the nominal speed and falls off above it; the resistance of the conductor,
    and with it the nominal speed, rises with its temperature (MSL
    ``Translational.Sources.EddyCurrentForce``).

    Equations (with ``s``, ``v``, ``f`` of the partial force, see :class:`_PartialForce`)::

        alpha_TRef = alpha20 / (1 + alpha20 (TRef - 293.15 K))
        v_normalized = v / (v_nominal (1 + alpha_TRef (TheatPort - TRef)))
        f = 2 f_nominal v_normalized / (1 + v_normalized^2)
        lossPower = f v
        heatPort.Q_flow = -lossPower;  TheatPort = heatPort.T     (useHeatPort=True)
        TheatPort = T                                            (useHeatPort=False)

    The element takes ``f`` (``f > 0`` for ``v > 0``): it brakes the flange. Copper's
    ``alpha20`` is 3.92e-3 1/K (MSL ``Electrical.Machines.Thermal.Constants.alpha20Copper``).

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sources/EddyCurrentForce.mo`` (with
    ``Electrical.Machines.Thermal.linearTemperatureDependency`` and ``convertAlpha``,
    ``Thermal.HeatTransfer.Interfaces.PartialElementaryConditionalHeatPort``).
    """

    f_nominal = Parameter(1.0, unit="N", description="maximum force (always braking)")
    v_nominal = Parameter(1.0, min=EPS, unit="m/s", description="nominal speed (the force "
                          "peaks there) at the reference temperature")
    TRef = Parameter(293.15, unit="K", description="reference temperature")
    alpha20 = Parameter(0.0, unit="1/K", description="temperature coefficient of the "
                        "conductor's resistance at 20 degC")
    v_normalized = Variable(unit="1", description="relative speed v/v_nominal at the "
                            "element's temperature")

    def equations(self):
        alpha_ref = self.alpha20 / (1 + self.alpha20 * (self.TRef - 293.15))
        return [*super().equations(),
                Eq(self.v_normalized,
                   self.v / (self.v_nominal * (1 + alpha_ref * (self.TheatPort - self.TRef)))),
                Eq(self.f, 2 * self.f_nominal * self.v_normalized / (1 + self.v_normalized**2)),
                Eq(self.lossPower, self.f * self.v), *self.heat_port_equations()]


#: RollingResistance.reg: MSL's Modelica.Blocks.Types.Regularization.
REGULARIZATIONS = ("Exp", "Sine", "Linear", "CoSine")


def regularized_sign(v, v0, reg: str):
    """MSL ``RollingResistance``'s regularised ``sign(v)`` below ``|v| = v0``.

    ``Exp``: ``2/(1 + exp(-v/(0.01 v0))) - 1`` (smooth, no event); ``Sine``:
    ``sin(pi/2 v/v0)`` below v0 (MSL's ``smooth(1, ...)``: no event); ``Linear``: ``v/v0``;
    ``CoSine``: ``sign(v) (1 - cos(pi/2 v/v0))``; at and above v0, ``sign(v)``. The switches
    of ``Linear`` and ``CoSine`` are events, as MSL writes them (an ``if`` on ``abs(v) >= v0``
    outside ``noEvent``).
    """
    if reg == "Exp":
        return 2 / (1 + sp.exp(-v / (0.01 * v0))) - 1
    outside = sp.Abs(v) >= v0
    if reg == "Sine":
        return sp.Piecewise((sp.sign(v), outside), (sp.sin(sp.pi / 2 * v / v0), True))
    if reg == "Linear":
        return event_if(outside, sp.sign(v), v / v0)
    return event_if(outside, sp.sign(v), sp.sign(v) * (1 - sp.cos(sp.pi / 2 * v / v0)))


def _check_regularization(name: str, reg: object) -> None:
    if reg not in REGULARIZATIONS:
        raise ParameterError(f"{name}: reg must be one of {', '.join(REGULARIZATIONS)} (MSL "
                             f"Modelica.Blocks.Types.Regularization), got {reg!r}.")


class RollingResistance(_PartialForce):
    """Rolling resistance of a wheel: ``Cr`` times the normal load, with the sign of the speed
    regularised below ``v0`` (MSL ``Translational.Components.RollingResistance``).

    Equations (with ``s``, ``v``, ``f`` of the partial force, see :class:`_PartialForce`)::

        f_nominal = -Cr fWeight cos(atan(inclination))
        f = -f_nominal regularized_sign(v, v0, reg)

    ``Cr`` is ``CrConstant`` or, with ``useCrInput``, the signal ``cr.u``; ``inclination``
    (tan of the road's angle) is ``inclinationConstant`` or, with ``useInclinationInput``, the
    signal ``inclination.u``. ``reg`` (structural): ``"Exp"`` (default), ``"Sine"``,
    ``"Linear"`` or ``"CoSine"``, see :func:`regularized_sign`.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/RollingResistance.mo``.
    """

    fWeight = Parameter(0.0, unit="N", description="wheel load due to gravity")
    useCrInput = Parameter(False, description="take Cr from the signal input cr")
    CrConstant = Parameter(0.01, min=0.0, unit="1", description="constant rolling resistance "
                           "coefficient")
    useInclinationInput = Parameter(False, description="take the inclination from the signal "
                                    "input inclination")
    inclinationConstant = Parameter(0.0, unit="1", description="constant inclination = "
                                    "tan(angle)")
    reg = Parameter("Exp", description="regularisation of sign(v): 'Exp', 'Sine', 'Linear' or "
                    "'CoSine' (MSL Modelica.Blocks.Types.Regularization)")
    v0 = Parameter(0.1, min=EPS, unit="m/s", description="regularisation below this speed")
    f_nominal = Variable(unit="N", description="nominal rolling resistance without "
                         "regularisation (<= 0)")

    def __init__(self, **overrides):
        _check_regularization("RollingResistance", overrides.get("reg", "Exp"))
        super().__init__(**overrides)
        if overrides.get("useCrInput", False):
            self.cr = RealInput(required=True)
        if overrides.get("useInclinationInput", False):
            self.inclination = RealInput(required=True)

    def equations(self):
        cr = self.cr.u if self.useCrInput else self.CrConstant
        slope = self.inclination.u if self.useInclinationInput else self.inclinationConstant
        return [*super().equations(),
                Eq(self.f_nominal, -cr * self.fWeight * sp.cos(sp.atan(slope))),
                Eq(self.f, -self.f_nominal * regularized_sign(self.v, self.v0, self.reg))]


# ----------------------------------------------------------------------------------------------
# Vehicle
# ----------------------------------------------------------------------------------------------


class Vehicle(Component):
    """A vehicle driving on a road: mass, drive-train inertia, ideal rolling wheel, air drag,
    rolling resistance and the resistance of the grade (MSL 4.0
    ``Translational.Components.Vehicle``).

    The drive torque acts on ``flangeR`` (rotational, the wheel axle behind the inertia ``J``);
    ``flangeT`` (translational) is the vehicle's body, e.g. for a trailer. Equations::

        s = flangeT.s;  v = der(s);  a = der(v)
        phi = flangeR.phi;  w = der(phi);  phi R = s                (rolling without slip)
        fWheel = (flangeR.tau - J der(w)) / R                       (traction of the wheel)
        m a = fWheel + flangeT.f - fDrag - fRoll - fGrav
        fDrag = Cd A rho/2 (v - vWind)|v - vWind|
        fRoll = Cr m g cos(atan(inclination)) * regularized_sign(v, vReg, "Linear")
        fGrav = m g sin(atan(inclination))

    ``Cr``, ``inclination`` and the wind speed are the constants ``CrConstant``,
    ``inclinationConstant``, ``vWindConstant`` or, with ``useCrInput``,
    ``useInclinationInput``, ``useWindInput``, the signal inputs ``cr``, ``inclination``,
    ``vWind`` [m/s]. The wind's speed reaches the drag through MSL's ``Sources.Speed`` with its
    default first-order filter (``exact=false``, ``f_crit`` = 50 Hz), started at the input's
    value: ``der(v_wind) = 2 pi 50 (vWind - v_wind)``; with a constant wind, ``v_wind =
    vWindConstant``. The linear regularisation of the rolling resistance switches at
    ``|v| = vReg`` (an event, as in MSL). ``fDrag``, ``fRoll``, ``fGrav`` are the resistances
    (positive against +s); MSL's parts give ``fDrag.f``, ``fRoll.f`` and ``-fGrav.f``.

    MSL builds the vehicle from parts (``Mass``, ``Inertia``, ``IdealRollingWheel``,
    ``QuadraticSpeedDependentForce``, ``RollingResistance``, ``Force``, ``Speed`` and blocks);
    here their equations are written out in one component, so that every numeric parameter can
    be changed with ``params=`` (the wind speed's filter state, whose position MSL fixes at 0,
    has no effect on the forces and is left out).

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/Vehicle.mo``.
    """

    m = Parameter(1.0, min=0.0, unit="kg", description="total mass of the vehicle")
    g = Parameter(G_N, min=0.0, unit="m/s2", description="constant gravity acceleration")
    J = Parameter(0.0, min=0.0, unit="kg.m2", description="total rotational inertia of the "
                  "drive train (at the wheel)")
    R = Parameter(0.3, min=0.0, min_exclusive=True, unit="m", description="wheel radius")
    A = Parameter(1.0, min=0.0, unit="m2", description="cross section of the vehicle")
    Cd = Parameter(0.5, min=0.0, unit="1", description="drag resistance coefficient")
    rho = Parameter(1.2, min=0.0, unit="kg/m3", description="density of air")
    useWindInput = Parameter(False, description="take the wind speed from the signal input "
                             "vWind")
    vWindConstant = Parameter(0.0, unit="m/s", description="constant wind velocity (along +s)")
    useCrInput = Parameter(False, description="take Cr from the signal input cr")
    CrConstant = Parameter(0.015, min=0.0, unit="1", description="constant rolling resistance "
                           "coefficient")
    vReg = Parameter(1e-3, min=EPS, unit="m/s", description="velocity for the regularisation "
                     "of the rolling resistance around 0")
    useInclinationInput = Parameter(False, description="take the inclination from the signal "
                                    "input inclination")
    inclinationConstant = Parameter(0.0, unit="1", description="constant inclination = "
                                    "tan(angle)")
    flangeT = Flange()
    flangeR = rotational.Flange()
    s = Variable(start=0.0, unit="m", description="position of the vehicle", state_priority=1)
    v = Variable(start=0.0, unit="m/s", description="velocity of the vehicle", state_priority=1)
    a = Variable(unit="m/s2", description="acceleration of the vehicle")
    phi = Variable(unit="rad", description="angle of the wheel (flangeR.phi)")
    w = Variable(unit="rad/s", description="angular velocity of the wheel der(phi)")
    fWheel = Variable(unit="N", description="traction force of the wheel on the vehicle")
    fDrag = Variable(unit="N", description="air drag (positive against +s)")
    fRoll = Variable(unit="N", description="rolling resistance (positive against +s)")
    fGrav = Variable(unit="N", description="grade resistance m g sin(atan(inclination))")
    v_wind = Variable(unit="m/s", description="wind velocity seen by the drag (filtered input)")

    visual_shapes = translational_shapes.vehicle

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("useInclinationInput", False):
            self.inclination = RealInput(required=True)
        if overrides.get("useCrInput", False):
            self.cr = RealInput(required=True)
        if overrides.get("useWindInput", False):
            self.vWind = RealInput(required=True)

    def equations(self):
        slope = self.inclination.u if self.useInclinationInput else self.inclinationConstant
        cr = self.cr.u if self.useCrInput else self.CrConstant
        v_rel = self.v - self.v_wind
        weight = self.m * self.g
        if self.useWindInput:
            wind = Eq(der(self.v_wind), 2 * math.pi * 50.0 * (self.vWind.u - self.v_wind))
        else:
            wind = Eq(self.v_wind, self.vWindConstant)
        return [Eq(self.s, self.flangeT.s), Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.phi, self.flangeR.phi), Eq(der(self.phi), self.w),
                Eq(self.phi * self.R, self.s),
                Eq(self.fWheel * self.R, self.flangeR.tau - self.J * der(self.w)),
                Eq(self.m * self.a,
                   self.fWheel + self.flangeT.f - self.fDrag - self.fRoll - self.fGrav),
                wind,
                Eq(self.fDrag, self.Cd * self.A * self.rho / 2 * v_rel * sp.Abs(v_rel)),
                Eq(self.fRoll, cr * weight * sp.cos(sp.atan(slope))
                   * regularized_sign(self.v, self.vReg, "Linear")),
                Eq(self.fGrav, weight * sp.sin(sp.atan(slope)))]

    def initial_equations(self):
        # MSL's Sources.Speed (exact=false) starts its filter at the input's value
        return [Eq(self.v_wind, self.vWind.u)] if self.useWindInput else []


__all__ = ["AccSensor", "EddyCurrentForce", "ForceSensor", "MultiSensor", "PositionSensor",
           "PowerSensor", "QuadraticSpeedDependentForce", "REGULARIZATIONS", "RelAccSensor",
           "RelPositionSensor", "RelSpeedSensor", "RollingResistance", "SpeedSensor", "Vehicle",
           "regularized_sign"]
