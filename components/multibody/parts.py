"""3-D parts: fixed frames, rigid translations and rotations, bodies.

Source: ``Modelica.Mechanics.MultiBody.Parts`` (MSL 4.0): ``Fixed``, ``FixedTranslation``,
``FixedRotation``, ``Body``, ``BodyShape``, ``BodyBox``, ``BodyCylinder``, ``PointMass``. Names
and defaults are MultiBody's (``r_CM``, ``I_11`` ... ``I_32``, ``angles_fixed``, ``w_0_fixed``,
...), in snake case where MultiBody uses camel case (``useQuaternions`` -> ``use_quaternions``).

Notation: ``a``/``b`` = frame_a/frame_b, ``T_a`` = a's orientation (world -> frame),
``D()`` = time derivative, ``x`` = cross product.
"""

from __future__ import annotations

import math

import numpy as np
import sympy as sp

from acausal import (
    Component,
    Eq,
    Outer,
    Parameter,
    Rule,
    Variable,
    branch,
    connect,
    der,
    is_root,
    potential_root,
    root,
    rooted,
)
from acausal.errors import ParameterError
from acausal.library.rotations import (
    axes_rotations,
    axes_rotations_angular_velocity,
    cross,
    flat,
    from_nxy,
    from_Q_normalized,
    orientation_difference,
    planar_rotation,
    quaternion_derivative,
    start_quaternion,
    start_rotation,
    vector,
)

from .. import rotational
from . import viewer_shapes
from .checks import (
    INERTIA_DEFINITE,
    INERTIA_TRIANGLE,
    at_most_rule,
    axis_rule,
    inertia_matrix,
    not_parallel_rule,
    numbers_rule,
    numeric_vector,
    sequence_rule,
    valid_sequence,
    vector_rule,
)
from .inertia_axes import check_inertia_where_it_matters
from .interfaces import Frame, T, constant, constant_vector, resolve1, vector_equations
from .world import World


class Fixed(Component):
    """Frame fixed in the world at ``r`` with the world's orientation (a root of the
    orientation graph).

    Equations: ``frame_b.r_0 = r``; ``frame_b.T = I``; ``frame_b.w = 0``.

    Source: ``MultiBody.Parts.Fixed``. Viewer: a grey rod from the world's origin to frame_b.
    """

    r = Parameter((0.0, 0.0, 0.0), structural=True, unit="m",
                  description="position of frame_b in the world")
    frame_b = Frame()
    visual_shapes = viewer_shapes.fixed

    def connections(self):
        return [root(self.frame_b)]

    def equations(self):
        fb = self.frame_b
        return [*vector_equations(fb.r_0, constant_vector(self.r, "r", self)),
                *vector_equations(fb.T, [1, 0, 0, 0, 1, 0, 0, 0, 1]),
                *vector_equations(fb.w, [0, 0, 0])]


class FixedTranslation(Component):
    """frame_b is fixed at ``r`` (resolved in frame_a) from frame_a, with the same orientation.

    Equations::

        b.r_0 = a.r_0 + T_a' r;  b.T = a.T;  b.w = a.w
        0 = a.f + b.f;  0 = a.t + b.t + r x b.f

    Source: ``MultiBody.Parts.FixedTranslation``. Viewer: a grey rod from frame_a to frame_b.
    """

    r = Parameter((0.0, 0.0, 0.0), structural=True, unit="m",
                  description="vector from frame_a to frame_b, resolved in frame_a")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.fixed_translation

    def connections(self):
        return [branch(self.frame_a, self.frame_b)]

    def equations(self):
        return translation_equations(self.frame_a, self.frame_b,
                                     constant_vector(self.r, 'r', self))


ROTATION_TYPES = ("RotationAxis", "TwoAxesVectors", "PlanarRotationSequence")


def fixed_rotation_matrix(rotation_type: str, n, angle_deg, n_x, n_y, sequence, angles_deg,
                          where: str) -> sp.Matrix:
    """The constant relative orientation of :class:`FixedRotation` (MultiBody's three ways)."""
    if rotation_type == "RotationAxis":
        e = np.asarray(n, dtype=float)
        if np.linalg.norm(e) == 0:
            raise ParameterError(f"{where}: n must not be the zero vector.")
        e = e / np.linalg.norm(e)
        return planar_rotation([sp.Float(x) for x in e], sp.Float(math.radians(angle_deg)))
    if rotation_type == "TwoAxesVectors":
        return from_nxy(n_x, n_y)
    if rotation_type == "PlanarRotationSequence":
        return axes_rotations([int(s) for s in sequence],
                              [sp.Float(math.radians(a)) for a in angles_deg])
    raise ParameterError(f"{where}: rotation_type={rotation_type!r} is not one of "
                         + ", ".join(ROTATION_TYPES) + ".")


