"""3-D joints with friction driven by their own reaction forces and moments (Altair MotionSolve's
``Force_JointFriction`` on its five joints: Revolute, Translational, Cylindrical, Spherical,
Universal/Hooke).

Each class is the frictionless joint of :mod:`acausal.components.multibody.joints` (a subclass:
same frames, variables and options) with the friction inside the joint, because the normal force
is the joint's *own* reaction: the cut force ``f`` and torque ``t`` of its frame_b (resolved in
frame_b, whose ``z`` here is the joint axis ``e = n/|n|``). The reaction is split along the
axis::

    f_axial = f . e;   f_perp = f - f_axial e;   t_axial = t . e;   t_perp = t - t_axial e

and each part loads a contact as in MotionSolve's "contributing effects" (recipes of
friction_models.md 1.5; ``|x|_0 = sqrt(x.x + eps^2) - eps``, ``b_P, b_R, b_B, b_T`` from
``inputs``)::

    Revolute     n_radial = |f_perp|_0;  n_axial = (friction_arm/pin_radius) |f_axial|_0
                 n_bending = |t_perp/bending_reaction_arm|_0
                 N = eps + b_R (n_radial + n_axial) + b_B n_bending
                     + b_P torque_preload/(mu_static pin_radius)
                 v = pin_radius w;  friction_torque = pin_radius F(v, N);  tau = tau_drive - T_f
    Prismatic    n_radial = |f_perp|_0;  n_bending = |t_perp/X_s|_0
                 n_torsion = |t_axial/reaction_arm|_0
                 N = eps + b_R n_radial + b_B n_bending + b_T n_torsion
                     + b_P force_preload/mu_static
                 v = D(s);  f = f_drive - F(v, N)
    Cylindrical  N = eps + b_R n_radial + b_B n_bending   (rotation is free: no torsion input)
                 N_axial = N + b_P force_preload/mu_static
                 N_circ  = N + b_P torque_preload/(mu_static pin_radius)
                 slip (v, pin_radius w) with the friction ellipse of lugre_vector / slip_law_vector
                 prismatic.f = -F_axial;  revolute.tau = -pin_radius F_circ
    Spherical    n_reaction = |f|_0
                 N = eps + b_R n_reaction + b_P torque_preload/(mu_static ball_radius)
                 w_rel = w_b - T_b T_a' w_a (frame_b);  slip ball_radius w_rel (3-D, isotropic)
                 b.t = ball_radius F;  a.t = -T_a T_b' b.t      (the torque resists w_rel)
    Universal    the pin of the yoke ``yoke_choice`` (I_YOKE: revolute_b, the axis fixed in
                 frame_b; J_YOKE: revolute_a) is a revolute with the recipe above, its reaction
                 taken at that revolute's frame_b

Every normal-force component (``n_*``), the effective ``normal_force``, the slip velocity, the
friction force and torque, the friction power and its integral ``friction_work`` (a state:
what an energy balance adds to kinetic and potential energy), and with ``law="lugre"`` the
bristle state ``bristle`` and the law's three terms ``friction_bristle`` (k z),
``friction_damping`` (damping_effects dz/dt) and ``friction_viscous`` (viscous_effects v) are
variables of the joint, readable by name.

The friction laws, the ``inputs`` switches and the smoothing are
:class:`acausal.components.joint_friction.JointFrictionAttributes`, shared with the planar
friction joints: a planar mechanism built from these joints gives the planar joints' result.
Units, defaults and the MotionSolve mapping: docs/joint_friction.md.

Source: Altair MotionSolve reference guide, model element ``Force_JointFriction`` (formats,
attributes, the per-joint contributing effects), seed ``000``; formulas reconstructed from its
text (friction_models.md 1.5, [REC]).
"""

from __future__ import annotations

import sympy as sp

from acausal import Eq, Parameter, Variable, der
from acausal.library.rotations import dot, vector

from ..joint_friction import JointFrictionAttributes, choice
from .interfaces import T
from .joints import Cylindrical, Prismatic, Revolute, Spherical, Universal, unit_axis

