"""Planar parts: ground, rigid bodies and rigid connections (after the ``Parts`` package of the
Modelica PlanarMechanics library, dzimmer/PlanarMechanics, and Multibody.jl
``src/PlanarMechanics/components.jl``).

Gravity comes from the model's :class:`World` (Modelica ``PlanarWorld``, an ``inner``): every
:class:`Body` and :class:`BodyShape` finds the nearest enclosing ``World`` (``Outer(World)``); a
model without one gets a default ``World`` named ``world``. As Modelica MultiBody's ``World`` (and
:class:`acausal.components.multibody.World`), it has a scalar ``g`` (default standard gravity
9.80665 m/s2, ``Modelica.Constants.g_n``) and a direction ``n`` (default ``(0, -1)``,
normalised), the gravity acceleration is ``g*n/|n|``. PlanarMechanics' ``PlanarWorld`` has
``constantGravity = {0, -9.81}``: give ``World(g=9.81)`` to reproduce its results. A body can
override the world's gravity with its own acceleration vector ``g=(gx, gy)`` (as Multibody.jl's
per-body ``gy``), e.g. ``g=(0, 0)`` for Modelica's ``enableGravity=false``; such an override is a
constant of the model, while ``world.g`` and ``world.n`` are parameters that can be changed
without recompiling.

Notation in the docstrings: ``a`` = frame_a, ``b`` = frame_b, ``D()`` = time derivative,
``R(phi)`` = rotation matrix local -> world, ``r x f = r_x f_y - r_y f_x``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from acausal import Component, Eq, Outer, Parameter, Variable, der
from acausal.errors import ParameterError

from . import viewer_shapes
from .interfaces import Frame, cross, force, position, rotation
from .naming import RenamedKeywords


def _vec_eqs(lhs, rhs):
    """Component-wise equations of two 2-vectors."""
    return [Eq(lhs[i], rhs[i]) for i in range(2)]


class World(Component):
    """The planar world: uniform gravity ``g*n/|n|`` for every body of the model.

    No equations of its own; bodies read :meth:`gravity_acceleration`.

    Parameters as Modelica MultiBody's ``World`` (``g``, ``n``; the default ``g`` is standard
    gravity ``Modelica.Constants.g_n = 9.80665``). PlanarMechanics' ``PlanarWorld`` has the vector
    ``constantGravity = {0, -9.81}`` instead: ``World(g=9.81)`` reproduces it. A vector ``g``
    (the former spelling, ``World(g=[0, -9.81])``) is refused with an error saying to give
    ``g=9.81, n=[0, -1]``.

    Source: ``Modelica.Mechanics.MultiBody.World`` (uniform gravity; ``gravityType``, ``mue`` and
    the animation options are not modelled); ``PlanarMechanics/PlanarWorld.mo``. Viewer: the
    world axes and a green arrow along gravity.
    """

    g = Parameter(9.80665, unit="m/s2",
                  description="constant gravity acceleration (Modelica.Constants.g_n)")
    n = Parameter([0.0, -1.0], unit="1",
                  description="direction of gravity (normalised internally)")
    visual_shapes = viewer_shapes.world

    def __init__(self, **overrides):
        g = overrides.get("g")
        if isinstance(g, (list, tuple, np.ndarray, sp.MatrixBase)):
            raise ParameterError(_vector_gravity_message(g))
        super().__init__(**overrides)

    def gravity_acceleration(self) -> sp.Matrix:
        """The gravity acceleration ``g*n/|n|`` (world frame)."""
        n = self.n
        return self.g / sp.sqrt(n[0] ** 2 + n[1] ** 2) * sp.Matrix([n[0], n[1]])


def _vector_gravity_message(g) -> str:
    """The error for the former vector spelling ``World(g=[gx, gy])``: the scalar ``g`` and the
    direction ``n`` that give the same gravity."""
    try:
        vec = np.array(g, dtype=float).ravel()
    except (TypeError, ValueError):
        vec = np.zeros(0)
    magnitude = float(np.hypot(*vec)) if vec.size == 2 else 0.0
    if magnitude > 0.0:
        n = ", ".join(f"{c / magnitude + 0.0:g}" for c in vec)
        instead = f"g={magnitude:g}, n=[{n}]"
    else:
        instead = "g=9.81, n=[0, -1]"
    given = "[" + ", ".join(f"{c:g}" for c in vec) + "]" if vec.size else repr(g)
    return ("World: g is the scalar gravity acceleration and n its direction (as in Modelica "
            f"MultiBody), not a vector: give {instead} instead of g={given}. "
            "(PlanarMechanics' default gravity was 9.81, ours is standard gravity 9.80665; set "
            "g=9.81 to reproduce PlanarMechanics results.)")


def _gravity(body) -> sp.Matrix:
    if body.g is None:
        return body.world.gravity_acceleration()
    g = [float(c) for c in body.g]
    if len(g) != 2:
        raise ParameterError(f"{type(body).__name__} '{body.path}': g must have 2 components "
                             "(gx, gy) in m/s2 (a body's own gravity acceleration vector; the "
                             "World's g is a scalar with the direction n).")
    return sp.Matrix(g)


class Fixed(Component):
    """Frame fixed in the world at position ``r`` and angle ``phi``.

    Equations: ``(frame.x, frame.y) = r``; ``frame.phi = phi``.

    Source: ``PlanarMechanics/Parts/Fixed.mo`` (connector ``frame``); Multibody.jl
    ``Fixed(; r, phi)`` (connector ``frame_b``, available here as the alias ``frame_b``).
    Viewer: a small grey block.
    """

    r = Parameter([0.0, 0.0], unit="m", description="position of the frame in the world")
    phi = Parameter(0.0, unit="rad", description="fixed angle of the frame")
    frame = Frame()
    visual_shapes = viewer_shapes.fixed

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

    ``g`` is the gravity acceleration of the enclosing :class:`World` (``g*n/|n|``) unless the
    body is given its own ``g=(gx, gy)`` (``g=(0, 0)`` for Modelica's ``enableGravity=false``).
    ``r, v, phi, w`` have start 0 and ``state_priority=2`` (as Multibody.jl), so joint
    coordinates (priority 10) win.

    Source: ``PlanarMechanics/Parts/Body.mo``; Multibody.jl ``Body(; m, I, r, v, phi, w, gy)``
    in ``src/PlanarMechanics/components.jl`` (there the angular acceleration is named ``α``).
    Viewer: a blue sphere at frame_a.
    """

    m = Parameter(1.0, min=0.0, unit="kg", description="mass of the body")
    I = Parameter(0.1, min=0.0, unit="kg.m2", description="inertia about the frame origin (z-axis)")  # noqa: E741
    g = Parameter(None, unit="m/s2", structural=True,
                  description="own gravity (gx, gy) instead of the world's; None: world.g*n")
    world = Outer(World)
    frame_a = Frame()
    visual_shapes = viewer_shapes.body
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
    Viewer: a grey rod from frame_a to frame_b.
    """

    r = Parameter([1.0, 0.0], unit="m", description="vector from frame_a to frame_b in frame_a")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.fixed_translation

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
    Viewer: a short grey cylinder along z.
    """

    alpha = Parameter(0.0, unit="rad", description="rotation angle from frame_a to frame_b")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.fixed_rotation

    def equations(self):
        a, b = self.frame_a, self.frame_b
        return [Eq(a.x, b.x), Eq(a.y, b.y), Eq(a.phi + self.alpha, b.phi),
                Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0)]


