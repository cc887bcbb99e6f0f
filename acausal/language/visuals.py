"""What a component looks like in the 3-D viewer: :class:`Visual` shapes placed by its frames.

A component lists its shapes in ``visual_shapes()`` (a method of
:class:`~acausal.language.model.Component`, empty by default)::

    class Crank(Component):
        frame_a = Frame()
        frame_b = Frame()
        ...
        def visual_shapes(self):
            return [Visual("cylinder", "frame_a", length=0.2, width=0.02, color="#0080ff")]

The shape semantics are Modelica's ``MultiBody.Visualizers.Advanced.Shape``, so that a model's
visualisation ports line by line: the shape sits in the frame ``frame`` (a connector of the
component, by its name relative to the component), starts at ``r_shape`` (resolved in that
frame) and extends ``length`` along ``length_direction``, ``width`` along ``width_direction``
(made orthogonal to the length direction) and ``height`` along the third axis:

* ``box``: from ``r_shape`` along the length, centred in width and height;
* ``cylinder``: from ``r_shape`` along the length, diameter ``width``;
* ``sphere``: diameter ``length``, centre at ``r_shape + length_direction * length / 2``;
* ``spring``: a helix of ``extra`` windings (default 5), coil diameter ``width``;
* ``arrow``: an arrow of ``length``, diameter ``width`` (a force, a direction);
* ``gravity``: an arrow along the direction of gravity (the World's): the viewer also draws the
  ground perpendicular to it and turns the camera so that it points down;
* ``axes``: the frame's x (red), y (green) and z (blue) axes, each ``length`` long;
* ``line``: a thin line (a rope, a rod drawn as a line);
* ``road``: the ground a wheel rolls on, normally in the world frame (``frame=None``): the plane
  (in a planar model, the line) through ``r_shape`` along ``length_direction``, with
  ``width_direction`` its upward normal. The viewer draws it as a strip as long as the motion
  along it (plus a margin of the larger of L and a quarter of the motion's size at each end),
  ``height`` thick below the surface (default L/10) and ``width`` wide across it (default: the
  motion's extent across plus the margins; in a planar model, just behind the plane z = 0, so
  that nothing in the plane hides behind it). ``length`` is not used.

A shape can turn in its frame by an angle of the component: ``spin="phi_roll"`` (a scalar
variable of the component, in rad) turns it about the axis through the frame's origin along
``spin_axis`` (in the frame) by that variable's value at each output point. This is how a
wheel whose frame does not turn with it (a vehicle's wheel, whose frame follows the vehicle and
whose roll angle is a variable of the joint) shows its rolling: its rim mark spins.

A shape can also move in its frame by a position of the component: ``slide="s"`` (a scalar
variable, in m) moves it along ``slide_axis`` (in the frame) by that variable's value. This is
how the 1-D parts, which have no frame, are shown: a translational mass is a box in the world
frame (``frame=None``) that slides along x by its position ``s``.

With ``frame_b`` (a second connector of the component) the shape spans the two frames' origins:
its length and direction follow the motion (a line force's spring or damper, a rod between two
joints); ``r_shape``, ``length_direction`` and ``length`` are then not used.

A dimension left ``None`` is chosen by the viewer from a nominal length L (as MultiBody's
``world.nominalLength`` sets the default joint and body sizes): twice the median size of the
model's parts (the given lengths of boxes, cylinders and spheres, the distances of the frames
that shapes span at the start), at most the size of the whole motion; so shapes stay in
proportion on a 1-mm mechanism, a 10-m crane and a 20-link chain alike. The defaults are
MultiBody's fractions of its nominal length: sphere L/9 (``defaultBodyDiameter``), box and
cylinder L/10 (``defaultJointLength``), spring and line L/10, arrow and gravity L/4, axes L/2
(``defaultAxisLength``). A box, cylinder or sphere of default length is **centred** on
``r_shape`` (as MultiBody centres a joint's cylinder on its axis and a body's sphere on its
centre of mass); the other kinds start there. A default width is length/20 for a given length
(``defaultWidthFraction``), else L/20 (``defaultJointWidth``; L/40 for a shape spanning two
frames); a default height equals the width. Colours are CSS colours (``"#0080ff"``,
``"red"``); ``None`` takes the viewer's colour for the kind. ``trail=True`` marks a body's
shape: ``view(trails=True)`` draws the path of its centre. Frames are the component's
3-D frames (``r_0``, ``T``) or planar frames (``x``, ``y``, ``phi``: drawn in the plane z = 0,
turned by ``phi`` about z); ``frame=None`` is the world frame (a component without a frame
connector, such as a planar ``World``). Values are read when the model is compiled; shapes do
not follow parameters changed later with ``simulate(params=...)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ..base.errors import ModelDefinitionError
from .declarations import Parameter, Variable
from .model import Connector

__all__ = ["KINDS", "Visual", "check_visual"]

#: The shape kinds the viewer draws.
KINDS = ("box", "cylinder", "sphere", "spring", "arrow", "gravity", "axes", "line", "road")


@dataclass(frozen=True)
class Visual:
    """One shape of a component, placed by the component's frame ``frame`` (see the module
    docstring for the geometry of each kind). Lengths in m."""

    kind: str
    frame: str | None
    frame_b: str | None = None
    r_shape: tuple[float, float, float] = (0.0, 0.0, 0.0)  # m, in ``frame``
    length_direction: tuple[float, float, float] = (1.0, 0.0, 0.0)  # 1, in ``frame``
    width_direction: tuple[float, float, float] = (0.0, 1.0, 0.0)  # 1, in ``frame``
    length: float | None = None  # m
    width: float | None = None  # m
    height: float | None = None  # m
    color: str | None = None  # CSS colour
    extra: float | None = None  # the spring's number of windings
    trail: bool = False  # a body's shape: its centre leaves a trail (view(trails=True))
    component: str = ""  # the path of the component that declared it (set by the compiler)
    spin: str | None = None  # a variable of the component: the shape turns by it [rad] ...
    spin_axis: tuple[float, float, float] = (0.0, 0.0, 1.0)  # ... about this axis (in frame)
    slide: str | None = None  # a variable of the component: the shape moves by it [m] ...
    slide_axis: tuple[float, float, float] = (1.0, 0.0, 0.0)  # ... along this axis (in frame)

    def as_dict(self) -> dict[str, Any]:
        """The shape as plain data (what the viewer page receives)."""
        return {"kind": self.kind, "frame": self.frame, "frame_b": self.frame_b,
                "r_shape": list(self.r_shape), "length_direction": list(self.length_direction),
                "width_direction": list(self.width_direction), "length": self.length,
                "width": self.width, "height": self.height, "color": self.color,
                "extra": self.extra, "trail": self.trail, "component": self.component,
                "spin": self.spin, "spin_axis": list(self.spin_axis), "slide": self.slide,
                "slide_axis": list(self.slide_axis)}


def _placeable(connector: Any) -> bool:
    """Whether the viewer can place a shape by ``connector``: a 3-D frame (``r_0``, ``T``) or a
    planar one (``x``, ``y``)."""
    names = type(connector).declarations()
    return {"r_0", "T"} <= names.keys() or {"x", "y"} <= names.keys()


def _vector(value: Any, what: str, where: str) -> tuple[float, float, float]:
    if type(value) is tuple and len(value) == 3:
        x, y, z = value
        # already 3 finite floats, as the defaults are: kept as given (a sum that overflows
        # takes the general path below, which gives the same numbers)
        if type(x) is float and type(y) is float and type(z) is float \
                and math.isfinite(x + y + z):
            return value
    try:
        numbers = [float(v) for v in value]
    except (TypeError, ValueError):
        numbers = []
    if len(numbers) == 2:  # a planar vector: in the plane z = 0
        numbers.append(0.0)
    if len(numbers) != 3 or not all(math.isfinite(v) for v in numbers):
        raise ModelDefinitionError(f"{where}: {what} = {value!r} is not a vector of 2 or 3 "
                                   "finite numbers.")
    return numbers[0], numbers[1], numbers[2]


def _moving_variable(name: Any, component: Any, where: str, field: str) -> str:
    """The full name (``wheel.phi_roll``) of the scalar variable ``name`` of ``component`` that
    turns a shape (``Visual.spin``) or moves it (``Visual.slide``); a ModelDefinitionError
    naming it otherwise."""
    # the class's own table (declarations() copies it)
    decl = type(component)._class_declarations().get(name) if isinstance(name, str) else None
    if not isinstance(decl, Variable) or isinstance(decl, Parameter) \
            or getattr(decl, "shape", None) not in (None, ()):
        what = "the angle [rad] that turns the shape (e.g. 'phi_roll')" if field == "spin" \
            else "the position [m] that moves the shape (e.g. 's')"
        raise ModelDefinitionError(f"{where}: Visual {field}={name!r} is not a scalar variable "
                                   f"of the component: give the name of {what}.")
    return f"{component.path}.{name}" if component.path else name


def check_visual(shape: Any, component: Any, where: str) -> Visual:
    """``shape`` checked against the component that declared it, with its frames given by
    their full path (``body.frame_a``) and numbers as floats. Raises a ModelDefinitionError
    naming ``where`` (the component) and the field for anything the viewer could not draw."""
    if not isinstance(shape, Visual):
        raise ModelDefinitionError(f"{where}.visual_shapes() returned {shape!r}: return a list "
                                   "of acausal.Visual shapes.")
    if shape.kind not in KINDS:
        raise ModelDefinitionError(f"{where}: Visual kind {shape.kind!r} is not one of "
                                   f"{', '.join(KINDS)}.")
    frames = []
    for field_name in ("frame", "frame_b"):
        name = getattr(shape, field_name)
        if name is None:  # frame: the world frame; frame_b: a shape on one frame
            frames.append(None)
            continue
        connector = component
        for part in str(name).split("."):
            connector = getattr(connector, part, None)
        if not isinstance(name, str) or not isinstance(connector, Connector) \
                or connector._path is None:
            raise ModelDefinitionError(f"{where}: Visual {field_name}={name!r} is not a "
                                       "connector of the component: give the name of one of "
                                       "its frames (e.g. 'frame_a').")
        if not _placeable(connector):
            raise ModelDefinitionError(f"{where}: Visual {field_name}={name!r} is a "
                                       f"{type(connector).__name__}, which has no position: "
                                       "place shapes by a 3-D frame (r_0, T) or a planar one "
                                       "(x, y, phi).")
        frames.append(connector.path)
    sizes = {}
    for field_name in ("length", "width", "height", "extra"):
        value = getattr(shape, field_name)
        if value is None:
            sizes[field_name] = None
            continue
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number) or number < 0:
            raise ModelDefinitionError(f"{where}: Visual {field_name}={value!r} must be a "
                                       "finite number >= 0 (or None for the viewer's default).")
        sizes[field_name] = number
    spin = None if shape.spin is None else _moving_variable(shape.spin, component, where, "spin")
    slide = None if shape.slide is None else _moving_variable(shape.slide, component, where,
                                                              "slide")
    directions = {}
    for field_name in ("length_direction", "width_direction", "spin_axis", "slide_axis"):
        directions[field_name] = _vector(getattr(shape, field_name), field_name, where)
        if not any(directions[field_name]):
            raise ModelDefinitionError(f"{where}: Visual {field_name} is the zero vector; give "
                                       "a direction.")
    return _copy(shape, frame=frames[0], frame_b=frames[1],
                 r_shape=_vector(shape.r_shape, "r_shape", where), **directions,
                 color=None if shape.color is None else str(shape.color),
                 trail=bool(shape.trail), spin=spin, slide=slide,
                 component=component.path, **sizes)


def _copy(shape: Visual, **changes: Any) -> Visual:
    """``dataclasses.replace(shape, **changes)`` for a checked shape: every field copied, then
    the changes, into a new frozen instance. ``replace`` reads the dataclass's fields and calls
    the frozen ``__init__`` (one ``object.__setattr__`` per field), about 4 us, 0.3 us here: a
    model shows a shape for each of its thousand masses. (Visual has no ``__post_init__`` and
    no slots: its state is its ``__dict__``; a subclass, which may have either, is replaced.)"""
    if type(shape) is not Visual:
        return replace(shape, **changes)
    new = object.__new__(Visual)
    state = new.__dict__
    state.update(shape.__dict__)
    state.update(changes)
    return new
