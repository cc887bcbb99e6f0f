"""Rotations in 3-D as sympy expressions (the facts of ``Modelica.Mechanics.MultiBody.Frames``).

Convention (as MultiBody): an orientation is the 3x3 matrix ``T`` that resolves a vector given in
the world frame in the local frame, ``v_local = T v_world``; its rows are the local axes
resolved in the world frame. ``w`` is the frame's angular velocity with respect to the world,
resolved in the frame itself, and ``D(T) = -skew(w) T``.

A 3-D frame connector carries ``T`` as 9 numbers in row-major order (``T[0..2]`` is the first
row); :func:`matrix` and :func:`flat` convert.

Quaternions follow MultiBody's ``Frames.Quaternions``: ``Q = (Q1, Q2, Q3, Q4)`` with the scalar
part last, ``Q = (n sin(phi/2), cos(phi/2))`` for a rotation by ``phi`` about the unit axis ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp


def vector(values: Sequence) -> sp.Matrix:
    """A column 3-vector of sympy expressions."""
    return sp.Matrix(list(values))


def matrix(flat9: Sequence) -> sp.Matrix:
    """The 3x3 matrix of 9 numbers in row-major order."""
    return sp.Matrix(3, 3, list(flat9))


def flat(T: sp.Matrix) -> sp.Matrix:
    """A 3x3 matrix as a column of 9 numbers in row-major order."""
    return sp.Matrix([T[i, j] for i in range(3) for j in range(3)])


def skew(v: Sequence) -> sp.Matrix:
    """``skew(v) w = v x w``."""
    return sp.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def cross(a: Sequence, b: Sequence) -> sp.Matrix:
    """``a x b`` of two 3-vectors."""
    return sp.Matrix([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


def dot(a: Sequence, b: Sequence):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def normalized(e: Sequence) -> sp.Matrix:
    """``e / |e|`` (for parameter vectors: the length is a parameter expression)."""
    v = vector(e)
    return v / sp.sqrt(dot(v, v))


def planar_rotation(e: Sequence, angle) -> sp.Matrix:
    """``T`` of a rotation by ``angle`` about the unit axis ``e`` (MultiBody
    ``Frames.planarRotation``): ``T = e e' + (I - e e') cos(angle) - skew(e) sin(angle)``."""
    e = vector(e)
    ee = e * e.T
    return ee + (sp.eye(3) - ee) * sp.cos(angle) - skew(e) * sp.sin(angle)


def axis_rotation(axis: int, angle) -> sp.Matrix:
    """``T`` of a rotation by ``angle`` about the coordinate axis 1, 2 or 3 (MultiBody
    ``Frames.axisRotation``)."""
    e = [0, 0, 0]
    e[axis - 1] = 1
    c, s = sp.cos(angle), sp.sin(angle)
    if axis == 1:
        return sp.Matrix([[1, 0, 0], [0, c, s], [0, -s, c]])
    if axis == 2:
        return sp.Matrix([[c, 0, -s], [0, 1, 0], [s, 0, c]])
    return sp.Matrix([[c, s, 0], [-s, c, 0], [0, 0, 1]])


def axes_rotations(sequence: Sequence[int], angles: Sequence) -> sp.Matrix:
    """``T`` of three successive rotations about the axes ``sequence`` of the rotated frames
    (MultiBody ``Frames.axesRotations``; ``(1, 2, 3)`` are Cardan angles)."""
    T = sp.eye(3)
    for axis, angle in zip(sequence, angles, strict=True):
        T = axis_rotation(int(axis), angle) * T
    return T


def start_rotation(sequence: Sequence[int], angles: Sequence[float]) -> sp.Matrix:
    """:func:`axes_rotations` of numbers (a start orientation ``angles_start`` about
    ``sequence_start``), as sympy Floats."""
    return axes_rotations([int(k) for k in sequence], [sp.Float(float(a)) for a in angles])


def start_quaternion(sequence: Sequence[int], angles: Sequence[float]) -> tuple[float, ...]:
    """The quaternion (scalar last) of :func:`start_rotation`: a start value for ``Q``."""
    import numpy as np

    return quaternion_of(np.array(start_rotation(sequence, angles).evalf(), dtype=float))


def angles_in_sequence(sequence, angles, states) -> tuple[float, float, float]:
    """Numbers: the angles about the axes ``states`` of the rotation ``angles`` about
    ``sequence`` (MultiBody ``Frames.axesRotationsAngles``; the start of angle states)."""
    sequence = tuple(int(k) for k in sequence)
    if sequence == tuple(states):
        return tuple(float(a) for a in angles)
    import numpy as np
    from scipy.spatial.transform import Rotation

    T0 = np.array(start_rotation(sequence, angles).evalf(), dtype=float)
    # T resolves frame_a vectors in frame_b; scipy's intrinsic ("XYZ") rotation is T'
    return tuple(float(a) for a in Rotation.from_matrix(T0.T).as_euler(
        "".join("XYZ"[k - 1] for k in states)))


def check_angle_sequence(sequence, joint) -> None:
    """Three axes, each 1, 2 or 3, no two successive ones equal (else the rotation has fewer
    than three independent angles); a ParameterError naming ``joint`` otherwise."""
    from acausal.errors import ParameterError

    if len(sequence) != 3 or any(k not in (1, 2, 3) for k in sequence) \
            or sequence[0] == sequence[1] or sequence[1] == sequence[2]:
        raise ParameterError(
            f"{type(joint).__name__} '{joint.path}': sequence_angle_states={tuple(sequence)} "
            "must be three axes from 1, 2, 3 with no two successive ones equal, e.g. (1, 2, 3) "
            "(Cardan angles) or (3, 1, 3) (Euler angles).")


def axes_rotations_angular_velocity(sequence: Sequence[int], angles: Sequence,
                                    rates: Sequence) -> sp.Matrix:
    """``w`` (resolved in the rotated frame) of :func:`axes_rotations` with angle rates."""
    e = [sp.Matrix([1 if k == int(a) - 1 else 0 for k in range(3)]) for a in sequence]
    T2 = axis_rotation(int(sequence[1]), angles[1])
    T3 = axis_rotation(int(sequence[2]), angles[2])
    return T3 * T2 * e[0] * rates[0] + T3 * e[1] * rates[1] + e[2] * rates[2]


def from_nxy(n_x: Sequence, n_y: Sequence) -> sp.Matrix:
    """``T`` of the frame whose x axis is along ``n_x`` and whose y axis lies in the plane of
    ``n_x`` and ``n_y`` (MultiBody ``Frames.from_nxy``; numbers only)."""
    import numpy as np

    ex = np.asarray(n_x, dtype=float)
    ex = ex / np.linalg.norm(ex)
    ny = np.asarray(n_y, dtype=float)
    ez = np.cross(ex, ny)
    if np.linalg.norm(ez) < 1e-10:  # n_y parallel to n_x: pick a perpendicular as MultiBody
        ny = np.array([1.0, 0, 0]) if abs(ex[0]) < 0.9 else np.array([0, 1.0, 0])
        ez = np.cross(ex, ny)
    ez = ez / np.linalg.norm(ez)
    ey = np.cross(ez, ex)
    return sp.Matrix([list(ex), list(ey), list(ez)])


def from_Q(Q: Sequence) -> sp.Matrix:  # noqa: N802 - MultiBody's name
    """``T`` of the quaternion ``Q`` (scalar part last; MultiBody ``Quaternions.to_T``)."""
    q1, q2, q3, q4 = Q
    return sp.Matrix([
        [2 * (q1 * q1 + q4 * q4) - 1, 2 * (q1 * q2 + q3 * q4), 2 * (q1 * q3 - q2 * q4)],
        [2 * (q2 * q1 - q3 * q4), 2 * (q2 * q2 + q4 * q4) - 1, 2 * (q2 * q3 + q1 * q4)],
        [2 * (q3 * q1 + q2 * q4), 2 * (q3 * q2 - q1 * q4), 2 * (q3 * q3 + q4 * q4) - 1]])


def quaternion_angular_velocity(Q: Sequence, der_Q: Sequence) -> sp.Matrix:
    """``w`` resolved in the rotated frame from ``Q`` and ``D(Q)`` (MultiBody
    ``Quaternions.angularVelocity2``)."""
    q1, q2, q3, q4 = Q
    G = sp.Matrix([[q4, q3, -q2, -q1], [-q3, q4, q1, -q2], [q2, -q1, q4, -q3]])
    return 2 * G * sp.Matrix(list(der_Q))


def from_Q_normalized(Q: Sequence) -> sp.Matrix:  # noqa: N802 - after MultiBody's from_Q
    """``T`` of the quaternion ``Q / |Q|`` (scalar part last): :func:`from_Q` written
    homogeneously (``-1`` on the diagonal becomes ``-Q.Q``, everything divided by ``Q.Q``), so
    that ``T`` is a rotation for any ``Q != 0``. With the four elements of ``Q`` integrated as
    states (:func:`quaternion_derivative`), a drift of ``|Q|`` by the integration error then
    never shows as a rotation matrix that is not orthogonal."""
    q1, q2, q3, q4 = Q
    n = q1 * q1 + q2 * q2 + q3 * q3 + q4 * q4
    return sp.Matrix([
        [q1 * q1 + q4 * q4 - q2 * q2 - q3 * q3, 2 * (q1 * q2 + q3 * q4), 2 * (q1 * q3 - q2 * q4)],
        [2 * (q2 * q1 - q3 * q4), q2 * q2 + q4 * q4 - q1 * q1 - q3 * q3, 2 * (q2 * q3 + q1 * q4)],
        [2 * (q3 * q1 + q2 * q4), 2 * (q3 * q2 - q1 * q4), q3 * q3 + q4 * q4 - q1 * q1 - q2 * q2],
    ]) / n


def quaternion_derivative(Q: Sequence, w: Sequence) -> sp.Matrix:
    """``D(Q)`` of the angular velocity ``w`` resolved in the rotated frame: ``D(Q) = G(Q)' w / 2``
    with MultiBody's ``G`` (:func:`quaternion_angular_velocity` solved for ``D(Q)``: for
    ``|Q| = 1``, ``G G' = I`` and ``G Q = 0``). It keeps ``Q.Q`` constant exactly
    (``Q.D(Q) = (G Q).w / 2 = 0``), so the four elements can be integrated as states without the
    constraint ``Q.Q = 1`` and without a choice of three of them (the form Simbody and Exudyn use
    for Euler parameters)."""
    q1, q2, q3, q4 = Q
    G = sp.Matrix([[q4, q3, -q2, -q1], [-q3, q4, q1, -q2], [q2, -q1, q4, -q3]])
    return G.T * sp.Matrix(list(w)) / 2


def quaternion_of(T) -> tuple[float, float, float, float]:
    """Numbers: the quaternion of a numeric rotation matrix ``T`` (scalar part last, >= 0)."""
    import numpy as np

    T = np.asarray(T, dtype=float).reshape(3, 3)
    q4 = 0.5 * np.sqrt(max(1.0 + np.trace(T), 0.0))
    if q4 > 0.1:
        q = [(T[1, 2] - T[2, 1]) / (4 * q4), (T[2, 0] - T[0, 2]) / (4 * q4),
             (T[0, 1] - T[1, 0]) / (4 * q4), q4]
    else:  # near a half turn: the largest diagonal element gives a stable formula
        i = int(np.argmax(np.diag(T)))
        j, k = (i + 1) % 3, (i + 2) % 3
        qi = 0.5 * np.sqrt(max(1.0 + T[i, i] - T[j, j] - T[k, k], 0.0))
        q = [0.0, 0.0, 0.0, (T[j, k] - T[k, j]) / (4 * qi)]
        q[i] = qi
        q[j] = (T[i, j] + T[j, i]) / (4 * qi)
        q[k] = (T[i, k] + T[k, i]) / (4 * qi)
        if q[3] < 0:
            q = [-x for x in q]
    return tuple(float(x) for x in q)


def orientation_residue(T1: sp.Matrix, T2: sp.Matrix) -> list:
    """The 3 equations that make two orientations equal (MultiBody
    ``Frames.Orientation.equalityConstraint``): for nearly equal ``T1``, ``T2`` they are the
    small rotation angles about the three axes between the frames, zero when they coincide."""
    r1, r2, r3 = (T1.row(i).T for i in range(3))
    s1, s2, s3 = (T2.row(i).T for i in range(3))
    return [sp.atan2(dot(cross(r1, r2), s2), dot(r1, s1)),
            sp.atan2(-dot(cross(r1, r2), s1), dot(r2, s2)),
            sp.atan2(dot(r2, s1), dot(r3, s3))]


def orientation_difference(T1: sp.Matrix, T2: sp.Matrix) -> list:
    """3 equations that make two orientations equal, for *initial* conditions: the vector
    ``sin(angle) axis`` of the rotation from frame 1 to frame 2 (``vee(T_rel - T_rel')/2`` with
    ``T_rel = T2 T1'``). Its Jacobian stays regular for any rotation below a half turn, where
    the atan2 form of :func:`orientation_residue` can be singular away from the solution (a
    Newton iteration started at the identity then fails to reach a start orientation of 45
    degrees about three axes)."""
    A = T2 * T1.T
    return [(A[1, 2] - A[2, 1]) / 2, (A[2, 0] - A[0, 2]) / 2, (A[0, 1] - A[1, 0]) / 2]