__all__ = ["CylindricalWithFriction", "PrismaticWithFriction", "RevoluteWithFriction",
           "SphericalWithFriction", "UniversalWithFriction"]

_YOKES = {"i_yoke": "I_YOKE", "j_yoke": "J_YOKE", "i": "I_YOKE", "j": "J_YOKE"}


def split_along(x, e: sp.Matrix) -> tuple:
    """``(x . e, x - (x . e) e)``: the axial part and the perpendicular vector."""
    x = vector(x)
    axial = dot(x, e)
    return axial, x - axial * e


class _FrictionWork:
    """The power the friction takes from the mechanism and its integral (both readable by name;
    ``friction_work`` is what an energy balance adds to kinetic + potential energy)."""

    friction_power = Variable(unit="W", description="power of the friction forces and torques "
                              "against the joint's relative motion (>= 0 in steady sliding)")
    friction_work = Variable(start=0.0, fixed=True, unit="J",
                             description="friction work since the start, D(friction_work) = "
                             "friction_power")

    def _work_equations(self, power) -> list:
        return [Eq(self.friction_power, power), Eq(der(self.friction_work), self.friction_power)]


class _OwnerDrivenRevolute(Revolute):
    """A revolute whose generalised torque ``tau`` is stated by the component that owns it."""

    def axis_load_equations(self) -> list:
        return []


class _OwnerDrivenPrismatic(Prismatic):
    """A prismatic joint whose generalised force ``f`` is stated by its owner."""

    def axis_load_equations(self) -> list:
        return []


class _PinFriction(_FrictionWork, JointFrictionAttributes):
    """Friction of a pin (revolute joints and a universal joint's yoke)."""

    FRICTION_INPUTS = ("preload", "reaction_force", "bending_moment")

    torque_preload = Parameter(0.0, unit="N.m", description="friction torque preload T_pre")
    friction_arm = Parameter(1e-3, min=0.0, unit="m",
                             description="arm R_n of the axial thrust on the pin's end faces "
                             "(MotionSolve 1 mm)")
    # divisors of the normal force's terms: > 0 (0 gave a NaN at initialisation)
    bending_reaction_arm = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m",
                                     description="arm R_b that turns the bending moment into a "
                                     "force pair (MotionSolve 1 mm)")
    pin_radius = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m",
                           description="pin radius R_p (MotionSolve 1 mm)")

    n_radial = Variable(unit="N", description="radial load on the pin |f_perp|_0")
    n_axial = Variable(unit="N", description="axial thrust as a pin-surface force "
                       "(R_n/R_p)|f_axial|_0")
    n_bending = Variable(unit="N", description="bending moment as a force pair |t_perp/R_b|_0")
    slip_velocity = Variable(unit="m/s", description="slip velocity at the pin surface R_p*w")
    friction_force = Variable(unit="N", description="surface friction force F (sign of w)")
    friction_torque = Variable(unit="N.m", description="friction torque R_p*F, resisting "
                               "(sign of w)")

    def _pin_equations(self, frame, e: sp.Matrix, w) -> list:
        """The pin's normal-force components from the reaction at ``frame`` (resolved in it,
        axis ``e``), the slip velocity ``R_p w`` and the friction law."""
        f_axial, f_perp = split_along(frame.f, e)
        _, t_perp = split_along(frame.t, e)
        eqs = [Eq(self.n_radial, self._magnitude(f_perp)),
               Eq(self.n_axial, self.friction_arm / self.pin_radius * self._magnitude(f_axial)),
               Eq(self.n_bending, self._magnitude(t_perp / self.bending_reaction_arm)),
               Eq(self.slip_velocity, self.pin_radius * w),
               Eq(self.friction_torque, self.pin_radius * self.friction_force),
               *self._work_equations(self.friction_torque * w)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.friction_force, 0)]
        normal = self._normal_force_of(
            {"reaction_force": self.n_radial + self.n_axial, "bending_moment": self.n_bending},
            self.torque_preload / self.pin_radius)
        force, law_eqs = self._friction_law(self.slip_velocity, self.normal_force)
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.friction_force, force)]

    def _pin_monitor(self, w, phi) -> list:
        """The stuck-joint report's monitor of the pin turning at ``w`` (angle ``phi``)."""
        r = self.pin_radius
        preload = self._friction_on(self.torque_preload / (self.mu_static * r))
        details = self._normal_details(
            ("bending_moment", "bending moment / bending_reaction_arm", self.n_bending),
            ("reaction_force", "axial thrust x friction_arm/pin_radius", self.n_axial),
            ("reaction_force", "radial load", self.n_radial),
            ("preload", "torque_preload/(mu_static pin_radius)", preload))
        return self._stuck_monitor(
            "torque", r * w, r * phi, self.friction_torque, self.normal_force, arm=r,
            motion=(phi, "rad"), details=details, advice=_PIN_ADVICE)


