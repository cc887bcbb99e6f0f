"""3-D multibody components after ``Modelica.Mechanics.MultiBody`` (Modelica Standard Library
4.0): frames with an overdetermined orientation record, a world with gravity, bodies, joints,
line forces and sensors. Kinematic loops close automatically (see ``docs/multibody.md``).
"""

from .forces import (
    Damper,
    Force,
    ForceAndTorque,
    LineForceBase,
    LineForceWithMass,
    LineForceWithTwoMasses,
    Spring,
    SpringDamperParallel,
    WorldForce,
    WorldTorque,
)
from .interfaces import Frame
from .joints import (
    Cylindrical,
    FreeMotion,
    Prismatic,
    Revolute,
    RevolutePlanarLoopConstraint,
    Spherical,
    SphericalSpherical,
    Universal,
    UniversalSpherical,
)
from .parts import (
    Body,
    BodyBox,
    BodyCylinder,
    BodyShape,
    Fixed,
    FixedRotation,
    FixedTranslation,
    PointMass,
    RollingWheel,
    Rotor1D,
)
from .world import World

__all__ = ["Body", "BodyBox", "BodyCylinder", "BodyShape", "Cylindrical", "Damper", "Fixed",
           "FixedRotation", "FixedTranslation", "Force", "ForceAndTorque", "Frame", "FreeMotion",
           "LineForceBase", "LineForceWithMass", "LineForceWithTwoMasses", "PointMass",
           "Prismatic", "Revolute", "RevolutePlanarLoopConstraint", "RollingWheel", "Rotor1D",
           "Spherical", "SphericalSpherical", "Spring", "SpringDamperParallel", "Universal",
           "UniversalSpherical", "World", "WorldForce", "WorldTorque"]