class FixedRotation(Component):
    """frame_b is fixed at ``r`` (in frame_a) from frame_a and rotated by a constant rotation.

    ``rotation_type`` (MultiBody ``rotationType``): ``"RotationAxis"`` (by ``angle`` degrees
    about ``n``), ``"TwoAxesVectors"`` (frame_b's x axis along ``n_x``, y axis in the plane of
    ``n_x`` and ``n_y``) or ``"PlanarRotationSequence"`` (``angles`` degrees about the axes
    ``sequence``). The rotation is structural (fixed when the model is built); ``angle`` and
    ``angles`` are in degrees, as in MultiBody, so that models port unchanged.

    Equations (``R`` = the constant relative orientation, b.T = R a.T)::

        b.r_0 = a.r_0 + T_a' r
        b.T = R a.T;  b.w = R a.w           (written the other way round when frame_b is
                                              nearer the root)
        0 = a.f + R' b.f;  0 = a.t + R' b.t + r x (R' b.f)

    Source: ``MultiBody.Parts.FixedRotation``. Viewer: a grey rod from frame_a to frame_b.
    """

    r = Parameter((0.0, 0.0, 0.0), structural=True, unit="m",
                  description="vector from frame_a to frame_b, resolved in frame_a")
    rotation_type = Parameter("RotationAxis", description=", ".join(ROTATION_TYPES))
    n = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                  description="axis of rotation in frame_a (RotationAxis)")
    angle = Parameter(0.0, structural=True, unit="deg",
                      description="rotation angle about n (RotationAxis), degrees")
    n_x = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                    description="x axis of frame_b in frame_a (TwoAxesVectors)")
    n_y = Parameter((0.0, 1.0, 0.0), structural=True, unit="1",
                    description="y axis direction of frame_b in frame_a (TwoAxesVectors)")
    sequence = Parameter((1, 2, 3), structural=True,
                         description="axes of the rotation sequence (PlanarRotationSequence)")
    angles = Parameter((0.0, 0.0, 0.0), structural=True, unit="deg",
                       description="angles of the rotation sequence, degrees")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.fixed_translation

    parameter_rules = (
        Rule("rotation_type", "rotation_type is one of " + ", ".join(ROTATION_TYPES),
             lambda kind: kind in ROTATION_TYPES),
        Rule(("n", "rotation_type"), "n is not the zero vector (rotation_type='RotationAxis')",
             lambda n, kind: kind != "RotationAxis" or axis_rule("n").broken([n]) is None,
             advice="give the axis of rotation, e.g. n=(0, 0, 1)"),
        # MultiBody's Frames.from_nxy silently replaces an n_y parallel to n_x by some
        # perpendicular vector: a frame the user did not ask for; refused here
        not_parallel_rule("n_x", "n_y", "frame_b's x axis is n_x and its y axis lies in the "
                          "plane of n_x and n_y, which parallel vectors do not span",
                          ("rotation_type", lambda kind: kind == "TwoAxesVectors")),
        sequence_rule("sequence", ("rotation_type",
                                   lambda kind: kind == "PlanarRotationSequence")),
    )

    def connections(self):
        return [branch(self.frame_a, self.frame_b)]

    def rotation_matrix(self) -> np.ndarray:
        """The constant relative orientation R (b.T = R a.T), as numbers."""
        return np.array(fixed_rotation_matrix(
            self.rotation_type, self.n, self.angle, self.n_x, self.n_y, self.sequence,
            self.angles, f"FixedRotation '{self.path}'").evalf(), dtype=float)

    def equations(self):
        a, b = self.frame_a, self.frame_b
        R = fixed_rotation_matrix(self.rotation_type, self.n, self.angle, self.n_x, self.n_y,
                                  self.sequence, self.angles, f"FixedRotation '{self.path}'")
        r = constant_vector(self.r, 'r', self)
        Ta, Tb = T(a), T(b)
        if rooted(a):
            orientation = [*vector_equations(b.T, flat(R * Ta)),
                           *vector_equations(b.w, R * vector(a.w))]
        else:
            orientation = [*vector_equations(a.T, flat(R.T * Tb)),
                           *vector_equations(a.w, R.T * vector(b.w))]
        fb_in_a = R.T * vector(b.f)
        return [*vector_equations(b.r_0, a.r_0 + resolve1(a, r)), *orientation,
                *vector_equations(vector(a.f) + fb_in_a, [0, 0, 0]),
                *vector_equations(vector(a.t) + R.T * vector(b.t) + cross(r, fb_in_a),
                                  [0, 0, 0])]


