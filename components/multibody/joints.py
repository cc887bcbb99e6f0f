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

import numpy as np
import sympy as sp

from acausal import Component, Eq, Outer, Parameter, Variable, branch, connect, der, rooted
from acausal.errors import ParameterError
from acausal.library.rotations import (
    angles_in_sequence,
    axes_rotations,
    axes_rotations_angular_velocity,
    check_angle_sequence,
    cross,
    dot,
    flat,
    from_Q_normalized,
    normalized,
    orientation_difference,
    planar_rotation,
    quaternion_derivative,
    start_quaternion,
    start_rotation,
    vector,
)

from .. import rotational, translational
from . import viewer_shapes
from .checks import (
    axis_rule,
    not_parallel_rule,
    numeric_vector,
    sequence_rule,
    valid_sequence,
)
from .interfaces import Frame, T, resolve1, vector_equations
from .world import World


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

    Source: ``MultiBody.Joints.Revolute`` (MSL 4.0). Viewer: a red cylinder along n at frame_a.
    """

    use_axis_flange = Parameter(False, description="add the 1-D flanges axis and support")
    n = Parameter((0.0, 0.0, 1.0), structural=True, unit="1",
                  description="axis of rotation in frame_a and frame_b (structural, as "
                  "MultiBody's Evaluate=true)")
    phi_offset = Parameter(0.0, unit="rad", description="angle offset (relative angle "
                                                        "phi_offset + phi)")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.revolute
    parameter_rules = (axis_rule("n"),)
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
        return eqs + self.axis_load_equations()

    def axis_load_equations(self) -> list:
        """What drives ``phi``: the axis flange's torque, else nothing (``tau = 0``). Joints
        with friction add their friction torque here; a joint whose owner states ``tau``
        (:class:`Cylindrical`, :class:`Universal` with friction) returns no equation."""
        return self.flange_equations(self.tau)

    def flange_equations(self, torque) -> list:
        """``torque`` is the axis flange's torque (``axis.phi = phi``, support fixed), or 0
        without a flange."""
        if self.use_axis_flange:
            return [Eq(self.axis.phi, self.phi), Eq(self.axis.tau, torque),
                    Eq(self.support.phi, 0)]
        return [Eq(torque, 0)]


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

    Source: ``MultiBody.Joints.Prismatic`` (MSL 4.0). Viewer: a red box from frame_a to frame_b.
    """

    use_axis_flange = Parameter(False, description="add the 1-D flanges axis and support")
    n = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                  description="axis of translation in frame_a (structural, as MultiBody's "
                  "Evaluate=true)")
    s_offset = Parameter(0.0, unit="m", description="offset (relative distance s_offset + s)")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.prismatic
    parameter_rules = (axis_rule("n"),)
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
        return eqs + self.axis_load_equations()

    def axis_load_equations(self) -> list:
        """What drives ``s``: the axis flange's force, else nothing (``f = 0``); see
        :meth:`Revolute.axis_load_equations`."""
        return self.flange_equations(self.f)

    def flange_equations(self, force) -> list:
        """``force`` is the axis flange's force (``axis.s = s``, support fixed), or 0 without a
        flange."""
        if self.use_axis_flange:
            return [Eq(self.axis.s, self.s), Eq(self.axis.f, force), Eq(self.support.s, 0)]
        return [Eq(force, 0)]


