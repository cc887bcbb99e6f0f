"""What the 3-D parts, joints and forces look like in the viewer: their ``visual_shapes()``.

The shapes are those of Modelica MultiBody's animation (MSL 4.0), with its default colours
(``Types.Defaults``: bodies ``BodyColor`` {0,128,255}, rods ``RodColor`` {155,155,155}, joints
``JointColor`` {255,0,0}, springs ``SpringColor`` {0,0,255}; the world's gravity arrow
{0,230,0}) and its default sizes where MultiBody takes them from the component (a rod is 1/20
of its length wide, ``world.defaultWidthFraction``; a ``BodyShape``'s sphere is twice as wide).
The sizes MultiBody takes from ``world.nominalLength`` (joint cylinders and spheres, the sphere
of a ``Body``, spring coils, the world axes) are left ``None``: the viewer chooses them from its
nominal length (from the sizes of the parts). A box, cylinder or sphere whose length is ``None``
is centred on ``r_shape`` (MultiBody centres its joint cylinders, joint spheres and body spheres
there).

Each function takes the bound component (the compiler calls ``visual_shapes()`` when it
compiles the model) and reads its parameter values. A component that a composite draws itself
(MultiBody's ``animation=false`` on a part) has ``_animation = False`` and shows nothing.
"""

from __future__ import annotations

import numpy as np

from acausal import Visual

BODY, ROD, JOINT, SPRING = "#0080ff", "#9b9b9b", "#ff0000", "#0000ff"
GRAVITY = "#00e600"  # World.gravityArrowColor
DAMPER = "#646464"  # Forces.Damper color_a
WHEEL = "#1e1e1e"  # Parts.RollingWheel color
MARK, ROAD = "#ffc800", "#8c939c"  # a wheel's rim mark (turns with it), its road
WIDTH_FRACTION = 20  # world.defaultWidthFraction


def _vector(value, default=(1.0, 0.0, 0.0)) -> np.ndarray:
    return np.asarray(default if value is None else [float(x) for x in value], dtype=float)


def _unit(value, default=(1.0, 0.0, 0.0)) -> tuple[float, ...]:
    v = _vector(value, default)
    size = float(np.linalg.norm(v))
    return tuple(v / size) if size > 0 else tuple(default)


def _across(e) -> tuple[float, ...]:
    """A width direction not parallel to ``e`` (MultiBody's {0,1,0} unless e is along y)."""
    return (1.0, 0.0, 0.0) if abs(np.dot(_unit(e), (0.0, 1.0, 0.0))) > 0.99 else (0.0, 1.0, 0.0)


def shown(component) -> bool:
    """False for a part its owner draws (MultiBody ``animation=false``)."""
    return getattr(component, "_animation", True)


def rod(r, color, r_shape=(0.0, 0.0, 0.0), frame="frame_a") -> list[Visual]:
    """A cylinder from ``r_shape`` to ``r`` (in ``frame``), 1/20 of its length wide
    (MultiBody ``FixedTranslation``); none when the two points coincide."""
    d = _vector(r) - _vector(r_shape)
    length = float(np.linalg.norm(d))
    if length == 0.0:
        return []
    e = tuple(d / length)
    return [Visual("cylinder", frame, r_shape=tuple(_vector(r_shape)), length_direction=e,
                   width_direction=_across(e), length=length,
                   width=length / WIDTH_FRACTION, height=length / WIDTH_FRACTION, color=color)]


def axis(frame, n, color=JOINT) -> Visual:
    """A joint axis: a cylinder along ``n`` centred on the frame's origin, default size."""
    e = _unit(n)
    return Visual("cylinder", frame, length_direction=e, width_direction=_across(e), color=color)


# -- parts -----------------------------------------------------------------------------------

def fixed(part) -> list[Visual]:
    """``Parts.Fixed``: a grey rod from the world's origin to frame_b."""
    r = _vector(part.parameter_values()["r"])
    return rod((0.0, 0.0, 0.0), ROD, r_shape=tuple(-r), frame="frame_b")


