"""Gear with mesh efficiency and bearing friction that can get stuck (MSL 4.0
``Modelica.Mechanics.Rotational.Components.LossyGear``).

The gear transmits torque with a loss ``tauLoss`` (referred to flange_a) that depends on which
side drives, read from ``lossTable`` against ``|w_a|``; at ``w_a = 0`` it may lock. Its mode
logic is the one stick/slip mechanism of :mod:`.stick_slip` (modes Forward +1, Stuck 0,
Backward -1, Free 2), with one addition made here by reuse: MSL's static band of the gear is
not symmetric about zero (:class:`BandStickSlip`).

Why a band. A friction element of MSL's ``PartialFriction`` sticks while ``-tau0_max <= sa <=
tau0_max``. The gear sticks while ``tauLossMin_m <= tauLoss <= tauLossMax_p`` (MSL's
``startForward = pre(mode) == Stuck and sa > tauLossMax_p``, ``startBackward = pre(mode) ==
Stuck and sa < tauLossMin_m``, with ``tauLoss = sa`` while locked), and the two limits depend
on ``flange_a.tau`` through the efficiencies: with a torque ``tau_a > 0`` and no bearing
friction the band is ``[(1 - 1/eta_mf2) tau_a, (1 - eta_mf1) tau_a]``, e.g. ``[-tau_a, 0.5
tau_a]`` for efficiencies 0.5. :class:`BandStickSlip` hands :class:`StickSlip` the friction
shifted by the band's centre ``c = (hi + lo)/2`` and the half width ``h = (hi - lo)/2`` as its
static friction, which gives exactly MSL's conditions (``sa - h > 0`` is ``tauLoss > hi``,
``sa + h < 0`` is ``tauLoss < lo``) with the mechanism's own equations and gated events. The
smallest extension of :class:`StickSlip` that would make this direct is a lower break-away
limit ``f0_min`` beside ``f0_max`` (default ``-f0_max``): ``a = sa - f0_max`` forward, ``sa -
f0_min`` backward, and the clause ``sa - f0_min < 0`` for the backward break-away.

Limit (the mechanism's): a gear stuck together with another stuck element on the same speed
(MSL's LossyGearDemo2: a BearingFriction on the input shaft; HeatLosses: gear, clutch,
one-way clutch and brake on three inertias) makes the stuck equations redundant and the
algebraic system singular; the run stops there (MSL: "there is no unique solution").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import sympy as sp

from acausal import Discrete, Eq, Parameter, Variable, der
from acausal.errors import ParameterError

from .rotational import Flange, OptionalSupport
from .stick_slip import FREE, StickSlip, is_forward, is_stuck, select
from .tables import load_table, table_rows, table_value
from .thermal import ConditionalHeatPort

__all__ = ["BandStickSlip", "LossyGear"]

#: Modelica.Constants.eps (MSL 4.0): MSL's tolerance of ``isEqual`` on the efficiencies
EPS = 1e-15
#: MSL's lossless table
IDEAL_TABLE = ((0.0, 1.0, 1.0, 0.0, 0.0),)


class BandStickSlip(StickSlip):
    """:class:`StickSlip` whose static friction is a band ``f0_min <= f <= f0_max`` (``f0_min
    <= f0_max``, not necessarily symmetric about 0): the stuck element holds any ``f`` in the
    band and breaks away forward above it, backward below it.

    Built from the mechanism's equations and events (nothing copied): with the band's centre
    ``c = (f0_max + f0_min)/2`` and half width ``h = (f0_max - f0_min)/2``, the mechanism gets
    ``f - c``, ``f_forward - c``, ``f_backward - c`` and the static friction ``h``. While stuck
    ``sa = f - c``; the break-away clauses ``sa - h > 0`` and ``sa + h < 0`` are ``f > f0_max``
    and ``f < f0_min``. While sliding ``f = f_forward`` (``f_backward``) and ``sa`` is only the
    path parameter of the acceleration (``a = sa -+ h``), as in MSL.
    """

    def band_equations(self, v, a, f, f_forward, f_backward, f0_min, f0_max) -> list:
        """The mechanism's equations for the band ``[f0_min, f0_max]`` (class docstring)."""
        c, h = (f0_max + f0_min) / 2, (f0_max - f0_min) / 2
        return self.stick_slip_equations(v, a, f - c, f_forward - c, f_backward - c, h)

    def band_events(self, v, f0_min, f0_max) -> list:
        """The mechanism's gated events for the band ``[f0_min, f0_max]``."""
        return self.stick_slip_events(v, (f0_max - f0_min) / 2)