class Spherical(Component):
    """Spherical joint (ball and socket): the origins of frame_a and frame_b coincide; the
    joint transmits no torque.

    Equations::

        b.r_0 = a.r_0;  a.t = 0;  b.t = 0
        0 = a.f + T_a T_b' b.f                      (the force passes through)

    ``enforce_states=False`` (default, as MultiBody): the joint states no branch, so it cuts the
    orientation graph: the orientation of frame_b comes from the parts behind it (a free body
    there carries its own orientation states).

    ``enforce_states=True``: the relative orientation is the joint's own states (MultiBody's
    ``enforceStates``; recommended in chains, where otherwise a body behind the joint carries the
    orientation), with a branch from frame_a to frame_b written from the rooted side:

        T_b = R_rel T_a;  w_b = R_rel w_a + w_rel   (w_rel resolved in frame_b)
        use_quaternions=True (default):  R_rel = from_Q(Q/|Q|);  D(Q) = G(Q)' w_rel / 2
                                         (the four elements of Q are states; Q.Q = 1 at the
                                         start, kept by D(Q); see Body)
        use_quaternions=False:           R_rel = axes_rotations(sequence_angle_states, phi);
                                         phi_d = D(phi);  phi_dd = D(phi_d);
                                         w_rel = axes_rotations_angular_velocity(...)
                                         (singular where the middle angle makes the first and
                                         the last axis parallel: +-90 deg for Cardan angles)

    Initial equations: ``angles_fixed``: the orientation of frame_b relative to frame_a is
    ``angles_start`` about ``sequence_start`` (3 residue equations; with angle states and
    ``sequence_start == sequence_angle_states``: ``phi = angles_start``); ``w_rel_a_fixed``: the
    relative angular velocity ``w_b - T_b T_a' w_a`` is ``T_rel_start w_rel_a_start``;
    ``z_rel_a_fixed`` (``enforce_states`` only): ``D(w_rel) = T_rel_start z_rel_a_start``.

    Source: ``MultiBody.Joints.Spherical`` (MSL 4.0; ``enforceStates``, ``useQuaternions``,
    ``sequence_angleStates``, ``z_rel_a_fixed`` in snake case). Viewer: a red sphere at frame_a.
    """

    angles_fixed = Parameter(False, description="fix the initial relative orientation")
    angles_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad",
                             description="initial relative angles about sequence_start")
    sequence_start = Parameter((1, 2, 3), structural=True, description="axes of angles_start")
    w_rel_a_fixed = Parameter(False, description="fix the initial relative angular velocity")
    w_rel_a_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad/s",
                              description="initial relative angular velocity, in frame_a")
    z_rel_a_fixed = Parameter(False, description="fix the initial relative angular "
                              "acceleration (enforce_states=True)")
    z_rel_a_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad/s2",
                              description="initial relative angular acceleration, in frame_a")
    enforce_states = Parameter(False, structural=True,
                               description="relative orientation states in the joint")
    use_quaternions = Parameter(True, structural=True, description="with enforce_states: "
                                "quaternion states (True) or three angles (False)")
    sequence_angle_states = Parameter((1, 2, 3), structural=True,
                                      description="axes of the angle states phi")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.spherical
    parameter_rules = (sequence_rule("sequence_start"), sequence_rule(
        "sequence_angle_states", (("enforce_states", "use_quaternions"), lambda e, q: e and not q)))

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if not overrides.get("enforce_states", False):
            return
        seq = overrides.get("sequence_start", (1, 2, 3))
        angles = overrides.get("angles_start", (0.0, 0.0, 0.0))
        if not (valid_sequence(seq) and numeric_vector(angles)):
            seq, angles = (1, 2, 3), (0.0, 0.0, 0.0)  # the parameters' checks name the value
        w_start = overrides.get("w_rel_a_start", (0.0, 0.0, 0.0))
        # MultiBody's w_rel: relative angular velocity resolved in frame_b, start R_rel w_a
        w0 = np.array(start_rotation(seq, angles).evalf(), dtype=float) @ np.asarray(
            w_start if numeric_vector(w_start) else (0.0, 0.0, 0.0), dtype=float)
        if "w_rel" not in self._class_declarations():  # a joint with friction declares it
            self.w_rel = Variable(shape=3, start=tuple(w0), unit="rad/s", state_priority=10,
                                  description="angular velocity of frame_b relative to "
                                  "frame_a, resolved in frame_b")
        if overrides.get("use_quaternions", True):
            # one below w_rel: D(D(Q)) is made a dummy before D(w_rel), not in a tie with it
            self.Q = Variable(shape=4, start=start_quaternion(seq, angles), unit="1",
                              state_priority=9, description="relative orientation "
                              "quaternion, frame_a to frame_b (scalar last)")
            return
        states = overrides.get("sequence_angle_states", (1, 2, 3))
        valid = valid_sequence(states)  # else the parameter rule says
        self.phi = Variable(shape=3, start=angles_in_sequence(
            seq, angles, tuple(int(k) for k in states)) if valid else 0.0, unit="rad",
                            state_priority=10, description="angles about "
                            "sequence_angle_states, frame_a to frame_b")
        self.phi_d = Variable(shape=3, start=0.0, unit="rad/s", state_priority=10,
                              description="D(phi)")
        self.phi_dd = Variable(shape=3, unit="rad/s2", description="D(phi_d)")

    def connections(self):
        return [branch(self.frame_a, self.frame_b)] if self.enforce_states else []

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        if not self.enforce_states:
            return [*vector_equations(fb.r_0, fa.r_0),
                    *vector_equations(vector(fa.f) + T(fa) * T(fb).T * vector(fb.f),
                                      [0, 0, 0]),
                    *self.torque_equations()]
        R_rel, eqs = self.relative_orientation()
        return [*vector_equations(fb.r_0, fa.r_0), *eqs,
                *relative_rotation_equations(fa, fb, R_rel, self.w_rel),
                *vector_equations(vector(fa.f) + R_rel.T * vector(fb.f), [0, 0, 0]),
                *self.torque_equations()]

    def relative_orientation(self) -> tuple[sp.Matrix, list]:
        """``R_rel`` of the joint's states and their kinematic equations (enforce_states)."""
        if self.use_quaternions:
            Q = list(self.Q)
            return from_Q_normalized(Q), vector_equations(
                der(self.Q), quaternion_derivative(Q, self.w_rel))
        seq = [int(k) for k in self.sequence_angle_states]
        check_angle_sequence(seq, self)
        phi, phi_d = list(self.phi), list(self.phi_d)
        return axes_rotations(seq, phi), [
            *vector_equations(der(self.phi), self.phi_d),
            *vector_equations(der(self.phi_d), self.phi_dd),
            *vector_equations(self.w_rel, axes_rotations_angular_velocity(seq, phi, phi_d))]

    def torque_equations(self) -> list:
        """The torques the joint transmits: none (a joint with friction transmits its friction
        torque here)."""
        return [*vector_equations(self.frame_a.t, [0, 0, 0]),
                *vector_equations(self.frame_b.t, [0, 0, 0])]

    def initial_equations(self):
        fa, fb = self.frame_a, self.frame_b
        R0 = start_rotation(self.sequence_start, self.angles_start)
        eqs = []
        quaternions = self.enforce_states and self.use_quaternions
        if quaternions:
            eqs.append(Eq(sum(q * q for q in self.Q), 1))
        if self.angles_fixed:
            if self.enforce_states and not self.use_quaternions and tuple(
                    int(k) for k in self.sequence_start) == tuple(
                    int(k) for k in self.sequence_angle_states):
                eqs += vector_equations(self.phi, [float(a) for a in self.angles_start])
            else:
                eqs += orientation_difference(R0 * T(fa), T(fb))
        if self.w_rel_a_fixed:
            w_rel = vector(fb.w) - T(fb) * T(fa).T * vector(fa.w)
            eqs += vector_equations(w_rel, R0 * vector([float(x) for x in self.w_rel_a_start]))
        if self.z_rel_a_fixed:
            if not self.enforce_states:
                raise ParameterError(
                    f"Spherical '{self.path}': z_rel_a_fixed=True needs enforce_states=True "
                    "(the relative angular velocity w_rel is then a variable of the joint).")
            eqs += vector_equations(der(self.w_rel),
                                    R0 * vector([float(x) for x in self.z_rel_a_start]))
        return eqs


