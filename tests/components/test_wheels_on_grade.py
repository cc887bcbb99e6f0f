"""Wheels on a road with a grade (``grade`` of the planar wheel joints and of the 3-D
``RollingWheel``) against closed-form statics and dynamics.

* a planar wheel (Body m, J at the centre) released at rest on a road at the angle ``a``
  rolls down with ``x'' = -g sin(a) m/(m + J/R^2)`` along the road; the road carries
  ``N = m g cos(a)`` normal to it and the friction ``F = m g sin(a) (J/R^2)/(m + J/R^2)`` up
  it; the centre stays ``R`` above the road;
* the segway of examples/segway.py (and of docs/tutorial_segway.md) on a 5-degree road: the
  motor torque that holds it, from ``trim()``, is the closed-form static balance
  ``(m_w + m_b) g sin(a) R`` (derived in :func:`holding_torque`);
* the 3-D ``RollingWheel`` rolls down its road with ``x'' = -g sin(a) m/(m + I_axis/R^2)``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from acausal import Component, Input, Variable, compile, connect
from acausal.components import rotational
from acausal.components.multibody.parts import RollingWheel
from acausal.components.multibody.world import World as World3
from acausal.components.planar import examples as segway  # the model of examples/segway.py
from acausal.components.planar.parts import Body, World
from acausal.components.planar.wheels import (
    DryFrictionBasedRolling,
    IdealRolling,
    OneDOFRollingWheelJoint,
    OneDOFSlippingWheelJoint,
)
from acausal.errors import AcausalError

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
M, J, R, G = 1.0, 0.005, 0.1, 9.81  # the wheel of examples/slipping_wheel.py
GRADE = 0.1  # rad (10.03 %)
SLIP = {"vAdhesion_min": 0.05, "vSlide_min": 0.15, "sAdhesion": 0.04, "sSlide": 0.12,
        "mu_A": 0.8, "mu_S": 0.4, "radius": R}


def _fixed(value):
    return Variable(start=value, fixed=True)


def wheel_on_road(joint):
    """Body(M, J) on ``joint``, gravity g = G straight down, nothing else."""

    class Wheel(Component):
        world = World(g=G)
        body = Body(m=M, I=J)
        wheel = joint

        def connections(self):
            return [connect(self.body.frame_a, self.wheel.frame_a)]

    return Wheel()


def _road(grade):
    """(t, n): the road's direction and upward normal."""
    c, s = math.cos(grade), math.sin(grade)
    return np.array([c, s]), np.array([-s, c])


# ------------------------------------------------------------------------------------------
# planar wheels rolling down the road
# ------------------------------------------------------------------------------------------

JOINTS = {
    "IdealRolling": lambda: IdealRolling(R=R, grade=GRADE, x=_fixed(0.0), phi=_fixed(0.0),
                                         w=_fixed(0.0)),
    "OneDOFRollingWheelJoint": lambda: OneDOFRollingWheelJoint(
        radius=R, grade=GRADE, phi_roll=_fixed(0.0), v=_fixed(0.0)),
    "DryFrictionBasedRolling": lambda: DryFrictionBasedRolling(
        R=R, grade=GRADE, vAdhesion=0.05, vSlide=0.15, mu_A=0.8, mu_S=0.4, x=_fixed(0.0),
        vx=_fixed(0.0), phi=_fixed(0.0), w=_fixed(0.0)),
    "OneDOFSlippingWheelJoint": lambda: OneDOFSlippingWheelJoint(
        **SLIP, grade=GRADE, x=_fixed(0.0), v=_fixed(0.0), phi_roll=_fixed(0.0),
        w_roll=_fixed(0.0)),
}
# the position and speed along the road, by joint
COORDINATES = {"IdealRolling": ("x", "vx"), "OneDOFRollingWheelJoint": ("x", "v"),
               "DryFrictionBasedRolling": ("x", "vx"), "OneDOFSlippingWheelJoint": ("x", "v")}


