"""3-D joints (after ``Modelica.Mechanics.MultiBody.Joints``, MSL 4.0).

Every joint's coordinates and their speeds have ``state_priority=10`` (MultiBody's
``stateSelect=StateSelect.prefer``), so index reduction picks them as states instead of the
bodies' absolute coordinates.

``use_axis_flange`` (structural, MultiBody ``useAxisFlange``) adds the 1-D flanges ``axis``
(drives or loads the joint coordinate) and ``support`` (the drive's housing, fixed in the world
as MultiBody assumes: ``support.phi = 0``). Without them the joint transmits no force or torque
along its axis.

Joints that rotate or translate frame_b relative to frame_a state ``branch(frame_a, frame_b)`` and
write the orientation from whichever frame is nearer the root of the orientation graph
(``rooted``), as MultiBody does, so that no linear system in the 9 orientation numbers arises.

Notation: ``a``/``b`` = frame_a/frame_b, ``R_rel`` = relative orientation (``T_b = R_rel T_a``),
``e`` = unit axis, ``D()`` = time derivative.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, branch, der, rooted
from acausal.errors import ParameterError
from acausal.library.rotations import cross, dot, flat, normalized, planar_rotation, vector

from .. import rotational, translational
from .interfaces import Frame, T, resolve1, vector_equations


def unit_axis(n, joint) -> sp.Matrix:
    """The joint axis as exact numbers (zero entries stay structural zeros)."""
    values = [sp.nsimplify(float(x), rational=False) for x in n]
    if len(values) != 3 or all(v == 0 for v in values):
        raise ParameterError(f"{type(joint).__name__} '{joint.path}': the axis n={tuple(n)} must "
                             "be a non-zero 3-vector.")
    return normalized(values)


def relative_rotation_equations(a, b, R_rel: sp.Matrix, w_rel) -> list:
    """``T_b = R_rel T_a`` and ``w_b = R_rel w_a + w_rel`` (MultiBody ``absoluteRotation``),
    written from the frame nearer the root; ``w_rel`` is resolved in frame_b."""
    w_rel = vector(w_rel)
    if rooted(a):
        return [*vector_equations(b.T, flat(R_rel * T(a))),
                *vector_equations(b.w, R_rel * vector(a.w) + w_rel)]
    return [*vector_equations(a.T, flat(R_rel.T * T(b))),
            *vector_equations(a.w, R_rel.T * (vector(b.w) - w_rel))]


def transmission_equations(a, b, R_rel: sp.Matrix) -> list:
    """Massless joint: frame_a carries the negated frame_b load, resolved in frame_a
    (``a.f = -R_rel' b.f``, ``a.t = -R_rel' b.t``)."""
    return [*vector_equations(vector(a.f) + R_rel.T * vector(b.f), [0, 0, 0]),
            *vector_equations(vector(a.t) + R_rel.T * vector(b.t), [0, 0, 0])]


class Revolute(Component):
    """Revolute joint: frame_b rotates by ``phi`` about the axis ``n`` (resolved in frame_a and
    frame_b) relative to frame_a; the origins coincide.

    Equations::

        e = n/|n|;  R_rel = planar_rotation(e, phi_offset + phi)
        b.r_0 = a.r_0;  T_b = R_rel T_a;  w_b = R_rel w_a + e w
        a.f = -R_rel' b.f;  a.t = -R_rel' b.t
        w = D(phi);  a = D(w);  tau = -b.t . e
        use_axis_flange:  axis.phi = phi;  axis.tau = tau;  support.phi = 0
        otherwise:        tau = 0

    Source: ``MultiBody.Joints.Revolute`` (MSL 4.0).
    """

    use_axis_flange = Parameter(False, description="add the 1-D flanges axis and support")
    n = Parameter((0.0, 0.0, 1.0), structural=True, unit="1",
                  description="axis of rotation in frame_a and frame_b (structural, as "
                  "MultiBody's Evaluate=true)")
    phi_offset = Parameter(0.0, unit="rad", description="angle offset (relative angle "
                                                        "phi_offset + phi)")
    frame_a = Frame()
    frame_b = Frame()
    phi = Variable(start=0.0, unit="rad", state_priority=10,
                   description="relative rotation angle from frame_a to frame_b")
    w = Variable(start=0.0, unit="rad/s", state_priority=10, description="D(phi)")
    a = Variable(unit="rad/s2", description="D(w)")
    tau = Variable(unit="N.m", description="driving torque in the direction of the axis")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("use_axis_flange", False):
            self.axis = rotational.Flange()
            self.support = rotational.Flange()

    def connections(self):
        return [branch(self.frame_a, self.frame_b)]

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        e = unit_axis(self.n, self)
        R_rel = planar_rotation(e, self.phi_offset + self.phi)
        eqs = [*vector_equations(fb.r_0, fa.r_0),
               *relative_rotation_equations(fa, fb, R_rel, e * self.w),
               *transmission_equations(fa, fb, R_rel),
               Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
               Eq(self.tau, -dot(vector(fb.t), e))]
        if self.use_axis_flange:
            eqs += [Eq(self.axis.phi, self.phi), Eq(self.axis.tau, self.tau),
                    Eq(self.support.phi, 0)]
        else:
            eqs.append(Eq(self.tau, 0))
        return eqs


class Prismatic(Component):
    """Prismatic joint: frame_b is translated by ``s`` along the axis ``n`` (resolved in
    frame_a) relative to frame_a; the orientations agree.

    Equations::

        e = n/|n|;  r_rel = e (s_offset + s)
        b.r_0 = a.r_0 + T_a' r_rel;  T_b = T_a;  w_b = w_a
        0 = a.f + b.f;  0 = a.t + b.t + r_rel x b.f
        v = D(s);  a = D(v);  f = -b.f . e
        use_axis_flange:  axis.s = s;  axis.f = f;  support.s = 0
        otherwise:        f = 0

    Source: ``MultiBody.Joints.Prismatic`` (MSL 4.0).
    """

    use_axis_flange = Parameter(False, description="add the 1-D flanges axis and support")
    n = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                  description="axis of translation in frame_a (structural, as MultiBody's "
                  "Evaluate=true)")
    s_offset = Parameter(0.0, unit="m", description="offset (relative distance s_offset + s)")
    frame_a = Frame()
    frame_b = Frame()
    s = Variable(start=0.0, unit="m", state_priority=10,
                 description="relative distance from frame_a to frame_b along the axis")
    v = Variable(start=0.0, unit="m/s", state_priority=10, description="D(s)")
    a = Variable(unit="m/s2", description="D(v)")
    f = Variable(unit="N", description="driving force in the direction of the axis")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("use_axis_flange", False):
            self.axis = translational.Flange()
            self.support = translational.Flange()

    def connections(self):
        return [branch(self.frame_a, self.frame_b)]

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        e = unit_axis(self.n, self)
        r_rel = e * (self.s_offset + self.s)
        eqs = [*vector_equations(fb.r_0, fa.r_0 + resolve1(fa, r_rel)),
               *vector_equations(fb.T, fa.T), *vector_equations(fb.w, fa.w),
               *vector_equations(vector(fa.f) + vector(fb.f), [0, 0, 0]),
               *vector_equations(vector(fa.t) + vector(fb.t) + cross(r_rel, fb.f), [0, 0, 0]),
               Eq(der(self.s), self.v), Eq(der(self.v), self.a),
               Eq(self.f, -dot(vector(fb.f), e))]
        if self.use_axis_flange:
            eqs += [Eq(self.axis.s, self.s), Eq(self.axis.f, self.f), Eq(self.support.s, 0)]
        else:
            eqs.append(Eq(self.f, 0))
        return eqs
