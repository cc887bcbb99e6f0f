"""Planar wheel joints that roll (or slip) on the world x axis.

A wheel joint has a single frame ``frame_a`` placed at the wheel centre (attach a :class:`Body`
that carries the wheel mass and inertia). The ground is the line ``y = 0``; the joint holds the
centre at ``y = radius`` and transmits the contact force to the frame.

* :class:`IdealRolling` -- rolling without slip (Modelica ``Joints/IdealRolling.mo``), a
  non-holonomic (velocity-level) constraint;
* :class:`DryFrictionBasedRolling` -- slipping wheel with a dry-friction law
  (Modelica ``Joints/DryFrictionBasedRolling.mo``);
* :class:`OneDOFRollingWheelJoint` -- rolling without slip with a position-level constraint
  (Multibody.jl ``OneDOFRollingWheelJoint``);
* :class:`OneDOFSlippingWheelJoint` -- slipping wheel with slip-dependent adhesion/sliding
  thresholds (Multibody.jl / Dyad ``OneDOFSlippingWheelJoint``).

The vehicle wheels of :mod:`.vehicle` (``IdealWheelJoint``, ``DryFrictionWheelJoint``,
``SlipBasedWheelJoint``, ``DifferentialGear``, ``AirResistanceLongitudinal``, ...) are
re-exported here, so all wheels can be imported from this module.

Conventions (those of the Modelica PlanarMechanics library): the frame's potentials are world
resolved, ``phi`` is CCW positive, so a wheel that spins CCW (``w > 0``) rolls towards ``-x``
(``vx = -w*R``). The flows ``frame_a.fx, fy, tau`` are the cut force/torque acting *on the joint*;
the force the ground applies to the wheel is their negative (``-frame_a.fx``, ...). With a body of
mass ``m`` on the wheel at rest, ``frame_a.fy = -m*g`` (the normal force on the wheel is
``+m*g``).

The slip laws are regular at rest (zero speed and zero spin): they use
:func:`acausal.library.friction.limit_S_triple`, which is odd, C1 and linear around zero slip
(slope ``1.5*mu_A/vAdhesion``), and divide only by quantities bounded away from zero.

Notation: ``a`` = frame_a, ``D()`` = time derivative, ``S3(x_max, x_sat, y_max, y_sat, x)`` =
``limit_S_triple``.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der
from acausal.library.friction import limit_S_triple

from . import viewer_shapes
from .interfaces import Frame

__all__ = ["DryFrictionBasedRolling", "IdealRolling", "OneDOFRollingWheelJoint",
           "OneDOFSlippingWheelJoint"]


class IdealRolling(Component):
    """Wheel of radius ``R`` rolling without slip on the x axis (no rolling resistance).

    Equations::

        x = a.x;  phi = a.phi;  w = D(phi);  z = D(w);  vx = D(x)
        a.y = R                   (holonomic: the centre is at height R)
        vx = -w*R                 (non-holonomic rolling constraint; CCW spin rolls to -x)
        a.fx*R = a.tau            (the contact force acts at the contact point, R below the centre)

    ``x``, ``phi`` and ``w`` are the joint coordinates (``state_priority = 10``); give them fixed
    start values for the initial state (``vx`` follows from ``w``).

    Source: ``PlanarMechanics/Joints/IdealRolling.mo`` (dzimmer/PlanarMechanics). Viewer: a red
    disc of radius R with two grey spokes.
    """

    R = Parameter(1.0, min=0.0, unit="m", description="wheel radius")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_R
    x = Variable(start=0.0, unit="m", description="x position of the wheel centre",
                 state_priority=10)
    phi = Variable(start=0.0, unit="rad", description="wheel angle (CCW positive)",
                   state_priority=10)
    w = Variable(start=0.0, unit="rad/s", description="wheel angular velocity D(phi)",
                 state_priority=10)
    z = Variable(unit="rad/s2", description="wheel angular acceleration D(w)")
    vx = Variable(start=0.0, unit="m/s", description="velocity of the wheel centre D(x)")

    def equations(self):
        a = self.frame_a
        return [Eq(self.x, a.x), Eq(self.phi, a.phi), Eq(der(self.phi), self.w),
                Eq(der(self.w), self.z), Eq(der(self.x), self.vx),
                Eq(a.y, self.R), Eq(self.vx, -self.w * self.R), Eq(a.fx * self.R, a.tau)]


class DryFrictionBasedRolling(Component):
    """Wheel of radius ``R`` on the x axis with a dry-friction (adhesion/sliding) contact.

    Equations::

        x = a.x;  phi = a.phi;  w = D(phi);  z = D(w);  vx = D(x)
        a.y = R
        v_slip = vx + w*R                          (velocity of the contact point)
        N = -a.fy                                  (normal force on the wheel, > 0 on the ground)
        a.fx = N*S3(vAdhesion, vSlide, mu_A, mu_S, v_slip)
        a.fx*R = a.tau
        lossPower = a.fx*v_slip                    (>= 0 for N >= 0)

    The friction coefficient ``S3(...)`` is 0 at zero slip, peaks with ``mu_A`` at
    ``|v_slip| = vAdhesion`` and equals ``mu_S`` from ``|v_slip| = vSlide`` on; it is odd, so the
    ground force on the wheel, ``-a.fx``, always opposes the slip. There is no division by a
    velocity: the law is regular at rest. (Modelica evaluates the law inside ``noEvent``; here
    the ``Piecewise`` is lowered to ``if_else`` without events, equivalently.)

    ``x``, ``vx``, ``phi`` and ``w`` are the joint coordinates (``state_priority = 10``).
    Modelica's optional heat port is not modelled; ``lossPower`` is available as a variable.

    Source: ``PlanarMechanics/Joints/DryFrictionBasedRolling.mo`` (dzimmer/PlanarMechanics);
    ``limit_S_triple`` from ``Utilities/Functions/limitByStriple.mo``. Viewer: as IdealRolling.
    """

    R = Parameter(1.0, min=0.0, unit="m", description="wheel radius")
    vAdhesion = Parameter(0.01, min=0.0, unit="m/s",
                          description="slip velocity of peak adhesion mu_A")
    vSlide = Parameter(0.03, min=0.0, unit="m/s", description="slip velocity from which mu = mu_S")
    mu_A = Parameter(0.5, min=0.0, unit="1", description="friction coefficient at adhesion (peak)")
    mu_S = Parameter(0.15, min=0.0, unit="1", description="friction coefficient when sliding")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_R
    x = Variable(start=0.0, unit="m", description="x position of the wheel centre",
                 state_priority=10)
    phi = Variable(start=0.0, unit="rad", description="wheel angle (CCW positive)",
                   state_priority=10)
    w = Variable(start=0.0, unit="rad/s", description="wheel angular velocity D(phi)",
                 state_priority=10)
    z = Variable(unit="rad/s2", description="wheel angular acceleration D(w)")
    vx = Variable(start=0.0, unit="m/s", description="velocity of the wheel centre D(x)",
                  state_priority=10)
    v_slip = Variable(unit="m/s", description="slip velocity of the contact point vx + w*R")
    N = Variable(unit="N", description="normal force on the wheel (-a.fy)")
    lossPower = Variable(unit="W", description="power dissipated in the contact")

    def equations(self):
        a = self.frame_a
        mu = limit_S_triple(self.vAdhesion, self.vSlide, self.mu_A, self.mu_S, self.v_slip)
        return [Eq(self.x, a.x), Eq(self.phi, a.phi), Eq(der(self.phi), self.w),
                Eq(der(self.w), self.z), Eq(der(self.x), self.vx),
                Eq(a.y, self.R),
                Eq(self.v_slip, self.vx + self.w * self.R),
                Eq(self.N, -a.fy),
                Eq(a.fx, self.N * mu),
                Eq(a.fx * self.R, a.tau),
                Eq(self.lossPower, a.fx * self.v_slip)]


class OneDOFRollingWheelJoint(Component):
    """Wheel of ``radius`` rolling without slip on the x axis, position-level constraint.

    Equations::

        phi_roll = -a.phi;  w_roll = D(phi_roll)
        x = a.x;  v = D(x)
        x = radius*phi_roll + x0          (holonomic rolling constraint)
        a.tau = radius*a.fx
        a.y = radius

    ``phi_roll``/``w_roll`` are the rolling angle/speed, positive when the wheel rolls towards
    ``+x`` (clockwise), so ``v = radius*w_roll``. Because the constraint is written on positions
    the joint has one degree of freedom (states ``x``, ``v``; ``state_priority = 10``); ``x0`` is
    the position at ``phi_roll = 0``. Physically identical to :class:`IdealRolling` (whose
    ``phi = -phi_roll``).

    Source: Multibody.jl ``OneDOFRollingWheelJoint(; radius, x0)`` in
    ``src/PlanarMechanics/components.jl`` (commit ``0e0564a``; called ``RollingWheelJoint`` with
    ``phi_roll = +a.phi`` in ``b5b2133``). Viewer: as IdealRolling.
    """

    radius = Parameter(1.0, min=0.0, unit="m", description="wheel radius")
    x0 = Parameter(0.0, unit="m", description="x position of the centre at phi_roll = 0")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_radius
    phi_roll = Variable(start=0.0, unit="rad", description="rolling angle (-a.phi)")
    w_roll = Variable(start=0.0, unit="rad/s", description="rolling speed D(phi_roll)")
    x = Variable(start=0.0, unit="m", description="x position of the wheel centre",
                 state_priority=10)
    v = Variable(start=0.0, unit="m/s", description="velocity of the wheel centre D(x)",
                 state_priority=10)

    def equations(self):
        a = self.frame_a
        return [Eq(self.phi_roll, -a.phi), Eq(der(self.phi_roll), self.w_roll),
                Eq(self.x, a.x), Eq(der(self.x), self.v),
                Eq(self.x, self.radius * self.phi_roll + self.x0),
                Eq(a.tau, self.radius * a.fx), Eq(a.y, self.radius)]


class OneDOFSlippingWheelJoint(Component):
    """Wheel of ``radius`` on the x axis with slip-dependent friction (adhesion/sliding).

    Equations::

        x = a.x;  v = D(x)
        phi_roll = -a.phi;  w_roll = D(phi_roll)
        v_slip_long = v - radius*w_roll                 (= v + radius*omega_body; contact slip)
        v_slip = |v_slip_long| + v_small                (> 0: no singularity at rest)
        vAdhesion = max(vAdhesion_min, sAdhesion*|radius*w_roll|)
        vSlide    = max(vSlide_min,    sSlide*|radius*w_roll|)
        f = f_n*S3(vAdhesion, vSlide, mu_A, mu_S, v_slip)
        f_long = -f*v_slip_long/v_slip
        a.fx = f_long;  a.fy = f_n;  a.tau = radius*f_long
        a.y = radius

    Signs: ``w_roll > 0`` rolls towards ``+x`` (``phi_roll = -a.phi``). ``f_n = a.fy`` is the
    normal constraint force determined by the dynamics; it is the cut force on the joint, so it is
    *negative* with a body on top (``f_n = -m*g`` at rest). Hence ``f <= 0`` and
    ``f_long = |f_n|*mu*sign(v_slip_long)``; ``f_long`` is the longitudinal cut force on the joint
    (the force the wheel exerts on the ground); the ground force on the wheel is ``-f_long`` and
    opposes the slip. With ``N = -f_n`` the joint equals :class:`DryFrictionBasedRolling` up to the
    regularisation ``v_small``.

    At rest ``v_slip = v_small`` and ``f_long`` is the smooth function
    ``|f_n|*S3(.., |s| + v_small)*s/(|s| + v_small)`` of the slip ``s`` (slope
    ``1.5*mu_A/vAdhesion_min`` at ``s = 0``), so the wheel may start from exactly zero speed and
    spin. ``v_small`` (default 1e-4 m/s, the constant of the source model) must be positive; it
    reduces the friction force by the factor ``|s|/(|s| + v_small)`` in sliding.

    ``x``, ``v``, ``phi_roll`` and ``w_roll`` are the joint coordinates (``state_priority = 10``);
    give them fixed start values (Multibody.jl's optional ``x, v, phi_roll, w_roll``).

    Source: Dyad ``MultibodyComponents.PlanarMechanics.OneDOFSlippingWheelJoint`` (parameter and
    variable names, Dyad's PlanarMechanics documentation) and its Multibody.jl twin
    ``OneDOFSlippingWheelJoint`` in ``src/PlanarMechanics/components.jl`` (commit ``0e0564a``),
    ``limit_S_triple`` from the same file. ``v_small`` names the source's literal ``0.0001``.
    Viewer: as IdealRolling.
    """

    vAdhesion_min = Parameter(0.05, min=0.0, unit="m/s", description="minimum adhesion velocity")
    vSlide_min = Parameter(0.15, min=0.0, unit="m/s", description="minimum sliding velocity")
    sAdhesion = Parameter(0.04, min=0.0, unit="1", description="adhesion slippage")
    sSlide = Parameter(0.12, min=0.0, unit="1", description="sliding slippage")
    mu_A = Parameter(0.95, min=0.0, unit="1", description="friction coefficient at adhesion")
    mu_S = Parameter(0.7, min=0.0, unit="1", description="friction coefficient at sliding")
    radius = Parameter(0.1, min=0.0, unit="m", description="radius of the wheel")
    v_small = Parameter(1e-4, min=0.0, unit="m/s",
                        description="regularisation of the slip magnitude (must be > 0)")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_radius
    phi_roll = Variable(start=0.0, unit="rad", description="wheel rolling angle",
                        state_priority=10)
    w_roll = Variable(start=0.0, unit="rad/s", description="wheel rolling velocity",
                      state_priority=10)
    x = Variable(start=0.0, unit="m", description="position in x direction", state_priority=10)
    v = Variable(start=0.0, unit="m/s", description="velocity in longitudinal (x) direction",
                 state_priority=10)
    v_slip_long = Variable(unit="m/s", description="slip velocity in longitudinal direction")
    v_slip = Variable(unit="m/s", description="slip velocity magnitude")
    f = Variable(unit="N", description="total traction force magnitude (f_n*mu)")
    f_long = Variable(unit="N", description="longitudinal friction force (cut force a.fx)")
    f_n = Variable(unit="N", guess=10.0,
                   description="normal constraint force a.fy (determined by the dynamics)")
    vAdhesion = Variable(unit="m/s", description="adhesion velocity threshold")
    vSlide = Variable(unit="m/s", description="sliding velocity threshold")

    def equations(self):
        a = self.frame_a
        rw = sp.Abs(self.radius * self.w_roll)
        mu = limit_S_triple(self.vAdhesion, self.vSlide, self.mu_A, self.mu_S, self.v_slip)
        return [Eq(self.x, a.x), Eq(der(self.x), self.v),
                Eq(self.phi_roll, -a.phi), Eq(der(self.phi_roll), self.w_roll),
                Eq(self.v_slip_long, self.v - self.radius * self.w_roll),
                Eq(self.v_slip, sp.Abs(self.v_slip_long) + self.v_small),
                Eq(self.vAdhesion, sp.Max(self.vAdhesion_min, self.sAdhesion * rw)),
                Eq(self.vSlide, sp.Max(self.vSlide_min, self.sSlide * rw)),
                Eq(self.f, self.f_n * mu),
                Eq(self.f_long, -self.f * self.v_slip_long / self.v_slip),
                Eq(a.fx, self.f_long), Eq(a.fy, self.f_n), Eq(a.tau, self.radius * self.f_long),
                Eq(a.y, self.radius)]


# The vehicle wheels (IdealWheelJoint, DryFrictionWheelJoint, SlipBasedWheelJoint,
# DifferentialGear, AirResistanceLongitudinal, ...) live in .vehicle; re-exported here so that
# all wheels can be found in one module.
from .vehicle import *  # noqa: E402,F401,F403
from .vehicle import __all__ as _vehicle_all  # noqa: E402

__all__ += [name for name in _vehicle_all if name not in __all__]
