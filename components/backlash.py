"""Backlash in series with a linear spring and damper, 1-D rotational (MSL 4.0
``Modelica.Mechanics.Rotational.Components.ElastoBacklash`` and ``ElastoBacklash2``).

Both elements have two flanges with MSL's relative states (``phi_rel``, ``w_rel`` preferred as
states, ``Interfaces.PartialCompliantWithRelativeStates``) and the optional heat port of
:class:`acausal.components.thermal.ConditionalHeatPort`. With ``phi_diff = phi_rel -
phi_rel0``, ``bMax = b/2``, ``bMin = -b/2`` and ``bEps = 1e-10`` rad::

    phi_rel = flange_b.phi - flange_a.phi;  w_rel = der(phi_rel);  a_rel = der(w_rel)
    flange_b.tau = tau;  flange_a.tau = -tau
    tau_d = d w_rel
    tau_c = c phi_diff                      |b| <= bEps (no backlash)
            c (phi_diff - bMax)             phi_diff > bMax    (contact, positive side)
            c (phi_diff - bMin)             phi_diff < bMin    (contact, negative side)
            0                               otherwise          (in the gap)

and the flange torque ``tau`` and ``lossPower`` as each class states: in the gap both are 0,
in contact the spring and damper push but never pull (the damping torque is limited so that
the total torque does not change sign). The contact relations ``phi_diff > bMax`` and
``phi_diff < bMin`` are events (``event_if``): the solver stops where contact begins or ends.
``|b| <= bEps`` is a parameter condition, evaluated without events.

Differences from MSL: MSL replaces the characteristic during initialisation by a strictly
increasing one in ``1.5 bMin <= phi_diff <= 1.5 bMax`` (so that a tool can invert it when the
initial angle is computed from a torque); here initialisation uses the characteristic above
with the contact region found from the initial values. Start the element with a given angle
(``phi_rel`` fixed, or the flanges' angles), as the MSL examples do. 1-D parts have no viewer
shape.
"""

from __future__ import annotations

import sympy as sp

from acausal import Eq, Parameter, Variable, der, event_if
from acausal.errors import ParameterError

from .rotational import STATE_SELECT, Flange
from .thermal import ConditionalHeatPort

#: MSL's minimum backlash: below it the element is a plain spring-damper
BEPS = 1e-10
#: Modelica.Constants.eps (MSL 4.0)
EPS = 1e-15


class _Backlash(ConditionalHeatPort):
    """The parameters, variables and the equations shared by the two backlash elements."""

    c = Parameter(1.0e5, min=0.0, min_exclusive=True, unit="N.m/rad",
                  description="spring constant (> 0)")
    d = Parameter(0.0, min=0.0, unit="N.m.s/rad", description="damping constant")
    b = Parameter(0.0, min=0.0, unit="rad", description="total backlash")
    phi_rel0 = Parameter(0.0, unit="rad", description="unstretched spring angle")
    phi_nominal = Parameter(1e-4, min=0.0, unit="rad", structural=True,
                            description="nominal value of phi_rel (its scaling in the solver)")
    stateSelect = Parameter("prefer", description="'default', 'prefer' or 'always': priority of "
                            "phi_rel and w_rel as states")
    flange_a = Flange()
    flange_b = Flange()
    phi_rel = Variable(start=0.0, unit="rad", description="relative angle "
                       "flange_b.phi - flange_a.phi")
    w_rel = Variable(start=0.0, unit="rad/s", description="relative speed der(phi_rel)")
    a_rel = Variable(start=0.0, unit="rad/s2", description="relative acceleration der(w_rel)")
    tau = Variable(unit="N.m", description="torque between the flanges (= flange_b.tau)")
    tau_c = Variable(unit="N.m", description="spring torque")
    tau_d = Variable(unit="N.m", description="damper torque d w_rel")
    phi_diff = Variable(unit="rad", description="phi_rel - phi_rel0")

    def __init__(self, **overrides):
        name = type(self).__name__
        select = overrides.get("stateSelect", "prefer")
        if select not in STATE_SELECT:
            raise ParameterError(f"{name}: stateSelect must be one of "
                                 f"{', '.join(STATE_SELECT)}, got {select!r}.")
        nominal = overrides.get("phi_nominal", 1e-4)
        if not isinstance(nominal, (int, float)) or nominal < 0:
            raise ParameterError(f"{name}: phi_nominal must be a number >= 0 [rad], got "
                                 f"{nominal!r}.")
        priority = STATE_SELECT[select]
        # MSL: phi_rel(nominal = if phi_nominal >= eps then phi_nominal else 1)
        given = {"phi_rel": Variable(nominal=float(nominal) if nominal >= EPS else 1.0,
                                     state_priority=priority),
                 "w_rel": Variable(state_priority=priority)}
        for var, base in given.items():
            overrides[var] = base.merged(overrides[var]) if var in overrides else base
        super().__init__(**overrides)

    def _contact(self, above, below, inside=0):
        """``above`` if phi_diff > bMax, ``below`` if phi_diff < bMin, else ``inside``
        (each relation an event)."""
        b_max = self.b / 2
        return event_if(self.phi_diff > b_max, above,
                        event_if(self.phi_diff < -b_max, below, inside))

    def _no_backlash(self, plain, otherwise):
        """``plain`` for a backlash |b| <= bEps, else ``otherwise`` (a parameter test)."""
        return sp.Piecewise((plain, sp.Abs(self.b) <= BEPS), (otherwise, True))

    def _common_equations(self) -> list:
        b_max = self.b / 2
        c, phi_diff = self.c, self.phi_diff
        return [Eq(self.phi_rel, self.flange_b.phi - self.flange_a.phi),
                Eq(self.w_rel, der(self.phi_rel)), Eq(self.a_rel, der(self.w_rel)),
                Eq(self.flange_b.tau, self.tau), Eq(self.flange_a.tau, -self.tau),
                Eq(phi_diff, self.phi_rel - self.phi_rel0),
                Eq(self.tau_c, self._no_backlash(
                    c * phi_diff, self._contact(c * (phi_diff - b_max), c * (phi_diff + b_max)))),
                Eq(self.tau_d, self.d * self.w_rel),
                *self.heat_port_equations()]


