"""MultiBody's example models rebuilt from this library (``Modelica.Mechanics.MultiBody.Examples``
and the joint tests of ``ModelicaTest.MultiBody``, MSL 4.0), with their parameters, topology and
initial values. Component names are the Modelica ones, so that a result column such as
``rev.phi`` has the same name in both tools. ``tests/validation/multibody`` compares each with the
Dymola reference results.
"""

from __future__ import annotations

import math

from acausal import Component, Parameter, Variable, connect
from acausal.components import rotational, translational

from . import forces

# the examples of their own modules, re-exported so that every MSL example is found here
from .examples_engines import Cylinder, Engine1b, EngineV6, GasForce2  # noqa: F401
from .examples_fourbars import (  # noqa: F401
    Fourbar2,
    FourbarSphericalSpherical,
    FourbarVariantsUniversalSpherical,
)
from .examples_spherical import (  # noqa: F401
    DoublePendulumInitTip,
    DzhanibekovFlip,
    SphericalDoublePendulum,
    SphericalRevolutePendulum,
)
from .forces import Damper, Spring
from .joints import (
    Cylindrical,
    FreeMotion,
    Prismatic,
    Revolute,
    RevolutePlanarLoopConstraint,
    Spherical,
    Universal,
)
from .parts import Body, BodyBox, BodyCylinder, BodyShape, Fixed, FixedRotation, FixedTranslation
from .robot_r3 import FullRobot, OneAxis  # noqa: F401
from .world import World

G_N = 9.80665  # Modelica.Constants.g_n, MultiBody's default gravity


