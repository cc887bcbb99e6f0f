"""Exact stick/slip friction (a hybrid automaton with a discrete mode), 1-D translational and
rotational.

After ``Modelica.Mechanics.Translational.Components.MassWithStopAndFriction`` and
``Modelica.Mechanics.Rotational.Components.BearingFriction`` (both built on
``Modelica.Mechanics.Translational/Rotational.Interfaces.PartialFriction``) of the Modelica
Standard Library (MSL). Unlike the regularised laws of ``acausal.library.friction`` the element
really sticks: while stuck the relative velocity is held exactly and the friction force is
whatever keeps it so, up to the static friction.

Modes, equations and events: the one stick/slip mechanism of :mod:`.stick_slip` (MSL's
``PartialFriction``: modes Forward +1, Stuck 0, Backward -1; these elements are never Free),
with the friction law (``F0 = F_Coulomb + F_Stribeck``, static friction ``peak*F0``)::

    v_rel = der(s_rel);  a_rel = der(v_rel)
    f_forward(v_rel)  =  F_prop*v_rel + F_Coulomb + F_Stribeck*exp(-fexp*v_rel)
    f_backward(v_rel) =  F_prop*v_rel - F_Coulomb - F_Stribeck*exp(+fexp*v_rel)
    f0_max = peak*F0

Limits. The mode at the start follows the initial values (``When(initial(), ...)``: the sign
of the relative velocity; at rest, a break-away when the force needed to stick exceeds the static
friction). No end stops, no normal-force input: ``F_*`` are parameters (the clutches and brakes
with a normal force are in :mod:`.clutches`). While stuck
``v_rel`` keeps the value it had at the located stop event (zero to ~1e-12 times the
acceleration), as in MSL.
"""

from __future__ import annotations

import sympy as sp

from acausal import Eq, Parameter, StuckMonitor, Variable, der

from . import rotational as _rot
from . import translational as _trans
from .stick_slip import StickSlip, select, select_d

__all__ = ["Friction", "GroundFriction", "RotationalFriction", "BearingFriction", "select",
           "select_d"]


class _StickSlip(StickSlip):
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

    def _f0_max(self):
        return self.peak * (self.F_Coulomb + self.F_Stribeck)

    def _friction_equations(self):
        v = self.v_rel
        f_forward = self.F_prop * v + self.F_Coulomb + self.F_Stribeck * sp.exp(-self.fexp * v)
        f_backward = self.F_prop * v - self.F_Coulomb - self.F_Stribeck * sp.exp(self.fexp * v)
        return [Eq(der(self.s_rel), v), Eq(der(v), self.a_rel),
                *self.stick_slip_equations(v, self.a_rel, self.f, f_forward, f_backward,
                                           self._f0_max())]

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
            capacity=self._f0_max(), held=self.f,
            advice="lower the static friction peak*(F_Coulomb + F_Stribeck), or raise the load")]

    def events(self):
        return self.stick_slip_events(self.v_rel, self._f0_max())


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

    Not MSL's parameterisation: MSL's BearingFriction (the friction torque table ``tau_pos``,
    two flanges, an optional support) is :class:`acausal.components.clutches.BearingFriction`.
    """

    flange = _rot.Flange()

    def equations(self):
        return [Eq(self.s_rel, self.flange.phi), Eq(self.flange.tau, self.f),
                *self._friction_equations()]
