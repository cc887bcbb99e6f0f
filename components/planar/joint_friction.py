"""Planar joints with friction driven by their reaction forces (after Altair MotionSolve's
``Force_JointFriction`` model element; issue "Joint friction driven by reaction forces").

:class:`RevoluteWithFriction` and :class:`PrismaticWithFriction` are the planar
:class:`~acausal.components.planar.joints.Revolute` / ``Prismatic`` (same connectors, same
variables ``phi, w, z, tau`` / ``s, v, a, f``, same ``use_flange`` option; they are subclasses)
with a friction force inside the joint. The attributes carry MotionSolve's XML names
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

**Normal force** (SI, ``eps = normal_force_eps`` [N]; ``|x|_eps = sqrt(x^2 + eps^2)``, a smooth
absolute value so that the equations stay differentiable at zero load; it over-estimates
``|x|`` by at most ``eps`` and is ``>= eps`` so that LuGre's ``G(v)`` never vanishes)::

    revolute:   f_radial = |(a.fx, a.fy)|_eps                     (radial load on the pin)
                N = b_R*f_radial + b_P*torque_preload/(mu_static*pin_radius)
    prismatic:  f_normal = (b.fx, b.fy) . n0      n0 = R(a.phi)*perp(r/|r|), perp(x, y) = (-y, x)
                m_bending = b.tau                              (planar moment at frame_b)
                X_s = max(initial_overlap +- (s - s_assembly), min_overlap)  (overlap_delta)
                N = b_R*|f_normal|_eps + b_B*|m_bending/X_s|_eps + b_P*force_preload/mu_static

(``+ eps`` is added when neither ``b_R`` nor ``b_B`` is set, so that ``N >= eps`` holds too.)
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

from acausal import Eq, Parameter, Variable, der, event_if
from acausal.errors import ModelDefinitionError
from acausal.library.friction import coulomb, lugre, stribeck_simscape

from .interfaces import force, rotation
from .joints import Prismatic, Revolute

__all__ = ["INPUT_BITS", "PrismaticWithFriction", "RevoluteWithFriction", "parse_inputs"]

#: Bit value of each friction input in ``inputs`` (MSB to LSB: preload, reaction force, bending
#: moment, torsional moment; the order of Adams' ``INPUTS=(PRELOAD:REACTION_FORCE:
#: BENDING_MOMENT:TORSIONAL_MOMENT)``; the bit values are [REC], friction_models.md 1.6).
INPUT_BITS = {"preload": 8, "reaction_force": 4, "bending_moment": 2, "torsional_moment": 1}

_LAWS = ("lugre", "coulomb", "stribeck")
_EFFECTS = {"all": "All", "stiction": "Stiction", "sliding": "Sliding"}
_INACTIVE = {"none": "None", "static": "Static"}
_OVERLAP = {"constant": "Constant", "increase": "Increase", "decrease": "Decrease"}
_REGULARIZATIONS = ("tanh", "linear", "event")
#: regularization="event" switches the sign at v = _EVENT_V_TOL [m/s] instead of exactly 0, so
#: that a joint that starts at v = 0 up to round-off starts on a definite branch (with the
#: threshold exactly 0 the round-off sign of v can depend on the branch, and the start-time
#: branch selection does not settle). 1e-9 m/s, not smaller: events are located to ~1e-12 s, in
#: which v moves by ~1e-12 m/s at 1 m/s2; a threshold below that can fire the same switch twice.
_EVENT_V_TOL = 1e-9


def parse_inputs(value) -> dict[str, bool]:
    """The four friction inputs from ``inputs``.

    Accepted: ``"ALL"``/``None`` (all four), ``"NONE"``; a 4-character bit string MSB to LSB
    (``"1111"``, ``"0100"``: preload, reaction force, bending moment, torsional moment); an
    integer 0-15 (bit values 8, 4, 2, 1); named flags, as an iterable
    (``("preload", "reaction_force")``) or one string separated by ``:``, ``,``, ``|``, ``+`` or
    blanks (``"PRELOAD:REACTION_FORCE"``, Adams syntax). Names are case-insensitive.
    Returns ``{"preload": bool, "reaction_force": bool, "bending_moment": bool,
    "torsional_moment": bool}``.
    """
    bits = _input_bits(value)
    return {name: bool(bits & bit) for name, bit in INPUT_BITS.items()}


def _input_bits(value) -> int:
    if value is None:
        return 15
    if isinstance(value, bool):
        raise ModelDefinitionError(f"inputs: got {value!r}; give flags, a bit string or 0-15.")
    if isinstance(value, int):
        if 0 <= value <= 15:
            return value
        raise ModelDefinitionError(
            f"inputs: the integer {value} is not in 0-15; give a 4-bit value (e.g. 12 or 0b1100) "
            "or the bit string as a string (e.g. '1100').")
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 4 and set(text) <= {"0", "1"}:
            return int(text, 2)
        for sep in ":,|+":
            text = text.replace(sep, " ")
        names = text.split()
    else:
        try:
            names = [str(n) for n in value]
        except TypeError:
            raise ModelDefinitionError(f"inputs: cannot read {value!r}.") from None
    bits = 0
    for name in names:
        key = name.strip().lower()
        if key == "all":
            bits |= 15
        elif key == "none":
            continue
        elif key in INPUT_BITS:
            bits |= INPUT_BITS[key]
        else:
            raise ModelDefinitionError(
                f"inputs: unknown flag {name!r}; use ALL, NONE, "
                + ", ".join(n.upper() for n in INPUT_BITS) + ", a bit string or 0-15.")
    return bits


def _choice(name: str, value, table: dict) -> str:
    key = "none" if value is None and "none" in table else str(value).lower()
    if key not in table:
        raise ModelDefinitionError(f"{name} must be one of {', '.join(table.values())}; "
                                   f"got {value!r}.")
    return table[key]


def _smooth_abs(x, eps):
    """``sqrt(x^2 + eps^2)``: differentiable everywhere, ``|x| <= . <= |x| + eps``."""
    return sp.sqrt(x**2 + eps**2)


class _JointFriction:
    """Attributes shared by the friction joints (MotionSolve ``Force_JointFriction`` names)."""

    law = Parameter("lugre", structural=True,
                    description="friction law: 'lugre', 'coulomb' or 'stribeck'")
    mu_static = Parameter(0.3, min=0.0, unit="1", description="static friction coefficient")
    mu_dynamic = Parameter(0.2, min=0.0, unit="1",
                           description="dynamic (kinetic) friction coefficient")
    stiction_trans_vel = Parameter(1e-3, min=0.0, unit="m/s",
                                   description="stiction transition velocity V_s (Canudas de "
                                   "Wit's 1 mm/s; see the module docstring)")
    max_stiction_deform = Parameter(1e-5, min=0.0, unit="m",
                                    description="Adams stick-slip creep limit (0.01 mm); not "
                                    "used by the laws here")
    bristle_stiffness = Parameter(1e5, min=0.0, unit="N/m",
                                  description="LuGre k0 (MotionSolve 100 N/mm)")
    damping_effects = Parameter(316.0, min=0.0, unit="N.s/m",
                                description="LuGre k1 (MotionSolve 0.316 N s/mm)")
    viscous_effects = Parameter(0.4, min=0.0, unit="N.s/m",
                                description="LuGre k2 and the stribeck law's viscous "
                                "coefficient (MotionSolve 0.0004 N s/mm)")
    effect = Parameter("All", structural=True, description="'All', 'Stiction' or 'Sliding'")
    inactive = Parameter("None", structural=True,
                         description="'None' or 'Static' (no static analysis here: no effect)")
    inputs = Parameter("1111", structural=True,
                       description="friction inputs: flags, 4-bit string (preload, reaction, "
                       "bending, torsion) or 0-15")
    regularization = Parameter("tanh", structural=True,
                               description="coulomb law: 'tanh', 'linear' or 'event'")
    v_reg = Parameter(1e-3, min=0.0, unit="m/s", description="coulomb law regularisation velocity")
    normal_force_eps = Parameter(1e-3, min=0.0, unit="N",
                                 description="eps of the smooth |x| = sqrt(x^2 + eps^2)")

    solver_hint = (
        "(Joint friction) The friction force depends on the joint's reaction force, which "
        "depends on the friction force: an algebraic loop. With law='lugre' its sensitivity "
        "dF/dN is about damping_effects*|v_slip|/N, which grows without bound as the load N "
        "passes near zero, and the loop can fold (no solution); a larger pin_radius makes it "
        "worse. Lower damping_effects (e.g. 31.6 N s/m instead of 316), raise "
        "normal_force_eps, or use law='coulomb' or 'stribeck'.")

    def _friction_on(self, expr):
        """``expr`` while ``mu_static > 0``, else 0: ``mu_static = 0`` switches the joint's
        friction off (whatever the law), without the 0/0 of the preload term or of LuGre's
        ``|v| z / G(v)`` with ``G = 0``."""
        return sp.Piecewise((expr, self.mu_static > 0), (0, True))

    def _setup_friction(self, overrides: dict) -> None:
        decl = self._class_declarations()

        def get(name):
            return overrides.get(name, decl[name].default)

        law = str(get("law")).lower()
        if law not in _LAWS:
            raise ModelDefinitionError(f"{type(self).__name__}: law must be one of "
                                       f"{', '.join(_LAWS)}; got {get('law')!r}.")
        reg = str(get("regularization")).lower()
        if reg not in _REGULARIZATIONS:
            raise ModelDefinitionError(f"{type(self).__name__}: regularization must be one of "
                                       f"{', '.join(_REGULARIZATIONS)}; got {reg!r}.")
        _choice("effect", get("effect"), _EFFECTS)
        _choice("inactive", get("inactive"), _INACTIVE)
        self._law = law
        self._bits = parse_inputs(get("inputs"))
        if law == "lugre" and self._active():
            self.bristle = Variable(start=0.0, fixed=True, unit="m",
                                    description="LuGre bristle deflection z (state)")

    def _active(self) -> bool:
        """Whether any input can produce a normal force in 2-D."""
        return self._bits["preload"] or self._bits["reaction_force"] or (
            self._bits["bending_moment"] and isinstance(self, PrismaticWithFriction))

    def _friction_force(self, v, normal):
        """Resisting friction force F(v, N) (sign of v) and the law's own equations."""
        effect = _choice("effect", self.effect, _EFFECTS)
        mu_s = self.mu_dynamic if effect == "Sliding" else self.mu_static
        eqs = []
        if self._law == "lugre":
            res = lugre(v, self.bristle, normal, stiction_trans_vel=self.stiction_trans_vel,
                        mu_static=self.mu_static, mu_dynamic=self.mu_dynamic,
                        bristle_stiffness=self.bristle_stiffness,
                        damping_effects=self.damping_effects,
                        viscous_effects=self.viscous_effects, effect=effect)
            return (self._friction_on(res.force),
                    [Eq(der(self.bristle), self._friction_on(res.state_derivative))])
        if self._law == "coulomb":
            level = self.mu_dynamic * normal
            if str(self.regularization).lower() == "event":
                f = level * event_if(v > _EVENT_V_TOL, 1, -1)
            else:
                f = coulomb(v, level, regularization=str(self.regularization).lower(),
                            v_reg=self.v_reg)
        else:
            f = stribeck_simscape(v, mu_s * normal, self.mu_dynamic * normal,
                                  self.viscous_effects, self.stiction_trans_vel)
        if effect == "Stiction":
            f = sp.Piecewise((f, sp.Abs(v) < self.stiction_trans_vel), (0, True))
        return self._friction_on(f), eqs