class Body(Component):
    """Rigid body with mass ``m``, centre of mass at ``r_CM`` from frame_a and inertia tensor
    ``I`` about the centre of mass, resolved in frame_a.

    Equations (MultiBody ``Parts.Body``)::

        r_0 = a.r_0;  v_0 = D(r_0);  a_0 = D(v_0)
        w_a = a.w;  z_a = D(w_a)
        g_0 = world.gravity_acceleration(r_0 + T_a' r_CM)
        a.f = m (T_a (a_0 - g_0) + z_a x r_CM + w_a x (w_a x r_CM))
        a.t = I z_a + w_a x (I w_a) + r_CM x a.f

    When nothing else determines frame_a's orientation (a free body: frame_a is selected as the
    root of its part of the orientation graph, ``potential_root``), the body carries it:

    * ``use_quaternions=True`` (default): the four elements of ``Q`` are states with
      ``D(Q) = G(Q)' w_a / 2`` (MultiBody's ``w_a = 2 G(Q) D(Q)`` solved for ``D(Q)``; it keeps
      ``Q.Q`` constant) and ``T_a = from_Q(Q/|Q|)``; the initial equation ``Q.Q = 1`` puts them
      on the unit sphere. No constraint, no choice of three of the four and no re-selection
      during the run (MultiBody states ``Q.Q = 1`` and lets the tool pick three states
      dynamically): the body tumbles for any time with no singular orientation and the same
      states throughout, so its FMU keeps them too; ``|Q|`` drifts from 1 only by the
      integration error, which the normalised ``T_a`` never shows.
    * ``use_quaternions=False``: Cardan angles ``phi`` about ``sequence_angle_states``
      (``phi_d = D(phi)``, singular at a middle angle of +-90 deg).

    Initial orientation and angular velocity: ``angles_fixed`` with ``angles_start`` about
    ``sequence_start`` (degrees would be MultiBody's display unit; here radians), and
    ``w_0_fixed`` with ``w_0_start`` (resolved in the world frame), as MultiBody.

    Source: ``MultiBody.Parts.Body`` (MSL 4.0). Viewer: a sphere at the centre of mass and a
    cylinder from frame_a to it (blue).
    """

    m = Parameter(1.0, unit="kg", min=0.0, description="mass")
    r_CM = Parameter((0.0, 0.0, 0.0), structural=True, unit="m",
                     description="centre of mass from frame_a, resolved in frame_a")
    I_11 = Parameter(0.001, structural=True, unit="kg.m2", min=0.0,
                     description="inertia about the centre of mass, resolved in frame_a, 11")
    I_22 = Parameter(0.001, structural=True, unit="kg.m2", min=0.0, description="inertia 22")
    I_33 = Parameter(0.001, structural=True, unit="kg.m2", min=0.0, description="inertia 33")
    I_21 = Parameter(0.0, structural=True, unit="kg.m2", description="inertia 21")
    I_31 = Parameter(0.0, structural=True, unit="kg.m2", description="inertia 31")
    I_32 = Parameter(0.0, structural=True, unit="kg.m2", description="inertia 32")
    use_quaternions = Parameter(True, description="orientation states: quaternions (True) or "
                                "Cardan angles (False), when the body is a root")
    sequence_angle_states = Parameter((1, 2, 3), structural=True,
                                      description="axes of the angle states "
                                      "(use_quaternions=False)")
    angles_fixed = Parameter(False, description="fix the initial orientation to angles_start")
    angles_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad",
                             description="initial orientation angles about sequence_start")
    sequence_start = Parameter((1, 2, 3), structural=True,
                               description="axes of angles_start")
    w_0_fixed = Parameter(False, description="fix the initial angular velocity to w_0_start")
    w_0_start = Parameter((0.0, 0.0, 0.0), structural=True, unit="rad/s",
                          description="initial angular velocity resolved in the world frame")
    frame_a = Frame()
    world = Outer(World)
    visual_shapes = viewer_shapes.body

    r_0 = Variable(shape=3, start=0.0, unit="m", state_priority=-2,
                   description="position of frame_a (world frame)")
    v_0 = Variable(shape=3, start=0.0, unit="m/s", state_priority=-2,
                   description="velocity of frame_a, D(r_0) (world frame)")
    a_0 = Variable(shape=3, unit="m/s2", description="acceleration D(v_0) (world frame)")
    w_a = Variable(shape=3, start=0.0, unit="rad/s", state_priority=3,
                   description="angular velocity resolved in frame_a")
    z_a = Variable(shape=3, unit="rad/s2", description="angular acceleration D(w_a), in frame_a")
    g_0 = Variable(shape=3, unit="m/s2", description="gravity acceleration at the centre of mass")
    Q = Variable(shape=4, start=(0.0, 0.0, 0.0, 1.0), unit="1", state_priority=2,
                 description="orientation quaternion when the body is a root (scalar last)")
    phi = Variable(shape=3, start=0.0, unit="rad", state_priority=-1,
                   description="orientation angles when the body is a root (no quaternions)")
    phi_d = Variable(shape=3, start=0.0, unit="rad/s", state_priority=-1,
                     description="D(phi)")

    parameter_rules = (
        INERTIA_DEFINITE,
        INERTIA_TRIANGLE,
        sequence_rule("sequence_angle_states", ("use_quaternions", lambda q: not q)),
        sequence_rule("sequence_start"),
    )

    def __init__(self, **overrides):
        super().__init__(**overrides)
        # a bad sequence or angle is left to the parameters' checks, which name the body
        if "angles_start" in overrides and "Q" not in overrides \
                and valid_sequence(overrides.get("sequence_start", (1, 2, 3))) \
                and numeric_vector(overrides["angles_start"]):
            self._overrides["Q"] = Variable(start=self.start_quaternion())  # start there

    def connections(self):
        return [potential_root(self.frame_a)]

    def inertia(self) -> sp.Matrix:
        """The inertia tensor about the centre of mass, resolved in frame_a (numbers)."""
        i11, i22, i33, i21, i31, i32 = (constant(getattr(self, k)) for k in (
            "I_11", "I_22", "I_33", "I_21", "I_31", "I_32"))
        return sp.Matrix([[i11, i21, i31], [i21, i22, i32], [i31, i32, i33]])

    def equations(self):
        fa = self.frame_a
        Ta = T(fa)
        r_CM = constant_vector(self.r_CM, 'r_CM', self)
        w, z = vector(self.w_a), vector(self.z_a)
        inertia = self.inertia()
        f = vector(fa.f)
        eqs = [*vector_equations(self.r_0, fa.r_0), *vector_equations(der(self.r_0), self.v_0),
               *vector_equations(der(self.v_0), self.a_0), *vector_equations(self.w_a, fa.w),
               *vector_equations(der(self.w_a), self.z_a),
               *vector_equations(self.g_0, self.world.gravity_acceleration(
                   vector(self.r_0) + Ta.T * r_CM)),
               *vector_equations(f, self.m * (Ta * (vector(self.a_0) - vector(self.g_0))
                                              + cross(z, r_CM) + cross(w, cross(w, r_CM)))),
               *vector_equations(fa.t, inertia * z + cross(w, inertia * w) + cross(r_CM, f))]
        return eqs + self._orientation_equations()

    def _orientation_equations(self) -> list:
        fa = self.frame_a
        if not is_root(fa):
            return [*vector_equations(self.Q, [0, 0, 0, 1]),
                    *vector_equations(self.phi, [0, 0, 0]),
                    *vector_equations(self.phi_d, [0, 0, 0])]
        if self.use_quaternions:
            Q = list(self.Q)
            return [*vector_equations(fa.T, flat(from_Q_normalized(Q))),
                    *vector_equations(der(self.Q), quaternion_derivative(Q, fa.w)),
                    *vector_equations(self.phi, [0, 0, 0]),
                    *vector_equations(self.phi_d, [0, 0, 0])]
        seq = [int(s) for s in self.sequence_angle_states]
        return [*vector_equations(fa.T, flat(axes_rotations(seq, list(self.phi)))),
                *vector_equations(der(self.phi), self.phi_d),
                *vector_equations(fa.w, axes_rotations_angular_velocity(
                    seq, list(self.phi), list(self.phi_d))),
                *vector_equations(self.Q, [0, 0, 0, 1])]

    def initial_equations(self):
        fa = self.frame_a
        # the quaternion states start on the unit sphere (their derivative keeps them there)
        eqs = [Eq(sum(q * q for q in self.Q), 1)] if is_root(fa) and self.use_quaternions else []
        if self.angles_fixed:
            start = start_rotation(self.sequence_start, self.angles_start)
            eqs += orientation_difference(start, T(fa))
        if self.w_0_fixed:
            w0 = vector([float(x) for x in self.w_0_start])
            eqs += vector_equations(self.w_a, T(fa) * w0)
        return eqs

    def check_parameters(self) -> None:
        # moments no mass distribution has: an error where the body can turn about several
        # axes, the rule's warning where it turns about one only (see inertia_axes.py)
        check_inertia_where_it_matters(self)
        super().check_parameters()

    def structural_advice(self) -> str:
        """Quoted by a structural error that names this body: a body that carries its own
        orientation (its frame_a is the root of its part: a free body, or one hung on a
        Spherical joint) turns by the inertia of the parts rigidly attached to it; when that
        is only its own and it is not positive definite (I = 0: a point mass), nothing
        determines its rotation. (Not refused up front: a massless root body is legal when
        other bodies are fixed to it.)"""
        names = ("I_11", "I_22", "I_33", "I_21", "I_31", "I_32")
        elements = [float(getattr(self, k)) for k in names]
        moments = np.linalg.eigvalsh(inertia_matrix(*elements))
        if not is_root(self.frame_a) or moments[0] > 1e-12 * max(float(moments[-1]), 1e-300):
            return ""
        given = ", ".join(f"{k}={x:g}" for k, x in zip(names, elements))
        return (f"{type(self).__name__} '{self.path}' carries its own orientation (nothing "
                "else orients its frame_a: a free body, or one hung on a Spherical joint), but "
                f"its inertia tensor is not positive definite ({given}), so unless other "
                "bodies are fixed to it nothing determines its rotation. A free body needs a "
                "mass m > 0 and an inertia about each axis: give I_11, I_22, I_33 > 0, or use "
                "PointMass for a point mass (it needs no orientation).")

    def start_quaternion(self) -> tuple[float, ...]:
        """The quaternion of ``angles_start`` (a start value for ``Q``)."""
        angles = self._overrides.get("angles_start", type(self).angles_start.default)
        sequence = self._overrides.get("sequence_start", type(self).sequence_start.default)
        return start_quaternion(sequence, angles)


