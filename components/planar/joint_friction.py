"""Planar joints with friction driven by their reaction forces (after Altair MotionSolve's
``Force_JointFriction`` model element; issue "Joint friction driven by reaction forces").

:class:`RevoluteWithFriction` and :class:`PrismaticWithFriction` are the planar
:class:`~acausal.components.planar.joints.Revolute` / ``Prismatic`` (same connectors, same
variables ``phi, w, z, tau`` / ``s, v, a, f``, same ``use_axis_flange`` option; they are
subclasses) with a friction force inside the joint. The attributes carry MotionSolve's XML names
(``mu_static``, ``mu_dynamic``, ``stiction_trans_vel``, ``max_stiction_deform``,
``bristle_stiffness``, ``damping_effects``, ``viscous_effects``, ``effect``, ``inactive``,
``inputs``, ``torque_preload``/``force_preload``, ``pin_radius``, ``reaction_arm``,
``initial_overlap``, ``overlap_delta``; ``friction_arm``, ``bending_reaction_arm``,
``ball_radius`` and ``yoke`` are accepted and have no effect in 2-D).

**Why joints and not a separate friction element.** MotionSolve attaches ``Force_JointFriction``
to a joint by id and reads that joint's constraint reaction. Here the reaction of a joint is its
cut force, i.e. the flows of its own frames; a separate element connected to the same frames
would only see its own flows. So the friction lives in the joint, and the normal force is an
ordinary variable of the joint, a function of its frame flows.

**Normal force** (SI, ``eps = normal_force_eps`` [N]; ``|x|_0 = sqrt(x.x + eps^2) - eps``, a
smooth magnitude, exactly 0 at 0 and differentiable everywhere; see
:mod:`acausal.components.joint_friction`, shared with the 3-D friction joints)::

    revolute:   f_radial = |(a.fx, a.fy)|_0                      (radial load on the pin)
                N = eps + b_R*f_radial + b_P*torque_preload/(mu_static*pin_radius)
    prismatic:  f_normal = (b.fx, b.fy) . n0      n0 = R(a.phi)*perp(r/|r|), perp(x, y) = (-y, x)
                m_bending = b.tau                              (planar moment at frame_b)
                X_s = max(initial_overlap +- (s - s_assembly), min_overlap)  (overlap_delta)
                N = eps + b_R*|f_normal|_0 + b_B*|m_bending/X_s|_0 + b_P*force_preload/mu_static

The switches ``b_P, b_R, b_B, b_T`` come from ``inputs``. The torsional input ``b_T``
(``|T_z|/reaction_arm``, a moment about the sliding axis) and, for the revolute, the bending
input and the axial thrust (``friction_arm``) have no planar counterpart and are ignored.
Source of the formulas: reconstructed from the Adams/MotionSolve attribute definitions of
the Altair MotionSolve reference guide (model element ``Force_JointFriction``), which states the
revolute effects "Nxy, Nz, Nrxy, preload" and the translational "xy, torsion, bending, preload").

**Friction law** (``law``, structural): ``"lugre"`` (default; :func:`acausal.library.friction.
lugre` with the bristle deflection ``bristle`` as a state, ``D(bristle) = dz/dt``),
``"coulomb"`` (:func:`~acausal.library.friction.coulomb` with level ``mu_dynamic*N``,
``regularization="tanh"`` (default) or ``"linear"`` over ``v_reg``; ``regularization="event"``
is an exact ``mu_dynamic*N*sign(v)`` whose sign switches at located events (at
``v = 1e-9 m/s``, so that a start at ``v = 0`` picks a definite branch), usable only when the
joint never sticks: a sticking joint makes the switch chatter), ``"stribeck"``
(:func:`~acausal.library.friction.stribeck_simscape` with
``F_brk = mu_static*N``, ``F_C = mu_dynamic*N``, ``f = viscous_effects``,
``v_brk = stiction_trans_vel``). Each returns the resisting force ``F`` (sign of the slip
velocity). The joint applies ``-F`` to frame_b's side and ``+F`` to frame_a's side::

    revolute:   v_slip = pin_radius*w;  T_f = pin_radius*F(v_slip, N);  tau = tau_drive - T_f
    prismatic:  v_slip = v;             F_f = F(v_slip, N);             f = f_drive - F_f

(``tau``/``f`` is the joint's generalised force as in ``Revolute``/``Prismatic``;
``tau_drive``/``f_drive`` is the flange's torque/force, 0 without a flange.)

**Switching friction off**: ``mu_static = 0`` makes the friction force (and the preload's
normal force, and LuGre's bristle rate) exactly 0, whatever the law and ``mu_dynamic``; it is a
parameter, so ``simulate(params={"joint.mu_static": 0})`` switches it off without recompiling.

``effect``: ``"All"`` full law; ``"Sliding"`` no stiction (``mu_static -> mu_dynamic``);
``"Stiction"`` the force only acts while ``|v_slip| < stiction_trans_vel``
(our reading of the MotionSolve attribute text). ``inactive="Static"`` disables friction in
static analyses; acausal has none, so it has no effect on a simulation.

**Simultaneous solution.** ``N`` depends on the cut force, the cut force on the accelerations
and these on the friction force, which depends on ``N``: an algebraic loop. It is part of the
DAE like any other equation, so the compiler's tearing and the integrator's Newton iteration
solve the reactions and the friction together at every step (MotionSolve's "implicit" way);
there is no relaxation iteration on ``N`` outside the solver (the textbook scheme of P. E.
Nikravesh's joint friction).

Units: SI. MotionSolve's LuGre defaults 100 / 0.316 / 0.0004 are Canudas de Wit's values in
N-mm-s; here they are 1e5 N/m, 316 N s/m, 0.4 N s/m. The length-type defaults are read in the
same unit system (``max_stiction_deform`` 0.01 mm = 1e-5 m, ``pin_radius`` 1 mm,
``initial_overlap`` 1000 mm = 1 m, arms 1 mm), except ``stiction_trans_vel``: its N-mm-s reading
(0.1 mm/s) is too small for LuGre, which creeps at about ``(dF/dt)/k0/(1 - F/Fs)`` before
breakaway and shows stiction only if that is well below ``V_s``; the default is Canudas de Wit's
``v_s = 1e-3 m/s``, which belongs to the same parameter set as k0, k1, k2.
"""

