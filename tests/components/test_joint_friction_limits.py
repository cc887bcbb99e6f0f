"""Joint friction at its limits: switched off by mu_static = 0, and the friction-reaction loop
of a double pendulum with large pins (where LuGre's loop can lose its solution)."""

import numpy as np
import pytest

from acausal import Component, SimulationError, Variable, compile, connect
from acausal.components.planar.joint_friction import PrismaticWithFriction, RevoluteWithFriction
from acausal.components.planar.joints import Revolute
from acausal.components.planar.parts import Body, Fixed, FixedTranslation, World

G = 9.81


def double_pendulum(joint, **joint_args):
    """The PlanarMechanics DoublePendulum (1 kg + 0.2 kg bodies on 1 m and 0.4 m rods) with the
    given joint class for both joints, released from the horizontal."""

    class DoublePendulum(Component):
        world = World(g=G)  # PlanarMechanics' gravity; energy() below uses G
        fixed = Fixed()
        revolute = joint(phi=Variable(start=0.0, fixed=True), w=Variable(start=0.0, fixed=True),
                         **joint_args)
        rod = FixedTranslation(r=[1.0, 0.0])
        body = Body(m=1.0, I=0.1)
        revolute1 = joint(phi=Variable(start=0.0, fixed=True),
                          w=Variable(start=0.0, fixed=True), **joint_args)
        rod1 = FixedTranslation(r=[0.4, 0.0])
        body1 = Body(m=0.2, I=0.01)

        def connections(self):
            return [connect(self.fixed.frame, self.revolute.frame_a),
                    connect(self.revolute.frame_b, self.rod.frame_a),
                    connect(self.rod.frame_b, self.body.frame_a),
                    connect(self.body.frame_a, self.revolute1.frame_a),
                    connect(self.revolute1.frame_b, self.rod1.frame_a),
                    connect(self.rod1.frame_b, self.body1.frame_a)]

    return DoublePendulum()


def energy(sol):
    """Kinetic + potential energy of the two bodies (I about the frame origin)."""
    total = 0.0
    for name, m, inertia in (("body", 1.0, 0.1), ("body1", 0.2, 0.01)):
        vx, vy = sol[f"{name}.v"]
        total = total + 0.5 * m * (vx**2 + vy**2) + 0.5 * inertia * sol[f"{name}.w"] ** 2 \
            + m * G * sol[f"{name}.r"][1]
    return total


TOL = {"rtol": 1e-8, "atol": 1e-10}


@pytest.mark.parametrize("law", ["lugre", "coulomb", "stribeck"])
def test_mu_static_zero_switches_friction_off(law):
    """mu_static = 0 (with the default mu_dynamic and a preload): no friction at all, the same
    motion as plain Revolute joints (to the integrator's accuracy)."""
    with_friction = compile(double_pendulum(RevoluteWithFriction, law=law, mu_static=0.0,
                                            pin_radius=0.02, torque_preload=0.5))
    sol = with_friction.simulate(3.0, dt=0.01, **TOL)
    assert np.all(sol["revolute.friction_torque"] == 0.0)
    assert np.all(sol["revolute1.friction_torque"] == 0.0)
    # the same motion as plain joints, computed 1e4 times tighter (its error: 1e-10) so that
    # the difference is the friction run's error: a DAE with the friction loop, whose local
    # errors (at most atol + rtol |phi| a step) add up over its steps, fewer than its 5.6e3
    # residual evaluations: K = 6e3, 1.9e-4 rad. The double pendulum is chaotic: compared
    # over the first 2 s, where the measured error is 1.4e-7 (6 times more 1 s later). A
    # friction torque of 7e-4 N.m (mu = 1e-3 on both pins, no preload) moves the angles by 7
    # times the bound, 1 % more mass of the outer body by 340 times
    plain = compile(double_pendulum(Revolute)).simulate(3.0, dt=0.01, rtol=1e-12, atol=1e-14)
    early = sol.t <= 2.0
    for name in ("revolute.phi", "revolute1.phi"):
        bound = 6e3 * (TOL["atol"] + TOL["rtol"] * np.max(np.abs(plain[name][early])))
        np.testing.assert_allclose(sol[name][early], plain[name][early], rtol=0, atol=bound)


