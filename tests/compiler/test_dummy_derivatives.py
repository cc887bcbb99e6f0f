"""Dummy-derivative state selection (acausal.compiler.structure.dummy_derivatives)."""

from __future__ import annotations

import pytest

from acausal import Component, Eq, Parameter, StructurallySingularError, Variable, compile, der
from acausal.compiler.flatten import flatten
from acausal.compiler.structure.alias import eliminate_aliases
from acausal.compiler.structure.dummy_derivatives import (
    select_dummy_derivatives,
    states_after_selection,
)
from acausal.compiler.structure.pantelides import pantelides
from acausal.compiler.structure.system import build_equation_system

NEAR_BOTTOM = 0.4  # |y| > |x|
NEAR_HORIZONTAL = 1.3  # |x| > |y|


def select(model, point_override=None):
    """Run alias elimination, Pantelides and dummy derivatives; return (system, dummies,
    state names)."""
    flat = flatten(model)
    system, _ = eliminate_aliases(build_equation_system(flat))
    pantelides(system)
    point = {v: float(i.start) for v, i in enumerate(system.info)
             if i is not None and i.start is not None}
    if point_override is not None:
        point = {v: point_override.get(system.name(v), 0.0) for v in range(system.n_vars)}
    params = {p.symbol: float(p.value) for p in flat.parameters}
    dummies = select_dummy_derivatives(system, point, params)
    states = states_after_selection(system, dummies)
    return system, dummies, sorted(system.name(v) for v in states)


def test_pendulum_near_the_bottom_keeps_x_and_vx(pendulum):
    system, dummies, states = select(pendulum(NEAR_BOTTOM))
    assert len(dummies) == 2
    assert states == ["vx", "x"]
    assert sorted(system.name(v) for v in dummies) == ["der(vy)", "vy"]


def test_pendulum_near_horizontal_keeps_y_and_vy(pendulum):
    system, dummies, states = select(pendulum(NEAR_HORIZONTAL, fixed=("y", "vy")))
    assert states == ["vy", "y"]
    assert sorted(system.name(v) for v in dummies) == ["der(vx)", "vx"]


def test_pendulum_on_the_left_side_is_symmetric(pendulum):
    _, _, states = select(pendulum(-NEAR_HORIZONTAL, fixed=("y", "vy")))
    assert states == ["vy", "y"]
    _, _, states = select(pendulum(-NEAR_BOTTOM))
    assert states == ["vx", "x"]


def test_pendulum_above_the_pivot(pendulum):
    _, _, states = select(pendulum(3.0))  # nearly upright: |y| > |x|
    assert states == ["vx", "x"]


def test_state_priority_on_y_overrides_the_numeric_choice(pendulum):
    model = pendulum(NEAR_BOTTOM, y=Variable(state_priority=10))
    system, dummies, states = select(model)
    assert states == ["vy", "y"]
    assert sorted(system.name(v) for v in dummies) == ["der(vx)", "vx"]


def test_state_priority_on_vy_also_counts(pendulum):
    # the priority of any member of a derivative chain steers the chain
    _, _, states = select(pendulum(NEAR_BOTTOM, vy=Variable(state_priority=5)))
    assert states == ["vy", "y"]


def test_state_priority_on_x_keeps_x_near_horizontal(pendulum):
    _, _, states = select(pendulum(NEAR_HORIZONTAL, x=Variable(state_priority=3)))
    assert states == ["vx", "x"]


def test_degenerate_start_point_falls_back_to_a_generic_point(pendulum):
    """All start values zero: the constraint Jacobian [2x, 2y] vanishes there, and the choice
    must still give two states."""
    system, dummies, states = select(pendulum(), point_override={})
    assert len(dummies) == 2
    assert states in (["vx", "x"], ["vy", "y"])