def translation_equations(a, b, r) -> list:
    """frame_b rigidly at ``r`` (resolved in frame_a) from frame_a, same orientation."""
    return [*vector_equations(b.r_0, a.r_0 + resolve1(a, r)),
            *vector_equations(b.T, a.T), *vector_equations(b.w, a.w),
            *vector_equations(vector(a.f) + vector(b.f), [0, 0, 0]),
            *vector_equations(vector(a.t) + vector(b.t) + cross(r, b.f), [0, 0, 0])]


class BodyShape(Body):
    """A :class:`Body` at frame_a rigidly joined to frame_b at ``r`` (resolved in frame_a):
    a link with two frames (MultiBody ``Parts.BodyShape``: a ``FixedTranslation`` plus a
    ``Body``).

    Equations: those of :class:`Body` (at frame_a, with its ``r_CM``), plus::

        b.r_0 = a.r_0 + T_a' r;  b.T = a.T;  b.w = a.w
        f_a,body = a.f + b.f;  t_a,body = a.t + b.t + r x b.f

    where the body's Newton-Euler equations are written with ``f_a,body``/``t_a,body`` (the
    force and torque that reach the body from both frames).

    Source: ``MultiBody.Parts.BodyShape`` (MSL 4.0). Viewer: a blue cylinder from frame_a to
    frame_b (|r|/20 wide) and a sphere at the centre of mass.
    """

    r = Parameter((0.0, 0.0, 0.0), structural=True, unit="m",
                  description="vector from frame_a to frame_b, resolved in frame_a")
    frame_b = Frame()
    visual_shapes = viewer_shapes.body_shape

    def connections(self):
        return [*super().connections(), branch(self.frame_a, self.frame_b)]

    def equations(self):
        a, b = self.frame_a, self.frame_b
        r = constant_vector(self.r, 'r', self)
        body = super().equations()  # Newton-Euler with a.f and a.t standing for the body's load
        f_body = vector(a.f) + vector(b.f)
        t_body = vector(a.t) + vector(b.t) + cross(r, b.f)
        load = {a.f[i]: f_body[i] for i in range(3)}
        load.update({a.t[i]: t_body[i] for i in range(3)})
        return [*(e.xreplace(load) for e in body),
                *vector_equations(b.r_0, a.r_0 + resolve1(a, r)),
                *vector_equations(b.T, a.T), *vector_equations(b.w, a.w)]


