"""Coulomb joint friction of the generalized-forces notes (seed ``002``, after P. E. Nikravesh's
treatment of joint friction), solved either simultaneously with the dynamics or by the notes'
relaxation scheme.

The joints are the frictionless 3-D joints with a Coulomb friction force or torque whose level
is proportional to the joint's reaction force ``F`` (the cut force of frame_b, resolved in
frame_b; ``e`` the axis; ``|x|_eps = sqrt(x.x + eps^2) - eps`` as everywhere in the friction
joints; ``sgn_reg(v) = tanh(v/v_reg)`` or a linear zone, :func:`acausal.library.friction.coulomb`)::

    prismatic     F_NORMAL = |F_perp|_eps;  f_F = mu F_NORMAL
                  friction_force = f_F sgn_reg(v);                    f = f_drive - friction_force
    cylindrical   F_RADIAL = |F_perp|_eps
                  friction_force = mu F_RADIAL sgn_reg(v)             (axial)
                  friction_torque = mu R F_RADIAL sgn_reg(R w)        (torsional)
    revolute      F_RADIAL = |F_perp|_eps
                  T_F = mu R F_RADIAL + mu_END R_END |F . e|_eps
                  friction_torque = T_F sgn_reg(R w);   tau = tau_drive - friction_torque
    spherical     u = w_rel/|w_rel| (regularised);  F_AXIAL = |u . F|_eps
                  F_RADIAL = sqrt(|F|^2 - (u . F)^2 + eps^2) - eps
                  friction_torque = mu R (F_RADIAL + alpha F_AXIAL) u tanh(R |w_rel|/v_reg)

(the notes' ``F_AXIAL = u^T F`` is signed; its magnitude is used here, so that a thrust in
either direction adds friction.)

**Simultaneous or relaxation** (``solution``, structural). ``"simultaneous"`` (default): the
friction level is a function of the joint's current reaction ``reaction`` (= frame_b.f), and
the integrator's Newton iteration solves the reaction and the friction together (as the other
friction joints). ``"relaxation"``: the friction level is computed from the parameter
``relaxed_reaction`` (3 numbers, N, resolved in frame_b) instead; :func:`relax_friction`
then iterates the notes' scheme at one instant: start with no friction (``relaxed_reaction =
0``), solve the equations of motion, read each joint's ``reaction``, set
``relaxed_reaction <- (1 - omega) relaxed_reaction + omega reaction``, repeat until it stops
changing. Where it converges it gives the simultaneous solution; where the reaction's
sensitivity to the friction it feeds exceeds 1 (``|d reaction / d relaxed_reaction| >= 1``,
e.g. a light slider carrying a heavy arm close to the vertical) it diverges, which
docs/joint_friction.md shows.

Source: the seed's notes "Axial Coulomb friction in cylindrical or prismatic joints",
"Torsional Coulomb friction in revolute or cylindrical joints", "Torsional Coulomb friction in
spherical joint" (steps 1-7, the relaxation loop).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from acausal import Eq, Parameter, StuckMonitor, Variable
from acausal.errors import ModelDefinitionError, SimulationError
from acausal.library.friction import coulomb
from acausal.library.rotations import vector

from ..joint_friction import STUCK_SPEED_FACTOR, smooth_magnitude
from .interfaces import T
from .joint_friction import _OwnerDrivenPrismatic, _OwnerDrivenRevolute, split_along
from .joints import Cylindrical, Prismatic, Revolute, Spherical, unit_axis

__all__ = ["CylindricalWithCoulombFriction", "PrismaticWithCoulombFriction",
           "RelaxationResult", "RevoluteWithCoulombFriction", "SphericalWithCoulombFriction",
           "relax_friction"]

_SOLUTIONS = ("simultaneous", "relaxation")
_REGULARIZATIONS = ("tanh", "linear")
#: The stuck-joint report (docs/joint_friction.md, "Stuck joints") counts a joint stuck while
#: its surface slip stays below STUCK_SPEED_FACTOR*v_reg and its surface travel within this
#: [m]: ten times MotionSolve's default bristle deflection at rest (0.01 mm), the bound the
#: LuGre joints use (STUCK_TRAVEL_BRISTLES). A regularised Coulomb joint under a load creeps at
#: about v_reg*atanh(load/level); one that moves by no more in a whole run holds its load.
STUCK_TRAVEL = 1e-4


class _CoulombJointFriction:
    """Parameters and the reaction read by the Coulomb friction joints."""

    mu = Parameter(0.2, min=0.0, unit="1", description="Coulomb friction coefficient")
    v_reg = Parameter(1e-3, min=0.0, min_exclusive=True, unit="m/s",
                      description="regularisation speed of the sign (surface slip speed)")
    regularization = Parameter("tanh", structural=True, description="'tanh' or 'linear'")
    solution = Parameter("simultaneous", structural=True,
                         description="'simultaneous' or 'relaxation' (see relax_friction)")
    force_eps = Parameter(1e-3, min=0.0, unit="N",
                          description="eps of the smooth magnitude sqrt(x.x + eps^2) - eps")

    reaction = Variable(shape=3, unit="N",
                        description="the joint's reaction force: frame_b.f, resolved in frame_b")

    def _setup_coulomb(self, overrides: dict) -> None:
        decl = self._class_declarations()
        for name, allowed in (("solution", _SOLUTIONS), ("regularization", _REGULARIZATIONS)):
            value = str(overrides.get(name, decl[name].default)).lower()
            if value not in allowed:
                raise ModelDefinitionError(f"{type(self).__name__}: {name} must be one of "
                                           f"{', '.join(allowed)}; got {value!r}.")
        if str(overrides.get("solution", "simultaneous")).lower() == "relaxation":
            # only relaxation joints have it: relax_friction finds them by this parameter
            self.relaxed_reaction = Parameter((0.0, 0.0, 0.0), unit="N",
                                              description="the reaction (frame_b) the friction "
                                              "level is computed from (relax_friction sets it)")

    def _load(self) -> sp.Matrix:
        """The reaction the friction level is computed from (current or relaxed)."""
        if str(self.solution).lower() == "relaxation":
            return sp.Matrix(list(self.relaxed_reaction))
        return sp.Matrix([self.reaction[i] for i in range(3)])

    def _reaction_equations(self) -> list:
        return [Eq(self.reaction[i], self.frame_b.f[i]) for i in range(3)]

    def _sign(self, v, level):
        return coulomb(v, level, regularization=str(self.regularization).lower(),
                       v_reg=self.v_reg)

    def _magnitude(self, x):
        return smooth_magnitude(x, self.force_eps)

    def _coulomb_monitor(self, quantity: str, slip, travel, held, capacity,
                         motion=None) -> list:
        """The stuck-joint report's monitor: surface ``slip`` (positions ``travel``, None:
        integrated), the friction ``held`` against the level ``capacity``; ``motion``: (the
        joint's coordinate, its unit)."""
        return [StuckMonitor(quantity, slip=slip, speed_limit=STUCK_SPEED_FACTOR * self.v_reg,
                             travel=travel, motion=motion,
                             travel_limit=STUCK_TRAVEL, capacity=capacity, held=held,
                             details=(("reaction force", sp.sqrt(sum(
                                 (self.reaction[i] ** 2 for i in range(3)), sp.Integer(0))),
                                 "N"),),
                             advice="lower mu (the friction it can hold is mu times the "
                             "reaction force, times the radius for a torque)")]


class PrismaticWithCoulombFriction(_CoulombJointFriction, Prismatic):
    """Prismatic joint with the notes' axial Coulomb friction ``mu F_NORMAL``.

    Equations: :class:`~acausal.components.multibody.joints.Prismatic`'s, and
    ``F_NORMAL = |F_perp|_eps``, ``friction_force = mu F_NORMAL sgn_reg(v)``,
    ``f = f_drive - friction_force`` (module docstring).
    """

    normal_force = Variable(unit="N", description="F_NORMAL = |F_perp|_eps")
    friction_force = Variable(unit="N", description="friction force, resisting (sign of v)")
    f_drive = Variable(unit="N", description="force of the axis flange (0 without one)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_coulomb(overrides)

    def axis_load_equations(self) -> list:
        eqs = self.flange_equations(self.f_drive)
        _, f_perp = split_along(self._load(), unit_axis(self.n, self))
        return eqs + self._reaction_equations() + [
            Eq(self.normal_force, self._magnitude(f_perp)),
            Eq(self.friction_force, self._sign(self.v, self.mu * self.normal_force)),
            Eq(self.f, self.f_drive - self.friction_force)]

    def monitors(self) -> list:
        return self._coulomb_monitor("force", self.v, self.s, self.friction_force,
                                     self.mu * self.normal_force, (self.s, "m"))


class RevoluteWithCoulombFriction(_CoulombJointFriction, Revolute):
    """Revolute joint with the notes' torsional Coulomb friction, pin and end face:
    ``T_F = mu R F_RADIAL + mu_END R_END |F_z|``.

    Equations: :class:`~acausal.components.multibody.joints.Revolute`'s, and
    ``friction_torque = T_F sgn_reg(R w)``, ``tau = tau_drive - friction_torque``.
    """

    R = Parameter(0.01, min=0.0, min_exclusive=True, unit="m", description="pin radius R")
    mu_END = Parameter(0.0, min=0.0, unit="1", description="end-face friction coefficient")
    R_END = Parameter(0.01, min=0.0, unit="m", description="effective end-face radius R_END")

    radial_force = Variable(unit="N", description="F_RADIAL = |F_perp|_eps")
    axial_force = Variable(unit="N", description="|F . e|_eps, the thrust on the end face")
    friction_torque = Variable(unit="N.m", description="friction torque, resisting (sign of w)")
    tau_drive = Variable(unit="N.m", description="torque of the axis flange (0 without one)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_coulomb(overrides)

    def axis_load_equations(self) -> list:
        eqs = self.flange_equations(self.tau_drive)
        f_axial, f_perp = split_along(self._load(), unit_axis(self.n, self))
        level = self.mu * self.R * self.radial_force + self.mu_END * self.R_END * self.axial_force
        return eqs + self._reaction_equations() + [
            Eq(self.radial_force, self._magnitude(f_perp)),
            Eq(self.axial_force, self._magnitude(f_axial)),
            Eq(self.friction_torque, self._sign(self.R * self.w, level)),
            Eq(self.tau, self.tau_drive - self.friction_torque)]

    def monitors(self) -> list:
        level = self.mu * self.R * self.radial_force + self.mu_END * self.R_END * self.axial_force
        return self._coulomb_monitor("torque", self.R * self.w, self.R * self.phi,
                                     self.friction_torque, level, (self.phi, "rad"))


class CylindricalWithCoulombFriction(_CoulombJointFriction, Cylindrical):
    """Cylindrical joint with the notes' axial and torsional Coulomb friction, each with the
    level of the radial reaction: ``mu F_RADIAL`` along the axis, ``mu R F_RADIAL`` about it.

    Equations: :class:`~acausal.components.multibody.joints.Cylindrical`'s (its parts get their
    loads from here), ``prismatic.f = -friction_force``, ``revolute.tau = -friction_torque``.
    """

    _prismatic_class = _OwnerDrivenPrismatic
    _revolute_class = _OwnerDrivenRevolute

    R = Parameter(0.01, min=0.0, min_exclusive=True, unit="m",
                  description="radius R of the sleeve")

    radial_force = Variable(unit="N", description="F_RADIAL = |F_perp|_eps")
    friction_force = Variable(unit="N", description="axial friction force, resisting (sign of v)")
    friction_torque = Variable(unit="N.m", description="friction torque, resisting (sign of w)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_coulomb(overrides)

    def equations(self):
        _, f_perp = split_along(self._load(), unit_axis(self.n, self))
        level = self.mu * self.radial_force
        return [*super().equations(), *self._reaction_equations(),
                Eq(self.radial_force, self._magnitude(f_perp)),
                Eq(self.friction_force, self._sign(self.v, level)),
                Eq(self.friction_torque, self._sign(self.R * self.w, self.R * level)),
                Eq(self.prismatic.f, -self.friction_force),
                Eq(self.revolute.tau, -self.friction_torque)]

    def monitors(self) -> list:
        """The sleeve's surface slip (axial, circumferential) against its friction force."""
        return self._coulomb_monitor(
            "force", [self.v, self.R * self.w], [self.s, self.R * self.phi],
            [self.friction_force, self.friction_torque / self.R], self.mu * self.radial_force)


class SphericalWithCoulombFriction(_CoulombJointFriction, Spherical):
    """Spherical joint with the notes' Coulomb friction torque along the relative angular
    velocity: ``T = mu R (F_RADIAL + alpha F_AXIAL) u`` (module docstring), applied as
    ``b.t = T`` (frame_b), ``a.t = -T_a T_b' b.t``."""

    R = Parameter(0.01, min=0.0, min_exclusive=True, unit="m", description="ball radius R")
    alpha = Parameter(1.0, min=0.0, max=1.0, unit="1",
                      description="weight of the axial force (alpha <= 1)")

    w_rel = Variable(shape=3, unit="rad/s",
                     description="angular velocity of frame_b relative to frame_a, in frame_b")
    radial_force = Variable(unit="N", description="F_RADIAL, across the rotation axis")
    axial_force = Variable(unit="N", description="F_AXIAL, along the rotation axis")
    friction_torque = Variable(shape=3, unit="N.m",
                               description="friction torque (frame_b), resisting w_rel")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        self._setup_coulomb(overrides)

    def torque_equations(self) -> list:
        fa, fb = self.frame_a, self.frame_b
        w_rel = vector(fb.w) - T(fb) * T(fa).T * vector(fa.w)
        w = sp.Matrix([self.w_rel[i] for i in range(3)])
        # |w_rel|, kept away from 0 by 1e-6 of the regularisation rate so that u is defined
        # at rest (the tanh below makes the torque vanish there anyway)
        w_eps = sp.Float(1e-6) * self.v_reg / self.R
        speed = sp.sqrt(sum((c**2 for c in w), sp.Integer(0)) + w_eps**2)
        u = w / speed
        load = self._load()
        along = (u.T * load)[0]
        square = sum((c**2 for c in load), sp.Integer(0))
        level = self.mu * self.R * (self.radial_force + self.alpha * self.axial_force)
        direction = u * sp.tanh(self.R * speed / self.v_reg)
        eqs = [*(Eq(self.w_rel[i], w_rel[i]) for i in range(3)),
               *self._reaction_equations(),
               Eq(self.axial_force, self._magnitude(along)),
               Eq(self.radial_force,
                  sp.sqrt(square - along**2 + self.force_eps**2) - self.force_eps),
               *(Eq(self.friction_torque[i], level * direction[i]) for i in range(3)),
               *(Eq(fb.t[i], self.friction_torque[i]) for i in range(3))]
        a_t = vector(fa.t) + T(fa) * T(fb).T * vector(fb.t)
        return eqs + [Eq(a_t[i], 0) for i in range(3)]

    def monitors(self) -> list:
        """The ball's surface slip (3-D; its travel integrated over the output points)."""
        level = self.mu * self.R * (self.radial_force + self.alpha * self.axial_force)
        return self._coulomb_monitor(
            "torque", [self.R * self.w_rel[i] for i in range(3)], None,
            [self.friction_torque[i] for i in range(3)], level)


# ------------------------------------------------------------------------------------------
# the notes' relaxation scheme
# ------------------------------------------------------------------------------------------

@dataclass
class RelaxationResult:
    """Outcome of :func:`relax_friction` at one instant."""

    converged: bool
    iterations: int
    history: np.ndarray            # relaxed reactions per iteration (rows), all joints
    joints: list[str]              # joint paths, 3 columns each in ``history``
    values: dict = field(default_factory=dict)  # every variable at the last iterate, by name

    def __getitem__(self, name: str) -> float:
        return self.values[name]


def relax_friction(compiled, *, t: float = 0.0, params: dict | None = None, omega: float = 1.0,
                   tol: float = 1e-9, max_iter: int = 100) -> RelaxationResult:
    """The seed's relaxation scheme at time ``t`` for every Coulomb friction joint of
    ``compiled`` built with ``solution="relaxation"``: start with no friction
    (``relaxed_reaction = 0``), solve the model's equations at the start state, read each
    joint's ``reaction``, relax ``relaxed_reaction <- (1 - omega) relaxed + omega reaction``,
    repeat until the largest change is below ``tol * (1 + |reaction|)``.

    The start state is the model's initial state (its start values, solved by the
    initialisation for each iterate's friction). Returns a :class:`RelaxationResult`; raises
    :class:`~acausal.errors.SimulationError` naming the joints and the last changes when it
    does not converge in ``max_iter`` iterations (its ``result`` attribute holds the history).
    """
    from acausal.initialize import initialize

    names = [prm.name for prm in compiled.flat.parameters if ".relaxed_reaction[" in prm.name]
    if not names:
        raise ModelDefinitionError(
            "relax_friction: the model has no Coulomb friction joint with "
            "solution='relaxation' (its relaxed_reaction parameters are what the scheme "
            "iterates).")
    joints = sorted({n.rsplit(".relaxed_reaction[", 1)[0] for n in names})
    index = {n: i for i, n in enumerate(compiled.parameter_names)}
    slots = [index[f"{j}.relaxed_reaction[{k}]"] for j in joints for k in range(3)]
    p = compiled.parameter_vector(params)
    p[slots] = 0.0
    observed = compiled.function("observed")
    locations = [compiled.locate(f"{j}.reaction[{k}]") for j in joints for k in range(3)]
    history = [p[slots].copy()]
    converged = False
    for _ in range(max_iter):
        init = initialize(compiled, p, t)
        obs = np.array(observed(t, init.x0, init.z0, p)).ravel()
        reaction = np.array([sign * obs[i] if i >= 0 else 0.0 for sign, i in locations])
        new = (1.0 - omega) * p[slots] + omega * reaction
        change = np.max(np.abs(new - p[slots]))
        p[slots] = new
        history.append(new.copy())
        if not np.all(np.isfinite(new)):
            break
        if change <= tol * (1.0 + np.max(np.abs(reaction))):
            converged = True
            break
    values = {}
    for name in compiled.variable_names():
        sign, i = compiled.locate(name)
        values[name] = sign * obs[i] if i >= 0 else 0.0
    result = RelaxationResult(converged, len(history) - 1, np.array(history), joints, values)
    if converged:
        return result
    last = np.abs(np.diff(result.history[-3:], axis=0)).max(axis=1) if len(history) > 2 else []
    err = SimulationError(
        f"relax_friction: the relaxation of the friction reactions of {', '.join(joints)} did "
        f"not converge in {result.iterations} iterations (omega = {omega}; the last changes "
        f"were {', '.join(f'{c:.3g} N' for c in last)}). The reaction reacts to the friction "
        "it feeds with a gain of magnitude >= 1: lower omega (under-relaxation), or use "
        "solution='simultaneous', which solves the reaction and the friction together.")
    err.result = result
    raise err
