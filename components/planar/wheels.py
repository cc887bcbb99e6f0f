"""Planar wheel joints that roll (or slip) on a straight road: the world x axis, or a road
with a grade.

A wheel joint has a single frame ``frame_a`` placed at the wheel centre (attach a :class:`Body`
that carries the wheel mass and inertia). On a level road (the default) the ground is the line
``y = 0``; the joint holds the centre at ``y = radius`` and transmits the contact force to the
frame.

**Roads with a grade.** Each wheel here has a parameter ``grade`` [rad] (default 0): the angle
of the road to the world x axis, positive when the road rises towards +x (an angle, SI; a grade
of p percent is ``atan(p/100)``: 5 % is 0.04996 rad, 5 degrees is 8.75 %). The road is the line
through the world origin with the tangent ``t = (cos grade, sin grade)`` and the upward normal
``n = (-sin grade, cos grade)``; gravity stays the World's (vertical), so a wheel on a graded
road feels the weight's component ``m*g*sin(grade)`` along it, as a wheel does on a real slope.
The contact equations are those of the level road written in the road frame: the joint's
position coordinate ``x`` is the distance of the centre along the road (``x = a.r . t``; it is
``a.x`` on a level road), the centre is ``radius`` above the road (``a.r . n = radius``), the
contact force is split into its part along the road ``f_t = a.f . t`` and its normal part
``f_n = a.f . n``, and the contact point is ``radius`` below the centre along ``-n``. The
rolling constraints are unchanged: the road does not move, so the absolute spin of the wheel is
its spin relative to the road. ``grade`` is a structural parameter, fixed when the model is
compiled (give it when creating the joint, ``OneDOFSlippingWheelJoint(grade=0.1)``; another
grade is another compile): its cosine and sine enter the equations as numbers, so that a level
road gives exactly the level-road equations and the compiler never divides by ``sin(grade)``.
In the viewer the wheel draws the road (a grey strip along the grade, as long as the motion) and
a rim mark that turns with it.

Tilting the world instead (``World(n=[-sin a, -cos a])`` with a level road: gravity resolved in
the road frame) gives the same dynamics in the road frame; ``grade`` keeps the world upright, so
positions, the viewer's up and the gravity arrow stay those of the world, and several roads or a
road next to other parts of a model are possible.

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

Notation: ``a`` = frame_a, ``a.r = (a.x, a.y)``, ``a.f = (a.fx, a.fy)``, ``D()`` = time
derivative, ``S3(x_max, x_sat, y_max, y_sat, x)`` = ``limit_S_triple``, ``c = cos(grade)``,
``s = sin(grade)``; ``t = (c, s)``, ``n = (-s, c)``.
"""

from __future__ import annotations

import math

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der
from acausal.library.friction import limit_S_triple

from . import viewer_shapes
from .interfaces import Frame

__all__ = ["DryFrictionBasedRolling", "IdealRolling", "OneDOFRollingWheelJoint",
           "OneDOFSlippingWheelJoint"]


class _OnRoad(Component):
    """The road of a planar wheel: the parameter ``grade`` and the road frame (see the module
    docstring): position and force components along the road (``t``) and along its upward
    normal (``n``), and the world components of a vector given in the road frame.

    ``grade`` is structural: its cosine and sine enter the equations as numbers, exactly 1 and
    0 on a level road, so a level road gives the equations of the level-road joint itself. (As
    a numeric parameter, ``sin(grade)`` would be a symbolic coefficient that the compiler may
    divide by when it solves an equation for a variable, which is 0 on a level road.)
    """

    grade = Parameter(0.0, structural=True, unit="rad", min=-math.pi / 2, max=math.pi / 2,
                      min_exclusive=True, max_exclusive=True,
                      description="angle of the road to the world x axis (> 0: the road rises "
                      "towards +x; rad, not percent; fixed when compiled)")

    def _cos_sin(self) -> tuple[float, float]:
        """``(cos(grade), sin(grade))``: exactly ``(1, 0)`` on a level road."""
        grade = float(self.grade)
        return (1, 0) if grade == 0.0 else (math.cos(grade), math.sin(grade))

    def _along(self, x, y):
        """``(x, y) . t``: the component along the road."""
        c, s = self._cos_sin()
        return x * c + y * s

    def _normal(self, x, y):
        """``(x, y) . n``: the component along the road's upward normal."""
        c, s = self._cos_sin()
        return -x * s + y * c

    def _world(self, along, normal):
        """The world components ``along*t + normal*n`` of a vector given in the road frame."""
        c, s = self._cos_sin()
        return along * c - normal * s, along * s + normal * c

    def _centre_equations(self, x, radius):
        """The centre ``radius`` above the road at ``x`` along it: ``a.r = x*t + radius*n``
        (written for ``a.x``, ``a.y``, so that nothing divides by ``sin(grade)``)."""
        a = self.frame_a
        wx, wy = self._world(x, radius)
        return [Eq(a.x, wx), Eq(a.y, wy)]


