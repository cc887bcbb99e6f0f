"""Example models built from the planar components, shared by the scripts of ``examples/``: the
segway family (``examples/segway.py``, ``segway_lqr.py``, ``segway_min_time.py``,
``segway_mpc.py``) and, re-exported from :mod:`.examples_crank_rocker`, the crank-rocker of
``examples/crank_rocker.py`` and ``derive_crank_rocker.py``. The scripts import them from here
(``from acausal.components.planar.examples import Segway``) and keep only what they do with
them: a controller design, an optimal control problem, plots.

The segway (a model of this project, not of a library or a paper): a wheel on a slipping contact
with a pendulum (rider and frame) balanced on its axle; all planar components, g = 9.81 m/s2.

* wheel: ``Body`` (m_w = 2 kg, I_w = 0.04 kg m^2) on a ``OneDOFSlippingWheelJoint`` (radius
  R = 0.2 m, :data:`CONTACT`: vAdhesion_min = 0.05 m/s, vSlide_min = 0.15 m/s, sAdhesion = 0.04,
  sSlide = 0.12, mu_A = 0.8, mu_S = 0.4, the ``limit_S_triple`` slip law); the longitudinal slip
  velocity is ``wheel.v_slip_long = v - R w_roll``;
* pendulum: a ``Revolute`` at the wheel axle -> ``FixedTranslation`` (0, L), L = 0.6 m ->
  ``Body`` (m_b = 20 kg, I_b = 1.5 kg m^2 about its centre of mass). The pitch ``theta`` =
  ``body.phi`` is the pendulum's absolute angle (CCW positive, 0 = upright; theta > 0 leans
  towards -x);
* motor: a 1-D ``Torque`` on the revolute's flange; it applies ``+tau`` to the pendulum and
  ``-tau`` to the wheel.

Linearised about upright rolling (no slip), with the wheel angle -x/R (Lagrange equations; the
motor does the work tau (theta' + x'/R))::

    M q'' = K q + B tau,   q = (x, theta)
    M = [[m_w + I_w/R^2 + m_b, -m_b L], [-m_b L, m_b L^2 + I_b]]
    K = [[0, 0], [0, m_b g L]],   B = (1/R, 1)

(:func:`linear_model`); its unstable pole is 6.947 1/s. On a road rising by ``grade`` the motor
holds the segway still with ``tau = (m_w + m_b) g sin(grade) R`` (:func:`holding_torque`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from acausal import Component, Eq, Input, Parameter, Variable, connect
from acausal.components import rotational

from .examples_crank_rocker import CrankRocker  # noqa: F401  (re-exported: one place to look)
from .joints import Revolute
from .parts import Body, Fixed, FixedTranslation
from .wheels import OneDOFRollingWheelJoint, OneDOFSlippingWheelJoint

G = 9.81
R, M_W, I_W = 0.2, 2.0, 0.04          # wheel
L, M_B, I_B = 0.6, 20.0, 1.5          # pendulum (centre of mass at L above the axle)
X_TARGET = 2.0                        # m, the target of Segway's position feedback
PITCH0 = 0.05                         # rad, Segway's initial lean
POLES = (-2.0, -2.5, -3.0, -3.5)      # closed-loop poles of place_gains()
#: the wheel's contact: the slip law's parameters and the radius
CONTACT = {"vAdhesion_min": 0.05, "vSlide_min": 0.15, "sAdhesion": 0.04, "sSlide": 0.12,
           "mu_A": 0.8, "mu_S": 0.4, "radius": R}
DISTANCE = 1.0                        # m, the drive of SlippingSegway and RollingSegway
#: the signals of :func:`columns` (the CSV columns of examples/segway.py and segway_lqr.py)
COLUMNS = ("t", "x", "v", "pitch", "pitch_rate", "torque", "v_slip_long")


def linear_model() -> tuple[np.ndarray, np.ndarray]:
    """(A, B) of the segway linearised about upright rolling (the module docstring's model);
    state (x, theta, x', theta'), input the motor torque."""
    mass = np.array([[M_W + I_W / R**2 + M_B, -M_B * L], [-M_B * L, M_B * L**2 + I_B]])
    stiffness = np.array([[0.0, 0.0], [0.0, M_B * G * L]])
    inv = np.linalg.inv(mass)
    a = np.zeros((4, 4))
    a[:2, 2:] = np.eye(2)
    a[2:, :2] = inv @ stiffness
    b = np.zeros(4)
    b[2:] = inv @ np.array([1.0 / R, 1.0])
    return a, b


def place_gains(poles: tuple[float, ...] = POLES) -> np.ndarray:
    """Gains ``k`` of ``tau = -k . (x - x_target, theta, x', theta')`` that put the poles of the
    rolling model (:func:`linear_model`) at ``poles`` (Ackermann's formula): the gains
    ``k_x, k_theta, k_v, k_w`` of :class:`Segway`."""
    a, b = linear_model()
    ctrb = np.column_stack([np.linalg.matrix_power(a, i) @ b for i in range(4)])
    char = np.poly(poles)  # coefficients of prod(s - p)
    p_of_a = sum(c * np.linalg.matrix_power(a, 4 - i) for i, c in enumerate(char))
    return np.linalg.solve(ctrb.T, np.eye(4)[-1]) @ p_of_a


def _fixed(value: float, priority: int | None = None) -> Variable:
    """A start value that initialisation must keep (optionally a preferred state)."""
    if priority is None:
        return Variable(start=value, fixed=True)
    return Variable(start=value, fixed=True, state_priority=priority)


def wheel_joint(grade: float = 0.0) -> OneDOFSlippingWheelJoint:
    """The wheel's contact (:data:`CONTACT`), at rest at x = 0, on a road rising by ``grade``
    [rad] towards +x (``x`` is then measured along the road)."""
    return OneDOFSlippingWheelJoint(**CONTACT, grade=grade, x=_fixed(0.0), v=_fixed(0.0),
                                    phi_roll=_fixed(0.0), w_roll=_fixed(0.0))


def holding_torque(grade: float) -> float:
    """The motor torque that holds the segway still on a road rising by ``grade`` [rad]: the
    road holds all the weight's pull along it, (m_w + m_b) g sin(grade), and the motor's
    reaction on the wheel balances the moment of that friction about the axle (times R)."""
    return (M_W + M_B) * G * np.sin(grade) * R


def columns(sol: Any) -> dict[str, np.ndarray]:
    """The segway's signals of a solution by the short names of :data:`COLUMNS`: position,
    speed, pitch and its rate, motor torque, longitudinal slip velocity."""
    return {"t": sol.t, "x": sol["wheel.x"], "v": sol["wheel.v"], "pitch": sol["body.phi"],
            "pitch_rate": sol["body.w"], "torque": sol["motor.tau"],
            "v_slip_long": sol["wheel.v_slip_long"]}


class Segway(Component):
    """The segway of the module docstring, balanced by state feedback (PD on the pitch plus
    position and speed feedback)::

        tau = -(k_x (x - x_target) + k_theta theta + k_v v + k_w theta')

    The gains are parameters (0 by default; :func:`place_gains` computes them for the rolling
    model). The wheel starts from exactly zero speed and spin at x = 0, the pendulum leaning by
    ``PITCH0`` = 0.05 rad (the joint angle, fixed). ``spoke`` is a massless mark on the wheel
    and ``target`` a ground mark at ``x_target`` (drawn by the animations; no forces)."""

    k_x = Parameter(0.0, unit="N.m/m", description="position gain")
    k_theta = Parameter(0.0, unit="N.m/rad", description="pitch gain (P)")
    k_v = Parameter(0.0, unit="N.m.s/m", description="speed gain")
    k_w = Parameter(0.0, unit="N.m.s/rad", description="pitch-rate gain (D)")
    x_target = Parameter(X_TARGET, unit="m", description="target position of the axle")

    wheel_body = Body(m=M_W, I=I_W, g=[0.0, -G])
    wheel = wheel_joint()
    spoke = FixedTranslation(r=[0.7 * R, 0.0])  # massless mark on the wheel (for the animation)
    revolute = Revolute(use_axis_flange=True, phi=_fixed(PITCH0), w=_fixed(0.0))
    rod = FixedTranslation(r=[0.0, L])
    body = Body(m=M_B, I=I_B, g=[0.0, -G])
    motor = rotational.Torque()
    target = Fixed(r=[X_TARGET, 0.0])         # marks the target on the ground (no forces)

    def equations(self):
        theta, omega = self.body.phi, self.body.w
        return [Eq(self.motor.tau, -(self.k_x * (self.wheel.x - self.x_target)
                                     + self.k_theta * theta + self.k_v * self.wheel.v
                                     + self.k_w * omega))]

    def connections(self):
        return [connect(self.wheel_body.frame_a, self.wheel.frame_a),
                connect(self.wheel_body.frame_a, self.spoke.frame_a),
                connect(self.wheel_body.frame_a, self.revolute.frame_a),
                connect(self.revolute.frame_b, self.rod.frame_a),
                connect(self.rod.frame_b, self.body.frame_a),
                connect(self.motor.flange, self.revolute.flange_a)]


class OpenLoopSegway(Segway):
    """:class:`Segway` with the motor torque ``motor.tau`` an input (``rotational.Torque(tau=
    Input())``, 0 by default) and no controller: the plant that examples/segway_lqr.py trims,
    linearises and closes with its LQR."""

    motor = rotational.Torque(tau=Input(0.0))

    def equations(self):
        return []  # no controller: the torque is the input


class SlippingSegway(OpenLoopSegway):
    """:class:`OpenLoopSegway` (slipping contact, ``motor.tau`` an input) started upright and at
    rest at x = 0, the ground mark at ``DISTANCE`` = 1 m: the plant of examples/segway_min_time.py
    and segway_mpc.py. The pendulum's absolute pitch and rate are preferred as states
    (``state_priority=20``: the problems bound them and end on them), so the states are
    ``wheel.phi_roll, wheel.w_roll, wheel.x, wheel.v, body.phi, body.w``."""

    revolute = Revolute(use_axis_flange=True, phi=_fixed(0.0), w=_fixed(0.0))
    body = Body(m=M_B, I=I_B, g=[0.0, -G], phi=Variable(state_priority=20),
                w=Variable(state_priority=20))
    target = Fixed(r=[DISTANCE, 0.0])


class RollingSegway(SlippingSegway):
    """The same segway on a wheel that rolls without slip (``OneDOFRollingWheelJoint``, radius
    R, ``x = R phi_roll``): the controller's model of examples/segway_mpc.py. The wheel's
    position and speed are preferred as states, so the states are ``wheel.x, wheel.v,
    body.phi, body.w``."""

    wheel = OneDOFRollingWheelJoint(radius=R, x=_fixed(0.0, 30), v=_fixed(0.0, 30))
