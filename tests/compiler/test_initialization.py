"""Consistent initialisation (acausal.run.initialize) through compile + simulate."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import (
    Component,
    Connector,
    Eq,
    Flow,
    InitializationError,
    Parameter,
    Potential,
    Variable,
    compile,
    connect,
    der,
)

G = 9.81


def on_circle(sol, L=1.0, tol=1e-8):
    return np.max(np.abs(sol["x"] ** 2 + sol["y"] ** 2 - L ** 2)) < tol


def short(cs, **kw):
    return cs.simulate(0.1, n_points=11, rtol=1e-8, atol=1e-10, **kw)


class Flange(Connector):
    """1-D flange: position ``s``, force ``f``."""

    s = Potential(unit="m")
    f = Flow(unit="N")


class Body(Component):
    """``s = flange.s``; ``der(s) = v``; ``m der(v) = flange.f``."""

    m = Parameter(1.0)
    flange = Flange()
    s = Variable()
    v = Variable()

    def equations(self):
        return [Eq(self.s, self.flange.s), Eq(der(self.s), self.v),
                Eq(self.m * der(self.v), self.flange.f)]


class Spring(Component):
    """Spring anchored at the origin: ``flange.f = c flange.s`` (the body pulls it)."""

    c = Parameter(4.0)
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.f, self.c * self.flange.s)]


class Oscillator(Component):
    body = Body()
    spring = Spring()

    def connections(self):
        return [connect(self.body.flange, self.spring.flange)]


# --------------------------------------------------------------------------------------------
# Start values of dummy derivatives and eliminated aliases are guesses
# --------------------------------------------------------------------------------------------


def test_start_on_a_dummy_derivative_is_a_guess(pendulum):
    """Near the bottom vy is a dummy derivative; a (wrong) start value for it must not be
    imposed: vy follows from the velocity constraint x vx + y vy = 0."""
    model = pendulum(0.5, fixed=("x", "vx"), vx=Variable(start=1.0),
                     vy=Variable(start=5.0))
    cs = compile(model)
    assert "vy" in {cs.system.name(v) for v in cs.dummies}
    sol = short(cs)
    x0, y0, vx0 = math.sin(0.5), -math.cos(0.5), 1.0
    assert sol["x"][0] == pytest.approx(x0)
    assert sol["vx"][0] == pytest.approx(vx0)
    assert sol["y"][0] == pytest.approx(y0)
    assert sol["vy"][0] == pytest.approx(-x0 * vx0 / y0)  # not 5
    assert on_circle(sol)


def test_start_on_the_algebraic_y_is_a_guess_that_picks_the_root(pendulum):
    """y is not a state near the bottom: its start only chooses the branch of the circle."""
    below = short(compile(pendulum(0.5)))
    above = short(compile(pendulum(0.5, y=Variable(start=+0.8))))
    assert below["y"][0] == pytest.approx(-math.cos(0.5))
    assert above["y"][0] == pytest.approx(+math.cos(0.5))
    assert on_circle(below) and on_circle(above)


def test_starts_on_eliminated_aliases_are_guesses():
    """body.s, body.flange.s and spring.flange.s are one variable; different non-fixed starts
    on them conflict with nothing."""

    class M(Oscillator):
        body = Body(s=Variable(start=0.5, fixed=True), flange=Flange(s=0.9, f=3.0))
        spring = Spring(flange=Flange(s=-2.0, f=7.0))

    cs = compile(M())
    sol = cs.simulate(1.0, n_points=11, rtol=1e-10, atol=1e-12)
    # the fixed start wins; s = 0.5 cos(2 t)
    assert sol["body.s"] == pytest.approx(0.5 * np.cos(2 * sol.t), abs=1e-7)
    assert np.array_equal(sol["body.flange.s"], sol["body.s"])
    assert np.array_equal(sol["spring.flange.s"], sol["body.s"])
    assert sol["spring.flange.f"] == pytest.approx(4.0 * sol["body.s"])
    assert np.array_equal(sol["body.flange.f"], -sol["spring.flange.f"])


def test_start_on_an_alias_of_an_unfixed_state_is_its_initial_value():
    """Nothing fixes the state: its start (given on an alias) is the initial value."""

    class M(Oscillator):
        body = Body(v=Variable(start=0.0, fixed=True), flange=Flange(s=0.25))

    sol = compile(M()).simulate(1.0, n_points=11, rtol=1e-10, atol=1e-12)
    assert sol["body.s"][0] == pytest.approx(0.25)
    assert sol["body.s"] == pytest.approx(0.25 * np.cos(2 * sol.t), abs=1e-7)
    assert "body.s" in sol.defaulted_states


def test_start_on_an_alias_with_opposite_sign():
    class M(Oscillator):
        body = Body(s=Variable(start=0.5, fixed=True), v=Variable(start=0.0, fixed=True))
        spring = Spring(flange=Flange(f=100.0))  # a guess for -body.flange.f only

    sol = compile(M()).simulate(0.5, n_points=6)
    assert sol["spring.flange.f"][0] == pytest.approx(2.0)
    assert sol["body.flange.f"][0] == pytest.approx(-2.0)


# --------------------------------------------------------------------------------------------
# fixed=True on a dummy derivative, over-specification
# --------------------------------------------------------------------------------------------


def test_fixed_on_a_dummy_works(pendulum):
    """Fix y (a dummy near the bottom) instead of x: x follows from the constraint, on the
    side of its start value."""
    model = pendulum(0.5, fixed=("y", "vx"), y=Variable(start=-0.8))
    cs = compile(model)
    assert sorted(cs.state_names) == ["vx", "x"]
    sol = short(cs)
    assert sol["y"][0] == pytest.approx(-0.8, abs=1e-10)
    assert sol["x"][0] == pytest.approx(0.6, abs=1e-10)
    assert sol["vx"][0] == 0.0
    assert on_circle(sol)
    e = 0.5 * (sol["vx"] ** 2 + sol["vy"] ** 2) + G * sol["y"]
    assert np.max(np.abs(e - e[0])) < 1e-6


def test_fixed_on_a_dummy_velocity_works(pendulum):
    """Fix vy (a dummy) and x: vx follows from x vx + y vy = 0."""
    model = pendulum(0.5, fixed=("x", "vy"), x=Variable(start=0.6), y=Variable(start=-0.8),
                     vy=Variable(start=0.3))
    sol = short(compile(model))
    assert sol["vy"][0] == pytest.approx(0.3)
    assert sol["vx"][0] == pytest.approx(0.8 * 0.3 / 0.6)
    assert on_circle(sol)


def test_inconsistent_over_specification_raises_naming_the_fixed_values(pendulum):
    model = pendulum(0.5, fixed=("x", "y", "vx"), x=Variable(start=0.6),
                     y=Variable(start=-0.9))
    cs = compile(model)
    with pytest.raises(InitializationError) as info:
        short(cs)
    text = str(info.value)
    assert "x = 0.6" in text
    assert "y = -0.9" in text


def test_consistent_over_specification_is_accepted(pendulum):
    model = pendulum(0.5, fixed=("x", "y", "vx"), x=Variable(start=0.6),
                     y=Variable(start=-0.8))
    sol = short(compile(model))
    assert sol["x"][0] == pytest.approx(0.6)
    assert sol["y"][0] == pytest.approx(-0.8)
    assert on_circle(sol)


def test_consistent_over_specified_velocities_are_accepted(pendulum):
    model = pendulum(0.5, fixed=("x", "vx", "vy"), x=Variable(start=0.6),
                     y=Variable(start=-0.8), vx=Variable(start=0.8), vy=Variable(start=0.6))
    sol = short(compile(model))
    assert (sol["vx"][0], sol["vy"][0]) == pytest.approx((0.8, 0.6))


def test_inconsistent_over_specified_velocities_raise(pendulum):
    model = pendulum(0.5, fixed=("x", "vx", "vy"), x=Variable(start=0.6),
                     y=Variable(start=-0.8), vx=Variable(start=0.8), vy=Variable(start=0.0))
    with pytest.raises(InitializationError) as info:
        short(compile(model))
    assert "vx = 0.8" in str(info.value) and "vy = 0" in str(info.value)


def test_fixed_value_off_the_circle_raises(pendulum):
    """|x| > L: no y satisfies the constraint."""
    model = pendulum(0.5, fixed=("x", "vx"), x=Variable(start=1.5))
    with pytest.raises(InitializationError):
        short(compile(model))


# --------------------------------------------------------------------------------------------
# Initial equations and defaults
# --------------------------------------------------------------------------------------------


def test_initial_equation_for_a_steady_state():
    class Loaded(Component):
        """m der(v) = F - c s - d v with der(v) = 0 and v = 0 at the start: s = F / c."""

        F = Parameter(3.0)
        c = Parameter(4.0)
        d = Parameter(1.0)
        s = Variable(start=0.0)
        v = Variable(start=0.0, fixed=True)

        def equations(self):
            return [Eq(der(self.s), self.v),
                    Eq(der(self.v), self.F - self.c * self.s - self.d * self.v)]

        def initial_equations(self):
            return [Eq(der(self.v), 0)]

    sol = compile(Loaded()).simulate(2.0, n_points=5)
    assert sol["s"] == pytest.approx([0.75] * 5, abs=1e-6)
    assert sol.defaulted_states == []


def test_states_without_start_values_start_at_zero():
    class Free(Component):
        x = Variable()

        def equations(self):
            return [Eq(der(self.x), 1)]

    sol = compile(Free()).simulate(1.0, n_points=3)
    assert sol["x"] == pytest.approx([0.0, 0.5, 1.0])
    assert sol.defaulted_states == ["x"]


def test_initialisation_with_parameters_overridden(pendulum):
    model = pendulum(0.5, fixed=("x", "vx"), x=Variable(start=0.6), y=Variable(start=-0.8))
    sol = short(compile(model), params={"L": 2.0})
    assert sol["x"][0] == pytest.approx(0.6)
    assert sol["y"][0] == pytest.approx(-math.sqrt(4.0 - 0.36))
    assert on_circle(sol, L=2.0)


def test_initial_equations_on_derivatives_only():
    """Steady state from der(s) = 0 and der(v) = 0 (der(s) is an alias of v)."""

    class Loaded(Component):
        F = Parameter(3.0)
        c = Parameter(4.0)
        d = Parameter(1.0)
        s = Variable()
        v = Variable()

        def equations(self):
            return [Eq(der(self.s), self.v),
                    Eq(der(self.v), self.F - self.c * self.s - self.d * self.v)]

        def initial_equations(self):
            return [Eq(der(self.s), 0), Eq(der(self.v), 0)]

    sol = compile(Loaded()).simulate(2.0, n_points=5, params={"F": 2.0})
    assert sol["s"] == pytest.approx([0.5] * 5, abs=1e-9)
    assert sol["v"] == pytest.approx([0.0] * 5, abs=1e-9)


def test_initial_equation_on_a_connector_alias():
    class Start(Oscillator):
        def initial_equations(self):
            return [Eq(self.spring.flange.f, 1.0), Eq(self.body.v, 0)]  # spring force c s = 1

    sol = compile(Start()).simulate(1.0, n_points=11, rtol=1e-10, atol=1e-12)
    assert sol["body.s"] == pytest.approx(0.25 * np.cos(2 * sol.t), abs=1e-7)


@pytest.mark.parametrize("where, value", [("spring", 1.0), ("body", -1.0)])
def test_fixed_start_on_a_connector_alias_with_sign(where, value):
    """spring.flange.f = -body.flange.f = c body.s: fixing either force fixes body.s."""
    fixed_force = Flange(f=Variable(start=value, fixed=True))

    class M(Oscillator):
        body = Body(v=Variable(start=0.0, fixed=True),
                    **({"flange": fixed_force} if where == "body" else {}))
        spring = Spring(**({"flange": fixed_force} if where == "spring" else {}))

    sol = compile(M()).simulate(1.0, n_points=11, rtol=1e-10, atol=1e-12)
    assert sol["body.s"] == pytest.approx(0.25 * np.cos(2 * sol.t), abs=1e-7)
    assert sol[f"{where}.flange.f"][0] == pytest.approx(value)


def test_guess_is_used_by_initialisation_only(pendulum):
    """A guess picks the upper root of the constraint; it is never an initial condition."""
    sol = short(compile(pendulum(0.5, y=Variable(guess=0.7))))
    assert sol["y"][0] == pytest.approx(math.cos(0.5))
    assert sol["x"][0] == pytest.approx(math.sin(0.5))


def test_a_regular_newton_step_is_the_lu_solve_and_a_singular_one_least_squares():
    """``newton(regular=True)`` (the algebraic part after events) takes its step by LU; where
    the pivots say the matrix is numerically singular, the least-squares (minimum-norm) step,
    as without ``regular``."""
    from acausal.run.initialize import _dense_step

    rng = np.random.default_rng(5)
    a = rng.uniform(-1.0, 1.0, (6, 6)) + 4.0 * np.eye(6)
    b = rng.uniform(-1.0, 1.0, 6)
    np.testing.assert_allclose(_dense_step(a, b, True), np.linalg.solve(a, b), rtol=1e-12)
    singular = a.copy()
    singular[5] = singular[4]  # two equal rows: rank 5
    rhs = b.copy()
    rhs[5] = rhs[4]  # consistent: a line of solutions
    least = np.linalg.lstsq(singular, rhs, rcond=None)[0]
    np.testing.assert_allclose(_dense_step(singular, rhs, True), least, rtol=1e-9)
    np.testing.assert_allclose(_dense_step(singular, rhs, False), least, rtol=1e-9)
