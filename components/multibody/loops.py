"""Advice for a structural error in a kinematic loop of 3-D frames (the ``loop_hint`` of
:class:`~acausal.components.multibody.interfaces.Frame`): what to change depends on whether the
loop moves in a plane.

* **Planar loop** (every revolute axis parallel to one direction ``e``, every prismatic axis
  perpendicular to it, every fixed rotation about ``e``): the loop constrains the rotation out
  of the plane twice, so its closing equations are dependent: replace one revolute by
  ``RevolutePlanarLoopConstraint`` (MultiBody's ``PlanarFourbar``).
* **Spatial loop**: a closed loop takes 6 freedoms from its joints (Gruebler's count: mobility
  = the joints' freedoms - 6), so a loop of four revolutes (4 - 6 = -2) cannot move, and its
  equations are over-determined: cut it at one of its joints, naming them, by a joint with
  more freedoms (a ``Spherical`` and a ``Universal`` as in MultiBody's ``Fourbar1``, or a
  ``UniversalSpherical``/``SphericalSpherical`` rod as in ``Fourbar2``/``FourbarAnalytic``).
"""

from __future__ import annotations

import numpy as np

from .checks import PARALLEL_TOL

__all__ = ["LOOP_HINT", "loop_advice"]

LOOP_HINT = (
    "A kinematic loop whose joints all move in one plane (e.g. a planar four-bar of Revolute "
    "joints with parallel axes) constrains the rotation out of the plane twice: the loop's "
    "closing equations are dependent. Replace one Revolute of the loop by "
    "RevolutePlanarLoopConstraint (it leaves out the redundant constraints), or make one joint "
    "spherical or universal as a spatial mechanism would.")

def _unit(n) -> np.ndarray | None:
    try:
        v = np.asarray([float(x) for x in n], dtype=float)
    except (TypeError, ValueError):
        return None
    length = float(np.linalg.norm(v))
    return v / length if v.shape == (3,) and length > 0 else None


def _parallel(a: np.ndarray, b: np.ndarray) -> bool:
    c = np.cross(a, b)
    return float(c @ c) <= PARALLEL_TOL


def _joints(components: list) -> tuple[list, list, list, bool]:
    """(revolutes, prismatics, rotations, known): the loop's revolute and prismatic joints as
    (path, unit axis), its fixed rotations' matrices, and whether every part of the loop is
    one whose motion these describe. The classes are told by name (the joints and parts
    import the frame connector, whose advice this is: importing them here would be a
    circle); a subclass (a joint with friction) counts as its base."""
    revolutes, prismatics, rotations, known = [], [], [], True
    for comp in components:
        kinds = {klass.__name__ for klass in type(comp).__mro__}
        if "Revolute" in kinds:
            revolutes.append((comp.path, _unit(comp.n)))
        elif "Prismatic" in kinds:
            prismatics.append((comp.path, _unit(comp.n)))
        elif "FixedRotation" in kinds:
            try:
                rotations.append(np.asarray(comp.rotation_matrix(), dtype=float))
            except Exception:  # noqa: BLE001 - advice only: a rotation it cannot read
                known = False
        elif not kinds & {"FixedTranslation", "Body"}:
            known = False  # a spherical joint with states, a free motion, a user's component
    return revolutes, prismatics, rotations, known


def loop_advice(components: list) -> str:
    """What to do about a structural error among the ``components`` of a kinematic loop (the
    parts that state its branches, in order): planar or spatial advice (module docstring)."""
    revolutes, prismatics, rotations, known = _joints(components)
    axes = [e for _, e in revolutes if e is not None]
    planar = known and axes and len(axes) == len(revolutes) \
        and all(_parallel(axes[0], e) for e in axes) \
        and all(e is not None and abs(float(e @ axes[0])) <= 1e-3 for _, e in prismatics) \
        and all(_parallel(R @ axes[0], axes[0]) for R in rotations)
    if planar:
        return LOOP_HINT
    joints = [path for path, _ in revolutes + prismatics]
    if not joints:
        return ("The loop's parts constrain each other more than a closed loop allows: cut it "
                "with a joint that has more freedoms (a Spherical, or a SphericalSpherical rod).")
    freedoms = len(joints)
    tilted = [f"'{path}' (n = {tuple(round(float(x), 3) for x in e)})"
              for path, e in revolutes if e is not None]
    count = (f" Its joints give {freedoms} freedoms and closing a spatial loop takes 6 "
             f"(Gruebler's count), which leaves {freedoms - 6}: it cannot move, and its closing "
             "equations are too many." if known and freedoms < 7 else "")
    return ("This is a spatial loop (its joints' axes are not all parallel"
            + (": " + ", ".join(tilted) if tilted else "") + "), so the planar-loop joint "
            "RevolutePlanarLoopConstraint does not apply." + count + " Cut the loop at one of its "
            "joints (" + ", ".join(f"'{j}'" for j in joints) + "): replace one revolute by a "
            "Spherical joint and a neighbouring one by a Universal joint (MultiBody's Fourbar1: "
            "+2 and +1 freedoms), or replace the link between two of them by a "
            "UniversalSpherical or SphericalSpherical rod (Fourbar2, FourbarAnalytic); check "
            "also that the loop closes at its start position.")
