"""Planar vehicle components: wheel joints, air drag and the 1-D gears of a drive train (after
the ``VehicleComponents`` package of the Modelica PlanarMechanics library, dzimmer/PlanarMechanics,
and Multibody.jl ``src/PlanarMechanics/components.jl``).

Classes:

* :class:`IdealWheelJoint` -- ideal rolling on the x,y-plane (``Wheels/IdealWheelJoint.mo``);
* :class:`DryFrictionWheelJoint` -- slip-dependent dry friction
  (``Wheels/DryFrictionWheelJoint.mo``);
* :class:`SlipBasedWheelJoint` -- dry friction with speed-scaled adhesion/slide velocities and a
  normal-load input ``dynamicLoad`` (``Wheels/SlipBasedWheelJoint.mo``);
* :class:`AirResistanceLongitudinal` -- quadratic longitudinal air drag
  (``AirResistanceLongitudinal.mo``);
* :class:`IdealPlanetary` -- 1-D ideal planetary gear (MSL
  ``Rotational.Components.IdealPlanetary``, needed by the differential);
* :class:`DifferentialGear` -- open differential (``DifferentialGear.mo``).

Conventions (see :mod:`.interfaces`): ``frame_a`` flows are the cut force/torque acting *on* the
wheel, so the force the wheel applies to the vehicle is ``-(a.fx, a.fy)``. The wheel's 1-D
rotational ``flange_a`` (:class:`acausal.components.rotational.Flange`) carries the rolling angle
``phi_roll = flange_a.phi``; a positive rolling speed ``w_roll`` drives the wheel forward along its
driving direction ``e0`` (``v_long = radius*w_roll`` for rolling without slip). ``e0 = R(a.phi) e``
with ``e = r/|r|`` the driving direction at ``a.phi = 0``.

Parameter names follow Modelica PlanarMechanics (Multibody.jl uses the same names):
``radius``, ``r``, ``N``, ``vAdhesion``, ``vSlide``, ``mu_A``, ``mu_S``, ``vAdhesion_min``,
``vSlide_min``, ``sAdhesion``, ``sSlide`` (wheels); ``c_W``, ``area``, ``rho``, ``r`` (air drag);
``ratio`` (planetary); connectors ``frame_a``, ``flange_a``, ``dynamicLoad`` (its value is
``dynamicLoad.u``), ``sun``/``carrier``/``ring``, ``flange_b``/``flange_left``/``flange_right``;
variables ``phi_roll``, ``w_roll``, ``v_long``, ``v_lat``, ``v_slip_long``, ``v_slip_lat``,
``v_slip``, ``f``, ``f_long``, ``f_lat``, ``fN``, ``vAdhesion``, ``vSlide``, ``vAir``, ``fDrag``.
Differences: Modelica's frame torque ``t`` is ``tau`` here, and vector elements are 0-based
(Modelica ``v[1]`` is ``v[0]``). Modelica leaves most parameters without a default; the defaults
here are those of Multibody.jl where it has one (``radius = 0.1``, ``r = (1, 0)``), else the
Modelica start values (``c_W = 0.5``, ``area = 2``) or the values of the Modelica test examples.
Animation-only parameters (``animate``, ``width``, ``rRim``, ``zPosition``, ``color``, ...) and the
optional heat port (``useHeatPort``) are not modelled; the dissipated power is the variable
``lossPower``. The Modelica ``stateSelect`` parameter maps to ``state_priority`` of the variables
(override e.g. ``IdealWheelJoint(w_roll=Variable(state_priority=10))``).

**Roads with a grade.** These wheels roll on the model's plane seen from above: the plane *is*
the road, so a grade is not a geometry here but the weight's pull along the road. For a road
rising by the angle ``a`` towards the in-plane direction ``u`` (a unit vector), give the World
(or each body, ``g=...``) the in-plane part of gravity, ``World(g=9.80665*sin(a), n=-u)``, and
each wheel its share of the normal load ``m*9.80665*cos(a)`` in ``N`` (and in
``SlipBasedWheelJoint``'s ``dynamicLoad``). The side-view wheels of :mod:`.wheels` have a
``grade`` parameter instead (their plane is vertical and holds the road as a line).

**Regular at rest.** All friction formulations are written so that the residuals *and their
Jacobians* are finite at exactly zero speed and zero spin: the slip magnitude uses
:func:`_norm` (``sqrt`` guarded by a ``Piecewise`` whose derivative at the origin is 0 instead of
``0/0``), divisions are by ``v_slip >= 1e-4``, and ``max``/``abs`` have finite derivatives.
Wheels can therefore start from ``w = 0``, ``v = 0`` without a ``1e-10`` nudge.

The friction laws use :func:`acausal.library.friction.limit_S_triple` (Modelica
``limitByStriple``, inside ``noEvent``: the ``Piecewise`` branches generate no events).
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, connect, der
from acausal.library.friction import limit_S_triple

from ..blocks import RealInput
from ..rotational import Flange as RotFlange
from . import viewer_shapes
from .interfaces import Frame, rotation

__all__ = [
    "AirResistanceLongitudinal",
    "DifferentialGear",
    "DryFrictionWheelJoint",
    "IdealPlanetary",
    "IdealWheelJoint",
    "SlipBasedWheelJoint",
]

#: Regularisation added to the slip-velocity magnitude (Modelica: the literal ``0.0001``).
V_SLIP_EPS = 1.0e-4


def _norm(x, y):
    """``sqrt(x^2 + y^2)`` written as ``Piecewise((sqrt(q), q > 0), (0, True))``.

    Same value everywhere, but the derivative at ``x = y = 0`` evaluates to 0 instead of
    ``inf*0 = nan`` (CasADi ``if_else`` zeroes the unused branch in forward and reverse mode),
    so Newton/integrator Jacobians stay finite when a wheel starts exactly at rest.
    """
    q = x**2 + y**2
    return sp.Piecewise((sp.sqrt(q), q > 0), (0, True))


def _unit(r):
    """``e = r/|r|`` of a 2-vector parameter (Modelica ``normalizeWithAssert``)."""
    return r / sp.sqrt(r[0] ** 2 + r[1] ** 2)


class _WheelBase(Component):
    """Common part of the wheel joints (Modelica ``Wheels/BaseClasses/WheelBase`` +
    ``WheelInterfaces``): ``frame_a`` (planar), ``flange_a`` (1-D rotational, rolling axis),
    ``radius``, driving direction ``r``, and the kinematic variables

    ::

        e0 = R(a.phi) * r/|r|;  v = D((a.x, a.y))
        phi_roll = flange_a.phi;  w_roll = D(phi_roll)
        -f_long*radius = flange_a.tau;  a.tau = 0

    (the wheel transmits no torque about the vertical axis to the frame).
    """

    radius = Parameter(0.1, min=0.0, unit="m", description="wheel radius")
    r = Parameter([1.0, 0.0], unit="m",
                  description="driving direction of the wheel at frame_a.phi = 0 (normalised)")
    frame_a = Frame()
    visual_shapes = viewer_shapes.vehicle_wheel
    flange_a = RotFlange()
    e0 = Variable(shape=2, unit="1", description="driving direction resolved in the world frame")
    v = Variable(shape=2, unit="m/s", description="velocity D((a.x, a.y)) of the wheel centre")
    phi_roll = Variable(start=0.0, unit="rad", description="roll angle of the wheel "
                        "(= flange_a.phi)")
    w_roll = Variable(start=0.0, unit="rad/s", description="roll velocity D(phi_roll)")
    v_long = Variable(start=0.0, unit="m/s", description="velocity in driving direction")
    f_long = Variable(unit="N", description="longitudinal cut force (a.fx, a.fy).e0")
    lossPower = Variable(unit="W", description="power dissipated in the contact")

    def _base_equations(self):
        a = self.frame_a
        e0 = rotation(a.phi) * _unit(self.r)
        eqs = [Eq(self.e0[i], e0[i]) for i in range(2)]
        eqs += [Eq(self.v[0], der(a.x)), Eq(self.v[1], der(a.y)),
                Eq(self.phi_roll, self.flange_a.phi), Eq(self.w_roll, der(self.phi_roll)),
                Eq(-self.f_long * self.radius, self.flange_a.tau), Eq(a.tau, 0),
                Eq(a.fx * self.e0[0] + a.fy * self.e0[1], self.f_long)]
        return eqs


class IdealWheelJoint(_WheelBase):
    """Ideal rolling wheel on the x,y-plane: no lateral velocity, longitudinal velocity equals
    ``radius * w_roll``.

    Equations (in addition to :class:`_WheelBase`)::

        v = v_long * e0                     # 2 constraints: no lateral slip, no long. slip
        v_long = radius * w_roll
        a = D(v_long)
        lossPower = 0

    ``f_long = (a.fx, a.fy).e0`` is the longitudinal cut force on the wheel; the driving torque
    on the flange is ``-flange_a.tau = f_long*radius``. A positive torque on ``flange_a`` (e.g. a
    ConstantTorque) drives the wheel centre forward along ``e0``. The lateral force is whatever
    the constraint needs.

    Source: ``PlanarMechanics/VehicleComponents/Wheels/IdealWheelJoint.mo``;
    Modelica's ``stateSelect`` (on ``w_roll``
    and ``a``) maps to ``state_priority``. Viewer: a dark disc standing across ``r``.
    """

    a = Variable(start=0.0, unit="m/s2", description="acceleration D(v_long)")

    def equations(self):
        eqs = self._base_equations()
        eqs += [Eq(self.v[i], self.v_long * self.e0[i]) for i in range(2)]
        eqs += [Eq(self.v_long, self.radius * self.w_roll), Eq(self.a, der(self.v_long)),
                Eq(self.lossPower, 0)]
        return eqs


class _SlipWheel(_WheelBase):
    """Slip kinematics and friction force of the dry-friction wheels.

    ::

        v_long = v.e0;  v_lat = -v_x*e0_y + v_y*e0_x
        v_slip_long = v_long - radius*w_roll;  v_slip_lat = v_lat
        v_slip = sqrt(v_slip_long^2 + v_slip_lat^2) + 1e-4
        f = fN * limit_S_triple(vAdhesion, vSlide, mu_A, mu_S, v_slip)
        f_long = f*v_slip_long/v_slip;  f_lat = f*v_slip_lat/v_slip
        f_long = (a.fx, a.fy).e0;  f_lat = (a.fy, -a.fx).e0
        lossPower = f*v_slip

    ``f``, ``f_long``, ``f_lat`` have the sign of the slip (the force *resisting* it, the
    convention of :mod:`acausal.library.friction`): they are cut forces on the wheel, and the
    vehicle feels ``-f_long*e0 - f_lat*perp``. ``f_lat`` is along ``(-e0_y, e0_x)`` (``e0``
    rotated by +90 deg), the direction of ``v_lat``.
    """

    mu_A = Parameter(0.8, min=0.0, unit="1", description="friction coefficient at adhesion")
    mu_S = Parameter(0.4, min=0.0, unit="1", description="friction coefficient at sliding")
    v_lat = Variable(start=0.0, unit="m/s", description="velocity in lateral direction")
    v_slip_long = Variable(start=0.0, unit="m/s", description="longitudinal slip velocity")
    v_slip_lat = Variable(start=0.0, unit="m/s", description="lateral slip velocity")
    v_slip = Variable(start=V_SLIP_EPS, unit="m/s",
                      description="slip velocity magnitude (+1e-4 regularisation)")
    f = Variable(unit="N", description="friction force magnitude (sign of the slip)")
    f_lat = Variable(unit="N", description="lateral cut force")

    def _normal_force(self):
        raise NotImplementedError

    def _velocities(self):
        return self.vAdhesion, self.vSlide

    def _slip_equations(self):
        a, e0, v = self.frame_a, self.e0, self.v
        v_adh, v_sld = self._velocities()
        mu = limit_S_triple(v_adh, v_sld, self.mu_A, self.mu_S, self.v_slip)
        return [
            Eq(self.v_long, v[0] * e0[0] + v[1] * e0[1]),
            Eq(self.v_lat, -v[0] * e0[1] + v[1] * e0[0]),
            Eq(self.v_slip_lat, self.v_lat),
            Eq(self.v_slip_long, self.v_long - self.radius * self.w_roll),
            Eq(self.v_slip, _norm(self.v_slip_long, self.v_slip_lat) + V_SLIP_EPS),
            Eq(self.f, self._normal_force() * mu),
            Eq(self.f_long, self.f * self.v_slip_long / self.v_slip),
            Eq(self.f_lat, self.f * self.v_slip_lat / self.v_slip),
            Eq(self.f_lat, a.fy * e0[0] - a.fx * e0[1]),
            Eq(self.lossPower, self.f * self.v_slip),
        ]

    def equations(self):
        return self._base_equations() + self._slip_equations()


class DryFrictionWheelJoint(_SlipWheel):
    """Wheel with slip-dependent dry friction and a constant normal force ``N``.

    Equations: :class:`_WheelBase` and :class:`_SlipWheel` with
    ``f = N * limit_S_triple(vAdhesion, vSlide, mu_A, mu_S, v_slip)``: the friction coefficient
    rises from 0 to ``mu_A`` at slip ``vAdhesion`` and falls to ``mu_S`` from ``vSlide`` on.

    Parameters (Modelica names): ``radius``, ``r``, ``N`` [N], ``vAdhesion``, ``vSlide`` [m/s],
    ``mu_A``, ``mu_S``. Defaults are those of ``Examples/TestDryFrictionWheel.mo`` (except
    ``radius``, see the module docstring).

    Source: ``PlanarMechanics/VehicleComponents/Wheels/DryFrictionWheelJoint.mo``. Viewer: as
    IdealWheelJoint.
    """

    N = Parameter(100.0, min=0.0, unit="N", description="normal force")
    vAdhesion = Parameter(0.1, min=0.0, unit="m/s", description="adhesion velocity (peak mu_A)")
    vSlide = Parameter(0.3, min=0.0, unit="m/s", description="sliding velocity (mu_S from here on)")

    def _normal_force(self):
        return self.N


class SlipBasedWheelJoint(_SlipWheel):
    """Wheel with slip-based friction: the adhesion and sliding velocities scale with the
    rolling speed, and the normal load has a dynamic part given by the input ``dynamicLoad``.

    Equations: :class:`_WheelBase` and :class:`_SlipWheel` with::

        vAdhesion = max(sAdhesion*|radius*w_roll|, vAdhesion_min)
        vSlide    = max(sSlide*|radius*w_roll|,    vSlide_min)
        fN = max(0, N + dynamicLoad.u)
        f  = fN * limit_S_triple(vAdhesion, vSlide, mu_A, mu_S, v_slip)

    ``dynamicLoad`` is a required signal connector
    (:class:`acausal.components.blocks.RealInput`, value ``dynamicLoad.u`` [N]; Modelica
    ``RealInput dynamicLoad``): connect e.g. a ``blocks.Constant(k=0)``.

    Parameters (Modelica names): ``radius``, ``r``, ``N`` [N] (base normal load),
    ``vAdhesion_min``, ``vSlide_min`` [m/s], ``sAdhesion``, ``sSlide`` [-] (slippage), ``mu_A``,
    ``mu_S``. Defaults are those of ``Examples/TestSlipBasedWheel.mo`` (except ``radius``).

    Source: ``PlanarMechanics/VehicleComponents/Wheels/SlipBasedWheelJoint.mo``; Multibody.jl
    ``SlipBasedWheelJoint``. Unlike the
    Multibody.jl version it needs no ``w = 1e-10`` start nudge (see the module docstring).
    Viewer: as IdealWheelJoint.
    """

    N = Parameter(100.0, min=0.0, unit="N", description="base normal load")
    vAdhesion_min = Parameter(0.05, min=0.0, unit="m/s", description="minimum adhesion velocity")
    vSlide_min = Parameter(0.15, min=0.0, unit="m/s", description="minimum sliding velocity")
    sAdhesion = Parameter(0.04, min=0.0, unit="1", description="adhesion slippage")
    sSlide = Parameter(0.12, min=0.0, unit="1", description="sliding slippage")
    dynamicLoad = RealInput(required=True)
    fN = Variable(unit="N", description="normal load max(0, N + dynamicLoad)")
    vAdhesion = Variable(unit="m/s", description="adhesion velocity")
    vSlide = Variable(unit="m/s", description="sliding velocity")

    def _normal_force(self):
        return self.fN

    def equations(self):
        v_roll = sp.Abs(self.radius * self.w_roll)
        return self._base_equations() + self._slip_equations() + [
            Eq(self.vAdhesion, sp.Max(self.sAdhesion * v_roll, self.vAdhesion_min)),
            Eq(self.vSlide, sp.Max(self.sSlide * v_roll, self.vSlide_min)),
            Eq(self.fN, sp.Max(0, self.N + self.dynamicLoad.u)),
        ]


class AirResistanceLongitudinal(Component):
    """Quadratic air drag acting along the vehicle's longitudinal axis (only when driving
    forward).

    Equations::

        R = R(a.phi) * [[e1, -e2], [e2, e1]]        (e = r/|r|: driving direction at phi = 0)
        vAir = R^T * (-D((a.x, a.y)))              (air velocity relative to the vehicle, wind 0)
        fDrag = 0.5*area*rho*vAir_1^2*c_W
        f_long = 0 if vAir_1 > -v_eps else fDrag   (noEvent)
        (a.fx, a.fy) = R * (f_long, 0);  a.tau = 0

    ``vAir_1 < 0`` when the vehicle moves forward; the cut force on the element is then
    ``+fDrag`` along the driving direction, so the vehicle is decelerated by ``fDrag``. Driving
    backwards (``vAir_1 > -v_eps``) gives no drag, as in Modelica.

    Parameters (Modelica names): ``c_W`` (Modelica start 0.5), ``area`` [m2] (start 2), ``rho``
    [kg/m3] (1.18), ``r`` (driving direction, (1, 0)), ``v_eps`` [m/s] (a Modelica constant,
    1e-3).

    Source: ``PlanarMechanics/VehicleComponents/AirResistanceLongitudinal.mo`` (v1.6.0).
    """

    c_W = Parameter(0.5, min=0.0, unit="1", description="drag coefficient")
    area = Parameter(2.0, min=0.0, unit="m2", description="frontal cross area of the vehicle")
    rho = Parameter(1.18, min=0.0, unit="kg/m3", description="air density")
    r = Parameter([1.0, 0.0], unit="m",
                  description="driving direction at frame_a.phi = 0 (normalised)")
    v_eps = Parameter(1.0e-3, min=0.0, unit="m/s", description="minimum forward speed with drag")
    frame_a = Frame()
    vAir = Variable(shape=2, unit="m/s", description="air velocity relative to the vehicle, "
                    "resolved in the driving frame")
    fDrag = Variable(unit="N", description="scalar drag force")
    f_long = Variable(unit="N", description="longitudinal cut force (driving frame)")

    def equations(self):
        a = self.frame_a
        e = _unit(self.r)
        rot = rotation(a.phi) * sp.Matrix([[e[0], -e[1]], [e[1], e[0]]])
        v_air = rot.T * sp.Matrix([-der(a.x), -der(a.y)])
        force = rot * sp.Matrix([self.f_long, 0])
        return [Eq(self.vAir[0], v_air[0]), Eq(self.vAir[1], v_air[1]),
                Eq(self.fDrag, self.area * self.rho * self.vAir[0] ** 2 * self.c_W / 2),
                Eq(self.f_long, sp.Piecewise((0, self.vAir[0] > -self.v_eps),
                                             (self.fDrag, True))),
                Eq(a.fx, force[0]), Eq(a.fy, force[1]), Eq(a.tau, 0)]


class IdealPlanetary(Component):
    """Ideal planetary gear box (sun, carrier, ring; no inertia, no losses).

    Equations::

        (1 + ratio)*carrier.phi = sun.phi + ratio*ring.phi
        ring.tau = ratio*sun.tau
        carrier.tau = -(1 + ratio)*sun.tau

    ``ratio`` = number of ring teeth / number of sun teeth (MSL default 100/50 = 2). The torque
    balance ``sun.tau + carrier.tau + ring.tau = 0`` and the power balance
    ``sum(tau_i * w_i) = 0`` follow.

    Source: MSL ``Modelica.Mechanics.Rotational.Components.IdealPlanetary``; Multibody.jl
    ``IdealPlanetary(; ratio=2)``.
    """

    ratio = Parameter(2.0, unit="1", description="number of ring teeth / sun teeth")
    sun = RotFlange()
    carrier = RotFlange()
    ring = RotFlange()

    def equations(self):
        k = self.ratio
        return [Eq((1 + k) * self.carrier.phi, self.sun.phi + k * self.ring.phi),
                Eq(self.ring.tau, k * self.sun.tau),
                Eq(self.carrier.tau, -(1 + k) * self.sun.tau)]


class DifferentialGear(Component):
    """Open differential: the input ``flange_b`` drives ``flange_left`` and ``flange_right``
    with equal torques.

    It is an :class:`IdealPlanetary` with ``ratio = -2`` wired ``flange_b -> ring``,
    ``sun -> flange_left``, ``carrier -> flange_right``, hence::

        flange_b.phi = (flange_left.phi + flange_right.phi)/2
        flange_left.tau = flange_right.tau = -flange_b.tau/2

    A driving torque ``T`` on ``flange_b`` gives ``T/2`` to each side.

    Source: ``PlanarMechanics/VehicleComponents/DifferentialGear.mo``.
    """

    flange_b = RotFlange()
    flange_left = RotFlange()
    flange_right = RotFlange()
    idealPlanetary = IdealPlanetary(ratio=-2.0)

    def connections(self):
        return [connect(self.flange_b, self.idealPlanetary.ring),
                connect(self.idealPlanetary.carrier, self.flange_right),
                connect(self.idealPlanetary.sun, self.flange_left)]
