"""What the multibody and planar components look like in the 3-D viewer: the shapes their
``visual_shapes()`` declare, as the compiler keeps them (``compiled.flat.visuals``, frames by
their full path), and the errors for a user's shape the viewer could not draw."""

from __future__ import annotations

import math

import pytest

from acausal import Component, Eq, Visual, compile, connect
from acausal.components import multibody as mb
from acausal.components import planar as pl
from acausal.components.multibody import examples
from acausal.errors import ModelDefinitionError

BODY, ROD, JOINT, SPRING = "#0080ff", "#9b9b9b", "#ff0000", "#0000ff"


def by_component(shapes) -> dict[str, list[Visual]]:
    """The shapes of a compiled model (or a list of shapes) by the path of their component."""
    out: dict[str, list[Visual]] = {}
    for shape in shapes.flat.visuals if hasattr(shapes, "flat") else shapes:
        out.setdefault(shape.component, []).append(shape)
    return out


def approx(values):
    return pytest.approx(tuple(values), abs=1e-12)


# ------------------------------------------------------------------------------------------
# 3-D
# ------------------------------------------------------------------------------------------

class DoublePendulum3D(Component):
    """World, a revolute about z, a box link, a revolute about (0, 1, 1), a cylinder link."""

    world = mb.World()
    rev1 = mb.Revolute(n=(0.0, 0.0, 1.0))
    box = mb.BodyBox(r=(0.5, 0.0, 0.0), width=0.06, height=0.04)
    rev2 = mb.Revolute(n=(0.0, 1.0, 1.0))
    cyl = mb.BodyCylinder(r=(0.4, 0.0, 0.0), diameter=0.05)

    def connections(self):
        return [connect(self.world.frame_b, self.rev1.frame_a),
                connect(self.rev1.frame_b, self.box.frame_a),
                connect(self.box.frame_b, self.rev2.frame_a),
                connect(self.rev2.frame_b, self.cyl.frame_a)]


def test_double_pendulum_of_box_and_cylinder():
    model = DoublePendulum3D()
    shapes = by_component(compile(model))
    assert {k: [s.kind for s in v] for k, v in shapes.items()} == {
        "world": ["axes", "gravity"], "rev1": ["cylinder"], "box": ["box"],
        "rev2": ["cylinder"], "cyl": ["cylinder"]}
    axes, gravity = shapes["world"]
    assert axes.frame == gravity.frame == "world.frame_b"
    assert gravity.length_direction == approx((0.0, -1.0, 0.0))  # World.n, the default
    # a joint: a red cylinder along its (normalised) axis, centred on frame_a, default size
    rev2 = shapes["rev2"][0]
    assert rev2.frame == "rev2.frame_a" and rev2.frame_b is None
    assert rev2.length_direction == approx((0.0, 1 / math.sqrt(2), 1 / math.sqrt(2)))
    assert rev2.r_shape == (0.0, 0.0, 0.0) and rev2.length is None and rev2.color == JOINT
    # the box and the cylinder are the bodies' own geometry
    box = shapes["box"][0]
    assert box.frame == "box.frame_a" and box.color == BODY
    assert (box.length, box.width, box.height) == (model.box.length, model.box.width,
                                                   model.box.height) == (0.5, 0.06, 0.04)
    assert box.length_direction == approx((1.0, 0.0, 0.0))
    assert box.width_direction == approx((0.0, 1.0, 0.0))
    cyl = shapes["cyl"][0]
    assert cyl.frame == "cyl.frame_a" and (cyl.length, cyl.width) == (0.4, 0.05)
    assert cyl.width == model.cyl.diameter


class BodyOnSpring(Component):
    """A body hanging from a fixed point on a spring and a damper."""

    world = mb.World()
    fixed = mb.Fixed(r=(0.0, 0.5, 0.0))
    spring = mb.Spring(c=100.0, s_unstretched=0.3)
    damper = mb.Damper(d=2.0)
    body = mb.Body(m=1.0, r_CM=(0.0, -0.1, 0.0), I_11=0.01, I_22=0.01, I_33=0.01)

    def connections(self):
        return [connect(self.fixed.frame_b, self.spring.frame_a),
                connect(self.spring.frame_b, self.body.frame_a),
                connect(self.fixed.frame_b, self.damper.frame_a),
                connect(self.damper.frame_b, self.body.frame_a)]


