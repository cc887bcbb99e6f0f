"""The world: inertial frame and gravity field of a 3-D model.

Source: ``Modelica.Mechanics.MultiBody.World`` (MSL 4.0). Parameters ``gravity_type``
(``gravityType``: ``"UniformGravity"``, ``"PointGravity"`` or ``"NoGravity"``), ``g``, ``n``
and ``mue`` keep MultiBody's names and defaults. Animation and driving-the-world options are not
modelled.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Parameter, Rule, root
from acausal.errors import ParameterError
from acausal.library.rotations import dot, normalized

from . import viewer_shapes
from .interfaces import Frame, vector_equations

GRAVITY_TYPES = ("UniformGravity", "PointGravity", "NoGravity")


class World(Component):
    """Inertial frame ``frame_b`` (the root of the orientation graph) and the gravity field.

    Equations::

        frame_b.r_0 = 0;  frame_b.T = I;  frame_b.w = 0
        gravity_acceleration(r) = g n/|n|                  (UniformGravity)
                                = -mu/|r|^2 * r/|r|       (PointGravity)
                                = 0                        (NoGravity)

    Bodies find the nearest enclosing ``World`` (``Outer(World)``, Modelica ``inner``); a model
    without one gets a default one named ``world``.

    Viewer: the world axes and, for uniform gravity, a green arrow along ``n``.
    """

    gravity_type = Parameter("UniformGravity",
                             description="gravityType: " + ", ".join(GRAVITY_TYPES))
    g = Parameter(9.80665, unit="m/s2",
                  description="constant gravity acceleration (Modelica.Constants.g_n)")
    n = Parameter([0.0, -1.0, 0.0], unit="1", description="direction of uniform gravity")
    mu = Parameter(3.986004418e14, unit="m3/s2", min=0.0,
                    description="gravity field constant of PointGravity")
    frame_b = Frame()
    visual_shapes = viewer_shapes.world

    parameter_rules = (
        Rule("gravity_type", "gravity_type is one of " + ", ".join(GRAVITY_TYPES),
             lambda kind: kind in GRAVITY_TYPES),
        # MultiBody's World: assert(Modelica.Math.Vectors.length(n) > 0, "Parameter n of
        # World object is wrong (length(n) > 0 required)")
        Rule(("n", "gravity_type"), "n is not the zero vector (it is the direction of "
             "uniform gravity, normalised; MultiBody's World asserts length(n) > 0)",
             lambda n, kind: kind != "UniformGravity" or sum(float(x) ** 2 for x in n) > 0,
             advice="give the direction of gravity, e.g. n=(0, -1, 0)"),
    )

    def connections(self):
        return [root(self.frame_b)]

    def equations(self):
        if self.gravity_type not in GRAVITY_TYPES:
            raise ParameterError(f"World '{self.path}': gravity_type={self.gravity_type!r} is not "
                                 "one of " + ", ".join(GRAVITY_TYPES) + ".")
        fb = self.frame_b
        return [*vector_equations(fb.r_0, [0, 0, 0]),
                *vector_equations(fb.T, [1, 0, 0, 0, 1, 0, 0, 0, 1]),
                *vector_equations(fb.w, [0, 0, 0])]

    def gravity_acceleration(self, r) -> sp.Matrix:
        """Gravity acceleration at the world position ``r`` (resolved in the world frame)."""
        if self.gravity_type == "UniformGravity":
            return self.g * normalized(self.n)
        if self.gravity_type == "PointGravity":
            r = sp.Matrix(r)
            d2 = dot(r, r)
            return -self.mu / (d2 * sp.sqrt(d2)) * r
        return sp.zeros(3, 1)
