"""Planar sensors (after the ``Sensors`` package of the Modelica PlanarMechanics library,
dzimmer/PlanarMechanics, and Multibody.jl ``src/PlanarMechanics/sensors.jl``).

Kinematic sensors (absolute/relative position, velocity, acceleration, distance) apply **no**
force or torque to the frames they measure. Cut sensors (cut force/torque, power) are inserted
between two frames and transmit the cut force unchanged (``a = b`` kinematically,
``a.f + b.f = 0``, ``a.tau + b.tau = 0``).

Outputs are ordinary variables (Modelica's ``RealOutput`` signals): the planar vector part is a
2-vector (``r``, ``v``, ``a``, ``force``, ...) and the rotational part a scalar (``phi``, ``w``,
``z``, ``torque``). Modelica packs both into one 3-vector ``r[3] = (x, y, phi)``.

Structural option ``resolve_in_frame`` (Modelica ``resolveInFrame``):

* absolute and cut sensors (``ResolveInFrameA``): ``"world"``, ``"frame_a"`` (default) or
  ``"frame_resolve"``;
* relative sensors (``ResolveInFrameAB``): ``"world"``, ``"frame_a"`` (default), ``"frame_b"``
  or ``"frame_resolve"``.

With ``"frame_resolve"`` the sensor gets an extra connector ``frame_resolve`` that must be
connected and carries no force; otherwise no resolve connector exists (Modelica grounds the
unused one with ``ZeroPosition``, which has no effect on the outputs). "Resolved in frame k"
means that the planar vector part is multiplied by ``R(k.phi)^T``; the rotational part is a
scalar and is not rotated.

Notation: ``a`` = frame_a, ``b`` = frame_b, ``res`` = the resolve frame, ``D()`` = time
derivative, ``R(phi)`` = rotation matrix local -> world, ``phi_r`` = angle of the resolve frame
(0 for ``"world"``).
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Parameter, Variable, der
from acausal.errors import ParameterError

from .interfaces import Frame, force, position, rotation

RESOLVE_A = ("world", "frame_a", "frame_resolve")
RESOLVE_AB = ("world", "frame_a", "frame_b", "frame_resolve")


def _check_resolve(value, allowed, owner):
    if value not in allowed:
        where = f"{type(owner).__name__}: " if owner is not None else ""
        raise ParameterError(f"{where}resolve_in_frame must be one of {allowed}, got {value!r}.")


def _resolve_angle(component, resolve_in_frame):
    """Angle of the frame in which an output is resolved (0 for the world frame)."""
    if resolve_in_frame == "world":
        return sp.Integer(0)
    return getattr(component, resolve_in_frame).phi


def _to_frame(phi_r, vec):
    """Resolve the world vector ``vec`` in a frame with angle ``phi_r``: ``R(phi_r)^T vec``."""
    return rotation(phi_r).T * vec


def _vec_eqs(lhs, rhs):
    return [Eq(lhs[i], rhs[i]) for i in range(2)]


def _zero_force(frame):
    return [Eq(frame.fx, 0), Eq(frame.fy, 0), Eq(frame.tau, 0)]


class _ResolveMixin:
    """Adds the required connector ``frame_resolve`` when ``resolve_in_frame == "frame_resolve"``
    and validates the option (structural, evaluated at construction)."""

    _allowed: tuple = RESOLVE_A

    def _setup_resolve(self, overrides):
        value = overrides.get("resolve_in_frame",
                              self._class_declarations()["resolve_in_frame"].default)
        _check_resolve(value, self._allowed, self)
        if value == "frame_resolve":
            self.frame_resolve = Frame(required=True)

    def _resolve_eqs(self):
        """frame_resolve (if present) carries no force."""
        if self.resolve_in_frame == "frame_resolve":
            return _zero_force(self.frame_resolve)
        return []


# ------------------------------------------------------------------------------------------------
# absolute sensors
# ------------------------------------------------------------------------------------------------


class AbsolutePosition(_ResolveMixin, Component):
    """Absolute position and angle of frame_a, resolved in ``resolve_in_frame``.

    Equations::

        a.fx = 0;  a.fy = 0;  a.tau = 0
        world:          r = (a.x, a.y);               phi = a.phi
        frame_a:        r = R(a.phi)^T (a.x, a.y);    phi = 0
        frame_resolve:  r = R(res.phi)^T (a.x, a.y);  phi = a.phi - res.phi

    Source: ``PlanarMechanics/Sensors/AbsolutePosition.mo`` and
    ``Sensors/Internal/BasicAbsolutePosition.mo`` (output ``r[3] = (r, phi)``); Multibody.jl
    ``AbsolutePosition(; resolve_in_frame=:frame_a)`` (outputs ``x, y, phi``).
    """

    resolve_in_frame = Parameter("frame_a", description="frame in which r is resolved: "
                                 "'world', 'frame_a' or 'frame_resolve'")
    frame_a = Frame()
    r = Variable(shape=2, unit="m", description="position of frame_a resolved in resolve_in_frame")
    phi = Variable(unit="rad", description="angle of frame_a relative to the resolve frame")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_resolve(overrides)

    def equations(self):
        a, mode = self.frame_a, self.resolve_in_frame
        phi_r = _resolve_angle(self, mode)
        eqs = _zero_force(a) + self._resolve_eqs()
        eqs += _vec_eqs(self.r, _to_frame(phi_r, position(a)))
        eqs += [Eq(self.phi, a.phi - phi_r)]
        return eqs


class AbsoluteVelocity(_ResolveMixin, Component):
    """Absolute velocity of the origin of frame_a, resolved in ``resolve_in_frame``.

    Equations::

        a.fx = 0;  a.fy = 0;  a.tau = 0
        r_0 = (a.x, a.y);  v_0 = D(r_0)        (world frame)
        v = R(phi_r)^T v_0;  w = D(a.phi)

    i.e. the world-frame derivative of the position, then resolved (not the derivative of the
    resolved position).

    Source: ``PlanarMechanics/Sensors/AbsoluteVelocity.mo`` (``BasicAbsolutePosition`` in world
    -> ``der`` -> ``TransformAbsoluteVector`` world -> resolveInFrame; output ``v[3]``);
    Multibody.jl ``AbsoluteVelocity`` (outputs ``v_x, v_y, ω``).
    """

    resolve_in_frame = Parameter("frame_a", description="frame in which v is resolved: "
                                 "'world', 'frame_a' or 'frame_resolve'")
    frame_a = Frame()
    r_0 = Variable(shape=2, unit="m", description="position of frame_a (world frame)")
    v_0 = Variable(shape=2, unit="m/s", description="velocity of frame_a (world frame)")
    phi_0 = Variable(unit="rad", description="angle of frame_a")
    v = Variable(shape=2, unit="m/s", description="velocity of frame_a resolved in "
                 "resolve_in_frame")
    w = Variable(unit="rad/s", description="angular velocity of frame_a")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_resolve(overrides)

    def equations(self):
        a = self.frame_a
        phi_r = _resolve_angle(self, self.resolve_in_frame)
        eqs = _zero_force(a) + self._resolve_eqs()
        eqs += _vec_eqs(self.r_0, position(a))
        eqs += [Eq(der(self.r_0[i]), self.v_0[i]) for i in range(2)]
        eqs += [Eq(self.phi_0, a.phi), Eq(der(self.phi_0), self.w)]
        eqs += _vec_eqs(self.v, _to_frame(phi_r, self.v_0))
        return eqs


class AbsoluteAcceleration(_ResolveMixin, Component):
    """Absolute acceleration of the origin of frame_a, resolved in ``resolve_in_frame``.

    Equations::

        a.fx = 0;  a.fy = 0;  a.tau = 0
        r_0 = (a.x, a.y);  v_0 = D(r_0);  a_0 = D(v_0)      (world frame)
        phi_0 = a.phi;  w_0 = D(phi_0);  z = D(w_0)
        a = R(phi_r)^T a_0

    The world-frame second derivative is resolved afterwards, so a point on a rod spinning at
    ``w`` about the origin reads the centripetal ``a = (-w^2 L, 0)`` in frame_a.

    Source: ``PlanarMechanics/Sensors/AbsoluteAcceleration.mo`` (``BasicAbsolutePosition`` in
    world -> ``der`` -> ``der`` -> ``TransformAbsoluteVector`` world -> resolveInFrame; output
    ``a[3]``); test ``PlanarMechanicsTest/Sensors.mo`` (AbsoluteAccCentrifugal).
    """

    resolve_in_frame = Parameter("frame_a", description="frame in which a is resolved: "
                                 "'world', 'frame_a' or 'frame_resolve'")
    frame_a = Frame()
    r_0 = Variable(shape=2, unit="m", description="position of frame_a (world frame)")
    v_0 = Variable(shape=2, unit="m/s", description="velocity of frame_a (world frame)")
    a_0 = Variable(shape=2, unit="m/s2", description="acceleration of frame_a (world frame)")
    phi_0 = Variable(unit="rad", description="angle of frame_a")
    w_0 = Variable(unit="rad/s", description="angular velocity of frame_a")
    a = Variable(shape=2, unit="m/s2", description="acceleration of frame_a resolved in "
                 "resolve_in_frame")
    z = Variable(unit="rad/s2", description="angular acceleration of frame_a")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_resolve(overrides)

    def equations(self):
        fa = self.frame_a
        phi_r = _resolve_angle(self, self.resolve_in_frame)
        eqs = _zero_force(fa) + self._resolve_eqs()
        eqs += _vec_eqs(self.r_0, position(fa))
        eqs += [Eq(der(self.r_0[i]), self.v_0[i]) for i in range(2)]
        eqs += [Eq(der(self.v_0[i]), self.a_0[i]) for i in range(2)]
        eqs += [Eq(self.phi_0, fa.phi), Eq(der(self.phi_0), self.w_0),
                Eq(der(self.w_0), self.z)]
        eqs += _vec_eqs(self.a, _to_frame(phi_r, self.a_0))
        return eqs


# ------------------------------------------------------------------------------------------------
# relative sensors
# ------------------------------------------------------------------------------------------------


class RelativePosition(_ResolveMixin, Component):
    """Relative position and angle of frame_b with respect to frame_a, resolved in
    ``resolve_in_frame``.

    Equations::

        a.f = 0;  a.tau = 0;  b.f = 0;  b.tau = 0
        r_rel = R(phi_r)^T ((b.x, b.y) - (a.x, a.y));  phi_rel = b.phi - a.phi

    Source: ``PlanarMechanics/Sensors/RelativePosition.mo`` and
    ``Sensors/Internal/BasicRelativePosition.mo`` (output ``r_rel[3]``); Multibody.jl
    ``RelativePosition`` (outputs ``rel_x, rel_y, rel_phi``).
    """

    _allowed = RESOLVE_AB
    resolve_in_frame = Parameter("frame_a", description="frame in which r_rel is resolved: "
                                 "'world', 'frame_a', 'frame_b' or 'frame_resolve'")
    frame_a = Frame()
    frame_b = Frame()
    r_rel = Variable(shape=2, unit="m", description="position of frame_b relative to frame_a, "
                     "resolved in resolve_in_frame")
    phi_rel = Variable(unit="rad", description="relative angle b.phi - a.phi")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_resolve(overrides)

    def equations(self):
        a, b = self.frame_a, self.frame_b
        phi_r = _resolve_angle(self, self.resolve_in_frame)
        eqs = _zero_force(a) + _zero_force(b) + self._resolve_eqs()
        eqs += _vec_eqs(self.r_rel, _to_frame(phi_r, position(b) - position(a)))
        eqs += [Eq(self.phi_rel, b.phi - a.phi)]
        return eqs


class RelativeVelocity(_ResolveMixin, Component):
    """Relative velocity of frame_b with respect to frame_a **as seen from frame_a** (the
    derivative of the relative position resolved in frame_a), resolved in ``resolve_in_frame``.

    Equations::

        a.f = 0;  a.tau = 0;  b.f = 0;  b.tau = 0
        r_rel_a = R(a.phi)^T ((b.x, b.y) - (a.x, a.y));  v_rel_a = D(r_rel_a)
        phi_rel = b.phi - a.phi;  w_rel = D(phi_rel)
        frame_a:  v_rel = v_rel_a
        else:     v_rel = R(phi_r)^T R(a.phi) v_rel_a

    Note that ``R(a.phi) v_rel_a`` is the world-frame relative velocity minus the transport
    term ``w_a x r_rel``; this is the reference's definition (not ``D(r_b - r_a)``).

    Source: ``PlanarMechanics/Sensors/RelativeVelocity.mo`` (``RelativePosition`` in frame_a ->
    ``der`` -> ``TransformRelativeVector`` frame_a -> resolveInFrame; output ``v_rel[3]``) and
    ``Sensors/Internal/BasicTransformRelativeVector.mo``.
    """

    _allowed = RESOLVE_AB
    resolve_in_frame = Parameter("frame_a", description="frame in which v_rel is resolved: "
                                 "'world', 'frame_a', 'frame_b' or 'frame_resolve'")
    frame_a = Frame()
    frame_b = Frame()
    r_rel_a = Variable(shape=2, unit="m", description="relative position resolved in frame_a")
    v_rel_a = Variable(shape=2, unit="m/s", description="D(r_rel_a)")
    phi_rel = Variable(unit="rad", description="relative angle b.phi - a.phi")
    v_rel = Variable(shape=2, unit="m/s", description="relative velocity v_rel_a, resolved in "
                     "resolve_in_frame")
    w_rel = Variable(unit="rad/s", description="relative angular velocity D(phi_rel)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_resolve(overrides)

    def _kinematics(self):
        a, b = self.frame_a, self.frame_b
        eqs = _zero_force(a) + _zero_force(b) + self._resolve_eqs()
        eqs += _vec_eqs(self.r_rel_a, _to_frame(a.phi, position(b) - position(a)))
        eqs += [Eq(der(self.r_rel_a[i]), self.v_rel_a[i]) for i in range(2)]
        eqs += [Eq(self.phi_rel, b.phi - a.phi), Eq(der(self.phi_rel), self.w_rel)]
        if self.resolve_in_frame == "frame_a":
            v_out = self.v_rel_a
        else:
            phi_r = _resolve_angle(self, self.resolve_in_frame)
            v_out = _to_frame(phi_r, rotation(a.phi) * self.v_rel_a)
        eqs += _vec_eqs(self.v_rel, v_out)
        return eqs

    def equations(self):
        return self._kinematics()


class RelativeAcceleration(RelativeVelocity):
    """Relative acceleration: the time derivative of the :class:`RelativeVelocity` output
    (which is already resolved in ``resolve_in_frame``).

    Equations::

        (all equations of RelativeVelocity, giving v_rel and w_rel)
        a_rel = D(v_rel);  z_rel = D(w_rel)

    As in the reference, the derivative is taken *after* resolving, so for a rotating resolve
    frame ``a_rel`` is the derivative of the resolved components.

    Source: ``PlanarMechanics/Sensors/RelativeAcceleration.mo`` (``RelativePosition`` in
    frame_a -> ``der`` -> ``TransformRelativeVector`` frame_a -> resolveInFrame -> ``der``;
    output ``a_rel[3]``).
    """

    a_rel = Variable(shape=2, unit="m/s2", description="D(v_rel), resolved in "
                     "resolve_in_frame")
    z_rel = Variable(unit="rad/s2", description="relative angular acceleration D(w_rel)")

    def equations(self):
        eqs = self._kinematics()
        eqs += [Eq(der(self.v_rel[i]), self.a_rel[i]) for i in range(2)]
        eqs += [Eq(der(self.w_rel), self.z_rel)]
        return eqs


class Distance(Component):
    """Distance between the origins of frame_a and frame_b (smooth near zero).

    Equations::

        a.f = 0;  a.tau = 0;  b.f = 0;  b.tau = 0
        L2 = |(b.x, b.y) - (a.x, a.y)|^2
        distance = sqrt(L2)                              if L2 > s_small^2
                 = L2/(2 s_small) * (3 - L2/s_small^2)   otherwise

    (value and first derivative are continuous at ``s_small``).

    Source: ``PlanarMechanics/Sensors/Distance.mo``.
    """

    s_small = Parameter(1.0e-10, unit="m",
                        description="distance below which sqrt is replaced by a polynomial")
    frame_a = Frame()
    frame_b = Frame()
    distance = Variable(unit="m", description="distance between the origins of frame_a and "
                        "frame_b")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        d = position(b) - position(a)
        l2 = d[0] ** 2 + d[1] ** 2
        s2 = self.s_small ** 2
        value = sp.Piecewise((sp.sqrt(l2), l2 > s2),
                             (l2 / (2 * self.s_small) * (3 - l2 / s2), True))
        return _zero_force(a) + _zero_force(b) + [Eq(self.distance, value)]


# ------------------------------------------------------------------------------------------------
# cut sensors (transmitting)
# ------------------------------------------------------------------------------------------------


def _pass_through(a, b):
    """frame_a and frame_b are the same frame; the cut force passes through."""
    return [Eq(a.x, b.x), Eq(a.y, b.y), Eq(a.phi, b.phi),
            Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0)]


class CutForceAndTorque(_ResolveMixin, Component):
    """Cut force and cut torque transmitted from frame_a to frame_b (the sensor is rigid and
    massless).

    Equations::

        (a.x, a.y) = (b.x, b.y);  a.phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0
        csign = +1 if positive_sign else -1
        force = csign * R(phi_r)^T (a.fx, a.fy);  torque = csign * a.tau

    ``force``/``torque`` (with ``positive_sign=True``) are the force/torque acting on the sensor
    through frame_a, i.e. the load that the frame_b side exerts through the sensor: in a
    pendulum hanging at rest, a sensor between the rod and the body reads ``force = (0, m g)``.

    Source: ``PlanarMechanics/Sensors/CutForceAndTorque.mo``,
    ``Sensors/Internal/BasicCutForce.mo``, ``Sensors/Internal/BasicCutTorque.mo`` and
    ``Sensors/Internal/PartialCutForceBaseSensor.mo`` (``positiveSign``, ``resolveInFrame``).
    """

    resolve_in_frame = Parameter("frame_a", description="frame in which force is resolved: "
                                 "'world', 'frame_a' or 'frame_resolve'")
    positive_sign = Parameter(True, description="True: outputs = frame_a.f/.tau; False: "
                              "= frame_b.f/.tau")
    frame_a = Frame()
    frame_b = Frame()
    force = Variable(shape=2, unit="N", description="cut force resolved in resolve_in_frame")
    torque = Variable(unit="N.m", description="cut torque")

    _outputs = ("force", "torque")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_resolve(overrides)

    def equations(self):
        a, b = self.frame_a, self.frame_b
        csign = 1 if self.positive_sign else -1
        eqs = _pass_through(a, b) + self._resolve_eqs()
        if "force" in self._outputs:
            phi_r = _resolve_angle(self, self.resolve_in_frame)
            eqs += _vec_eqs(self.force, csign * _to_frame(phi_r, force(a)))
        if "torque" in self._outputs:
            eqs += [Eq(self.torque, csign * a.tau)]
        return eqs


class CutForce(CutForceAndTorque):
    """Cut force transmitted from frame_a to frame_b.

    Equations: as :class:`CutForceAndTorque` without the torque output::

        pass-through of frame_a to frame_b;  force = csign * R(phi_r)^T (a.fx, a.fy)

    Source: ``PlanarMechanics/Sensors/CutForce.mo`` (``Internal/BasicCutForce.mo``).
    """

    torque = None
    _outputs = ("force",)


class CutTorque(CutForceAndTorque):
    """Cut torque transmitted from frame_a to frame_b.

    Equations: pass-through of frame_a to frame_b;  ``torque = csign * a.tau``. (A planar
    torque is a scalar, so ``resolve_in_frame`` only decides whether ``frame_resolve`` exists.)

    Source: ``PlanarMechanics/Sensors/CutTorque.mo`` (``Internal/BasicCutTorque.mo``).
    """

    force = None
    _outputs = ("torque",)


class Power(Component):
    """Power flowing from frame_a to frame_b through the (rigid, massless) sensor.

    Equations::

        (a.x, a.y) = (b.x, b.y);  a.phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0
        r_0 = (a.x, a.y);  v_0 = D(r_0);  phi_0 = a.phi;  w_0 = D(phi_0)
        power = (a.fx, a.fy) . v_0 + a.tau * w_0

    Source: ``PlanarMechanics/Sensors/Power.mo``.
    """

    frame_a = Frame()
    frame_b = Frame()
    r_0 = Variable(shape=2, unit="m", description="position of the sensor frame (world)")
    v_0 = Variable(shape=2, unit="m/s", description="velocity of the sensor frame (world)")
    phi_0 = Variable(unit="rad", description="angle of the sensor frame")
    w_0 = Variable(unit="rad/s", description="angular velocity of the sensor frame")
    power = Variable(unit="W", description="power flowing from frame_a to frame_b")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        eqs = _pass_through(a, b)
        eqs += _vec_eqs(self.r_0, position(a))
        eqs += [Eq(der(self.r_0[i]), self.v_0[i]) for i in range(2)]
        eqs += [Eq(self.phi_0, a.phi), Eq(der(self.phi_0), self.w_0)]
        eqs += [Eq(self.power, force(a).dot(self.v_0) + a.tau * self.w_0)]
        return eqs