class RevoluteWithFriction(_JointFriction, Revolute):
    """Planar revolute joint with pin friction driven by the radial reaction on the pin.

    Equations (those of :class:`~acausal.components.planar.joints.Revolute` with the friction
    torque in the generalised force; ``b_R``, ``b_P`` from ``inputs``)::

        w = D(phi);  z = D(w)
        a.x = b.x;  a.y = b.y;  a.phi + phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau = 0;  a.tau = tau
        f_radial = sqrt(a.fx^2 + a.fy^2 + eps^2)
        normal_force = b_R*f_radial + b_P*torque_preload/(mu_static*pin_radius)   (+eps if !b_R)
        slip_velocity = pin_radius*w
        friction_force = F(slip_velocity, normal_force)        (law; LuGre: + D(bristle) = ...)
        friction_torque = pin_radius*friction_force
        tau = tau_drive - friction_torque
        use_flange:  flange_a.phi = phi;  flange_a.tau = tau_drive   else tau_drive = 0

    ``inputs`` with neither preload nor reaction force: no friction (``friction_force = 0``,
    ``normal_force = 0``). Inactive in 2-D (accepted, documented): ``friction_arm`` (axial
    thrust on the collar), ``bending_reaction_arm`` (out-of-plane bending), ``ball_radius``,
    ``yoke``; the bending and torsional input bits.

    Source: MotionSolve ``Force_JointFriction`` (revolute: "friction on the cylindrical surface
    of the pin caused by the normal force in the xy plane", slip velocity ``r_p*omega``,
    "torque preload divided by ... an equivalent force normal to the pin"; Altair MotionSolve
    reference guide, ``Force_JointFriction``), formulas reconstructed from that text.
    """

    torque_preload = Parameter(0.0, unit="N.m", description="friction torque preload")
    pin_radius = Parameter(1e-3, min=0.0, unit="m", description="pin radius r_p (MotionSolve 1 mm)")
    friction_arm = Parameter(1e-3, min=0.0, unit="m",
                             description="axial-thrust arm R_n (inactive in 2-D)")
    bending_reaction_arm = Parameter(1e-3, min=0.0, unit="m",
                                     description="bending reaction arm R_b (inactive in 2-D)")
    ball_radius = Parameter(1e-3, min=0.0, unit="m", description="spherical joints only (inactive)")
    yoke = Parameter(None, structural=True, description="universal joints only (inactive)")

    f_radial = Variable(unit="N", description="smooth |(fx, fy)| of the joint's cut force")
    normal_force = Variable(unit="N", description="effective normal force N of the friction law")
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
        eps = self.normal_force_eps
        eqs = [Eq(der(self.phi), self.w), Eq(der(self.w), self.z),
               Eq(a.x, b.x), Eq(a.y, b.y), Eq(a.phi + self.phi, b.phi),
               Eq(a.fx + b.fx, 0), Eq(a.fy + b.fy, 0), Eq(a.tau + b.tau, 0),
               Eq(a.tau, self.tau),
               Eq(self.f_radial, sp.sqrt(a.fx**2 + a.fy**2 + eps**2)),
               Eq(self.slip_velocity, self.pin_radius * self.w),
               Eq(self.friction_torque, self.pin_radius * self.friction_force),
               Eq(self.tau, self.tau_drive - self.friction_torque)]
        if self.use_flange:
            eqs += [Eq(self.flange_a.phi, self.phi), Eq(self.flange_a.tau, self.tau_drive)]
        else:
            eqs += [Eq(self.tau_drive, 0)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.friction_force, 0)]
        normal = sp.Integer(0)
        if self._bits["reaction_force"]:
            normal += self.f_radial
        else:
            normal += eps
        if self._bits["preload"]:
            normal += self._friction_on(self.torque_preload / (self.mu_static * self.pin_radius))
        f, law_eqs = self._friction_force(self.slip_velocity, self.normal_force)
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.friction_force, f)]


