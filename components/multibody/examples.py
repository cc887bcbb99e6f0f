"""MultiBody's example models rebuilt from this library (``Modelica.Mechanics.MultiBody.Examples``
and the joint tests of ``ModelicaTest.MultiBody``, MSL 4.0), with their parameters, topology and
initial values. Component names are the Modelica ones, so that a result column such as
``rev.phi`` has the same name in both tools. ``tests/validation/multibody`` compares each with the
Dymola reference results.
"""

from __future__ import annotations

from acausal import Component, Variable, connect
from acausal.components import rotational

from .joints import Prismatic, Revolute
from .parts import Body, BodyBox, BodyCylinder, FixedTranslation
from .world import World


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
