"""Planar parts: ground, rigid bodies and rigid connections (after the ``Parts`` package of the
Modelica PlanarMechanics library, dzimmer/PlanarMechanics, and Multibody.jl
``src/PlanarMechanics/components.jl``).

Gravity comes from the model's :class:`World` (Modelica ``PlanarWorld``, an ``inner``): every
:class:`Body` and :class:`BodyShape` finds the nearest enclosing ``World`` (``Outer(World)``); a
model without one gets a default ``World`` with ``g = (0, -9.81)`` m/s2 named ``world``. A body can
override it with its own ``g=(gx, gy)`` (as Multibody.jl's per-body ``gy``), e.g. ``g=(0, 0)`` for
Modelica's ``enableGravity=false``; such an override is a constant of the model, while
``world.g`` is a parameter that can be changed without recompiling.

Notation in the docstrings: ``a`` = frame_a, ``b`` = frame_b, ``D()`` = time derivative,
``R(phi)`` = rotation matrix local -> world, ``r x f = r_x f_y - r_y f_x``.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Outer, Parameter, Variable, der
from acausal.errors import ParameterError

from .interfaces import Frame, cross, force, position, rotation


def _vec_eqs(lhs, rhs):
    """Component-wise equations of two 2-vectors."""
    return [Eq(lhs[i], rhs[i]) for i in range(2)]


class World(Component):
    """The planar world: uniform gravity ``g`` for every body of the model.

    No equations of its own; bodies read ``world.g``.

    Source: ``PlanarMechanics/PlanarWorld.mo`` (``constantGravity = {0, -9.81}``; the animation
    defaults of the Modelica world are not modelled).
    """

    g = Parameter([0.0, -9.81], unit="m/s2",
                  description="gravity acceleration (PlanarWorld.constantGravity)")


def _gravity(body) -> sp.Matrix:
    if body.g is None:
        return body.world.g
    g = [float(c) for c in body.g]
    if len(g) != 2:
        raise ParameterError(f"{type(body).__name__} '{body.path}': g must have 2 components "
                             "(gx, gy) in m/s2.")
    return sp.Matrix(g)


class Fixed(Component):
    """Frame fixed in the world at position ``r`` and angle ``phi``.

    Equations: ``(frame.x, frame.y) = r``; ``frame.phi = phi``.

    Source: ``PlanarMechanics/Parts/Fixed.mo`` (connector ``frame``); Multibody.jl
    ``Fixed(; r, phi)`` (connector ``frame_b``, available here as the alias ``frame_b``).
    """

    r = Parameter([0.0, 0.0], unit="m", description="position of the frame in the world")
    phi = Parameter(0.0, unit="rad", description="fixed angle of the frame")
    frame = Frame()

    @property
    def frame_b(self) -> Frame:
        return self.frame

    def equations(self):
        return [Eq(self.frame.x, self.r[0]), Eq(self.frame.y, self.r[1]),
                Eq(self.frame.phi, self.phi)]


class Body(Component):
    """Rigid body with mass ``m`` and inertia ``I`` (about the frame origin, z-axis).

    Equations::

        r = (a.x, a.y);  v = D(r);  a = D(v)
        phi = a.phi;     w = D(phi);  z = D(w)
        (a.fx, a.fy) + m*g = m*a
        a.tau = I*z

    ``g`` is ``world.g`` of the enclosing :class:`World` unless the body is given its own
    ``g=(gx, gy)`` (``g=(0, 0)`` for Modelica's ``enableGravity=false``). ``r, v, phi, w``
    have start 0 and ``state_priority=2`` (as Multibody.jl), so joint coordinates (priority 10)
    win.

    Source: ``PlanarMechanics/Parts/Body.mo``; Multibody.jl ``Body(; m, I, r, v, phi, w, gy)``
    in ``src/PlanarMechanics/components.jl`` (there the angular acceleration is named ``α``).
    """

    m = Parameter(1.0, min=0.0, unit="kg", description="mass of the body")
    I = Parameter(0.1, min=0.0, unit="kg.m2", description="inertia about the frame origin (z-axis)")  # noqa: E741
    g = Parameter(None, unit="m/s2", structural=True,
                  description="own gravity (gx, gy) instead of the world's; None: world.g")
    world = Outer(World)
    frame_a = Frame()
    r = Variable(shape=2, start=0.0, unit="m", description="position of the body (world frame)",
                 state_priority=2)
    v = Variable(shape=2, start=0.0, unit="m/s", description="velocity D(r)", state_priority=2)
    a = Variable(shape=2, unit="m/s2", description="acceleration D(v)")
    phi = Variable(start=0.0, unit="rad", description="rotation angle", state_priority=2)
    w = Variable(start=0.0, unit="rad/s", description="angular velocity D(phi)",
                 state_priority=2)
    z = Variable(unit="rad/s2", description="angular acceleration D(w)")

    def equations(self):
        fa = self.frame_a
        eqs = _vec_eqs(self.r, position(fa))
        eqs += [Eq(der(self.r[i]), self.v[i]) for i in range(2)]
        eqs += [Eq(der(self.v[i]), self.a[i]) for i in range(2)]
        eqs += [Eq(self.phi, fa.phi), Eq(der(self.phi), self.w), Eq(der(self.w), self.z)]
        eqs += _vec_eqs(force(fa) + self.m * _gravity(self), self.m * self.a)
        eqs += [Eq(fa.tau, self.I * self.z)]
        return eqs


class FixedTranslation(Component):
    """Rigid rod: frame_b is displaced by ``r`` (given in frame_a at phi = 0) from frame_a.

    Equations::

        r0 = R(a.phi) * r
        (a.x, a.y) + r0 = (b.x, b.y);  a.phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0
        a.tau + b.tau + r0 x (b.fx, b.fy) = 0

    Source: ``PlanarMechanics/Parts/FixedTranslation.mo``; Multibody.jl ``FixedTranslation(; r)``.
    """

    r = Parameter([1.0, 0.0], unit="m", description="vector from frame_a to frame_b in frame_a")
    frame_a = Frame()
    frame_b = Frame()

    def equations(self):
        a, b = self.frame_a, self.frame_b
        r0 = rotation(a.phi) * self.r
        eqs = _vec_eqs(position(a) + r0, position(b))
        eqs += [Eq(a.phi, b.phi), Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0),
                Eq(a.tau + b.tau + cross(r0, force(b)), 0)]
        return eqs


class FixedRotation(Component):
    """Frame_b is rotated by the fixed angle ``alpha`` relative to frame_a (same origin).

    Equations: ``a.x = b.x``; ``a.y = b.y``; ``a.phi + alpha = b.phi``;
    ``a.fx + b.fx = 0``; ``a.fy + b.fy = 0``; ``a.tau + b.tau = 0``.

    Source: ``PlanarMechanics/Parts/FixedRotation.mo``; Multibody.jl ``FixedRotation(; alpha)``.
    """

    alpha = Parameter(0.0, unit="rad", description="rotation angle from frame_a to frame_b")
    frame_a = Frame()
    frame_b = Frame()

    def equations(self):
        a, b = self.frame_a, self.frame_b
        return [Eq(a.x, b.x), Eq(a.y, b.y), Eq(a.phi + self.alpha, b.phi),
                Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0)]


class BodyShape(Component):
    """Rigid rod ``r`` from frame_a to frame_b carrying a body (``m``, ``I`` about the centre of
    mass) whose centre of mass is at ``r_cm`` from frame_a.

    Multibody.jl builds it as ``FixedTranslation(r)`` (a -> b) plus ``FixedTranslation(r_cm)``
    (a -> cm) plus ``Body(m, I)`` at the cm. Here the same relations are written directly
    (eliminating the internal frames)::

        r0 = R(a.phi) * r;  rcm0 = R(a.phi) * r_cm
        (a.x, a.y) + r0 = (b.x, b.y);  a.phi = b.phi
        r_cm_0 = (a.x, a.y) + rcm0;  v = D(r_cm_0);  acc = D(v)
        phi = a.phi;  w = D(phi);  z = D(w)
        f_a + f_b + m*g = m*acc                                 (f_a = (a.fx, a.fy), ...)
        a.tau + b.tau + (-rcm0) x f_a + (r0 - rcm0) x f_b = I*z   (moments about the cm)

    Source: Multibody.jl ``BodyShape(; r, r_cm=0.5r, m, I, gy)`` in
    ``src/PlanarMechanics/components.jl`` (no Modelica counterpart).
    """

    r = Parameter([1.0, 0.0], unit="m", description="vector from frame_a to frame_b in frame_a")
    r_cm = Parameter([0.5, 0.0], unit="m",
                     description="vector from frame_a to the centre of mass in frame_a")
    m = Parameter(1.0, min=0.0, unit="kg", description="mass of the body")
    I = Parameter(0.1, min=0.0, unit="kg.m2", description="inertia about the centre of mass")  # noqa: E741
    g = Parameter(None, unit="m/s2", structural=True,
                  description="own gravity (gx, gy) instead of the world's; None: world.g")
    world = Outer(World)
    frame_a = Frame()
    frame_b = Frame()
    r_0 = Variable(shape=2, start=0.0, unit="m", description="centre-of-mass position (world)",
                   state_priority=2)
    v = Variable(shape=2, start=0.0, unit="m/s", description="centre-of-mass velocity",
                 state_priority=2)
    acc = Variable(shape=2, unit="m/s2", description="centre-of-mass acceleration")
    phi = Variable(start=0.0, unit="rad", description="rotation angle", state_priority=2)
    w = Variable(start=0.0, unit="rad/s", description="angular velocity D(phi)",
                 state_priority=2)
    z = Variable(unit="rad/s2", description="angular acceleration D(w)")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        rot = rotation(a.phi)
        r0 = rot * self.r
        rcm0 = rot * self.r_cm
        fa, fb = force(a), force(b)
        eqs = _vec_eqs(position(a) + r0, position(b))
        eqs += [Eq(a.phi, b.phi)]
        eqs += _vec_eqs(self.r_0, position(a) + rcm0)
        eqs += [Eq(der(self.r_0[i]), self.v[i]) for i in range(2)]
        eqs += [Eq(der(self.v[i]), self.acc[i]) for i in range(2)]
        eqs += [Eq(self.phi, a.phi), Eq(der(self.phi), self.w), Eq(der(self.w), self.z)]
        eqs += _vec_eqs(fa + fb + self.m * _gravity(self), self.m * self.acc)
        eqs += [Eq(a.tau + b.tau + cross(-rcm0, fa) + cross(r0 - rcm0, fb), self.I * self.z)]
        return eqs

