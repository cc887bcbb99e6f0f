"""Exact stick/slip friction (a hybrid automaton with a discrete mode), 1-D translational and
rotational.

After ``Modelica.Mechanics.Translational.Components.MassWithStopAndFriction`` and
``Modelica.Mechanics.Rotational.Components.BearingFriction`` (both built on
``Modelica.Mechanics.Translational/Rotational.Interfaces.PartialFriction``) of the Modelica
Standard Library (MSL). Unlike the regularised laws of ``acausal.library.friction`` the element
really sticks: while stuck the relative velocity is held exactly and the friction force is
whatever keeps it so, up to the static friction.

Modes (the Discrete variable ``mode``)::

    mode = +1   sliding forward   (v_rel > 0)
    mode =  0   stuck             (a_rel = 0, v_rel held at its value when sticking, ~0)
    mode = -1   sliding backward  (v_rel < 0)

Equations (``locked = 1 - mode**2``, ``F0 = F_Coulomb + F_Stribeck``,
``F_static = peak * F0``; ``sa`` is the dimensionless path parameter of MSL's
``PartialFriction``)::

    v_rel = der(s_rel);  a_rel = der(v_rel)
    f     = sa * [N]                                            if locked
            F_prop*v_rel + mode*(F_Coulomb + F_Stribeck*exp(-fexp*|v_rel|))   else
    a_rel = 0                                                   if locked
            (sa - mode*F_static/[N]) * [m/s2]                   else

Events (``When`` clauses; every action is computed from the pre-event values)::

    v_rel < 0  becomes true:              mode := 0 if mode = +1 (forward slide stops)
    v_rel > 0  becomes true:              mode := 0 if mode = -1 (backward slide stops)
    (sa if locked else 0) > F_static:     mode := +1 (break away forward)
    (sa if locked else 0) < -F_static:    mode := -1 (break away backward)

At the instant a slide stops the element sticks; event iteration then solves the stuck system
for the force ``sa`` that sticking needs and, if it exceeds the static friction, the element slides
on in the other direction at the same instant (reversal through the stuck mode, as MSL's
``startForward``/``startBackward``).

Formulation. The two mode-switched equations keep the *same structure* in every mode: ``f``,
``a_rel`` and ``sa`` occur in both, so matching, index reduction and the state choice do not
depend on the mode, and the element works also when ``v_rel`` is not a state (a joint inside a
kinematic loop whose speed is a dummy derivative, where Modelica tools report singular systems:
ModelicaStandardLibrary issues #4129, #4272). The switch is written with :class:`select`, a
function sympy does not see through: the compiler's tearing never divides by a coefficient that
is zero in one of the modes; the small linear loop ``(sa, f, a_rel, ...)`` is solved with the
run-time matrix, which is nonsingular in every mode (stuck: ``sa`` from the force balance,
sliding: ``f`` from the friction law).

Limits. The element starts in the mode given by ``mode`` (default 0, stuck). Start it
consistently: stuck with ``|required force| <= F_static`` (a When clause never fires at the start
time), or give ``mode=Discrete(start=1)`` / ``-1`` with a relative velocity of that sign. No end
stops, no normal-force input (MSL ``Brake``/``Clutch``): ``F_*`` are parameters. While stuck
``v_rel`` keeps the value it had at the located stop event (zero to ~1e-12 times the
acceleration), as in MSL.
"""

from __future__ import annotations

import casadi as ca
import sympy as sp

from acausal import (
    Component,
    Discrete,
    Eq,
    Parameter,
    StuckMonitor,
    Variable,
    When,
    assign,
    der,
    register_function,
)

from . import rotational as _rot
from . import translational as _trans


class select_d(sp.Function):  # noqa: N801 - sympy function naming
    """``select_d(c, a, b)`` = 1 if ``c > 1/2`` else 0: the derivative of :class:`select` with
    respect to ``a``. ``a`` and ``b`` are dummy arguments that keep the coefficient from
    looking constant to the compiler's tearing (see :class:`select`)."""

    nargs = 3

    def fdiff(self, argindex=1):
        return sp.S.Zero