def test_mu_static_is_a_parameter_switch_without_recompiling():
    cs = compile(double_pendulum(RevoluteWithFriction, pin_radius=0.02, damping_effects=31.6))
    on = cs.simulate(2.0, dt=0.01)
    off = cs.simulate(2.0, dt=0.01, params={"revolute.mu_static": 0.0,
                                            "revolute1.mu_static": 0.0})
    assert np.max(np.abs(on["revolute.friction_torque"])) > 1e-3
    assert np.all(off["revolute.friction_torque"] == 0.0)


def test_prismatic_mu_static_zero_with_preload():
    """A slider pushed by its own weight component along an inclined guide: force_preload with
    mu_static = 0 is no 0/0, and no friction acts (free acceleration g sin(30 deg))."""

    class Incline(Component):
        world = World(g=G)  # the free acceleration below uses G
        fixed = Fixed()
        slider = PrismaticWithFriction(r=[np.cos(np.pi / 6), -np.sin(np.pi / 6)],
                                       mu_static=0.0, force_preload=2.0,
                                       s=Variable(start=0.0, fixed=True),
                                       v=Variable(start=0.0, fixed=True))
        body = Body(m=1.0, I=0.1)

        def connections(self):
            return [connect(self.fixed.frame, self.slider.frame_a),
                    connect(self.slider.frame_b, self.body.frame_a)]

    sol = compile(Incline()).simulate(1.0, dt=0.01, **TOL)
    assert np.all(sol["slider.friction_force"] == 0.0)
    # to the integration error: the local errors (at most atol + rtol |s| a step) of the run's
    # fewer than 60 steps (at most 59 residual evaluations), 1.5e-6 m (measured 7e-10 at rtol
    # 0.8e-8 .. 1.3e-8: BDF integrates the quadratic s(t) exactly after its first steps); 1 %
    # more g moves s by 2.5e-2 m, a friction force of 2e-3 N would by F t^2 / 2 m = 1e-3 m
    exact = 0.5 * G * 0.5 * sol.t**2
    bound = 60 * (TOL["atol"] + TOL["rtol"] * np.max(exact))
    np.testing.assert_allclose(sol["slider.s"], exact, rtol=0, atol=bound)


def test_large_pins_fold_the_lugre_loop_with_a_clear_error():
    """pin_radius = 0.02 with the LuGre defaults: when the load on the outer pin passes near zero
    the friction-reaction loop folds (det of its Jacobian changes sign): no solution exists, so
    the run stops with an error that says so and names the parameter to change."""
    cs = compile(double_pendulum(RevoluteWithFriction, pin_radius=0.02))
    with pytest.raises(SimulationError) as info:
        cs.simulate(10.0)
    text = str(info.value)
    assert "lose their solution" in text and "revolute1.frame_a.fx" in text
    assert "damping_effects" in text  # the component's own advice
    assert "smaller rtol" not in text
    assert info.value.solution.t[-1] > 2.0  # the motion up to the fold is kept


@pytest.mark.parametrize("args", [{"damping_effects": 31.6}, {"law": "coulomb"}])
def test_large_pins_run_ten_seconds_with_the_advised_change(args):
    """With the advised change the double pendulum runs 10 s, and friction only dissipates:
    the mechanical energy never rises (beyond the integrator's accuracy)."""
    sol = compile(double_pendulum(RevoluteWithFriction, pin_radius=0.02, **args)).simulate(
        10.0, dt=0.01, **TOL)
    e = energy(sol)
    assert np.all(np.isfinite(e)) and sol.t[-1] == 10.0
    assert np.all(np.diff(e) <= 1e-6 * np.abs(e).max())
    assert e[-1] < e[0] - 0.1  # it loses a clear amount