def test_body_on_a_spring_and_a_damper():
    shapes = by_component(compile(BodyOnSpring()))
    (spring,) = shapes["spring"]
    assert (spring.kind, spring.frame, spring.frame_b) == ("spring", "spring.frame_a",
                                                            "spring.frame_b")
    assert spring.extra == 5 and spring.color == SPRING
    (damper,) = shapes["damper"]
    assert (damper.kind, damper.frame, damper.frame_b) == ("cylinder", "damper.frame_a",
                                                            "damper.frame_b")
    # Body: a cylinder from frame_a to the centre of mass and a sphere centred there
    cylinder, sphere = shapes["body"]
    assert cylinder.kind == "cylinder" and cylinder.frame == "body.frame_a"
    assert cylinder.r_shape == (0.0, 0.0, 0.0) and cylinder.length == pytest.approx(0.1)
    assert cylinder.length_direction == approx((0.0, -1.0, 0.0))
    assert sphere.kind == "sphere" and sphere.r_shape == approx((0.0, -0.1, 0.0))
    assert sphere.length is None and sphere.color == BODY
    # Fixed: a grey rod from the world's origin to its frame
    (rod,) = shapes["fixed"]
    assert rod.frame == "fixed.frame_b" and rod.color == ROD
    assert rod.r_shape == approx((0.0, -0.5, 0.0)) and rod.length == pytest.approx(0.5)
    assert rod.width == pytest.approx(0.5 / 20)


def test_body_shape_point_mass_and_line_forces():
    class Parts(Component):
        world = mb.World(n=(0.0, 0.0, -2.0))
        link = mb.BodyShape(r=(0.0, 0.0, 0.4), r_CM=(0.0, 0.0, 0.2), m=1.0)
        bar = mb.FixedTranslation(r=(0.3, 0.0, 0.0))
        mass = mb.PointMass(m=0.5)
        line = mb.SpringDamperParallel(c=10.0, d=1.0)
        other = mb.LineForceWithTwoMasses()
        spherical = mb.Spherical()

        def connections(self):
            return [connect(self.world.frame_b, self.spherical.frame_a),
                    connect(self.spherical.frame_b, self.link.frame_a),
                    connect(self.link.frame_b, self.bar.frame_a),
                    connect(self.bar.frame_b, self.mass.frame_a),
                    connect(self.world.frame_b, self.line.frame_a),
                    connect(self.line.frame_b, self.mass.frame_a)]

    shapes = by_component(_shapes_of(Parts()))
    assert shapes["world"][1].length_direction == approx((0.0, 0.0, -1.0))
    rod, sphere = shapes["link"]
    assert rod.kind == "cylinder" and rod.length == pytest.approx(0.4)
    assert rod.width == pytest.approx(0.02) and rod.color == BODY
    # MultiBody's BodyShape sphere: twice the rod's width, centred at r_CM
    assert sphere.length == pytest.approx(0.04)
    assert sphere.r_shape == approx((-0.02, 0.0, 0.2))
    assert [s.kind for s in shapes["bar"]] == ["cylinder"] and shapes["bar"][0].color == ROD
    assert [(s.kind, s.color) for s in shapes["mass"]] == [("sphere", BODY)]
    assert [(s.kind, s.frame_b) for s in shapes["line"]] == [("spring", "line.frame_b")]
    assert [(s.kind, s.frame_b) for s in shapes["other"]] == [("line", "other.frame_b")]
    assert [(s.kind, s.frame, s.color) for s in shapes["spherical"]] == [
        ("sphere", "spherical.frame_a", JOINT)]


def _shapes_of(model) -> list[Visual]:
    """The checked shapes of every component of a bound model (no equations needed)."""
    from acausal.language.visuals import check_visual

    model.bind()
    return [check_visual(shape, node, node.path)
            for node in model.walk() if isinstance(node, Component)
            for shape in node.visual_shapes()]


