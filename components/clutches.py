"""Rotational friction elements pressed by a normal force, and the table-driven bearing friction
(after ``Modelica.Mechanics.Rotational.Components`` of MSL 4.0): ``Clutch``, ``Brake``,
``OneWayClutch``, ``BearingFriction``.

Each element sticks exactly: its mode logic is the one stick/slip mechanism of
:mod:`.stick_slip` (MSL's ``Rotational.Interfaces.PartialFriction``; modes Forward +1, Stuck 0,
Backward -1, Free 2), fed with the element's relative speed, its friction torque and its static
friction. What the elements add is where the friction comes from:

* the normal force ``fn = fn_max*f_normalized`` [N] from the signal input ``f_normalized``
  (a :class:`~acausal.components.blocks.RealInput`, 0..1), the sliding friction coefficient
  ``mu(w)`` from the table ``mu_pos`` (column 0 the speed [rad/s] >= 0, column 1 mu [1]; linear
  interpolation, extrapolation through the last two points), the geometry constant ``cgeo`` [m]:
  sliding torque ``cgeo*mu(|w|)*fn`` against the motion, static friction ``peak*cgeo*mu(0)*fn``;
  the element is Free (no torque) while ``fn <= 0``;
* for ``BearingFriction`` the sliding torque itself as the table ``tau_pos`` [N.m] against the
  speed [rad/s] (no normal force, never Free).

Tables are 2-D array-likes (or CSV paths) evaluated by
:func:`acausal.components.tables.table_value`; they are structural parameters (numbers of the
compiled model: a new table recompiles).

Limits (as the mechanism's): MSL's hysteresis ``pre(startForward) and sa > tau0`` within one
event instant is not modelled; ``w_small`` (MSL's threshold for reinit impulses) is absent
(MSL's default 1e10 disables it). MSL's ``startForward``/``startBackward`` are the instants at
which ``mode`` leaves 0 for +1/-1. The tables are interpolated linearly, as MSL 4.0's
``Modelica.Math.Vectors.interpolate`` (no ``smoothness`` choice in these MSL 4.0 elements).

Sources: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/Clutch.mo``, ``Brake.mo``,
``OneWayClutch.mo``, ``BearingFriction.mo``, ``Interfaces/PartialFriction.mo``,
``Interfaces/PartialCompliantWithRelativeStates.mo`` and
``Interfaces/PartialElementaryTwoFlangesAndSupport2.mo`` (revision of the v4.0.0 reference
results, bd753330a).
"""

from __future__ import annotations

import sympy as sp

from acausal import Eq, Parameter, Variable, der, event_if

from .blocks import RealInput
from .rotational import Flange, OptionalSupport
from .stick_slip import StickSlip, is_stuck, select
from .tables import TableParameters, table_value
from .thermal import ConditionalHeatPort

__all__ = ["Clutch", "Brake", "OneWayClutch", "BearingFriction"]

#: MSL's StateSelect.prefer as a state priority (the relative states of a clutch)
PREFER = 10
#: MSL's OneWayClutch.eps0: relative hysteresis of the freewheel's break-away
EPS0 = 1.0e-4


def _table_at(component, name: str, u):
    """The table parameter ``name`` of ``component`` at ``u`` (MSL's
    ``Modelica.Math.Vectors.interpolate``: linear, extrapolated through the last two rows)."""
    return table_value(getattr(component, name), u,
                       where=f"{type(component).__name__} '{component.path}': {name}")


class _RelativeFriction(StickSlip, ConditionalHeatPort):
    """Two flanges and their relative angle, speed and acceleration as states (MSL
    ``PartialCompliantWithRelativeStates``: ``phi_rel``, ``w_rel`` with StateSelect.prefer)."""

    flange_a = Flange()
    flange_b = Flange()
    phi_rel = Variable(start=0.0, unit="rad", state_priority=PREFER,
                       description="relative rotation angle flange_b.phi - flange_a.phi")
    w_rel = Variable(start=0.0, unit="rad/s", state_priority=PREFER,
                     description="relative angular velocity der(phi_rel)")
    a_rel = Variable(start=0.0, unit="rad/s2",
                     description="relative angular acceleration der(w_rel)")
    tau = Variable(unit="N.m", description="friction torque, flange_b.tau = tau, "
                   "flange_a.tau = -tau (positive against positive w_rel)")

    def relative_equations(self, loss_power=None) -> list:
        """Kinematics, flange torques and the heat port; ``lossPower = tau*w_rel`` unless
        ``loss_power`` is given."""
        loss = self.tau * self.w_rel if loss_power is None else loss_power
        return [Eq(self.phi_rel, self.flange_b.phi - self.flange_a.phi),
                Eq(der(self.phi_rel), self.w_rel), Eq(der(self.w_rel), self.a_rel),
                Eq(self.flange_b.tau, self.tau), Eq(self.flange_a.tau, -self.tau),
                Eq(self.lossPower, loss), *self.heat_port_equations()]