class Universal(Component):
    """Universal (Hooke) joint: rotation ``phi_a`` about ``n_a`` (fixed in frame_a), then
    ``phi_b`` about ``n_b`` (fixed in frame_b); the origins coincide.

    Parts: ``revolute_a`` (n_a) from frame_a to an intermediate frame, ``revolute_b`` (n_b)
    from it to frame_b. Variables ``phi_a, phi_b, w_a, w_b, a_a, a_b`` are theirs.

    Source: ``MultiBody.Joints.Universal`` (MSL 4.0). Viewer: its revolutes' red cylinders.
    """

    n_a = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                    description="axis of the first rotation, in frame_a")
    n_b = Parameter((0.0, 1.0, 0.0), structural=True, unit="1",
                    description="axis of the second rotation, in frame_b")
    frame_a = Frame()
    frame_b = Frame()
    phi_a = Variable(start=0.0, unit="rad", state_priority=10, description="angle about n_a")
    phi_b = Variable(start=0.0, unit="rad", state_priority=10, description="angle about n_b")
    w_a = Variable(start=0.0, unit="rad/s", state_priority=10, description="D(phi_a)")
    w_b = Variable(start=0.0, unit="rad/s", state_priority=10, description="D(phi_b)")
    a_a = Variable(unit="rad/s2", description="D(w_a)")
    a_b = Variable(unit="rad/s2", description="D(w_b)")
    parameter_rules = (axis_rule("n_a"), axis_rule("n_b"), not_parallel_rule(
        "n_a", "n_b", "rotations about parallel axes are one rotation (the joint would lose a "
        "degree of freedom; its equations would be singular)"))

    #: classes of the two revolutes (a subclass with friction lets its owner state one's torque)
    _revolute_a_class = Revolute
    _revolute_b_class = Revolute

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self.revolute_a = self._revolute_a_class(n=overrides.get("n_a", (1.0, 0.0, 0.0)))
        self.revolute_b = self._revolute_b_class(n=overrides.get("n_b", (0.0, 1.0, 0.0)))

    def connections(self):
        return [connect(self.frame_a, self.revolute_a.frame_a),
                connect(self.revolute_a.frame_b, self.revolute_b.frame_a),
                connect(self.revolute_b.frame_b, self.frame_b)]

    def equations(self):
        ra, rb = self.revolute_a, self.revolute_b
        return [Eq(self.phi_a, ra.phi), Eq(self.phi_b, rb.phi), Eq(der(self.phi_a), self.w_a),
                Eq(der(self.phi_b), self.w_b), Eq(der(self.w_a), self.a_a),
                Eq(der(self.w_b), self.a_b)]


