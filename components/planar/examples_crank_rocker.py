"""The crank-rocker with a frictional slider of Wang, Wang, Zhuang (2013), built from planar
components: the model of ``examples/crank_rocker.py`` and ``examples/derive_crank_rocker.py``
(re-exported by :mod:`acausal.components.planar.examples`).

The mechanism of the paper's example (Wang, Wang, Zhuang 2013, doi:10.6052/1672-6553-2013-090,
section 3.1, Fig. 2): a rocker OA pivots at O = (0, 0) (J1 = 16/3 kg m2 about O, m1 = 4 kg, centre
of mass L1 = 1.0 m from O); a crank O1B pivots at O1 = (0, L4 = 1.0 m) (J2 = 1/6 kg m2 about O1, m2
= 2 kg, centre of mass L2 = 0.25 m from O1); a slider B (point mass m3 = 0.5 kg) sits on the crank
at L3 = 0.5 m from O1 and slides along the rocker with Coulomb friction mu = 0.2 (kinetic). The
crank is driven at omega = 3 rad/s from theta2 = 0 (both arms pointing up, +y); a viscous moment
-c*theta1_dot acts on the rocker (``damper.d`` = c, 0 by default; the paper uses 0 or 8 N m s/rad).
Angles are measured from +y towards +x (clockwise), as in the paper. No gravity (``world.g`` = 0,
the paper's example has none; a parameter).

Components: rocker = ``Revolute`` (with flange, carrying a rotational ``Damper``) +
``BodyShape`` (rod O -> A of 2 m, I about the centre of mass = J1 - m1 L1^2 = 4/3 kg m2); crank =
``Revolute`` driven through its flange by a rotational ``Position`` source (``phi_ref =
-omega*t``; the driving torque is the source's torque, a solution variable) + ``BodyShape``
(0.5 m, I_cm = J2 - m2 L2^2 = 1/24 kg m2); slider = point ``Body`` (I = 0) on a frictionless pin
``Revolute`` at the crank tip and a ``PrismaticWithFriction`` along the rocker (frame_a at O on
the rocker, axis (0, 1) in the rocker frame, so ``s = |OB|``).

Friction law: exact Coulomb ``mu*|lambda_N|*sign(v)`` with the sign switched at located events
(``law="coulomb", regularization="event"``): as the paper notes, the slider never sticks (at
``v = 0`` the relative acceleration is not zero), so ``sign(v)`` is piecewise constant with
isolated switches. ``CrankRocker(v_reg=V)`` uses the regularised ``tanh(v/V)`` instead. The normal
force is the joint's reaction normal to the rocker, ``inputs = "0100"`` (reaction force only, the
paper's ``|lambda_N|``), with the smooth ``|x| = sqrt(x^2 + eps^2)``, ``eps = 1e-6 N``.

The model integrates the drive work, the energy dissipated by friction and by the damper, so
the energy balance ``W_drive = E_friction + E_damping + Delta KE`` can be checked to solver
accuracy.
"""

from __future__ import annotations

import sympy as sp

from acausal import Component, Eq, Variable, connect, der, time
from acausal.components import rotational
from acausal.components.sources import Position

from .joint_friction import PrismaticWithFriction
from .joints import Revolute
from .parts import Body, BodyShape, Fixed, World

# paper data (Wang, Wang, Zhuang 2013, section 3.1)
J1, M1, L1 = 16.0 / 3.0, 4.0, 1.0
J2, M2, L2 = 1.0 / 6.0, 2.0, 0.25
M3, L3, L4 = 0.5, 0.5, 1.0
MU = 0.2
OMEGA = 3.0