#: What the stuck-joint report tells a user whose pin joint never turns.
_PIN_ADVICE = (
    "lower mu_static or the normal force, with the bearing's real dimensions: the bending "
    "moment enters it divided by bending_reaction_arm (MotionSolve's default 1 mm turns 1 N m "
    "into 1000 N) and the axial thrust times friction_arm/pin_radius, so a longer "
    "bending_reaction_arm and a shorter friction_arm lower it; inputs without BENDING_MOMENT "
    "leaves the bending moment out")


class RevoluteWithFriction(_PinFriction, Revolute):
    """3-D revolute joint with pin friction (MotionSolve ``Force_JointFriction`` on a revolute
    joint): the radial load on the pin, the axial thrust on its end faces (arm
    ``friction_arm``), the bending moment (as a force pair at ``bending_reaction_arm``) and the
    torque preload give the normal force; the law acts at the pin surface.

    Equations: those of :class:`~acausal.components.multibody.joints.Revolute`, and (reaction
    ``f = b.f``, ``t = b.t`` in frame_b, ``e = n/|n|``)::

        n_radial = |f_perp|_0;  n_axial = (R_n/R_p)|f.e|_0;  n_bending = |t_perp/R_b|_0
        normal_force = eps + b_R (n_radial + n_axial) + b_B n_bending + b_P T_pre/(mu_s R_p)
        slip_velocity = R_p w;  friction_force = F(slip_velocity, normal_force)
        friction_torque = R_p friction_force;  tau = tau_drive - friction_torque
        use_axis_flange: axis.phi = phi; axis.tau = tau_drive; support.phi = 0  else tau_drive = 0

    ``inputs`` bits: preload (T_pre), reaction force (radial load and axial thrust), bending
    moment; the torsional bit has no effect (rotation about the axis is the joint's freedom).

    Source: MotionSolve ``Force_JointFriction``, revolute joint ("four contributing effects":
    N_xy on the pin, N_z on the end caps with arm r_n, the bending couple N_rxy with arm r_b,
    the preload), friction_models.md 1.5.
    """

    tau_drive = Variable(unit="N.m", description="torque of the axis flange (0 without one)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_friction(overrides)

    def axis_load_equations(self) -> list:
        eqs = self.flange_equations(self.tau_drive)
        eqs.append(Eq(self.tau, self.tau_drive - self.friction_torque))
        return eqs + self._pin_equations(self.frame_b, unit_axis(self.n, self), self.w)

    def monitors(self) -> list:
        return self._pin_monitor(self.w, self.phi)


class _SlidingContact(_FrictionWork, JointFrictionAttributes):
    """The overlap of a sliding joint (translational and cylindrical)."""

    force_preload = Parameter(0.0, unit="N", description="friction force preload F_pre")
    initial_overlap = Parameter(1.0, min=0.0, min_exclusive=True, unit="m",
                                description="initial overlap X_s0 of the sliding parts "
                                "(MotionSolve 1000 mm)")
    overlap_delta = Parameter("Constant", structural=True,
                              description="'Constant', 'Increase' or 'Decrease'")
    min_overlap = Parameter(1e-6, min=0.0, min_exclusive=True, unit="m",
                            description="lower clamp of the overlap")

    n_radial = Variable(unit="N", description="radial (normal) load |f_perp|_0")
    n_bending = Variable(unit="N", description="bending moment as a force pair |t_perp/X_s|_0")
    overlap = Variable(unit="m", description="overlap X_s of the sliding parts")

    def _setup_sliding(self, overrides: dict) -> None:
        self._setup_friction(overrides)
        self._setup_overlap(overrides)

    def initial_equations(self):
        eqs = list(super().initial_equations())
        if hasattr(self, "s_assembly"):
            eqs.append(Eq(self.s_assembly, self.s))
        return eqs

    def _sliding_loads(self, frame, e: sp.Matrix) -> tuple[list, sp.Expr]:
        """Radial and bending loads of the reaction at ``frame`` and the torsional moment."""
        f_axial, f_perp = split_along(frame.f, e)
        t_axial, t_perp = split_along(frame.t, e)
        eqs = [Eq(self.n_radial, self._magnitude(f_perp)),
               Eq(self.n_bending, self._magnitude(t_perp / self.overlap)),
               *self._overlap_equations(self.s)]
        return eqs, t_axial

    def _sliding_details(self) -> tuple:
        """The normal force's parts the stuck-joint report quotes (radial load, bending)."""
        return (("bending_moment", "bending moment / overlap", self.n_bending),
                ("reaction_force", "radial load", self.n_radial))


#: What the stuck-joint report tells a user whose sliding joint never moves.
_SLIDER_ADVICE = (
    "lower mu_static or the normal force, with the slider's real dimensions: the bending "
    "moment enters it divided by the overlap (initial_overlap) and the torsional moment "
    "divided by reaction_arm (MotionSolve's default 1 mm turns 1 N m into 1000 N), so longer "
    "ones lower it; the force_preload adds force_preload/mu_static")


class PrismaticWithFriction(_SlidingContact, Prismatic):
    """3-D prismatic (MotionSolve "translational") joint with slider friction: the normal
    reaction, the bending moment (as a force pair over the overlap ``X_s``), the torsional
    moment about the axis (as a force pair at ``reaction_arm``) and the force preload give the
    normal force. frame_a is the guide, frame_b the slider (its origin is where the moments are
    taken).

    Equations: those of :class:`~acausal.components.multibody.joints.Prismatic`, and::

        n_radial = |f_perp|_0;  n_bending = |t_perp/X_s|_0;  n_torsion = |(t.e)/R_n|_0
        X_s = initial_overlap, or max(initial_overlap +- (s - s_assembly), min_overlap)
        normal_force = eps + b_R n_radial + b_B n_bending + b_T n_torsion + b_P F_pre/mu_s
        slip_velocity = v;  friction_force = F(v, normal_force);  f = f_drive - friction_force
        use_axis_flange: axis.s = s; axis.f = f_drive; support.s = 0  else f_drive = 0

    ``overlap_delta``: Constant, Increase (the overlap grows with s) or Decrease;
    ``s_assembly`` is ``s`` at the start (Adams' "DZ0 after the first successful assembly").

    Source: MotionSolve ``Force_JointFriction``, translational joint ("four contributing
    effects": rubbing in the xy plane, torsion with arm r_n, bending over the overlap x_s,
    the preload), friction_models.md 1.5.
    """

    FRICTION_INPUTS = ("preload", "reaction_force", "bending_moment", "torsional_moment")

    reaction_arm = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m",
                             description="arm R_n of the torsional moment about the axis "
                             "(MotionSolve 1 mm)")

    n_torsion = Variable(unit="N", description="torsional moment as a force pair |t.e/R_n|_0")
    slip_velocity = Variable(unit="m/s", description="slip velocity v = D(s)")
    friction_force = Variable(unit="N", description="friction force F, resisting (sign of v)")
    f_drive = Variable(unit="N", description="force of the axis flange (0 without one)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_sliding(overrides)

    def axis_load_equations(self) -> list:
        eqs = self.flange_equations(self.f_drive)
        loads, t_axial = self._sliding_loads(self.frame_b, unit_axis(self.n, self))
        eqs += [*loads, Eq(self.n_torsion, self._magnitude(t_axial / self.reaction_arm)),
                Eq(self.slip_velocity, self.v),
                Eq(self.f, self.f_drive - self.friction_force),
                *self._work_equations(self.friction_force * self.v)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.friction_force, 0)]
        normal = self._normal_force_of({"reaction_force": self.n_radial,
                                        "bending_moment": self.n_bending,
                                        "torsional_moment": self.n_torsion},
                                       self.force_preload)
        force, law_eqs = self._friction_law(self.slip_velocity, self.normal_force)
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.friction_force, force)]

    def monitors(self) -> list:
        details = self._normal_details(
            *self._sliding_details(),
            ("torsional_moment", "torsional moment / reaction_arm", self.n_torsion),
            ("preload", "force_preload/mu_static",
             self._friction_on(self.force_preload / self.mu_static)))
        return self._stuck_monitor("force", self.v, self.s, self.friction_force,
                                   self.normal_force, motion=(self.s, "m"), details=details,
                                   advice=_SLIDER_ADVICE)