class Pendulum(Component):
    """``Examples.Elementary.Pendulum``: a body (m = 1 kg, r_CM = (0.5, 0, 0)) on a revolute
    joint about z with a rotational damper (d = 0.1 N.m.s/rad) on its axis, released
    horizontally at rest."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.damper = rotational.Damper(d=0.1)
        self.rev = Revolute(n=(0, 0, 1), use_axis_flange=True,
                            phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True))
        self.body = Body(m=1.0, r_CM=[0.5, 0.0, 0.0])

    def connections(self):
        return [connect(self.world.frame_b, self.rev.frame_a),
                connect(self.damper.flange_b, self.rev.axis),
                connect(self.rev.support, self.damper.flange_a),
                connect(self.body.frame_a, self.rev.frame_b)]


class DoublePendulum(Component):
    """``Examples.Elementary.DoublePendulum``: two steel boxes (r = (0.5, 0, 0), width 0.06 m)
    on revolute joints about z, the first damped (d = 0.1), released horizontally at rest."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.revolute1 = Revolute(use_axis_flange=True, phi=Variable(start=0.0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.damper = rotational.Damper(d=0.1)
        self.boxBody1 = BodyBox(r=(0.5, 0.0, 0.0), width=0.06)
        self.revolute2 = Revolute(phi=Variable(start=0.0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.boxBody2 = BodyBox(r=(0.5, 0.0, 0.0), width=0.06)

    def connections(self):
        return [connect(self.damper.flange_b, self.revolute1.axis),
                connect(self.revolute1.support, self.damper.flange_a),
                connect(self.revolute1.frame_b, self.boxBody1.frame_a),
                connect(self.revolute2.frame_b, self.boxBody2.frame_a),
                connect(self.boxBody1.frame_b, self.revolute2.frame_a),
                connect(self.world.frame_b, self.revolute1.frame_a)]


class Fourbar1(Component):
    """``Examples.Loops.Fourbar1``: a spatial four-bar of revolute joints and one prismatic
    joint (7 joint coordinates, 6 loop constraints: 1 degree of freedom), driven only by
    gravity from j1.w = 300 deg/s. No joint is marked as a cut: the loop is closed by the
    connection graph."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.j1 = Revolute(n=(1, 0, 0), phi=Variable(start=0.0, fixed=True),
                           w=Variable(start=5.235987755982989, fixed=True))
        self.j2 = Prismatic(n=(1, 0, 0), s=Variable(start=-0.2))
        self.b1 = BodyCylinder(r=(0.0, 0.5, 0.1), diameter=0.05)
        self.b2 = BodyCylinder(r=(0.0, 0.2, 0.0), diameter=0.05)
        self.b3 = BodyCylinder(r=(-1.0, 0.3, 0.1), diameter=0.05)
        self.rev = Revolute(n=(0, 1, 0))
        self.rev1 = Revolute()
        self.j3 = Revolute(n=(1, 0, 0))
        self.j4 = Revolute(n=(0, 1, 0))
        self.j5 = Revolute(n=(0, 0, 1))
        self.b0 = FixedTranslation(r=(1.2, 0.0, 0.0))

    def connections(self):
        return [connect(self.j2.frame_b, self.b2.frame_a),
                connect(self.j1.frame_b, self.b1.frame_a),
                connect(self.rev.frame_a, self.b2.frame_b),
                connect(self.rev.frame_b, self.rev1.frame_a),
                connect(self.rev1.frame_b, self.b3.frame_a),
                connect(self.world.frame_b, self.j1.frame_a),
                connect(self.b1.frame_b, self.j3.frame_a),
                connect(self.j3.frame_b, self.j4.frame_a),
                connect(self.j4.frame_b, self.j5.frame_a),
                connect(self.j5.frame_b, self.b3.frame_b),
                connect(self.b0.frame_a, self.world.frame_b),
                connect(self.b0.frame_b, self.j2.frame_a)]


class RevoluteTest(Component):
    """``ModelicaTest.MultiBody.Joints.Revolute``: a body with its centre of mass on the axis
    of a revolute joint about z, started at 45 deg at rest: nothing moves."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.revolute = Revolute(n=(0, 0, 1), phi=Variable(start=0.7853981633974483, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
        self.body = Body(r_CM=[0.0, 0.0, 0.0], m=1.0)

    def connections(self):
        return [connect(self.world.frame_b, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.body.frame_a)]


class PrismaticTest(Component):
    """``ModelicaTest.MultiBody.Joints.Prismatic``: a body sliding from s = 0.3 m along the
    diagonal axis (1, 1, 0) under gravity: s = 0.3 - g t^2 / (2 sqrt 2)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.prismatic = Prismatic(n=(1, 1, 0), s=Variable(start=0.3, fixed=True),
                                   v=Variable(start=0.0, fixed=True))
        self.body = Body(r_CM=[0.0, 0.0, 0.0], m=1.0)

    def connections(self):
        return [connect(self.world.frame_b, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, self.body.frame_a)]


class _JointTest(Component):
    """world -> joint -> body (m = 1 kg, r_CM given), as the joint tests of ModelicaTest."""

    def connections(self):
        return [connect(self.world.frame_b, self.joint.frame_a),
                connect(self.joint.frame_b, self.body.frame_a)]


class SphericalTest(Component):
    """``ModelicaTest.MultiBody.Joints.Spherical``: a body with its centre of mass at a
    spherical joint, started at 45 deg about x, y and z at rest: nothing moves, and the body
    (the root of its part of the orientation graph) carries the orientation as quaternions."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.spherical = Spherical(angles_start=(math.pi / 4,) * 3, angles_fixed=True,
                                   w_rel_a_fixed=True)
        self.body = Body(r_CM=[0.0, 0.0, 0.0], m=1.0)

    def connections(self):
        return [connect(self.world.frame_b, self.spherical.frame_a),
                connect(self.spherical.frame_b, self.body.frame_a)]


class UniversalTest(Component):
    """``ModelicaTest.MultiBody.Joints.Universal``: a body (r_CM = (0.5, 0, 0)) on a universal
    joint with n_a = z, started at phi_a = 90 deg, phi_b = 45 deg at rest: it swings about the
    world x axis."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.universal = Universal(n_a=(0, 0, 1), phi_a=Variable(start=math.pi / 2, fixed=True),
                                   phi_b=Variable(start=math.pi / 4, fixed=True),
                                   w_a=Variable(start=0.0, fixed=True),
                                   w_b=Variable(start=0.0, fixed=True))
        self.body = Body(m=1.0, r_CM=[0.5, 0.0, 0.0])

    def connections(self):
        return [connect(self.world.frame_b, self.universal.frame_a),
                connect(self.universal.frame_b, self.body.frame_a)]


class CylindricalTest(Component):
    """``ModelicaTest.MultiBody.Joints.Cylindrical``: a body with its centre of mass on the z
    axis of a cylindrical joint (perpendicular to gravity): nothing moves."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.cylindrical = Cylindrical(n=(0, 0, 1), phi=Variable(start=math.pi / 4, fixed=True),
                                       s=Variable(start=0.3, fixed=True),
                                       v=Variable(start=0.0, fixed=True),
                                       w=Variable(start=0.0, fixed=True))
        self.body = Body(r_CM=[0.0, 0.0, 0.0], m=1.0)

    def connections(self):
        return [connect(self.world.frame_b, self.cylindrical.frame_a),
                connect(self.cylindrical.frame_b, self.body.frame_a)]


class FreeMotionTest(Component):
    """``ModelicaTest.MultiBody.Joints.FreeMotion``: a body on a free-motion joint (quaternion
    states in the joint), started at r_rel_a = (0.5, 0.4, 0) and 45 deg about x, y, z at rest:
    free fall with a constant orientation."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.freeMotion = FreeMotion(angles_start=(math.pi / 4,) * 3, angles_fixed=True,
                                     w_rel_a_fixed=True,
                                     r_rel_a=Variable(start=[0.5, 0.4, 0.0], fixed=True),
                                     v_rel_a=Variable(start=[0.0, 0.0, 0.0], fixed=True))
        self.body = Body(r_CM=[0.0, 0.0, 0.0], m=1.0)

    def connections(self):
        return [connect(self.world.frame_b, self.freeMotion.frame_a),
                connect(self.freeMotion.frame_b, self.body.frame_a)]


class SpringMassSystem(Component):
    """``Examples.Elementary.SpringMassSystem``: two bodies on prismatic joints along -y, one
    held by a 1-D spring on the joint axis, the other by a 3-D line spring (c = 30 N/m,
    unstretched 0.1 m): both move as m s'' = m g - c (s - 0.1)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.p1 = Prismatic(use_axis_flange=True, n=(0, -1, 0),
                            s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))
        self.spring1 = translational.Spring(c=30.0, s_rel0=0.1)
        self.body1 = Body(m=1.0, r_CM=[0.0, 0.0, 0.0])
        self.bar1 = FixedTranslation(r=(0.3, 0.0, 0.0))
        self.bar2 = FixedTranslation(r=(0.3, 0.0, 0.0))
        self.body2 = Body(m=1.0, r_CM=[0.0, 0.0, 0.0])
        self.p2 = Prismatic(n=(0, -1, 0), s=Variable(start=0.1, fixed=True),
                            v=Variable(start=0.0, fixed=True))
        self.spring2 = Spring(c=30.0, s_unstretched=0.1)

    def connections(self):
        return [connect(self.body1.frame_a, self.p1.frame_b),
                connect(self.world.frame_b, self.bar1.frame_a),
                connect(self.bar1.frame_b, self.p1.frame_a),
                connect(self.spring1.flange_b, self.p1.axis),
                connect(self.bar1.frame_b, self.bar2.frame_a),
                connect(self.bar2.frame_b, self.p2.frame_a),
                connect(self.p2.frame_b, self.body2.frame_a),
                connect(self.bar2.frame_b, self.spring2.frame_a),
                connect(self.body2.frame_a, self.spring2.frame_b),
                connect(self.spring1.flange_a, self.p1.support)]


