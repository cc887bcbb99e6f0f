"""Overdetermined connectors and the virtual connection graph, on small hand-made graphs.

No mechanics: the record is a unit vector ``u = (cos a, sin a)`` in the plane (2 numbers, 1
freedom) whose residue for two records is the sine of the angle between them. ``Source`` fixes
it (a root), ``Turn`` rotates it by a fixed angle (a branch), ``Free`` carries its own heading
(a potential root).
"""

import math

import numpy as np
import pytest
import sympy as sp

from acausal import (
    Component,
    Connector,
    Eq,
    ModelDefinitionError,
    Overdetermined,
    Parameter,
    Potential,
    Variable,
    branch,
    compile,
    connect,
    is_root,
    potential_root,
    root,
    rooted,
)
from acausal.compiler.flatten import flatten


def heading_residue(a, b):
    ua, ub = a["u"], b["u"]
    return [ua[0] * ub[1] - ua[1] * ub[0]]


class Heading(Connector):
    u = Potential(shape=2)
    overdetermined = Overdetermined("u", residue=heading_residue,
                                    loop_hint="replace one Turn by a Hinge")


def rotated(u, angle):
    c, s = sp.cos(angle), sp.sin(angle)
    return sp.Matrix([c * u[0] - s * u[1], s * u[0] + c * u[1]])


class Source(Component):
    angle = Parameter(0.0, unit="rad")
    out = Heading()

    def connections(self):
        return [root(self.out)]

    def equations(self):
        return [Eq(self.out.u, sp.Matrix([sp.cos(self.angle), sp.sin(self.angle)]))]


class Turn(Component):
    """b = R(delta) a, written from whichever end is nearer the root."""

    delta = Parameter(0.5, unit="rad")
    a = Heading()
    b = Heading()

    def connections(self):
        return [branch(self.a, self.b)]

    def equations(self):
        if rooted(self.a):
            return [Eq(self.b.u, rotated(self.a.u, self.delta))]
        return [Eq(self.a.u, rotated(self.b.u, -self.delta))]


class Hinge(Turn):
    """A turn by a free angle: the loop closure determines it."""

    delta = Variable(guess=0.1, unit="rad")


class Free(Component):
    """Carries its own heading angle when it is the root of its part."""

    heading = Variable(guess=0.2, unit="rad")
    priority = Parameter(0, structural=True)
    a = Heading()

    def connections(self):
        return [potential_root(self.a, self.priority)]

    def equations(self):
        if is_root(self.a):
            return [Eq(self.a.u, sp.Matrix([sp.cos(self.heading), sp.sin(self.heading)])),
                    Eq(self.heading, 0.3)]
        return [Eq(self.heading, 0.3)]


class Ring(Component):
    """source -> t1 -> t2 -> hinge -> back to the source: a loop with one freedom (the hinge
    angle), closed by the last connect statement."""

    def __init__(self, n_turns=2, **kw):
        super().__init__(**kw)
        self.source = Source(angle=0.2)
        self.turns = [Turn(delta=0.4 + 0.1 * i) for i in range(n_turns)]
        self.hinge = Hinge()

    def connections(self):
        chain = [self.source.out] + [x for t in self.turns for x in (t.a, t.b)] \
            + [self.hinge.a, self.hinge.b]
        out = [connect(chain[0], chain[1])]
        out += [connect(chain[i], chain[i + 1]) for i in range(2, len(chain) - 1, 2)]
        out.append(connect(self.hinge.b, self.source.out))  # closes the loop
        return out


def residues(flat):
    return [e for e in flat.equations if e.label.startswith("loop closure")]


def test_a_loop_is_closed_by_one_residue_and_the_free_angle_follows():
    flat = flatten(Ring())
    loops = residues(flat)
    assert len(loops) == 1  # one residue equation (1 freedom), not 2 element-wise equalities
    assert "hinge.b" in loops[0].label and "source.out" in loops[0].label
    # from the closing connect's first end round to its second
    assert [lp.components for lp in flat.loops] == [["hinge", "turns[1]", "turns[0]"]]
    cs = compile(Ring())
    sol = cs.simulate(0.1)
    # the three turns add up to a whole number of revolutions
    total = 0.4 + 0.5 + sol["hinge.delta"][0]
    assert math.sin(total) == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_allclose(sol["hinge.b.u"][:, 0], [math.cos(0.2), math.sin(0.2)],
                               atol=1e-10)