@pytest.mark.parametrize("kind", list(JOINTS))
def test_planar_wheel_rolls_down_the_road(kind):
    """Released at rest: the centre accelerates down the road at g sin(a) m/(m + J/R^2), R
    above the road; the road carries m g cos(a) and the friction that makes the wheel roll.

    The slip laws adhere with a small steady slip (the regularised friction needs one to carry
    a force), so for them the acceleration is compared once the slip has settled (after 0.5 s)
    and the forces to the same 1e-6; the ideal joints roll exactly (1e-9)."""
    sol = compile(wheel_on_road(JOINTS[kind]())).simulate(1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    pos, speed = COORDINATES[kind]
    k = (J / R**2) / (M + J / R**2)  # the share of the weight's pull that spins the wheel
    acc = -G * math.sin(GRADE) * (1 - k)  # along the road (negative: down it, towards -x)
    t_dir, n_dir = _road(GRADE)
    # the centre is R above the road at its position along it
    centre = np.array(sol["body.r"])
    np.testing.assert_allclose(centre.T @ t_dir, sol[f"wheel.{pos}"], atol=1e-12)
    np.testing.assert_allclose(centre.T @ n_dir, R, atol=1e-12)
    # the cut force on the joint is minus the road's force on the wheel: -N n - F t
    force = np.array([sol["wheel.frame_a.fx"], sol["wheel.frame_a.fy"]])
    friction = M * G * math.sin(GRADE) * k
    exact = kind in ("IdealRolling", "OneDOFRollingWheelJoint")
    tol = 1e-9 if exact else 1e-6
    np.testing.assert_allclose(force.T @ n_dir, -M * G * math.cos(GRADE), rtol=1e-12)
    np.testing.assert_allclose((force.T @ t_dir)[1:], -friction, rtol=tol)
    np.testing.assert_allclose(sol["wheel.frame_a.tau"], R * (force.T @ t_dir), atol=1e-12)
    v = sol[f"wheel.{speed}"]
    if exact:
        np.testing.assert_allclose(v, acc * sol.t, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(sol[f"wheel.{pos}"], acc * sol.t**2 / 2, rtol=1e-9,
                                   atol=1e-12)
    else:
        assert (v[2] - v[1]) / 0.5 == pytest.approx(acc, rel=tol)
        assert sol[f"wheel.{pos}"][-1] < 0  # down the road
    if kind == "DryFrictionBasedRolling":
        np.testing.assert_allclose(sol["wheel.N"], M * G * math.cos(GRADE), rtol=1e-12)
    if kind == "OneDOFSlippingWheelJoint":
        np.testing.assert_allclose(sol["wheel.f_n"], -M * G * math.cos(GRADE), rtol=1e-12)


def test_a_wheel_on_a_level_road_is_the_level_road_joint():
    """grade = 0 (the default) gives the level-road equations themselves, term for term: the
    centre's height is ``a.y = radius``, not an expression in cos and sin of the grade."""
    flat = compile(wheel_on_road(OneDOFSlippingWheelJoint(**SLIP))).flat
    shown = [str(eq.display) for eq in flat.equations if eq.origin == "wheel"]
    for level in ("Eq(wheel.frame_a.x, wheel.x)", "Eq(wheel.frame_a.y, wheel.radius)",
                  "Eq(wheel.frame_a.fx, wheel.f_long)", "Eq(wheel.frame_a.fy, wheel.f_n)"):
        assert level in shown
    assert not any("sin" in eq or "cos" in eq for eq in shown)


def test_a_grade_outside_the_quarter_turn_is_refused():
    with pytest.raises(AcausalError, match="grade"):
        compile(wheel_on_road(IdealRolling(R=R, grade=2.0)))


# ------------------------------------------------------------------------------------------
# the segway on a 5-degree road
# ------------------------------------------------------------------------------------------

SEGWAY_GRADE = math.radians(5.0)


def holding_torque(grade: float) -> float:
    """The motor torque that holds the segway of examples/segway.py at rest on a road rising by
    ``grade`` towards +x, in closed form.

    Statics of the whole segway (wheel body m_w, pendulum body m_b, massless rod, joint and
    spoke; gravity g straight down): the only external forces are the weights and the road's
    force on the wheel at the contact point, the normal force ``N n`` and the friction ``F t``
    (``t = (cos a, sin a)`` up the road, ``n = (-sin a, cos a)``). Along the road:
    ``F - (m_w + m_b) g sin(a) = 0``, so the road holds *all* the weight's pull along it.

    Moments on the wheel alone about its centre: its weight and the axle force act at the
    centre; the motor (``rotational.Torque`` on the revolute's flange, +tau on the pendulum)
    applies ``-tau``; the friction acts at the contact point ``-R n``, with the moment
    ``(-R n) x (F t) = -R F (n x t) = R F`` (``n x t = -1``). At rest ``-tau + R F = 0``:

        tau = (m_w + m_b) g sin(a) R    (> 0 for a road rising towards +x)

    The pendulum then leans up the road: its moments about the axle, ``tau + m_b g L sin(theta)
    = 0``, give ``sin(theta) = -tau/(m_b g L)`` (theta < 0 leans towards +x).
    """
    return (segway.M_W + segway.M_B) * segway.G * math.sin(grade) * segway.R


def _graded_segway_parts(grade):
    """The wheel joint of examples/segway.py on a road with ``grade``, and its pendulum body
    with the absolute pitch preferred as a state (as examples/segway_lqr.py does), so that the
    wheel's roll angle is the one coordinate that a steady state leaves free."""
    wheel = OneDOFSlippingWheelJoint(**segway.CONTACT, grade=grade, x=_fixed(0.0), v=_fixed(0.0),
                                     phi_roll=_fixed(0.0), w_roll=_fixed(0.0))
    body = Body(m=segway.M_B, I=segway.I_B, g=[0.0, -segway.G],
                phi=Variable(state_priority=20), w=Variable(state_priority=20))
    return wheel, body


def _compile_quietly(model):
    with warnings.catch_warnings():  # the example's mark parts (spoke, target) hang open
        warnings.simplefilter("ignore")
        return compile(model)


def test_segway_held_by_its_controller_on_a_5_degree_road():
    """examples/segway.py's segway (slipping contact, state-feedback controller) on a 5-degree
    road: ``trim()`` finds where it stands still, and the motor torque there is the closed-form
    holding torque to 1e-6.

    On the slipping contact, rest means a steady state in which every state but the wheel's
    roll angle is steady: the regularised slip law carries the friction F only with a small
    slip, here a slow spin of the wheel in place (w_roll = -v_slip_long/R, x constant)."""
    k = segway.place_gains()
    wheel, body = _graded_segway_parts(SEGWAY_GRADE)
    system = _compile_quietly(segway.Segway(k_x=k[0], k_theta=k[1], k_v=k[2], k_w=k[3],
                                            wheel=wheel, body=body))
    assert "wheel.phi_roll" in system.state_names and "body.phi" in system.state_names
    steady = [name for name in system.state_names if name != "wheel.phi_roll"]
    op = system.trim(steady=steady)
    tau = holding_torque(SEGWAY_GRADE)
    # the example's 2 kg wheel and 20 kg pendulum, g = 9.81, R = 0.2 m
    assert tau == pytest.approx(22.0 * 9.81 * math.sin(math.radians(5.0)) * 0.2, rel=1e-15)
    assert op["motor.tau"] == pytest.approx(tau, rel=1e-6)
    np.testing.assert_allclose(op.derivatives()[[system.state_names.index(n) for n in steady]],
                               0.0, atol=1e-8)
    # the pendulum leans up the road (towards +x), at rest
    assert math.sin(op["body.phi"]) == pytest.approx(
        -tau / (segway.M_B * segway.G * segway.L), rel=1e-6)
    assert abs(op["wheel.v"]) < 1e-9 and abs(op["body.w"]) < 1e-9
    # the road carries all the weight: (m_w + m_b) g cos(a) normal to it, F along it
    weight = (segway.M_W + segway.M_B) * segway.G
    assert op["wheel.f_n"] == pytest.approx(-weight * math.cos(SEGWAY_GRADE), rel=1e-6)
    assert op["wheel.f_long"] == pytest.approx(-weight * math.sin(SEGWAY_GRADE), rel=1e-6)
    assert op["wheel.w_roll"] == pytest.approx(-op["wheel.v_slip_long"] / segway.R, rel=1e-6)
    # the same segway on a level road needs no torque
    level = _compile_quietly(segway.Segway(k_x=k[0], k_theta=k[1], k_v=k[2], k_w=k[3],
                                           wheel=_graded_segway_parts(0.0)[0],
                                           body=_graded_segway_parts(0.0)[1]))
    assert abs(level.trim(steady=steady)["motor.tau"]) < 1e-9


def test_segway_on_a_rolling_wheel_is_held_by_the_closed_form_torque():
    """The same segway on a wheel that rolls without slip (OneDOFRollingWheelJoint), the
    motor torque a free input of trim: a true rest (every state steady), and the torque trim
    finds is the closed-form holding torque to 1e-6, whichever way the road rises."""

    class OpenLoop(segway.Segway):
        motor = rotational.Torque(tau=Input(0.0))

        def equations(self):
            return []  # no controller: trim chooses the torque

    for grade in (SEGWAY_GRADE, -SEGWAY_GRADE):
        wheel = OneDOFRollingWheelJoint(radius=segway.R, grade=grade, phi_roll=_fixed(0.0),
                                        v=_fixed(0.0))
        system = _compile_quietly(OpenLoop(wheel=wheel))
        op = system.trim(inputs=["motor.tau"])
        np.testing.assert_allclose(op.derivatives(), 0.0, atol=1e-9)
        assert op["motor.tau"] == pytest.approx(holding_torque(grade), rel=1e-6)


# ------------------------------------------------------------------------------------------
# the 3-D wheel
# ------------------------------------------------------------------------------------------

def test_3d_wheel_rolls_down_its_road():
    """MultiBody's RollingWheel (2 kg, I_axis 0.06 kg m2, R 0.3 m) released upright at rest on
    a road rising by 0.1 rad towards +x: it rolls down it with g sin(a) m/(m + I_axis/R^2),
    its centre R above the road, and the road carries m g cos(a)."""
    m, i_axis, radius = 2.0, 0.06, 0.3

    class Wheel3(Component):
        world = World3(n=[0.0, 0.0, -1.0], g=G)
        wheel = RollingWheel(radius=radius, m=m, I_axis=i_axis, I_long=0.12, grade=GRADE)

    sol = compile(Wheel3()).simulate(1.0, t_eval=[0.0, 0.5, 1.0], **TIGHT)
    acc = -G * math.sin(GRADE) * m / (m + i_axis / radius**2)
    np.testing.assert_allclose(sol["wheel.x"], acc * sol.t**2 / 2, rtol=1e-8, atol=1e-12)
    c, s = math.cos(GRADE), math.sin(GRADE)
    r0 = np.array([sol[f"wheel.frame_a.r_0[{i}]"] for i in range(3)])
    np.testing.assert_allclose(r0.T @ [c, 0.0, s], sol["wheel.x"], atol=1e-12)
    np.testing.assert_allclose(r0.T @ [-s, 0.0, c], radius, atol=1e-12)
    np.testing.assert_allclose(np.abs(sol["wheel.rollingWheel.f_n"]), m * G * c, rtol=1e-9)


def test_the_planar_animation_draws_a_wheel_on_its_road():
    """A wheel joint in a drawing list of acausal.components.planar.animation: a tyre dot at
    its centre and its road, a line through the origin along the grade (drawn once)."""
    pytest.importorskip("matplotlib")
    from matplotlib.lines import AxLine

    from acausal.components.planar.animation import Point, Road, draw, shapes_of

    model = wheel_on_road(JOINTS["IdealRolling"]())
    sol = compile(model).simulate(0.5, n_points=6, **TIGHT)
    shapes = shapes_of(sol, [model.wheel])
    assert [type(s) for s in shapes] == [Road, Point]
    assert shapes[0].grade == GRADE and shapes[1].frame == "wheel.frame_a"
    fig = draw(sol, [model.wheel], t=0.5)
    (road,) = [line for line in fig.axes[0].lines if isinstance(line, AxLine)]
    (x1, y1), (x2, y2) = road.get_xy1(), road.get_xy2()
    assert (x1, y1) == (0.0, 0.0) and math.atan2(y2, x2) == pytest.approx(GRADE, abs=1e-15)
