"""What the planar parts, joints, forces and wheels look like in the viewer: their
``visual_shapes()``, drawn in the plane z = 0 (a planar frame is turned by ``phi`` about z).

The shapes are those of the Modelica PlanarMechanics library (dzimmer/PlanarMechanics), with its
default colours (``Types.Defaults``, MultiBody's: rods {155,155,155}, joints {255,0,0}, springs
{0,0,255}; a ``Body`` {63,63,255}; the gravity arrow {0,180,0}) and its sizes where it takes them
from the component (a rod is 1/20 of its length wide, ``defaultWidthFraction``; a wheel disc is
as wide as the wheel). The sizes it takes from ``planarWorld.nominalLength`` (joint cylinders,
body spheres, spring coils, the world axes) are left ``None``: the viewer chooses them from its
nominal length (from the sizes of the parts). A box, cylinder or sphere whose length is ``None``
is centred on ``r_shape`` (PlanarMechanics centres its joint cylinders and body spheres on the
frame).

Rods between two frames span them (``frame_b``): their length follows ``r``, a parameter that
can change without recompiling. Each function takes the bound component and reads its
parameter values when the model is compiled.
"""

from __future__ import annotations

import math

from acausal import Visual

BODY, POINT, ROD, JOINT = "#0080ff", "#3f3fff", "#9b9b9b", "#ff0000"
SPRING, GRAVITY, RIM, TYRE = "#0000ff", "#00b400", "#c3c3c3", "#3f3f3f"
MARK, ROAD = "#ffc800", "#8c939c"  # a wheel's rim mark (turns with it), its road
DAMPER, DAMPER_OF_SPRING = "#007fff", "#646464"  # Damper, SpringDamper color_a
Z = (0.0, 0.0, 1.0)


def _length(v) -> float:
    return math.hypot(*(float(x) for x in v))


def fixed(part) -> list[Visual]:
    """``Fixed``: a small grey block at the frame (PlanarMechanics draws none)."""
    return [Visual("box", "frame", color=ROD)]


def body(part) -> list[Visual]:
    """``Body``: a sphere at frame_a."""
    return [Visual("sphere", "frame_a", color=POINT, trail=True)]


def _rod(part, color) -> list[Visual]:
    width = _length(part.parameter_values()["r"]) / 20
    return [Visual("cylinder", "frame_a", frame_b="frame_b", width_direction=Z,
                   width=width or None, height=width or None, color=color)]


def fixed_translation(part) -> list[Visual]:
    """``FixedTranslation``: a grey rod from frame_a to frame_b, |r|/20 wide."""
    return _rod(part, ROD)


def fixed_rotation(part) -> list[Visual]:
    """``FixedRotation``: a short grey cylinder along z at the frames' common origin."""
    return [Visual("cylinder", "frame_a", length_direction=Z, width_direction=(1.0, 0.0),
                   color=ROD)]


def body_shape(part) -> list[Visual]:
    """``BodyShape``: a blue rod from frame_a to frame_b (|r|/20 wide) and a sphere twice as
    wide at the centre of mass (as MultiBody's BodyShape)."""
    shapes = _rod(part, BODY)
    x, y = (float(c) for c in part.parameter_values()["r_CM"])
    d = 2 * shapes[0].width if shapes[0].width else None
    if d is None:
        return shapes + [Visual("sphere", "frame_a", r_shape=(x, y), color=BODY, trail=True)]
    return shapes + [Visual("sphere", "frame_a", r_shape=(x - d / 2, y), length=d, width=d,
                            height=d, color=BODY, trail=True)]


def revolute(joint) -> list[Visual]:
    """``Revolute``: a red cylinder along z centred on frame_a."""
    return [Visual("cylinder", "frame_a", length_direction=Z, width_direction=(1.0, 0.0),
                   color=JOINT)]


def prismatic(joint) -> list[Visual]:
    """``Prismatic``: a red box from frame_a to frame_b."""
    return [Visual("box", "frame_a", frame_b="frame_b", width_direction=Z, color=JOINT)]


def spring(force) -> list[Visual]:
    """``Spring``, ``TSDA``: a blue coil of 5 windings from frame_a to frame_b."""
    return [Visual("spring", "frame_a", frame_b="frame_b", color=SPRING, extra=5)]


def damper(force) -> list[Visual]:
    """``Damper``: a blue cylinder from frame_a to frame_b (PlanarMechanics draws a thick
    cylinder ``length_a`` long at frame_a and a thinner one from there to frame_b)."""
    return [Visual("cylinder", "frame_a", frame_b="frame_b", color=DAMPER)]