class select(sp.Function):  # noqa: N801 - sympy function naming
    """``select(c, a, b)`` = ``a`` if ``c > 1/2`` else ``b``, for a condition ``c`` made of
    Discrete variables (a mode switch; no events: the mode changes only in When actions).

    Same value as ``Piecewise((a, c > 1/2), (b, True))``, but its derivative with respect to
    ``a`` (``select_d(c, a, b)``) contains ``a`` and ``b``: the compiler's tearing, which pivots
    on coefficients made of parameters and Discrete variables, does not solve an equation for an
    unknown whose coefficient is zero in one mode (core issue reported in
    ``bugs_stickslip.md``); such loops are solved with the run-time matrix instead.
    """

    nargs = 3
    # for the compiler's unit check: a and b share the result's unit
    unit_branches = (1, 2)

    def fdiff(self, argindex=1):
        c, a, b = self.args
        if argindex == 1:
            return sp.S.Zero
        if argindex == 2:
            return select_d(c, a, b)
        return 1 - select_d(c, a, b)


register_function(select, lambda c, a, b: ca.if_else(c > 0.5, a, b))
register_function(select_d, lambda c, a, b: ca.if_else(c > 0.5, 1.0, 0.0))


class _StickSlip(Component):
    """Shared stick/slip equations on a relative coordinate ``s_rel`` (see the module docstring).

    Subclasses define the flanges and ``s_rel`` and connect the force ``f`` (names are the
    translational ones; the rotational classes use torques with the same variable names).
    """

    F_prop = Parameter(0.0, min=0.0, unit="N.s/m",
                       description="velocity dependent friction coefficient")
    F_Coulomb = Parameter(1.0, min=0.0, unit="N",
                          description="Coulomb (kinetic) friction force (>= 0)")
    F_Stribeck = Parameter(0.0, min=0.0, unit="N",
                           description="Stribeck friction force at v_rel = 0, "
                           "decaying with exp(-fexp*|v_rel|) (>= 0)")
    fexp = Parameter(1.0, min=0.0, unit="s/m",
                     description="exponential decay of the Stribeck force")
    peak = Parameter(1.0, min=1.0, unit="1", description="static friction = peak*(F_Coulomb + "
                     "F_Stribeck) (>= 1)")
    s_rel = Variable(unit="m", description="relative displacement")
    v_rel = Variable(unit="m/s", description="relative velocity der(s_rel)")
    a_rel = Variable(unit="m/s2", description="relative acceleration der(v_rel)")
    f = Variable(unit="N", description="friction force (positive against positive v_rel)")
    # no unit: MSL's sa has unit "1" and its equations multiply it by unitForce and
    # unitAcceleration (constants of 1 N and 1 m/s2); here it stands for a force while stuck
    # and for an acceleration while sliding, so its unit is left unknown to the unit check
    sa = Variable(start=0.0, description="path parameter: force/[N] while stuck, "
                  "a_rel/[m/s2] + mode*F_static/[N] while sliding (no unit: it is both)")
    mode = Discrete(start=0.0, description="+1 forward sliding, 0 stuck, -1 backward sliding")

    def _friction_equations(self):
        mode = self.mode
        locked = 1 - mode**2
        f_static = self.peak * (self.F_Coulomb + self.F_Stribeck)
        # |v_rel| = mode*v_rel while sliding: smooth, no Abs
        f_slide = self.F_prop * self.v_rel + mode * (
            self.F_Coulomb + self.F_Stribeck * sp.exp(-self.fexp * mode * self.v_rel))
        return [Eq(der(self.s_rel), self.v_rel),
                Eq(der(self.v_rel), self.a_rel),
                Eq(self.f, select(locked, self.sa, f_slide)),
                Eq(self.a_rel, select(locked, 0, self.sa - mode * f_static))]

    #: what the element holds and the unit of s_rel (the stuck-joint report's wording)
    _held, _unit = "force", "m"
    #: the stuck-joint report counts the element stuck while ``s_rel`` stays within this of
    #: its start (m or rad) and ``mode`` is 0 at every output point: while stuck ``v_rel`` is
    #: held at its value at the stop event, ~1e-12 times the acceleration, so ``s_rel`` creeps
    #: by far less; a breakaway between two output points moves it by more
    STUCK_TRAVEL = 1e-6

    def monitors(self):
        """The stuck-joint report (docs/joint_friction.md, "Stuck joints"): the element
        never left its stuck mode while it held a force (or torque)."""
        return [StuckMonitor(
            self._held, slip=self.mode, speed_limit=sp.Rational(1, 2),
            travel=self.s_rel, travel_limit=self.STUCK_TRAVEL, motion=(self.s_rel, self._unit),
            capacity=self.peak * (self.F_Coulomb + self.F_Stribeck), held=self.f,
            advice="lower the static friction peak*(F_Coulomb + F_Stribeck), or raise the load")]

    def events(self):
        mode = self.mode
        locked = 1 - mode**2
        f_static = self.peak * (self.F_Coulomb + self.F_Stribeck)
        held = select(locked, self.sa, 0)  # constant 0 while sliding: no spurious crossings
        return [
            When(self.v_rel < 0, assign(mode, sp.Piecewise((0, mode > 0.5), (mode, True)))),
            When(self.v_rel > 0, assign(mode, sp.Piecewise((0, mode < -0.5), (mode, True)))),
            When(held > f_static, assign(mode, 1)),
            When(held < -f_static, assign(mode, -1)),
        ]