class CrankRocker(Component):
    """The crank-rocker of Wang, Wang, Zhuang (2013) with a Coulomb slider on the rocker (the
    module docstring states the mechanism, its data and the friction law).

    Outputs: ``theta1 = -rocker_pivot.phi`` (and its rate and acceleration), ``theta2 =
    -crank_pivot.phi``; ``driving_torque = -drive.tau`` (the drive's torque on the crank in the
    +theta2 sense); ``normal_force`` = force of the slider on the rocker along the rocker normal
    (cos theta1, -sin theta1); ``friction_force`` = friction force on the slider along the rocker
    (sin theta1, cos theta1) (towards A positive); ``slip_velocity = d|OB|/dt``. Energies::

        kinetic_energy = 1/2 (m1 |v_r|^2 + I_r w_r^2 + m2 |v_c|^2 + I_c w_c^2 + m3 |v_s|^2)
        der(work_drive) = drive.tau drive.w
        der(energy_friction) = slide.friction_force slide.v
        der(energy_damping) = damper.tau damper.w_rel
    """

    theta1 = Variable(unit="rad", description="rocker angle from +y towards +x")
    theta1_dot = Variable(unit="rad/s", description="rocker angular velocity")
    theta1_ddot = Variable(unit="rad/s2", description="rocker angular acceleration")
    theta2 = Variable(unit="rad", description="crank angle from +y towards +x (= omega*t)")
    driving_torque = Variable(unit="N.m", description="drive torque on the crank, +theta2 sense")
    normal_force = Variable(unit="N", description="slider on rocker along (cos th1, -sin th1)")
    friction_force = Variable(unit="N", description="friction on the slider along the rocker")
    slip_velocity = Variable(unit="m/s", description="d|OB|/dt")
    kinetic_energy = Variable(unit="J", description="kinetic energy of the three bodies")
    work_drive = Variable(start=0.0, fixed=True, unit="J", description="work of the drive")
    energy_friction = Variable(start=0.0, fixed=True, unit="J",
                               description="energy dissipated by the slider friction")
    energy_damping = Variable(start=0.0, fixed=True, unit="J",
                              description="energy dissipated by the rocker damper")

    def __init__(self, omega: float = OMEGA, v_reg: float | None = None, **overrides):
        super().__init__(**overrides)
        self.world = World(g=0.0)  # the paper's example has no gravity (a parameter)
        self.ground_O = Fixed(r=[0.0, 0.0])
        self.ground_O1 = Fixed(r=[0.0, L4])
        self.rocker_pivot = Revolute(use_axis_flange=True, phi=Variable(start=0.0))
        self.rocker = BodyShape(r=[0.0, 2.0 * L1], r_CM=[0.0, L1], m=M1, I=J1 - M1 * L1**2)
        self.damper = rotational.Damper(d=0.0)
        self.damper_support = rotational.Fixed()
        self.crank_pivot = Revolute(use_axis_flange=True)
        self.drive = Position(phi_ref=-omega * time)
        self.crank = BodyShape(r=[0.0, L3], r_CM=[0.0, L2], m=M2, I=J2 - M2 * L2**2)
        self.pin = Revolute()
        self.slider = Body(m=M3, I=0.0)
        law = {"law": "coulomb", "mu_dynamic": MU, "mu_static": MU, "inputs": "0100",
               "normal_force_eps": 1e-6}
        if v_reg is None:
            law["regularization"] = "event"
        else:
            law.update(regularization="tanh", v_reg=v_reg)
        self.slide = PrismaticWithFriction(r=[0.0, 1.0], s=Variable(start=L3 + L4), **law)

    def connections(self):
        return [connect(self.ground_O.frame, self.rocker_pivot.frame_a),
                connect(self.rocker_pivot.frame_b, self.rocker.frame_a),
                connect(self.rocker_pivot.frame_b, self.slide.frame_a),
                connect(self.damper_support.flange, self.damper.flange_a),
                connect(self.damper.flange_b, self.rocker_pivot.flange_a),
                connect(self.ground_O1.frame, self.crank_pivot.frame_a),
                connect(self.drive.flange, self.crank_pivot.flange_a),
                connect(self.crank_pivot.frame_b, self.crank.frame_a),
                connect(self.crank.frame_b, self.pin.frame_a),
                connect(self.pin.frame_b, self.slider.frame_a),
                connect(self.slide.frame_b, self.slider.frame_a)]

    def equations(self):
        rp, cp, sl = self.rocker_pivot, self.crank_pivot, self.slide
        v_r, v_c, v_s = self.rocker.v, self.crank.v, self.slider.v
        ke = (sp.Rational(1, 2) * (M1 * (v_r[0]**2 + v_r[1]**2) + self.rocker.I * self.rocker.w**2)
              + sp.Rational(1, 2) * (M2 * (v_c[0]**2 + v_c[1]**2)
                                     + self.crank.I * self.crank.w**2)
              + sp.Rational(1, 2) * M3 * (v_s[0]**2 + v_s[1]**2))
        return [Eq(self.theta1, -rp.phi), Eq(self.theta1_dot, -rp.w),
                Eq(self.theta1_ddot, -rp.z), Eq(self.theta2, -cp.phi),
                Eq(self.driving_torque, -self.drive.tau),
                Eq(self.normal_force, -sl.f_normal),      # n0 of the joint = -(cos th1, -sin th1)
                Eq(self.friction_force, -sl.friction_force),   # joint's F resists (sign of v)
                Eq(self.slip_velocity, sl.v),
                Eq(self.kinetic_energy, ke),
                Eq(der(self.work_drive), self.drive.tau * self.drive.w),
                Eq(der(self.energy_friction), sl.friction_force * sl.v),
                Eq(der(self.energy_damping), self.damper.tau * self.damper.w_rel)]
