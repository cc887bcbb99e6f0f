"""What every joint with reaction-driven friction shares, planar or 3-D: MotionSolve's
``Force_JointFriction`` attributes, the ``inputs`` switches, the normal-force assembly and the
friction laws of :mod:`acausal.library.friction` applied to the joint's slip velocity.

The joints themselves live with their libraries (:mod:`acausal.components.planar.joint_friction`,
:mod:`acausal.components.multibody.joint_friction`); each states its own reaction components
(which force and which moment load which contact) and hands them to the methods here, so that
the law, the switches and the smoothing are written once.

**Normal force** (``eps = normal_force_eps`` [N]; ``|x|_0 = sqrt(x.x + eps^2) - eps``, a smooth
magnitude: differentiable everywhere, exactly 0 at 0, below ``|x|`` by less than ``eps``)::

    N = eps + sum over the joint's load inputs i of  b_i * |x_i|_0  +  b_P * preload/mu_static

so that ``N >= eps > 0`` (LuGre's ``G(v) = mu(v) N / k`` never vanishes) and a load that is
exactly zero contributes exactly nothing (a planar mechanism built from 3-D joints has the
planar joints' normal force). The preload is divided by ``mu_static`` so that it gives exactly
its nominal friction at stiction (the RecurDyn pattern, friction_models.md 1.5).
"""

from __future__ import annotations

import sympy as sp

from acausal import Eq, Parameter, Rule, StuckMonitor, Variable, der, event_if
from acausal.errors import ModelDefinitionError, did_you_mean
from acausal.library.friction import (
    coulomb,
    lugre,
    lugre_vector,
    slip_law_vector,
    stribeck_simscape,
)

__all__ = ["INPUT_BITS", "JointFrictionAttributes", "parse_inputs", "smooth_magnitude"]

#: Bit value of each friction input in ``inputs`` (MSB to LSB: preload, reaction force, bending
#: moment, torsional moment; the order of Adams' ``INPUTS=(PRELOAD:REACTION_FORCE:
#: BENDING_MOMENT:TORSIONAL_MOMENT)``; the bit values are [REC], friction_models.md 1.6).
INPUT_BITS = {"preload": 8, "reaction_force": 4, "bending_moment": 2, "torsional_moment": 1}

LAWS = ("lugre", "coulomb", "stribeck")
EFFECTS = {"all": "All", "stiction": "Stiction", "sliding": "Sliding"}
INACTIVE = {"none": "None", "static": "Static"}
OVERLAP = {"constant": "Constant", "increase": "Increase", "decrease": "Decrease"}
REGULARIZATIONS = ("tanh", "linear", "event")
#: regularization="event" switches the sign at v = EVENT_V_TOL [m/s] instead of exactly 0, so
#: that a joint that starts at v = 0 up to round-off starts on a definite branch (with the
#: threshold exactly 0 the round-off sign of v can depend on the branch, and the start-time
#: branch selection does not settle). 1e-9 m/s, not smaller: events are located to ~1e-12 s, in
#: which v moves by ~1e-12 m/s at 1 m/s2; a threshold below that can fire the same switch twice.
EVENT_V_TOL = 1e-9
#: Regularisation of the slip *speed* [m/s] (the LuGre laws' and ``slip_law_vector``'s
#: ``v_eps``): keeps |v| differentiable at rest and changes a steady friction force by
#: (v_eps/|v|)^2/2 relative. The friction sits in an algebraic loop with the joint's reaction;
#: a kink there (|v| at v = 0) makes the parameter sensitivities of the loop's variables jump,
#: which IDAS cannot step across (identify() failed at the first zero crossing of the speed).
SLIP_SPEED_EPS = 1e-9
#: Width of the smooth maximum ``max(k0, mu_s N/max_stiction_deform)`` of the LuGre bristle
#: stiffness, relative to ``bristle_stiffness`` (the LuGre laws' ``stiffness_eps``,
#: ``library.smooth.max_huber``): for the same reason, where the bound takes over as the load
#: passes ``N_c = k0 max_stiction_deform/mu_s``. Exact outside N_c +- 0.1 %, at most 2.5e-4
#: relative stiffer inside. Wider than SLIP_SPEED_EPS because N is an algebraic variable: the
#: band must exceed the spread of IDAS's Newton iterates of N (~rtol N), not only its steps.
STIFFNESS_EPS = 1e-3
#: The stuck-joint report (``monitors()``, docs/joint_friction.md "Stuck joints") counts a
#: contact stuck while its slip travel from the start stays within this many bristle
#: deflections at stiction (``z_s = mu_static N / k``, at most ``max_stiction_deform``). A
#: stuck LuGre contact moves by its bristle deflection (-z_s .. z_s), and more: loaded at once
#: (a joint released at the start), its bristle rings, nearly undamped on a heavy body, and
#: LuGre's hysteresis turns each cycle into a little creep before the ringing dies out
#: (measured: the issue-40 arm 1 z_s in 5 s, a 1 kg pendulum on a 1 cm pin 6.4 z_s in 2 s and
#: 9.1 z_s in 20 s). A joint that slides travels far more, except a pin of MotionSolve's 1 mm
#: radius swinging by less than about 10 z_s / 1 mm = 0.1 rad, which counts as stuck (the
#: report quotes the joint's motion). With the regularised laws the same bound marks a
#: contact that creeps by no more.
STUCK_TRAVEL_BRISTLES = 10
#: ... and while its slip speed stays below this many times the law's stiction (LuGre,
#: stribeck) or regularisation (coulomb) velocity. The travel decides; the speed only keeps a
#: contact that slides to and fro by a few micrometres at speed (a vibration) from counting as
#: stuck. Not 1: a stuck LuGre contact moves in its bristles, and when a load comes on at once
#: its surface speed passes stiction_trans_vel for a moment (a 1 kg pendulum released on a
#: 1 cm pin: 1.1 V_s; a ball joint loaded by 0.1 N m: 1.9 V_s).
STUCK_SPEED_FACTOR = 10


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