def box_properties(length_direction, width_direction, length, width, height, inner_width,
                   inner_height, density, r_shape, where: str) -> dict:
    """Mass, centre of mass and inertia (about the centre of mass, in frame_a) of a box with an
    optional rectangular hole along its length (MultiBody ``BodyBox``)."""
    if min(length, width, height, density) < 0 or inner_width > width or inner_height > height:
        raise ParameterError(f"{where}: box dimensions and density must be >= 0, the inner "
                             "width/height at most the outer ones.")
    mo = density * length * width * height
    mi = density * length * inner_width * inner_height
    m = mo - mi
    R = np.array(from_nxy(length_direction, width_direction).evalf(), dtype=float)
    Ilocal = np.diag([(mo * (width**2 + height**2) - mi * (inner_width**2 + inner_height**2)) / 12,
                      (mo * (length**2 + height**2) - mi * (length**2 + inner_height**2)) / 12,
                      (mo * (length**2 + width**2) - mi * (length**2 + inner_width**2)) / 12])
    return _mass_properties(m, np.asarray(r_shape, float) + R[0] * length / 2, R.T @ Ilocal @ R)


def cylinder_properties(length_direction, length, diameter, inner_diameter, density, r_shape,
                        where: str) -> dict:
    """Mass, centre of mass and inertia of a (hollow) cylinder (MultiBody ``BodyCylinder``)."""
    if min(length, diameter, density, inner_diameter) < 0 or inner_diameter > diameter:
        raise ParameterError(f"{where}: cylinder dimensions and density must be >= 0 and "
                             "inner_diameter <= diameter.")
    radius, inner = diameter / 2, inner_diameter / 2
    mo = density * math.pi * length * radius**2
    mi = density * math.pi * length * inner**2
    m = mo - mi
    R = np.array(from_nxy(length_direction, _perpendicular(length_direction)).evalf(),
                 dtype=float)
    I22 = (mo * (length**2 + 3 * radius**2) - mi * (length**2 + 3 * inner**2)) / 12
    Ilocal = np.diag([(mo * radius**2 - mi * inner**2) / 2, I22, I22])
    return _mass_properties(m, np.asarray(r_shape, float) + R[0] * length / 2, R.T @ Ilocal @ R)


def _perpendicular(e) -> list[float]:
    e = np.asarray(e, float)
    e = e / np.linalg.norm(e)
    return [0.0, 1.0, 0.0] if abs(e[0]) > 0.99 else [1.0, 0.0, 0.0]


def _mass_properties(m, r_CM, inertia) -> dict:
    return dict(m=float(m), r_CM=[float(x) for x in r_CM], I_11=float(inertia[0, 0]),
                I_22=float(inertia[1, 1]), I_33=float(inertia[2, 2]),
                I_21=float(inertia[1, 0]), I_31=float(inertia[2, 0]),
                I_32=float(inertia[2, 1]))


