"""Issue 40, point 7: seven bad inputs of a newcomer's first hour that got a vague answer or none.

Each model is written as a new user would write it. Each test asserts the error class and that
the message names the culprit (the condition, the component, the shape, the part, the joint)
and says what to do:

a. chattering names the condition that kept crossing, as written, with its component;
b. a vector equated to a scalar names the equation and both shapes (numpy said "Data type not
   understood");
c. connecting a part that is not in the model names the part and the connector;
d. a 3-D body inertia that breaks the triangle inequality is refused where the parameters are
   checked when the body can turn about several axes (a warning where it turns about one);
e. ``identify`` with one sample says so (it blamed a "constant" signal);
f. ``acausal info`` on a planar loop without a cut joint prints the advice the Python error
   gives;
g. a joint with an unknown friction law is named, and the known laws are listed.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from message_checks import raises

from acausal import (
    Component,
    Discrete,
    Eq,
    InputError,
    ModelDefinitionError,
    ParameterError,
    SimulationError,
    StructuralError,
    Variable,
    When,
    assign,
    compile,
    connect,
    der,
    event_if,
    root,
)
from acausal.analysis.identify import Experiment, identify
from acausal.cli import main
from acausal.components import multibody as mb
from acausal.components.multibody import joint_friction as jf3
from acausal.components.planar import joint_friction as jf2
from acausal.components.translational import Damper, Fixed, Mass, Spring, SpringDamper
from acausal.errors import ParameterWarning

HERE = Path(__file__).name




# --------------------------------------------------------------------------------------------
# a. chattering
# --------------------------------------------------------------------------------------------

class Heater(Component):
    """A bang-bang heater: heats at 1 K/s below 1 K, cools at 2 K/s above: once at 1 K the
    switch flips back and forth (a sliding mode)."""

    T = Variable(start=0.0, fixed=True, unit="K")

    def equations(self):
        return [Eq(der(self.T), event_if(self.T < 1, 1.0, -2.0))]


class Thermostat(Component):
    """The same switch as two When clauses and a Discrete mode, without hysteresis."""

    T = Variable(start=0.0, fixed=True, unit="K")
    on = Discrete(start=1.0)

    def equations(self):
        return [Eq(der(self.T), self.on * 1.0 - (1 - self.on) * 2.0)]

    def events(self):
        return [When(self.T > 1, assign(self.on, 0)), When(self.T < 1, assign(self.on, 1))]


class Room(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.heater = Heater()
        self.thermostat = Thermostat()


def test_chattering_names_the_condition_its_component_and_what_to_do():
    with raises(SimulationError, "Chattering", "event_if(heater.T < 1)", "Heater 'heater'",
                "When(thermostat.T > 1)", "When(thermostat.T < 1)",
                "Thermostat 'thermostat'", "smooth law", "hysteresis", "stick/slip",
                "zeno=") as info:
        compile(Room()).simulate(3.0)
    # both switches reach 1 K at t = 1 s, where they start to chatter: the solution on the
    # exception runs up to the last output point before it (the default grid: 501 points over
    # 3 s), heating at 1 K/s (to the default tolerances rtol = 1e-6, atol = 1e-8)
    sol = info.value.solution
    assert 1.0 - 3.0 / 500 < sol.t[-1] <= 1.0
    np.testing.assert_allclose(sol["heater.T"], sol.t, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(sol["thermostat.T"], sol.t, rtol=1e-6, atol=1e-8)


# --------------------------------------------------------------------------------------------
# b. a vector equated to a scalar
# --------------------------------------------------------------------------------------------

class Anchor(Component):
    """A 3-D frame fixed at the origin (as multibody.Fixed), its position written with a
    scalar right-hand side."""

    frame = mb.Frame()

    def connections(self):
        return [root(self.frame)]

    def equations(self):
        return [Eq(self.frame.r_0, 0)]


class Pinned(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.anchor = Anchor()


def test_a_vector_equated_to_a_scalar_names_the_equation_and_the_shapes():
    with raises(ModelDefinitionError, "equation 1 of Anchor 'anchor'", "Eq(self.frame.r_0, 0)",
                "a 3-vector with a scalar", "Eq(self.frame.r_0, [0, 0, 0])",
                "one equation per element") as info:
        compile(Pinned())
    assert "Data type not understood" not in str(info.value)


def test_sympy_eq_of_a_vector_and_a_scalar_says_to_use_acausals_eq():
    class SympyAnchor(Anchor):
        def equations(self):
            return [sp.Eq(self.frame.r_0, 0)]  # sympy's Eq evaluates this to False

    class Model(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.anchor = SympyAnchor()

    with raises(ModelDefinitionError, "equation 1 of SympyAnchor 'anchor' is the constant False",
                "sympy.Eq of a vector and a scalar is False", "acausal's Eq",
                "Eq(self.r, [0, 0, 0])"):
        compile(Model())


def test_the_suggested_list_form_equates_element_by_element():
    class Point(Component):
        r = Variable(shape=3, unit="m")

        def equations(self):
            return [Eq(self.r, [1.0, 2.0, 3.0])]

    sol = compile(Point()).simulate(0.1, n_points=2)
    for i, value in enumerate((1.0, 2.0, 3.0)):
        assert sol[f"r[{i}]"][-1] == value


# --------------------------------------------------------------------------------------------
# c. a connected part that is not in the model
# --------------------------------------------------------------------------------------------

spring = Spring(c=100.0)  # created, but never made a part of the model


class Oscillator(Component):
    wall = Fixed()
    mass = Mass(m=1.0)

    def connections(self):
        return [connect(self.wall.flange, spring.flange_a),
                connect(spring.flange_b, self.mass.flange_a)]


def test_a_connected_part_that_is_not_in_the_model_is_named():
    with raises(ModelDefinitionError, "Oscillator '<root>'",
                "connect(self.wall.flange, spring.flange_a)", HERE, "spring.flange_a",
                "not in the model", "child of the model", "self.spring = ",
                "connect self.spring.flange_a"):
        compile(Oscillator())


class ConnectedInInit(Component):
    def __init__(self, **kw):
        super().__init__(**kw)
        self.wall = Fixed()
        self.mass = Mass(m=1.0)
        self.damper = Damper(d=1.0)
        self.links = [connect(self.wall.flange, self.damper.flange_a),
                      connect(self.damper.flange_b, self.mass.flange_a)]

    def connections(self):
        return self.links


def test_connect_in_init_says_to_return_it_from_connections():
    with raises(ModelDefinitionError, "connect(self.wall.flange, self.damper.flange_a)", HERE,
                "ConnectedInInit.__init__", "connections()"):
        compile(ConnectedInInit())


# --------------------------------------------------------------------------------------------
# d. a body inertia that breaks the triangle inequality
# --------------------------------------------------------------------------------------------

THIN = dict(m=1.0, r_CM=(0.5, 0.0, 0.0), I_11=0.01, I_22=0.01, I_33=0.1)  # I_33 > I_11 + I_22


def hung(joint, body=THIN):
    class Arm(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.joint = joint()
            self.body = mb.Body(**body)

        def connections(self):
            return [connect(self.world.frame_b, self.joint.frame_a),
                    connect(self.joint.frame_b, self.body.frame_a)]

    return Arm()


def test_inertia_breaking_the_triangle_is_refused_on_a_universal_joint():
    with raises(ParameterError, "Body 'body'", "I_33 = 0.1 > I_11 + I_22 = 0.02",
                "more than one axis", "'joint.", "triangle inequality", "all three axes"):
        compile(hung(lambda: mb.Universal(n_a=(1, 0, 0), n_b=(0, 1, 0))))


def test_inertia_breaking_the_triangle_is_refused_on_two_revolutes_at_right_angles():
    class TwoAxes(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.yaw = mb.Revolute(n=(0, 1, 0))
            self.pitch = mb.Revolute(n=(0, 0, 1))
            self.body = mb.Body(**THIN)

        def connections(self):
            return [connect(self.world.frame_b, self.yaw.frame_a),
                    connect(self.yaw.frame_b, self.pitch.frame_a),
                    connect(self.pitch.frame_b, self.body.frame_a)]

    with raises(ParameterError, "Body 'body'", "'yaw' about (0, 1, 0)",
                "'pitch' about (0, 0, 1)"):
        compile(TwoAxes())


@pytest.mark.parametrize("n2, refused", [((0, 1, 0), False), ((0, 0, 1), True)],
                         ids=["parallel-after-the-rotation", "crossed-after-the-rotation"])
def test_joint_axes_are_compared_in_the_body_frame_through_fixed_rotations(n2, refused):
    # a fixed rotation of 90 degrees about x turns j1's axis z into the y axis of the frames
    # that follow: j2 about y is parallel to it, j2 about z is not
    class Turned(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.j1 = mb.Revolute(n=(0, 0, 1))
            self.turn = mb.FixedRotation(n=(1, 0, 0), angle=90.0)
            self.j2 = mb.Revolute(n=n2)
            self.body = mb.Body(**THIN)

        def connections(self):
            return [connect(self.world.frame_b, self.j1.frame_a),
                    connect(self.j1.frame_b, self.turn.frame_a),
                    connect(self.turn.frame_b, self.j2.frame_a),
                    connect(self.j2.frame_b, self.body.frame_a)]

    if refused:
        with raises(ParameterError, "Body 'body'", "'j2' about (0, 0, 1)", "'j1' about"):
            compile(Turned())
    else:
        with pytest.warns(ParameterWarning, match="Body 'body'"):
            compile(Turned())


def test_inertia_breaking_the_triangle_is_refused_on_a_body_fixed_to_a_free_body():
    class Satellite(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.hub = mb.Body(m=10.0, I_11=1.0, I_22=1.0, I_33=1.0)
            self.boom = mb.FixedTranslation(r=(1.0, 0.0, 0.0))
            self.panel = mb.Body(**THIN)

        def connections(self):
            return [connect(self.hub.frame_a, self.boom.frame_a),
                    connect(self.boom.frame_b, self.panel.frame_a)]

    with raises(ParameterError, "Body 'panel'", "fixed to Body 'hub'",
                "carries its own orientation"):
        compile(Satellite())


def test_a_placeholder_inertia_about_unused_axes_stays_a_warning():
    # the moment about the joint axis (z) is I_33; I_11 and I_22 are never used (MultiBody
    # models give such placeholders: MSL's RobotR3 b1)
    with pytest.warns(ParameterWarning, match=r"Body 'body'.*I_33 = 0.1 > I_11 \+ I_22"):
        cs = compile(hung(lambda: mb.Revolute(n=(0, 0, 1))))
    assert cs.state_names == ["joint.phi", "joint.w"]


def test_parallel_revolutes_turn_the_body_about_one_axis():
    class Double(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.world = mb.World()
            self.j1 = mb.Revolute(n=(0, 0, 1))
            self.link = mb.BodyShape(r=(1.0, 0.0, 0.0), m=1.0)
            self.j2 = mb.Revolute(n=(0, 0, 1))
            self.body = mb.Body(**THIN)

        def connections(self):
            return [connect(self.world.frame_b, self.j1.frame_a),
                    connect(self.j1.frame_b, self.link.frame_a),
                    connect(self.link.frame_b, self.j2.frame_a),
                    connect(self.j2.frame_b, self.body.frame_a)]

    with pytest.warns(ParameterWarning, match="Body 'body'"):
        compile(Double())


# --------------------------------------------------------------------------------------------
# e. identify with one sample
# --------------------------------------------------------------------------------------------

class Oscillator1D(Component):
    wall = Fixed()
    sd = SpringDamper(c=100.0, d=2.0)
    mass = Mass(m=1.0, s=Variable(start=0.1, fixed=True), v=Variable(start=0.0, fixed=True))

    def connections(self):
        return [connect(self.wall.flange, self.sd.flange_a),
                connect(self.sd.flange_b, self.mass.flange_a)]


def test_identify_with_one_sample_says_so_and_how_many_are_needed():
    system = compile(Oscillator1D())
    one = Experiment({"t": [0.5], "mass.s": [0.031]}, t_start=0.0, name="bench")
    with raises(InputError, "Experiment 'bench' has one sample (t = 0.5)", "'mass.s'",
                "at least two samples", "estimates 2 parameter(s)",
                "at least 2 measured value(s)", "sigma={'mass.s': ...}") as info:
        identify(system, one, {"sd.c": 90.0, "sd.d": 2.5})
    assert "constant" not in str(info.value)


# --------------------------------------------------------------------------------------------
# f. acausal info on a planar loop without a cut joint
# --------------------------------------------------------------------------------------------

FOURBAR = '''
from acausal import Component, connect
from acausal.components.multibody import BodyBox, Revolute, World


class Fourbar(Component):
    """A planar four-bar of 3-D revolutes with parallel axes, no cut joint."""

    world = World()
    j1 = Revolute(n=(0, 0, 1))
    j2 = Revolute(n=(0, 0, 1))
    j3 = Revolute(n=(0, 0, 1))
    j4 = Revolute(n=(0, 0, 1))
    crank = BodyBox(width=0.05, r=(0.4, 0.0, 0.0))
    coupler = BodyBox(width=0.05, r=(0.1, 1.1, 0.0))
    ground = BodyBox(width=0.05, r=(-0.15, 1.0, 0.0))
    rocker = BodyBox(width=0.05, r=(0.65, 0.1, 0.0))

    def connections(self):
        return [connect(self.world.frame_b, self.j1.frame_a),
                connect(self.j1.frame_b, self.crank.frame_a),
                connect(self.crank.frame_b, self.j2.frame_a),
                connect(self.j2.frame_b, self.coupler.frame_a),
                connect(self.world.frame_b, self.ground.frame_a),
                connect(self.ground.frame_b, self.j3.frame_a),
                connect(self.j3.frame_b, self.rocker.frame_a),
                connect(self.rocker.frame_b, self.j4.frame_a),
                connect(self.coupler.frame_b, self.j4.frame_b)]
'''


def test_cli_info_on_a_planar_loop_prints_the_advice_of_the_python_error(tmp_path, capsys):
    path = tmp_path / "fourbar.py"
    path.write_text(FOURBAR)
    fourbar = runpy.run_path(str(path))["Fourbar"]
    with raises(StructuralError, "kinematic loop closed by connect(coupler.frame_b, "
                "j4.frame_b)", "Replace one Revolute of the loop by "
                "RevolutePlanarLoopConstraint") as info:
        compile(fourbar())
    assert main(["info", f"{path}:Fourbar"]) == 1
    # the command line prints the Python error as it is, advice included
    assert capsys.readouterr().err.strip() == f"error: {info.value}"


# --------------------------------------------------------------------------------------------
# g. a joint with an unknown friction law
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("joint", [lambda law: jf3.RevoluteWithFriction(n=(0, 0, 1), law=law),
                                   lambda law: jf2.RevoluteWithFriction(law=law)],
                         ids=["3-D", "planar"])
def test_an_unknown_friction_law_names_the_joint_and_the_known_laws(joint):
    class Top(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            pin = joint("columb")
            self.pin = pin

    with raises(ModelDefinitionError, "RevoluteWithFriction 'pin'", "law='columb'",
                "Did you mean 'coulomb'?", "'lugre', 'coulomb', 'stribeck'"):
        Top()


def test_a_joint_stored_where_its_path_cannot_be_read_names_where_it_was_created():
    class Top(Component):
        def __init__(self, **kw):
            super().__init__(**kw)
            joints = {}
            joints["pin"] = jf3.RevoluteWithFriction(n=(0, 0, 1), law="stribek")
            self.pin = joints["pin"]

    with raises(ModelDefinitionError, "RevoluteWithFriction (created in", "Top.__init__", HERE,
                "law='stribek'", "Did you mean 'stribeck'?") as info:
        Top()
    assert "could not be read" not in str(info.value)


def test_the_friction_laws_listed_are_the_ones_accepted():
    with pytest.raises(ModelDefinitionError) as info:
        jf3.RevoluteWithFriction(n=(0, 0, 1), law="dahl")
    listed = re.findall(r"'(\w+)'", str(info.value).partition("one of")[2])
    assert listed == ["lugre", "coulomb", "stribeck"]
    for law in listed:
        assert jf3.RevoluteWithFriction(n=(0, 0, 1), law=law.upper())._law == law