def choice(name: str, value, table: dict) -> str:
    """The canonical spelling of a case-insensitive keyword, or a named error."""
    key = "none" if value is None and "none" in table else str(value).lower()
    if key not in table:
        raise ModelDefinitionError(f"{name} must be one of "
                                   f"{', '.join(dict.fromkeys(table.values()))}; "
                                   f"got {value!r}.")
    return table[key]


def smooth_magnitude(x, eps):
    """``sqrt(x.x + eps^2) - eps`` for a scalar or a vector ``x``: differentiable everywhere,
    exactly 0 at ``x = 0``, and ``|x| - eps < . <= |x|``."""
    if isinstance(x, sp.MatrixBase):
        square = sum((c**2 for c in x), sp.Integer(0))
    else:
        square = sp.sympify(x) ** 2
    return sp.sqrt(square + eps**2) - eps


class JointFrictionAttributes:
    """Parameters and methods shared by the friction joints (MotionSolve ``Force_JointFriction``
    names; SI units, see docs/joint_friction.md "Units").

    A joint class sets ``FRICTION_INPUTS`` (the inputs that produce a normal force for it) and
    ``SLIP_DIRECTIONS`` (1, or 2/3 for a surface sliding in several directions), calls
    :meth:`_setup_friction` in ``__init__`` and uses :meth:`_normal_force_of`,
    :meth:`_friction_law` in ``equations()``.
    """

    FRICTION_INPUTS: tuple[str, ...] = ("preload", "reaction_force")
    SLIP_DIRECTIONS = 1

    law = Parameter("lugre", structural=True,
                    description="friction law: 'lugre', 'coulomb' or 'stribeck'")
    mu_static = Parameter(0.3, min=0.0, unit="1", description="static friction coefficient")
    mu_dynamic = Parameter(0.2, min=0.0, unit="1",
                           description="dynamic (kinetic) friction coefficient")
    stiction_trans_vel = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m/s",
                                   description="stiction transition velocity V_s (Canudas de "
                                   "Wit's 1 mm/s; see docs/joint_friction.md, Units)")
    max_stiction_deform = Parameter(1e-5, min=0.0, unit="m",
                                    description="largest bristle deflection at rest (LuGre "
                                    "stiffness raised to mu_static*N/max_stiction_deform when "
                                    "needed; 0: no bound; MotionSolve 0.01 mm)")
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
    v_reg = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m/s",
                      description="coulomb law regularisation velocity")
    normal_force_eps = Parameter(1e-3, min=0.0, min_exclusive=True, unit="N",
                                 description="eps of the smooth magnitude sqrt(x.x + eps^2) - eps "
                                 "and the floor of the normal force")

    parameter_rules = (
        Rule(("mu_dynamic", "mu_static"), "mu_dynamic <= mu_static (MotionSolve requires it); "
             "mu_static = 0 switches the friction off and admits any mu_dynamic",
             lambda mu_d, mu_s: mu_s == 0 or mu_d <= mu_s
             or f"mu_dynamic = {mu_d:g} exceeds mu_static = {mu_s:g}",
             advice="friction drops from stiction to sliding: give mu_dynamic <= mu_static"),
    )

    # guess 1 N: the laws divide by N, and the initialisation's default guess 0 gives 0/0
    normal_force = Variable(unit="N", guess=1.0,
                            description="effective normal force N of the friction law")

    solver_hint = (
        "(Joint friction) The friction force depends on the joint's reaction force, which "
        "depends on the friction force: an algebraic loop. With law='lugre' its sensitivity "
        "dF/dN is about damping_effects*|v_slip|/N, which grows without bound as the load N "
        "passes near zero, and the loop can fold (no solution); a larger pin_radius makes it "
        "worse. Lower damping_effects (e.g. 31.6 N s/m instead of 316), raise "
        "normal_force_eps, or use law='coulomb' or 'stribeck'.")

    # -- set-up ----------------------------------------------------------------------------
    def _setup_friction(self, overrides: dict) -> None:
        decl = self._class_declarations()

        def get(name):
            return overrides.get(name, decl[name].default)

        law = str(get("law")).lower()
        if law not in LAWS:  # the construction guard adds the joint's path when it can
            raise ModelDefinitionError(
                f"{type(self).__name__}: law={get('law')!r} is not a friction law."
                f"{did_you_mean(law, LAWS)} Give law= one of {', '.join(map(repr, LAWS))} "
                "(docs/joint_friction.md, 'Friction laws').")
        reg = str(get("regularization")).lower()
        if reg not in REGULARIZATIONS:
            raise ModelDefinitionError(f"{type(self).__name__}: regularization must be one of "
                                       f"{', '.join(REGULARIZATIONS)}; got {reg!r}.")
        if reg == "event" and self.SLIP_DIRECTIONS > 1 and law == "coulomb":
            raise ModelDefinitionError(
                f"{type(self).__name__}: regularization='event' switches the sign of a 1-D "
                "slip velocity; this joint slides in several directions. Use 'tanh' or "
                "'linear' (with v_reg), or law='lugre'.")
        choice("effect", get("effect"), EFFECTS)
        choice("inactive", get("inactive"), INACTIVE)
        self._law = law
        self._bits = parse_inputs(get("inputs"))
        if not self._active():
            return
        n = self.SLIP_DIRECTIONS
        shape = {} if n == 1 else {"shape": n}
        if law == "lugre":
            self.bristle = Variable(start=0.0, fixed=True, unit="m", **shape,
                                    description="LuGre bristle deflection z (state)")
            self.friction_bristle = Variable(unit="N", **shape,
                                             description="bristle stiffness term k*z")
            self.friction_damping = Variable(unit="N", **shape,
                                             description="bristle damping term "
                                             "damping_effects*D(z)")
            self.friction_viscous = Variable(unit="N", **shape,
                                             description="viscous term viscous_effects*v")

    # -- the stuck-joint report --------------------------------------------------------------
    def _stuck_monitor(self, quantity: str, slip, travel, held, normal, *, arm=1,
                       motion=None, details: tuple = (), advice: str = "") -> list:
        """The joint's :class:`~acausal.StuckMonitor` (a list of one, or none when the joint
        has no friction or cannot stick): ``slip`` the surface slip velocity (a list for
        several directions), ``travel`` the surface positions whose rates they are (None:
        integrated), ``held`` the friction torque or force, ``normal`` the normal force
        that limits it and ``arm`` the radius that turns a surface force into ``held``;
        ``motion``: (the joint's coordinate, its unit), whose largest change the report
        quotes; ``details``: (label, expression, unit) quoted in the report."""
        exact_sign = self._law == "coulomb" and str(self.regularization).lower() == "event"
        if not self._active() or exact_sign:  # the exact sign never sticks (it chatters)
            return []
        sliding = self._law == "coulomb" or self._effect() == "Sliding"
        mu = self.mu_dynamic if sliding else self.mu_static
        speed_limit = STUCK_SPEED_FACTOR * (self.v_reg if self._law == "coulomb"
                                            else self.stiction_trans_vel)
        k0, bound = self.bristle_stiffness, self.max_stiction_deform
        free = self.mu_static * normal / k0
        deflection = sp.Piecewise((sp.Min(free, bound), bound > 0), (free, True))
        return [StuckMonitor(quantity, slip=slip, speed_limit=speed_limit,
                             capacity=arm * mu * normal, held=held, travel=travel,
                             travel_limit=STUCK_TRAVEL_BRISTLES * deflection, motion=motion,
                             details=(("normal force", normal, "N"), *details),
                             advice=advice)]

    def _normal_details(self, *parts: tuple) -> tuple:
        """(label, expression, "N") of the normal force's parts whose input is switched on
        (``parts``: (input name, label, expression) each)."""
        return tuple((label, expr, "N") for name, label, expr in parts if self._bits[name])

    def _active(self) -> bool:
        """Whether any input this joint reads is switched on (else: no friction at all)."""
        return any(self._bits[name] for name in self.FRICTION_INPUTS)

    def _friction_on(self, expr):
        """``expr`` while ``mu_static > 0``, else 0: ``mu_static = 0`` switches the joint's
        friction off (whatever the law), without the 0/0 of the preload term or of LuGre's
        ``|v| z / G(v)`` with ``G = 0``."""
        return sp.Piecewise((expr, self.mu_static > 0), (0, True))

    # -- normal force ----------------------------------------------------------------------
    def _magnitude(self, x):
        return smooth_magnitude(x, self.normal_force_eps)

    def _normal_force_of(self, loads: dict, preload=0):
        """``eps + sum b_i * loads[i] + b_P * preload/mu_static`` (``loads``: input name ->
        a non-negative expression, e.g. a variable holding ``|x|_0``)."""
        normal = self.normal_force_eps
        for name, load in loads.items():
            if self._bits[name]:
                normal += load
        if self._bits["preload"] and preload != 0:
            normal += self._friction_on(preload / self.mu_static)
        return normal

    def _overlap_equations(self, s) -> list:
        """The overlap ``X_s`` of a sliding joint (``overlap_delta``): ``initial_overlap``,
        or ``max(initial_overlap +- (s - s_assembly), min_overlap)`` with ``s_assembly`` the
        displacement at the start (Adams: "DZ0 after the first successful assembly")."""
        mode = choice("overlap_delta", self.overlap_delta, OVERLAP)
        if mode == "Constant":
            return [Eq(self.overlap, self.initial_overlap)]
        sign = 1 if mode == "Increase" else -1
        return [Eq(der(self.s_assembly), 0),
                Eq(self.overlap, sp.Max(self.initial_overlap + sign * (s - self.s_assembly),
                                        self.min_overlap))]

    def _setup_overlap(self, overrides: dict) -> None:
        mode = choice("overlap_delta", overrides.get("overlap_delta", "Constant"), OVERLAP)
        if mode != "Constant":
            self.s_assembly = Variable(unit="m", description="displacement at the start time")

    # -- friction laws ---------------------------------------------------------------------
    def _effect(self) -> str:
        return choice("effect", self.effect, EFFECTS)

    def _friction_law(self, v, normal):
        """The resisting friction force ``F(v, N)`` (sign of ``v``) of a 1-D slip velocity and
        the law's own equations (LuGre: the bristle state and its three terms)."""
        effect = self._effect()
        if self._law == "lugre":
            res = lugre(v, self.bristle, normal, stiction_trans_vel=self.stiction_trans_vel,
                        mu_static=self.mu_static, mu_dynamic=self.mu_dynamic,
                        bristle_stiffness=self.bristle_stiffness,
                        damping_effects=self.damping_effects,
                        viscous_effects=self.viscous_effects, effect=effect,
                        max_stiction_deform=self.max_stiction_deform, v_eps=SLIP_SPEED_EPS,
                        stiffness_eps=STIFFNESS_EPS * self.bristle_stiffness)
            stiffness, damping, viscous = res.terms
            total = self.friction_bristle + self.friction_damping + self.friction_viscous
            if effect == "Stiction":
                total = sp.Piecewise((total, sp.Abs(v) < self.stiction_trans_vel), (0, True))
            return (total,
                    [Eq(der(self.bristle), self._friction_on(res.state_derivative)),
                     Eq(self.friction_bristle, self._friction_on(stiffness)),
                     Eq(self.friction_damping, self._friction_on(damping)),
                     Eq(self.friction_viscous, self._friction_on(viscous))])
        mu_s = self.mu_dynamic if effect == "Sliding" else self.mu_static
        if self._law == "coulomb":
            level = self.mu_dynamic * normal
            if str(self.regularization).lower() == "event":
                f = level * event_if(v > EVENT_V_TOL, 1, -1)
            else:
                f = coulomb(v, level, regularization=str(self.regularization).lower(),
                            v_reg=self.v_reg)
        else:
            f = stribeck_simscape(v, mu_s * normal, self.mu_dynamic * normal,
                                  self.viscous_effects, self.stiction_trans_vel)
        if effect == "Stiction":
            f = sp.Piecewise((f, sp.Abs(v) < self.stiction_trans_vel), (0, True))
        return self._friction_on(f), []

    def _friction_law_vector(self, v: list, normals: list):
        """Friction forces ``F_i`` (each with the sign of ``v_i``) of a surface sliding in
        several directions (``lugre_vector`` / ``slip_law_vector``; friction ellipse when the
        directions' loads ``normals`` differ) and the law's equations."""
        effect = self._effect()
        n = len(v)
        if self._law == "lugre":
            z = [self.bristle[i] for i in range(n)]
            res = lugre_vector(v, z, normals, stiction_trans_vel=self.stiction_trans_vel,
                               mu_static=self.mu_static, mu_dynamic=self.mu_dynamic,
                               bristle_stiffness=self.bristle_stiffness,
                               damping_effects=self.damping_effects,
                               viscous_effects=self.viscous_effects,
                               effect="Sliding" if effect == "Sliding" else "All",
                               max_stiction_deform=self.max_stiction_deform,
                               v_eps=SLIP_SPEED_EPS,
                               stiffness_eps=STIFFNESS_EPS * self.bristle_stiffness)
            speed2 = sum((x**2 for x in v), sp.Integer(0))
            eqs, forces = [], []
            for i in range(n):
                stiffness, damping, viscous = res.terms[i]
                eqs += [Eq(der(self.bristle[i]), self._friction_on(res.state_derivatives[i])),
                        Eq(self.friction_bristle[i], self._friction_on(stiffness)),
                        Eq(self.friction_damping[i], self._friction_on(damping)),
                        Eq(self.friction_viscous[i], self._friction_on(viscous))]
                total = (self.friction_bristle[i] + self.friction_damping[i]
                         + self.friction_viscous[i])
                if effect == "Stiction":
                    total = sp.Piecewise((total, speed2 < self.stiction_trans_vel**2), (0, True))
                forces.append(total)
            return forces, eqs
        mu_s = self.mu_dynamic if effect == "Sliding" else self.mu_static
        reg = str(self.regularization).lower()
        if self._law == "coulomb":
            def coefficient(speed):
                return coulomb(speed, self.mu_dynamic, regularization=reg, v_reg=self.v_reg)
            viscous = 0
        else:
            def coefficient(speed):
                return stribeck_simscape(speed, mu_s, self.mu_dynamic, 0,
                                         self.stiction_trans_vel)
            viscous = self.viscous_effects
        forces = slip_law_vector(v, normals, coefficient, viscous=viscous, v_eps=SLIP_SPEED_EPS)
        if effect == "Stiction":
            speed2 = sum((x**2 for x in v), sp.Integer(0))
            forces = [sp.Piecewise((f, speed2 < self.stiction_trans_vel**2), (0, True))
                      for f in forces]
        return [self._friction_on(f) for f in forces], []
