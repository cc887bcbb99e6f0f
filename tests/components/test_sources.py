"""1-D kinematic sources (``acausal.components.sources``) and signal blocks
(``acausal.components.blocks``) against closed-form solutions.

* rotational ``Position(phi_ref=A sin(time))`` on an inertia: ``tau = J phi'' = -J A sin(t)``;
* the same driven through the signal input by a ``Sine`` block;
* rotational ``Speed`` against a spring: ``phi = integral of w_ref``, ``tau = J w' + c phi``;
* translational ``Position`` / ``Speed`` on a mass with a spring;
* a kinematic source driving a planar joint through its flange (the reaction torque is the
  joint's generalised force);
* blocks: Constant, Step, Ramp, Sine, FirstOrder (closed forms);
* definition errors.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from acausal import Component, ModelDefinitionError, Variable, compile, connect, time
from acausal.components import rotational, translational
from acausal.components.blocks import Constant, FirstOrder, Ramp, Sine, Step
from acausal.components.sources import (
    Position,
    Speed,
    TranslationalPosition,
    TranslationalSpeed,
)
from acausal.components.sources import rotational as rot_sources
from acausal.components.sources import translational as trans_sources

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
T = np.linspace(0.0, 3.0, 31)


class DrivenInertia(Component):
    source = Position(phi_ref=2 * sp.sin(1.0 * time))  # 2 rad at 1 rad/s
    inertia = rotational.Inertia(J=3.0)

    def connections(self):
        return [connect(self.source.flange, self.inertia.flange_a)]


def test_rotational_position_expression():
    cs = compile(DrivenInertia())
    assert cs.n_states == 0  # fully prescribed motion
    sol = cs.simulate(3.0, t_eval=T, **TIGHT)
    np.testing.assert_allclose(sol["inertia.phi"], 2 * np.sin(T), atol=1e-12)
    np.testing.assert_allclose(sol["inertia.w"], 2 * np.cos(T), atol=1e-12)
    np.testing.assert_allclose(sol["source.a"], -2 * np.sin(T), atol=1e-12)
    np.testing.assert_allclose(sol["source.tau"], -3.0 * 2 * np.sin(T), atol=1e-10)


class InputDrivenInertia(Component):
    sine = Sine(amplitude=2.0, f=1 / (2 * np.pi))
    source = Position(use_input=True)
    inertia = rotational.Inertia(J=3.0)

    def connections(self):
        return [connect(self.sine.y, self.source.phi_ref),
                connect(self.source.flange, self.inertia.flange_a)]


def test_rotational_position_signal_input():
    sol = compile(InputDrivenInertia()).simulate(3.0, t_eval=T, **TIGHT)
    np.testing.assert_allclose(sol["inertia.phi"], 2 * np.sin(T), atol=1e-12)
    np.testing.assert_allclose(sol["source.tau"], -3.0 * 2 * np.sin(T), atol=1e-10)


class SpeedAgainstSpring(Component):
    source = Speed(w_ref=1.0 + 1.0 * time,  # rad/s, rising by 1 rad/s2
                   phi=Variable(start=0.5, fixed=True))
    inertia = rotational.Inertia(J=2.0)
    spring = rotational.Spring(c=4.0)
    fixed = rotational.Fixed()

    def connections(self):
        return [connect(self.source.flange, self.inertia.flange_a),
                connect(self.inertia.flange_b, self.spring.flange_b),
                connect(self.spring.flange_a, self.fixed.flange)]


def test_rotational_speed():
    cs = compile(SpeedAgainstSpring())
    assert cs.state_names == ["source.phi"]
    sol = cs.simulate(3.0, t_eval=T, **TIGHT)
    phi = 0.5 + T + T ** 2 / 2
    np.testing.assert_allclose(sol["inertia.phi"], phi, atol=1e-9)
    np.testing.assert_allclose(sol["source.tau"], 2.0 * 1.0 + 4.0 * phi, atol=1e-8)


class TranslationalRig(Component):
    source = TranslationalPosition(s_ref=0.5 * time ** 2)
    mass = translational.Mass(m=2.0)
    spring = translational.Spring(c=5.0)
    fixed = translational.Fixed()

    def connections(self):
        return [connect(self.source.flange, self.mass.flange_a),
                connect(self.mass.flange_b, self.spring.flange_b),
                connect(self.spring.flange_a, self.fixed.flange)]


def test_translational_position():
    sol = compile(TranslationalRig()).simulate(3.0, t_eval=T, **TIGHT)
    np.testing.assert_allclose(sol["mass.s"], 0.5 * T ** 2, atol=1e-12)
    np.testing.assert_allclose(sol["source.v"], T, atol=1e-12)
    np.testing.assert_allclose(sol["source.f"], 2.0 * 1.0 + 5.0 * 0.5 * T ** 2, atol=1e-9)


class TranslationalSpeedRig(Component):
    step = Step(height=2.0, offset=1.0, start_time=10.0)  # constant 1 m/s in [0, 3]
    source = TranslationalSpeed(use_input=True)
    mass = translational.Mass(m=2.0)
    damper = translational.Damper(d=3.0)
    fixed = translational.Fixed()

    def connections(self):
        return [connect(self.step.y, self.source.v_ref),
                connect(self.source.flange, self.mass.flange_a),
                connect(self.mass.flange_b, self.damper.flange_b),
                connect(self.damper.flange_a, self.fixed.flange)]


def test_translational_speed_signal_input():
    sol = compile(TranslationalSpeedRig()).simulate(3.0, t_eval=T, **TIGHT)
    np.testing.assert_allclose(sol["mass.s"], T, atol=1e-9)
    np.testing.assert_allclose(sol["source.f"], 3.0, atol=1e-9)  # only the damper resists


def test_namespaces():
    assert rot_sources.Position is Position and rot_sources.Speed is Speed
    assert trans_sources.Position is TranslationalPosition
    assert trans_sources.Speed is TranslationalSpeed


def test_drives_a_planar_joint():
    """A prescribed joint angle: the reaction torque is the joint's generalised force
    (pendulum rod 1 m, body m = 1, I = 0.1 at the tip: tau = 1.1 phi'' + 9.81 cos(phi))."""
    from acausal.components.planar.joints import Revolute
    from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

    class DrivenPendulum(Component):
        world = World(g=9.81)  # the expected torque below uses g = 9.81
        fixed = Fixed()
        revolute = Revolute(use_axis_flange=True)
        rod = FixedTranslation(r=[1.0, 0.0])
        body = Body(m=1.0, I=0.1)
        drive = Position(phi_ref=0.3 * sp.sin(2 * time))

        def connections(self):
            return [connect(self.fixed.frame, self.revolute.frame_a),
                    connect(self.revolute.frame_b, self.rod.frame_a),
                    connect(self.rod.frame_b, self.body.frame_a),
                    connect(self.drive.flange, self.revolute.flange_a)]

    sol = compile(DrivenPendulum()).simulate(3.0, t_eval=T, **TIGHT)
    phi = 0.3 * np.sin(2 * T)
    np.testing.assert_allclose(sol["revolute.phi"], phi, atol=1e-12)
    np.testing.assert_allclose(sol["drive.tau"], 1.1 * (-1.2 * np.sin(2 * T)) + 9.81 * np.cos(phi),
                               atol=1e-9)
    np.testing.assert_allclose(sol["revolute.tau"], sol["drive.tau"], atol=1e-12)


# -- blocks ------------------------------------------------------------------------------------


class Signals(Component):
    constant = Constant(k=2.5)
    step = Step(height=2.0, offset=-1.0, start_time=1.0)
    ramp = Ramp(height=3.0, duration=2.0, offset=1.0, start_time=0.5)
    sine = Sine(amplitude=2.0, f=0.5, phase=0.3, offset=1.0, start_time=0.0)
    filter = FirstOrder(k=2.0, T=0.5, init_type="initial_output", y_start=1.0)

    def connections(self):
        return [connect(self.constant.y, self.filter.u)]


def test_blocks():
    t = np.array([0.0, 0.25, 0.75, 1.25, 2.0, 2.5, 3.0])
    sol = compile(Signals()).simulate(3.0, t_eval=t, **TIGHT)
    np.testing.assert_allclose(sol["constant.y.u"], 2.5)
    np.testing.assert_allclose(sol["step.y.u"], np.where(t >= 1.0, 1.0, -1.0))
    np.testing.assert_allclose(sol["ramp.y.u"], 1.0 + 3.0 * np.clip((t - 0.5) / 2.0, 0, 1))
    np.testing.assert_allclose(sol["sine.y.u"], 1.0 + 2.0 * np.sin(np.pi * t + 0.3), atol=1e-12)
    # y' = (k u - y)/T, y(0) = 1, k u = 5
    np.testing.assert_allclose(sol["filter.y.u"], 5.0 - 4.0 * np.exp(-t / 0.5), atol=1e-9)


class SteadyFilter(Component):
    constant = Constant(k=3.0)
    filter = FirstOrder(k=2.0, T=0.5, init_type="steady_state")

    def connections(self):
        return [connect(self.constant.y, self.filter.u)]


def test_first_order_steady_state():
    sol = compile(SteadyFilter()).simulate(1.0, n_points=3, **TIGHT)
    np.testing.assert_allclose(sol["filter.y.u"], 6.0, atol=1e-10)


# -- errors ------------------------------------------------------------------------------------


def test_missing_reference_is_an_error():
    class Missing(Component):
        source = Position()
        inertia = rotational.Inertia()

        def connections(self):
            return [connect(self.source.flange, self.inertia.flange_a)]

    with pytest.raises(ModelDefinitionError, match="phi_ref"):
        compile(Missing())


def test_expression_and_input_together_is_an_error():
    with pytest.raises(ModelDefinitionError, match="either"):
        Position(phi_ref=time, use_input=True)


def test_unconnected_input_is_an_error():
    class Open(Component):
        source = Speed(use_input=True)
        inertia = rotational.Inertia()

        def connections(self):
            return [connect(self.source.flange, self.inertia.flange_a)]

    with pytest.raises(Exception, match="w_ref"):
        compile(Open())


def test_accelerate_sources_drive_an_inertia_and_a_mass():
    """A prescribed acceleration a(t) = 2 t on an inertia J = 0.5 needs tau = J a(t)."""
    import numpy as np
    import sympy as sp

    from acausal import Component, compile, connect, time
    from acausal.components import rotational, translational
    from acausal.components.sources import Accelerate, TranslationalAccelerate

    class Driven(Component):
        src = Accelerate(a_ref=2 * time)
        inertia = rotational.Inertia(J=0.5)
        push = TranslationalAccelerate(a_ref=sp.Integer(3))
        mass = translational.Mass(m=2.0)

        def connections(self):
            return [connect(self.src.flange, self.inertia.flange_a),
                    connect(self.push.flange, self.mass.flange_a)]

    sol = compile(Driven()).simulate(1.0, rtol=1e-10, atol=1e-12)
    t = sol.t
    np.testing.assert_allclose(sol["inertia.phi"], t**3 / 3, atol=1e-9)
    np.testing.assert_allclose(sol["src.tau"], 0.5 * 2 * t, atol=1e-9)
    np.testing.assert_allclose(sol["mass.s"], 1.5 * t**2, atol=1e-9)
    np.testing.assert_allclose(sol["push.f"], 6.0, atol=1e-9)
