"""Translational friction elements with exact sticking (after
``Modelica.Mechanics.Translational.Components`` of MSL 4.0): ``MassWithStopAndFriction``,
``SupportFriction`` and ``Brake``.

Each element's mode logic is the one stick/slip mechanism of :mod:`.stick_slip` (MSL's
``Translational.Interfaces.PartialFriction``: modes Forward +1, Stuck 0, Backward -1, Free 2; the
path parameter ``sa``; the gated mode switches), fed with the element's speed ``v`` against the
support, its acceleration ``a`` and its friction force ``f`` (positive against positive ``v``).
What the elements add is where the friction comes from, and the end stops of the sliding mass:

* ``MassWithStopAndFriction``: a sliding mass whose friction law is written with constants
  (``F_prop*v + F_Coulomb + F_Stribeck*exp(-fexp*|v|)``), with hard stops that the mass's ends
  cannot pass (an impact sets the speed to zero);
* ``SupportFriction``: the sliding friction force as the table ``f_pos`` [N] against the speed
  [m/s] (never free);
* ``Brake``: a normal force ``fn = fn_max*f_normalized`` [N] from a signal input, the friction
  coefficient table ``mu_pos`` against the speed: sliding force ``cgeo*mu(|v|)*fn`` against the
  motion, free (no force) while ``fn <= 0``.

Tables are 2-D array-likes (or CSV paths) evaluated by
:func:`acausal.components.tables.table_value` (linear interpolation, extrapolation through the
last two rows, as MSL 4.0's ``Modelica.Math.Vectors.interpolate``); they are structural
parameters (a new table recompiles).

Limits (as the mechanism's): MSL's hysteresis ``pre(startForward) and sa > f0`` within one event
instant is not modelled; MSL's ``startForward``/``startBackward`` are the instants at which
``mode`` leaves 0 for +1/-1; ``v_small`` (MSL's threshold of a reversal without a stop, reached
only through a jump of the speed) is accepted and has no effect: every sign change of ``v`` is a
located event.

Sources: MSL 4.0 ``Modelica/Mechanics/Translational/Components/MassWithStopAndFriction.mo``,
``SupportFriction.mo``, ``Brake.mo``, ``Interfaces/PartialFriction.mo`` and
``Interfaces/PartialElementaryTwoFlangesAndSupport2.mo`` (revision of the v4.0.0 reference
results, bd753330a).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from acausal import Discrete, Eq, Parameter, Variable, When, assign, der, initial, reinit
from acausal.errors import ParameterError

from . import translational_shapes
from .blocks import RealInput
from .stick_slip import FREE, STUCK, StickSlip, is_stuck, select
from .tables import TableParameters, table_value
from .thermal import ConditionalHeatPort
from .translational import Flange, OptionalSupport, PartialRigid

__all__ = ["MassWithStopAndFriction", "SupportFriction", "Brake"]

#: MSL's StateSelect.always (``s`` and ``v`` of the sliding mass: the stops reinit them)
ALWAYS = 100


def _at_upper(stopped: Any) -> Any:
    """1 when ``stopped`` (-1, 0 or +1) is +1, else 0 (exact on the three integers)."""
    return stopped * (stopped + 1) / 2


def _at_lower(stopped: Any) -> Any:
    """1 when ``stopped`` (-1, 0 or +1) is -1, else 0."""
    return stopped * (stopped - 1) / 2


def _number(component: Any, overrides: dict, name: str) -> float | None:
    """The value of the parameter ``name`` given at instantiation (or declared), when it is a
    number; None for an expression."""
    value = overrides.get(name, component._class_declarations()[name].default)
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class MassWithStopAndFriction(StickSlip, PartialRigid, ConditionalHeatPort):
    """Sliding mass with Stribeck friction against the ground and hard stops at both ends (MSL
    ``Translational.Components.MassWithStopAndFriction``).

    Parameters: ``m`` [kg], ``L`` [m] (the flanges are at ``s -+ L/2``), ``smax``, ``smin`` [m]
    (the right end ``s + L/2`` stays at or below ``smax``, the left end ``s - L/2`` at or above
    ``smin``), ``F_prop`` [N.s/m], ``F_Coulomb``, ``F_Stribeck`` [N], ``fexp`` [s/m],
    ``peak`` [1] (static friction ``peak*(F_Coulomb + F_Stribeck)``; MSL fixes it at 1.001, the
    default), ``v_small`` [m/s] (MSL's, no effect here: see the module docstring),
    ``useHeatPort`` (structural).

    Equations (``mode``, ``sa`` and the stick/slip logic: :mod:`.stick_slip`)::

        flange_a.s = s - L/2;  flange_b.s = s + L/2
        v = der(s);  a = der(v)
        m a = flange_a.f + flange_b.f - f
        f0 = F_Coulomb + F_Stribeck;  f0_max = peak*f0
        f - f_stop = sa [N]                                   stuck (a = 0)
                     0                                        free  (a = sa)
                     F_prop*v + F_Coulomb + F_Stribeck*exp(-fexp*v)   forward
                     F_prop*v - F_Coulomb - F_Stribeck*exp(+fexp*v)   backward
        f_stop = max(f, 0)   stuck at the upper stop (stopped = +1)
                 min(f, 0)   stuck at the lower stop (stopped = -1)
                 0           otherwise
        lossPower = f*v;  heatPort.Q_flow = -lossPower (with useHeatPort)

    Stops (MSL: ``when stopped <> 0 then reinit(s, ...); reinit(v, 0)``): when ``s`` crosses
    ``smax - L/2`` (``smin + L/2``) the mass is put at the stop with ``v = 0`` (a fully plastic
    impact: its kinetic energy is lost, and, as MSL says, not counted in ``lossPower``), the
    mode becomes Stuck and ``stopped`` +1 (-1). At the stop MSL never lets the mass slide into
    the stop (``startForward`` requires ``s < smax - L/2``) and holds any push: here the stop's
    reaction ``f_stop`` takes the part of the holding force ``f`` that pushes into the stop,
    and the friction (the mechanism's ``sa``) the part that pulls away; so the mass stays while
    pushed, and slides away (``mode`` -1, ``stopped`` 0) when the pull exceeds the static
    friction, as in MSL. ``f`` is MSL's force: friction plus the stop's reaction.

    MSL's ``free`` (no friction at all: ``f0 <= 0 and F_prop <= 0``) is the Free mode between
    the stops; at a stop the mass is stuck, and Free again when it leaves.

    ``s`` and ``v`` are states (MSL's StateSelect.always: the stops reinit them); give them
    fixed start values as MSL's examples do (``s=Variable(start=0.0, fixed=True)``). An impact
    sets this mass's ``v`` only: as MSL's documentation asks, connect other masses through
    springs or dampers, which then keep their speeds (their own states; the MSL reference result
    of ``Examples.HeatLosses`` stops the mass behind the spring-damper too, a consequence of
    Dymola's state choice that breaks its momentum balance: see
    ``tests/validation/translational/test_heat_losses.py``).

    Start: between the stops, or at a stop at rest (MSL asserts this). A mass that starts at a
    stop and is not pulled off it beyond the static friction rests there (``stopped`` +-1,
    Stuck); pulled harder it slides off at once.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/MassWithStopAndFriction.mo``
    (with its ``PartialFrictionWithStop``) and ``Interfaces/PartialRigid.mo``.
    """

    m = Parameter(1.0, min=0.0, unit="kg", description="mass")
    smax = Parameter(25.0, unit="m", description="right stop for the right end s + L/2 of "
                     "the sliding mass")
    smin = Parameter(-25.0, unit="m", description="left stop for the left end s - L/2 of the "
                     "sliding mass")
    v_small = Parameter(1e-3, min=0.0, unit="m/s", description="MSL's relative velocity near "
                        "zero; accepted, no effect (mode changes are located events)")
    F_prop = Parameter(1.0, min=0.0, unit="N.s/m", description="velocity dependent friction")
    F_Coulomb = Parameter(5.0, unit="N", description="constant friction: Coulomb force")
    F_Stribeck = Parameter(10.0, unit="N", description="Stribeck effect: the friction's excess "
                           "at v = 0, decaying with exp(-fexp*|v|)")
    fexp = Parameter(2.0, min=0.0, unit="s/m", description="exponential decay of the Stribeck "
                     "effect")
    peak = Parameter(1.001, min=1.0, unit="1", description="static friction = peak*(F_Coulomb "
                     "+ F_Stribeck) (MSL: fixed at 1.001)")

    s = Variable(start=0.0, unit="m", state_priority=ALWAYS,
                 description="absolute position of the centre of the mass")
    v = Variable(start=0.0, unit="m/s", state_priority=ALWAYS,
                 description="absolute velocity of flange_a and flange_b")
    a = Variable(start=0.0, unit="m/s2", description="absolute acceleration of flange_a and "
                 "flange_b")
    f = Variable(unit="N", description="friction force plus the reaction of a stop (positive "
                 "against positive v)")
    f_stop = Variable(unit="N", description="reaction of the stop the mass rests at (0 away "
                      "from the stops)")
    stopped = Discrete(start=0.0, description="+1 resting at the upper stop, -1 at the lower "
                       "stop, 0 otherwise (MSL's stopped)")

    visual_shapes = translational_shapes.mass_with_stops

    def __init__(self, **overrides):
        super().__init__(**overrides)
        smax, smin, length = (_number(self, overrides, k) for k in ("smax", "smin", "L"))
        if None not in (smax, smin, length) and smax - smin < length:
            raise ParameterError(
                f"MassWithStopAndFriction: the stops are {smax - smin:g} m apart (smax = "
                f"{smax:g}, smin = {smin:g}), less than the mass's length L = {length:g} m: "
                "give smax - smin >= L.")

    def _f0(self) -> Any:
        return self.F_Coulomb + self.F_Stribeck

    def _f0_max(self) -> Any:
        return self.peak * self._f0()

    def _free(self) -> Any:
        return sp.And(self._f0() <= 0, self.F_prop <= 0)

    def equations(self):
        v, stopped = self.v, self.stopped
        f_forward = self.F_prop * v + self.F_Coulomb + self.F_Stribeck * sp.exp(-self.fexp * v)
        f_backward = self.F_prop * v - self.F_Coulomb - self.F_Stribeck * sp.exp(self.fexp * v)
        reaction = _at_upper(stopped) * sp.Max(self.f, 0) + _at_lower(stopped) * sp.Min(self.f, 0)
        return [*PartialRigid.equations(self),
                Eq(der(self.s), v), Eq(der(v), self.a),
                Eq(self.m * self.a, self.flange_a.f + self.flange_b.f - self.f),
                Eq(self.f_stop, select(is_stuck(self.mode), reaction, 0)),
                *self.stick_slip_equations(v, self.a, self.f - self.f_stop, f_forward,
                                           f_backward, self._f0_max()),
                Eq(self.lossPower, self.f * v), *self.heat_port_equations()]

    def events(self):
        m, stopped, s, v = self.mode, self.stopped, self.s, self.v
        upper, lower = self.smax - self.L / 2, self.smin + self.L / 2
        f0_max = self._f0_max()
        # each stop's indicator is switched off (a constant) while the mass rests at it: s sits
        # exactly on the stop there, and a zero indicator would be a root at every step
        hits_upper = select(_at_upper(stopped), -1, s - upper) > 0
        hits_lower = select(_at_lower(stopped), 1, s - lower) < 0
        # discrete only: true at the event at which the mode leaves Stuck while at a stop
        leaves = stopped**2 * (1 - is_stuck(m)) > sp.Rational(1, 2)
        # a start at a stop, at rest and not pulled off it beyond the static friction: resting
        # at the stop (MSL: Forward and Backward need s strictly inside the stops). The
        # positions are compared to the rounding of smax - L/2 (a start value written as a
        # number); this clause comes after the mechanism's, so its Stuck wins
        near = 1e-12 * (1 + sp.Abs(upper) + sp.Abs(lower))
        at_rest = sp.And(v >= 0, v <= 0)
        starts_upper = sp.And(s - upper >= -near, at_rest, self.sa >= -f0_max)
        starts_lower = sp.And(s - lower <= near, at_rest, self.sa <= f0_max)
        return [*self.stick_slip_events(v, f0_max, free=self._free()),
                When(initial(),
                     assign(stopped, sp.Piecewise((1, starts_upper), (-1, starts_lower),
                                                  (0, True))),
                     assign(m, sp.Piecewise((STUCK, sp.Or(starts_upper, starts_lower)),
                                            (m, True)))),
                When(hits_upper, reinit(s, upper), reinit(v, 0), assign(m, STUCK),
                     assign(stopped, 1)),
                When(hits_lower, reinit(s, lower), reinit(v, 0), assign(m, STUCK),
                     assign(stopped, -1)),
                When(leaves, assign(stopped, 0),
                     assign(m, sp.Piecewise((FREE, self._free()), (m, True))))]


class _OnSupport(StickSlip, OptionalSupport, ConditionalHeatPort):
    """Two rigidly joined flanges sliding against the (optional) support (MSL
    ``PartialElementaryTwoFlangesAndSupport2`` with the variables of ``SupportFriction`` and
    ``Brake``: ``s``, ``v``, ``a``, ``f``)."""

    flange_a = Flange()
    flange_b = Flange()
    s = Variable(unit="m", description="position of flange_a and flange_b relative to the "
                 "support")
    v = Variable(unit="m/s", description="velocity der(s) relative to the support")
    a = Variable(unit="m/s2", description="acceleration der(v)")
    f = Variable(unit="N", description="friction force flange_a.f + flange_b.f (positive "
                 "against positive v)")

    def support_side_equations(self) -> list:
        return [Eq(self.s, self.flange_a.s - self.s_support),
                Eq(self.flange_b.s, self.flange_a.s),
                Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.flange_a.f + self.flange_b.f - self.f, 0),
                *self.support_equations(self.flange_a.f, self.flange_b.f),
                Eq(self.lossPower, self.f * self.v), *self.heat_port_equations()]

    def _where(self, name: str) -> str:
        named = f" '{self._path}'" if getattr(self, "_path", None) else ""
        return f"{type(self).__name__}{named}: {name}"


class SupportFriction(TableParameters, _OnSupport):
    """Coulomb friction between two rigidly joined flanges and the support, with a measured
    friction curve (MSL ``Translational.Components.SupportFriction``).

    Parameters: ``f_pos`` (table rows [v [m/s], f [N]] for v >= 0, default ``[[0, 1]]``; linear
    interpolation, extrapolation through the last two rows), ``peak`` (>= 1: static friction
    ``peak*f_pos(0)``), ``useSupport``, ``useHeatPort`` (structural). Never free.

    Equations (``mode``, ``sa`` and the mode logic: :mod:`.stick_slip`)::

        s = flange_a.s - s_support;  flange_b.s = flange_a.s
        v = der(s);  a = der(v)
        flange_a.f + flange_b.f - f = 0;  support.f = -(flange_a.f + flange_b.f)
        f0 = f_pos(0);  f0_max = peak*f0
        f = sa [N]      stuck (a = 0)
            f_pos(v)    forward sliding  (a = sa - f0_max)
            -f_pos(-v)  backward sliding (a = sa + f0_max)
        lossPower = f*v;  heatPort.Q_flow = -lossPower (with useHeatPort)

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/SupportFriction.mo`` with
    ``Interfaces/PartialFriction.mo``.
    """

    table_parameters = ("f_pos",)
    f_pos = Parameter(((0.0, 1.0),), structural=True, unit="N",
                      description="sliding friction force: rows [v [m/s], f [N]] for v >= 0 "
                      "(linear interpolation, extrapolation through the last two rows)")
    peak = Parameter(1.0, min=1.0, unit="1", description="static friction = peak*f_pos(0) "
                     "(>= 1)")

    @property
    def f0(self) -> float:
        """``f_pos(0)``: the sliding friction force at v = 0 [N] (a number)."""
        return float(table_value(self.f_pos, 0, where=self._where("f_pos")))

    def _f_pos(self, v: Any) -> Any:
        return table_value(self.f_pos, v, where=self._where("f_pos"))

    def equations(self):
        return [*self.support_side_equations(),
                *self.stick_slip_equations(self.v, self.a, self.f, self._f_pos(self.v),
                                           -self._f_pos(-self.v), self.peak * self.f0)]

    def events(self):
        return self.stick_slip_events(self.v, self.peak * self.f0)


class Brake(TableParameters, _OnSupport):
    """Brake: friction between two rigidly joined flanges and the housing, pressed by a normal
    force (MSL ``Translational.Components.Brake``).

    Parameters: ``mu_pos`` (table rows [v [m/s], mu [1]] for v >= 0, default ``[[0, 0.5]]``;
    linear interpolation, extrapolation through the last two rows), ``peak`` (>= 1), ``cgeo``
    [1] (geometry constant containing the friction distribution), ``fn_max`` [N];
    ``useSupport`` (structural: with it the housing is the flange ``support``, which takes the
    reaction; without it the housing is fixed), ``useHeatPort`` (structural). Input:
    ``f_normalized`` (RealInput, 0..1; the brake acts while > 0).

    Equations (``mode``, ``sa`` and the mode logic: :mod:`.stick_slip`)::

        s = flange_a.s - s_support;  flange_b.s = flange_a.s
        v = der(s);  a = der(v)
        flange_a.f + flange_b.f - f = 0;  support.f = -(flange_a.f + flange_b.f)
        fn = fn_max*f_normalized;  free = fn <= 0
        f0 = mu(0)*cgeo*fn;  f0_max = peak*f0
        f = sa [N]                 stuck (a = 0)
            0                      free  (a = sa)
            cgeo*fn*mu(v)          forward sliding  (a = sa - f0_max)
            -cgeo*fn*mu(-v)        backward sliding (a = sa + f0_max)
        lossPower = f*v;  heatPort.Q_flow = -lossPower (with useHeatPort)

    A stuck brake holds any force up to ``f0_max``; above it the flanges slide against
    ``cgeo*mu*fn``. While free the flanges move as if the brake were not there.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/Brake.mo`` with
    ``Interfaces/PartialFriction.mo`` and ``Interfaces/PartialElementaryTwoFlangesAndSupport2.mo``.
    """

    table_parameters = ("mu_pos",)
    mu_pos = Parameter(((0.0, 0.5),), structural=True, unit="1",
                       description="sliding friction coefficient: rows [v [m/s], mu [1]] for "
                       "v >= 0 (linear interpolation, extrapolation through the last two rows)")
    peak = Parameter(1.0, min=1.0, unit="1", description="static friction = peak*mu(0)*cgeo*fn "
                     "(>= 1)")
    cgeo = Parameter(1.0, min=0.0, unit="1", description="geometry constant containing the "
                     "friction distribution assumption")
    fn_max = Parameter(1.0, min=0.0, unit="N", description="maximum normal force")
    f_normalized = RealInput()
    fn = Variable(unit="N", description="normal force fn_max*f_normalized")
    f0 = Variable(unit="N", description="friction force at v = 0 while sliding, mu(0)*cgeo*fn")
    f0_max = Variable(unit="N", description="static friction force peak*f0")

    @property
    def mu0(self) -> float:
        """``mu(0)``: the friction coefficient at rest (a number)."""
        return float(table_value(self.mu_pos, 0, where=self._where("mu_pos")))

    def mu(self, v: Any) -> Any:
        """The sliding friction coefficient at the speed ``v`` >= 0 (from ``mu_pos``)."""
        return table_value(self.mu_pos, v, where=self._where("mu_pos"))

    def equations(self):
        k = self.cgeo * self.fn
        return [*self.support_side_equations(),
                Eq(self.fn, self.fn_max * self.f_normalized.u),
                Eq(self.f0, self.mu0 * self.cgeo * self.fn),
                Eq(self.f0_max, self.peak * self.f0),
                *self.stick_slip_equations(self.v, self.a, self.f, k * self.mu(self.v),
                                           -k * self.mu(-self.v), self.f0_max)]

    def events(self):
        return self.stick_slip_events(self.v, self.f0_max, free=self.fn <= 0)
