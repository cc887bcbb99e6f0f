"""A forgotten connect is named as such (issue 40, point 1).

Each case is a newcomer's model with one connect left out. The message must name the open
connector (and where it could go) or the missing root, lead with it, and never tell the user to
edit an equation inside a library part. Models that leave a connector open on purpose (the
tutorial's revolute flange, a free body beside the world) get no such warning.
"""

from __future__ import annotations

import warnings

import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import rotational, translational
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, FixedTranslation
from acausal.components.planar.wheels import OneDOFSlippingWheelJoint
from acausal.errors import (
    ConnectionWarning,
    OverdeterminedError,
    StructuralError,
    UnderdeterminedError,
)

CONTACT = {"radius": 0.2, "vAdhesion_min": 0.05, "vSlide_min": 0.15, "sAdhesion": 0.04,
           "sSlide": 0.12, "mu_A": 0.8, "mu_S": 0.4}


def fixed(value: float) -> Variable:
    return Variable(start=value, fixed=True)


class SegwayParts(Component):
    """The tutorial's falling segway (docs/tutorial_segway.md, step 2) ..."""

    wheel_body = Body(m=2.0, I=0.04)
    wheel = OneDOFSlippingWheelJoint(**CONTACT, x=fixed(0.0), v=fixed(0.0), phi_roll=fixed(0.0),
                                     w_roll=fixed(0.0))
    revolute = Revolute(use_axis_flange=True, phi=fixed(0.05), w=fixed(0.0))
    rod = FixedTranslation(r=[0.0, 0.6])
    body = Body(m=20.0, I=1.5)

    def connections(self):
        return [connect(self.wheel_body.frame_a, self.wheel.frame_a),
                connect(self.wheel_body.frame_a, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a)]


class Segway(SegwayParts):
    def connections(self):
        return super().connections() + [connect(self.rod.frame_b, self.body.frame_a)]


def _no_equation_blamed(message: str) -> None:
    """The lead is the connection; the equation detail comes after, without 'remove it'."""
    assert message.startswith("A connection seems to be missing.")
    assert "remove it" not in message and "remove one" not in message
    assert "do not edit them" in message


def test_planar_segway_without_rod_to_body():
    """... with connect(rod.frame_b, body.frame_a) left out: the alias pass found one of the
    rod's equations redundant and told the user to remove it."""
    with pytest.raises(OverdeterminedError) as info:
        compile(SegwayParts())
    message = str(info.value)
    _no_equation_blamed(message)
    assert "rod.frame_b (Frame of FixedTranslation 'rod')" in message
    assert "body.frame_a" in message and "'body' is connected to nothing" in message
    assert "connect(rod.frame_b, body.frame_a)" in message


def test_spatial_revolute_not_connected_to_the_world():
    from acausal.components.multibody import Body as Body3
    from acausal.components.multibody import Revolute as Revolute3
    from acausal.components.multibody import World

    class Pendulum(Component):
        world = World()
        rev = Revolute3(n=[0, 0, 1])
        body = Body3(m=1.0, r_CM=[0.5, 0, 0])

        def connections(self):
            return [connect(self.rev.frame_b, self.body.frame_a)]  # world.frame_b forgotten

    with pytest.raises(StructuralError) as info:
        compile(Pendulum())
    message = str(info.value)
    _no_equation_blamed(message)
    assert "not connected to the world" in message
    assert "connect(rev.frame_a, world.frame_b)" in message
    # the lead comes before the equation that the matching stopped at
    assert message.index("world.frame_b") < message.index("equation 24 of Revolute 'rev'")


def test_motor_without_a_connection():
    class Drive(Component):
        torque = rotational.Torque()
        inertia = rotational.Inertia(J=0.1, phi=fixed(0.0), w=fixed(0.0))

        def connections(self):
            return []  # connect(torque.flange, inertia.flange_a) forgotten

    with pytest.raises(UnderdeterminedError) as info:
        compile(Drive())
    message = str(info.value)
    _no_equation_blamed(message)
    assert "torque.flange (Flange of Torque 'torque')" in message
    assert "connect(torque.flange, inertia.flange_a)" in message