def fixed_translation(part) -> list[Visual]:
    """``Parts.FixedTranslation``/``FixedRotation``: a grey rod from frame_a along ``r``."""
    return rod(part.parameter_values()["r"], ROD)


def body(part) -> list[Visual]:
    """``Parts.Body``: a sphere at the centre of mass and a cylinder from frame_a to it."""
    if not shown(part):
        return []
    r_cm = _vector(part.parameter_values()["r_CM"])
    shapes = []
    if np.any(r_cm):
        e = _unit(r_cm)
        shapes.append(Visual("cylinder", "frame_a", length_direction=e,
                             width_direction=_across(e), length=float(np.linalg.norm(r_cm)),
                             color=BODY))
    return shapes + [Visual("sphere", "frame_a", r_shape=tuple(r_cm), color=BODY, trail=True)]


def body_shape(part) -> list[Visual]:
    """``Parts.BodyShape``: a cylinder from frame_a to frame_b and a sphere (twice the
    cylinder's width) at the centre of mass."""
    values = part.parameter_values()
    r, r_cm = _vector(values["r"]), _vector(values["r_CM"])
    shapes = rod(r, BODY)
    if not shapes:
        return [Visual("sphere", "frame_a", r_shape=tuple(r_cm), color=BODY, trail=True)]
    d = 2 * shapes[0].width
    return shapes + [Visual("sphere", "frame_a", r_shape=tuple(r_cm - [d / 2, 0.0, 0.0]),
                            length=d, width=d, height=d, color=BODY, trail=True)]


def _solid(part) -> tuple[tuple, tuple]:
    """Start and length direction of a BodyBox/BodyCylinder (default: towards frame_b)."""
    values = part.parameter_values()
    start = _vector(values["r_shape"], (0.0, 0.0, 0.0))
    given = values["length_direction"]
    e = _unit(_vector(values["r"]) - start if given is None else given)
    return tuple(start), e


def body_box(part) -> list[Visual]:
    """``Parts.BodyBox``: the box (its hole is not drawn)."""
    start, e = _solid(part)
    values = part.parameter_values()
    return [Visual("box", "frame_a", r_shape=start, length_direction=e,
                   width_direction=_unit(values["width_direction"], (0.0, 1.0, 0.0)),
                   length=values["length"], width=values["width"], height=values["height"],
                   color=BODY, trail=True)]


def body_cylinder(part) -> list[Visual]:
    """``Parts.BodyCylinder``: the cylinder (its bore is not drawn)."""
    start, e = _solid(part)
    values = part.parameter_values()
    return [Visual("cylinder", "frame_a", r_shape=start, length_direction=e,
                   width_direction=_across(e), length=values["length"],
                   width=values["diameter"], height=values["diameter"], color=BODY,
                   trail=True)]


def point_mass(part) -> list[Visual]:
    """``Parts.PointMass``: a sphere at frame_a."""
    return [Visual("sphere", "frame_a", color=BODY, trail=True)]


def rolling_wheel(part) -> list[Visual]:
    """``Parts.RollingWheel``: a dark disc about frame_a's y axis, 2 x 0.035 m wide
    (MultiBody's ``width`` default; its ``pipe`` drawn as a full disc), and a yellow rim mark on
    frame_a's x axis standing out of both faces, which turns with the wheel so that its rolling
    shows (MultiBody draws none)."""
    d = 2 * float(part.parameter_values()["radius"])
    return [Visual("cylinder", "frame_a", r_shape=(0.0, -0.035, 0.0),
                   length_direction=(0.0, 1.0, 0.0), width_direction=(1.0, 0.0, 0.0),
                   length=0.07, width=d, height=d, color=WHEEL, trail=True),
            Visual("box", "frame_a", r_shape=(0.3 * d, 0.0, 0.0),
                   length_direction=(1.0, 0.0, 0.0), width_direction=(0.0, 1.0, 0.0),
                   length=0.18 * d, width=0.1, height=d / 6, color=MARK)]


