r"""Spring-damper-actuators of the 3-D library: the translational :class:`TSDA` (a line force
between the origins of two frames) and the rotational :class:`RSDA` (a torque about a joint
axis), after P. E. Nikravesh's notes on three-dimensional generalised forces (seed 002 of this
project). The law, the Coulomb term (``regularization``: ``"tanh"``, ``"linear"``, ``"event"``)
and the actuator functions are those of the planar twins,
:mod:`acausal.components.planar.spring_damper_actuators` (see its docstring and
``docs/spring_damper_actuators.md``).

Loads are cut forces and torques acting on the element, resolved in each frame (MultiBody's
``frame.f``, ``frame.t``): a load ``F_0`` (world) on the body at frame_a is ``a.f = -T_a F_0``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from acausal import Eq, Parameter, Variable, der
from acausal.library.rotations import dot, vector

from ..spring_damper_actuator_law import RotationalLaw, TranslationalLaw
from . import viewer_shapes
from .checks import axis_rule
from .forces import LineForceBase
from .interfaces import Frame, T, vector_equations
from .joints import unit_axis

__all__ = ["RSDA", "TSDA"]


class TSDA(TranslationalLaw, LineForceBase):
    """Translational spring-damper-actuator between the origins of frame_a (body i) and
    frame_b (body j): a line force with tension ``f`` (positive: pulls the frames together).
    It is a :class:`~acausal.components.multibody.forces.LineForceBase` (the geometry
    ``r_rel_0``, ``length``, ``s``, ``e_rel_0`` and the options ``fixed_rotation_at_frame_a``/
    ``_b``); it transmits no torque and states no branch, so its frames must be oriented by
    what they are connected to.

    Equations (``d = r_rel_0``, world frame; ``T_a`` = frame_a's orientation)::

        d = b.r_0 - a.r_0;  length = |d|;  s = max(length, s_small);  e_rel_0 = d/s
        D(d) = v_rel_0;  length_dot = d . D(d) / s                     (= D(length))
        f = k (length - l0) + c length_dot + f_F sign(length_dot)
            + f_act(length, length_dot, t)
        a.f = -T_a e_rel_0 f;  b.f = T_b e_rel_0 f;  a.t = 0;  b.t = 0

    i.e. the force on frame_a's body is ``(f/l) d`` and on frame_b's body ``-(f/l) d`` (the
    notes' ``F_on_i``, ``F_on_j``); their moments about the body origins (the notes'
    ``s_i x F``) come from the parts that carry the frames (e.g. a FixedTranslation from the
    body's reference point to the attachment point).

    Source: P. E. Nikravesh, notes "Three-Dimensional Generalized Forces", translational
    spring-damper-actuator (``l0`` is the notes' ``l_o``). Viewer: a blue coil from frame_a to
    frame_b.
    """

    visual_shapes = viewer_shapes.spring
    v_rel_0 = Variable(shape=3, unit="m/s", description="D(r_rel_0) (world frame)")
    length_dot = Variable(unit="m/s", description="elongation rate D(l) = d . D(d) / l")
    f = Variable(unit="N", description="tension f (positive pulls the frames together)")

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        d, v = vector(self.r_rel_0), vector(self.v_rel_0)
        e = vector(self.e_rel_0)
        f = self.tension(self.length, self.length_dot)
        return [*super().equations(),
                *vector_equations(der(self.r_rel_0), v),
                Eq(self.length_dot, dot(d, v) / self.s),
                Eq(self.f, f),
                *vector_equations(fa.f, -T(fa) * e * self.f),
                *vector_equations(fb.f, T(fb) * e * self.f)]


def _in_plane_axes(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors ``u``, ``v = e x u`` perpendicular to the unit vector ``e``."""
    helper = np.eye(3)[int(np.argmin(np.abs(e)))]
    u = np.cross(e, helper)
    u /= np.linalg.norm(u)
    return u, np.cross(e, u)


class RSDA(RotationalLaw):
    """Rotational spring-damper-actuator about the axis ``n`` (resolved in frame_a) between
    frame_a (body i) and frame_b (body j), whose relative motion is a rotation about ``n``:
    mount it on the frame_a and frame_b of a :class:`~acausal.components.multibody.joints.
    Revolute` or ``Cylindrical`` with the same ``n`` (or on any two frames of the bodies they
    join: the element transmits no force). It states no branch: the joint orients the frames.

    Equations (``h = n/|n|`` in frame_a; ``R_rel = T_b T_a'``)::

        theta_dot = h . (R_rel' b.w - a.w)                 (= h_i' (w_j - w_i) of the notes)
        D(theta) = theta_dot
        tau = k_theta (theta - theta0) + c_theta theta_dot + T_F sign(theta_dot)
              + T_act(theta, theta_dot, t)
        a.t = -tau h;  b.t = tau R_rel h;  a.f = 0;  b.f = 0
        initial:  theta = atan2(u' R_rel v, u' R_rel u)    (u, v = h x u: unit vectors in
                                                             frame_a perpendicular to h)

    so frame_a's body feels the torque ``+tau h`` and frame_b's body ``-tau h`` (frame_b's
    load uses frame_a's axis, "just in case h_j = -h_i", as the notes say).

    **theta does not wrap at +-pi**: it is a state integrated from ``theta_dot``, which is
    exact kinematics (no drift beyond the integration error). Its start value is the angle of
    the initial relative orientation about ``h`` (an initial equation), in ``(-pi, pi]``: an
    element that must start wound up by more than half a turn takes ``theta0`` shifted by
    ``2 pi`` instead. Do not give ``theta`` a fixed start value (the initial equation sets
    it). If the relative rotation is not about ``h``, ``theta`` is the integral of the
    ``h``-component of the relative angular velocity.

    Source: P. E. Nikravesh, notes "Three-Dimensional Generalized Forces", rotational
    spring-damper-actuator (``T`` of the notes is ``tau`` here, ``theta_o`` is ``theta0``,
    ``h_i`` is ``n``).
    """

    n = Parameter((0.0, 0.0, 1.0), structural=True, unit="1",
                  description="axis of rotation, resolved in frame_a (structural, as joints' n)")
    frame_a = Frame()
    frame_b = Frame()
    parameter_rules = (axis_rule("n"),)
    theta = Variable(unit="rad", description="angle from frame_a to frame_b about n (no wrap)")
    theta_dot = Variable(unit="rad/s", description="D(theta) = n . (w_b - w_a)")
    tau = Variable(unit="N.m", description="torque T (positive resists theta growing)")

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        h = unit_axis(self.n, self)
        R_rel = T(fb) * T(fa).T
        tau = self.torque(self.theta, self.theta_dot)
        return [Eq(self.theta_dot, dot(h, R_rel.T * vector(fb.w) - vector(fa.w))),
                Eq(der(self.theta), self.theta_dot),
                Eq(self.tau, tau),
                *vector_equations(fa.t, -h * self.tau),
                *vector_equations(fb.t, R_rel * h * self.tau),
                *vector_equations(fa.f, [0, 0, 0]), *vector_equations(fb.f, [0, 0, 0])]

    def initial_equations(self):
        h = unit_axis(self.n, self)
        u, v = _in_plane_axes(np.array([float(x) for x in h], dtype=float))
        u, v = sp.Matrix([sp.Float(x) for x in u]), sp.Matrix([sp.Float(x) for x in v])
        R_rel = T(self.frame_b) * T(self.frame_a).T
        return [Eq(self.theta, sp.atan2((u.T * R_rel * v)[0], (u.T * R_rel * u)[0]))]