class Cylindrical(Component):
    """Cylindrical joint: translation ``s`` along and rotation ``phi`` about the axis ``n``
    (the same in frame_a and frame_b).

    Parts: ``prismatic`` (n) from frame_a, then ``revolute`` (n) to frame_b. Variables
    ``s, v, a, phi, w, wd`` are theirs.

    Source: ``MultiBody.Joints.Cylindrical`` (MSL 4.0). Viewer: a red cylinder from frame_a to
    frame_b (its parts are not drawn).
    """

    n = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                  description="axis of translation and rotation, in frame_a and frame_b")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.cylindrical
    s = Variable(start=0.0, unit="m", state_priority=10, description="distance along n")
    v = Variable(start=0.0, unit="m/s", state_priority=10, description="D(s)")
    a = Variable(unit="m/s2", description="D(v)")
    phi = Variable(start=0.0, unit="rad", state_priority=10, description="angle about n")
    w = Variable(start=0.0, unit="rad/s", state_priority=10, description="D(phi)")
    wd = Variable(unit="rad/s2", description="D(w)")
    parameter_rules = (axis_rule("n"),)

    #: classes of the two parts (a subclass with friction lets its owner state their loads)
    _prismatic_class = Prismatic
    _revolute_class = Revolute

    def __init__(self, **overrides):
        super().__init__(**overrides)
        n = overrides.get("n", (1.0, 0.0, 0.0))
        self.prismatic = self._prismatic_class(n=n)
        self.revolute = self._revolute_class(n=n)
        self.prismatic._animation = self.revolute._animation = False  # drawn by the joint

    def connections(self):
        return [connect(self.frame_a, self.prismatic.frame_a),
                connect(self.prismatic.frame_b, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.frame_b)]

    def equations(self):
        return [Eq(self.s, self.prismatic.s), Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.phi, self.revolute.phi), Eq(der(self.phi), self.w),
                Eq(der(self.w), self.wd)]