class Friction(_StickSlip):
    """Stick/slip friction between two translational flanges (the friction of MSL
    ``MassWithStopAndFriction`` / ``SupportFriction`` as a separate element).

    Equations: ``s_rel = flange_b.s - flange_a.s``; ``flange_b.f = f``; ``flange_a.f = -f``;
    plus the stick/slip equations and events of the module docstring (``f`` acts against the
    relative motion of flange_b with respect to flange_a).
    """

    flange_a = _trans.Flange()
    flange_b = _trans.Flange()

    def equations(self):
        return [Eq(self.s_rel, self.flange_b.s - self.flange_a.s),
                Eq(self.flange_b.f, self.f), Eq(self.flange_a.f, -self.f),
                *self._friction_equations()]


class GroundFriction(_StickSlip):
    """Stick/slip friction of a translational flange against the fixed ground
    (``Friction`` with flange_a fixed at 0).

    Equations: ``s_rel = flange.s``; ``flange.f = f``; plus the stick/slip equations and events
    of the module docstring.

    Source: MSL ``Modelica.Mechanics.Translational.Components.SupportFriction`` (with a fixed
    support), ``PartialFriction`` for the stick/slip logic.
    """

    flange = _trans.Flange()

    def equations(self):
        return [Eq(self.s_rel, self.flange.s), Eq(self.flange.f, self.f),
                *self._friction_equations()]


class _RotationalUnits(_StickSlip):
    _held, _unit = "torque", "rad"
    F_prop = Parameter(0.0, min=0.0, unit="N.m.s/rad", description="velocity dependent friction "
                       "coefficient")
    F_Coulomb = Parameter(1.0, min=0.0, unit="N.m",
                          description="Coulomb (kinetic) friction torque (>= 0)")
    F_Stribeck = Parameter(0.0, min=0.0, unit="N.m",
                           description="Stribeck friction torque at w_rel = 0, "
                           "decaying with exp(-fexp*|w_rel|) (>= 0)")
    fexp = Parameter(1.0, min=0.0, unit="s/rad",
                     description="exponential decay of the Stribeck torque")
    s_rel = Variable(unit="rad", description="relative angle")
    v_rel = Variable(unit="rad/s", description="relative angular velocity der(s_rel)")
    a_rel = Variable(unit="rad/s2", description="relative angular acceleration der(v_rel)")
    f = Variable(unit="N.m", description="friction torque (positive against positive v_rel)")


class RotationalFriction(_RotationalUnits):
    """Stick/slip friction between two rotational flanges (the friction law of MSL
    ``Rotational.Components.BearingFriction``, acting on the relative rotation; MSL's ``Clutch``
    with a constant normal force).

    Same equations as :class:`Friction` with angles and torques: ``s_rel = flange_b.phi -
    flange_a.phi`` [rad], ``v_rel`` [rad/s], ``a_rel`` [rad/s2], friction torque ``f`` [N.m]
    (``flange_b.tau = f``, ``flange_a.tau = -f``); ``F_prop``, ``F_Coulomb``, ``F_Stribeck``
    are torques (MSL's ``tau_pos`` table as Coulomb + Stribeck + viscous terms).
    """

    flange_a = _rot.Flange()
    flange_b = _rot.Flange()

    def equations(self):
        return [Eq(self.s_rel, self.flange_b.phi - self.flange_a.phi),
                Eq(self.flange_b.tau, self.f), Eq(self.flange_a.tau, -self.f),
                *self._friction_equations()]


class BearingFriction(_RotationalUnits):
    """Stick/slip friction of a rotational flange against the fixed support (MSL
    ``Rotational.Components.BearingFriction`` with ``useSupport=false``, one flange; connect it
    to an Inertia or to a planar Revolute's ``flange_a`` for joint friction).

    Equations: ``s_rel = flange.phi``; ``flange.tau = f``; plus the stick/slip equations and
    events of the module docstring (angles, torques).
    """

    flange = _rot.Flange()

    def equations(self):
        return [Eq(self.s_rel, self.flange.phi), Eq(self.flange.tau, self.f),
                *self._friction_equations()]