class BodyBox(BodyShape):
    """A box-shaped :class:`BodyShape`: mass and inertia from the geometry and ``density``
    (MultiBody ``Parts.BodyBox``).

    The box extends from ``r_shape`` along ``length_direction`` (default ``r - r_shape``) by
    ``length`` (default ``|r - r_shape|``), with ``width`` along ``width_direction`` (default
    ``length/20``, MultiBody's ``world.defaultWidthFraction``) and ``height`` (default
    ``width``), and an optional hole ``inner_width`` x ``inner_height``::

        m = density (length width height - length inner_width inner_height)
        r_CM = r_shape + e_length length/2
        I = R' diag((m_o (w^2+h^2) - m_i (wi^2+hi^2))/12, (m_o (l^2+h^2) - m_i (l^2+hi^2))/12,
                    (m_o (l^2+w^2) - m_i (l^2+wi^2))/12) R

    The geometry is structural (fixed when the model is built): ``m``, ``r_CM`` and ``I_..`` are
    computed from it and remain parameters of the body.

    Source: ``MultiBody.Parts.BodyBox`` (MSL 4.0), density default 7700 kg/m3 (steel).
    Viewer: the blue box.
    """

    r_shape = Parameter((0.0, 0.0, 0.0), structural=True, unit="m")
    length_direction = Parameter(None, structural=True, unit="1")
    width_direction = Parameter((0.0, 1.0, 0.0), structural=True, unit="1")
    # the dimensions' defaults are derived (length |r - r_shape|, width length/20, ...): once
    # created, the box holds the values it was built with, which the bounds check
    length = Parameter(None, structural=True, unit="m", min=0.0, min_exclusive=True)
    width = Parameter(None, structural=True, unit="m", min=0.0, min_exclusive=True)
    height = Parameter(None, structural=True, unit="m", min=0.0, min_exclusive=True)
    inner_width = Parameter(0.0, structural=True, unit="m", min=0.0)
    inner_height = Parameter(None, structural=True, unit="m", min=0.0)
    density = Parameter(7700.0, structural=True, unit="kg/m3", min=0.0)
    visual_shapes = viewer_shapes.body_box

    parameter_rules = (
        vector_rule("r_shape", "start of the box"),
        vector_rule("length_direction", "length direction", nonzero=True, optional=True),
        vector_rule("width_direction", "width direction", nonzero=True),
        numbers_rule("length", "width", "height", "inner_width", "inner_height", "density"),
        # MultiBody's BodyBox: assert(innerWidth <= width), assert(innerHeight <= height)
        at_most_rule("inner_width", "width", "(MultiBody BodyBox asserts innerWidth <= width)"),
        at_most_rule("inner_height", "height",
                      "(MultiBody BodyBox asserts innerHeight <= height)"),
    )

    def __init__(self, **kw):
        try:
            r = _floats(kw.get("r", (0.0, 0.0, 0.0)))
            r_shape = _floats(kw.get("r_shape", (0.0, 0.0, 0.0)))
            given = kw.get("length_direction")
            direction = r - r_shape if given is None else _floats(given)
            width_direction = _floats(kw.get("width_direction", (0.0, 1.0, 0.0)))
            length = _given(kw, "length", float(np.linalg.norm(r - r_shape)))
            width = _given(kw, "width", length / 20)
            height = _given(kw, "height", width)
            inner_width = _given(kw, "inner_width", 0.0)
            inner_height = _given(kw, "inner_height", inner_width)
            density = _given(kw, "density", 7700.0)
        except (TypeError, ValueError):  # not a number: the parameters' checks name it
            super().__init__(**kw)
            return
        kw = {**kw, "length": length, "width": width, "height": height,
              "inner_height": inner_height}
        if _geometry_ok([length, width, height], [inner_width, inner_height, density],
                        [r_shape, direction, width_direction]) \
                and inner_width <= width and inner_height <= height:
            if np.linalg.norm(direction) == 0:
                direction = np.array([1.0, 0.0, 0.0])
            props = box_properties(direction, width_direction, length, width, height,
                                   inner_width, inner_height, density, r_shape, "BodyBox")
            props.update({k: v for k, v in kw.items() if k in props})
            kw.update(props)
        super().__init__(**kw)