def spring_damper(force) -> list[Visual]:
    """``SpringDamper``: a blue coil around a grey cylinder from frame_a to frame_b."""
    return spring(force) + [Visual("cylinder", "frame_a", frame_b="frame_b",
                                   color=DAMPER_OF_SPRING)]


def road(grade: float) -> Visual:
    """The road of a wheel: the line through the origin at the angle ``grade`` to the x axis,
    drawn as a grey strip below it, as long as the motion (the viewer's ``road`` kind)."""
    c, s = math.cos(float(grade)), math.sin(float(grade))
    return Visual("road", None, length_direction=(c, s), width_direction=(-s, c), color=ROAD)


def rolling_wheel(joint, radius: float) -> list[Visual]:
    """A wheel rolling in the plane (frame_a turns with it): a red disc about z, as wide as the
    wheel and 1/10 of that thick, with two grey spokes and a yellow rim mark on frame_a's x axis
    standing out of both faces, so that its rotation shows (PlanarMechanics ``IdealRolling``
    draws the disc and the spokes); and the road it rolls on (its ``grade``)."""
    d = 2 * float(radius)
    t = d / 10  # the disc's thickness; the spokes and the mark stand out of it
    return [Visual("cylinder", "frame_a", r_shape=(0.0, 0.0, -t / 2), length_direction=Z,
                   width_direction=(1.0, 0.0), length=t, width=d, height=d, color=JOINT),
            Visual("box", "frame_a", r_shape=(-d / 2, 0.0), length_direction=(1.0, 0.0),
                   width_direction=(0.0, 1.0), length=d, width=d / 16, height=1.4 * t,
                   color=RIM),
            Visual("box", "frame_a", r_shape=(0.0, -d / 2), length_direction=(0.0, 1.0),
                   width_direction=(-1.0, 0.0), length=d, width=d / 16, height=1.4 * t,
                   color=RIM),
            Visual("box", "frame_a", r_shape=(0.3 * d, 0.0), length_direction=(1.0, 0.0),
                   width_direction=(0.0, 1.0), length=0.18 * d, width=d / 6, height=1.6 * t,
                   color=MARK),
            road(joint.parameter_values()["grade"])]


def rolling_wheel_R(joint) -> list[Visual]:  # noqa: N802 - PlanarMechanics' parameter name R
    """``IdealRolling``, ``DryFrictionBasedRolling`` (radius ``R``)."""
    return rolling_wheel(joint, joint.parameter_values()["R"])


def rolling_wheel_radius(joint) -> list[Visual]:
    """``OneDOFRollingWheelJoint``, ``OneDOFSlippingWheelJoint`` (``radius``)."""
    return rolling_wheel(joint, joint.parameter_values()["radius"])


def vehicle_wheel(joint) -> list[Visual]:
    """A vehicle's wheel seen from above (the plane is the ground): a dark disc standing
    across its driving direction ``r``, as wide as the wheel and a quarter of that thick
    (PlanarMechanics ``IdealWheelJoint``), and a yellow rim mark that the roll angle
    ``phi_roll`` turns about the wheel's axis (``spin``: the frame follows the vehicle, not the
    wheel's rolling), standing out of both faces."""
    values = joint.parameter_values()
    ex, ey = (float(c) for c in values["r"])
    size = math.hypot(ex, ey) or 1.0
    axis = (-ey / size, ex / size, 0.0)  # z x e: a positive roll angle rolls forward along e
    d = 2 * float(values["radius"])
    t = d / 4
    return [Visual("cylinder", "frame_a", r_shape=tuple(-c * t / 2 for c in axis),
                   length_direction=axis, width_direction=Z, length=t, width=d, height=d,
                   color=TYRE),
            Visual("box", "frame_a", r_shape=(0.0, 0.0, 0.3 * d), length_direction=Z,
                   width_direction=axis, length=0.18 * d, width=1.3 * t, height=d / 6,
                   color=MARK, spin="phi_roll", spin_axis=axis)]


def world(part) -> list[Visual]:
    """``World``: the world axes and a green arrow along gravity ``n``, at the origin (the
    world frame: the planar World has no frame connector)."""
    nx, ny = (float(c) for c in part.parameter_values()["n"])
    size = math.hypot(nx, ny) or 1.0
    return [Visual("axes", None),
            Visual("gravity", None, length_direction=(nx / size, ny / size), color=GRAVITY)]
