"""Connector and helpers of the planar (2-D) multibody library.

Source: ``PlanarMechanics/Interfaces/Frame.mo`` (dzimmer/PlanarMechanics) and the ``Frame``
connector of Multibody.jl ``src/PlanarMechanics/utils.jl``.

Conventions (as in both libraries):

* potentials ``x, y`` [m] and ``phi`` [rad] are resolved in the planar world frame; ``phi`` is
  positive counter-clockwise (CCW);
* flows ``fx, fy`` [N] and ``tau`` [N.m] (Modelica calls the torque ``t``) are world-resolved,
  CCW positive, and are the cut force/torque acting *on* the component through the frame. A body's
  Newton law therefore uses ``+frame.f``; the force a component applies to the rest of the node is
  ``-frame.f``. An open frame transmits no force.
* ``R(phi) = [[cos phi, -sin phi], [sin phi, cos phi]]`` maps frame-local coordinates to world
  coordinates.
"""

from __future__ import annotations

import sympy as sp

from acausal import Connector, Flow, Potential


class Frame(Connector):
    """Planar frame: position ``(x, y)`` [m], angle ``phi`` [rad]; cut force ``(fx, fy)`` [N]
    and cut torque ``tau`` [N.m], all world-resolved and CCW positive."""

    x = Potential(unit="m", description="x position of the frame origin (world frame)")
    y = Potential(unit="m", description="y position of the frame origin (world frame)")
    phi = Potential(unit="rad", description="rotation angle of the frame (CCW positive)")
    fx = Flow(unit="N", description="cut force in world x direction, acting on the component")
    fy = Flow(unit="N", description="cut force in world y direction, acting on the component")
    tau = Flow(unit="N.m", description="cut torque (CCW positive), acting on the component")


def rotation(phi) -> sp.Matrix:
    """Planar rotation matrix ``R(phi)`` (local -> world)."""
    return sp.Matrix([[sp.cos(phi), -sp.sin(phi)], [sp.sin(phi), sp.cos(phi)]])


def position(frame) -> sp.Matrix:
    """World position ``(x, y)`` of a bound frame as a sympy column Matrix."""
    return sp.Matrix([frame.x, frame.y])


def force(frame) -> sp.Matrix:
    """Cut force ``(fx, fy)`` of a bound frame as a sympy column Matrix."""
    return sp.Matrix([frame.fx, frame.fy])


def cross(r, f):
    """Planar cross product ``r x f = r_x f_y - r_y f_x`` (the moment of ``f`` about the origin
    of ``r``; equal to ``r . perp(f)`` with ``perp(f) = (f_y, -f_x)``)."""
    return r[0] * f[1] - r[1] * f[0]