class BodyCylinder(BodyShape):
    """A cylinder-shaped :class:`BodyShape`: mass and inertia from the geometry and ``density``
    (MultiBody ``Parts.BodyCylinder``).

    The cylinder extends from ``r_shape`` along ``length_direction`` (default ``r - r_shape``)
    by ``length`` (default ``|r - r_shape|``), with ``diameter`` (default ``length/20``) and an
    optional bore ``inner_diameter``::

        m = density pi length (diameter^2 - inner_diameter^2)/4
        I (cylinder axes) = diag((m_o ro^2 - m_i ri^2)/2, I_22, I_22),
        I_22 = (m_o (l^2 + 3 ro^2) - m_i (l^2 + 3 ri^2))/12

    Source: ``MultiBody.Parts.BodyCylinder`` (MSL 4.0), density default 7700 kg/m3.
    Viewer: the blue cylinder.
    """

    r_shape = Parameter((0.0, 0.0, 0.0), structural=True, unit="m")
    length_direction = Parameter(None, structural=True, unit="1")
    length = Parameter(None, structural=True, unit="m", min=0.0, min_exclusive=True)
    diameter = Parameter(None, structural=True, unit="m", min=0.0, min_exclusive=True)
    inner_diameter = Parameter(0.0, structural=True, unit="m", min=0.0)
    density = Parameter(7700.0, structural=True, unit="kg/m3", min=0.0)
    visual_shapes = viewer_shapes.body_cylinder

    parameter_rules = (
        vector_rule("r_shape", "start of the cylinder"),
        vector_rule("length_direction", "length direction", nonzero=True, optional=True),
        numbers_rule("length", "diameter", "inner_diameter", "density"),
        # MultiBody's BodyCylinder: assert(innerDiameter < diameter)
        at_most_rule("inner_diameter", "diameter",
                      "(MultiBody BodyCylinder asserts innerDiameter < diameter)", strict=True),
    )

    def __init__(self, **kw):
        try:
            r = _floats(kw.get("r", (0.0, 0.0, 0.0)))
            r_shape = _floats(kw.get("r_shape", (0.0, 0.0, 0.0)))
            given = kw.get("length_direction")
            direction = r - r_shape if given is None else _floats(given)
            length = _given(kw, "length", float(np.linalg.norm(r - r_shape)))
            diameter = _given(kw, "diameter", length / 20)
            inner_diameter = _given(kw, "inner_diameter", 0.0)
            density = _given(kw, "density", 7700.0)
        except (TypeError, ValueError):  # not a number: the parameters' checks name it
            super().__init__(**kw)
            return
        kw = {**kw, "length": length, "diameter": diameter}
        if _geometry_ok([length, diameter], [inner_diameter, density], [r_shape, direction]) \
                and inner_diameter < diameter:
            if np.linalg.norm(direction) == 0:
                direction = np.array([1.0, 0.0, 0.0])
            props = cylinder_properties(direction, length, diameter, inner_diameter, density,
                                        r_shape, "BodyCylinder")
            props.update({k: v for k, v in kw.items() if k in props})
            kw.update(props)
        super().__init__(**kw)


def _floats(values) -> np.ndarray:
    """Three floats, or ValueError (the parameters' rules then name what is wrong)."""
    if any(isinstance(v, (str, bytes)) for v in values) or len(values) != 3:
        raise ValueError("not a 3-vector of numbers")
    return np.asarray([float(v) for v in values], dtype=float)


def _given(kw: dict, name: str, default: float) -> float:
    value = kw.get(name)
    if isinstance(value, (str, bytes)):
        raise ValueError("a string")
    return default if value is None else float(value)


def _geometry_ok(positive, non_negative, vectors) -> bool:
    """Whether the mass properties can be computed from these values; when not, the body is
    created without them and its parameters' checks name the wrong value."""
    return (all(math.isfinite(x) and x > 0 for x in positive)
            and all(math.isfinite(x) and x >= 0 for x in non_negative)
            and all(np.all(np.isfinite(v)) for v in vectors))


class PointMass(Component):
    """A point mass ``m`` at frame_a (no inertia), MultiBody ``Parts.PointMass``.

    Equations::

        r_0 = a.r_0;  v_0 = D(r_0);  a_0 = D(v_0)
        a.f = m T_a (a_0 - g_0(r_0))
        frame_a the root of its part (nothing else orients it): T_a = I, w_a = 0
        otherwise: a.t = 0

    A point mass has no orientation of its own: when it is the only thing at its frame it
    fixes the frame's orientation to the world's and takes whatever torque that needs.

    Source: ``MultiBody.Parts.PointMass`` (MSL 4.0). Viewer: a blue sphere at frame_a.
    """

    m = Parameter(1.0, unit="kg", min=0.0, description="mass")
    frame_a = Frame()
    world = Outer(World)
    r_0 = Variable(shape=3, start=0.0, unit="m", state_priority=1,
                   description="position (world frame)")
    v_0 = Variable(shape=3, start=0.0, unit="m/s", state_priority=1,
                   description="velocity D(r_0)")
    a_0 = Variable(shape=3, unit="m/s2", description="acceleration D(v_0)")
    visual_shapes = viewer_shapes.point_mass

    def connections(self):
        # the least preferred root (MultiBody: priority 10000): a body at the same frame orients it
        return [potential_root(self.frame_a, priority=10000)]

    def equations(self):
        fa = self.frame_a
        eqs = [*vector_equations(self.r_0, fa.r_0), *vector_equations(der(self.r_0), self.v_0),
               *vector_equations(der(self.v_0), self.a_0),
               *vector_equations(fa.f, self.m * T(fa) * (
                   vector(self.a_0) - self.world.gravity_acceleration(self.r_0)))]
        if is_root(fa):
            return eqs + [*vector_equations(fa.T, [1, 0, 0, 0, 1, 0, 0, 0, 1]),
                          *vector_equations(fa.w, [0, 0, 0])]
        return eqs + vector_equations(fa.t, [0, 0, 0])


