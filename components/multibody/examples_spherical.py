"""Examples of where a 3-D model's states sit and how it starts: the three ways MultiBody
carries a relative orientation, side by side (``ModelicaTest.MultiBody.
SphericalDoublePendulum``, MSL 4.0), two models of acausal's own documentation (a spherical
+ revolute double pendulum, a free body flipping about its intermediate axis) used by the tests
of state choice and of FMU export, and a double pendulum started from where its tip is
(``Examples.Elementary.DoublePendulumInitTip``), with MultiBody's ``FreeMotionScalarInit`` or
with initial equations on ``der()``. ``docs/multibody.md`` ("Which states a 3-D model gets",
"Initialisation") explains the choices.
"""

from __future__ import annotations

from acausal import Component, Eq, Variable, connect, der
from acausal.components import rotational

from .free_motion_scalar_init import FreeMotionScalarInit
from .joints import Revolute, Spherical
from .parts import Body, BodyBox
from .world import World

#: MSL's w_rel_a_start of the first joints of SphericalDoublePendulum: (3, 2, 1) deg/s in rad/s
W_REL_A_START = (0.05235987755982989, 0.03490658503988659, 0.0174532925199433)


class SphericalDoublePendulum(Component):
    """``ModelicaTest.MultiBody.SphericalDoublePendulum``: three identical double pendulums
    of two boxes (0.06 m wide; from (0.4, 0, -0.3) and (0.3, -0.4, 0)) hung on spherical joints,
    started at the world's orientation with a small relative angular velocity of the first
    joint. They differ only in where the orientation states are:

    * ``Spherical1``/``Spherical2``: ``enforce_states=True, use_quaternions=False``: Cardan
      angles ``phi`` and ``phi_d`` in the joints;
    * ``Spherical3``/``Spherical4``: ``enforce_states=True``: relative quaternions ``Q`` and
      ``w_rel`` in the joints;
    * ``Spherical5``/``Spherical6``: the default: the boxes carry the orientation (their ``Q``
      and ``w_a``, with ``use_quaternions=True``).

    So the three move identically. MultiBody's ``z_rel_a_fixed=false`` is the default here.
    """

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World()
        for k, options in ((1, dict(enforce_states=True, use_quaternions=False)),
                           (3, dict(enforce_states=True)), (5, {})):
            upper, lower = f"Spherical{k}", f"Spherical{k + 1}"
            setattr(self, upper, Spherical(angles_fixed=True, w_rel_a_fixed=True,
                                           w_rel_a_start=W_REL_A_START, **options))
            setattr(self, lower, Spherical(angles_fixed=True, w_rel_a_fixed=True, **options))
            setattr(self, f"boxBody{k}", BodyBox(width=0.06, r=(0.4, 0.0, -0.3)))
            setattr(self, f"boxBody{k + 1}", BodyBox(width=0.06, r=(0.3, -0.4, 0.0)))

    def connections(self):
        out = []
        for k in (1, 3, 5):
            upper, lower = getattr(self, f"Spherical{k}"), getattr(self, f"Spherical{k + 1}")
            box1, box2 = getattr(self, f"boxBody{k}"), getattr(self, f"boxBody{k + 1}")
            out += [connect(self.world.frame_b, upper.frame_a),
                    connect(upper.frame_b, box1.frame_a),
                    connect(box1.frame_b, lower.frame_a),
                    connect(lower.frame_b, box2.frame_a)]
        return out


class SphericalRevolutePendulum(Component):
    """A double pendulum: a box ``link1`` (0.5 m along x, 0.05 m wide) on a spherical joint
    ``sph`` at the world's origin, a second box ``link2`` on a revolute joint ``rev`` about z at
    its end. Started tilted (0.3, 0.2, 0 rad about x, y, z), turning at 1 rad/s about the
    vertical relative to the world, ``rev.phi = 0.5`` at rest. Four degrees of freedom; no
    energy enters or leaves.

    ``enforce_states`` and ``use_quaternions`` are those of the spherical joint: by default the
    box behind it carries the orientation (its quaternion ``link1.Q`` and ``link1.w_a``); with
    ``enforce_states=True`` the joint does (``sph.Q`` and ``sph.w_rel``, or Cardan angles
    ``sph.phi`` and ``sph.phi_d``).
    """

    def __init__(self, enforce_states: bool = False, use_quaternions: bool = True, **kw):
        super().__init__(**kw)
        self.world = World()
        self.sph = Spherical(angles_fixed=True, angles_start=(0.1, 0.0, 0.1),
                             w_rel_a_fixed=True, w_rel_a_start=(0.0, 0.3, 0.0),
                             enforce_states=enforce_states, use_quaternions=use_quaternions)
        self.link1 = BodyBox(r=(0.0, -0.5, 0.0), width=0.05)
        self.rev = Revolute(n=(0, 0, 1), phi=Variable(start=0.2, fixed=True),
                            w=Variable(start=0.0, fixed=True))
        self.link2 = BodyBox(r=(0.0, -0.5, 0.0), width=0.05)

    def connections(self):
        return [connect(self.world.frame_b, self.sph.frame_a),
                connect(self.sph.frame_b, self.link1.frame_a),
                connect(self.link1.frame_b, self.rev.frame_a),
                connect(self.rev.frame_b, self.link2.frame_a)]