from __future__ import annotations

import sympy as sp

from acausal import Eq, Parameter, Variable, der

from ..joint_friction import INPUT_BITS, JointFrictionAttributes, parse_inputs
from .interfaces import force, rotation
from .joints import Prismatic, Revolute

__all__ = ["INPUT_BITS", "PrismaticWithFriction", "RevoluteWithFriction", "parse_inputs"]


class RevoluteWithFriction(JointFrictionAttributes, Revolute):
    """Planar revolute joint with pin friction driven by the radial reaction on the pin.

    Equations (those of :class:`~acausal.components.planar.joints.Revolute` with the friction
    torque in the generalised force; ``b_R``, ``b_P`` from ``inputs``;
    ``|x|_0 = sqrt(x.x + eps^2) - eps``)::

        w = D(phi);  z = D(w)
        a.x = b.x;  a.y = b.y;  a.phi + phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0;  a.tau = tau
        f_radial = |(a.fx, a.fy)|_0
        normal_force = eps + b_R*f_radial + b_P*torque_preload/(mu_static*pin_radius)
        slip_velocity = pin_radius*w
        friction_force = F(slip_velocity, normal_force)        (law; LuGre: + D(bristle) = ...)
        friction_torque = pin_radius*friction_force
        tau = tau_drive - friction_torque
        use_axis_flange:  flange_a.phi = phi;  flange_a.tau = tau_drive   else tau_drive = 0

    ``inputs`` with neither preload nor reaction force: no friction (``friction_force = 0``,
    ``normal_force = 0``). Inactive in 2-D (accepted, documented): ``friction_arm`` (axial
    thrust on the collar), ``bending_reaction_arm`` (out-of-plane bending), ``ball_radius``,
    ``yoke``; the bending and torsional input bits.

    Source: MotionSolve ``Force_JointFriction`` (revolute: "friction on the cylindrical surface
    of the pin caused by the normal force in the xy plane", slip velocity ``r_p*omega``,
    "torque preload divided by ... an equivalent force normal to the pin"; Altair MotionSolve
    reference guide, ``Force_JointFriction``), formulas reconstructed from that text.
    """

    FRICTION_INPUTS = ("preload", "reaction_force")

    torque_preload = Parameter(0.0, unit="N.m", description="friction torque preload")
    # a divisor (the preload's normal force), > 0 as the 3-D joints'
    pin_radius = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m",
                           description="pin radius r_p (MotionSolve 1 mm)")
    friction_arm = Parameter(1e-3, min=0.0, unit="m",
                             description="axial-thrust arm R_n (inactive in 2-D)")
    bending_reaction_arm = Parameter(1e-3, min=0.0, unit="m",
                                     description="bending reaction arm R_b (inactive in 2-D)")
    ball_radius = Parameter(1e-3, min=0.0, unit="m", description="spherical joints only (inactive)")
    yoke = Parameter(None, structural=True, description="universal joints only (inactive)")

    f_radial = Variable(unit="N", description="smooth |(fx, fy)| of the joint's cut force")
    slip_velocity = Variable(unit="m/s", description="slip velocity at the pin surface r_p*w")
    friction_force = Variable(unit="N", description="surface friction force F (sign of w)")
    friction_torque = Variable(unit="N.m",
                               description="friction torque r_p*F, resisting (sign of w)")
    tau_drive = Variable(unit="N.m", description="torque of the flange (0 without a flange)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_friction(overrides)

    def equations(self):
        a, b = self.frame_a, self.frame_b
        eqs = [Eq(der(self.phi), self.w), Eq(der(self.w), self.z),
               Eq(a.x, b.x), Eq(a.y, b.y), Eq(a.phi + self.phi, b.phi),
               Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0),
               Eq(a.tau, self.tau),
               Eq(self.f_radial, self._magnitude(force(a))),
               Eq(self.slip_velocity, self.pin_radius * self.w),
               Eq(self.friction_torque, self.pin_radius * self.friction_force),
               Eq(self.tau, self.tau_drive - self.friction_torque)]
        if self.use_axis_flange:
            eqs += [Eq(self.flange_a.phi, self.phi), Eq(self.flange_a.tau, self.tau_drive)]
        else:
            eqs += [Eq(self.tau_drive, 0)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.friction_force, 0)]
        normal = self._normal_force_of({"reaction_force": self.f_radial},
                                       self.torque_preload / self.pin_radius)
        f, law_eqs = self._friction_law(self.slip_velocity, self.normal_force)
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.friction_force, f)]

    def monitors(self) -> list:
        """The stuck-joint report's monitor (docs/joint_friction.md, "Stuck joints")."""
        r = self.pin_radius
        details = self._normal_details(
            ("reaction_force", "radial load", self.f_radial),
            ("preload", "torque_preload/(mu_static pin_radius)",
             self._friction_on(self.torque_preload / (self.mu_static * r))))
        return self._stuck_monitor(
            "torque", r * self.w, r * self.phi, self.friction_torque, self.normal_force, arm=r,
            motion=(self.phi, "rad"), details=details,
            advice="lower mu_static, pin_radius or torque_preload (the friction torque it can "
            "hold is mu_static x pin_radius x the radial load, plus the preload)")


