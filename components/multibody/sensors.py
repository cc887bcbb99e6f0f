"""3-D sensors (after ``Modelica.Mechanics.MultiBody.Sensors``, MSL 4.0).

Kinematic sensors apply no force or torque to the frames they measure (and state no branch);
cut sensors sit between two frames, which they join rigidly (a branch), and measure the force
and torque that pass. Outputs are ordinary variables (MultiBody's ``RealOutput`` signals).

``resolve_in_frame`` (structural, MultiBody ``resolveInFrame``) says in which frame an output
vector is resolved: ``"world"``, ``"frame_a"``, ``"frame_b"`` (relative sensors) or
``"frame_resolve"`` (then the sensor has a connector ``frame_resolve`` that must be connected
and takes no force). Defaults are MultiBody's.

Notation: ``T_k`` = orientation of frame k (world -> k), ``D()`` = time derivative.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, branch, der
from acausal.errors import ParameterError
from acausal.library.rotations import vector

from .interfaces import Frame, T, vector_equations

_ZERO = [0, 0, 0]


def _no_load(*frames) -> list:
    return [e for f in frames for e in (*vector_equations(f.f, _ZERO),
                                        *vector_equations(f.t, _ZERO))]


class _Resolved(Component):
    """The ``resolve_in_frame`` option and the matrix that resolves a world vector in it."""

    allowed: tuple = ("world", "frame_a", "frame_resolve")
    resolve_in_frame = Parameter("world", description="world | frame_a | frame_resolve")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        value = overrides.get("resolve_in_frame",
                              self._class_declarations()["resolve_in_frame"].default)
        if value not in self.allowed:
            raise ParameterError(f"{type(self).__name__}: resolve_in_frame must be one of "
                                 f"{self.allowed}, got {value!r}.")
        if value == "frame_resolve":
            self.frame_resolve = Frame(required=True)

    def to_output(self, v_world) -> sp.Matrix:
        how = self.resolve_in_frame
        v = vector(v_world)
        return v if how == "world" else T(getattr(self, how)) * v

    def resolve_equations(self) -> list:
        return _no_load(self.frame_resolve) if self.resolve_in_frame == "frame_resolve" else []


class AbsolutePosition(_Resolved):
    """Position ``r`` of frame_a's origin (``r = T_res a.r_0``). MultiBody
    ``Sensors.AbsolutePosition``."""

    frame_a = Frame()
    r = Variable(shape=3, unit="m", description="position of frame_a, resolved")

    def equations(self):
        return [*_no_load(self.frame_a), *self.resolve_equations(),
                *vector_equations(self.r, self.to_output(self.frame_a.r_0))]


class AbsoluteVelocity(_Resolved):
    """Velocity ``v = T_res D(a.r_0)`` of frame_a's origin. MultiBody
    ``Sensors.AbsoluteVelocity``."""

    frame_a = Frame()
    v = Variable(shape=3, unit="m/s", description="velocity of frame_a, resolved")

    def equations(self):
        return [*_no_load(self.frame_a), *self.resolve_equations(),
                *vector_equations(self.v, self.to_output(der(vector(self.frame_a.r_0))))]


class AbsoluteAngularVelocity(_Resolved):
    """Angular velocity ``w`` of frame_a (``T_res T_a' a.w``). MultiBody
    ``Sensors.AbsoluteAngularVelocity``."""

    frame_a = Frame()
    w = Variable(shape=3, unit="rad/s", description="angular velocity of frame_a, resolved")

    def equations(self):
        w0 = T(self.frame_a).T * vector(self.frame_a.w)
        return [*_no_load(self.frame_a), *self.resolve_equations(),
                *vector_equations(self.w, self.to_output(w0))]


class _Relative(_Resolved):
    allowed = ("world", "frame_a", "frame_b", "frame_resolve")
    resolve_in_frame = Parameter("frame_a",
                                 description="world | frame_a | frame_b | frame_resolve")
    frame_a = Frame()
    frame_b = Frame()


class RelativePosition(_Relative):
    """``r_rel = T_res (b.r_0 - a.r_0)``. MultiBody ``Sensors.RelativePosition``."""

    r_rel = Variable(shape=3, unit="m", description="frame_b's origin from frame_a's, resolved")

    def equations(self):
        return [*_no_load(self.frame_a, self.frame_b), *self.resolve_equations(),
                *vector_equations(self.r_rel, self.to_output(vector(self.frame_b.r_0)
                                                             - vector(self.frame_a.r_0)))]


class RelativeVelocity(_Relative):
    """``v_rel = T_res D(b.r_0 - a.r_0)`` (the derivative of the world vector, resolved).
    MultiBody ``Sensors.RelativeVelocity`` resolves the derivative taken in frame_a; with
    ``resolve_in_frame="world"`` both agree."""

    v_rel = Variable(shape=3, unit="m/s", description="relative velocity, resolved")

    def equations(self):
        d = der(vector(self.frame_b.r_0) - vector(self.frame_a.r_0))
        return [*_no_load(self.frame_a, self.frame_b), *self.resolve_equations(),
                *vector_equations(self.v_rel, self.to_output(d))]


class RelativeAngularVelocity(_Relative):
    """``w_rel = T_res (T_b' b.w - T_a' a.w)``. MultiBody ``Sensors.RelativeAngularVelocity``."""

    w_rel = Variable(shape=3, unit="rad/s", description="angular velocity of b relative to a")

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        w0 = T(fb).T * vector(fb.w) - T(fa).T * vector(fa.w)
        return [*_no_load(fa, fb), *self.resolve_equations(),
                *vector_equations(self.w_rel, self.to_output(w0))]


class Distance(Component):
    """``distance = |b.r_0 - a.r_0|``. MultiBody ``Sensors.Distance``."""

    frame_a = Frame()
    frame_b = Frame()
    distance = Variable(unit="m", description="distance between the origins")

    def equations(self):
        d = vector(self.frame_b.r_0) - vector(self.frame_a.r_0)
        return [*_no_load(self.frame_a, self.frame_b), Eq(self.distance, sp.sqrt(d.dot(d)))]


class CutForceAndTorque(_Resolved):
    """Cut force and torque between frame_a and frame_b, which it joins rigidly (MultiBody
    ``Sensors.CutForceAndTorque``)::

        b.r_0 = a.r_0;  T_b = T_a;  w_b = w_a;  a.f + b.f = 0;  a.t + b.t = 0
        force = T_res T_a' a.f;  torque = T_res T_a' a.t       (default: resolved in frame_a)
    """

    resolve_in_frame = Parameter("frame_a", description="world | frame_a | frame_resolve")
    frame_a = Frame()
    frame_b = Frame()
    force = Variable(shape=3, unit="N", description="cut force acting at frame_b, resolved")
    torque = Variable(shape=3, unit="N.m", description="cut torque acting at frame_b, resolved")

    def connections(self):
        return [branch(self.frame_a, self.frame_b)]

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        return [*vector_equations(fb.r_0, fa.r_0), *vector_equations(fb.T, fa.T),
                *vector_equations(fb.w, fa.w),
                *vector_equations(vector(fa.f) + vector(fb.f), _ZERO),
                *vector_equations(vector(fa.t) + vector(fb.t), _ZERO),
                *self.resolve_equations(),
                *vector_equations(self.force, self.to_output(T(fa).T * vector(fa.f))),
                *vector_equations(self.torque, self.to_output(T(fa).T * vector(fa.t)))]


class CutForce(CutForceAndTorque):
    """:class:`CutForceAndTorque` read for its force (MultiBody ``Sensors.CutForce``)."""


class CutTorque(CutForceAndTorque):
    """:class:`CutForceAndTorque` read for its torque (MultiBody ``Sensors.CutTorque``)."""