def _connection_warnings(model: Component) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compile(model)
    return [str(w.message) for w in caught if issubclass(w.category, ConnectionWarning)]


def test_one_d_gear_output_left_open():
    """A drive train (torque, inertia, gear, inertia, spring, inertia) with the gear's output
    not connected: the train's second half has no start values of its own, so the count comes
    out one short, and the message leads with the gear's open flange and where it goes."""

    class Train(Component):
        torque = rotational.Torque()
        j1 = rotational.Inertia(J=0.1, phi=fixed(0.0), w=fixed(0.0))
        gear = rotational.IdealGear(ratio=3.0)
        j2 = rotational.Inertia(J=0.2)
        spring = rotational.Spring(c=100.0)
        j3 = rotational.Inertia(J=0.3, phi=fixed(0.0), w=fixed(0.0))

        def connections(self):
            return [connect(self.torque.flange, self.j1.flange_a),
                    connect(self.j1.flange_b, self.gear.flange_a),
                    # connect(self.gear.flange_b, self.j2.flange_a) forgotten
                    connect(self.j2.flange_b, self.spring.flange_a),
                    connect(self.spring.flange_b, self.j3.flange_a)]

    with pytest.raises(UnderdeterminedError) as info:
        compile(Train())
    message = str(info.value)
    _no_equation_blamed(message)
    assert "gear.flange_b (Flange of IdealGear 'gear')" in message
    assert "connect(gear.flange_b, j2.flange_a)" in message


def test_one_d_damper_end_left_open():
    """It compiles, but the damper with an open end transmits nothing: a warning names it."""

    class Suspension(Component):
        wall = translational.Fixed()
        spring = translational.Spring(c=100.0)
        damper = translational.Damper(d=1.0)
        mass = translational.Mass(m=1.0, s=fixed(0.1), v=fixed(0.0))

        def connections(self):
            return [connect(self.wall.flange, self.spring.flange_a),
                    connect(self.spring.flange_b, self.mass.flange_a),
                    connect(self.damper.flange_b, self.mass.flange_a)]
            # connect(self.wall.flange, self.damper.flange_a) forgotten

    found = _connection_warnings(Suspension())
    assert len(found) == 1, found
    assert found[0].startswith("damper.flange_a of Damper 'damper' is not connected")


def test_wall_without_its_spring():
    class Oscillator(Component):
        wall = translational.Fixed()
        spring = translational.Spring(c=100.0)
        mass = translational.Mass(m=1.0, s=fixed(0.1), v=fixed(0.0))

        def connections(self):
            return [connect(self.mass.flange_a, self.spring.flange_b)]
            # connect(self.wall.flange, self.spring.flange_a) forgotten

    found = _connection_warnings(Oscillator())
    assert len(found) == 2, found
    assert any("Fixed 'wall' is connected to nothing (open: wall.flange)" in m for m in found)
    assert any(m.startswith("spring.flange_a of Spring 'spring' is not connected")
               for m in found)
    # the mass is not blamed: its force is zero only because the spring hangs free
    assert not any("'mass'" in m for m in found)


def test_connectors_left_open_on_purpose_do_not_warn():
    """The tutorial's segway leaves the revolute's flange open (zero torque) and the rod's
    other end has the body: no warning. A free body beside a world is no mistake either."""
    assert _connection_warnings(Segway()) == []
    from acausal.components.multibody import Body as Body3
    from acausal.components.multibody import World

    class Falling(Component):
        world = World()
        body = Body3(m=1.0)

    assert _connection_warnings(Falling()) == []


def test_error_without_an_open_connector_is_left_as_it_was():
    """An over-determined user equation in a fully connected model: no connection advice."""
    from acausal import Eq

    class Pinned(Component):
        wall = translational.Fixed()
        spring = translational.Spring(c=100.0)
        mass = translational.Mass(m=1.0, s=fixed(0.1), v=fixed(0.0))

        def connections(self):
            return [connect(self.wall.flange, self.spring.flange_a),
                    connect(self.spring.flange_b, self.mass.flange_a)]

        def equations(self):
            return [Eq(self.spring.f, 0.0)]

    with pytest.raises(StructuralError) as info:
        compile(Pinned())
    assert "A connection seems to be missing" not in str(info.value)
