"""Planar joints (after the ``Joints`` package of the Modelica PlanarMechanics library,
dzimmer/PlanarMechanics, and Multibody.jl ``src/PlanarMechanics/joints.jl``).

The joint coordinate and its speed have ``state_priority=10`` (as Multibody.jl), so that index
reduction picks them as states instead of the Cartesian coordinates of the bodies.

``use_axis_flange`` (structural; the name of Modelica MultiBody's ``useAxisFlange``, as the 3-D
joints of :mod:`acausal.components.multibody.joints`; PlanarMechanics ``useFlange``, Multibody.jl
``axisflange``) adds a 1-D flange ``flange_a`` (rotational for :class:`Revolute`, translational
for :class:`Prismatic`) that drives the joint coordinate; the flange's support is fixed to the
ground (there is no support connector). Without a flange the joint is force-free. The connector
keeps PlanarMechanics' name ``flange_a`` (the 3-D joints call theirs ``axis`` and add a
``support``). The former keyword ``use_flange`` is refused with an error naming the new one.

Notation: ``a`` = frame_a, ``b`` = frame_b, ``D()`` = time derivative, ``R(phi)`` = rotation
matrix local -> world, ``r x f = r_x f_y - r_y f_x``.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der

from .. import rotational, translational
from . import viewer_shapes
from .interfaces import Frame, cross, force, position, rotation
from .naming import RenamedKeywords


class Revolute(RenamedKeywords, Component):
    """Revolute joint: frame_b rotates by ``phi`` relative to frame_a about their common origin.

    Equations::

        w = D(phi);  z = D(w)
        a.x = b.x;  a.y = b.y;  a.phi + phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0
        a.tau = tau
        use_axis_flange=False:  tau = 0
        use_axis_flange=True:   flange_a.phi = phi;  flange_a.tau = tau   (support fixed)

    ``tau`` is the generalised force on ``phi``: a driving torque source on the flange gives
    ``tau`` equal to the source torque (Modelica names this variable ``t``).

    Source: ``PlanarMechanics/Joints/Revolute.mo`` (``useFlange``, ``stateSelect``);
    Multibody.jl ``Revolute(; axisflange, state_priority=10)`` in ``src/PlanarMechanics/joints.jl``.
    Viewer: a red cylinder along z at frame_a.
    """

    renamed = {"use_flange": "use_axis_flange"}
    use_axis_flange = Parameter(False, description="add the 1-D rotational flange flange_a")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.revolute
    phi = Variable(start=0.0, unit="rad", description="relative rotation angle b.phi - a.phi",
                   state_priority=10)
    w = Variable(start=0.0, unit="rad/s", description="relative angular velocity D(phi)",
                 state_priority=10)
    z = Variable(unit="rad/s2", description="relative angular acceleration D(w)")
    tau = Variable(unit="N.m", description="joint torque (generalised force on phi)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("use_axis_flange", False):
            self.flange_a = rotational.Flange()

    def equations(self):
        a, b = self.frame_a, self.frame_b
        eqs = [Eq(der(self.phi), self.w), Eq(der(self.w), self.z),
               Eq(a.x, b.x), Eq(a.y, b.y), Eq(a.phi + self.phi, b.phi),
               Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0),
               Eq(a.tau, self.tau)]
        if self.use_axis_flange:
            eqs += [Eq(self.flange_a.phi, self.phi), Eq(self.flange_a.tau, self.tau)]
        else:
            eqs += [Eq(self.tau, 0)]
        return eqs


class Prismatic(RenamedKeywords, Component):
    """Prismatic joint: frame_b is displaced by ``s`` along the direction ``r`` (given in frame_a
    at phi = 0) from frame_a.

    Equations::

        e = r/|r|;  e0 = R(a.phi) * e;  r0 = e0*s
        v = D(s);  a = D(v)
        (a.x, a.y) + r0 = (b.x, b.y);  a.phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0
        a.tau + b.tau + r0 x (b.fx, b.fy) = 0
        (a.fx, a.fy) . e0 = f
        use_axis_flange=False:  f = 0
        use_axis_flange=True:   flange_a.s = s;  flange_a.f = f   (support fixed)

    Source: ``PlanarMechanics/Joints/Prismatic.mo`` (``useFlange``, ``stateSelect``);
    Multibody.jl ``Prismatic(; r, s, v, axisflange)`` in ``src/PlanarMechanics/joints.jl``.
    Viewer: a red box from frame_a to frame_b.
    """

    renamed = {"use_flange": "use_axis_flange"}
    use_axis_flange = Parameter(False, description="add the 1-D translational flange flange_a")
    r = Parameter([1.0, 0.0], unit="m",
                  description="direction of the translation in frame_a (normalised internally)")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.prismatic
    s = Variable(start=0.0, unit="m", description="relative displacement along e0",
                 state_priority=10)
    v = Variable(start=0.0, unit="m/s", description="relative velocity D(s)", state_priority=10)
    a = Variable(unit="m/s2", description="relative acceleration D(v)")
    f = Variable(unit="N", description="joint force along e0 (generalised force on s)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("use_axis_flange", False):
            self.flange_a = translational.Flange()

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        e = self.r / sp.sqrt(self.r[0] ** 2 + self.r[1] ** 2)
        e0 = rotation(fa.phi) * e
        r0 = e0 * self.s
        eqs = [Eq(der(self.s), self.v), Eq(der(self.v), self.a)]
        eqs += [Eq((position(fa) + r0)[i], position(fb)[i]) for i in range(2)]
        eqs += [Eq(fa.phi, fb.phi), Eq(fa.fx + fb.fx, 0), Eq(fa.fy + fb.fy, 0),
                Eq(fa.tau + fb.tau + cross(r0, force(fb)), 0),
                Eq(force(fa).dot(e0), self.f)]
        if self.use_axis_flange:
            eqs += [Eq(self.flange_a.s, self.s), Eq(self.flange_a.f, self.f)]
        else:
            eqs += [Eq(self.f, 0)]
        return eqs