def test_composite_joints_draw_as_multibody_does():
    # Universal (n_a = z, n_b = y): its two revolutes' cylinders; Cylindrical: one cylinder,
    # not its parts
    universal = by_component(compile(examples.UniversalTest()))
    assert [s.length_direction for s in universal["universal.revolute_a"]] == [(0.0, 0.0, 1.0)]
    assert [s.length_direction for s in universal["universal.revolute_b"]] == [(0.0, 1.0, 0.0)]
    cylindrical = by_component(compile(examples.CylindricalTest()))
    assert [(s.kind, s.frame, s.frame_b) for s in cylindrical["cylindrical"]] == [
        ("cylinder", "cylindrical.frame_a", "cylindrical.frame_b")]
    assert not any(key.startswith("cylindrical.") for key in cylindrical)
    # Parts.RollingWheel: a disc about the wheel axis y with a rim mark across it, not the
    # sphere of its body; its joint draws the road (the ground z = 0)
    wheel = by_component(compile(examples.RollingWheel()))
    disc, mark = wheel["wheel1"]
    assert disc.length_direction == (0.0, 1.0, 0.0) and disc.width == pytest.approx(0.6)
    assert mark.frame == disc.frame and mark.width > disc.length  # stands out of both faces
    assert "wheel1.body" not in wheel
    (ground,) = wheel["wheel1.rollingWheel"]
    assert ground.kind == "road" and ground.frame is None
    assert ground.width_direction == approx((0.0, 0.0, 1.0))


# ------------------------------------------------------------------------------------------
# planar
# ------------------------------------------------------------------------------------------

class PlanarPendulum(Component):
    fixed = pl.Fixed(r=[0.0, 1.0])
    revolute = pl.Revolute()
    rod = pl.BodyShape(r=[0.8, 0.0], r_CM=[0.4, 0.0], m=1.0, I=0.05)

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a)]


def test_planar_pendulum():
    compiled = compile(PlanarPendulum())
    shapes = by_component(compiled)
    assert {k: [s.kind for s in v] for k, v in shapes.items()} == {
        "fixed": ["box"], "revolute": ["cylinder"], "rod": ["cylinder", "sphere"],
        "world": ["axes", "gravity"]}
    assert shapes["fixed"][0].frame == "fixed.frame"
    joint = shapes["revolute"][0]
    assert joint.frame == "revolute.frame_a" and joint.length_direction == (0.0, 0.0, 1.0)
    assert joint.length is None and joint.color == JOINT
    rod, sphere = shapes["rod"]
    assert (rod.frame, rod.frame_b) == ("rod.frame_a", "rod.frame_b")  # follows r
    assert rod.width == pytest.approx(0.8 / 20) and rod.color == BODY
    assert sphere.length == pytest.approx(0.08)
    assert sphere.r_shape == approx((0.36, 0.0, 0.0))  # centred at r_CM
    # the default world: its axes and gravity along n, at the world frame (frame=None: the
    # planar World has no frame connector)
    axes, gravity = shapes["world"]
    assert axes.frame is None and gravity.frame is None
    assert gravity.length_direction == approx((0.0, -1.0, 0.0))


class PlanarSpringDamper(Component):
    world = pl.World(n=[1.0, -1.0])
    fixed = pl.Fixed()
    prismatic = pl.Prismatic(r=[0.0, -1.0])
    body = pl.Body(m=1.0, I=0.1)
    spring_damper = pl.SpringDamper(c_x=50.0, c_y=50.0, d_x=1.0, d_y=1.0, c_phi=0.0,
                                    d_phi=0.0)
    spring = pl.Spring(c_x=10.0, c_y=10.0)
    damper = pl.Damper(d=1.0)

    def connections(self):
        a, b = self.fixed.frame, self.body.frame_a
        return [connect(a, self.prismatic.frame_a), connect(self.prismatic.frame_b, b),
                connect(a, self.spring_damper.frame_a), connect(self.spring_damper.frame_b, b),
                connect(a, self.spring.frame_a), connect(self.spring.frame_b, b),
                connect(a, self.damper.frame_a), connect(self.damper.frame_b, b)]


