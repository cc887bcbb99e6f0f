"""The 3-D frame connector and helpers to read its records as vectors and matrices.

Source: ``Modelica.Mechanics.MultiBody.Interfaces.Frame`` (MSL 4.0).

Conventions (as MultiBody):

* ``r_0`` [m]: position of the frame's origin, resolved in the world frame (potential);
* ``T`` (9 numbers, row-major) and ``w`` [rad/s]: the orientation record (MultiBody ``R.T`` and
  ``R.w``): ``T`` resolves world vectors in the frame (``v_frame = T v_world``), ``w`` is the
  frame's angular velocity resolved in the frame. The record is *overdetermined* (9 + 3 numbers,
  3 freedoms): along the spanning tree of the connection graph it is equated element by element,
  and a connect statement that closes a kinematic loop gives the 3 equations of
  :func:`acausal.library.rotations.orientation_residue` instead;
* ``f`` [N] and ``t`` [N.m]: cut force and torque acting *on* the component through the frame,
  resolved in the frame (flows). An open frame transmits nothing.
"""

from __future__ import annotations

import sympy as sp

from acausal import Connector, Eq, Flow, Overdetermined, Potential
from acausal.errors import ParameterError
from acausal.library.rotations import matrix, orientation_residue

# the advice for a structural error in a loop of frames: planar or spatial (see .loops)
from .loops import LOOP_HINT, loop_advice  # noqa: F401 - LOOP_HINT: its documented place

_IDENTITY = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def _orientation_residue(a, b):
    return orientation_residue(matrix(a["T"]), matrix(b["T"]))


class Frame(Connector):
    """3-D frame: ``r_0`` [m], orientation ``T`` (9, row-major) and ``w`` [rad/s]; cut force
    ``f`` [N] and torque ``t`` [N.m] resolved in the frame (MultiBody ``Interfaces.Frame``)."""

    r_0 = Potential(shape=3, unit="m", description="position of the origin (world frame)")
    T = Potential(shape=9, guess=_IDENTITY, state_priority=-3,
                  description="orientation: v_frame = T v_world (row-major, MultiBody R.T)")
    w = Potential(shape=3, unit="rad/s",
                  description="angular velocity resolved in the frame (MultiBody R.w)")
    f = Flow(shape=3, unit="N", description="cut force resolved in the frame")
    t = Flow(shape=3, unit="N.m", description="cut torque resolved in the frame")
    overdetermined = Overdetermined("T", "w", residue=_orientation_residue,
                                   loop_hint=loop_advice)


def T(frame) -> sp.Matrix:  # noqa: N802 - MultiBody's name
    """The 3x3 orientation matrix of a bound frame."""
    return matrix(frame.T)


def resolve1(frame, v) -> sp.Matrix:
    """A vector resolved in ``frame`` -> resolved in the world frame (``T' v``)."""
    return T(frame).T * sp.Matrix(v)


def resolve2(frame, v) -> sp.Matrix:
    """A vector resolved in the world frame -> resolved in ``frame`` (``T v``)."""
    return T(frame) * sp.Matrix(v)


def constant(value) -> sp.Expr:
    """A structural number as a sympy constant (0 stays an exact zero, so that a term it
    multiplies is no term at all for the compiler)."""
    x = float(value)
    return sp.S.Zero if x == 0.0 else sp.Float(x)


def constant_vector(values, name: str = "", owner=None) -> sp.Matrix:
    """A structural 3-vector (tuple of numbers) as a sympy column of constants."""
    try:
        numbers = [float(v) for v in values]
    except (TypeError, ValueError):
        numbers = []
    if len(numbers) != 3:
        where = f"{type(owner).__name__} '{owner.path}': " if owner is not None else ""
        raise ParameterError(f"{where}{name} must be a vector of 3 numbers (in m), got "
                             f"{values!r}.")
    return sp.Matrix([constant(v) for v in numbers])


def vector_equations(lhs, rhs) -> list:
    """Element-wise equations of two vectors (a list of sympy relations).

    Unevaluated (acausal's ``Eq``): sympy's evaluating ``Eq`` asks the assumption system
    whether the two sides are equal, and for the force and torque balances of the joints and
    bodies that question took most of the time their ``equations()`` take (the relation and its
    residual are the same either way)."""
    return [Eq(lhs[i], rhs[i]) for i in range(len(lhs))]