class FreeBody(Component):
    """``Examples.Elementary.FreeBody``: a free body (BodyShape, r = (0.4, 0, 0), unit inertia)
    hanging on two line springs (c = 20 N/m) from the world origin and from (0.8, 0, 0),
    started at r_0 = (0.2, -0.5, 0.1) and 10 deg about x, y, z at rest. Its orientation is
    carried by quaternion states (it is the root of its orientation graph)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.bar2 = FixedTranslation(r=(0.8, 0.0, 0.0))
        self.spring1 = Spring(c=20.0, s_unstretched=0.0)
        self.spring2 = Spring(c=20.0, s_unstretched=0.0)
        self.body = BodyShape(m=1.0, I_11=1.0, I_22=1.0, I_33=1.0, r=(0.4, 0.0, 0.0),
                              r_CM=(0.2, 0.0, 0.0),
                              r_0=Variable(start=[0.2, -0.5, 0.1], fixed=True),
                              v_0=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                              angles_fixed=True, w_0_fixed=True,
                              angles_start=(0.174532925199433,) * 3)

    def connections(self):
        return [connect(self.bar2.frame_a, self.world.frame_b),
                connect(self.spring1.frame_b, self.body.frame_a),
                connect(self.bar2.frame_b, self.spring2.frame_a),
                connect(self.spring1.frame_a, self.world.frame_b),
                connect(self.body.frame_b, self.spring2.frame_b)]


class PlanarFourbar(Component):
    """``Examples.Loops.PlanarFourbar``: a four-bar of revolute joints with parallel axes (z),
    damped at revolute1 (d = 0.1), falling from rest. A planar loop of 3-D revolute joints
    states 3 of its constraints twice, so one joint is a ``RevolutePlanarLoopConstraint``
    (``cut_joint=True``, as in MultiBody); ``cut_joint=False`` builds the loop of plain
    revolutes, which acausal rejects with an error that says so."""

    cut_joint = Parameter(True, description="close the loop with RevolutePlanarLoopConstraint")

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        # stateSelect=StateSelect.always in MultiBody
        self.revolute1 = Revolute(n=(0, 0, 1), use_axis_flange=True,
                                  phi=Variable(start=0.0, fixed=True, state_priority=100),
                                  w=Variable(start=0.0, fixed=True, state_priority=100))
        self.revolute2 = Revolute(n=(0, 0, 1))
        self.revolute3 = Revolute(n=(0, 0, 1))
        self.revolute4cut = RevolutePlanarLoopConstraint() if kw.get("cut_joint", True) \
            else Revolute(n=(0, 0, 1))
        self.body1 = BodyBox(width=0.05, r=(0.4, 0.0, 0.0))
        self.body2 = BodyBox(width=0.05, r=(0.1, 1.1, 0.0))
        self.body3 = BodyBox(width=0.05, r=(-0.15, 1.0, 0.0))
        self.body4 = BodyBox(width=0.05, r=(0.65, 0.1, 0.0))
        self.damper = rotational.Damper(d=0.1)

    def connections(self):
        return [connect(self.revolute1.frame_b, self.body1.frame_a),
                connect(self.revolute2.frame_a, self.body1.frame_b),
                connect(self.revolute2.frame_b, self.body2.frame_a),
                connect(self.world.frame_b, self.revolute1.frame_a),
                connect(self.world.frame_b, self.body3.frame_a),
                connect(self.body3.frame_b, self.revolute3.frame_a),
                connect(self.revolute3.frame_b, self.body4.frame_a),
                connect(self.body4.frame_b, self.revolute4cut.frame_a),
                connect(self.body2.frame_b, self.revolute4cut.frame_b),
                connect(self.damper.flange_b, self.revolute1.axis),
                connect(self.revolute1.support, self.damper.flange_a)]


class PendulumWithSpringDamper(Component):
    """``Examples.Elementary.PendulumWithSpringDamper``: a body (1 kg, unit inertia) on a
    prismatic joint turning on a revolute joint about z at (0.3, 0, 0), held by a line spring
    (c = 20 N/m, unstretched 0.2 m) and a line damper (d = 1 N.s/m) from the pivot."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.body1 = Body(m=1.0, I_11=1.0, I_22=1.0, I_33=1.0, r_CM=(0.0, 0.0, 0.0))
        self.bar1 = FixedTranslation(r=(0.3, 0.0, 0.0))
        self.spring1 = Spring(c=20.0, s_unstretched=0.2)
        self.damper1 = Damper(d=1.0)
        self.revolute = Revolute(phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=0.0, fixed=True))
        self.prismatic = Prismatic(s=Variable(start=0.5, fixed=True),
                                   v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.world.frame_b, self.bar1.frame_a),
                connect(self.revolute.frame_a, self.bar1.frame_b),
                connect(self.prismatic.frame_a, self.revolute.frame_b),
                connect(self.damper1.frame_a, self.bar1.frame_b),
                connect(self.damper1.frame_b, self.prismatic.frame_b),
                connect(self.spring1.frame_a, self.bar1.frame_b),
                connect(self.spring1.frame_b, self.prismatic.frame_b),
                connect(self.body1.frame_a, self.prismatic.frame_b)]


