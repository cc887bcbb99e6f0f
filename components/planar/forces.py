"""Planar force elements and force sources (after ``Parts/Spring.mo``, ``Parts/Damper.mo``,
``Parts/SpringDamper.mo``, ``Sources/WorldForce.mo`` and ``Sources/RelativeForce.mo`` of the
Modelica PlanarMechanics library, dzimmer/PlanarMechanics, and Multibody.jl
``src/PlanarMechanics/components.jl`` / ``sources.jl``).

Notation: ``a`` = frame_a, ``b`` = frame_b, ``D()`` = time derivative, ``R(phi)`` = rotation
matrix local -> world. Flows are the cut forces acting *on* the element: ``b.fx = f_x`` means
that the element pulls the frame_b side towards frame_a when ``f_x > 0``.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der
from acausal.errors import ParameterError

from . import viewer_shapes
from .interfaces import Frame, rotation


class _RelativeFrames(Component):
    """Two frames and their world-resolved relative position and angle.

    Equations::

        s_relx = b.x - a.x;  s_rely = b.y - a.y;  phi_rel = b.phi - a.phi
        (b.fx, b.fy) = (f_x, f_y);  (a.fx, a.fy) = -(f_x, f_y)   (force from a on b: tension > 0)
    """

    frame_a = Frame()
    frame_b = Frame()
    s_relx = Variable(unit="m", description="relative position b.x - a.x")
    s_rely = Variable(unit="m", description="relative position b.y - a.y")
    phi_rel = Variable(unit="rad", description="relative angle b.phi - a.phi")
    f_x = Variable(unit="N", description="force in world x on frame_b (tension positive)")
    f_y = Variable(unit="N", description="force in world y on frame_b (tension positive)")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        return [Eq(self.s_relx, b.x - a.x), Eq(self.s_rely, b.y - a.y),
                Eq(self.phi_rel, b.phi - a.phi),
                Eq(a.fx, -self.f_x), Eq(b.fx, self.f_x), Eq(a.fy, -self.f_y), Eq(b.fy, self.f_y)]


class Spring(_RelativeFrames):
    """World-axis-aligned linear spring (independent stiffnesses in world x and y; it is **not**
    a line spring, and it transmits no torque).

    Equations::

        s_relx = b.x - a.x;  s_rely = b.y - a.y;  phi_rel = b.phi - a.phi
        f_x = c_x*(s_relx - s_relx0);  f_y = c_y*(s_rely - s_rely0)
        a.fx = -f_x;  b.fx = f_x;  a.fy = -f_y;  b.fy = f_y
        a.tau = 0;  b.tau = 0

    ``c_phi``, ``phi_rel0`` and ``s_small`` are kept for name compatibility but, as in both source
    libraries, are not used in the equations.

    Source: ``PlanarMechanics/Parts/Spring.mo``; Multibody.jl ``Spring(; c_x, c_y, c_phi,
    s_relx0, s_rely0, phi_rel0, s_small)``. Viewer: a blue coil from frame_a to frame_b.
    """

    visual_shapes = viewer_shapes.spring

    c_x = Parameter(1.0, min=0.0, unit="N/m", description="spring stiffness in world x direction")
    c_y = Parameter(1.0, min=0.0, unit="N/m", description="spring stiffness in world y direction")
    c_phi = Parameter(1.0e5, min=0.0, unit="N.m/rad", description="rotational stiffness (not used)")
    s_relx0 = Parameter(0.0, unit="m", description="unstretched spring length in x")
    s_rely0 = Parameter(0.0, unit="m", description="unstretched spring length in y")
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched spring angle (not used)")
    s_small = Parameter(1.0e-10, unit="m", description="small length (not used; animation only)")

    def equations(self):
        return [*super().equations(),
                Eq(self.f_x, self.c_x * (self.s_relx - self.s_relx0)),
                Eq(self.f_y, self.c_y * (self.s_rely - self.s_rely0)),
                Eq(self.frame_a.tau, 0), Eq(self.frame_b.tau, 0)]


class Damper(Component):
    """Linear line damper acting along the line from frame_a to frame_b.

    Equations::

        (a.x, a.y) + r0 = (b.x, b.y)
        d0 = r0/|r0|  if |r0| >= s_small  else  r0/s_small
        D(a.x) + vx = D(b.x);  D(a.y) + vy = D(b.y)
        v = (vx, vy) . d0;  f = -d*v
        a.fx = d0x*f;  a.fy = d0y*f;  a.tau = 0
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0
        lossPower = -f*v

    The degenerate branch (``|r0| < s_small``) follows Modelica (Multibody.jl uses ``d0 = r0``).

    Source: ``PlanarMechanics/Parts/Damper.mo``; Multibody.jl ``Damper(; d, s_small)``.
    Viewer: a blue cylinder from frame_a to frame_b.
    """

    visual_shapes = viewer_shapes.damper

    d = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant")
    s_small = Parameter(1.0e-10, unit="m",
                        description="length below which the direction is not normalised")
    frame_a = Frame()
    frame_b = Frame()
    r0 = Variable(shape=2, unit="m", description="vector from frame_a to frame_b (world)")
    d0 = Variable(shape=2, unit="1", description="normalised direction of r0")
    vx = Variable(unit="m/s", description="relative velocity in world x")
    vy = Variable(unit="m/s", description="relative velocity in world y")
    v = Variable(unit="m/s", description="relative velocity along d0 (elongation speed)")
    f = Variable(unit="N", description="damper force (compression positive: f = -d*v)")
    lossPower = Variable(unit="W", description="power dissipated by the damper")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        length = sp.sqrt(self.r0[0] ** 2 + self.r0[1] ** 2)
        eqs = [Eq(a.x + self.r0[0], b.x), Eq(a.y + self.r0[1], b.y)]
        eqs += [Eq(self.d0[i], sp.Piecewise((self.r0[i] / length, length >= self.s_small),
                                             (self.r0[i] / self.s_small, True)))
                for i in range(2)]
        eqs += [Eq(der(self.r0[0]), self.vx), Eq(der(self.r0[1]), self.vy),
                Eq(self.v, self.vx * self.d0[0] + self.vy * self.d0[1]),
                Eq(self.f, -self.d * self.v),
                Eq(a.fx, self.d0[0] * self.f), Eq(a.fy, self.d0[1] * self.f), Eq(a.tau, 0),
                Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0),
                Eq(self.lossPower, -self.f * self.v)]
        return eqs


class SpringDamper(_RelativeFrames):
    """World-axis-aligned linear spring and damper in parallel, plus a rotational spring-damper.

    Equations::

        s_relx = b.x - a.x;  s_rely = b.y - a.y;  phi_rel = b.phi - a.phi
        v_relx = D(s_relx);  v_rely = D(s_rely);  w_rel = D(phi_rel)
        tau = c_phi*(phi_rel - phi_rel0) + d_phi*w_rel
        a.tau = -tau;  b.tau = tau
        f_x = c_x*(s_relx - s_relx0) + d_x*v_relx;  f_y = c_y*(s_rely - s_rely0) + d_y*v_rely
        a.fx = -f_x;  b.fx = f_x;  a.fy = -f_y;  b.fy = f_y
        lossPower = d_x*v_relx^2 + d_y*v_rely^2

    The default ``c_phi = 1e5`` couples the frames rotationally; set ``c_phi = d_phi = 0`` for a
    purely translational element (as the Modelica demos do).

    Source: ``PlanarMechanics/Parts/SpringDamper.mo``; Multibody.jl ``SpringDamper(; c_x, c_y,
    c_phi, d_x, d_y, d_phi, s_relx0, s_rely0, phi_rel0)``. Viewer: a blue coil around a grey
    cylinder from frame_a to frame_b.
    """

    visual_shapes = viewer_shapes.spring_damper

    c_x = Parameter(1.0, min=0.0, unit="N/m", description="spring stiffness in world x direction")
    c_y = Parameter(1.0, min=0.0, unit="N/m", description="spring stiffness in world y direction")
    c_phi = Parameter(1.0e5, min=0.0, unit="N.m/rad", description="rotational spring stiffness")
    d_x = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant in world x direction")
    d_y = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant in world y direction")
    d_phi = Parameter(1.0, min=0.0, unit="N.m.s/rad", description="rotational damping constant")
    s_relx0 = Parameter(0.0, unit="m", description="unstretched spring length in x")
    s_rely0 = Parameter(0.0, unit="m", description="unstretched spring length in y")
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched spring angle")
    v_relx = Variable(unit="m/s", description="relative velocity D(s_relx)")
    v_rely = Variable(unit="m/s", description="relative velocity D(s_rely)")
    w_rel = Variable(unit="rad/s", description="relative angular velocity D(phi_rel)")
    tau = Variable(unit="N.m", description="torque of the rotational spring-damper")
    lossPower = Variable(unit="W", description="power dissipated by the translational dampers")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        return [*super().equations(),
                Eq(der(self.s_relx), self.v_relx), Eq(der(self.s_rely), self.v_rely),
                Eq(der(self.phi_rel), self.w_rel),
                Eq(self.tau, self.c_phi * (self.phi_rel - self.phi_rel0) + self.d_phi * self.w_rel),
                Eq(a.tau, -self.tau), Eq(b.tau, self.tau),
                Eq(self.f_x, self.c_x * (self.s_relx - self.s_relx0) + self.d_x * self.v_relx),
                Eq(self.f_y, self.c_y * (self.s_rely - self.s_rely0) + self.d_y * self.v_rely),
                Eq(self.lossPower, self.d_x * self.v_relx ** 2 + self.d_y * self.v_rely ** 2)]



def _resolve_angle(component, resolve_in_frame, allowed):
    if resolve_in_frame not in allowed:
        raise ParameterError(f"{type(component).__name__} '{component.path}': resolve_in_frame "
                             f"must be one of {allowed}, got {resolve_in_frame!r}.")
    if resolve_in_frame == "world":
        return 0
    if resolve_in_frame == "frame_resolve":
        return component.frame_resolve.phi
    return getattr(component, resolve_in_frame).phi


class WorldForce(Component):
    """Force and torque applied to frame_b, given by the input ``force = (F1, F2, F3)`` resolved in
    ``resolve_in_frame`` (``"world"``, ``"frame_b"`` or ``"frame_resolve"``).

    Equations::

        phi_r = 0 (world) | b.phi (frame_b) | frame_resolve.phi (frame_resolve)
        (b.fx, b.fy) + R(phi_r) * (F1, F2) = 0;  b.tau + F3 = 0

    i.e. the applied force is ``+R(phi_r) (F1, F2)`` and the applied torque ``+F3``. ``force`` is
    an input: give it equations in the enclosing model. ``frame_resolve`` exists only when
    ``resolve_in_frame == "frame_resolve"`` (it then must be connected; it carries no force).

    Source: ``PlanarMechanics/Sources/WorldForce.mo`` (``force[3]``, ``resolveInFrame``);
    Multibody.jl ``WorldForceTorque`` (``src/PlanarMechanics/sources.jl``).
    """

    resolve_in_frame = Parameter("world", description="frame in which force is resolved: "
                                 "'world', 'frame_b' or 'frame_resolve'")
    frame_b = Frame()
    force = Variable(shape=3, unit=("N", "N", "N.m"),
                     description="input (fx, fy, tau) in resolve_in_frame")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("resolve_in_frame") == "frame_resolve":
            self.frame_resolve = Frame(required=True)

    def equations(self):
        b = self.frame_b
        phi_r = _resolve_angle(self, self.resolve_in_frame, ("world", "frame_b", "frame_resolve"))
        applied = rotation(phi_r) * sp.Matrix([self.force[0], self.force[1]])
        eqs = [Eq(b.fx + applied[0], 0), Eq(b.fy + applied[1], 0), Eq(b.tau + self.force[2], 0)]
        if self.resolve_in_frame == "frame_resolve":
            fr = self.frame_resolve
            eqs += [Eq(fr.fx, 0), Eq(fr.fy, 0), Eq(fr.tau, 0)]
        return eqs


class RelativeForce(Component):
    """Force and torque acting between frame_a and frame_b, given by the input
    ``force = (F1, F2, F3)`` resolved in ``resolve_in_frame`` (``"world"``, ``"frame_a"``,
    ``"frame_b"`` or ``"frame_resolve"``); it acts with ``+`` on frame_b and ``-`` on frame_a.

    Equations::

        phi_r = 0 | a.phi | b.phi | frame_resolve.phi
        (b.fx, b.fy) + R(phi_r) * (F1, F2) = 0;  b.tau + F3 = 0
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0

    ``force`` is an input: give it equations in the enclosing model.

    Source: ``PlanarMechanics/Sources/RelativeForce.mo``.
    """

    resolve_in_frame = Parameter("frame_b", description="frame in which force is resolved: "
                                 "'world', 'frame_a', 'frame_b' or 'frame_resolve'")
    frame_a = Frame()
    frame_b = Frame()
    force = Variable(shape=3, unit=("N", "N", "N.m"),
                     description="input (fx, fy, tau) in resolve_in_frame")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("resolve_in_frame") == "frame_resolve":
            self.frame_resolve = Frame(required=True)

    def equations(self):
        a, b = self.frame_a, self.frame_b
        phi_r = _resolve_angle(self, self.resolve_in_frame,
                               ("world", "frame_a", "frame_b", "frame_resolve"))
        applied = rotation(phi_r) * sp.Matrix([self.force[0], self.force[1]])
        eqs = [Eq(b.fx + applied[0], 0), Eq(b.fy + applied[1], 0), Eq(b.tau + self.force[2], 0),
               Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0)]
        if self.resolve_in_frame == "frame_resolve":
            fr = self.frame_resolve
            eqs += [Eq(fr.fx, 0), Eq(fr.fy, 0), Eq(fr.tau, 0)]
        return eqs