def test_branches_are_oriented_away_from_the_root():
    model = Ring(n_turns=3)
    flatten(model)
    assert model.source.out._graph_root is True
    assert all(not c._graph_root for t in model.turns for c in (t.a, t.b))
    # the tree runs source -> turns[0] -> ... -> hinge: every 'a' end is nearer the root
    assert all(rooted(t.a) for t in model.turns)


class RingRootedInTheMiddle(Ring):
    """The same ring, its root reached through the closing connect: turns after the root in
    connect order see the root at their 'b' end."""

    def connections(self):
        return [connect(self.hinge.b, self.source.out),
                connect(self.turns[1].b, self.hinge.a),
                connect(self.turns[0].b, self.turns[1].a),
                connect(self.source.out, self.turns[0].a)]  # now this one closes the loop


def test_the_last_connect_closes_the_loop_and_orientation_follows_the_tree():
    model = RingRootedInTheMiddle()
    flat = flatten(model)
    [loop] = flat.loops
    assert (loop.a.path, loop.b.path) == ("source.out", "turns[0].a")
    assert not rooted(model.turns[0].a) and not rooted(model.turns[1].a)
    sol = compile(RingRootedInTheMiddle()).simulate(0.1)
    assert math.sin(0.4 + 0.5 + sol["hinge.delta"][0]) == pytest.approx(0.0, abs=1e-10)


def test_a_repeated_connect_adds_no_residue():
    class Twice(Ring):
        def connections(self):
            return [*super().connections(), connect(self.source.out, self.turns[0].a)]

    assert len(residues(flatten(Twice()))) == 1


def test_potential_root_with_the_smallest_priority_is_chosen():
    class Pair(Component):
        first = Free(priority=2)
        second = Free(priority=1)

        def connections(self):
            return [connect(self.first.a, self.second.a)]

    model = Pair()
    flat = flatten(model)
    assert not model.first.a._graph_root and model.second.a._graph_root
    assert not residues(flat)
    sol = compile(Pair()).simulate(0.1)
    np.testing.assert_allclose(sol["first.a.u"][:, 0], [math.cos(0.3), math.sin(0.3)])


def test_equal_priorities_choose_the_first_in_declaration_order():
    class Pair(Component):
        first = Free()
        second = Free()

        def connections(self):
            return [connect(self.second.a, self.first.a)]

    model = Pair()
    flatten(model)
    assert model.first.a._graph_root and not model.second.a._graph_root


def test_a_part_without_root_is_reported_by_its_connectors():
    class Floating(Component):
        turn = Turn()

    with pytest.raises(ModelDefinitionError, match=r"'turn\.a', 'turn\.b'.*no root"):
        flatten(Floating())


def test_two_roots_joined_by_connects_close_a_loop_through_the_ground():
    class Between(Component):
        """A hinge between two fixed headings: the closing connect determines its angle."""

        s1 = Source(angle=0.1)
        s2 = Source(angle=0.7)
        hinge = Hinge()

        def connections(self):
            return [connect(self.s1.out, self.hinge.a), connect(self.hinge.b, self.s2.out)]

    model = Between()
    flat = flatten(model)
    assert model.s1.out._graph_root and model.s2.out._graph_root
    [loop] = flat.loops
    assert (loop.a.path, loop.b.path) == ("hinge.b", "s2.out")
    sol = compile(Between()).simulate(0.1)
    assert math.sin(0.1 + sol["hinge.delta"][0] - 0.7) == pytest.approx(0.0, abs=1e-10)


def test_two_roots_in_one_rigid_part_are_reported_by_name():
    class DoubleRooted(Component):
        a = Heading()
        b = Heading()

        def connections(self):
            return [root(self.a), root(self.b), branch(self.a, self.b)]

    with pytest.raises(ModelDefinitionError, match=r"Two roots.*'d\.a' and 'd\.b'"):
        class Model(Component):
            d = DoubleRooted()

        flatten(Model())


def test_a_loop_of_branches_alone_is_an_error():
    class Closed(Component):
        """Two turns whose branches join the same two connectors inside one component."""

        a = Heading()
        b = Heading()

        def connections(self):
            return [branch(self.a, self.b), branch(self.b, self.a)]

    class Model(Component):
        s = Source()
        c = Closed()

        def connections(self):
            return [connect(self.s.out, self.c.a)]

    with pytest.raises(ModelDefinitionError, match="loop of rigid"):
        flatten(Model())


def test_graph_statements_need_an_overdetermined_connector():
    from acausal.components.translational import Flange

    with pytest.raises(ModelDefinitionError, match="overdetermined record"):
        root(Flange())


def test_is_root_is_unknown_before_the_graph_is_built():
    with pytest.raises(ModelDefinitionError, match="equations"):
        is_root(Heading())