class SpringDamperSystem(Component):
    """``Examples.Elementary.SpringDamperSystem``: a free body on a line spring and damper
    from (0.3, 0, 0), spinning slowly (2 deg/s about z), and a body on a vertical prismatic
    joint held by a line spring (c = 30 N/m, unstretched 0.1 m)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.body1 = Body(m=1.0, r_CM=(0.0, -0.2, 0.0), I_11=0.1, I_22=0.1, I_33=0.1,
                          r_0=Variable(start=[0.3, -0.2, 0.0], fixed=True),
                          v_0=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                          angles_fixed=True, w_0_fixed=True,
                          w_0_start=(0.0, 0.0, 0.03490658503988659))
        self.bar1 = FixedTranslation(r=(0.3, 0.0, 0.0))
        self.bar2 = FixedTranslation(r=(0.6, 0.0, 0.0))
        self.body2 = Body(m=1.0, r_CM=(0.0, 0.0, 0.0))
        self.p2 = Prismatic(n=(0, -1, 0), use_axis_flange=True,
                            s=Variable(start=0.1, fixed=True, state_priority=100),
                            v=Variable(start=0.0, fixed=True, state_priority=100))
        self.spring2 = Spring(c=30.0, s_unstretched=0.1)
        self.spring1 = Spring(c=30.0, s_unstretched=0.1)
        self.damper1 = Damper(d=2.0)

    def connections(self):
        return [connect(self.world.frame_b, self.bar1.frame_a),
                connect(self.bar1.frame_b, self.bar2.frame_a),
                connect(self.bar2.frame_b, self.p2.frame_a),
                connect(self.p2.frame_b, self.body2.frame_a),
                connect(self.bar2.frame_b, self.spring2.frame_a),
                connect(self.body2.frame_a, self.spring2.frame_b),
                connect(self.damper1.frame_a, self.bar1.frame_b),
                connect(self.spring1.frame_a, self.bar1.frame_b),
                connect(self.damper1.frame_b, self.body1.frame_a),
                connect(self.spring1.frame_b, self.body1.frame_a)]


class ThreeSprings(Component):
    """``Examples.Elementary.ThreeSprings``: a free body hanging on a line spring from a
    massless node that two more springs hold from (0.3, 0, 0) and (0, 0, 0.3)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.body1 = Body(r_CM=(0.0, -0.2, 0.0), m=0.8, I_11=0.1, I_22=0.1, I_33=0.1,
                          r_0=Variable(start=[0.5, -0.3, 0.0], fixed=True),
                          v_0=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                          angles_fixed=True, w_0_fixed=True)
        self.bar1 = FixedTranslation(r=(0.3, 0.0, 0.0))
        self.spring1 = Spring(s_unstretched=0.1, c=20.0,
                              r_rel_0=Variable(start=[-0.2, -0.2, 0.2]))
        self.bar2 = FixedTranslation(r=(0.0, 0.0, 0.3))
        self.spring2 = Spring(s_unstretched=0.1, c=40.0)
        self.spring3 = Spring(s_unstretched=0.1, c=20.0, fixed_rotation_at_frame_b=True)

    def connections(self):
        return [connect(self.world.frame_b, self.bar1.frame_a),
                connect(self.world.frame_b, self.bar2.frame_a),
                connect(self.bar1.frame_b, self.spring1.frame_a),
                connect(self.bar2.frame_b, self.spring3.frame_a),
                connect(self.spring2.frame_b, self.body1.frame_a),
                connect(self.spring3.frame_b, self.spring1.frame_b),
                connect(self.spring2.frame_a, self.spring1.frame_b)]