class CylindricalWithFriction(_SlidingContact, Cylindrical):
    """3-D cylindrical joint with friction on the sliding sleeve: the surface slides axially
    (``v``) and around the pin (``pin_radius*w``) at once, so the law is 2-D, with a friction
    ellipse when the two directions' limits differ (different preloads).

    Equations: those of :class:`~acausal.components.multibody.joints.Cylindrical` (its parts
    ``prismatic`` and ``revolute`` get their generalised loads from here), and (reaction at
    frame_b)::

        n_radial = |f_perp|_0;  n_bending = |t_perp/X_s|_0   (X_s as PrismaticWithFriction)
        normal_force = eps + b_R n_radial + b_B n_bending
        normal_force_axial = normal_force + b_P F_pre/mu_s
        normal_force_circ  = normal_force + b_P T_pre/(mu_s R_p)
        slip_velocity = (v, R_p w)
        friction_force = F2((v, R_p w), (normal_force_axial, normal_force_circ))
        friction_torque = R_p friction_force[1]
        prismatic.f = -friction_force[0];  revolute.tau = -friction_torque

    ``F2`` is :func:`acausal.library.friction.lugre_vector` (two bristle states) or
    :func:`~acausal.library.friction.slip_law_vector`: in steady sliding the force is parallel
    to the slip velocity and its load part lies on the ellipse
    ``(F_a/(mu N_a))^2 + (F_c/(mu N_c))^2 = 1``. ``inputs`` bits: preload (both preloads),
    reaction force, bending moment; no torsional input (rotation is free).

    Source: MotionSolve ``Force_JointFriction``, cylindrical joint ("three contributing
    effects": radial load, bending over the overlap, preload; the 2-D LuGre friction
    ellipse), friction_models.md 1.3 and 1.5.
    """

    FRICTION_INPUTS = ("preload", "reaction_force", "bending_moment")
    SLIP_DIRECTIONS = 2
    _prismatic_class = _OwnerDrivenPrismatic
    _revolute_class = _OwnerDrivenRevolute

    torque_preload = Parameter(0.0, unit="N.m", description="friction torque preload T_pre")
    pin_radius = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m",
                           description="pin radius R_p (MotionSolve 1 mm)")

    normal_force_axial = Variable(unit="N", description="load limiting the axial friction")
    normal_force_circ = Variable(unit="N", description="load limiting the circumferential "
                                 "friction")
    slip_velocity = Variable(shape=2, unit="m/s",
                             description="surface slip velocity (axial v, circumferential R_p w)")
    friction_force = Variable(shape=2, unit="N",
                              description="friction force (axial, circumferential), resisting")
    friction_torque = Variable(unit="N.m", description="friction torque R_p*F_circ, resisting")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_sliding(overrides)

    def equations(self):
        e = unit_axis(self.n, self)
        loads, _ = self._sliding_loads(self.frame_b, e)
        v = [self.v, self.pin_radius * self.w]
        eqs = [*super().equations(), *loads,
               Eq(self.slip_velocity[0], v[0]), Eq(self.slip_velocity[1], v[1]),
               Eq(self.friction_torque, self.pin_radius * self.friction_force[1]),
               Eq(self.prismatic.f, -self.friction_force[0]),
               Eq(self.revolute.tau, -self.friction_torque),
               *self._work_equations(self.friction_force[0] * self.v
                                     + self.friction_torque * self.w)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.normal_force_axial, 0),
                          Eq(self.normal_force_circ, 0), Eq(self.friction_force[0], 0),
                          Eq(self.friction_force[1], 0)]
        normal = self._normal_force_of({"reaction_force": self.n_radial,
                                        "bending_moment": self.n_bending})
        preload = self._bits["preload"]
        axial = self.normal_force + (self._friction_on(self.force_preload / self.mu_static)
                                     if preload else 0)
        circ = self.normal_force + (self._friction_on(
            self.torque_preload / (self.mu_static * self.pin_radius)) if preload else 0)
        forces, law_eqs = self._friction_law_vector(
            v, [self.normal_force_axial, self.normal_force_circ])
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.normal_force_axial, axial),
                                Eq(self.normal_force_circ, circ),
                                Eq(self.friction_force[0], forces[0]),
                                Eq(self.friction_force[1], forces[1])]

    def monitors(self) -> list:
        """The sleeve's surface slip (axial, circumferential) against its friction force;
        the capacity is that of the larger of the two directions' loads."""
        r = self.pin_radius
        normal = sp.Max(self.normal_force_axial, self.normal_force_circ)
        return self._stuck_monitor(
            "force", [self.v, r * self.w], [self.s, r * self.phi],
            [self.friction_force[0], self.friction_force[1]], normal,
            details=self._normal_details(*self._sliding_details()), advice=_SLIDER_ADVICE)