class PrismaticWithFriction(_JointFriction, Prismatic):
    """Planar prismatic joint with slider friction driven by the normal reaction and the planar
    moment of the joint. frame_a is the guide (the axis ``r`` is fixed in it), frame_b the slider.

    Equations (those of :class:`~acausal.components.planar.joints.Prismatic` with the friction
    force in the generalised force; ``b_R``, ``b_B``, ``b_P`` from ``inputs``)::

        e = r/|r|;  e0 = R(a.phi)*e;  n0 = R(a.phi)*(-e_y, e_x);  r0 = e0*s
        v = D(s);  a = D(v)
        (a.x, a.y) + r0 = (b.x, b.y);  a.phi = b.phi
        a.fx + b.fx = 0;  a.fy + b.fy = 0;  a.tau + b.tau + r0 x (b.fx, b.fy) = 0
        (a.fx, a.fy) . e0 = f
        f_normal = (b.fx, b.fy) . n0;  m_bending = b.tau
        overlap = max(initial_overlap [+ or - (s - s_assembly)], min_overlap)
        normal_force = b_R*sqrt(f_normal^2 + eps^2) + b_B*sqrt((m_bending/overlap)^2 + eps^2)
                       + b_P*force_preload/mu_static              (+eps if neither b_R nor b_B)
        slip_velocity = v;  friction_force = F(v, normal_force)   (law; LuGre: + D(bristle) = ...)
        f = f_drive - friction_force
        use_flange:  flange_a.s = s;  flange_a.f = f_drive   else f_drive = 0

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

    force_preload = Parameter(0.0, unit="N", description="friction force preload")
    reaction_arm = Parameter(1e-3, min=0.0, unit="m",
                             description="torsional reaction arm R_n (inactive in 2-D)")
    initial_overlap = Parameter(1.0, min=0.0, unit="m",
                                description="initial overlap X_s0 (MotionSolve 1000 mm)")
    overlap_delta = Parameter("Constant", structural=True,
                              description="'Constant', 'Increase' or 'Decrease'")
    min_overlap = Parameter(1e-6, min=0.0, unit="m", description="lower clamp of the overlap")
    friction_arm = Parameter(1e-3, min=0.0, unit="m", description="revolute joints only (inactive)")
    bending_reaction_arm = Parameter(1e-3, min=0.0, unit="m", description="revolute joints only "
                                     "(inactive)")
    ball_radius = Parameter(1e-3, min=0.0, unit="m", description="spherical joints only (inactive)")
    yoke = Parameter(None, structural=True, description="universal joints only (inactive)")

    f_normal = Variable(unit="N", description="normal force of the slider on the joint along n0")
    m_bending = Variable(unit="N.m", description="planar moment at frame_b (b.tau)")
    overlap = Variable(unit="m", description="overlap X_s of the sliding parts")
    normal_force = Variable(unit="N", description="effective normal force N of the friction law")
    slip_velocity = Variable(unit="m/s", description="slip velocity v = D(s)")
    friction_force = Variable(unit="N", description="friction force F, resisting (sign of v)")
    f_drive = Variable(unit="N", description="force of the flange (0 without a flange)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_friction(overrides)
        mode = _choice("overlap_delta", overrides.get("overlap_delta", "Constant"), _OVERLAP)
        if mode != "Constant":
            self.s_assembly = Variable(unit="m", description="s at the start time")

    def initial_equations(self):
        if hasattr(self, "s_assembly"):
            return [Eq(self.s_assembly, self.s)]
        return []

    def equations(self):
        fa, fb = self.frame_a, self.frame_b
        eps = self.normal_force_eps
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
        mode = _choice("overlap_delta", self.overlap_delta, _OVERLAP)
        if mode == "Constant":
            eqs += [Eq(self.overlap, self.initial_overlap)]
        else:
            sign = 1 if mode == "Increase" else -1
            eqs += [Eq(der(self.s_assembly), 0),
                    Eq(self.overlap, sp.Max(self.initial_overlap
                                            + sign * (self.s - self.s_assembly),
                                            self.min_overlap))]
        if self.use_flange:
            eqs += [Eq(self.flange_a.s, self.s), Eq(self.flange_a.f, self.f_drive)]
        else:
            eqs += [Eq(self.f_drive, 0)]
        if not self._active():
            return eqs + [Eq(self.normal_force, 0), Eq(self.friction_force, 0)]
        normal = sp.Integer(0)
        if self._bits["reaction_force"]:
            normal += _smooth_abs(self.f_normal, eps)
        if self._bits["bending_moment"]:
            normal += _smooth_abs(self.m_bending / self.overlap, eps)
        if not (self._bits["reaction_force"] or self._bits["bending_moment"]):
            normal += eps
        if self._bits["preload"]:
            normal += self._friction_on(self.force_preload / self.mu_static)
        f, law_eqs = self._friction_force(self.slip_velocity, self.normal_force)
        return eqs + law_eqs + [Eq(self.normal_force, normal), Eq(self.friction_force, f)]