class IdealRolling(_OnRoad):
    """Wheel of radius ``R`` rolling without slip on the x axis, or on a road with a
    ``grade`` (no rolling resistance).

    Equations (``c, s`` = cos, sin of ``grade``; on a level road ``x = a.x``, ``a.y = R``)::

        a.x = x*c - R*s;  a.y = x*s + R*c   (the centre R above the road at x along it)
        phi = a.phi;  w = D(phi);  z = D(w);  vx = D(x)
        vx = -w*R                 (non-holonomic rolling constraint; CCW spin rolls to -x)
        (a.fx*c + a.fy*s)*R = a.tau   (the contact force acts at the contact point, R below
                                       the centre)

    ``x`` (along the road), ``phi`` and ``w`` are the joint coordinates
    (``state_priority = 10``); give them fixed start values for the initial state (``vx``
    follows from ``w``). ``grade``: see the module docstring.

    Source: ``PlanarMechanics/Joints/IdealRolling.mo`` (dzimmer/PlanarMechanics); ``grade`` is
    an addition. Viewer: a red disc of radius R with two grey spokes and a yellow rim mark,
    on its road.
    """

    R = Parameter(1.0, min=0.0, unit="m", description="wheel radius")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_R
    x = Variable(start=0.0, unit="m", description="position of the wheel centre along the "
                 "road (a.x on a level road)", state_priority=10)
    phi = Variable(start=0.0, unit="rad", description="wheel angle (CCW positive)",
                   state_priority=10)
    w = Variable(start=0.0, unit="rad/s", description="wheel angular velocity D(phi)",
                 state_priority=10)
    z = Variable(unit="rad/s2", description="wheel angular acceleration D(w)")
    vx = Variable(start=0.0, unit="m/s", description="velocity of the wheel centre along the "
                   "road D(x)")

    def equations(self):
        a = self.frame_a
        return [*self._centre_equations(self.x, self.R), Eq(self.phi, a.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.z), Eq(der(self.x), self.vx),
                Eq(self.vx, -self.w * self.R), Eq(self._along(a.fx, a.fy) * self.R, a.tau)]