class Rotor1D(Component):
    """A 1-D rotational inertia ``J`` spinning about the axis ``n`` of frame_a, with the
    gyroscopic effects of that spin on the 3-D frame it is mounted on (MultiBody
    ``Parts.Rotor1D`` with ``world.driveTrainMechanics3D = true``, ``exact = true``). The
    mass of the rotor is not included: put a body at frame_a for it.

    Equations (``e = n/|n|``, ``w_a = frame_a.w``)::

        phi = flange_a.phi = flange_b.phi;  w = D(phi);  a = D(w)
        J a = flange_a.tau + flange_b.tau - J e . D(w_a)
        frame_a.f = 0;  frame_a.t = w_a x (J e w) - e (J e . D(w_a))

    Source: ``MultiBody.Parts.Rotor1D`` and ``Parts.Internal.RotorWith3DEffects`` (MSL 4.0).
    """

    J = Parameter(1.0, unit="kg.m2", min=0.0, description="moment of inertia about the axis")
    n = Parameter((1.0, 0.0, 0.0), structural=True, unit="1",
                  description="axis of rotation, resolved in frame_a")
    flange_a = rotational.Flange()
    flange_b = rotational.Flange()
    frame_a = Frame()
    parameter_rules = (axis_rule("n"),)
    phi = Variable(start=0.0, unit="rad", description="rotation angle of the rotor")
    w = Variable(start=0.0, unit="rad/s", description="D(phi)")
    a = Variable(unit="rad/s2", description="D(w)")

    def equations(self):
        from .joints import unit_axis

        fa = self.frame_a
        e = unit_axis(self.n, self)
        spin_of_carrier = e.dot(der(vector(fa.w)))
        return [Eq(self.phi, self.flange_a.phi), Eq(self.phi, self.flange_b.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
                Eq(self.J * self.a, self.flange_a.tau + self.flange_b.tau
                   - self.J * spin_of_carrier),
                *vector_equations(fa.f, [0, 0, 0]),
                *vector_equations(fa.t, cross(vector(fa.w), self.J * e * self.w)
                                  - e * self.J * spin_of_carrier)]


class RollingWheel(Component):
    """A wheel (mass ``m``, inertia ``I_axis`` about its axis and ``I_long`` across it)
    rolling without slip on the ground z = 0, or on a road with a ``grade`` (MultiBody
    ``Parts.RollingWheel``): a :class:`Body` at the centre plus
    :class:`~acausal.components.multibody.joints.RollingWheel` (whose docstring gives the road
    frame and the equations; its coordinates are in the road frame). Its coordinates
    ``x, y, angles, der_angles`` start fixed (MultiBody's defaults: 0). Put the world's gravity
    along -z (``World(n=(0, 0, -1))``). Viewer: a dark disc with a rim mark, and its road (its
    body is not drawn).
    """

    # structural: handed to the body and the joint when the model is built (change
    # wheel1.body.m or wheel1.rollingWheel.radius to vary them without recompiling)
    radius = Parameter(0.3, structural=True, unit="m", min=0.0, min_exclusive=True,
                       description="wheel radius")
    m = Parameter(1.0, structural=True, unit="kg", min=0.0, description="wheel mass")
    I_axis = Parameter(1.0, structural=True, unit="kg.m2", min=0.0,
                       description="inertia about the axis")
    I_long = Parameter(1.0, structural=True, unit="kg.m2", min=0.0,
                       description="inertia across the axis")
    grade = Parameter(0.0, structural=True, unit="rad", min=-math.pi / 2, max=math.pi / 2,
                      min_exclusive=True, max_exclusive=True,
                      description="angle of the road to the world x axis (> 0: rises towards "
                      "+x; rad, not percent)")
    frame_a = Frame()
    x = Variable(start=0.0, fixed=True, unit="m", state_priority=10)
    y = Variable(start=0.0, fixed=True, unit="m", state_priority=10)
    angles = Variable(shape=3, start=0.0, fixed=True, unit="rad", state_priority=10)
    der_angles = Variable(shape=3, start=0.0, fixed=True, unit="rad/s", state_priority=10)
    visual_shapes = viewer_shapes.rolling_wheel

    def __init__(self, **kw):
        super().__init__(**kw)
        from .joints import RollingWheel as RollingWheelJoint

        self.body = Body(r_CM=(0.0, 0.0, 0.0), m=kw.get("m", 1.0),
                         I_11=kw.get("I_long", 1.0), I_22=kw.get("I_axis", 1.0),
                         I_33=kw.get("I_long", 1.0))
        self.rollingWheel = RollingWheelJoint(radius=kw.get("radius", 0.3),
                                              grade=kw.get("grade", 0.0))
        self.body._animation = False  # the wheel draws itself (MultiBody animation=false)

    def connections(self):
        return [connect(self.body.frame_a, self.frame_a),
                connect(self.rollingWheel.frame_a, self.frame_a)]

    def equations(self):
        j = self.rollingWheel
        return [Eq(j.x, self.x), Eq(j.y, self.y), *vector_equations(j.angles, self.angles),
                *vector_equations(j.der_angles, self.der_angles)]
