"""Small models for the viewer's tests, with their own frame connectors (so that the viewer is
tested apart from the component libraries): a planar pendulum and a 3-D top turning about a
tilted axis, whose frames are known in closed form."""

from __future__ import annotations

import sympy as sp

from acausal import Component, Connector, Eq, Flow, Parameter, Potential, Variable, Visual, der


class PlanarFrame(Connector):
    x = Potential(unit="m")
    y = Potential(unit="m")
    phi = Potential(unit="rad")
    fx = Flow(unit="N")
    fy = Flow(unit="N")
    tau = Flow(unit="N.m")


class Frame3(Connector):
    r_0 = Potential(shape=3, unit="m")
    T = Potential(shape=9)
    f = Flow(shape=3, unit="N")
    t = Flow(shape=3, unit="N.m")


class Pendulum(Component):
    """theta'' = -g/L sin(theta); the tip at (L sin theta, -L cos theta), turned by theta."""

    L = Parameter(1.0, unit="m")
    g = Parameter(9.81, unit="m/s2")
    theta = Variable(start=1.0, unit="rad")
    w = Variable(start=0.0, unit="rad/s")
    pivot = PlanarFrame()
    tip = PlanarFrame()

    def equations(self):
        return [Eq(der(self.theta), self.w),
                Eq(der(self.w), -self.g / self.L * sp.sin(self.theta)),
                Eq(self.pivot.x, 0), Eq(self.pivot.y, 0), Eq(self.pivot.phi, 0),
                Eq(self.tip.x, self.L * sp.sin(self.theta)),
                Eq(self.tip.y, -self.L * sp.cos(self.theta)), Eq(self.tip.phi, self.theta)]

    def visual_shapes(self):
        return [Visual("cylinder", "pivot", frame_b="tip"),
                Visual("sphere", "tip", length=0.2, color="#ff8000"),
                Visual("gravity", "pivot", length_direction=(0, -1))]


class Top(Component):
    """A frame turning at ``w`` about the world z axis and moving on a circle of radius R:
    r_0 = (R cos wt, R sin wt, 0.5), T = rows of the frame axes in world (T = Rz(wt)')."""

    R = Parameter(0.5, unit="m")
    w = Parameter(2.0, unit="rad/s")
    angle = Variable(start=0.0, unit="rad")
    base = Frame3()
    body = Frame3()

    def equations(self):
        c, s = sp.cos(self.angle), sp.sin(self.angle)
        rows = [c, s, 0, -s, c, 0, 0, 0, 1]
        out = [Eq(der(self.angle), self.w)]
        out += [Eq(self.base.r_0[i], 0) for i in range(3)]
        out += [Eq(self.base.T[i], v) for i, v in enumerate([1, 0, 0, 0, 1, 0, 0, 0, 1])]
        out += [Eq(self.body.r_0[0], self.R * c), Eq(self.body.r_0[1], self.R * s),
                Eq(self.body.r_0[2], 0.5)]
        out += [Eq(self.body.T[i], v) for i, v in enumerate(rows)]
        return out

    def visual_shapes(self):
        return [Visual("axes", "base"), Visual("gravity", "base", length_direction=(0, -1, 0)),
                Visual("box", "body", r_shape=(-0.1, 0, 0), length=0.2, width=0.1, height=0.05),
                Visual("line", "base", frame_b="body")]


class Spinner(Component):
    """A flywheel on a damper: 1-D rotational parts only, which have no shapes to show."""

    def __init__(self, **kw):
        super().__init__(**kw)
        from acausal.components import rotational
        self.wheel = rotational.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                                        w=Variable(start=1.0, fixed=True))
        self.damper = rotational.Damper(d=0.5)
        self.ground = rotational.Fixed()

    def connections(self):
        from acausal import connect
        return [connect(self.wheel.flange_b, self.damper.flange_b),
                connect(self.damper.flange_a, self.ground.flange)]