def rolling_wheel_road(joint) -> list[Visual]:
    """``Joints.RollingWheel``: the road it rolls on, a grey strip of the plane through the
    origin with the upward normal ``(-sin grade, 0, cos grade)`` (the ground z = 0 on a level
    road), as long and wide as the motion (MultiBody draws none)."""
    grade = float(joint.parameter_values()["grade"])
    c, s = float(np.cos(grade)), float(np.sin(grade))
    return [Visual("road", None, length_direction=(c, 0.0, s), width_direction=(-s, 0.0, c),
                   color=ROAD)]


def world(part) -> list[Visual]:
    """``World``: the world axes and, for uniform gravity, an arrow along it (the viewer adds
    a ground grid perpendicular to it)."""
    values = part.parameter_values()
    shapes = [Visual("axes", "frame_b")]
    if values["gravity_type"] == "UniformGravity":
        shapes.append(Visual("gravity", "frame_b", length_direction=_unit(values["n"]),
                             color=GRAVITY))
    return shapes


# -- joints ----------------------------------------------------------------------------------

def revolute(joint) -> list[Visual]:
    """``Joints.Revolute``/``RevolutePlanarLoopConstraint``: a red cylinder along the axis
    ``n``, centred on frame_a."""
    return [axis("frame_a", joint.parameter_values()["n"])] if shown(joint) else []


def prismatic(joint) -> list[Visual]:
    """``Joints.Prismatic``: a red box from frame_a to frame_b."""
    if not shown(joint):
        return []
    return [Visual("box", "frame_a", frame_b="frame_b",
                   width_direction=_across(joint.parameter_values()["n"]), color=JOINT)]


def spherical(joint) -> list[Visual]:
    """``Joints.Spherical``: a red sphere at frame_a."""
    return [Visual("sphere", "frame_a", color=JOINT)]


def cylindrical(joint) -> list[Visual]:
    """``Joints.Cylindrical``: a red cylinder from frame_a to frame_b (along ``n``); its
    prismatic and revolute parts are not drawn."""
    return [Visual("cylinder", "frame_a", frame_b="frame_b",
                   width_direction=_across(joint.parameter_values()["n"]), color=JOINT)]


def spherical_spherical(joint) -> list[Visual]:
    """``Joints.SphericalSpherical``: red spheres at both frames and a grey rod between them
    (the rod's mass is not drawn)."""
    return [Visual("sphere", "frame_a", color=JOINT), Visual("sphere", "frame_b", color=JOINT),
            Visual("cylinder", "frame_a", frame_b="frame_b", color=ROD)]


def universal_spherical(joint) -> list[Visual]:
    """``Joints.UniversalSpherical``: the universal joint's two axes (red cylinders at frame_a
    and frame_ia), a grey rod from frame_ia along ``rRod_ia`` and a red sphere at frame_b."""
    values = joint.parameter_values()
    n1, rod_ia = _unit(values["n1_a"]), _vector(values["rRod_ia"])
    shapes = [axis("frame_a", n1)]
    e2 = np.cross(n1, _unit(rod_ia))
    if np.linalg.norm(e2) > 1e-10:
        shapes.append(axis("frame_ia", e2))
    length = float(np.linalg.norm(rod_ia))
    if length > 0:
        e = _unit(rod_ia)
        shapes.append(Visual("cylinder", "frame_ia", length_direction=e,
                             width_direction=_across(e), length=length, color=ROD))
    return shapes + [Visual("sphere", "frame_b", color=JOINT)]


# -- line forces -----------------------------------------------------------------------------

def line(force) -> list[Visual]:
    """A line force: a line from frame_a to frame_b (its point masses are not drawn)."""
    return [Visual("line", "frame_a", frame_b="frame_b")]


def spring(force) -> list[Visual]:
    """``Forces.Spring``, ``SpringDamperParallel``: a blue coil of 5 windings from frame_a to
    frame_b (its point mass is not drawn)."""
    return [Visual("spring", "frame_a", frame_b="frame_b", color=SPRING, extra=5)]


def damper(force) -> list[Visual]:
    """``Forces.Damper``: a grey cylinder from frame_a to frame_b (MultiBody draws a thick
    cylinder ``length_a`` long at frame_a and a thinner one from there to frame_b)."""
    return [Visual("cylinder", "frame_a", frame_b="frame_b", color=DAMPER)]