class ElastoBacklash(_Backlash):
    """Backlash in series with a spring and a damper; the flange torque is continuous (MSL
    ``Rotational.Components.ElastoBacklash``).

    Common equations (``phi_diff = phi_rel - phi_rel0``, ``bMax = b/2 = -bMin``,
    ``bEps = 1e-10`` rad; the contact relations are events)::

        phi_rel = flange_b.phi - flange_a.phi;  w_rel = der(phi_rel);  a_rel = der(w_rel)
        flange_b.tau = tau;  flange_a.tau = -tau;  tau_d = d w_rel
        tau_c = c phi_diff (|b| <= bEps);  c (phi_diff - bMax) (phi_diff > bMax);
                c (phi_diff - bMin) (phi_diff < bMin);  0 (in the gap)

    and, with ``tau_cd = tau_c + tau_d``::

        |b| <= bEps:       tau = tau_cd;  lossPower = tau_d w_rel
        phi_diff > bMax:   tau = 0 if tau_cd <= 0 else tau_c + min(tau_c, tau_d)
                           lossPower = 0 if tau_cd <= 0 else min(tau_c, tau_d) w_rel
        phi_diff < bMin:   tau = 0 if tau_cd >= 0 else tau_c + max(tau_c, tau_d)
                           lossPower = 0 if tau_cd >= 0 else max(tau_c, tau_d) w_rel
        in the gap:        tau = 0;  lossPower = 0

    The inner switches (``tau_cd <= 0``, ``min``, ``max``) are continuous and generate no
    events (MSL ``smooth(0, noEvent(...))``): at first contact ``tau_c = 0`` and ``tau``
    starts from 0; the damping torque is limited to the spring torque, so the damper never
    pulls the flanges together.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/ElastoBacklash.mo``.
    """

    def equations(self):
        tau_c, tau_d, w = self.tau_c, self.tau_d, self.w_rel
        tau_cd = tau_c + tau_d
        tau = self._contact(
            sp.Piecewise((0, tau_cd <= 0), (tau_c + sp.Min(tau_c, tau_d), True)),
            sp.Piecewise((0, tau_cd >= 0), (tau_c + sp.Max(tau_c, tau_d), True)))
        loss = self._contact(
            sp.Piecewise((0, tau_cd <= 0), (sp.Min(tau_c, tau_d) * w, True)),
            sp.Piecewise((0, tau_cd >= 0), (sp.Max(tau_c, tau_d) * w, True)))
        return [*self._common_equations(),
                Eq(self.tau, self._no_backlash(tau_cd, tau)),
                Eq(self.lossPower, self._no_backlash(tau_d * w, loss))]


class ElastoBacklash2(_Backlash):
    """Backlash in series with a spring and a damper; at the start of contact the flange torque
    jumps to the damping torque (MSL ``Rotational.Components.ElastoBacklash2``).

    Common equations (``phi_diff = phi_rel - phi_rel0``, ``bMax = b/2 = -bMin``,
    ``bEps = 1e-10`` rad; the contact relations are events)::

        phi_rel = flange_b.phi - flange_a.phi;  w_rel = der(phi_rel);  a_rel = der(w_rel)
        flange_b.tau = tau;  flange_a.tau = -tau;  tau_d = d w_rel
        tau_c = c phi_diff (|b| <= bEps);  c (phi_diff - bMax) (phi_diff > bMax);
                c (phi_diff - bMin) (phi_diff < bMin);  0 (in the gap)

    and, with ``tau_cd = tau_c + tau_d``::

        |b| <= bEps:       tau = tau_cd;  lossPower = tau_d w_rel
        phi_diff > bMax:   tau = 0 if tau_cd <= 0 else tau_cd
                           lossPower = 0 if tau_cd <= 0 else tau_d w_rel
        phi_diff < bMin:   tau = 0 if tau_cd >= 0 else tau_cd
                           lossPower = 0 if tau_cd >= 0 else tau_d w_rel
        in the gap:        tau = 0;  lossPower = 0

    Every switch is an event (MSL writes these ``if``s without ``noEvent``): contact, and the
    instant the spring and damper torque would pull (``tau_cd`` changes sign), where the torque
    drops to 0 while the flanges are still in contact.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/ElastoBacklash2.mo``.
    """

    def equations(self):
        tau_c, tau_d, w = self.tau_c, self.tau_d, self.w_rel
        tau_cd = tau_c + tau_d
        tau = self._contact(event_if(tau_cd <= 0, 0, tau_cd), event_if(tau_cd >= 0, 0, tau_cd))
        loss = self._contact(event_if(tau_cd <= 0, 0, tau_d * w),
                             event_if(tau_cd >= 0, 0, tau_d * w))
        return [*self._common_equations(),
                Eq(self.tau, self._no_backlash(tau_cd, tau)),
                Eq(self.lossPower, self._no_backlash(tau_d * w, loss))]


__all__ = ["BEPS", "ElastoBacklash", "ElastoBacklash2"]
