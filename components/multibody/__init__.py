"""3-D multibody components after ``Modelica.Mechanics.MultiBody`` (Modelica Standard Library
4.0): frames with an overdetermined orientation record, a world with gravity, bodies, joints,
line forces and sensors. Kinematic loops close automatically (see ``docs/multibody.md``).
"""

from .interfaces import Frame
from .joints import Prismatic, Revolute
from .parts import (
    Body,
    BodyBox,
    BodyCylinder,
    BodyShape,
    Fixed,
    FixedRotation,
    FixedTranslation,
    PointMass,
)
from .world import World

__all__ = ["Body", "BodyBox", "BodyCylinder", "BodyShape", "Fixed", "FixedRotation",
           "FixedTranslation", "Frame", "PointMass", "Prismatic", "Revolute", "World"]