class FreeMotion(Component):
    """Free motion of frame_b relative to frame_a (6 degrees of freedom, no force): the
    position ``r_rel_a`` (resolved in frame_a) and, with ``enforce_states=True`` (MultiBody's
    default), the relative orientation as the joint's states with the relative angular
    velocity ``w_rel_b`` (resolved in frame_b).

    Equations::

        D(r_rel_a) = v_rel_a;  D(v_rel_a) = a_rel_a
        b.r_0 = a.r_0 + T_a' r_rel_a
        a.f = 0;  a.t = 0;  b.f = 0;  b.t = 0
        enforce_states:  T_b = R_rel T_a;  w_b = R_rel w_a + w_rel_b   (from the rooted side)
          use_quaternions=True (default):  R_rel = from_Q(Q/|Q|);  D(Q) = G(Q)' w_rel_b / 2
                                           (four quaternion states, Q.Q = 1 at the start)
          use_quaternions=False:  R_rel = axes_rotations(sequence_angle_states, phi);
                                  phi_d = D(phi);  phi_dd = D(phi_d);
                                  w_rel_b = axes_rotations_angular_velocity(...)
                                  (singular where the first and last axes become parallel)
        otherwise (orientation from the bodies): w_rel_b = w_b - T_b T_a' w_a; Q, phi, phi_d
        are 0 (MultiBody's dummies)

    Initial equations as :class:`Spherical` (``angles_fixed``, ``w_rel_a_fixed``).

    Source: ``MultiBody.Joints.FreeMotion`` (MSL 4.0; ``useQuaternions``,
    ``sequence_angleStates`` in snake case).
    """

    enforce_states = Parameter(True, description="relative orientation states in the joint")
    use_quaternions = Parameter(True, structural=True, description="quaternion states (True) "
                                "or three angles phi (False)")
    sequence_angle_states = Parameter((1, 2, 3), structural=True,
                                      description="axes of the angle states phi")
    angles_fixed = Parameter(False, description="fix the initial relative orientation")
    angles_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad")
    sequence_start = Parameter((1, 2, 3), structural=True)
    w_rel_a_fixed = Parameter(False, description="fix the initial relative angular velocity")
    w_rel_a_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad/s",
                              description="initial relative angular velocity, in frame_a")
    frame_a = Frame()
    frame_b = Frame()
    r_rel_a = Variable(shape=3, start=0.0, unit="m", state_priority=10,
                       description="position of frame_b from frame_a, resolved in frame_a")
    v_rel_a = Variable(shape=3, start=0.0, unit="m/s", state_priority=10,
                       description="D(r_rel_a)")
    a_rel_a = Variable(shape=3, unit="m/s2", description="D(v_rel_a)")
    Q = Variable(shape=4, start=(0.0, 0.0, 0.0, 1.0), unit="1", state_priority=9,
                 description="relative orientation quaternion (scalar last)")
    phi = Variable(shape=3, start=0.0, unit="rad", state_priority=10,
                   description="relative angles about sequence_angle_states")
    phi_d = Variable(shape=3, start=0.0, unit="rad/s", state_priority=10, description="D(phi)")
    phi_dd = Variable(shape=3, unit="rad/s2", description="D(phi_d)")
    w_rel_b = Variable(shape=3, start=0.0, unit="rad/s", state_priority=10,
                       description="relative angular velocity, resolved in frame_b")

    parameter_rules = (sequence_rule("sequence_start"), sequence_rule(
        "sequence_angle_states", (("enforce_states", "use_quaternions"), lambda e, q: e and not q)))

    def __init__(self, **overrides):
        super().__init__(**overrides)
        seq = overrides.get("sequence_start", (1, 2, 3))
        # a bad sequence or angle is left to the parameters' checks, which name the joint
        if "angles_start" in overrides and valid_sequence(seq) \
                and numeric_vector(overrides["angles_start"]):
            if "Q" not in overrides:
                self._overrides["Q"] = Variable(start=start_quaternion(
                    seq, overrides["angles_start"]))
            states = overrides.get("sequence_angle_states", (1, 2, 3))
            if "phi" not in overrides and valid_sequence(states):
                self._overrides["phi"] = Variable(start=angles_in_sequence(
                    seq, overrides["angles_start"], tuple(int(k) for k in states)))

    def connections(self):
        return [branch(self.frame_a, self.frame_b)] if self.enforce_states else []

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        eqs = [*vector_equations(der(self.r_rel_a), self.v_rel_a),
               *vector_equations(der(self.v_rel_a), self.a_rel_a),
               *vector_equations(fb.r_0, fa.r_0 + resolve1(fa, self.r_rel_a)),
               *(vector_equations(x, [0, 0, 0]) for x in (fa.f, fa.t, fb.f, fb.t))]
        eqs = [e for group in eqs for e in (group if isinstance(group, list) else [group])]
        zeros = [*vector_equations(self.phi, [0, 0, 0]),
                 *vector_equations(self.phi_d, [0, 0, 0]),
                 *vector_equations(self.phi_dd, [0, 0, 0])]
        if not self.enforce_states:
            return eqs + zeros + [*vector_equations(self.Q, [0, 0, 0, 1]),
                                  *vector_equations(self.w_rel_b, vector(fb.w)
                                                    - T(fb) * T(fa).T * vector(fa.w))]
        if self.use_quaternions:
            Q = list(self.Q)
            R_rel = from_Q_normalized(Q)
            return eqs + zeros + [
                *relative_rotation_equations(fa, fb, R_rel, self.w_rel_b),
                *vector_equations(der(self.Q), quaternion_derivative(Q, self.w_rel_b))]
        seq = [int(k) for k in self.sequence_angle_states]
        check_angle_sequence(seq, self)
        phi, phi_d = list(self.phi), list(self.phi_d)
        R_rel = axes_rotations(seq, phi)
        return eqs + [*relative_rotation_equations(fa, fb, R_rel, self.w_rel_b),
                      *vector_equations(der(self.phi), self.phi_d),
                      *vector_equations(der(self.phi_d), self.phi_dd),
                      *vector_equations(self.w_rel_b,
                                        axes_rotations_angular_velocity(seq, phi, phi_d)),
                      *vector_equations(self.Q, [0, 0, 0, 1])]

    def initial_equations(self):
        fa, fb = self.frame_a, self.frame_b
        eqs = []
        if self.enforce_states and self.use_quaternions:
            eqs.append(Eq(sum(q * q for q in self.Q), 1))
        R0 = start_rotation(self.sequence_start, self.angles_start)
        if self.angles_fixed:
            eqs += orientation_difference(R0 * T(fa), T(fb))
        if self.w_rel_a_fixed:
            eqs += vector_equations(self.w_rel_b,
                                    R0 * vector([float(x) for x in self.w_rel_a_start]))
        return eqs