def _check_loss_table(value: Any) -> tuple[np.ndarray, bool]:
    """``lossTable`` as a float array of shape (n, 5), checked; and whether it is MSL's ideal
    table ``[0, 1, 1, 0, 0]`` (to ``Modelica.Constants.eps``)."""
    where = "LossyGear: lossTable"
    table = load_table(value, where, strict=True)
    if table.shape[1] != 5:
        raise ParameterError(f"{where} has {table.shape[1]} columns; it needs 5: rows [|w_a| "
                             "[rad/s], eta_mf1 [1], eta_mf2 [1], tau_bf1 [N.m], tau_bf2 [N.m]], "
                             "e.g. [[0, 0.9, 0.9, 0.1, 0.1]].")
    etas = table[:, 1:3]
    if np.any(etas <= 0) or np.any(etas > 1):
        r, c = np.argwhere((etas <= 0) | (etas > 1))[0]
        raise ParameterError(f"{where}[{r}, {c + 1}] = {etas[r, c]:g}: the mesh efficiencies "
                             "eta_mf1 and eta_mf2 (columns 1 and 2) must lie in (0, 1].")
    both_one = np.all(np.abs(etas - 1.0) <= EPS, axis=1)
    uneven = both_one & (np.abs(np.abs(table[:, 3]) - np.abs(table[:, 4])) > EPS)
    if np.any(uneven):
        r = int(np.argmax(uneven))
        raise ParameterError(
            f"{where} row {r}: with eta_mf1 = eta_mf2 = 1, tau_bf1 and tau_bf2 must be equal "
            f"(both are |tau_bf_a + tau_bf_b/ratio|), got {table[r, 3]:g} and {table[r, 4]:g}.")
    ideal = table.shape[0] == 1 and np.all(np.abs(table[0] - IDEAL_TABLE[0]) <= EPS)
    return table, bool(ideal)