class _NormalForce(TableParameters):
    """The parameters and variables of an element pressed by ``fn = fn_max*f_normalized``
    with a friction coefficient table ``mu_pos`` (mixed into a Component)."""

    table_parameters = ("mu_pos",)

    mu_pos = Parameter(((0.0, 0.5),), structural=True, unit="1",
                       description="sliding friction coefficient: rows [w [rad/s], mu [1]] for "
                       "w >= 0 (linear interpolation, extrapolation through the last two rows)")
    peak = Parameter(1.0, min=1.0, unit="1",
                     description="static friction = peak*mu(0)*cgeo*fn (>= 1)")
    cgeo = Parameter(1.0, min=0.0, unit="m", description="geometry constant containing the "
                     "friction distribution, e.g. N*(r_o + r_i)/2 for N plate interfaces (MSL: "
                     "a Real without unit; a length here, so that tau = cgeo*mu*fn is N.m)")
    fn_max = Parameter(1.0, min=0.0, unit="N", description="maximum normal force")
    f_normalized = RealInput()
    fn = Variable(unit="N", description="normal force fn_max*f_normalized")
    tau0 = Variable(unit="N.m", description="friction torque at w = 0 while sliding, "
                    "mu(0)*cgeo*fn")
    tau0_max = Variable(unit="N.m", description="static friction torque peak*tau0")

    def mu(self, w):
        """The sliding friction coefficient at the speed ``w`` >= 0 (from ``mu_pos``)."""
        return _table_at(self, "mu_pos", w)

    @property
    def mu0(self) -> float:
        """``mu(0)``: the friction coefficient at rest (a number)."""
        return float(_table_at(self, "mu_pos", 0))

    def normal_force_equations(self) -> list:
        return [Eq(self.fn, self.fn_max * self.f_normalized.u),
                Eq(self.tau0, self.mu0 * self.cgeo * self.fn),
                Eq(self.tau0_max, self.peak * self.tau0)]

    def friction_equations(self, w, a) -> list:
        """The stick/slip equations with MSL's sliding torque: ``cgeo*fn*mu(w)`` forward,
        ``-cgeo*fn*mu(-w)`` backward."""
        k = self.cgeo * self.fn
        return self.stick_slip_equations(w, a, self.tau, k * self.mu(w), -k * self.mu(-w),
                                         self.tau0_max)


class Clutch(_NormalForce, _RelativeFriction):
    """Clutch: friction between two flanges pressed together by a normal force (MSL
    ``Rotational.Components.Clutch``).

    Parameters: ``mu_pos`` (table [w [rad/s], mu [1]], default ``[[0, 0.5]]``), ``peak``
    (>= 1), ``cgeo`` [m], ``fn_max`` [N]; ``useHeatPort`` (structural). Input:
    ``f_normalized`` (RealInput, 0..1; the clutch is engaged while > 0).

    Equations (``mode``, ``sa`` and the mode logic: :mod:`.stick_slip`)::

        phi_rel = flange_b.phi - flange_a.phi;  w_rel = der(phi_rel);  a_rel = der(w_rel)
        flange_b.tau = tau;  flange_a.tau = -tau
        fn = fn_max*f_normalized;  free = fn <= 0
        tau0 = mu(0)*cgeo*fn;  tau0_max = peak*tau0
        tau = sa [N.m]                     stuck (a_rel = 0)
              0                            free  (a_rel = sa)
              cgeo*fn*mu(w_rel)            forward sliding  (a_rel = sa - tau0_max)
              -cgeo*fn*mu(-w_rel)          backward sliding (a_rel = sa + tau0_max)
        lossPower = tau*w_rel;  heatPort.Q_flow = -lossPower (with useHeatPort)

    (MSL 4.0's Clutch.mo takes ``-mu(+w_rel)`` in the instant of a backward break-away, where
    ``w_rel = 0``: the same value as ``-mu(-w_rel)`` used here.)

    ``phi_rel`` and ``w_rel`` are preferred states (MSL's StateSelect.prefer): while stuck,
    ``w_rel`` is held exactly. Give them fixed start values where MSL's example fixes them,
    e.g. ``Clutch(phi_rel=Variable(start=0.0, fixed=True))``.

    Locking time of two free inertias ``J1`` (speed ``w1``) and ``J2`` (``w2 < w1``) coupled by
    a clutch under a constant normal force: the sliding torque ``T = cgeo*mu*fn`` decelerates
    ``J1`` by ``T/J1`` and accelerates ``J2`` by ``T/J2``, so the slip ``w1 - w2`` falls at the
    rate ``T (J1 + J2)/(J1 J2)`` and vanishes at ``t = J1 J2 (w1 - w2)/((J1 + J2) cgeo mu fn)``
    (``tests/components/test_clutches.py``).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/Clutch.mo`` with
    ``Interfaces/PartialFriction.mo`` and ``Interfaces/PartialCompliantWithRelativeStates.mo``.
    """

    def equations(self):
        return [*self.relative_equations(), *self.normal_force_equations(),
                *self.friction_equations(self.w_rel, self.a_rel)]

    def events(self):
        return self.stick_slip_events(self.w_rel, self.tau0_max, free=self.fn <= 0)