class PrismaticWithFriction(JointFrictionAttributes, Prismatic):
    """Planar prismatic joint with slider friction driven by the normal reaction and the planar
    moment of the joint. frame_a is the guide (the axis ``r`` is fixed in it), frame_b the slider.

    Equations (those of :class:`~acausal.components.planar.joints.Prismatic` with the friction
    force in the generalised force; ``b_R``, ``b_B``, ``b_P`` from ``inputs``;
    ``|x|_0 = sqrt(x.x + eps^2) - eps``)::

        e = r/|r|;  e0 = R(a.phi)*e;  n0 = R(a.phi)*(-e_y, e_x);  r0 = e0*s
        v = D(s);  a = D(v)
        (a.x, a.y) + r0 = (b.x, b.y);  a.phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau + r0 x (b.fx, b.fy) = 0
        (a.fx, a.fy) . e0 = f
        f_normal = (b.fx, b.fy) . n0;  m_bending = b.tau
        overlap = max(initial_overlap [+ or - (s - s_assembly)], min_overlap)
        normal_force = eps + b_R*|f_normal|_0 + b_B*|m_bending/overlap|_0
                       + b_P*force_preload/mu_static
        slip_velocity = v;  friction_force = F(v, normal_force)   (law; LuGre: + D(bristle) = ...)
        f = f_drive - friction_force
        use_axis_flange:  flange_a.s = s;  flange_a.f = f_drive   else f_drive = 0

    ``f_normal`` is the normal force that the slider side (frame_b) exerts on the joint along
    ``n0`` (``n0`` = axis turned by +90 deg); ``m_bending`` the planar moment at the slider's
    reference point (frame_b), the planar counterpart of the 3-D joint's bending moment, turned
    into a force pair with the overlap ``X_s`` as the arm. ``overlap_delta``: ``"Constant"``
    (``X_s = initial_overlap``), ``"Increase"`` (``+ (s - s_assembly)``), ``"Decrease"``
    (``- (s - s_assembly)``), where ``s_assembly`` is ``s`` at the start time (a state with
    ``D(s_assembly) = 0``, Adams' "DZ0 after the first successful assembly").
    ``reaction_arm`` (torsional moment about the sliding axis) has no planar counterpart:
    accepted, inactive in 2-D, as the torsional input bit.

    Source: MotionSolve ``Force_JointFriction`` (translational: "friction in the xy plane caused
    by the rubbing of the block", "bending ... contact at two points separated by a distance
    that is a function of initial_overlap and overlap_delta", "force preload divided by ...";
    Altair MotionSolve reference guide, ``Force_JointFriction``), formulas reconstructed from
    that text.
    """

    FRICTION_INPUTS = ("preload", "reaction_force", "bending_moment")

    force_preload = Parameter(0.0, unit="N", description="friction force preload")
    reaction_arm = Parameter(1e-3, min=0.0, unit="m",
                             description="torsional reaction arm R_n (inactive in 2-D)")
    initial_overlap = Parameter(1.0, min=0.0, min_exclusive=True, unit="m",
                                description="initial overlap X_s0 (MotionSolve 1000 mm)")
    overlap_delta = Parameter("Constant", structural=True,
                              description="'Constant', 'Increase' or 'Decrease'")
    min_overlap = Parameter(1e-6, min=0.0, min_exclusive=True, unit="m",
                            description="lower clamp of the overlap")
    friction_arm = Parameter(1e-3, min=0.0, unit="m", description="revolute joints only (inactive)")
    bending_reaction_arm = Parameter(1e-3, min=0.0, unit="m", description="revolute joints only "
                                     "(inactive)")
    ball_radius = Parameter(1e-3, min=0.0, unit="m", description="spherical joints only (inactive)")
    yoke = Parameter(None, structural=True, description="universal joints only (inactive)")

    f_normal = Variable(unit="N", description="normal force of the slider on the joint along n0")
    m_bending = Variable(unit="N.m", description="planar moment at frame_b (b.tau)")
    overlap = Variable(unit="m", description="overlap X_s of the sliding parts")
    slip_velocity = Variable(unit="m/s", description="slip velocity v = D(s)")
    friction_force = Variable(unit="N", description="friction force F, resisting (sign of v)")
    f_drive = Variable(unit="N", description="force of the flange (0 without a flange)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_friction(overrides)
        self._setup_overlap(overrides)

    def initial_equations(self):
        if hasattr(self, "s_assembly"):
            return [Eq(self.s_assembly, self.s)]
        return []

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        e = self.r / sp.sqrt(self.r[0] ** 2 + self.r[1] ** 2)
        rot = rotation(fa.phi)
        e0 = rot * e
        n0 = rot * sp.Matrix([-e[1], e[0]])
        r0 = e0 * self.s
        eqs = [Eq(der(self.s), self.v), Eq(der(self.v), self.a)]
        eqs += [Eq(fa.x + r0[0], fb.x), Eq(fa.y + r0[1], fb.y)]
        eqs += [Eq(fa.phi, fb.phi), Eq(fa.fx + fb.fx, 0), Eq(fa.fy + fb.fy, 0),
                Eq(fa.tau + fb.tau + r0[0] * fb.fy - r0[1] * fb.fx, 0),
                Eq(force(fa).dot(e0), self.f),
                Eq(self.f_normal, force(fb).dot(n0)), Eq(self.m_bending, fb.tau),
                Eq(self.slip_velocity, self.v),
                Eq(self.f, self.f_drive - self.friction_force)]
        eqs += self._overlap_equations(self.s)
        if self.use_axis_flange:
            eqs += [Eq(self.flange_a.s, self.s), Eq(self.flange_a.f, self.f_drive)]
        else:
            eqs += [Eq(self.f_drive, 0)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.friction_force, 0)]
        normal = self._normal_force_of(
            {"reaction_force": self._magnitude(self.f_normal),
             "bending_moment": self._magnitude(self.m_bending / self.overlap)},
            self.force_preload)
        f, law_eqs = self._friction_law(self.slip_velocity, self.normal_force)
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.friction_force, f)]

    def monitors(self) -> list:
        """The stuck-joint report's monitor (docs/joint_friction.md, "Stuck joints")."""
        details = self._normal_details(
            ("bending_moment", "planar moment / overlap", sp.Abs(self.m_bending / self.overlap)),
            ("reaction_force", "normal reaction", sp.Abs(self.f_normal)),
            ("preload", "force_preload/mu_static",
             self._friction_on(self.force_preload / self.mu_static)))
        return self._stuck_monitor(
            "force", self.v, self.s, self.friction_force, self.normal_force,
            motion=(self.s, "m"), details=details,
            advice="lower mu_static or the normal force: the planar moment enters it divided by "
            "the overlap (initial_overlap), so a longer overlap lowers it; the force_preload "
            "adds force_preload/mu_static")