class PointGravity(Component):
    """``Examples.Elementary.PointGravity``: two free bodies orbiting in a central field
    (mu = 1 m3/s2), unconnected: r'' = -r/|r|^3."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World(gravity_type="PointGravity", mu=1.0)
        self.body1 = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1, r_CM=(0.0, 0.0, 0.0),
                          r_0=Variable(start=[0.0, 0.6, 0.0], fixed=True),
                          v_0=Variable(start=[1.0, 0.0, 0.0], fixed=True),
                          angles_fixed=True, w_0_fixed=True)
        self.body2 = Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1, r_CM=(0.0, 0.0, 0.0),
                          r_0=Variable(start=[0.6, 0.6, 0.0], fixed=True),
                          v_0=Variable(start=[0.6, 0.0, 0.0], fixed=True),
                          angles_fixed=True, w_0_fixed=True)


class ForceAndTorque(Component):
    """``Examples.Elementary.ForceAndTorque``: a steel cylinder (1 m) on two revolute joints
    (z, then y) at (0, -0.5, 0), pushed at its tip by a constant force (0, 1000, 0) N and torque
    (-100, 100, 0) N.m resolved in a frame turned 30 deg about z, reacting on (1.5, 0.25, 0)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        from ..blocks import Constant

        self.world = World()
        self.body = BodyCylinder(r=(1.0, 0.0, 0.0))
        self.fixed1 = Fixed(r=(0.0, -0.5, 0.0))
        self.fixedRotation = FixedRotation(n=(0, 0, 1), angle=30.0)
        self.forceAndTorque = forces.ForceAndTorque(resolve_in_frame="frame_resolve")
        self.revolute2 = Revolute(n=(0, 1, 0), phi=Variable(start=0.0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.torque = [Constant(k=k) for k in (-100.0, 100.0, 0.0)]
        self.revolute1 = Revolute(phi=Variable(start=0.0, fixed=True),
                                  w=Variable(start=0.0, fixed=True))
        self.fixed2 = Fixed(r=(1.5, 0.25, 0.0))
        self.force = [Constant(k=k) for k in (0.0, 1000.0, 0.0)]

    def connections(self):
        ft = self.forceAndTorque
        return [connect(self.revolute2.frame_b, self.body.frame_a),
                connect(ft.frame_b, self.body.frame_b),
                connect(self.fixed1.frame_b, self.revolute1.frame_a),
                connect(self.revolute1.frame_b, self.revolute2.frame_a),
                connect(self.fixed2.frame_b, ft.frame_a),
                connect(self.fixedRotation.frame_a, self.fixed1.frame_b),
                connect(ft.frame_resolve, self.fixedRotation.frame_b),
                *(connect(s.y, i) for s, i in zip(self.force, ft.force)),
                *(connect(s.y, i) for s, i in zip(self.torque, ft.torque))]


class Engine1a(Component):
    """``Examples.Loops.Engine1a``: a one-cylinder engine without gas force: crank (on a
    bearing with a flywheel J = 1 kg m2 turning at 10 rad/s), connecting rod and piston form a
    planar loop closed by a ``RevolutePlanarLoopConstraint`` (b2)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.piston = BodyCylinder(diameter=0.1, r=(0.0, -0.1, 0.0))
        self.connectingRod = BodyBox(width_direction=(1.0, 0.0, 0.0), width=0.02, height=0.06,
                                     r=(0.0, -0.2, 0.0))
        self.bearing = Revolute(use_axis_flange=True, n=(1, 0, 0))
        self.inertia = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True,
                                                             state_priority=100),
                                          w=Variable(start=10.0, fixed=True, state_priority=100))
        self.crank1 = BodyCylinder(diameter=0.05, r=(0.1, 0.0, 0.0))
        self.crank2 = BodyBox(height=0.05, width_direction=(1.0, 0.0, 0.0), width=0.02,
                              r=(0.0, 0.1, 0.0))
        self.crank3 = BodyCylinder(r=(0.1, 0.0, 0.0), diameter=0.03)
        self.crank4 = BodyBox(height=0.05, width_direction=(1.0, 0.0, 0.0), width=0.02,
                              r=(0.0, -0.1, 0.0))
        self.mid = FixedTranslation(r=(0.05, 0.0, 0.0))
        self.cylPosition = FixedTranslation(r=(0.15, 0.45, 0.0))
        self.b1 = Revolute(n=(1, 0, 0))
        self.b2 = RevolutePlanarLoopConstraint(n=(1, 0, 0))
        self.cylinder = Prismatic(n=(0, -1, 0), s=Variable(start=0.15))

    def connections(self):
        return [connect(self.world.frame_b, self.bearing.frame_a),
                connect(self.crank2.frame_a, self.crank1.frame_b),
                connect(self.bearing.frame_b, self.crank1.frame_a),
                connect(self.world.frame_b, self.cylPosition.frame_a),
                connect(self.crank3.frame_b, self.crank4.frame_a),
                connect(self.inertia.flange_b, self.bearing.axis),
                connect(self.crank2.frame_b, self.crank3.frame_a),
                connect(self.crank2.frame_b, self.mid.frame_a),
                connect(self.cylPosition.frame_b, self.cylinder.frame_a),
                connect(self.b2.frame_a, self.mid.frame_b),
                connect(self.b2.frame_b, self.connectingRod.frame_b),
                connect(self.connectingRod.frame_a, self.b1.frame_b),
                connect(self.b1.frame_a, self.piston.frame_b),
                connect(self.cylinder.frame_b, self.piston.frame_a)]


class SpringTest(Component):
    """``ModelicaTest.MultiBody.Forces.Spring``: two bodies on vertical prismatic joints hung
    on line springs (unstretched 0.1 m) from the world origin and from (1, 0, 0), released at
    s = -1 m. MultiBody computes spring1.c during initialisation from the initial acceleration
    a = -0.81 m/s2 (a parameter with fixed=false); here that condition is solved by hand:
    m a = -m g + c (|s| - 0.1) gives c = (g - 0.81)/0.9."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.fixedTranslation = FixedTranslation(r=(1.0, 0.0, 0.0))
        self.spring = Spring(s_unstretched=0.1, c=10.0)
        self.spring1 = Spring(s_unstretched=0.1, c=(G_N - 0.81) / 0.9)
        self.body = Body(m=1.0, r_CM=(0.0, 0.0, 0.0))
        self.body1 = Body(m=1.0, r_CM=(0.0, 0.0, 0.0))
        self.prismatic = Prismatic(n=(0, 1, 0), s=Variable(start=-1.0, fixed=True),
                                   v=Variable(start=0.0, fixed=True))
        self.prismatic1 = Prismatic(n=(0, 1, 0), s=Variable(start=-1.0, fixed=True),
                                    v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.world.frame_b, self.fixedTranslation.frame_a),
                connect(self.world.frame_b, self.spring.frame_a),
                connect(self.fixedTranslation.frame_b, self.spring1.frame_a),
                connect(self.body.frame_a, self.spring.frame_b),
                connect(self.body1.frame_a, self.spring1.frame_b),
                connect(self.prismatic.frame_a, self.spring.frame_a),
                connect(self.prismatic.frame_b, self.spring.frame_b),
                connect(self.prismatic1.frame_a, self.spring1.frame_a),
                connect(self.prismatic1.frame_b, self.spring1.frame_b)]


class GyroscopicEffects(Component):
    """``Examples.Rotational3DEffects.GyroscopicEffects``: two identical gyroscopic pendulums
    on spherical joints at the origin, each a rod (0.25 m) with a disk spinning at 10 rad/s on
    an axis tilted by 45 deg: in the first the disk is a 3-D body on a revolute joint, in the
    second a rigid disk plus a ``Rotor1D`` that supplies the spin's gyroscopic torque. Both must
    move alike."""

    def __init__(self, **kw):
        super().__init__(**kw)
        from .parts import Fixed, Rotor1D

        self.world = World()
        self.spherical1 = Spherical(angles_fixed=True, w_rel_a_fixed=True)
        self.bodyCylinder1 = BodyCylinder(r=(0.25, 0.0, 0.0), diameter=0.05)
        self.fixedRotation1 = FixedRotation(angle=45.0, n=(0, 1, 0))
        self.revolute = Revolute(n=(1, 0, 0), phi=Variable(start=0.0, fixed=True),
                                 w=Variable(start=10.0, fixed=True))
        self.fixedTranslation = FixedTranslation(r=(-0.1, 0.0, 0.0))
        self.bodyCylinder2 = BodyCylinder(diameter=0.1, r=(0.2, 0.0, 0.0))
        self.fixed = Fixed()
        self.spherical2 = Spherical(angles_fixed=True, w_rel_a_fixed=True)
        self.bodyCylinder3 = BodyCylinder(r=(0.25, 0.0, 0.0), diameter=0.05)
        self.fixedRotation2 = FixedRotation(n=(0, 1, 0), angle=45.0)
        self.fixedTranslation1 = FixedTranslation(r=(-0.1, 0.0, 0.0))
        self.bodyCylinder4 = BodyCylinder(diameter=0.1, r=(0.2, 0.0, 0.0))
        self.rotor1D = Rotor1D(J=self.bodyCylinder4._overrides["I_11"], n=(1, 0, 0),
                               phi=Variable(start=0.0, fixed=True),
                               w=Variable(start=10.0, fixed=True))

    def connections(self):
        return [connect(self.world.frame_b, self.spherical1.frame_a),
                connect(self.spherical1.frame_b, self.bodyCylinder1.frame_a),
                connect(self.bodyCylinder1.frame_b, self.fixedRotation1.frame_a),
                connect(self.fixedRotation1.frame_b, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.fixedTranslation.frame_a),
                connect(self.fixedTranslation.frame_b, self.bodyCylinder2.frame_a),
                connect(self.spherical2.frame_b, self.bodyCylinder3.frame_a),
                connect(self.bodyCylinder3.frame_b, self.fixedRotation2.frame_a),
                connect(self.fixed.frame_b, self.spherical2.frame_a),
                connect(self.fixedTranslation1.frame_b, self.bodyCylinder4.frame_a),
                connect(self.fixedRotation2.frame_b, self.fixedTranslation1.frame_a),
                connect(self.rotor1D.frame_a, self.fixedRotation2.frame_b)]


class DamperTest(Component):
    """``ModelicaTest.MultiBody.Forces.Damper``: three bodies (5 kg) on horizontal prismatic
    joints, each pushed by a force 50 sin(4 pi t) N and held by a line damper (d = 10 N.s/m)
    from its anchor; the second damper's heat goes into a heat capacitor (C = 100 J/K).
    MultiBody computes damper2.d during initialisation from the initial acceleration
    a = 0.2 m/s2 (a parameter with fixed=false); here that condition is solved by hand:
    m a = -d v gives d = 5 * 0.2 / 0.1 = 10."""

    def __init__(self, **kw):
        super().__init__(**kw)
        from .. import thermal
        from ..blocks import Constant, Sine

        self.world = World()
        self.damper = Damper(d=10.0)
        self.prismatic = Prismatic(s=Variable(start=0.5, fixed=True),
                                   v=Variable(start=-0.1, fixed=True))
        self.force = forces.Force()
        self.body = Body(m=5.0, r_CM=(0.0, 0.0, 0.0))
        self.sine = Sine(f=2.0, amplitude=50.0)
        self.const = Constant(k=0.0)
        self.damper1 = Damper(d=10.0, use_heat_port=True)
        self.prismatic1 = Prismatic(s=Variable(start=0.5, fixed=True, state_priority=100),
                                    v=Variable(start=-0.1, fixed=True, state_priority=100))
        self.force1 = forces.Force()
        self.body1 = Body(m=5.0, r_CM=(0.0, 0.0, 0.0), use_quaternions=False)
        self.heatCapacitor = thermal.HeatCapacitor(C=100.0, T=Variable(start=293.15,
                                                                         fixed=True))
        self.damper2 = Damper(d=5.0 * 0.2 / 0.1)
        self.prismatic2 = Prismatic(s=Variable(start=0.5, fixed=True),
                                    v=Variable(start=-0.1, fixed=True))
        self.force2 = forces.Force()
        self.body2 = Body(m=5.0, r_CM=(0.0, 0.0, 0.0))
        self.fixedTranslation = FixedTranslation(r=(0.0, 0.1, 0.0))
        self.fixedTranslation1 = FixedTranslation(r=(0.0, 0.1, 0.0))

    def connections(self):
        out = [connect(self.prismatic.frame_b, self.body.frame_a),
               connect(self.damper.frame_b, self.body.frame_a),
               connect(self.force.frame_b, self.body.frame_a),
               connect(self.world.frame_b, self.prismatic1.frame_a),
               connect(self.damper1.frame_a, self.world.frame_b),
               connect(self.force1.frame_a, self.world.frame_b),
               connect(self.prismatic1.frame_b, self.body1.frame_a),
               connect(self.damper1.frame_b, self.body1.frame_a),
               connect(self.force1.frame_b, self.body1.frame_a),
               connect(self.heatCapacitor.port, self.damper1.heat_port),
               connect(self.prismatic2.frame_b, self.body2.frame_a),
               connect(self.damper2.frame_b, self.body2.frame_a),
               connect(self.force2.frame_b, self.body2.frame_a),
               connect(self.fixedTranslation.frame_a, self.world.frame_b),
               connect(self.fixedTranslation1.frame_a, self.fixedTranslation.frame_b),
               connect(self.prismatic.frame_a, self.fixedTranslation.frame_b),
               connect(self.damper.frame_a, self.fixedTranslation.frame_b),
               connect(self.force.frame_a, self.fixedTranslation.frame_b),
               connect(self.fixedTranslation1.frame_b, self.force2.frame_a),
               connect(self.damper2.frame_a, self.fixedTranslation1.frame_b),
               connect(self.prismatic2.frame_a, self.fixedTranslation1.frame_b)]
        for f in (self.force, self.force1, self.force2):
            out += [connect(self.sine.y, f.force[0]), connect(self.const.y, f.force[1]),
                    connect(self.const.y, f.force[2])]
        return out


class Fourbar_analytic(Component):  # noqa: N801 - MultiBody's name
    """``Examples.Loops.Fourbar_analytic``: the four-bar with a massless coupler, which
    MultiBody builds with the ``JointSSP`` assembly (it solves the loop analytically). The same
    mechanism here from its parts: a ``SphericalSpherical`` rod (length sqrt(1.1) m) from the
    crank b1 to a point 0.2 m above a slider (prismatic joint along x at (1.2, 0, 0), offset
    -0.2 m) that carries the cylinder b2. Names follow the assembly: ``jointSSP.rod1``,
    ``jointSSP.prismatic``, ``jointSSP.rod2``. One degree of freedom: j1.phi, j1.w."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        self.j1 = Revolute(n=(1, 0, 0), phi=Variable(start=0.0, fixed=True, state_priority=100),
                           w=Variable(start=5.235987755983, fixed=True, state_priority=100))
        self.b1 = BodyCylinder(r=(0.0, 0.5, 0.1), diameter=0.05)
        self.b3 = FixedTranslation(r=(1.2, 0.0, 0.0))
        self.jointSSP = _JointSSP(rod1_length=math.sqrt(1.1), n_b=(1, 0, 0), s_offset=-0.2,
                                  rRod2_ib=(0.0, 0.2, 0.0))
        self.b2 = BodyCylinder(r=(0.0, 0.2, 0.0), diameter=0.05)

    def connections(self):
        return [connect(self.j1.frame_b, self.b1.frame_a),
                connect(self.j1.frame_a, self.world.frame_b),
                connect(self.b3.frame_a, self.world.frame_b),
                connect(self.b1.frame_b, self.jointSSP.frame_a),
                connect(self.b3.frame_b, self.jointSSP.frame_b),
                connect(self.b2.frame_a, self.jointSSP.frame_ib)]


class _JointSSP(Component):
    """The parts of MultiBody's ``Joints.Assemblies.JointSSP`` (a massless rod between two
    spherical joints, then a prismatic joint) as ordinary joints: the compiler solves the loop
    numerically where MultiBody's assembly solves it in closed form."""

    # structural: they are handed to the parts when the model is built
    rod1_length = Parameter(1.0, structural=True, unit="m",
                            description="length of the spherical-spherical rod")
    n_b = Parameter((0.0, 0.0, 1.0), structural=True, unit="1", description="prismatic axis")
    s_offset = Parameter(0.0, structural=True, unit="m", description="prismatic offset")
    rRod2_ib = Parameter((1.0, 0.0, 0.0), structural=True, unit="m",
                         description="from frame_ib to the rod's end, in frame_ib")

    def __init__(self, **kw):
        super().__init__(**kw)
        from .interfaces import Frame
        from .joints import SphericalSpherical

        self.frame_a = Frame()
        self.frame_b = Frame()
        self.frame_ib = Frame()
        self.prismatic = Prismatic(n=kw.get("n_b", (0.0, 0.0, 1.0)),
                                   s_offset=kw.get("s_offset", 0.0), s=Variable(start=0.0))
        self.rod1 = SphericalSpherical(rod_length=kw.get("rod1_length", 1.0))
        self.rod2 = FixedTranslation(r=kw.get("rRod2_ib", (1.0, 0.0, 0.0)))

    def connections(self):
        return [connect(self.prismatic.frame_b, self.rod2.frame_a),
                connect(self.rod2.frame_b, self.rod1.frame_b),
                connect(self.prismatic.frame_a, self.frame_b),
                connect(self.rod2.frame_a, self.frame_ib),
                connect(self.rod1.frame_a, self.frame_a)]


