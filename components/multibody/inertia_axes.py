"""Where a body's moments of inertia matter: the axes the joints between it and the world let
it turn about.

Moments that no mass distribution has (a principal moment larger than the sum of the other two,
which breaks the triangle inequality) are legal as placeholders for axes a body never turns
about: MultiBody models often give only the moment about the joint axis (MSL's RobotR3: ``b1``
has ``I_22 = 1.16`` and the default 0.001 for the others). There the rule
:data:`~.checks.INERTIA_TRIANGLE` warns. A body that can turn about several axes (a free body,
one hung on a Spherical or Universal joint, or on a chain of joints whose axes are not
parallel) uses all its moments, and the same moments are refused when the parameters are
checked (:func:`check_inertia_where_it_matters`, called by ``Body.check_parameters``): such a
body would simulate a motion no real body has.
"""

from __future__ import annotations

import numpy as np

from acausal import is_root
from acausal.errors import ParameterError

from .checks import INERTIA_DEFINITE, INERTIA_TRIANGLE, PARALLEL_TOL

__all__ = ["check_inertia_where_it_matters", "turning_about_several_axes"]

#: Components whose two frames keep one orientation (rigid parts, prismatic joints, the cut
#: force sensor); told by name, as components/multibody/loops.py does, so that a subclass (a
#: joint with friction) counts as its base
_SAME_ORIENTATION = {"FixedTranslation", "BodyShape", "Prismatic", "CutForceAndTorque"}
#: Components that turn frame_b about their axis ``n`` (the same in both frames)
_ONE_AXIS = {"Revolute", "Cylindrical"}


def check_inertia_where_it_matters(body) -> None:
    """Raise a ParameterError when the bound ``body``'s moments break the triangle
    inequality and it can turn about more than one axis (the message names the joints that
    let it); elsewhere the rule's warning stands."""
    names = INERTIA_TRIANGLE.parameters
    values = [getattr(body, k) for k in names]
    try:
        problem = None if INERTIA_DEFINITE.broken(values) else INERTIA_TRIANGLE.broken(values)
    except (TypeError, ValueError):
        return  # not numbers: the body's rules say so
    why = turning_about_several_axes(body.frame_a) if problem else ""
    if not why:
        return
    given = ", ".join(f"{k}={float(v):g}" for k, v in zip(names, values))
    raise ParameterError(
        f"{type(body).__name__} '{body.path}': {problem} ({given}). {why}, and all its "
        f"moments of inertia matter. Rule: {INERTIA_TRIANGLE.text}; give the moments about "
        "all three axes of frame_a, about the centre of mass (check their units and axes; a "
        "box of sides a, b, c has I_11 = m (b^2 + c^2)/12, ...), or use BodyBox or "
        "BodyCylinder, which compute them.")


def turning_about_several_axes(frame) -> str:
    """Why the body whose frame_a is ``frame`` can turn about more than one axis, or ``''``
    when it turns about one axis only (or not at all).

    Follows the spanning tree of the orientation graph (the connection graph's
    ``_graph_parent``) from ``frame`` to the root of its part: rigid parts and prismatic joints
    keep the orientation, a fixed rotation turns the coordinates, and each revolute (or
    cylindrical) joint adds its axis, resolved in ``frame``. The body turns about one axis
    when every such axis is parallel to the first (a rotation about that axis leaves the
    others' directions relative to it unchanged, in any position) and the part's root is
    fixed (a World or Fixed). A component of another kind on the way (a Universal or
    Spherical joint with states, a free motion, a user's component) counts as letting it turn
    about several axes. A closed loop adds constraints only: its tree path alone is
    conservative."""
    if is_root(frame):
        return ("It carries its own orientation (nothing else orients its frame_a: a free "
                "body, or one hung on a Spherical joint), so it turns about every axis")
    to_frame = np.eye(3)  # vectors resolved in the current connector -> resolved in frame
    axis, joints = None, []
    node = frame
    while getattr(node, "_graph_parent", None) is not None:
        parent = node._graph_parent
        comp = getattr(node, "_parent", None)
        if comp is not None and comp is getattr(parent, "_parent", None):  # a branch
            kinds = {klass.__name__ for klass in type(comp).__mro__}
            if kinds & _ONE_AXIS:
                e = _unit(getattr(comp, "n", None))
                if e is None:
                    return ""  # the joint's own rule reports its axis
                e = to_frame @ e
                joints.append(f"'{comp.path}' about {_shown(e)}")
                if axis is None:
                    axis = e
                elif float(np.cross(axis, e) @ np.cross(axis, e)) > PARALLEL_TOL:
                    return ("The joints between it and the world let it turn about more than "
                            "one axis (" + ", ".join(joints) + ", resolved in its frame_a)")
            elif "FixedRotation" in kinds:
                rotation = comp.rotation_matrix()  # v_b = R v_a
                from_b = node is getattr(comp, "frame_b", None)
                to_frame = to_frame @ (rotation if from_b else rotation.T)
            elif not kinds & _SAME_ORIENTATION:
                return (f"{type(comp).__name__} '{comp.path}' between it and the world lets it "
                        "turn about more than one axis")
        node = parent
    if not getattr(node, "_graph_fixed", True):
        owner = getattr(node, "_parent", None)
        name = f"{type(owner).__name__} '{owner.path}'" if owner is not None else node.path
        return (f"It is fixed to {name}, which carries its own orientation (nothing fixes it "
                "to the world), so it turns about every axis")
    return ""


def _unit(n) -> np.ndarray | None:
    try:
        v = np.asarray([float(x) for x in n], dtype=float)
    except (TypeError, ValueError):
        return None
    length = float(np.linalg.norm(v)) if v.shape == (3,) else 0.0
    return v / length if length > 0 else None


def _shown(e: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:.3g}" if abs(x) > 1e-12 else "0" for x in e) + ")"