def test_planar_spring_damper():
    shapes = by_component(compile(PlanarSpringDamper()))
    spans = {k: [(s.kind, s.frame, s.frame_b) for s in v] for k, v in shapes.items()
             if k not in ("world", "fixed", "body")}
    assert spans == {
        "prismatic": [("box", "prismatic.frame_a", "prismatic.frame_b")],
        "spring_damper": [("spring", "spring_damper.frame_a", "spring_damper.frame_b"),
                          ("cylinder", "spring_damper.frame_a", "spring_damper.frame_b")],
        "spring": [("spring", "spring.frame_a", "spring.frame_b")],
        "damper": [("cylinder", "damper.frame_a", "damper.frame_b")]}
    assert shapes["spring"][0].extra == 5 and shapes["spring"][0].color == SPRING
    assert [s.kind for s in shapes["body"]] == ["sphere"]
    assert shapes["world"][1].length_direction == approx((1 / math.sqrt(2), -1 / math.sqrt(2),
                                                          0.0))


def test_planar_wheels_are_discs():
    rolling = by_component(_shapes_of(pl.IdealRolling(R=0.25)))
    disc, spoke_x, spoke_y, mark, ground = rolling[""]
    assert disc.length_direction == (0.0, 0.0, 1.0) and disc.width == pytest.approx(0.5)
    assert spoke_x.r_shape == approx((-0.25, 0.0, 0.0)) and spoke_x.length == 0.5
    assert spoke_y.length_direction == (0.0, 1.0, 0.0)
    # the spokes and the rim mark stand out of the disc's faces (else the disc hides them)
    assert min(spoke_x.height, mark.height) > disc.length
    assert ground.kind == "road" and ground.length_direction == (1.0, 0.0, 0.0)
    # a vehicle's wheel (the plane is the ground) stands across its driving direction
    tyre, mark = by_component(_shapes_of(pl.IdealWheelJoint(radius=0.3, r=[0.0, 2.0])))[""]
    assert tyre.length_direction == approx((-1.0, 0.0, 0.0)) and tyre.width == 0.6
    # centred on the wheel's frame: from -thickness/2 along the axis
    assert tyre.r_shape == approx((tyre.length / 2, 0.0, 0.0))
    # the rim mark turns with the roll angle about the wheel's axis, out of both faces
    assert mark.spin == "phi_roll" and mark.spin_axis == approx((-1.0, 0.0, 0.0))
    assert mark.width > tyre.length


# ------------------------------------------------------------------------------------------
# a user's shapes
# ------------------------------------------------------------------------------------------

class Anchor(Component):
    """A user's planar component: a frame fixed at the origin, drawn by ``shape``."""

    frame = pl.Frame()

    def __init__(self, shape=None, **kw):
        super().__init__(**kw)
        self._shape = shape

    def equations(self):
        return [Eq(self.frame.x, 0), Eq(self.frame.y, 0), Eq(self.frame.phi, 0)]

    def visual_shapes(self):
        return [self._shape]


def rig(shape) -> Component:
    class Rig(Component):
        def __init__(self):
            super().__init__()
            self.anchor = Anchor(shape)
            self.revolute = pl.Revolute()
            self.body = pl.BodyShape()

        def connections(self):
            return [connect(self.anchor.frame, self.revolute.frame_a),
                    connect(self.revolute.frame_b, self.body.frame_a)]

    return Rig()


def test_a_users_shape_gets_full_frame_paths():
    shapes = by_component(compile(rig(Visual("box", "frame", length=0.1, color="black"))))
    (box,) = shapes["anchor"]
    assert box.frame == "anchor.frame" and box.length == 0.1 and box.component == "anchor"


@pytest.mark.parametrize("shape, says", [
    (Visual("box", "frame_c"), "frame='frame_c' is not a connector of the component"),
    (Visual("cylinder", "frame", frame_b="body"), "frame_b='body' is not a connector"),
    (Visual("cone", "frame"), "kind 'cone' is not one of box, cylinder, sphere"),
    (Visual("box", "frame", length=-1.0), "length=-1.0 must be a finite number >= 0"),
    ("box", "returned 'box': return a list of acausal.Visual shapes"),
])
def test_a_shape_the_viewer_cannot_draw_names_the_component(shape, says):
    with pytest.raises(ModelDefinitionError) as err:
        compile(rig(shape))
    assert "Anchor 'anchor'" in str(err.value)
    assert says in str(err.value)