class _OnSupport(StickSlip, OptionalSupport, ConditionalHeatPort):
    """Two rigidly joined flanges turning against the (optional) support (MSL
    ``PartialElementaryTwoFlangesAndSupport2`` with the variables of ``Brake`` and
    ``BearingFriction``: ``phi``, ``w``, ``a``, ``tau``)."""

    flange_a = Flange()
    flange_b = Flange()
    phi = Variable(unit="rad", description="angle of flange_a and flange_b relative to the "
                   "support")
    w = Variable(unit="rad/s", description="angular velocity der(phi) relative to the support")
    a = Variable(unit="rad/s2", description="angular acceleration der(w)")
    tau = Variable(unit="N.m", description="friction torque flange_a.tau + flange_b.tau "
                   "(positive against positive w)")

    def support_side_equations(self) -> list:
        return [Eq(self.phi, self.flange_a.phi - self.phi_support),
                Eq(self.flange_b.phi, self.flange_a.phi),
                Eq(der(self.phi), self.w), Eq(der(self.w), self.a),
                Eq(self.flange_a.tau + self.flange_b.tau - self.tau, 0),
                *self.support_equations(self.flange_a.tau, self.flange_b.tau),
                Eq(self.lossPower, self.tau * self.w), *self.heat_port_equations()]


class Brake(_NormalForce, _OnSupport):
    """Brake: friction between a shaft (two rigidly joined flanges) and the housing, pressed by
    a normal force (MSL ``Rotational.Components.Brake``).

    Parameters as :class:`Clutch` (``mu_pos``, ``peak``, ``cgeo`` [m], ``fn_max`` [N],
    ``useHeatPort``) and ``useSupport`` (structural: with it the housing is the flange
    ``support``, which takes the reaction; without it the housing is fixed). Input:
    ``f_normalized`` (RealInput, 0..1; the brake acts while > 0).

    Equations (``mode``, ``sa`` and the mode logic: :mod:`.stick_slip`)::

        phi = flange_a.phi - phi_support;  flange_b.phi = flange_a.phi
        w = der(phi);  a = der(w)
        flange_a.tau + flange_b.tau - tau = 0;  support.tau = -(flange_a.tau + flange_b.tau)
        fn = fn_max*f_normalized;  free = fn <= 0
        tau0 = mu(0)*cgeo*fn;  tau0_max = peak*tau0
        tau = sa [N.m]  stuck (a = 0);  0  free (a = sa)
              cgeo*fn*mu(w)  forward (a = sa - tau0_max);  -cgeo*fn*mu(-w)  backward
              (a = sa + tau0_max)
        lossPower = tau*w

    A stuck brake holds any torque up to ``tau0_max = peak*mu(0)*cgeo*fn``; above it the shaft
    slides against ``cgeo*mu*fn``.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/Brake.mo`` with
    ``Interfaces/PartialFriction.mo`` and ``Interfaces/PartialElementaryTwoFlangesAndSupport2.mo``.
    """

    def equations(self):
        return [*self.support_side_equations(), *self.normal_force_equations(),
                *self.friction_equations(self.w, self.a)]

    def events(self):
        return self.stick_slip_events(self.w, self.tau0_max, free=self.fn <= 0)