class DzhanibekovFlip(Component):
    """A free body (principal inertias 1, 2, 3 kg m2, no gravity) spun at 2 rad/s about its
    intermediate axis with a 0.01 rad/s disturbance: it flips over and back (the tennis-racket
    theorem). The body carries its orientation as four quaternion states."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.world = World(gravity_type="NoGravity")
        self.body = Body(m=1.0, r_CM=(0.0, 0.0, 0.0), I_11=1.0, I_22=2.0, I_33=3.0,
                         angles_fixed=True, w_0_fixed=True, w_0_start=(0.01, 2.0, 0.0),
                         r_0=Variable(start=[0.0, 0.0, 0.0], fixed=True),
                         v_0=Variable(start=[0.0, 0.0, 0.0], fixed=True))


class DoublePendulumInitTip(Component):
    """``Modelica.Mechanics.MultiBody.Examples.Elementary.DoublePendulumInitTip`` (MSL 4.0): a
    double pendulum (two boxes 0.5 m long, 0.06 m wide, on revolute joints about z; a rotational
    damper d = 0.1 N.m.s/rad on the first joint) whose start is given by its tip: at
    (0.7, 0.3) m and at rest in x and y. MultiBody measures the tip with a
    ``FreeMotionScalarInit`` from the world to the second box's end (``use_r``, ``use_v``, the
    elements 1 and 2 fixed); the joints' angles then follow from the initialisation (states:
    the joints' angles and speeds).

    ``by_equations=True``: the same start written as initial equations of this model on the
    tip's position and on ``der()`` of it (``boxBody2.frame_b.r_0``, a variable index reduction
    leaves algebraic), without the measuring joint.
    """

    def __init__(self, by_equations: bool = False, **kw):
        super().__init__(**kw)
        self.by_equations = by_equations
        self.world = World()
        self.revolute1 = Revolute(use_axis_flange=True)
        self.damper = rotational.Damper(d=0.1)
        self.boxBody1 = BodyBox(r=(0.5, 0.0, 0.0), width=0.06)
        self.revolute2 = Revolute()
        self.boxBody2 = BodyBox(r=(0.5, 0.0, 0.0), width=0.06)
        if not by_equations:
            self.freeMotionScalarInit = FreeMotionScalarInit(
                use_r=True, use_v=True,
                r_rel_a_1=Variable(start=0.7, fixed=True),
                r_rel_a_2=Variable(start=0.3, fixed=True),
                v_rel_a_1=Variable(start=0.0, fixed=True),
                v_rel_a_2=Variable(start=0.0, fixed=True))

    def connections(self):
        out = [connect(self.damper.flange_b, self.revolute1.axis),
               connect(self.revolute1.support, self.damper.flange_a),
               connect(self.revolute1.frame_b, self.boxBody1.frame_a),
               connect(self.revolute2.frame_b, self.boxBody2.frame_a),
               connect(self.boxBody1.frame_b, self.revolute2.frame_a),
               connect(self.world.frame_b, self.revolute1.frame_a)]
        if not self.by_equations:
            out += [connect(self.world.frame_b, self.freeMotionScalarInit.frame_a),
                    connect(self.freeMotionScalarInit.frame_b, self.boxBody2.frame_b)]
        return out

    def initial_equations(self):
        if not self.by_equations:
            return []
        tip = self.boxBody2.frame_b.r_0
        return [Eq(tip[0], 0.7), Eq(tip[1], 0.3), Eq(der(tip[0]), 0), Eq(der(tip[1]), 0)]