class DryFrictionBasedRolling(_OnRoad):
    """Wheel of radius ``R`` on the x axis, or on a road with a ``grade``, with a dry-friction
    (adhesion/sliding) contact.

    Equations (``c, s`` = cos, sin of ``grade``; ``f_t = a.fx*c + a.fy*s`` is the cut force
    along the road; on a level road ``f_t = a.fx``, ``N = -a.fy``)::

        a.x = x*c - R*s;  a.y = x*s + R*c          (the centre R above the road at x)
        phi = a.phi;  w = D(phi);  z = D(w);  vx = D(x)
        v_slip = vx + w*R                          (velocity of the contact point)
        N = a.fx*s - a.fy*c                        (normal force on the wheel, > 0 on the road)
        f_t = N*S3(vAdhesion, vSlide, mu_A, mu_S, v_slip)
        f_t*R = a.tau
        lossPower = f_t*v_slip                     (>= 0 for N >= 0)

    The friction coefficient ``S3(...)`` is 0 at zero slip, peaks with ``mu_A`` at
    ``|v_slip| = vAdhesion`` and equals ``mu_S`` from ``|v_slip| = vSlide`` on; it is odd, so the
    ground force on the wheel, ``-a.fx``, always opposes the slip. There is no division by a
    velocity: the law is regular at rest. (Modelica evaluates the law inside ``noEvent``; here
    the ``Piecewise`` is lowered to ``if_else`` without events, equivalently.)

    ``x``, ``vx``, ``phi`` and ``w`` are the joint coordinates (``state_priority = 10``).
    Modelica's optional heat port is not modelled; ``lossPower`` is available as a variable.
    ``grade``: see the module docstring.

    Source: ``PlanarMechanics/Joints/DryFrictionBasedRolling.mo`` (dzimmer/PlanarMechanics);
    ``limit_S_triple`` from ``Utilities/Functions/limitByStriple.mo``; ``grade`` is an
    addition. Viewer: as IdealRolling.
    """

    R = Parameter(1.0, min=0.0, unit="m", description="wheel radius")
    vAdhesion = Parameter(0.01, min=0.0, unit="m/s",
                          description="slip velocity of peak adhesion mu_A")
    vSlide = Parameter(0.03, min=0.0, unit="m/s", description="slip velocity from which mu = mu_S")
    mu_A = Parameter(0.5, min=0.0, unit="1", description="friction coefficient at adhesion (peak)")
    mu_S = Parameter(0.15, min=0.0, unit="1", description="friction coefficient when sliding")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_R
    x = Variable(start=0.0, unit="m", description="position of the wheel centre along the "
                 "road (a.x on a level road)", state_priority=10)
    phi = Variable(start=0.0, unit="rad", description="wheel angle (CCW positive)",
                   state_priority=10)
    w = Variable(start=0.0, unit="rad/s", description="wheel angular velocity D(phi)",
                 state_priority=10)
    z = Variable(unit="rad/s2", description="wheel angular acceleration D(w)")
    vx = Variable(start=0.0, unit="m/s", description="velocity of the wheel centre along the "
                  "road D(x)", state_priority=10)
    v_slip = Variable(unit="m/s", description="slip velocity of the contact point vx + w*R")
    N = Variable(unit="N", description="normal force on the wheel (-a.fy on a level road)")
    lossPower = Variable(unit="W", description="power dissipated in the contact")

    def equations(self):
        a = self.frame_a
        mu = limit_S_triple(self.vAdhesion, self.vSlide, self.mu_A, self.mu_S, self.v_slip)
        f_t = self._along(a.fx, a.fy)
        return [*self._centre_equations(self.x, self.R), Eq(self.phi, a.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.z), Eq(der(self.x), self.vx),
                Eq(self.v_slip, self.vx + self.w * self.R),
                Eq(self.N, -self._normal(a.fx, a.fy)),
                Eq(f_t, self.N * mu),
                Eq(f_t * self.R, a.tau),
                Eq(self.lossPower, f_t * self.v_slip)]


class OneDOFRollingWheelJoint(_OnRoad):
    """Wheel of ``radius`` rolling without slip on the x axis, or on a road with a ``grade``;
    position-level constraint.

    Equations (``c, s`` = cos, sin of ``grade``; on a level road ``x = a.x``,
    ``a.y = radius``)::

        phi_roll = -a.phi;  w_roll = D(phi_roll)
        a.x = x*c - radius*s;  a.y = x*s + radius*c   (the centre radius above the road, x
        v = D(x)                                       along it)
        x = radius*phi_roll + x0          (holonomic rolling constraint)
        a.tau = radius*(a.fx*c + a.fy*s)

    ``phi_roll``/``w_roll`` are the rolling angle/speed, positive when the wheel rolls towards
    ``+x`` (clockwise), so ``v = radius*w_roll``. Because the constraint is written on positions
    the joint has one degree of freedom (states ``x``, ``v``; ``state_priority = 10``); ``x0`` is
    the position at ``phi_roll = 0``. Physically identical to :class:`IdealRolling` (whose
    ``phi = -phi_roll``). ``grade``: see the module docstring.

    Source: Multibody.jl ``OneDOFRollingWheelJoint(; radius, x0)`` in
    ``src/PlanarMechanics/components.jl`` (commit ``0e0564a``; called ``RollingWheelJoint`` with
    ``phi_roll = +a.phi`` in ``b5b2133``); ``grade`` is an addition. Viewer: as IdealRolling.
    """

    radius = Parameter(1.0, min=0.0, unit="m", description="wheel radius")
    x0 = Parameter(0.0, unit="m", description="position of the centre along the road at "
                   "phi_roll = 0")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_radius
    phi_roll = Variable(start=0.0, unit="rad", description="rolling angle (-a.phi)")
    w_roll = Variable(start=0.0, unit="rad/s", description="rolling speed D(phi_roll)")
    x = Variable(start=0.0, unit="m", description="position of the wheel centre along the "
                 "road (a.x on a level road)", state_priority=10)
    v = Variable(start=0.0, unit="m/s", description="velocity of the wheel centre along the "
                 "road D(x)", state_priority=10)

    def equations(self):
        a = self.frame_a
        return [Eq(self.phi_roll, -a.phi), Eq(der(self.phi_roll), self.w_roll),
                *self._centre_equations(self.x, self.radius), Eq(der(self.x), self.v),
                Eq(self.x, self.radius * self.phi_roll + self.x0),
                Eq(a.tau, self.radius * self._along(a.fx, a.fy))]


