"""3-D force elements: line forces between two frames, forces and torques given as signals
(after ``Modelica.Mechanics.MultiBody.Forces``, MSL 4.0).

Line forces act along the line between the origins of frame_a and frame_b; ``f`` is positive
for tension (the frames are pulled together), as in MultiBody. They state no branch and, unless
``fixed_rotation_at_frame_a``/``_b``, transmit no torque, so the orientation of their frames must
come from what they are connected to.

Notation: ``r_rel_0 = b.r_0 - a.r_0``, ``length = |r_rel_0|``, ``s = max(length, s_small)``,
``e_rel_0 = r_rel_0 / s`` (world frame), ``T_a`` = a's orientation.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Outer, Parameter, Variable, connect, der, root
from acausal.errors import ParameterError
from acausal.library.rotations import cross, vector

from .. import thermal, translational
from ..blocks import RealInput
from . import viewer_shapes
from .interfaces import Frame, T, vector_equations
from .world import World

RESOLVE_AB = ("world", "frame_a", "frame_b", "frame_resolve")
RESOLVE_B = ("world", "frame_b", "frame_resolve")


class LineForceBase(Component):
    """Geometry of a line force (MultiBody ``Interfaces.LineForceBase``).

    Equations::

        r_rel_0 = b.r_0 - a.r_0;  length = |r_rel_0|;  s = max(length, s_small)
        e_rel_0 = r_rel_0 / s
        fixed_rotation_at_frame_a: a is a root with the world's orientation; otherwise a.t = 0
        (the same for frame_b)

    Viewer: a line from frame_a to frame_b (:class:`Spring` a coil, :class:`Damper` a cylinder).
    """

    s_small = Parameter(1e-10, unit="m", min=0.0, min_exclusive=True,
                        description="guard against division by a zero length (> 0)")
    fixed_rotation_at_frame_a = Parameter(False, description="frame_a has the world's "
                                          "orientation (a root): use when nothing else orients it")
    fixed_rotation_at_frame_b = Parameter(False, description="the same for frame_b")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.line
    length = Variable(unit="m", description="distance between the origins")
    s = Variable(unit="m", description="max(length, s_small)")
    r_rel_0 = Variable(shape=3, unit="m", description="b.r_0 - a.r_0 (world frame)")
    e_rel_0 = Variable(shape=3, unit="1", description="unit vector from a to b (world frame)")

    def connections(self):
        out = []
        if self.fixed_rotation_at_frame_a:
            out.append(root(self.frame_a))
        if self.fixed_rotation_at_frame_b:
            out.append(root(self.frame_b))
        return out

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        r = vector(self.r_rel_0)
        eqs = [*vector_equations(r, vector(fb.r_0) - vector(fa.r_0)),
               Eq(self.length, sp.sqrt(r.dot(r))), Eq(self.s, sp.Max(self.length, self.s_small)),
               *vector_equations(self.e_rel_0, r / self.s)]
        for frame, fixed in ((fa, self.fixed_rotation_at_frame_a),
                             (fb, self.fixed_rotation_at_frame_b)):
            if fixed:
                eqs += [*vector_equations(frame.T, [1, 0, 0, 0, 1, 0, 0, 0, 1]),
                        *vector_equations(frame.w, [0, 0, 0])]
            else:
                eqs += vector_equations(frame.t, [0, 0, 0])
        return eqs

    def line_load(self, f_a, f_b, m=0.0, length_fraction=0.5) -> list:
        """Equations of the frame forces for a force ``f_a`` pulling frame_a's body towards b
        and ``f_b`` pulling frame_b's body away from a (both along ``e_rel_0``), with a point
        mass ``m`` on the line at ``length_fraction`` from frame_a (MultiBody
        ``LineForceWithMass``)::

            m = 0:  a.f = -T_a e_rel_0 f_a;   b.f = -T_b e_rel_0 f_b
            m > 0:  a.f = T_a (m (1 - lf) ag_CM_0 - e_rel_0 f_a)
                    b.f = T_b (m lf ag_CM_0 - e_rel_0 f_b)
                    ag_CM_0 = D(D(a.r_0 + lf r_rel_0)) - g
        """
        fa, fb = self.frame_a, self.frame_b
        e = vector(self.e_rel_0)
        if float(m) <= 0.0:
            return [*vector_equations(fa.f, -T(fa) * e * f_a),
                    *vector_equations(fb.f, -T(fb) * e * f_b),
                    *vector_equations(self.r_CM_0, [0, 0, 0]),
                    *vector_equations(self.v_CM_0, [0, 0, 0])]
        r_cm = vector(self.r_CM_0)
        ag = der(self.v_CM_0) - self.world.gravity_acceleration(r_cm)
        return [*vector_equations(r_cm, vector(fa.r_0) + vector(self.r_rel_0) * length_fraction),
                *vector_equations(der(self.r_CM_0), self.v_CM_0),
                *vector_equations(fa.f, T(fa) * (m * (1 - length_fraction) * ag - e * f_a)),
                *vector_equations(fb.f, T(fb) * (m * length_fraction * ag - e * f_b))]


class _LineMass(LineForceBase):
    """A line force with an optional point mass ``m`` at ``length_fraction`` of the line (the
    declarations :meth:`LineForceBase.line_load` needs)."""

    m = Parameter(0.0, structural=True, unit="kg", min=0.0, description="mass on the line")
    # MultiBody's LineForceWithMass: lengthFraction(final min=0, final max=1)
    length_fraction = Parameter(0.5, structural=True, unit="1", min=0.0, max=1.0,
                                description="position of the mass: fraction of the length")
    world = Outer(World)
    r_CM_0 = Variable(shape=3, unit="m", description="position of the mass (0 without mass)")
    v_CM_0 = Variable(shape=3, unit="m/s", description="velocity of the mass")


class LineForceWithMass(_LineMass):
    """A line force whose law is given by 1-D translational components between ``flange_a``
    (at ``s = 0``) and ``flange_b`` (at ``s = length``), with an optional point mass ``m`` at
    ``length_fraction`` of the line (MultiBody ``Forces.LineForceWithMass``). Connect both
    flanges (e.g. a ``translational.Spring`` between them).

    Equations: those of :class:`LineForceBase`, ``flange_a.s = 0``, ``flange_b.s = length``,
    and :meth:`LineForceBase.line_load` with ``f_a = flange_a.f``, ``f_b = flange_b.f``.
    """

    flange_a = translational.Flange()
    flange_b = translational.Flange()

    def equations(self):
        return [*super().equations(), Eq(self.flange_a.s, 0), Eq(self.flange_b.s, self.length),
                *self.line_load(self.flange_a.f, self.flange_b.f, self.m,
                                self.length_fraction)]


class _TensionForce(_LineMass):
    """A line force with a scalar tension ``f`` given by :meth:`tension`."""

    f = Variable(unit="N", description="tension along the line (positive: pulls together)")

    def tension(self):
        raise NotImplementedError

    def equations(self):
        return [*super().equations(), Eq(self.f, self.tension()),
                *self.line_load(self.f, -self.f, self.m, self.length_fraction)]


class Spring(_TensionForce):
    """Linear line spring: ``f = c (length - s_unstretched)`` (MultiBody ``Forces.Spring``,
    optionally with a point mass ``m`` on the line). Viewer: a blue coil from frame_a to
    frame_b."""

    c = Parameter(1.0, unit="N/m", min=0.0, description="spring constant")
    s_unstretched = Parameter(0.0, unit="m", description="unstretched length")
    visual_shapes = viewer_shapes.spring

    def tension(self):
        return self.c * (self.length - self.s_unstretched)


class Damper(_TensionForce):
    """Linear line damper: ``f = d D(s)`` (MultiBody ``Forces.Damper``). With
    ``use_heat_port=True`` the dissipated power ``lossPower = f D(s)`` leaves through the
    thermal connector ``heat_port`` (``heat_port.Q_flow = -lossPower``); without it the heat
    is not tracked. Viewer: a grey cylinder from frame_a to frame_b."""

    d = Parameter(0.0, unit="N.s/m", min=0.0, description="damping constant")
    use_heat_port = Parameter(False, description="add the thermal connector heat_port")
    lossPower = Variable(unit="W", description="dissipated power f D(s)")
    visual_shapes = viewer_shapes.damper

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("use_heat_port", False):
            self.heat_port = thermal.HeatPort()

    def tension(self):
        return self.d * der(self.s)

    def equations(self):
        eqs = [*super().equations(), Eq(self.lossPower, self.f * der(self.s))]
        if self.use_heat_port:
            eqs.append(Eq(self.heat_port.Q_flow, -self.lossPower))
        return eqs


class SpringDamperParallel(_TensionForce):
    """Line spring and damper in parallel: ``f = c (s - s_unstretched) + d D(s)`` (MultiBody
    ``Forces.SpringDamperParallel``). Viewer: a blue coil from frame_a to frame_b."""

    c = Parameter(1.0, unit="N/m", min=0.0, description="spring constant")
    s_unstretched = Parameter(0.0, unit="m", description="unstretched length")
    d = Parameter(0.0, unit="N.s/m", min=0.0, description="damping constant")
    visual_shapes = viewer_shapes.spring

    def tension(self):
        return self.c * (self.s - self.s_unstretched) + self.d * der(self.s)


def _signal(inputs) -> sp.Matrix:
    return vector([i.u for i in inputs])


def _resolve_option(element, overrides: dict, allowed: tuple) -> None:
    """Check ``resolve_in_frame`` when the element is created and add the connector
    ``frame_resolve`` (which must be connected) when it is asked for."""
    value = overrides.get("resolve_in_frame",
                          element._class_declarations()["resolve_in_frame"].default)
    if value not in allowed:
        raise ParameterError(f"{type(element).__name__}: resolve_in_frame must be one of "
                             f"{', '.join(allowed)}, got {value!r}.")
    if value == "frame_resolve":
        element.frame_resolve = Frame(required=True)


def _resolve_frame_load(element) -> list:
    """``frame_resolve`` (when there is one) only tells a direction: it takes no load."""
    if element.resolve_in_frame != "frame_resolve":
        return []
    fr = element.frame_resolve
    return [*vector_equations(fr.f, [0, 0, 0]), *vector_equations(fr.t, [0, 0, 0])]


def _in_world(element, v: sp.Matrix) -> sp.Matrix:
    """The signal vector ``v``, given in the element's ``resolve_in_frame``, in the world
    frame."""
    how = element.resolve_in_frame
    return v if how == "world" else T(getattr(element, how)).T * v


class _WorldLoad(Component):
    """A force or torque on the part at frame_b from 3 signals, resolved in
    ``resolve_in_frame``; the signal inputs are named by ``signal``."""

    signal = "force"
    resolve_in_frame = Parameter("world", description=" | ".join(RESOLVE_B))
    frame_b = Frame()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        setattr(self, self.signal, [RealInput() for _ in range(3)])
        _resolve_option(self, overrides, RESOLVE_B)

    def load(self) -> sp.Matrix:
        """The load resolved in frame_b."""
        return T(self.frame_b) * _in_world(self, _signal(getattr(self, self.signal)))


class WorldForce(_WorldLoad):
    """A force given by the 3 signals ``force`` acting on the part at frame_b, resolved in
    ``resolve_in_frame`` = ``"world"`` (default), ``"frame_b"`` or ``"frame_resolve"``
    (MultiBody ``Forces.WorldForce``): ``b.f = -T_b force_0``, ``b.t = 0`` (``force_0``: the
    force resolved in the world frame)."""

    def equations(self):
        fb = self.frame_b
        return [*vector_equations(fb.t, [0, 0, 0]), *vector_equations(fb.f, -self.load()),
                *_resolve_frame_load(self)]


class WorldTorque(_WorldLoad):
    """A torque given by the 3 signals ``torque`` acting on the part at frame_b, resolved as in
    :class:`WorldForce` (MultiBody ``Forces.WorldTorque``): ``b.t = -T_b torque_0``,
    ``b.f = 0``."""

    signal = "torque"

    def equations(self):
        fb = self.frame_b
        return [*vector_equations(fb.f, [0, 0, 0]), *vector_equations(fb.t, -self.load()),
                *_resolve_frame_load(self)]


class ForceAndTorque(Component):
    """A force and a torque, each given by 3 signals, acting on the part at frame_b, with the
    reaction on the part at frame_a (MultiBody ``Forces.ForceAndTorque``). ``resolve_in_frame``
    = ``"frame_b"`` (default), ``"frame_a"``, ``"world"`` or ``"frame_resolve"`` (then connect
    ``frame_resolve``, which takes no force).

    Equations (``F_0``, ``M_0``: force and torque on frame_b's part, world frame;
    ``r_0 = b.r_0 - a.r_0``)::

        b.f = -T_b F_0;  b.t = -T_b M_0
        a.f = T_a F_0;   a.t = T_a (M_0 + r_0 x F_0)
    """

    resolve_in_frame = Parameter("frame_b", description=" | ".join(RESOLVE_AB))
    frame_a = Frame()
    frame_b = Frame()

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self.force = [RealInput() for _ in range(3)]
        self.torque = [RealInput() for _ in range(3)]
        _resolve_option(self, overrides, RESOLVE_AB)

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        F0 = _in_world(self, _signal(self.force))
        M0 = _in_world(self, _signal(self.torque))
        r0 = vector(fb.r_0) - vector(fa.r_0)
        return [*vector_equations(fb.f, -T(fb) * F0), *vector_equations(fb.t, -T(fb) * M0),
                *vector_equations(fa.f, T(fa) * F0),
                *vector_equations(fa.t, T(fa) * (M0 + cross(r0, F0))),
                *_resolve_frame_load(self)]


class Force(ForceAndTorque):
    """A force given by 3 signals ``force`` acting on the part at frame_b, the reaction on the
    part at frame_a (MultiBody ``Forces.Force``; ``resolve_in_frame`` as
    :class:`ForceAndTorque`, default ``"frame_b"``): :class:`ForceAndTorque` without a torque."""

    def __init__(self, **overrides):
        super().__init__(**overrides)
        from ..blocks import Constant

        self.no_torque = [Constant(k=0.0) for _ in range(3)]

    def connections(self):
        return [connect(c.y, i) for c, i in zip(self.no_torque, self.torque)]


class LineForceWithTwoMasses(LineForceBase):
    """A line force (1-D translational components between ``flange_a``, at ``s = 0``, and
    ``flange_b``, at ``s = length``) with two point masses on the line: ``m_a`` at ``L_a``
    from frame_a and ``m_b`` at ``L_b`` from frame_b, as the two halves of a hydraulic or
    pneumatic cylinder (MultiBody ``Forces.LineForceWithTwoMasses``). The masses' inertia
    across the line is carried by the frames.

    Equations (``f_a = flange_a.f``, ``f_b = flange_b.f``; ``e = e_rel_0``)::

        r_CM1 = a.r_0 + e L_a;  r_CM2 = b.r_0 - e L_b
        ag_1 = D(D(r_CM1)) - g(r_CM1);  ag_2 = D(D(r_CM2)) - g(r_CM2)
        aux = ag_1 m_a L_a/length - ag_2 m_b L_b/length;  aux_perp = aux - (aux.e) e
        a.f = T_a (m_a ag_1 - aux_perp - e f_a);  b.f = T_b (m_b ag_2 + aux_perp - e f_b)
    """

    m_a = Parameter(0.0, structural=True, unit="kg", min=0.0, description="mass near frame_a")
    m_b = Parameter(0.0, structural=True, unit="kg", min=0.0, description="mass near frame_b")
    L_a = Parameter(0.0, structural=True, unit="m", min=0.0,
                    description="m_a's distance from frame_a")
    L_b = Parameter(0.0, structural=True, unit="m", min=0.0,
                    description="m_b's distance from frame_b")
    world = Outer(World)
    flange_a = translational.Flange()
    flange_b = translational.Flange()
    r_CM1_0 = Variable(shape=3, unit="m", description="position of m_a (world frame)")
    r_CM2_0 = Variable(shape=3, unit="m", description="position of m_b (world frame)")
    v_CM1_0 = Variable(shape=3, unit="m/s", description="velocity of m_a")
    v_CM2_0 = Variable(shape=3, unit="m/s", description="velocity of m_b")

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        e = vector(self.e_rel_0)
        m_a, m_b = float(self.m_a), float(self.m_b)
        L_a, L_b = float(self.L_a), float(self.L_b)
        r1, r2 = vector(self.r_CM1_0), vector(self.r_CM2_0)
        g = self.world.gravity_acceleration
        ag1 = der(self.v_CM1_0) - g(r1)
        ag2 = der(self.v_CM2_0) - g(r2)
        aux = ag1 * (m_a * L_a) / self.length - ag2 * (m_b * L_b) / self.length
        aux_perp = aux - aux.dot(e) * e
        return [*super().equations(), Eq(self.flange_a.s, 0), Eq(self.flange_b.s, self.length),
                *vector_equations(r1, vector(fa.r_0) + e * L_a),
                *vector_equations(r2, vector(fb.r_0) - e * L_b),
                *vector_equations(der(self.r_CM1_0), self.v_CM1_0),
                *vector_equations(der(self.r_CM2_0), self.v_CM2_0),
                *vector_equations(fa.f, T(fa) * (m_a * ag1 - aux_perp - e * self.flange_a.f)),
                *vector_equations(fb.f, T(fb) * (m_b * ag2 + aux_perp - e * self.flange_b.f))]