class RevolutePlanarLoopConstraint(Component):
    """A revolute joint for closing a *planar* loop: it states only the 2 position constraints
    in the plane perpendicular to ``n`` and transmits only the 2 in-plane forces. In a planar
    loop of revolute joints with parallel axes the other 3 constraints of a revolute are implied
    by the rest of the loop, so stating them (a plain :class:`Revolute`) makes the loop's
    equations dependent. It states no branch: it is where the orientation graph is cut.

    Equations (``e = n/|n|``, ``ex_a``, ``ey_a`` in-plane unit vectors in frame_a)::

        r_rel_a = T_a (b.r_0 - a.r_0);  0 = ex_a . r_rel_a;  0 = ey_a . r_rel_a
        a.t = 0;  b.t = 0;  a.f = ex_a f_c[0] + ey_a f_c[1];  b.f = -T_b T_a' a.f

    Source: ``MultiBody.Joints.RevolutePlanarLoopConstraint`` (MSL 4.0). Viewer: as Revolute.
    """

    n = Parameter((0.0, 0.0, 1.0), structural=True, unit="1",
                  description="axis of rotation, in frame_a and frame_b")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.revolute
    parameter_rules = (axis_rule("n"),)
    f_c = Variable(shape=2, unit="N", description="constraint forces along ex_a and ey_a")
    r_rel_a = Variable(shape=3, unit="m", description="frame_b's origin from frame_a's, in a")

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        e = unit_axis(self.n, self)
        ex_a, ey_a = _plane_axes(e)
        f_a = ex_a * self.f_c[0] + ey_a * self.f_c[1]
        return [*vector_equations(self.r_rel_a, T(fa) * (vector(fb.r_0) - vector(fa.r_0))),
                Eq(dot(ex_a, self.r_rel_a), 0), Eq(dot(ey_a, self.r_rel_a), 0),
                *vector_equations(fa.t, [0, 0, 0]), *vector_equations(fb.t, [0, 0, 0]),
                *vector_equations(fa.f, f_a),
                *vector_equations(vector(fb.f) + T(fb) * T(fa).T * f_a, [0, 0, 0])]


def _plane_axes(e: sp.Matrix) -> tuple[sp.Matrix, sp.Matrix]:
    """Two unit vectors spanning the plane perpendicular to ``e`` (MultiBody's choice)."""
    if abs(float(e[0])) > 0.1:
        helper = vector([0, 1, 0])
    elif abs(float(e[1])) > 0.1:
        helper = vector([0, 0, 1])
    else:
        helper = vector([1, 0, 0])
    ey = normalized(cross(e, helper))
    ex = cross(ey, e)
    return ex.applyfunc(sp.nsimplify), ey.applyfunc(sp.nsimplify)


