"""The joint of a 3-D wheel rolling without slip on a plane (after
``Modelica.Mechanics.MultiBody.Joints.RollingWheel``, MSL 4.0); kept apart from
:mod:`.joints` for its size and re-exported there."""

from __future__ import annotations

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

from .interfaces import Frame, vector_equations


class RollingWheel(Component):
    """Joint of a wheel (radius ``radius``) rolling without slip on the plane z = 0 (the
    ground's normal is the world z axis): frame_a is the wheel's centre, its y axis the wheel
    axis. The joint is the root of the wheel's orientation (``root(frame_a)``) and carries the
    coordinates: position ``x, y`` (z follows from the contact), Cardan ``angles`` about z,
    then the new y, then the new x (``sequence {3, 2, 1}``), and ``der_angles``.

    Equations (``e_axis = T_a' (0, 1, 0)``, ``e_n = (0, 0, 1)``)::

        a.r_0 = (x, y, z);  T_a = axes_rotations({3, 2, 1}, angles);  D(angles) = der_angles
        e_long = (e_n x e_axis)/|e_n x e_axis|;  e_lat = e_long x e_n
        delta = (s, w, 0) - a.r_0;  delta.e_axis = 0;  delta.e_long = 0
        radius = delta . (e_long x e_axis)                    (contact point on the ground)
        v_c = D(a.r_0) + w_0 x delta;  v_c.e_long = 0;  v_c.e_lat = 0   (no slip)
        F = f_n e_n + f_lat e_lat + f_long e_long;  a.f = -T_a F;  a.t = -T_a (delta x F)

    Source: ``MultiBody.Joints.RollingWheel`` (MSL 4.0).
    """

    radius = Parameter(0.3, unit="m", min=0.0, description="wheel radius")
    frame_a = Frame()
    x = Variable(start=0.0, unit="m", state_priority=10, description="x of the centre")
    y = Variable(start=0.0, unit="m", state_priority=10, description="y of the centre")
    z = Variable(unit="m", description="height of the centre")
    angles = Variable(shape=3, start=0.0, unit="rad", state_priority=10,
                      description="Cardan angles about z, y, x (sequence 3, 2, 1)")
    der_angles = Variable(shape=3, start=0.0, unit="rad/s", state_priority=10,
                          description="D(angles)")
    s = Variable(unit="m", description="x of the contact point")
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
        Ta = axes_rotations(seq, angles)
        e_n = vector([0, 0, 1])
        e_axis = Ta.T * vector([0, 1, 0])
        aux = cross(e_n, e_axis)
        e_long = aux / sp.sqrt(dot(aux, aux))
        e_lat = cross(e_long, e_n)
        r0 = vector([self.x, self.y, self.z])
        delta = vector([self.s, self.w, 0]) - r0
        w_0 = Ta.T * vector(fa.w)
        v_c = der(r0) + cross(w_0, delta)
        F = self.f_n * e_n + self.f_lat * e_lat + self.f_long * e_long
        return [*vector_equations(fa.r_0, r0), *vector_equations(fa.T, flat(Ta)),
                *vector_equations(fa.w, axes_rotations_angular_velocity(seq, angles, rates)),
                *vector_equations(der(self.angles), self.der_angles),
                Eq(dot(delta, e_axis), 0), Eq(dot(delta, e_long), 0),
                Eq(self.radius, dot(delta, cross(e_long, e_axis))),
                Eq(dot(v_c, e_long), 0), Eq(dot(v_c, e_lat), 0),
                *vector_equations(vector(fa.f) + Ta * F, [0, 0, 0]),
                *vector_equations(vector(fa.t) + Ta * cross(delta, F), [0, 0, 0])]
