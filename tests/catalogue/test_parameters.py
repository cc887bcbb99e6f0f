"""Issue 28, "nothing wrong passes silently": physical parameters are validated where they are
declared, and errors raised while a model is built name the instance.

One test per check: each asserts the error class and that the message names the component's
path and the parameter (and the value or the rule where it matters).
"""

from __future__ import annotations

import math
import sys
import warnings

import pytest
from message_checks import raises

from acausal import (
    Component,
    ModelDefinitionError,
    Parameter,
    ParameterError,
    Rule,
    StructuralError,
    Variable,
    compile,
    connect,
)
from acausal.components import multibody as mb
from acausal.components import translational as tr
from acausal.components.blocks import CriticalDamping
from acausal.components.multibody import joint_friction as jf
from acausal.components.multibody import spring_damper_actuators as sda
from acausal.components.multibody.motionsolve_xml import (
    from_motionsolve_xml,
    read_force_joint_friction,
)
from acausal.errors import ParameterWarning


def pendulum(body=None, joint=None, world=None):
    """A model whose parts are created in its __init__ (so that they have paths): world ->
    joint 'rev' -> body 'body'."""

    class Pendulum(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = world() if world else mb.World()
            self.rev = joint() if joint else mb.Revolute(n=(0, 0, 1))
            self.body = body() if body else mb.BodyShape(r=(1, 0, 0), r_CM=(0.5, 0, 0), m=1.0)

        def connections(self):
            return [connect(self.world.frame_b, self.rev.frame_a),
                    connect(self.rev.frame_b, self.body.frame_a)]

    return Pendulum()


def free_body(**body):
    class Free(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World(gravity_type="NoGravity")
            self.body = mb.Body(**body)

    return Free()


# -- the mechanism: strict bounds, rules, structural numbers ----------------------------------


def test_strict_bound_refuses_the_bound_itself():
    model = pendulum(joint=lambda: jf.RevoluteWithFriction(n=(0, 0, 1), pin_radius=0.0))
    with raises(ParameterError, "rev.pin_radius", "is 0", "> 0"):
        compile(model)


def test_strict_bound_holds_for_params_given_at_run_time():
    cs = compile(pendulum(joint=lambda: jf.RevoluteWithFriction(n=(0, 0, 1), law="coulomb")))
    assert cs.parameter_vector({"rev.pin_radius": 0.01}) is not None
    with raises(ParameterError, "rev.pin_radius", "> 0"):
        cs.parameter_vector({"rev.pin_radius": 0.0})


def test_exclusive_bound_needs_the_bound():
    with raises(ModelDefinitionError, "min_exclusive=True", "min=0.0"):
        Parameter(1.0, min_exclusive=True)
    assert Parameter(1.0, min=0.0, min_exclusive=True).bounds_text() == "> 0"
    assert Parameter(1.0, min=0.0, max=1.0, max_exclusive=True).bounds_text() == ">= 0 and < 1"


class Tank(Component):
    """A user component with a declared rule over two parameters and a warning rule."""

    level = Parameter(1.0, unit="m", min=0.0)
    height = Parameter(2.0, unit="m", min=0.0, min_exclusive=True)
    parameter_rules = (
        Rule(("level", "height"), "the level is at most the height",
             lambda level, height: level <= height or f"level {level:g} > height {height:g}"),
        Rule("height", "a tank taller than 100 m is unusual", lambda h: h <= 100, warn=True),
    )
    x = Variable(start=0.0)

    def equations(self):
        return [self.x - self.level]


class Plant(Component):
    def __init__(self, level=1.0, height=2.0, **kw):
        super().__init__(**kw)
        self.tank = Tank(level=level, height=height)


def test_user_rule_names_path_parameters_and_rule():
    with raises(ParameterError, "Tank 'tank'", "level 3 > height 2", "level=3", "height=2",
                "the level is at most the height"):
        compile(Plant(level=3.0))


def test_warning_rule_warns_and_builds():
    with pytest.warns(ParameterWarning, match=r"Tank 'tank'.*height=200.*taller than 100 m"):
        cs = compile(Plant(level=1.0, height=200.0))
    assert cs.parameters()["tank.height"] == 200.0


def test_rule_reading_an_undeclared_parameter_is_a_definition_error():
    class Broken(Component):
        a = Parameter(1.0)
        parameter_rules = (Rule("b", "b is positive", lambda b: b > 0),)

    with raises(ModelDefinitionError, "Broken", "reads b", "does not declare"):
        compile(Broken())


def test_nan_in_a_structural_vector_names_it():
    model = pendulum(joint=lambda: mb.Revolute(n=(math.nan, 0, 1)))
    with raises(ParameterError, "Parameter 'rev.n'", "Revolute 'rev'", "not finite") as info:
        compile(model)
    assert "constant False" not in str(info.value)


def test_string_in_a_vector_parameter_names_it():
    with raises(ParameterError, "Parameter 'rev.n'", "Revolute 'rev'", "'a'"):
        compile(pendulum(joint=lambda: mb.Revolute(n=("a", 0, 1))))


def test_nan_in_a_structural_scalar_names_it():
    with raises(ParameterError, "Parameter 'body.I_11'", "Body 'body'", "nan"):
        compile(pendulum(body=lambda: mb.Body(m=1.0, I_11=math.nan)))


def test_reference_shows_bounds_and_rules():
    sys.path.insert(0, "tools")
    try:
        from gen_component_reference import render
    finally:
        sys.path.remove("tools")
    text = render()
    fixed_rotation = text[text.index("### FixedRotation"):text.index("### Body\n")]
    assert "**Parameter rules**" in fixed_rotation
    assert "n_x and n_y are not parallel" in fixed_rotation
    pin = [line for line in text.splitlines() if line.startswith("| `pin_radius`")]
    assert pin and all("> 0" in line for line in pin)


# -- construction-time errors name the instance ----------------------------------------------


class Suspension(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.tsda = sda.TSDA(f_act="strong")


class Car(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.suspension = Suspension()


def test_tsda_f_act_error_names_the_instance():
    with raises(ParameterError, "TSDA 'suspension.tsda'", "f_act", "'strong'"):
        Car()


def test_friction_law_error_names_the_instance():
    with raises(ModelDefinitionError, "RevoluteWithFriction 'rev'", "law", "'stribeckish'"):
        pendulum(joint=lambda: jf.RevoluteWithFriction(law="stribeckish"))


def test_block_x_start_error_names_the_instance():
    class Filtered(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.filter = CriticalDamping(n=3, x_start=[0.0, 0.0])

    with raises(ParameterError, "CriticalDamping 'filter'", "x_start has 2 values"):
        Filtered()


def test_error_in_an_element_of_a_list_names_its_index():
    class Chain(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.links = [tr.Mass(m=1.0) if i != 2 else tr.Mass(mm=1.0) for i in range(4)]

    with raises(ModelDefinitionError, "Mass 'links[2]'", "'mm'"):
        Chain()


def test_error_in_a_class_level_part_names_the_declaration():
    with raises(ModelDefinitionError, "RevoluteWithFriction 'Declared.rev'", "law"):
        class Declared(Component):
            rev = jf.RevoluteWithFriction(law="stribeckish")


# -- deep legal nesting and endless self-construction ----------------------------------------


class Link(Component):
    """A chain built recursively with a size parameter: legal, however deep."""

    def __init__(self, k=0, **kw):
        super().__init__(**kw)
        self.mass = tr.Mass()
        self.spring = tr.Spring()
        self._k = k
        if k > 0:
            self.next = Link(k - 1)

    def connections(self):
        out = [connect(self.mass.flange_b, self.spring.flange_a)]
        if self._k > 0:
            out.append(connect(self.spring.flange_b, self.next.mass.flange_a))
        return out


def chain(depth):
    class Top(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.fixed = tr.Fixed()
            self.chain = Link(depth)

        def connections(self):
            return [connect(self.fixed.flange, self.chain.mass.flange_a)]

    return Top()


@pytest.mark.parametrize("depth", [300, 1000])
def test_deep_legal_nesting_builds_compiles_and_runs(depth):
    limit = sys.getrecursionlimit()
    cs = compile(chain(depth))
    assert len(cs.state_names) == 2 * depth  # the first mass is held by the fixed flange
    deepest = "chain" + ".next" * depth + ".mass.s"
    sol = cs.simulate(0.01)
    assert sol[deepest].shape == sol.t.shape
    assert sys.getrecursionlimit() == limit  # raised while building only


def test_endless_self_construction_is_still_reported():
    class Endless(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.inner = Endless()

    with raises(ModelDefinitionError, "Endless builds itself recursively"):
        Endless()


# -- inner/outer: two Worlds ------------------------------------------------------------------


def test_two_worlds_at_one_level_are_refused_naming_both():
    class TwoWorlds(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.earth = mb.World()
            self.moon = mb.World(g=1.62)
            self.body = mb.Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)

    with raises(ModelDefinitionError, "Body 'body'", "'earth'", "'moon'", "ambiguous"):
        compile(TwoWorlds())


def test_the_nearest_world_serves_a_sub_model():
    class Lunar(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World(g=1.62)
            self.body = mb.Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)

    class Both(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.lunar = Lunar()
            self.body = mb.Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)

    sol = compile(Both()).simulate(0.1, t_eval=[0.0, 0.1])
    assert sol["lunar.body.g_0"][1][0] == pytest.approx(-1.62)
    assert sol["body.g_0"][1][0] == pytest.approx(-9.80665)


# -- the 3-D components -----------------------------------------------------------------------


def test_body_negative_inertia():
    with raises(ParameterError, "Parameter 'body.I_11'", "Body 'body'", "-1", ">= 0"):
        compile(pendulum(body=lambda: mb.Body(m=1.0, I_11=-1.0)))


def test_body_inertia_not_positive_semi_definite():
    body = dict(m=1.0, I_11=1.0, I_22=1.0, I_33=1.0, I_21=2.0)
    with raises(ParameterError, "Body 'body'", "not positive semi-definite", "I_21=2"):
        compile(pendulum(body=lambda: mb.Body(**body)))


def test_body_zero_inertia_is_legal():
    cs = compile(pendulum(body=lambda: mb.Body(m=1.0, r_CM=(0.5, 0, 0), I_11=0.0, I_22=0.0,
                                               I_33=0.0)))
    assert cs.state_names == ["rev.phi", "rev.w"]


def test_free_body_breaking_the_triangle_inequality():
    with raises(ParameterError, "Body 'body'", "I_11 = 3 > I_22 + I_33 = 2", "triangle"):
        compile(free_body(m=1.0, I_11=3.0, I_22=1.0, I_33=1.0))


def test_triangle_inequality_warns_for_a_body_on_a_joint():
    # MultiBody models give the moment about the joint axis only (MSL RobotR3's b1): a warning
    with pytest.warns(ParameterWarning, match=r"Body 'body'.*I_11 = 3 > I_22 \+ I_33"):
        compile(pendulum(body=lambda: mb.Body(m=1.0, r_CM=(0.5, 0, 0), I_11=3.0, I_22=1.0,
                                              I_33=1.0)))


def test_body_r_cm_infinite():
    with raises(ParameterError, "Parameter 'body.r_CM'", "Body 'body'", "inf"):
        compile(pendulum(body=lambda: mb.Body(m=1.0, r_CM=(math.inf, 0.0, 0.0))))


def test_free_body_without_mass_or_inertia():
    with raises(StructuralError, "Body 'body' carries its own orientation",
                "A free body needs a mass m > 0 and an inertia"):
        compile(free_body(m=0.0, I_11=0.0, I_22=0.0, I_33=0.0))


def test_massless_root_body_with_a_body_fixed_to_it_is_legal():
    class Assembly(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World(gravity_type="NoGravity")
            self.hub = mb.Body(m=0.0, I_11=0.0, I_22=0.0, I_33=0.0)
            self.arm = mb.FixedTranslation(r=(1.0, 0.0, 0.0))
            self.tip = mb.Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)

        def connections(self):
            return [connect(self.hub.frame_a, self.arm.frame_a),
                    connect(self.arm.frame_b, self.tip.frame_a)]

    assert compile(Assembly()).state_names


def test_body_box_negative_width():
    with raises(ParameterError, "Parameter 'body.width'", "BodyBox 'body'", "-0.1", "> 0"):
        compile(pendulum(body=lambda: mb.BodyBox(r=(1.0, 0.0, 0.0), width=-0.1)))


def test_body_cylinder_zero_diameter():
    with raises(ParameterError, "Parameter 'body.diameter'", "BodyCylinder 'body'",
                "> 0") as info:
        compile(pendulum(body=lambda: mb.BodyCylinder(r=(1.0, 0.0, 0.0), diameter=0.0)))
    assert "phi_offset" not in str(info.value)


def test_body_cylinder_bore_wider_than_the_cylinder():
    with raises(ParameterError, "BodyCylinder 'body'", "inner_diameter = 0.2",
                "diameter = 0.1", "innerDiameter < diameter"):
        compile(pendulum(body=lambda: mb.BodyCylinder(r=(1.0, 0.0, 0.0), diameter=0.1,
                                                      inner_diameter=0.2)))


def test_nan_initial_value_advice_names_no_unbounded_parameter():
    # a massless, inertia-less link on a revolute: rev.a = 0/0 at the start. The advice once
    # said "the parameter rev.phi_offset is 0: give it a non-zero value" (an offset of 0 is
    # an ordinary value): it names only parameters at their lower bound 0 now
    from acausal import SimulationError

    cs = compile(pendulum(body=lambda: mb.Body(m=0.0, r_CM=(0.5, 0, 0), I_11=0.0, I_22=0.0,
                                               I_33=0.0)))
    with pytest.raises(SimulationError) as info:
        cs.simulate(0.1)
    assert "phi_offset" not in str(info.value)


def test_nan_in_an_inertia_names_it():
    with raises(ParameterError, "Parameter 'body.I_22'", "Body 'body'", "not finite") as info:
        compile(pendulum(body=lambda: mb.Body(m=1.0, I_22=math.nan)))
    assert "constant False" not in str(info.value)


@pytest.mark.parametrize("sequence", [(1, 1, 2), (4, 1, 2)])
def test_fixed_rotation_bad_sequence(sequence):
    class Turned(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.turn = mb.FixedRotation(rotation_type="PlanarRotationSequence",
                                         sequence=sequence, angles=(10.0, 20.0, 30.0))
            self.body = mb.Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)

        def connections(self):
            return [connect(self.world.frame_b, self.turn.frame_a),
                    connect(self.turn.frame_b, self.body.frame_a)]

    with raises(ParameterError, "FixedRotation 'turn'", "sequence=", "RotationSequence"):
        compile(Turned())


def test_fixed_rotation_parallel_axes_vectors():
    class Turned(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.turn = mb.FixedRotation(rotation_type="TwoAxesVectors", n_x=(1, 0, 0),
                                         n_y=(2, 0, 0))
            self.body = mb.Body(m=1.0, I_11=0.1, I_22=0.1, I_33=0.1)

        def connections(self):
            return [connect(self.world.frame_b, self.turn.frame_a),
                    connect(self.turn.frame_b, self.body.frame_a)]

    with raises(ParameterError, "FixedRotation 'turn'", "n_x and n_y are parallel",
                "n_y=(2, 0, 0)"):
        compile(Turned())


def test_universal_parallel_axes():
    model = pendulum(joint=lambda: mb.Universal(n_a=(1, 0, 0), n_b=(1, 0, 0)))
    with raises(ParameterError, "Universal 'rev'", "n_a and n_b are parallel"):
        compile(model)


def test_world_zero_gravity_direction():
    with raises(ParameterError, "World 'world'", "n=(0, 0, 0)", "length(n) > 0"):
        compile(pendulum(world=lambda: mb.World(n=(0.0, 0.0, 0.0))))


def test_joint_zero_axis():
    with raises(ParameterError, "Prismatic 'rev'", "n is the zero vector"):
        compile(pendulum(joint=lambda: mb.Prismatic(n=(0, 0, 0))))


def test_friction_mu_dynamic_above_mu_static():
    model = pendulum(joint=lambda: jf.RevoluteWithFriction(mu_static=0.2, mu_dynamic=0.5))
    with raises(ParameterError, "RevoluteWithFriction 'rev'", "mu_dynamic = 0.5 exceeds "
                "mu_static = 0.2"):
        compile(model)


def test_motionsolve_mu_dynamic_above_mu_static():
    xml = ('<Force_JointFriction id="7" label="pin" joint_id="301001" mu_static="0.2" '
           'mu_dynamic="0.4"/>')
    with raises(ParameterError, "id=7", "label 'pin'", 'mu_dynamic="0.4"', 'mu_static="0.2"',
                "mu_dynamic <= mu_static"):
        read_force_joint_friction(xml)


def test_motionsolve_radius_out_of_the_joint_range():
    xml = ('<Force_JointFriction id="3" joint_id="301001" mu_static="0.3" mu_dynamic="0.2" '
           'pin_radius="0"/>')
    with raises(ParameterError, "id=3", 'pin_radius="0"', "RevoluteWithFriction.pin_radius",
                "> 0"):
        from_motionsolve_xml(xml, {301001: mb.Revolute(n=(0, 0, 1))})


def test_spatial_loop_advice_names_its_joints():
    class SpatialFourbar(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.j1 = mb.Revolute(n=(0, 0, 1), phi=Variable(start=0.0, fixed=True))
            self.j2 = mb.Revolute(n=(1, 0, 0))
            self.j3 = mb.Revolute(n=(0, 0, 1))
            self.j4 = mb.Revolute(n=(0, 1, 0))
            self.b1 = mb.BodyBox(width=0.05, r=(0.4, 0.0, 0.0))
            self.b2 = mb.BodyBox(width=0.05, r=(0.1, 1.1, 0.0))
            self.b3 = mb.BodyBox(width=0.05, r=(-0.15, 1.0, 0.0))
            self.b4 = mb.BodyBox(width=0.05, r=(0.65, 0.1, 0.0))

        def connections(self):
            return [connect(self.world.frame_b, self.j1.frame_a),
                    connect(self.j1.frame_b, self.b1.frame_a),
                    connect(self.b1.frame_b, self.j2.frame_a),
                    connect(self.j2.frame_b, self.b2.frame_a),
                    connect(self.world.frame_b, self.b3.frame_a),
                    connect(self.b3.frame_b, self.j3.frame_a),
                    connect(self.j3.frame_b, self.b4.frame_a),
                    connect(self.b4.frame_b, self.j4.frame_a),
                    connect(self.b2.frame_b, self.j4.frame_b)]

    with raises(StructuralError, "spatial loop", "'j1', ", "'j4'", "Spherical",
                "UniversalSpherical") as info:
        compile(SpatialFourbar())
    assert "Replace one Revolute of the loop by RevolutePlanarLoopConstraint" \
        not in str(info.value)


def test_no_warning_for_the_library_defaults():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(pendulum())