class SphericalSpherical(Component):
    """A massless (or, with ``m > 0``, point-mass-carrying) rod of length ``rod_length``
    between two spherical joints: one distance constraint, one rod force ``f_rod``.

    Equations (``rRod_0 = b.r_0 - a.r_0``, ``eRod_a = T_a rRod_0 / rod_length``)::

        rRod_0 . rRod_0 = rod_length^2
        a.t = 0;  b.t = 0
        m = 0:  a.f = f_rod eRod_a;  b.f = -T_b T_a' a.f
        m > 0:  the rod's mass sits at its middle: with f_CM_a = m T_a (D(v_CM_0) - g(r_CM_0))
                and its component along the rod f_CM_e,
                a.f = (f_CM_a - f_CM_e)/2 + f_rod eRod_a
                b.f = T_b T_a' ((f_CM_a + f_CM_e)/2 - f_rod eRod_a)

    ``compute_rod_length=True`` (MultiBody's ``computeRodLength``): ``rod_length`` is computed
    at initialisation (a parameter with ``fixed=False``; its given value is the guess), from the
    positions the rest of the model fixes at the start (e.g. a fixed slider position), so that
    the constraint holds exactly from the start; it is a constant of the run.

    Source: ``MultiBody.Joints.SphericalSpherical`` (MSL 4.0). Viewer: red spheres at both
    frames, a grey rod between them.
    """

    rod_length = Parameter(1.0, unit="m", min=0.0, min_exclusive=True,
                           description="distance between the joints")
    compute_rod_length = Parameter(False, description="compute rod_length at initialisation")
    m = Parameter(0.0, structural=True, unit="kg", min=0.0,
                  description="mass of the rod (at its middle)")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.spherical_spherical
    world = Outer(World)
    f_rod = Variable(unit="N", description="rod force: the rod acts on frame_a's part with "
                     "-f_rod eRod_a (positive: the rod is in tension)")
    rRod_0 = Variable(shape=3, unit="m", description="frame_a to frame_b, world frame")
    r_CM_0 = Variable(shape=3, unit="m", description="middle of the rod (0 without mass)")
    v_CM_0 = Variable(shape=3, unit="m/s", description="velocity of the rod's middle")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("compute_rod_length", False):
            guess = overrides.get("rod_length", type(self).rod_length.default)
            if not isinstance(guess, Parameter):
                self._overrides["rod_length"] = Parameter(guess, fixed=False)

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        r = vector(self.rRod_0)
        e_a = T(fa) * r / self.rod_length
        # the constraint in the frames' positions themselves (not through rRod_0): its
        # gradient then never vanishes at a guess of rRod_0 = 0
        d = vector(fb.r_0) - vector(fa.r_0)
        eqs = [*vector_equations(self.rRod_0, d), Eq(dot(d, d), self.rod_length**2),
               *vector_equations(fa.t, [0, 0, 0]), *vector_equations(fb.t, [0, 0, 0])]
        to_b = T(fb) * T(fa).T
        if float(self.m) <= 0.0:
            return eqs + [*vector_equations(fa.f, self.f_rod * e_a),
                          *vector_equations(vector(fb.f) + to_b * self.f_rod * e_a, [0, 0, 0]),
                          *vector_equations(self.r_CM_0, [0, 0, 0]),
                          *vector_equations(self.v_CM_0, [0, 0, 0])]
        r_cm = vector(self.r_CM_0)
        eqs += [*vector_equations(r_cm, vector(fa.r_0) + r / 2),
                *vector_equations(der(self.r_CM_0), self.v_CM_0)]
        f_cm = float(self.m) * T(fa) * (der(self.v_CM_0) - self.world.gravity_acceleration(r_cm))
        f_e = dot(f_cm, e_a) * e_a
        return eqs + [*vector_equations(fa.f, (f_cm - f_e) / 2 + self.f_rod * e_a),
                      *vector_equations(fb.f, to_b * ((f_cm + f_e) / 2 - self.f_rod * e_a))]