def test_compiled_pendulum_uses_the_selection(pendulum):
    cs = compile(pendulum(NEAR_HORIZONTAL, fixed=("y", "vy")))
    assert cs.n_states == 2
    assert sorted(cs.state_names) == ["vy", "y"]
    cs = compile(pendulum(NEAR_BOTTOM))
    assert sorted(cs.state_names) == ["vx", "x"]
    cs = compile(pendulum(NEAR_BOTTOM, y=Variable(state_priority=10)))
    assert sorted(cs.state_names) == ["vy", "y"]


def test_no_differentiated_equations_means_no_dummies():
    class Oscillator(Component):
        k = Parameter(4.0)
        s = Variable()
        v = Variable()

        def equations(self):
            return [Eq(der(self.s), self.v), Eq(der(self.v), -self.k * self.s)]

    system, dummies, states = select(Oscillator())
    assert dummies == set()
    assert states == ["s", "v"]


def test_linear_constraint_between_two_integrators():
    """der(a) = -a + u, der(b) = -b - u, a + b = 1: one of a, b is a dummy; the state is the
    one with the larger pivot (both equal here) or the higher priority."""

    class Pair(Component):
        a = Variable(start=0.3)
        b = Variable(start=0.7, state_priority=2)
        u = Variable()

        def equations(self):
            return [Eq(der(self.a), -self.a + self.u), Eq(der(self.b), -self.b - self.u),
                    Eq(self.a + self.b, 1)]

    system, dummies, states = select(Pair())
    assert states == ["b"]
    assert [system.name(v) for v in dummies] == ["der(a)"]


def test_redundant_constraints_are_structurally_singular():
    """Two pendulum constraints that say the same thing: no choice of dummies works."""

    class Redundant(Component):
        x = Variable(start=0.6)
        y = Variable(start=-0.8)
        vx = Variable()
        vy = Variable()
        lam = Variable()
        mu = Variable()

        def equations(self):
            return [Eq(der(self.x), self.vx), Eq(der(self.y), self.vy),
                    Eq(der(self.vx), -(self.lam + self.mu) * self.x),
                    Eq(der(self.vy), -(self.lam + self.mu) * self.y - 9.81),
                    Eq(self.x ** 2 + self.y ** 2, 1),
                    Eq(2 * self.x ** 2 + 2 * self.y ** 2, 2)]

    with pytest.raises(StructurallySingularError, match="equation 6 of Redundant"):
        select(Redundant())


def test_negative_priority_on_a_whole_chain_makes_it_the_dummy(pendulum):
    """Near horizontal y would be the state; negative priorities on y and vy hand it to x."""
    model = pendulum(NEAR_HORIZONTAL, y=Variable(state_priority=-1),
                     vy=Variable(state_priority=-1))
    _, _, states = select(model)
    assert states == ["vx", "x"]


def test_negative_priority_on_one_variable_makes_its_chain_the_dummy(pendulum):
    _, _, states = select(pendulum(NEAR_HORIZONTAL, y=Variable(state_priority=-1)))
    assert states == ["vx", "x"]


def test_large_levels_honour_priorities_over_the_whole_part(monkeypatch):
    # A level part larger than QR_SELECTION_LIMIT is chosen by a structural matching. A spatial
    # chain's joint angles have priority (Revolute: state_priority) and its rotation matrix
    # entries can be the dummies everywhere; a matching that honoured priorities only row by
    # row made joint angles of a 100-link chain dummies (and the chain a nonlinear DAE). Forced
    # onto that path here with 8 links.
    import acausal.compiler.structure.dummy_derivatives as dd
    from acausal.components.multibody.chains import SpatialChain

    monkeypatch.setattr(dd, "DENSE_SELECTION_LIMIT", 0)
    monkeypatch.setattr(dd, "QR_SELECTION_LIMIT", 0)
    n = 8
    cs = compile(SpatialChain(n=n))
    assert sorted(cs.state_names) == sorted(f"joints[{i}].{v}" for i in range(n)
                                            for v in ("phi", "w"))