class SphericalWithFriction(_FrictionWork, JointFrictionAttributes, Spherical):
    """3-D spherical joint with friction on the ball: the reaction force and the torque preload
    give the normal force; the ball surface slides with ``ball_radius * w_rel`` in 3-D
    (isotropic: friction sphere), and the friction torque resists the relative rotation.

    Equations: those of :class:`~acausal.components.multibody.joints.Spherical` with the
    torques (``f = b.f``, all vectors resolved in frame_b)::

        w_rel = w_b - T_b T_a' w_a
        n_reaction = |f|_0
        normal_force = eps + b_R n_reaction + b_P T_pre/(mu_s R_ball)
        slip_velocity = R_ball w_rel;  friction_force = F3(slip_velocity, normal_force)
        friction_torque = R_ball friction_force
        b.t = friction_torque;  a.t = -T_a T_b' b.t

    ``F3`` is :func:`acausal.library.friction.lugre_vector` (three bristle states) or
    :func:`~acausal.library.friction.slip_law_vector`. ``inputs`` bits: preload, reaction
    force; bending and torsion have no effect (a ball transmits no moment).

    Source: MotionSolve ``Force_JointFriction``, spherical joint ("the normal reaction as the
    sum of the joint reaction force and the preload"; slip velocity ``R_b omega``), and the
    RecurDyn spherical friction ``T = mu (R_ball F + T_pre/mu_s)``; friction_models.md 1.5.
    """

    FRICTION_INPUTS = ("preload", "reaction_force")
    SLIP_DIRECTIONS = 3

    torque_preload = Parameter(0.0, unit="N.m", description="friction torque preload T_pre")
    ball_radius = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m",
                            description="ball radius R_ball (MotionSolve 1 mm)")

    w_rel = Variable(shape=3, unit="rad/s",
                     description="angular velocity of frame_b relative to frame_a, in frame_b")
    n_reaction = Variable(unit="N", description="reaction force on the ball |f|_0")
    slip_velocity = Variable(shape=3, unit="m/s", description="ball surface slip R_ball w_rel")
    friction_force = Variable(shape=3, unit="N", description="surface friction force, resisting")
    friction_torque = Variable(shape=3, unit="N.m",
                               description="friction torque R_ball F (frame_b), resisting")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_friction(overrides)

    def torque_equations(self) -> list:
        fa, fb = self.frame_a, self.frame_b
        w_rel = vector(fb.w) - T(fb) * T(fa).T * vector(fa.w)
        # with enforce_states the joint's kinematics define w_rel (the same vector)
        eqs = [*(Eq(self.w_rel[i], w_rel[i]) for i in range(3) if not self.enforce_states),
               Eq(self.n_reaction, self._magnitude(vector(fb.f))),
               *(Eq(self.slip_velocity[i], self.ball_radius * self.w_rel[i]) for i in range(3)),
               *(Eq(self.friction_torque[i], self.ball_radius * self.friction_force[i])
                 for i in range(3)),
               *(Eq(fb.t[i], self.friction_torque[i]) for i in range(3)),
               *self._work_equations(sum(self.friction_torque[i] * self.w_rel[i]
                                         for i in range(3)))]
        a_t = vector(fa.t) + T(fa) * T(fb).T * vector(fb.t)
        eqs += [Eq(a_t[i], 0) for i in range(3)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0),
                          *(Eq(self.friction_force[i], 0) for i in range(3))]
        normal = self._normal_force_of({"reaction_force": self.n_reaction},
                                       self.torque_preload / self.ball_radius)
        slip = [self.slip_velocity[i] for i in range(3)]
        forces, law_eqs = self._friction_law_vector(slip, [self.normal_force] * 3)
        return eqs + law_eqs + [Eq(self.normal_force, normal),
                                *(Eq(self.friction_force[i], forces[i]) for i in range(3))]

    def monitors(self) -> list:
        """The ball's surface slip (3-D; its travel integrated over the output points)."""
        r = self.ball_radius
        details = self._normal_details(
            ("reaction_force", "reaction force", self.n_reaction),
            ("preload", "torque_preload/(mu_static ball_radius)",
             self._friction_on(self.torque_preload / (self.mu_static * r))))
        return self._stuck_monitor(
            "torque", [r * self.w_rel[i] for i in range(3)], None,
            [self.friction_torque[i] for i in range(3)], self.normal_force, arm=r,
            details=details,
            advice="lower mu_static or ball_radius (the friction torque it can hold is "
            "mu_static x ball_radius x the reaction force), or the torque_preload")