class UniversalSpherical(Component):
    """A massless rod from a universal joint at frame_a to a spherical joint at frame_b, with
    a frame ``frame_ia`` fixed in the rod at the universal joint (to attach parts to the rod).
    One distance constraint and one rod force ``f_rod``; the universal joint's first axis is
    ``n1_a`` (fixed in frame_a), its second is perpendicular to ``n1_a`` and to the rod.

    Equations (``rRod_0 = b.r_0 - a.r_0``, ``rRod_a = T_a rRod_0``, ``L = |rRod_ia|``)::

        rRod_0 . rRod_0 = L^2
        eRod_a = rRod_a / L;  e2_a = (n1_a x eRod_a)/|n1_a x eRod_a|;  e3_a = eRod_a x e2_a
        D_a = (T_a D(rRod_0) - w_a x rRod_a) / L       (the rod direction's rate, in frame_a)
        w_rel_ia1 = (e3_a.(n1_a x D_a)/|n1_a x eRod_a|, -e3_a.D_a, e2_a.D_a)
        T_rel_ia = [eRod_ia e2_ia e3_ia] [eRod_a e2_a e3_a]'     (rows/columns as MultiBody)
        ia.r_0 = a.r_0;  T_ia = T_rel_ia T_a;  w_ia = T_rel_ia w_a + R2 w_rel_ia1
        f_ia_a = T_rel_ia' ia.f;  t_ia_a = T_rel_ia' ia.t
        f_b_a = -f_rod eRod_a - e2_a (n1_a.t_ia_a)/(L n1_a.e3_a) + e3_a (e2_a.t_ia_a)/L
        b.f = T_b T_a' f_b_a;  b.t = 0
        0 = a.f + f_b_a + f_ia_a;  0 = a.t + t_ia_a + rRod_a x f_b_a

    Singular when the rod is parallel to ``n1_a``. Source: ``MultiBody.Joints.UniversalSpherical``
    (MSL 4.0, ``computeRodLength = false``, ``kinematicConstraint = true``). Viewer: red
    cylinders along the universal joint's axes, a grey rod, a red sphere at frame_b.
    """

    n1_a = Parameter((0.0, 0.0, 1.0), structural=True, unit="1",
                     description="axis 1 of the universal joint, fixed in frame_a")
    rRod_ia = Parameter((1.0, 0.0, 0.0), structural=True, unit="m",
                        description="rod from the universal to the spherical joint, in frame_ia")
    frame_a = Frame()
    frame_b = Frame()
    frame_ia = Frame()
    visual_shapes = viewer_shapes.universal_spherical
    parameter_rules = (axis_rule("n1_a"), not_parallel_rule(
        "n1_a", "rRod_ia", "the universal joint's second axis is perpendicular to both"))
    f_rod = Variable(unit="N", description="rod force (the rod acts on frame_b's part with "
                     "+f_rod along the rod; positive: tension)")
    rRod_0 = Variable(shape=3, unit="m", description="frame_a to frame_b, world frame")

    def connections(self):
        return [branch(self.frame_a, self.frame_ia)]

    def equations(self):
        fa, fb, fia = self.frame_a, self.frame_b, self.frame_ia
        r_ia = np.asarray([float(x) for x in self.rRod_ia])
        length = float(np.linalg.norm(r_ia))
        n1 = unit_axis(self.n1_a, self)
        e_ia = r_ia / length
        e2_ia = np.cross([float(x) for x in n1], e_ia)
        if np.linalg.norm(e2_ia) < 1e-10:
            raise ParameterError(f"UniversalSpherical '{self.path}': rRod_ia must not be "
                                 "parallel to n1_a.")
        e2_ia = e2_ia / np.linalg.norm(e2_ia)
        e3_ia = np.cross(e_ia, e2_ia)
        R2 = sp.Matrix(3, 3, [sp.Float(x) if x != 0 else 0
                              for x in np.column_stack([e_ia, e2_ia, e3_ia]).ravel()])
        d = vector(fb.r_0) - vector(fa.r_0)
        r0 = vector(self.rRod_0)
        r_a = T(fa) * r0
        e_rod = r_a / length
        n2 = cross(n1, e_rod)
        len_n2 = sp.sqrt(dot(n2, n2))
        e2 = n2 / len_n2
        e3 = cross(e_rod, e2)
        rate = (T(fa) * der(r0) - cross(vector(fa.w), r_a)) / length
        w_rel_ia1 = vector([dot(e3, cross(n1, rate)) / len_n2, -dot(e3, rate), dot(e2, rate)])
        R1 = sp.Matrix.vstack(e_rod.T, e2.T, e3.T)
        R_rel = R2 * R1
        f_ia_a = R_rel.T * vector(fia.f)
        t_ia_a = R_rel.T * vector(fia.t)
        f_b_a = -self.f_rod * e_rod - e2 * (dot(n1, t_ia_a) / (length * dot(n1, e3))) \
            + e3 * (dot(e2, t_ia_a) / length)
        return [*vector_equations(self.rRod_0, d), Eq(dot(d, d), length**2),
                *vector_equations(fia.r_0, fa.r_0),
                *vector_equations(fia.T, flat(R_rel * T(fa))),
                *vector_equations(fia.w, R_rel * vector(fa.w) + R2 * w_rel_ia1),
                *vector_equations(fb.f, T(fb) * T(fa).T * f_b_a),
                *vector_equations(fb.t, [0, 0, 0]),
                *vector_equations(vector(fa.f) + f_b_a + f_ia_a, [0, 0, 0]),
                *vector_equations(vector(fa.t) + t_ia_a + cross(r_a, f_b_a), [0, 0, 0])]


# the rolling wheel joint lives in its own module (this one's size); imported here so that
# its documented path components.multibody.joints.RollingWheel stays
from .rolling_wheel import RollingWheel  # noqa: E402, F401
