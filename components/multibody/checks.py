"""Validity rules of the 3-D components' parameters (:class:`acausal.Rule`, checked when a model
is flattened, each error naming the component's path, the parameters and the rule).

What MultiBody checks, it is cited for; the other rules state what the equations need (an axis
to normalise, two directions to span a plane, the moments of a real mass distribution).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from acausal import Rule

__all__ = ["INERTIA_DEFINITE", "INERTIA_TRIANGLE", "at_most_rule", "axis_rule", "inertia_matrix",
           "inertia_rules", "not_parallel_rule", "numbers_rule", "numeric_vector", "sequence_rule",
           "valid_sequence", "vector_rule"]

#: Two unit vectors are parallel when |e_1 x e_2|^2 <= this: MultiBody's ``Frames.from_nxy``
#: uses the same bound (``n_z_aux*n_z_aux > 1.0e-6``) to decide that n_y is unusable.
PARALLEL_TOL = 1e-6


def _unit(values) -> np.ndarray | None:
    v = np.asarray([float(x) for x in values], dtype=float)
    length = float(np.linalg.norm(v))
    return v / length if length > 0 else None


def axis_rule(name: str, what: str = "axis") -> Rule:
    """``name`` (a 3-vector) is not the zero vector: it is normalised (MultiBody's joints use
    ``Modelica.Math.Vectors.normalizeWithAssert(n)``, which asserts ``length(n) > 0``)."""

    def check(n):
        if len(n) != 3:
            return f"{name} has {len(n)} elements, not 3"
        return _unit(n) is not None or f"{name} is the zero vector"

    return Rule(name, f"{name} ({what}) is a non-zero 3-vector (it is normalised; MultiBody: "
                      "normalizeWithAssert)", check,
                advice=f"give {name} the direction of the {what}, e.g. (0, 0, 1)")


def vector_rule(name: str, what: str, nonzero: bool = False, optional: bool = False) -> Rule:
    """``name`` is a 3-vector of finite numbers (not the zero vector when ``nonzero``; None
    allowed when ``optional``: a value the component derives)."""

    def check(v):
        if v is None and optional:
            return True
        if not numeric_vector(v if isinstance(v, (list, tuple, np.ndarray)) else [v]):
            return f"{name} is not three finite numbers"
        return not nonzero or _unit(v) is not None or f"{name} is the zero vector"

    text = f"{name} ({what}) is a{' non-zero' if nonzero else ''} 3-vector"
    return Rule(name, text + (" or None (derived)" if optional else ""), check,
                advice=f"give {name} as three numbers, e.g. (1, 0, 0)")


def not_parallel_rule(first: str, second: str, why: str,
                      applies: tuple[str, Callable[..., bool]] | None = None) -> Rule:
    """``first`` and ``second`` (3-vectors) are not parallel (nor zero). ``applies`` =
    ``(parameter, predicate)`` restricts the rule to where ``predicate(value)`` holds."""
    names = (first, second) + ((applies[0],) if applies else ())

    def check(a, b, *switch):
        if applies and not applies[1](*switch):
            return True
        ea, eb = _unit(a), _unit(b)
        if ea is None or eb is None:
            return f"{first if ea is None else second} is the zero vector"
        cross = np.cross(ea, eb)
        if float(cross @ cross) <= PARALLEL_TOL:
            angle = math.degrees(math.acos(min(1.0, abs(float(ea @ eb)))))
            return f"{first} and {second} are parallel (the angle between them is {angle:.3g} deg)"
        return True

    when = f" (where {applies[0]} makes it used)" if applies else ""
    return Rule(names, f"{first} and {second} are not parallel{when}: {why}", check)


def numeric_vector(values, n: int = 3) -> bool:
    """``n`` finite numbers (not strings): what a start value can be computed from."""
    try:
        numbers = [float(v) for v in values if not isinstance(v, (str, bytes))]
    except (TypeError, ValueError):
        return False
    return len(numbers) == n == len(values) and all(math.isfinite(x) for x in numbers)


def valid_sequence(sequence) -> bool:
    """Three axes, each 1, 2 or 3, no two neighbours equal (a rotation by three angles)."""
    try:
        seq = [int(k) for k in sequence]
    except (TypeError, ValueError):
        return False
    return len(seq) == 3 and all(k in (1, 2, 3) for k in seq) and all(
        float(k) == float(x) for k, x in zip(seq, sequence)) \
        and seq[0] != seq[1] and seq[1] != seq[2]


def sequence_rule(name: str, used_when: tuple[str | tuple[str, ...], Callable[..., bool]]
                  | None = None) -> Rule:
    """``name`` is a rotation sequence: three axes from 1, 2, 3 (MultiBody's
    ``Types.RotationSequence``, min 1 and max 3), no two neighbours equal where it is used
    (``Frames.axesRotationsAngles`` asserts ``sequence[1] <> sequence[2] and sequence[2] <>
    sequence[3]``: with two equal neighbours three angles describe only two rotations).
    ``used_when = (parameters, predicate)``: it is used where ``predicate(*values)`` holds."""
    switches = () if not used_when else (
        (used_when[0],) if isinstance(used_when[0], str) else tuple(used_when[0]))
    names = (name,) + switches

    def check(sequence, *switch):
        given = f"{name}={tuple(sequence)!r}" if isinstance(sequence, (list, tuple)) \
            else f"{name}={sequence!r}"
        try:
            values = [float(k) for k in sequence if not isinstance(k, (str, bytes))]
        except (TypeError, ValueError):
            values = []
        if len(values) != 3 or len(sequence) != 3 or any(v not in (1.0, 2.0, 3.0)
                                                         for v in values):
            return f"{given} is not three axes from 1, 2, 3"
        if used_when and not used_when[1](*switch):
            return True
        return valid_sequence(sequence) or f"{given} has two equal neighbouring axes"

    when = f" where it is used ({', '.join(switches)})" if used_when else ""
    return Rule(names, f"{name} is three axes from 1, 2, 3 (MultiBody Types.RotationSequence), "
                f"no two neighbours equal{when}", check,
                advice=f"give e.g. {name}=(1, 2, 3) (Cardan angles) or (3, 1, 3) (Euler angles)")


def numbers_rule(*names: str) -> Rule:
    """Each of ``names`` that has a value is a number (parameters whose default is derived,
    None until the component computes it)."""
    def check(*values):
        for name, value in zip(names, values):
            if value is not None and (isinstance(value, (str, bytes, bool))
                                      or not isinstance(value, (int, float, np.number))):
                return f"{name}={value!r} is not a number"
        return True

    return Rule(names, ", ".join(names) + " are numbers", check)


def at_most_rule(inner: str, outer: str, source: str, strict: bool = False) -> Rule:
    """``inner <= outer`` (``<`` when ``strict``): a bore inside its body."""
    def check(a, b):
        if not all(isinstance(x, (int, float, np.number)) for x in (a, b)):
            return True  # the rule above reports it
        return (a < b if strict else a <= b) or f"{inner} = {a:g} is not below {outer} = {b:g}"

    return Rule((inner, outer), f"{inner} {'<' if strict else '<='} {outer} {source}", check)


_INERTIA = ("I_11", "I_22", "I_33", "I_21", "I_31", "I_32")


def inertia_matrix(i11, i22, i33, i21, i31, i32) -> np.ndarray:
    return np.array([[i11, i21, i31], [i21, i22, i32], [i31, i32, i33]], dtype=float)


def _principal(*elements) -> tuple[np.ndarray, float]:
    inertia = inertia_matrix(*(float(x) for x in elements))
    moments = np.linalg.eigvalsh(inertia)
    # rounding of the eigen-decomposition: moments this far below zero are zero
    tol = 1e-9 * max(float(np.max(np.abs(inertia))), 1e-300)
    return moments, tol


def inertia_rules() -> tuple[Rule, Rule]:
    """The inertia tensor about the centre of mass (I_11 ... I_32) is that of a real mass
    distribution: positive semi-definite (zero allowed: a point mass, as MultiBody, whose Body
    declares ``I_11(min=0)``, ``I_22(min=0)``, ``I_33(min=0)``), an error; and its principal
    moments meet the triangle inequality (each at most the sum of the other two: ``I_11 =
    int(y^2 + z^2) dm <= I_22 + I_33``), which MultiBody does not check: a warning, because
    MultiBody models often give only the moment about the axis a joint turns the body about
    (MSL's RobotR3: ``b1`` has ``I_22 = 1.16`` and the default 0.001 for the others), which is
    right as long as the body turns about that axis alone. :class:`~.parts.Body` makes it an
    error for a body that carries its own orientation (it turns about every axis)."""

    def definite(*elements):
        moments, tol = _principal(*elements)
        if moments[0] < -tol:
            return ("the inertia tensor is not positive semi-definite: its principal moments "
                    "are " + ", ".join(f"{m:.6g}" for m in moments))
        return True

    def triangle(*elements):
        moments, tol = _principal(*elements)
        if moments[0] < -tol:
            return True  # the rule above reports it
        i11, i22, i33, i21, i31, i32 = (float(x) for x in elements)
        if i21 == i31 == i32 == 0.0:  # diagonal: say it with the parameters' own names
            for name, value, a, b in (("I_11", i11, "I_22", "I_33"),
                                      ("I_22", i22, "I_11", "I_33"),
                                      ("I_33", i33, "I_11", "I_22")):
                rest = {"I_11": i11, "I_22": i22, "I_33": i33}
                if value > rest[a] + rest[b] + tol:
                    return (f"{name} = {value:g} > {a} + {b} = {rest[a] + rest[b]:g}: no mass "
                            "distribution has these moments")
            return True
        low, mid, high = moments
        if high > low + mid + tol:
            return (f"the largest principal moment {high:.6g} exceeds the sum of the other two "
                    f"({low:.6g} + {mid:.6g}): no mass distribution has these moments")
        return True

    return (Rule(_INERTIA, "the inertia tensor I_11 ... I_32 is positive semi-definite (zero "
                           "is allowed: a point mass; MultiBody: I_11, I_22, I_33 >= 0)",
                 definite, advice="give the inertia about the centre of mass, resolved in "
                                  "frame_a"),
            Rule(_INERTIA, "the principal moments of inertia meet the triangle inequality (each "
                           "at most the sum of the other two, e.g. I_11 <= I_22 + I_33)",
                 triangle, warn=True,
                 advice="the motion is right only while the body turns about the axis whose "
                        "moment is meant; give all three moments (or check their units and "
                        "axes)"))


#: The two rules of :func:`inertia_rules`, shared by every body.
INERTIA_DEFINITE, INERTIA_TRIANGLE = inertia_rules()
