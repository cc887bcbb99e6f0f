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
from .joint_friction import (
    CylindricalWithFriction,
    PrismaticWithFriction,
    RevoluteWithFriction,
    SphericalWithFriction,
    UniversalWithFriction,
)
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
from .motionsolve_xml import from_motionsolve_xml, read_force_joint_friction
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
from .spring_damper_actuators import RSDA, TSDA
from .world import World

__all__ = ["Body", "BodyBox", "BodyCylinder", "BodyShape", "Cylindrical",
           "CylindricalWithFriction", "Damper", "Fixed",
           "FixedRotation", "FixedTranslation", "Force", "ForceAndTorque", "Frame", "FreeMotion",
           "LineForceBase", "LineForceWithMass", "LineForceWithTwoMasses", "PointMass",
           "Prismatic", "PrismaticWithFriction", "RSDA", "Revolute", "RevolutePlanarLoopConstraint",
           "RevoluteWithFriction", "RollingWheel", "Rotor1D", "Spherical", "SphericalSpherical",
           "SphericalWithFriction", "Spring", "SpringDamperParallel", "TSDA", "Universal",
           "UniversalSpherical", "UniversalWithFriction", "World", "WorldForce", "WorldTorque",
           "from_motionsolve_xml", "read_force_joint_friction"]
