"""Planar force/torque sources (after the ``Sources`` package of the Modelica PlanarMechanics
library, dzimmer/PlanarMechanics, and Multibody.jl ``src/PlanarMechanics/sources.jl``).

The general sources live in :mod:`.forces` and are re-exported here:

* :class:`~.forces.WorldForce` -- force and torque on one frame (``Sources/WorldForce.mo``);
* :class:`~.forces.RelativeForce` -- force and torque between two frames
  (``Sources/RelativeForce.mo``).

This module adds :class:`WorldTorque`, a pure torque on one frame. PlanarMechanics has no planar
position/speed sources: its examples prescribe motion through a joint's 1-D flange
(``use_axis_flange=True``) with the rotational/translational sources, or with an equation on the
joint coordinate in the enclosing model (as the Multibody.jl tests do), so none are defined here.
"""

from __future__ import annotations

from acausal import Component, Eq, Variable

from .forces import RelativeForce, WorldForce
from .interfaces import Frame

__all__ = ["RelativeForce", "WorldForce", "WorldTorque"]


class WorldTorque(Component):
    """Torque ``torque`` (input, CCW positive) applied to frame_b; no force.

    Equations::

        b.fx = 0;  b.fy = 0;  b.tau + torque = 0

    i.e. the applied torque is ``+torque`` (a planar torque is a scalar about the z-axis, so it
    needs no resolve frame). ``torque`` is an input: give it an equation in the enclosing model.
    It equals :class:`~.forces.WorldForce` with ``force = (0, 0, torque)``.

    Source: the torque part of ``PlanarMechanics/Sources/WorldForce.mo`` (v2.0 splits WorldForce
    into ``force[2]`` and a separate ``torque`` input); Multibody.jl ``WorldForceTorque``
    (``src/PlanarMechanics/sources.jl``), torque input only.
    """

    frame_b = Frame()
    torque = Variable(unit="N.m", description="input torque applied to frame_b (CCW positive)")

    def equations(self):
        b = self.frame_b
        return [Eq(b.fx, 0), Eq(b.fy, 0), Eq(b.tau + self.torque, 0)]
