"""Planar (2-D) multibody components after the Modelica PlanarMechanics library.

The classes are exported at package level, as those of :mod:`acausal.components.multibody`::

    import acausal.components.planar as pl
    world, body, joint = pl.World(g=9.81), pl.Body(m=1.0), pl.Revolute(use_axis_flange=True)

Parameter names follow Modelica MultiBody across both libraries (``use_axis_flange``, ``r_CM``,
the world's scalar ``g`` with direction ``n``); the default gravity is standard gravity
9.80665 m/s2 as MultiBody's, PlanarMechanics' was 9.81 (``World(g=9.81)`` reproduces its
results). The drawing helpers stay in :mod:`.animation` (its ``Spring`` is a shape, not the
force element :class:`Spring` exported here).
"""

from .forces import Damper, RelativeForce, Spring, SpringDamper, WorldForce
from .interfaces import Frame
from .joint_friction import PrismaticWithFriction, RevoluteWithFriction
from .joints import Prismatic, Revolute
from .parts import Body, BodyShape, Fixed, FixedRotation, FixedTranslation, World
from .sensors import (
    AbsoluteAcceleration,
    AbsolutePosition,
    AbsoluteVelocity,
    CutForce,
    CutForceAndTorque,
    CutTorque,
    Distance,
    Power,
    RelativeAcceleration,
    RelativePosition,
    RelativeVelocity,
)
from .sources import WorldTorque
from .spring_damper_actuators import RSDA, TSDA
from .vehicle import (
    AirResistanceLongitudinal,
    DifferentialGear,
    DryFrictionWheelJoint,
    IdealPlanetary,
    IdealWheelJoint,
    SlipBasedWheelJoint,
)
from .wheels import (
    DryFrictionBasedRolling,
    IdealRolling,
    OneDOFRollingWheelJoint,
    OneDOFSlippingWheelJoint,
)

__all__ = ["AbsoluteAcceleration", "AbsolutePosition", "AbsoluteVelocity",
           "AirResistanceLongitudinal", "Body", "BodyShape", "CutForce", "CutForceAndTorque",
           "CutTorque", "Damper", "DifferentialGear", "Distance", "DryFrictionBasedRolling",
           "DryFrictionWheelJoint", "Fixed", "FixedRotation", "FixedTranslation", "Frame",
           "IdealPlanetary", "IdealRolling", "IdealWheelJoint", "OneDOFRollingWheelJoint",
           "OneDOFSlippingWheelJoint", "Power", "Prismatic", "PrismaticWithFriction", "RSDA",
           "RelativeAcceleration", "RelativeForce", "RelativePosition", "RelativeVelocity",
           "Revolute", "RevoluteWithFriction", "SlipBasedWheelJoint", "Spring", "SpringDamper",
           "TSDA", "World", "WorldForce", "WorldTorque"]