class UniversalWithFriction(_PinFriction, Universal):
    """3-D universal (Hooke) joint with pin friction on one yoke: the pin of ``yoke_choice``
    is treated as a revolute joint (MotionSolve: "friction on each of the yokes is modeled as
    for a revolute joint"), its reaction taken at that pin's frame.

    ``yoke_choice``: ``"I_YOKE"`` (default: the pin about ``n_b``, fixed in frame_b, the I
    body's side) or ``"J_YOKE"`` (the pin about ``n_a``, fixed in frame_a). Equations: those of
    :class:`~acausal.components.multibody.joints.Universal`, and for the chosen pin ``p``
    (``revolute_b`` or ``revolute_a``) the equations of :class:`RevoluteWithFriction` with
    ``f = p.frame_b.f``, ``t = p.frame_b.t``, ``e`` its axis, ``w`` its speed, and
    ``p.tau = -friction_torque``; the other pin is free.

    Source: MotionSolve ``Force_JointFriction``, universal and Hooke joints (``yoke`` choice
    I_YOKE/J_YOKE as Adams), friction_models.md 1.5.
    """

    yoke_choice = Parameter("I_YOKE", structural=True,
                            description="pin with friction: 'I_YOKE' (about n_b) or 'J_YOKE' "
                            "(about n_a)")

    def __init__(self, **overrides):
        yoke = choice("yoke_choice", overrides.get("yoke_choice", "I_YOKE"), _YOKES)
        if yoke == "I_YOKE":
            self._revolute_b_class = _OwnerDrivenRevolute
        else:
            self._revolute_a_class = _OwnerDrivenRevolute
        super().__init__(**overrides)
        self._setup_friction(overrides)

    def _pin(self) -> Revolute:
        yoke = choice("yoke_choice", self.yoke_choice, _YOKES)
        return self.revolute_b if yoke == "I_YOKE" else self.revolute_a

    def equations(self):
        pin = self._pin()
        return [*super().equations(), Eq(pin.tau, -self.friction_torque),
                *self._pin_equations(pin.frame_b, unit_axis(pin.n, self), pin.w)]

    def monitors(self) -> list:
        pin = self._pin()
        return self._pin_monitor(pin.w, pin.phi)
