r"""Spring-damper-actuators of the planar library: the translational :class:`TSDA` (a line
force between the origins of two frames) and the rotational :class:`RSDA` (a torque about the
plane normal), after P. E. Nikravesh's notes on three-dimensional generalised forces
("Translational spring-damper-actuator often with cylindrical or prismatic", "Rotational
spring-damper-actuator about revolute, cylindrical or screw joint"; seed 002 of this project).
The 3-D twins are :mod:`acausal.components.multibody.spring_damper_actuators`; both are
described in ``docs/spring_damper_actuators.md``.

The law (TSDA; the RSDA reads ``l -> theta``, ``f -> tau`` (the notes' ``T``), ``k -> k_theta``,
...)::

    f = k (l - l0) + c D(l) + f_F sign(D(l)) + f_act(l, D(l), t)

``f`` is the tension: positive, it pulls the frames together (force ``(f/l) d`` on frame_a's
side, ``-(f/l) d`` on frame_b's, ``d`` the vector from frame_a to frame_b).

**The Coulomb term** ``f_F sign(rate)`` (``regularization``, structural):

* ``"tanh"`` (default): ``f_F tanh(rate/v_reg)``; ``"linear"``: ``f_F rate/v_reg`` for
  ``|rate| <= v_reg``, else ``f_F sign(rate)`` (:func:`acausal.library.friction.coulomb`);
  ``v_reg`` (``w_reg`` for the RSDA) defaults to 1e-3 m/s (rad/s). No events.
* ``"event"``: the exact ``f_F sign(rate)``, ``sign`` held between events and switched where
  ``rate`` crosses :data:`EVENT_RATE_TOL` (``event_if(rate > 1e-9, 1, -1)``, as the planar
  friction joints' ``regularization="event"``): the integrator never steps across the jump,
  so the dry-friction decrement ``4 f_F/k`` per cycle comes out to the solver's precision.
  The threshold is 1e-9 (m/s or rad/s), not 0, so that a start at rest picks a definite
  branch (``-1``: an element released at rest is taken to start shortening). The element
  cannot stick: when it comes to rest with ``|k (l - l0) + ...| <= f_F`` (the force that
  should hold it is within the friction band) the sign switches back and forth at the rest
  position, the event loop sees that as chattering and the run stops with a
  :class:`~acausal.errors.SimulationError` (``err.solution`` holds the results up to there).
  Use ``"event"`` for runs that end before the element sticks; use ``"tanh"``/``"linear"``
  (which creep slowly instead) or an exact stick/slip element
  (:mod:`acausal.components.friction`) when it must come to rest.

**The actuator** ``f_act`` (``T_act``): ``None`` (no actuator) or a Python function called
once when the equations are built, as ``f_act(l, l_dot, t)`` with the sympy symbols of the
element (``t`` is :data:`acausal.time`); it must return a sympy expression (``sp.sin``,
``sp.Piecewise``, ... : no Python ``if`` on the symbols) whose value is added to the tension
(the torque). An element with an actuator function derives its own equations
(``shares_equations`` is False), as the user function may differ from element to element.

Parameter bounds: ``c``, ``f_F``, ``l0``, ``v_reg`` (``c_theta``, ``T_F``, ``w_reg``) are
``>= 0``; the stiffness ``k`` (``k_theta``) and ``theta0`` are not bounded: a negative stiffness
is a legitimate (destabilising) element of the notes' law, as in Exudyn's coordinate
spring-damper.

Source: P. E. Nikravesh, notes "Three-Dimensional Generalized Forces" (TSDA, RSDA); the
regularised Coulomb term is :func:`acausal.library.friction.coulomb`.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy as sp

from acausal import Eq, Parameter, Variable, der

from ..spring_damper_actuator_law import RotationalLaw, TranslationalLaw
from . import viewer_shapes
from .interfaces import Frame

__all__ = ["RSDA", "TSDA"]

def _dot(a: Sequence, b: Sequence) -> sp.Expr:
    return sum((x * y for x, y in zip(a, b)), sp.S.Zero)


class TSDA(TranslationalLaw):
    """Translational spring-damper-actuator between the origins of frame_a (body i) and
    frame_b (body j): a line force with tension ``f`` (positive: pulls the frames together),
    no torque.

    Equations (``s_small`` guards the division at zero length, as the Damper's)::

        d = (b.x - a.x, b.y - a.y);  D(d) = v_rel
        length = |d|;  s = max(length, s_small)
        length_dot = d . D(d) / s                             (= D(length))
        f = k (length - l0) + c length_dot + f_F sign(length_dot) + f_act(length, length_dot, t)
        (b.fx, b.fy) = f d/s;  (a.fx, a.fy) = -f d/s;  a.tau = 0;  b.tau = 0

    The flows are the cut forces acting on the element, so frame_a's body feels ``+f d/l``
    (towards frame_b when ``f > 0``) and frame_b's body ``-f d/l``. ``sign`` is the Coulomb
    term of ``regularization`` (see the module docstring); ``f_act`` is optional.

    Source: P. E. Nikravesh, notes "Three-Dimensional Generalized Forces", translational
    spring-damper-actuator (``l0`` is the notes' ``l_o``); in the plane the moments
    ``s_i x F`` vanish because the force acts at the frame origins. Viewer: a blue coil from
    frame_a to frame_b.
    """

    s_small = Parameter(1e-10, unit="m", min=0.0,
                        description="length below which the direction is not normalised")
    frame_a = Frame()
    frame_b = Frame()
    visual_shapes = viewer_shapes.spring
    r_rel = Variable(shape=2, unit="m", description="d = frame_b - frame_a origin (world)")
    v_rel = Variable(shape=2, unit="m/s", description="D(d)")
    length = Variable(unit="m", description="length l = |d|")
    s = Variable(unit="m", description="max(length, s_small)")
    length_dot = Variable(unit="m/s", description="elongation rate D(l) = d . D(d) / l")
    f = Variable(unit="N", description="tension f (positive pulls the frames together)")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        d, v = self.r_rel, self.v_rel
        f = self.tension(self.length, self.length_dot)
        return [Eq(d[0], b.x - a.x), Eq(d[1], b.y - a.y),
                Eq(der(d[0]), v[0]), Eq(der(d[1]), v[1]),
                Eq(self.length, sp.sqrt(d[0] ** 2 + d[1] ** 2)),
                Eq(self.s, sp.Max(self.length, self.s_small)),
                Eq(self.length_dot, _dot(d, v) / self.s),
                Eq(self.f, f),
                Eq(b.fx, self.f * d[0] / self.s), Eq(b.fy, self.f * d[1] / self.s),
                Eq(a.fx, -b.fx), Eq(a.fy, -b.fy), Eq(a.tau, 0), Eq(b.tau, 0)]


class RSDA(RotationalLaw):
    """Rotational spring-damper-actuator about the plane normal between frame_a (body i) and
    frame_b (body j), e.g. across a :class:`~acausal.components.planar.joints.Revolute`
    (connect its frame_a and frame_b to the joint's).

    Equations::

        theta = b.phi - a.phi                        (CCW positive, no wrapping at +-pi)
        theta_dot = D(theta)
        tau = k_theta (theta - theta0) + c_theta theta_dot + T_F sign(theta_dot)
              + T_act(theta, theta_dot, t)
        a.tau = -tau;  b.tau = tau;  a.fx = a.fy = b.fx = b.fy = 0

    The flows are the cut torques acting on the element: frame_a's body feels ``+tau``,
    frame_b's body ``-tau``, so a positive ``tau`` resists ``theta - theta0`` growing. The
    element transmits no force, so it can join frames whose origins differ.

    Source: P. E. Nikravesh, notes "Three-Dimensional Generalized Forces", rotational
    spring-damper-actuator (``T`` of the notes is ``tau`` here, ``theta_o`` is ``theta0``),
    with the axis ``h`` the plane normal.
    """

    frame_a = Frame()
    frame_b = Frame()
    theta = Variable(unit="rad", description="angle from frame_a to frame_b, CCW")
    theta_dot = Variable(unit="rad/s", description="D(theta)")
    tau = Variable(unit="N.m", description="torque T (positive resists theta growing)")

    def equations(self):
        a, b = self.frame_a, self.frame_b
        tau = self.torque(self.theta, self.theta_dot)
        return [Eq(self.theta, b.phi - a.phi), Eq(der(self.theta), self.theta_dot),
                Eq(self.tau, tau),
                Eq(a.tau, -self.tau), Eq(b.tau, self.tau),
                Eq(a.fx, 0), Eq(a.fy, 0), Eq(b.fx, 0), Eq(b.fy, 0)]