class BearingFriction(TableParameters, _OnSupport):
    """Coulomb friction of a bearing with a measured friction curve (MSL
    ``Rotational.Components.BearingFriction``, parameterised as in MSL: the table ``tau_pos``).

    Not :class:`acausal.components.friction.BearingFriction`: that one has one flange, no
    support and a friction law from constants (``F_Coulomb`` + ``F_Stribeck*exp(-fexp*|w|)`` +
    ``F_prop*w``); this one is MSL's element as it is, with two rigidly joined flanges
    ``flange_a``/``flange_b`` (a shaft through the bearing), the optional ``support`` (the
    housing; ``useSupport``) and the sliding torque read from a table.

    Parameters: ``tau_pos`` (table [w [rad/s], tau [N.m]] for w >= 0, default ``[[0, 1]]``;
    linear interpolation, extrapolation through the last two rows), ``peak`` (>= 1: static
    friction ``peak*tau_pos(0)``), ``useSupport``, ``useHeatPort`` (structural). Never free.

    Equations (``mode``, ``sa`` and the mode logic: :mod:`.stick_slip`)::

        phi = flange_a.phi - phi_support;  flange_b.phi = flange_a.phi
        w = der(phi);  a = der(w)
        flange_a.tau + flange_b.tau - tau = 0;  support.tau = -(flange_a.tau + flange_b.tau)
        tau0 = tau_pos(0);  tau0_max = peak*tau0
        tau = sa [N.m]  stuck (a = 0)
              tau_pos(w)   forward sliding  (a = sa - tau0_max)
              -tau_pos(-w) backward sliding (a = sa + tau0_max)
        lossPower = tau*w

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/BearingFriction.mo`` with
    ``Interfaces/PartialFriction.mo``.
    """

    table_parameters = ("tau_pos",)
    tau_pos = Parameter(((0.0, 1.0),), structural=True, unit="N.m",
                        description="sliding friction torque: rows [w [rad/s], tau [N.m]] for "
                        "w >= 0 (linear interpolation, extrapolation through the last two rows)")
    peak = Parameter(1.0, min=1.0, unit="1",
                     description="static friction = peak*tau_pos(0) (>= 1)")

    @property
    def tau0(self) -> float:
        """``tau_pos(0)``: the sliding friction torque at w = 0 [N.m] (a number)."""
        return float(_table_at(self, "tau_pos", 0))

    def _tau_pos(self, w):
        return _table_at(self, "tau_pos", w)

    def equations(self):
        f0_max = self.peak * self.tau0
        return [*self.support_side_equations(),
                *self.stick_slip_equations(self.w, self.a, self.tau, self._tau_pos(self.w),
                                           -self._tau_pos(-self.w), f0_max)]

    def events(self):
        return self.stick_slip_events(self.w, self.peak * self.tau0)


class OneWayClutch(_NormalForce, _RelativeFriction):
    """One-way clutch: a freewheel in parallel with a clutch (MSL
    ``Rotational.Components.OneWayClutch``). The freewheel locks when ``w_rel`` would become
    negative; the clutch, engaged by ``f_normalized``, adds friction while ``w_rel > 0``.

    Parameters and input as :class:`Clutch`. The start must have ``w_rel >= 0`` (MSL: other
    configurations are physically impossible).

    Modes (``mode``): +1 sliding forward (``w_rel > 0``), 0 stuck (the freewheel, or the clutch,
    holds: ``a_rel = 0``); never -1 or 2 (free: the freewheel still locks).

    Equations::

        phi_rel = flange_b.phi - flange_a.phi;  w_rel = der(phi_rel);  a_rel = der(w_rel)
        flange_b.tau = tau;  flange_a.tau = -tau
        free = f_normalized <= 0;  fn = 0 if free else fn_max*f_normalized
        tau0 = mu(0)*cgeo*fn
        tau0_max = eps0*mu(0)*cgeo*fn_max if free else peak2*tau0
                   (eps0 = 1e-4, peak2 = max(peak, 1 + eps0))
        tau = sa [N.m] stuck (a_rel = 0);  cgeo*fn*mu(w_rel) forward (a_rel = sa - tau0_max)
        lossPower = 0 stuck;  tau*w_rel forward
    Events: a forward slide whose ``w_rel`` reaches 0 sticks; stuck, it slides forward when
    ``sa > tau0_max``; a negative ``sa`` (any size) is held by the freewheel.

    MSL writes the sliding acceleration ``a_rel = sa - tau0``; ``sa`` is only a path parameter
    while sliding, so ``sa - tau0_max`` (the mechanism's) gives the same motion. At rest MSL's
    ``free`` threshold ``eps0*mu(0)*cgeo*fn_max`` lets the freewheel open under a tiny torque.

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/OneWayClutch.mo``.
    """

    def normal_force_equations(self) -> list:
        u = self.f_normalized.u
        tau0_max_low = EPS0 * self.mu0 * self.cgeo * self.fn_max
        peak2 = sp.Max(self.peak, 1 + EPS0)
        return [Eq(self.fn, self.fn_max * event_if(u <= 0, 0, u)),
                Eq(self.tau0, self.mu0 * self.cgeo * self.fn),
                Eq(self.tau0_max, event_if(u <= 0, tau0_max_low, peak2 * self.tau0))]

    def equations(self):
        k = self.cgeo * self.fn
        loss = select(is_stuck(self.mode), 0, self.tau * self.w_rel)
        return [*self.relative_equations(loss),
                *self.normal_force_equations(),
                *self.stick_slip_equations(self.w_rel, self.a_rel, self.tau,
                                           k * self.mu(self.w_rel), 0, self.tau0_max)]

    def events(self):
        # a freewheel never slides backward: stuck, it holds any negative sa
        return self.stick_slip_events(self.w_rel, self.tau0_max, backward=False)