class FourbarUniversalSpherical(Fourbar_analytic):
    """``Fourbar_analytic`` with its massless coupler as a ``UniversalSpherical`` rod (universal
    joint at the crank, axis z, spherical joint at the slider) instead of a
    ``SphericalSpherical`` one: the same mechanism (the coupler is massless either way), so
    the same motion; ``rod.frame_ia`` follows the coupler."""

    def __init__(self, **kw):
        super().__init__(**kw)
        from .joints import UniversalSpherical

        self.jointSSP.rod1 = UniversalSpherical(n1_a=(0, 0, 1),
                                                rRod_ia=(math.sqrt(1.1), 0.0, 0.0))


class LineForceWithTwoMasses(Component):
    """``Examples.Elementary.LineForceWithTwoMasses``: two identical systems, each a steel box
    (0.7 m) on a revolute joint whose tip is tied to a fixed point by a damped (d = 3 N.s/m)
    cylinder with two 1 kg masses 0.2 m from its ends. MultiBody builds the first cylinder
    from the ``JointUPS`` assembly with point masses on its frames and the second with
    ``LineForceWithTwoMasses``; the reference shows both move identically (to 1e-14).
    ``JointUPS`` is not in acausal's library: both systems here use
    ``LineForceWithTwoMasses`` (``revolute1`` is the first system's joint, at z = 0, and
    ``revolute2`` the second's, at z = 0.3 m)."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        for k, z in ((1, 0.0), (2, 0.3)):
            setattr(self, f"revolute{k}", Revolute(phi=Variable(start=0.0, fixed=True),
                                                   w=Variable(start=0.0, fixed=True)))
            setattr(self, f"bodyBox{k}", BodyBox(r=(0.7, 0.0, 0.0)))
            setattr(self, f"rod_pivot{k}", FixedTranslation(r=(0.0, 0.3, z)))
            setattr(self, f"rod_anchor{k}", FixedTranslation(r=(0.0, -0.9, z)))
            setattr(self, f"damper{k}", translational.Damper(d=3.0))
            setattr(self, f"lineForce{k}", forces.LineForceWithTwoMasses(
                L_a=0.2, L_b=0.2, m_a=1.0, m_b=1.0))

    def connections(self):
        out = []
        for k in (1, 2):
            rev, box = getattr(self, f"revolute{k}"), getattr(self, f"bodyBox{k}")
            pivot, anchor = getattr(self, f"rod_pivot{k}"), getattr(self, f"rod_anchor{k}")
            damper, line = getattr(self, f"damper{k}"), getattr(self, f"lineForce{k}")
            out += [connect(self.world.frame_b, pivot.frame_a),
                    connect(pivot.frame_b, rev.frame_a),
                    connect(rev.frame_b, box.frame_a),
                    connect(self.world.frame_b, anchor.frame_a),
                    connect(line.frame_a, anchor.frame_b),
                    connect(line.frame_b, box.frame_b),
                    connect(line.flange_b, damper.flange_b),
                    connect(line.flange_a, damper.flange_a)]
        return out


class RollingWheel(Component):
    """``Examples.Elementary.RollingWheel``: a wheel (radius 0.3 m, 2 kg, I_axis 0.06,
    I_long 0.12 kg m2) rolling without slip, started upright at (0.2, 0.2) spinning at 5 rad/s
    with a roll rate of 1 rad/s; gravity along -z."""

    def __init__(self, **kw):
        super().__init__(**kw)
        from .parts import RollingWheel as Wheel

        self.world = World(n=[0.0, 0.0, -1.0])
        self.wheel1 = Wheel(radius=0.3, m=2.0, I_axis=0.06, I_long=0.12,
                                   x=Variable(start=0.2, fixed=True),
                                   y=Variable(start=0.2, fixed=True),
                                   der_angles=Variable(start=[0.0, 5.0, 1.0], fixed=True))
