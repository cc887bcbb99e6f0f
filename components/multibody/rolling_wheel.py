"""The joint of a 3-D wheel rolling without slip on a plane (after
``Modelica.Mechanics.MultiBody.Joints.RollingWheel``, MSL 4.0): the ground z = 0, or a road with
a grade; kept apart from :mod:`.joints` for its size and re-exported there."""

from __future__ import annotations

import math

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der, root
from acausal.library.rotations import (
    axes_rotations,
    axes_rotations_angular_velocity,
    cross,
    dot,
    flat,
    vector,
)

from . import viewer_shapes
from .interfaces import Frame, vector_equations


def road_axes(grade: float) -> sp.Matrix:
    """``R_road``: the road's axes as the columns of a matrix (road -> world): ``e_x' = (c, 0,
    s)`` up the road, ``e_y' = (0, 1, 0)``, ``e_z' = (-s, 0, c)`` its upward normal, with ``c, s``
    the cosine and sine of ``grade`` (exactly 1 and 0 on a level road, so that a level road gives
    the equations of MSL's joint itself)."""
    grade = float(grade)
    c, s = (1, 0) if grade == 0.0 else (math.cos(grade), math.sin(grade))
    return sp.Matrix([[c, 0, -s], [0, 1, 0], [s, 0, c]])


class RollingWheel(Component):
    """Joint of a wheel (radius ``radius``) rolling without slip on the plane z = 0 (the
    ground's normal is the world z axis), or on a road with a ``grade``: frame_a is the wheel's
    centre, its y axis the wheel axis. The joint is the root of the wheel's orientation
    (``root(frame_a)``) and carries the coordinates: position ``x, y`` (z follows from the
    contact), Cardan ``angles`` about z, then the new y, then the new x (``sequence {3, 2, 1}``),
    and ``der_angles``; all in the road frame (the world frame on a level road).

    **Grade.** ``grade`` [rad, structural; default 0] tilts the road about the world y axis so
    that it rises towards +x: the road frame has the axes ``e_x' = (cos grade, 0, sin grade)``,
    ``e_y' = (0, 1, 0)`` and the upward normal ``e_z' = (-sin grade, 0, cos grade)`` (a grade of
    p percent is ``atan(p/100)``). The joint is MSL's joint written in that frame: ``x, y, z``
    are the centre's coordinates along ``e_x', e_y', e_z'``, the angles turn the wheel relative
    to the road frame, and the contact equations are unchanged. Gravity stays the World's
    (``World(n=(0, 0, -1))``), so a wheel on the road feels ``m*g*sin(grade)`` along it.

    Equations (``R_road`` = the road's axes as columns; ``T_r`` = road -> frame_a;
    ``e_axis = T_r' (0, 1, 0)``, ``e_n = (0, 0, 1)``, all vectors below in the road frame)::

        a.r_0 = R_road (x, y, z);  T_r = axes_rotations({3, 2, 1}, angles)
        a.T = T_r R_road';  D(angles) = der_angles
        e_long = (e_n x e_axis)/|e_n x e_axis|;  e_lat = e_long x e_n
        delta = (s, w, 0) - (x, y, z);  delta.e_axis = 0;  delta.e_long = 0
        radius = delta . (e_long x e_axis)                    (contact point on the road)
        v_c = D((x, y, z)) + w_0 x delta;  v_c.e_long = 0;  v_c.e_lat = 0   (no slip)
        F = f_n e_n + f_lat e_lat + f_long e_long;  a.f = -T_r F;  a.t = -T_r (delta x F)

    (``w_0 = T_r' a.w``: the road does not turn, so the wheel's angular velocity relative to it
    is its absolute one.)

    Source: ``MultiBody.Joints.RollingWheel`` (MSL 4.0); ``grade`` is an addition. Viewer: the
    road (a grey strip of the plane, as long as the motion).
    """

    radius = Parameter(0.3, unit="m", min=0.0, description="wheel radius")
    grade = Parameter(0.0, structural=True, unit="rad", min=-math.pi / 2, max=math.pi / 2,
                      min_exclusive=True, max_exclusive=True,
                      description="angle of the road to the world x axis, tilted about y (> 0: "
                      "the road rises towards +x; rad, not percent; fixed when compiled)")
    frame_a = Frame()
    visual_shapes = viewer_shapes.rolling_wheel_road
    x = Variable(start=0.0, unit="m", state_priority=10,
                 description="x of the centre (along the road)")
    y = Variable(start=0.0, unit="m", state_priority=10, description="y of the centre")
    z = Variable(unit="m", description="height of the centre (above the road)")
    angles = Variable(shape=3, start=0.0, unit="rad", state_priority=10,
                      description="Cardan angles about z, y, x (sequence 3, 2, 1), relative to "
                      "the road frame")
    der_angles = Variable(shape=3, start=0.0, unit="rad/s", state_priority=10,
                          description="D(angles)")
    s = Variable(unit="m", description="x of the contact point (along the road)")
    w = Variable(unit="m", description="y of the contact point")
    f_n = Variable(unit="N", description="normal contact force")
    f_lat = Variable(unit="N", description="lateral contact force")
    f_long = Variable(unit="N", description="longitudinal contact force")

    def connections(self):
        return [root(self.frame_a)]

    def equations(self):
        fa = self.frame_a
        seq = (3, 2, 1)
        angles, rates = list(self.angles), list(self.der_angles)
        Tr = axes_rotations(seq, angles)
        road = road_axes(self.grade)
        e_n = vector([0, 0, 1])
        e_axis = Tr.T * vector([0, 1, 0])
        aux = cross(e_n, e_axis)
        e_long = aux / sp.sqrt(dot(aux, aux))
        e_lat = cross(e_long, e_n)
        r0 = vector([self.x, self.y, self.z])
        delta = vector([self.s, self.w, 0]) - r0
        w_0 = Tr.T * vector(fa.w)
        v_c = der(r0) + cross(w_0, delta)
        F = self.f_n * e_n + self.f_lat * e_lat + self.f_long * e_long
        return [*vector_equations(fa.r_0, road * r0),
                *vector_equations(fa.T, flat(Tr * road.T)),
                *vector_equations(fa.w, axes_rotations_angular_velocity(seq, angles, rates)),
                *vector_equations(der(self.angles), self.der_angles),
                Eq(dot(delta, e_axis), 0), Eq(dot(delta, e_long), 0),
                Eq(self.radius, dot(delta, cross(e_long, e_axis))),
                Eq(dot(v_c, e_long), 0), Eq(dot(v_c, e_lat), 0),
                *vector_equations(vector(fa.f) + Tr * F, [0, 0, 0]),
                *vector_equations(vector(fa.t) + Tr * cross(delta, F), [0, 0, 0])]