class BodyShape(RenamedKeywords, Component):
    """Rigid rod ``r`` from frame_a to frame_b carrying a body (``m``, ``I`` about the centre of
    mass) whose centre of mass is at ``r_CM`` from frame_a (MultiBody's name; Multibody.jl's
    planar ``r_cm``, which is refused with an error naming ``r_CM``).

    Multibody.jl builds it as ``FixedTranslation(r)`` (a -> b) plus ``FixedTranslation(r_cm)``
    (a -> cm) plus ``Body(m, I)`` at the cm. Here the same relations are written directly
    (eliminating the internal frames)::

        r0 = R(a.phi) * r;  rcm0 = R(a.phi) * r_CM
        (a.x, a.y) + r0 = (b.x, b.y);  a.phi = b.phi
        r_0 = (a.x, a.y) + rcm0;  v = D(r_0);  acc = D(v)
        phi = a.phi;  w = D(phi);  z = D(w)
        f_a + f_b + m*g = m*acc                                 (f_a = (a.fx, a.fy), ...)
        a.tau + b.tau + (-rcm0) x f_a + (r0 - rcm0) x f_b = I*z   (moments about the cm)

    Source: Multibody.jl ``BodyShape(; r, r_cm=0.5r, m, I, gy)`` in
    ``src/PlanarMechanics/components.jl`` (no Modelica counterpart). Viewer: a blue rod from
    frame_a to frame_b and a sphere at the centre of mass.
    """

    r = Parameter([1.0, 0.0], unit="m", description="vector from frame_a to frame_b in frame_a")
    renamed = {"r_cm": "r_CM"}
    r_CM = Parameter([0.5, 0.0], unit="m",
                     description="vector from frame_a to the centre of mass in frame_a")
    m = Parameter(1.0, min=0.0, unit="kg", description="mass of the body")
    I = Parameter(0.1, min=0.0, unit="kg.m2", description="inertia about the centre of mass")  # noqa: E741
    g = Parameter(None, unit="m/s2", structural=True,
                  description="own gravity (gx, gy) instead of the world's; None: world.g*n")
    world = Outer(World)
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.body_shape
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
        rcm0 = rot * self.r_CM
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

