"""Linearisation and trim against analytic results.

* planar pendulum (point mass m on a massless rod of length L, planar library): about the
  hanging and the upright position A = [[0, 1], [-+g/L, 0]] exactly, eigenvalues +-i sqrt(g/L)
  and +-sqrt(g/L); a torque input at the pivot gives B = (0, 1/(m L^2));
* Cartesian pendulum (index-3 DAE: x, y, lambda; the compiler keeps y algebraic): the
  eliminated algebraic part gives the same eigenvalues, and trim finds the horizontal force
  that holds the mass at x: F = m g x / sqrt(L^2 - x^2);
* mass-spring-damper: A = [[0, 1], [-c/m, -d/m]], B = (0, 1/m), an output's C and D rows.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from pendulums import CartesianPendulum, G, L, M

from acausal import (
    Component,
    Discrete,
    Eq,
    Input,
    InputError,
    ModelDefinitionError,
    ParameterError,
    UnknownNameError,
    Variable,
    compile,
    connect,
    der,
)
from acausal.analysis.linearize import OperatingPoint, StateSpace
from acausal.components import rotational
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation
from acausal.components.translational import Damper, Force, Mass, Spring
from acausal.components.translational import Fixed as Wall


class Pendulum(Component):
    """Point mass on a massless rod, driven by a torque input at the pivot."""

    fixed = Fixed()
    revolute = Revolute(use_axis_flange=True)
    rod = FixedTranslation(r=[L, 0.0])
    body = Body(m=M, I=0.0, g=[0.0, -G])
    motor = rotational.Torque(tau=Input(0.0))

    def connections(self):
        return [connect(self.fixed.frame, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.body.frame_a),
                connect(self.motor.flange, self.revolute.flange_a)]


class Oscillator(Component):
    wall = Wall()
    spring = Spring(c=40.0)
    damper = Damper(d=1.5)
    mass = Mass(m=2.0, s=Variable(start=0.0, fixed=True), v=Variable(start=0.0, fixed=True))
    push = Force(f=Input(0.0))

    def connections(self):
        return [connect(self.wall.flange, self.spring.flange_a),
                connect(self.wall.flange, self.damper.flange_a),
                connect(self.spring.flange_b, self.mass.flange_a),
                connect(self.damper.flange_b, self.mass.flange_a),
                connect(self.push.flange, self.mass.flange_b)]


@pytest.fixture(scope="module")
def pendulum():
    return compile(Pendulum())


@pytest.fixture(scope="module")
def cartesian():
    return compile(CartesianPendulum())


@pytest.mark.parametrize("phi, sign", [(-math.pi / 2, -1.0), (math.pi / 2, 1.0)],
                         ids=["hanging", "upright"])
def test_planar_pendulum_A_B_analytic(pendulum, phi, sign):
    lin = pendulum.linearize(0.0, {"revolute.phi": phi, "revolute.w": 0.0},
                             outputs=["body.r[0]", "body.r[1]", "motor.tau"])
    assert isinstance(lin, StateSpace)
    assert lin.state_names == ["revolute.phi", "revolute.w"]
    assert lin.input_names == ["motor.tau"]
    a_exact = np.array([[0.0, 1.0], [sign * G / L, 0.0]])
    np.testing.assert_allclose(lin.A, a_exact, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lin.B, [[0.0], [1.0 / (M * L**2)]], rtol=0, atol=1e-9)
    # body.r = L (cos phi, sin phi): C = L (-sin phi, 0; cos phi, 0); the input as output: D = 1
    np.testing.assert_allclose(lin.C, [[-L * math.sin(phi), 0.0], [L * math.cos(phi), 0.0],
                                       [0.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(lin.D, [[0.0], [0.0], [1.0]], atol=1e-12)
    eig = np.sort_complex(lin.eigenvalues())
    root = math.sqrt(G / L)
    expected = [-1j * root, 1j * root] if sign < 0 else [-root, root]
    np.testing.assert_allclose(eig, np.sort_complex(np.array(expected, dtype=complex)),
                               atol=1e-9)


def test_trim_finds_the_holding_torque(pendulum):
    op = pendulum.trim(fixed={"revolute.phi": 0.3}, inputs=["motor.tau"])
    assert isinstance(op, OperatingPoint)
    assert op["motor.tau"] == pytest.approx(M * G * L * math.cos(0.3), rel=1e-10)
    assert op["revolute.phi"] == pytest.approx(0.3, abs=1e-12)
    assert np.max(np.abs(op.derivatives())) < 1e-10
    # linearised about it: phi'' = -(g/L) cos(phi) + tau/(m L^2), so d phi''/d phi = (g/L) sin(phi)
    lin = pendulum.linearize(0.0, op)
    assert lin.A[1, 0] == pytest.approx(G / L * math.sin(0.3), rel=1e-9)


@pytest.mark.parametrize("y0, stable", [(-0.6, True), (0.6, False)], ids=["hanging", "upright"])
def test_cartesian_pendulum_dae_eliminates_the_algebraic_part(cartesian, y0, stable):
    assert cartesian.algebraic_names  # a DAE: y is algebraic (IDA), eliminated by linearize
    op = cartesian.trim(fixed={"x": 0.0}, start={"y": y0})
    assert op["y"] == pytest.approx(math.copysign(L, y0), rel=1e-10)
    lin = cartesian.linearize(0.0, op, outputs=["lam", "y"])
    assert lin.state_names == ["x", "vx"]
    root = math.sqrt(G / L)
    s = -1.0 if stable else 1.0
    np.testing.assert_allclose(lin.A, [[0.0, 1.0], [s * G / L, 0.0]], atol=1e-9)
    np.testing.assert_allclose(lin.B, [[0.0], [1.0 / M]], atol=1e-12)
    eig = np.sort_complex(lin.eigenvalues())
    expected = [-1j * root, 1j * root] if stable else [-root, root]
    np.testing.assert_allclose(eig, np.sort_complex(np.array(expected, dtype=complex)), atol=1e-9)
    # lam = m g / |y| ... depends on x only to second order: zero C row at x = 0
    np.testing.assert_allclose(lin.C, np.zeros((2, 2)), atol=1e-9)


def test_cartesian_trim_with_a_free_input(cartesian):
    x = 0.3
    op = cartesian.trim(fixed={"x": x}, inputs=["F"], start={"y": -0.6})
    assert op["F"] == pytest.approx(M * G * x / math.sqrt(L**2 - x**2), rel=1e-9)
    assert op["y"] == pytest.approx(-math.sqrt(L**2 - x**2), rel=1e-9)


def test_states_chosen_where_the_point_needs_them(cartesian):
    """At the horizontal position x cannot be a state (x^2 + y^2 = L^2 has no solution for y
    near x = L as a function of x): the realisation with y, vy is taken."""
    lin = cartesian.linearize(0.0, {"x": L, "vx": 0.0})
    assert lin.state_names == ["y", "vy"]
    assert lin.operating_point["x"] == pytest.approx(L, rel=1e-9)


def test_mass_spring_damper_state_space():
    system = compile(Oscillator())
    lin = system.linearize(outputs=["spring.f", "mass.a", "push.f"])
    m, c, d = 2.0, 40.0, 1.5
    assert lin.state_names == ["mass.s", "mass.v"]
    np.testing.assert_allclose(lin.A, [[0, 1], [-c / m, -d / m]], atol=1e-14)
    np.testing.assert_allclose(lin.B, [[0], [1 / m]], atol=1e-14)
    # spring.f = c (s_b - s_a) (tension positive); mass.a = der(v); push.f passes through
    np.testing.assert_allclose(lin.C, [[c, 0], [-c / m, -d / m], [0, 0]], atol=1e-14)
    np.testing.assert_allclose(lin.D, [[0], [1 / m], [1]], atol=1e-14)
    # any parameter can serve as an input: d(der(v))/d c = -s/m = 0 at s = 0
    lin2 = system.linearize(0.0, np.array([0.1, 0.0]), inputs=["spring.c", "push.f"])
    np.testing.assert_allclose(lin2.B, [[0, 0], [-0.1 / m, 1 / m]], atol=1e-14)
    text = str(lin2)
    assert "eigenvalues" in text and "spring.c" in text
    # scipy interoperability: the DC gain of s -> f is 1/c
    ss = lin.to_scipy()
    assert -ss.C[0] @ np.linalg.solve(ss.A, ss.B[:, 0]) == pytest.approx(1.0, rel=1e-12)


def test_without_states_drops_only_free_integrators():
    lin = compile(Oscillator()).linearize()
    with pytest.raises(InputError, match="mass.v"):
        lin.without_states(["mass.s"])  # der(mass.v) depends on mass.s through the spring


def test_errors_name_what_is_wrong(pendulum, cartesian):
    with pytest.raises(UnknownNameError, match="Torque\\(tau=Input\\(\\)\\)"):
        pendulum.linearize(inputs=["motor.torque"])
    with pytest.raises(InputError, match=r"inputs=\['motor.tau'\]"):
        pendulum.linearize(inputs="motor.tau")
    with pytest.raises(UnknownNameError, match="body.r"):
        pendulum.linearize(outputs=["body.rr"])
    with pytest.raises(InputError, match="2 states"):
        pendulum.linearize(0.0, [0.0, 0.0, 1.0])
    with pytest.raises(UnknownNameError, match="revolute.phi"):
        pendulum.trim(steady=["revolute.ph"])
    with pytest.raises(ParameterError, match="structural"):
        pendulum.linearize(inputs=["revolute.use_axis_flange"])
    from acausal import InitializationError
    with pytest.raises(InitializationError, match="steady state"):
        # no steady state with the mass held off the vertical and no free input
        cartesian.trim(fixed={"x": 0.3})


def test_discrete_variable_is_not_an_input():
    class Switched(Component):
        k = Discrete(start=1.0)
        x = Variable(start=1.0, fixed=True)

        def equations(self):
            return [Eq(der(self.x), -self.k * self.x)]

    with pytest.raises(ParameterError, match="discrete"):
        compile(Switched()).linearize(inputs=["k"])


def test_inputs_marked_at_creation():
    system = compile(Pendulum())
    assert system.input_names == ["motor.tau"]
    sol = system.simulate(0.2, params={"motor.tau": 0.5})  # an input is set like a parameter
    assert np.isfinite(sol["revolute.phi"][-1])
    with pytest.raises(ModelDefinitionError, match="vector variable"):
        compile(Body(r=Input()))
    with pytest.raises(ModelDefinitionError, match="part or connector"):
        compile(Mass(flange_a=Input()))


def test_a_parameter_marked_as_input():
    class Spin(Component):
        inertia = rotational.Inertia(J=2.0, w=Variable(start=0.0, fixed=True))
        drive = rotational.ConstantTorque(tau_constant=Input(3.0))

        def connections(self):
            return [connect(self.drive.flange, self.inertia.flange_a)]

    system = compile(Spin())
    assert system.input_names == ["drive.tau_constant"]
    assert system.parameters()["drive.tau_constant"] == 3.0
    lin = system.linearize(outputs=["inertia.a"])
    np.testing.assert_allclose(lin.D, [[1.0 / 2.0]], atol=1e-14)  # a = tau / J