class OneDOFSlippingWheelJoint(_OnRoad):
    """Wheel of ``radius`` on the x axis, or on a road with a ``grade``, with slip-dependent
    friction (adhesion/sliding).

    Equations (``c, s`` = cos, sin of ``grade``; on a level road ``x = a.x``,
    ``a.fx = f_long``, ``a.fy = f_n``, ``a.y = radius``)::

        a.x = x*c - radius*s;  a.y = x*s + radius*c     (the centre radius above the road)
        v = D(x)
        phi_roll = -a.phi;  w_roll = D(phi_roll)
        v_slip_long = v - radius*w_roll                 (= v + radius*omega_body; contact slip)
        v_slip = |v_slip_long| + v_small                (> 0: no singularity at rest)
        vAdhesion = max(vAdhesion_min, sAdhesion*|radius*w_roll|)
        vSlide    = max(vSlide_min,    sSlide*|radius*w_roll|)
        f = f_n*S3(vAdhesion, vSlide, mu_A, mu_S, v_slip)
        f_long = -f*v_slip_long/v_slip
        a.fx = f_long*c - f_n*s;  a.fy = f_long*s + f_n*c   (f_long along the road, f_n
        a.tau = radius*f_long                                along its normal)

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
    ``grade``: see the module docstring.

    Source: Dyad ``MultibodyComponents.PlanarMechanics.OneDOFSlippingWheelJoint`` (parameter and
    variable names, Dyad's PlanarMechanics documentation) and its Multibody.jl twin
    ``OneDOFSlippingWheelJoint`` in ``src/PlanarMechanics/components.jl`` (commit ``0e0564a``),
    ``limit_S_triple`` from the same file. ``v_small`` names the source's literal ``0.0001``;
    ``grade`` is an addition. Viewer: as IdealRolling.
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
    x = Variable(start=0.0, unit="m", description="position along the road (x direction on a "
                 "level road)", state_priority=10)
    v = Variable(start=0.0, unit="m/s", description="velocity along the road (longitudinal)",
                 state_priority=10)
    v_slip_long = Variable(unit="m/s", description="slip velocity in longitudinal direction")
    v_slip = Variable(unit="m/s", description="slip velocity magnitude")
    f = Variable(unit="N", description="total traction force magnitude (f_n*mu)")
    f_long = Variable(unit="N", description="longitudinal friction force (cut force along "
                      "the road, a.fx on a level road)")
    f_n = Variable(unit="N", guess=10.0, description="normal constraint force (cut force along "
                   "the road's normal, a.fy on a level road; determined by the dynamics)")
    vAdhesion = Variable(unit="m/s", description="adhesion velocity threshold")
    vSlide = Variable(unit="m/s", description="sliding velocity threshold")

    def equations(self):
        a = self.frame_a
        rw = sp.Abs(self.radius * self.w_roll)
        mu = limit_S_triple(self.vAdhesion, self.vSlide, self.mu_A, self.mu_S, self.v_slip)
        fx, fy = self._world(self.f_long, self.f_n)
        return [*self._centre_equations(self.x, self.radius), Eq(der(self.x), self.v),
                Eq(self.phi_roll, -a.phi), Eq(der(self.phi_roll), self.w_roll),
                Eq(self.v_slip_long, self.v - self.radius * self.w_roll),
                Eq(self.v_slip, sp.Abs(self.v_slip_long) + self.v_small),
                Eq(self.vAdhesion, sp.Max(self.vAdhesion_min, self.sAdhesion * rw)),
                Eq(self.vSlide, sp.Max(self.vSlide_min, self.sSlide * rw)),
                Eq(self.f, self.f_n * mu),
                Eq(self.f_long, -self.f * self.v_slip_long / self.v_slip),
                Eq(a.fx, fx), Eq(a.fy, fy), Eq(a.tau, self.radius * self.f_long)]


# The vehicle wheels (IdealWheelJoint, DryFrictionWheelJoint, SlipBasedWheelJoint,
# DifferentialGear, AirResistanceLongitudinal, ...) live in .vehicle; re-exported here so that
# all wheels can be found in one module.
from .vehicle import *  # noqa: E402,F401,F403
from .vehicle import __all__ as _vehicle_all  # noqa: E402

__all__ += [name for name in _vehicle_all if name not in __all__]