class LossyGear(BandStickSlip, OptionalSupport, ConditionalHeatPort):
    """Gear with mesh efficiency and bearing friction; stuck, forward and backward rolling (MSL
    ``Rotational.Components.LossyGear``).

    Parameters: ``ratio`` [1] (``flange_a.phi/flange_b.phi``, not 0); ``lossTable`` (structural;
    rows ``[|w_a| [rad/s], eta_mf1 [1], eta_mf2 [1], tau_bf1 [N.m], tau_bf2 [N.m]]``, a 2-D
    array or a CSV path; default ``[[0, 1, 1, 0, 0]]``, lossless): ``eta_mf1`` the mesh
    efficiency when flange_a drives, ``eta_mf2`` when flange_b drives (both in (0, 1]),
    ``tau_bf1``/``tau_bf2`` the resultant bearing friction referred to flange_a in the two
    cases; linear interpolation in ``|w_a|``, extrapolation through the last two rows;
    ``useSupport`` (structural: the housing is the flange ``support``, else fixed);
    ``useHeatPort`` (structural: ``heatPort.Q_flow = -lossPower``).

    Equations (``tau_a = flange_a.tau``; the ``_0`` values are the table at ``w_a = 0``)::

        phi_a = flange_a.phi - phi_support;  phi_b = flange_b.phi - phi_support
        phi_a = ratio phi_b;  w_a = der(phi_a);  a_a = der(w_a)
        0 = flange_b.tau + ratio (tau_a - tauLoss)            (no inertia)
        support.tau = -(flange_a.tau + flange_b.tau)          (useSupport)
        [eta_mf1, eta_mf2, +-tau_bf1, +-tau_bf2] = lossTable(|w_a|)
        tau_bf_a = tau_bf1/2                                   eta_mf1 = eta_mf2 = 1
                   (tau_bf1 - tau_bf2)/(eta_mf1 - 1/eta_mf2)   otherwise
        quadrant1 = (1 - eta_mf1) tau_a + tau_bf1;  quadrant2 = (1 - 1/eta_mf2) tau_a + tau_bf2
        quadrant3 = (1 - eta_mf1) tau_a - tau_bf1;  quadrant4 = (1 - 1/eta_mf2) tau_a - tau_bf2
        tau_eta = tau_a (stuck);  tau_a - tau_bf_a (forward);  tau_a + tau_bf_a (backward)
        tauLossMax = quadrant1 if tau_eta >= 0 else quadrant2      (w_a > 0)
        tauLossMin = quadrant4 if tau_eta >= 0 else quadrant3      (w_a < 0)
        tauLossMax_p = quadrant1_p if tau_a - tau_bf_a_0 > 0 else quadrant2_p
        tauLossMin_m = quadrant4_m if tau_a + tau_bf_a_0 > 0 else quadrant3_m
                       (the quadrants with the _0 values: the limits of the stuck band)
        tauLoss = tauLossMax (forward), tauLossMin (backward), held (stuck, a_a = 0)
        lossPower = tauLoss w_a

    Transmission in the four quadrants (``-flange_b.tau = ratio (tau_a - tauLoss)``): flange_a
    drives forward, ``-flange_b.tau = ratio (eta_mf1 tau_a - tau_bf1)``; flange_b drives
    forward, ``ratio (tau_a/eta_mf2 - tau_bf2)``; backward the bearing terms change sign.

    Modes: the stick/slip mechanism for ``v = w_a``, ``a = a_a``, ``f = tauLoss`` with the
    sliding losses ``tauLossMax``/``tauLossMin`` and the static band ``[tauLossMin_m,
    tauLossMax_p]`` (:class:`BandStickSlip`; MSL's ``locked`` is ``mode = 0``). MSL's ``ideal``
    table ``[0, 1, 1, 0, 0]`` keeps ``mode = 2`` (Free) with ``tauLoss = 0`` and no events.

    Differences from MSL: ``sa`` is MSL's shifted by the band's centre while stuck (the same
    break-away instants). MSL's ``tau_etaPos = tau_eta >= 0`` generates events; here the
    quadrant switch is evaluated without (Modelica ``noEvent``): by the choice of
    ``tau_bf_a`` the two quadrants agree at ``tau_eta = 0`` (``quadrant1 - quadrant2 = (1/eta_mf2
    - eta_mf1) tau_bf_a + tau_bf1 - tau_bf2 = 0``), so the switch is a kink, and in
    LossyGearDemo3 ``tau_eta`` stays exactly at 0 while the gear rolls (the driving side is
    not obvious), where an event indicator would chatter. MSL's ``mode`` starts as Stuck at a
    zero ``w_a`` and leaves it with ``startForward``/``startBackward`` in the first step; here
    the gear starts in the mode it rolls in. Tables: linear only (MSL 4.0 has no other).

    Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Components/LossyGear.mo`` (with
    ``Interfaces/PartialElementaryTwoFlangesAndSupport2.mo``, ``Modelica/Math/Vectors.mo``'s
    ``interpolate`` and ``Thermal/HeatTransfer/Interfaces/
    PartialElementaryConditionalHeatPortWithoutT.mo``); Pelchen, Schweiger, Otter (2002),
    "Modeling and simulating the efficiency of gearboxes and of planetary gearboxes".
    """

    ratio = Parameter(1.0, unit="1", description="transmission ratio flange_a.phi/flange_b.phi "
                      "(not 0)")
    lossTable = Parameter(IDEAL_TABLE, structural=True,
                          description="rows [|w_a| [rad/s], eta_mf1 [1], eta_mf2 [1], "
                          "tau_bf1 [N.m], tau_bf2 [N.m]] (linear in |w_a|); or a CSV path")
    flange_a = Flange()
    flange_b = Flange()
    phi_a = Variable(unit="rad", description="angle of flange_a relative to the support")
    phi_b = Variable(unit="rad", description="angle of flange_b relative to the support")
    w_a = Variable(unit="rad/s", description="angular velocity of flange_a relative to the "
                   "support")
    a_a = Variable(unit="rad/s2", description="angular acceleration of flange_a relative to "
                   "the support")
    eta_mf1 = Variable(unit="1", description="mesh efficiency when flange_a drives")
    eta_mf2 = Variable(unit="1", description="mesh efficiency when flange_b drives")
    tau_bf1 = Variable(unit="N.m", description="bearing friction referred to flange_a when "
                       "flange_a drives (|tau_bf_a eta_mf1 + tau_bf_b/ratio|)")
    tau_bf2 = Variable(unit="N.m", description="bearing friction referred to flange_a when "
                       "flange_b drives (|tau_bf_a/eta_mf2 + tau_bf_b/ratio|)")
    tau_bf_a = Variable(unit="N.m", description="bearing friction torque on the flange_a side")
    tau_eta = Variable(unit="N.m", description="torque that tells the driving side")
    tauLoss = Variable(unit="N.m", description="torque loss of teeth and bearings (referred to "
                       "flange_a)")
    tauLossMax = Variable(unit="N.m", description="torque loss while rolling forward")
    tauLossMin = Variable(unit="N.m", description="torque loss while rolling backward")
    tauLossMax_p = Variable(unit="N.m", description="upper limit of the stuck band (loss at "
                            "w_a = 0+)")
    tauLossMin_m = Variable(unit="N.m", description="lower limit of the stuck band (loss at "
                            "w_a = 0-)")

    def __init__(self, **overrides):
        table, ideal = _check_loss_table(overrides.get("lossTable", IDEAL_TABLE))
        ratio = overrides.get("ratio", 1.0)
        if isinstance(ratio, (int, float)) and not isinstance(ratio, bool) and ratio == 0:
            raise ParameterError("LossyGear: ratio (flange_a.phi/flange_b.phi) is 0; give a "
                                 "non-zero transmission ratio.")
        # the table as numbers (also when given as a CSV path: the structural check of a
        # parameter with a numeric default refuses strings)
        overrides["lossTable"] = table_rows(table)
        if ideal:  # MSL: mode = Free while the gear is ideal
            overrides["mode"] = Discrete(start=float(FREE))
        super().__init__(**overrides)
        self._table, self._ideal = table, ideal

    def _losses(self, u) -> tuple:
        """eta_mf1, eta_mf2, tau_bf1, tau_bf2 at the speed ``u`` (MSL's interpolation)."""
        t = self._table
        return (table_value(t, u, 1), table_value(t, u, 2),
                sp.Abs(table_value(t, u, 3)), sp.Abs(table_value(t, u, 4)))

    def _tau_bf_a(self, eta1, eta2, bf1, bf2):
        """MSL's split of the bearing friction onto flange_a's side."""
        both_one = np.all(np.abs(self._table[:, 1:3] - 1.0) <= EPS, axis=1)
        if np.all(both_one):
            return bf1 / 2
        general = (bf1 - bf2) / (eta1 - 1 / eta2)
        if not np.any(both_one):  # eta_mf1 = eta_mf2 = 1 nowhere (linear between the rows)
            return general
        # at the speeds of those rows only (MSL's isEqual): a guarded denominator, as
        # eta1 - 1/eta2 = 0 there
        one = sp.And(sp.Abs(eta1 - 1) <= EPS, sp.Abs(eta2 - 1) <= EPS)
        safe = (bf1 - bf2) / sp.Piecewise((1, one), (eta1 - 1 / eta2, True))
        return sp.Piecewise((bf1 / 2, one), (safe, True))

    def equations(self):
        m, tau_a = self.mode, self.flange_a.tau
        eqs = [Eq(self.phi_a, self.flange_a.phi - self.phi_support),
               Eq(self.phi_b, self.flange_b.phi - self.phi_support),
               Eq(self.phi_a, self.ratio * self.phi_b),
               Eq(0, self.flange_b.tau + self.ratio * (tau_a - self.tauLoss)),
               Eq(self.w_a, der(self.phi_a)), Eq(self.a_a, der(self.w_a)),
               *self.support_equations(self.flange_a.tau, self.flange_b.tau),
               Eq(self.lossPower, self.tauLoss * self.w_a), *self.heat_port_equations()]
        if self._ideal:
            losses = (1, 1, 0, 0)
        else:
            losses = self._losses(sp.Abs(self.w_a))
        eqs += [Eq(var, value) for var, value in zip(
            (self.eta_mf1, self.eta_mf2, self.tau_bf1, self.tau_bf2), losses)]
        eta1, eta2, bf1, bf2 = self.eta_mf1, self.eta_mf2, self.tau_bf1, self.tau_bf2
        eqs.append(Eq(self.tau_bf_a, self._tau_bf_a(eta1, eta2, bf1, bf2)))

        # the quadrants at the present speed (sliding losses) ...
        q1 = (1 - eta1) * tau_a + bf1
        q2 = (1 - 1 / eta2) * tau_a + bf2
        q3 = (1 - eta1) * tau_a - bf1
        q4 = (1 - 1 / eta2) * tau_a - bf2
        # ... and at w_a = 0 (the stuck band), with the table's values there (numbers)
        e1_0, e2_0, b1_0, b2_0 = (float(v) for v in (
            self._losses(0) if not self._ideal else (1, 1, 0, 0)))
        if abs(e1_0 - 1) <= EPS and abs(e2_0 - 1) <= EPS:
            bfa_0 = b1_0 / 2
        else:
            bfa_0 = (b1_0 - b2_0) / (e1_0 - 1 / e2_0)
        q1_p = (1 - e1_0) * tau_a + b1_0
        q2_p = (1 - 1 / e2_0) * tau_a + b2_0
        q3_m = (1 - e1_0) * tau_a - b1_0
        q4_m = (1 - 1 / e2_0) * tau_a - b2_0
        tau_eta = select(is_stuck(m), tau_a,
                         select(is_forward(m), tau_a - self.tau_bf_a, tau_a + self.tau_bf_a))
        eqs += [Eq(self.tau_eta, tau_eta if not self._ideal else tau_a),
                # continuous switches (class docstring): no events
                Eq(self.tauLossMax, sp.Piecewise((q1, self.tau_eta >= 0), (q2, True))),
                Eq(self.tauLossMin, sp.Piecewise((q4, self.tau_eta >= 0), (q3, True))),
                Eq(self.tauLossMax_p, sp.Piecewise((q1_p, tau_a - bfa_0 > 0), (q2_p, True))),
                Eq(self.tauLossMin_m, sp.Piecewise((q4_m, tau_a + bfa_0 > 0), (q3_m, True)))]
        if self._ideal:  # mode = Free for ever: tauLoss = 0, a_a = sa
            return [*eqs, *self.stick_slip_equations(self.w_a, self.a_a, self.tauLoss, 0, 0, 0)]
        return [*eqs, *self.band_equations(self.w_a, self.a_a, self.tauLoss, self.tauLossMax,
                                           self.tauLossMin, self.tauLossMin_m,
                                           self.tauLossMax_p)]

    def events(self):
        if self._ideal:
            return []
        return self.band_events(self.w_a, self.tauLossMin_m, self.tauLossMax_p)
