r"""Exudyn's ``ObjectConnectorCoordinateSpringDamperExt`` as acausal components.

Module name: ``coordinate_spring_damper`` (not ``exudyn``, so that it never shadows the real
``exudyn`` package in user code); import as
``from acausal.components.coordinate_spring_damper import CoordinateSpringDamperExt``.

* :class:`CoordinateSpringDamperExt`: between two 1-D translational flanges
  (:mod:`acausal.components.translational`), lengths in m, forces in N.
* :class:`RotationalCoordinateSpringDamperExt`: the same laws between two rotational flanges
  (:mod:`acausal.components.rotational`), angles in rad, torques in N.m (Exudyn's coordinate
  connector does not distinguish: a marker coordinate may be a rotation).

Kinematics and total force (``flange_a`` = Exudyn marker 0, ``flange_b`` = marker 1)
--------------------------------------------------------------------------------------

.. math::
    q = f_1 s_b - f_0 s_a,\qquad v = \dot q,\qquad
    f_{SD} = k\,(q - x_{off}) + d\,v + f_{friction} + f_{contact}

``flange_b.f = f_1 f_SD`` and ``flange_a.f = -f_0 f_SD`` (cut forces into the component; Exudyn:
``Q_m1 = +f_SD f1 J_m1``, ``Q_m0 = -f_SD f0 J_m0`` on the left-hand side). For a mass on
``flange_b`` with ``flange_a`` fixed: ``m dv/dt = f_ext - f_SD``. The outputs ``displacement``
(q), ``velocity`` (v) and ``force`` (f_SD) are Exudyn's output variables Displacement, Velocity,
Force. Here ``s_a``, ``s_b`` are absolute flange positions (Exudyn uses marker coordinates
without reference values: shift ``offset`` accordingly when comparing).

* ``activeConnector=False``: ``f_SD = 0`` (no events).
* ``springForceUserFunction=UF``: ``f_SD = UF(mbs, t, itemNumber, q, v, stiffness, damping,
  offset, velocityOffset, fDynamicFriction, fStaticFrictionOffset, exponentialDecayStatic,
  fViscousFriction, frictionProportionalZone)`` *replaces the whole force*: as in Exudyn's C++
  (``ComputeSpringForce``), neither friction nor limit stops are added and no events are made.
  The arguments are sympy symbols/expressions (``t`` is :data:`acausal.time`); ``mbs`` is the
  bound component itself (use ``mbs.limitStopsUpper`` etc. where Exudyn would call
  ``mbs.GetObjectParameter(itemNumber, ...)``) and ``itemNumber`` its dotted path. The function
  must return a sympy-compatible expression (Piecewise, Abs, sign, exp, ...: no Python ``if`` on
  the symbols).
* ``velocityOffset`` is accepted and handed to the user function, but, as in Exudyn's C++ force
  routine (v1.11, ``CObjectConnectorCoordinateSpringDamperExt.cpp``), it does *not* enter the
  built-in force, although Exudyn's item documentation writes ``d (v - v_off)``
  (compared line by line with the C++ source).

Friction, case 1: regularised Stribeck (``frictionProportionalZone`` = v_reg != 0)
-----------------------------------------------------------------------------------

``f_friction = S(v)`` with Exudyn's ``StribeckFunction`` (:func:`acausal.library.friction.
stribeck_exudyn`): ``(f_D + f_SO) v/v_reg`` for ``|v| <= v_reg``, else
``sign(v) (f_D + f_SO exp(-(|v| - v_reg)/v_exp) + f_V (|v| - v_reg))`` (exponential := 1 for
``v_exp = 0``). Memoryless, no events.

Friction, case 2: bristle stick/slip (``frictionProportionalZone == 0``)
------------------------------------------------------------------------

Built only when ``fDynamicFriction`` or ``fStaticFrictionOffset`` is non-zero at construction
(Exudyn's condition; with both zero Exudyn applies no friction at all, ``fViscousFriction``
included). A hybrid automaton with the discrete variables ``frictionMode`` (0 stick, +1/-1 slip
in that direction; Exudyn's data coordinate 0, which stores the signed slip force, of which only
zero-ness and sign enter the force) and ``lastStickingPosition`` x_lsp (data coordinate 1).
With ``F_s = f_D + f_SO`` (breakaway force) and ``|S0(v)| = f_D + f_SO exp(-|v|/v_exp) +
f_V |v|`` (Exudyn's Stribeck curve with v_reg = 0; 0 at exactly v = 0 as Exudyn's ``sign(0)``):

* stick (mode 0): ``f_friction = f_stick = k_mu (q - x_lsp) + d_mu v``;
* slip (mode s = +-1): ``f_friction = s |S0(v)|`` (the direction is frozen, as Exudyn does);
* stick -> slip when ``f_stick > F_s`` (mode := +1) or ``f_stick < -F_s`` (mode := -1);
  x_lsp unchanged;
* slip s -> stick when the relative velocity reverses (``s v < 0``): mode := 0 and
  ``x_lsp := q - (s |S0(v)| - d_mu v)/k_mu``, so that the sticking force starts equal to the
  last slip force.

At the reversal ``v = 0``, so the last slip force is ``s F_s`` (``|S0(0+)| = F_s``): the new
sticking force sits exactly on the breakaway threshold and moves inwards. ``|S0(v)|`` is
therefore capped at ``F_s`` (its ``v -> 0`` limit; the event is located to ~1e-12 s, not to
``v = 0`` exactly) and reduced by ``1e-12 (F_s + k_mu (|q| + |x_lsp|))``, a bound far above the
rounding error of ``k_mu (q - x_lsp)``: without it, rounding can put the new sticking force a
few ulp beyond ``F_s`` and fire the breakaway at the same instant (an endless event iteration).

This is the continuous-time limit of Exudyn's PostNewton logic (``friction_models.md`` 2.3)
with the switching instants located exactly by events instead of once per time step. Two
choices the discrete-time code leaves open, resolved here: (1) the slip direction at
breakaway is ``sign(f_stick)`` (friction_models.md 2.3, continuous-time limit; the C++ takes
the sign of the current v, which agrees whenever the bristle force grows in the direction of
motion, and keeps the force continuous at the switch); (2) the "last slip force" is the slip
force just before the reversal event (the C++ uses the value at the start of the time step).
Exudyn's branch "slip began in this very step and already reversed: restore the old x_lsp"
is a time-step artefact with no continuous-time counterpart. Exudyn also overwrites x_lsp
with q during slip; here x_lsp keeps its value (it does not enter the slip force).
Requires ``stickingStiffness > 0`` (Exudyn divides by it).

Limit stops (``useLimitStops=True``)
------------------------------------

Discrete ``limitStopState`` (0 free, +1 upper, -1 lower; Exudyn's data coordinate 2 stores the
penetration, of which only the sign enters the force):

.. math::
    f_{contact} = \begin{cases} k_{ls}(q - s_{upper}) + d_{ls} v & \text{upper contact}\\
    k_{ls}(q - s_{lower}) + d_{ls} v & \text{lower contact}\\ 0 & \text{free}\end{cases}

entered when ``q > s_upper`` (``q < s_lower``) and left when ``q < s_upper`` (``q > s_lower``),
each switch an event. There is no ``max(0, .)`` clamp: the damping term jumps to ``d_ls v`` at
impact and the force may pull near separation (as Exudyn). The state at the start time is
``initialLimitStopState`` (default 0); like Exudyn's data node it must be consistent with the
initial position (an event fires on a crossing, not at the start time).

Structural parameters (plain Python values, fixed at construction)
------------------------------------------------------------------

``frictionProportionalZone`` (its being zero selects the case), ``useLimitStops``,
``activeConnector``, ``springForceUserFunction``, ``initialFrictionMode``,
``initialLastStickingPosition``, ``initialLimitStopState``. All other parameters are ordinary
numeric parameters (changeable at ``simulate(params=...)``), except that in the bristle case
whether friction exists at all is decided from the construction values of ``fDynamicFriction``
and ``fStaticFrictionOffset``.

Parameter mapping (Exudyn name -> ours: same names; SI units, translational / rotational)
----------------------------------------------------------------------------------------

==========================  =====================  ==========  ==============
Exudyn (<= 1.11 name)       symbol                 unit        default
==========================  =====================  ==========  ==============
stiffness                   k                      N/m         0
damping                     d                      N.s/m       0
offset                      x_off                  m           0
velocityOffset              v_off                  m/s         0 (UF only)
factor0, factor1            f0, f1                 1           1, 1
fDynamicFriction            f_D                    N           0
fStaticFrictionOffset       f_SO                   N           0
stickingStiffness           k_mu                   N/m         0
stickingDamping             d_mu                   N.s/m       0
exponentialDecayStatic      v_exp                  m/s         1e-3
fViscousFriction            f_V                    N.s/m       0
frictionProportionalZone    v_reg                  m/s         0 (structural)
limitStopsUpper/Lower       s_upper, s_lower       m           0, 0
limitStopsStiffness         k_ls                   N/m         0
limitStopsDamping           d_ls                   N.s/m       0
useLimitStops               --                     bool        False
activeConnector             --                     bool        True
springForceUserFunction     UF                     callable    None
data node [0], [1], [2]     initialFrictionMode, initialLastStickingPosition,
                            initialLimitStopState (0, 0 m, 0)
==========================  =====================  ==========  ==============

Rotational: m -> rad, N -> N.m. Exudyn >= 1.12 renames fDynamicFriction ->
dynamicFrictionForce, fStaticFrictionOffset -> staticFrictionOffsetForce, fViscousFriction ->
viscousFrictionFactor; the old names are used here.

Sources: EXUDYN (github.com/jgerstmayr/EXUDYN) ``main/src/Objects/
CObjectConnectorCoordinateSpringDamperExt.cpp`` and ``main/src/Utilities/Physics.h`` (v1.11),
the item documentation ``ObjectConnectorCoordinateSpringDamperExt`` (Exudyn's theDoc, v1.11)
(2.1 kinematics, 2.2 Stribeck, 2.3 bristle automaton, 2.4 limit stops, 2.5 errors in
Exudyn's documentation: its "CASE 2: frictionProportionalZone != 0" means ``== 0``, and sticking
uses stickingStiffness/stickingDamping, not the limit-stop values).
"""

from __future__ import annotations

import sympy as sp

from acausal import (
    Component,
    Discrete,
    Eq,
    ModelDefinitionError,
    Parameter,
    Variable,
    When,
    assign,
    der,
    time,
)
from acausal.components import rotational, translational
from acausal.library.friction import stribeck_exudyn

__all__ = ["CoordinateSpringDamperExt", "RotationalCoordinateSpringDamperExt"]

#: Relative margin by which a new sticking force starts inside the sticking band (rounding guard).
_ENTRY_GUARD = 1e-12

# (name, default, translational unit, rotational unit, description)
_NUMERIC = [
    ("stiffness", 0.0, "N/m", "N.m/rad", "spring stiffness k"),
    ("damping", 0.0, "N.s/m", "N.m.s/rad", "damping d"),
    ("offset", 0.0, "m", "rad", "spring offset x_off (reference length)"),
    ("velocityOffset", 0.0, "m/s", "rad/s",
     "velocity offset v_off (passed to the user function only, as in Exudyn's C++)"),
    ("factor0", 1.0, "1", "1", "factor f0 of marker 0 (flange_a)"),
    ("factor1", 1.0, "1", "1", "factor f1 of marker 1 (flange_b)"),
    ("fDynamicFriction", 0.0, "N", "N.m", "dynamic friction force f_D"),
    ("fStaticFrictionOffset", 0.0, "N", "N.m", "static friction offset force f_SO"),
    ("stickingStiffness", 0.0, "N/m", "N.m/rad", "bristle stiffness k_mu"),
    ("stickingDamping", 0.0, "N.s/m", "N.m.s/rad", "bristle damping d_mu"),
    ("exponentialDecayStatic", 1e-3, "m/s", "rad/s",
     "velocity v_exp of the exponential decay of f_SO"),
    ("fViscousFriction", 0.0, "N.s/m", "N.m.s/rad", "viscous friction factor f_V"),
    ("limitStopsUpper", 0.0, "m", "rad", "upper limit stop s_upper"),
    ("limitStopsLower", 0.0, "m", "rad", "lower limit stop s_lower"),
    ("limitStopsStiffness", 0.0, "N/m", "N.m/rad", "limit-stop contact stiffness k_ls"),
    ("limitStopsDamping", 0.0, "N.s/m", "N.m.s/rad", "limit-stop contact damping d_ls"),
]

# Friction forces and contact coefficients cannot be negative (Exudyn leaves the spring itself
# unrestricted: a negative stiffness is a legitimate destabilising element).
_NON_NEGATIVE = {"fDynamicFriction", "fStaticFrictionOffset", "stickingStiffness",
                 "stickingDamping", "exponentialDecayStatic", "fViscousFriction",
                 "limitStopsStiffness", "limitStopsDamping"}

_UF_ARGS = ("stiffness", "damping", "offset", "velocityOffset", "fDynamicFriction",
            "fStaticFrictionOffset", "exponentialDecayStatic", "fViscousFriction")


def _declare(rotational_units: bool):
    """Class decorator: the numeric parameters with the unit set of the flange kind."""

    def deco(cls):
        for name, default, unit_t, unit_r, description in _NUMERIC:
            unit = unit_r if rotational_units else unit_t
            low = 0.0 if name in _NON_NEGATIVE else None
            setattr(cls, name, Parameter(default, unit=unit, description=description, min=low))
        return cls

    return deco


class _CoordinateSpringDamperExtBase(Component):
    """The laws of Exudyn's CoordinateSpringDamperExt on a generic coordinate (see module doc).

    Subclasses define ``flange_a``/``flange_b`` and :meth:`_flange_equations`.
    """

    frictionProportionalZone = Parameter(0.0, unit="m/s", structural=True,
                                         description="regularisation velocity v_reg "
                                         "(0: bristle stick/slip model)")
    useLimitStops = Parameter(False, description="add the limit-stop contact")
    activeConnector = Parameter(True, description="False: the connector force is zero")
    springForceUserFunction = Parameter(None, description="user force function UF (replaces "
                                        "the whole force)")
    initialFrictionMode = Parameter(0, structural=True,
                                    description="friction mode at the start: 0 stick, +-1 slip")
    initialLastStickingPosition = Parameter(0.0, structural=True,
                                            description="last sticking position at the start")
    initialLimitStopState = Parameter(0, structural=True,
                                      description="limit-stop state at the start: 0, +1, -1")

    displacement = Variable(description="relative coordinate q = f1 q_b - f0 q_a")
    velocity = Variable(description="relative velocity v = der(q)")
    force = Variable(description="connector force f_SD (Exudyn output Force)")
    frictionMode = Discrete(0.0, description="0 stick, +1/-1 slip (bristle model)")
    lastStickingPosition = Discrete(0.0, description="last sticking position x_lsp")
    limitStopState = Discrete(0.0, description="0 free, +1 upper stop, -1 lower stop")

    def __init__(self, **overrides):
        decls = self._class_declarations()

        def value(name):
            return overrides.get(name, decls[name].default)

        mode = value("initialFrictionMode")
        if mode not in (0, 1, -1):
            raise ModelDefinitionError(f"{type(self).__name__}: initialFrictionMode must be 0 "
                                       f"(stick), +1 or -1 (slip), got {mode!r}.")
        ls = value("initialLimitStopState")
        if ls not in (0, 1, -1):
            raise ModelDefinitionError(f"{type(self).__name__}: initialLimitStopState must be 0 "
                                       f"(free), +1 (upper) or -1 (lower), got {ls!r}.")
        uf = value("springForceUserFunction")
        if uf is not None and not callable(uf):
            raise ModelDefinitionError(f"{type(self).__name__}: springForceUserFunction must be "
                                       f"a callable, got {uf!r}.")
        v_reg = float(value("frictionProportionalZone"))
        if v_reg < 0:
            raise ModelDefinitionError(f"{type(self).__name__}: frictionProportionalZone must "
                                       f"be >= 0, got {v_reg}.")
        self._bristle = (v_reg == 0 and uf is None and bool(value("activeConnector"))
                         and (_nonzero(value("fDynamicFriction"))
                              or _nonzero(value("fStaticFrictionOffset"))))
        self._stops = bool(value("useLimitStops")) and uf is None \
            and bool(value("activeConnector"))
        if self._bristle and not _nonzero(value("stickingStiffness")):
            raise ModelDefinitionError(
                f"{type(self).__name__}: the bristle friction model (frictionProportionalZone "
                "= 0 with fDynamicFriction or fStaticFrictionOffset != 0) needs "
                "stickingStiffness > 0.")
        # the Discrete starts follow the structural initial-state parameters
        overrides.setdefault("frictionMode", float(mode))
        overrides.setdefault("lastStickingPosition", float(value("initialLastStickingPosition")))
        overrides.setdefault("limitStopState", float(ls))
        super().__init__(**overrides)

    @property
    def shares_equations(self) -> bool:
        """A user force function is given the element's path (Exudyn passes its item number)
        and may answer differently for each element: such elements derive their own
        equations."""
        return self.springForceUserFunction is None

    # -- flange-kind hooks -----------------------------------------------------------------
    def _flange_coordinates(self):
        """(coordinate of flange_a, coordinate of flange_b)."""
        raise NotImplementedError

    def _flange_equations(self):
        raise NotImplementedError

    # -- the laws --------------------------------------------------------------------------
    def _slip_magnitude(self):
        """|S0(v)|: Exudyn's Stribeck curve with v_reg = 0, as a magnitude."""
        return sp.Abs(stribeck_exudyn(
            self.velocity, frictionProportionalZone=0, fDynamicFriction=self.fDynamicFriction,
            fStaticFrictionOffset=self.fStaticFrictionOffset,
            exponentialDecayStatic=self.exponentialDecayStatic,
            fViscousFriction=self.fViscousFriction))

    def sticking_force(self):
        """Bristle force ``k_mu (q - x_lsp) + d_mu v``."""
        return (self.stickingStiffness * (self.displacement - self.lastStickingPosition)
                + self.stickingDamping * self.velocity)

    def friction_force(self):
        """f_friction of the selected case (0 if there is none)."""
        v = self.velocity
        if self.frictionProportionalZone != 0:
            return stribeck_exudyn(
                v, frictionProportionalZone=self.frictionProportionalZone,
                fDynamicFriction=self.fDynamicFriction,
                fStaticFrictionOffset=self.fStaticFrictionOffset,
                exponentialDecayStatic=self.exponentialDecayStatic,
                fViscousFriction=self.fViscousFriction)
        if not self._bristle:
            return sp.Integer(0)
        mode = self.frictionMode
        return sp.Piecewise((self.sticking_force(), sp.Abs(mode) < sp.Rational(1, 2)),
                            (sp.sign(mode) * self._slip_magnitude(), True))

    def contact_force(self):
        """f_contact of the limit stops (0 without them)."""
        if not self.useLimitStops:
            return sp.Integer(0)
        q, v, ls = self.displacement, self.velocity, self.limitStopState
        k, d = self.limitStopsStiffness, self.limitStopsDamping
        half = sp.Rational(1, 2)
        return sp.Piecewise((k * (q - self.limitStopsUpper) + d * v, ls > half),
                            (k * (q - self.limitStopsLower) + d * v, ls < -half),
                            (0, True))

    def connector_force(self):
        """f_SD."""
        if not self.activeConnector:
            return sp.Integer(0)
        q, v = self.displacement, self.velocity
        uf = self.springForceUserFunction
        if uf is not None:
            args = [getattr(self, name) for name in _UF_ARGS]
            return sp.sympify(uf(self, time, self.path, q, v, *args,
                                 self.frictionProportionalZone))
        return (self.stiffness * (q - self.offset) + self.damping * v
                + self.friction_force() + self.contact_force())

    def equations(self):
        s_a, s_b = self._flange_coordinates()
        return [Eq(self.displacement, self.factor1 * s_b - self.factor0 * s_a),
                Eq(self.velocity, der(self.displacement)),
                Eq(self.force, self.connector_force()),
                *self._flange_equations()]

    def _has_friction_events(self) -> bool:
        return self._bristle

    def _has_stop_events(self) -> bool:
        return self._stops

    def event_descriptions(self) -> list[str]:
        """What each ``When`` clause of :meth:`events` means, in the same order (the solution
        labels them ``event <i> of ...``, 1-based)."""
        out = []
        if self._has_friction_events():
            out += ["breakaway: stick -> slip forward", "breakaway: stick -> slip backward",
                    "forward slip reverses: stick", "backward slip reverses: stick"]
        if self._has_stop_events():
            out += ["upper stop: contact", "upper stop: released",
                    "lower stop: contact", "lower stop: released"]
        return out

    def events(self):
        out = []
        q, v = self.displacement, self.velocity
        half = sp.Rational(1, 2)
        if self._has_friction_events():
            mode, f_s = self.frictionMode, self.fDynamicFriction + self.fStaticFrictionOffset
            f_stick = self.sticking_force()
            stuck = sp.Abs(mode) < half
            k_mu, d_mu = self.stickingStiffness, self.stickingDamping
            # magnitude of the last slip force, <= F_s (its v -> 0 limit), moved inside the
            # sticking band by a rounding guard (see the module docstring)
            guard = _ENTRY_GUARD * (f_s + k_mu * (sp.Abs(q) + sp.Abs(self.lastStickingPosition)))
            slip = sp.Min(self._slip_magnitude(), f_s) - guard
            out += [
                # breakaway: the bristle force leaves [-F_s, F_s]; slip in its direction
                When(sp.And(stuck, f_stick > f_s), assign(mode, 1)),
                When(sp.And(stuck, f_stick < -f_s), assign(mode, -1)),
                # the relative velocity reverses: stick, continuing the last slip force
                When(sp.And(mode > half, v < 0), assign(mode, 0),
                     assign(self.lastStickingPosition, q - (slip - d_mu * v) / k_mu)),
                When(sp.And(mode < -half, v > 0), assign(mode, 0),
                     assign(self.lastStickingPosition, q - (-slip - d_mu * v) / k_mu)),
            ]
        if self._has_stop_events():
            ls, upper, lower = self.limitStopState, self.limitStopsUpper, self.limitStopsLower
            out += [
                When(q > upper, assign(ls, 1)),
                When(sp.And(ls > half, q < upper), assign(ls, 0)),
                When(q < lower, assign(ls, -1)),
                When(sp.And(ls < -half, q > lower), assign(ls, 0)),
            ]
        return out


def _nonzero(value) -> bool:
    try:
        return float(value) != 0.0
    except (TypeError, ValueError):
        return True


@_declare(rotational_units=False)
class CoordinateSpringDamperExt(_CoordinateSpringDamperExtBase):
    """Exudyn's CoordinateSpringDamperExt between two translational flanges.

    ``q = f1 flange_b.s - f0 flange_a.s`` [m], ``v = der(q)`` [m/s],
    ``f_SD = k (q - offset) + d v + f_friction + f_contact`` [N] (or the user function),
    ``flange_b.f = f1 f_SD``, ``flange_a.f = -f0 f_SD``: a mass on ``flange_b`` with
    ``flange_a`` fixed obeys ``m dv/dt = f_ext - f_SD``. Friction: regularised Stribeck for
    ``frictionProportionalZone != 0``, else the bristle stick/slip automaton (events on
    ``frictionMode``/``lastStickingPosition``); limit stops: contact spring-damper switched by
    events on ``limitStopState``. Equations, parameter mapping (Exudyn's names and defaults, SI
    units) and sources: see the module docstring of
    :mod:`acausal.components.coordinate_spring_damper`.
    """

    flange_a = translational.Flange()
    flange_b = translational.Flange()
    displacement = Variable(unit="m", description="relative displacement q = f1 s_b - f0 s_a")
    velocity = Variable(unit="m/s", description="relative velocity v = der(q)")
    force = Variable(unit="N", description="connector force f_SD (Exudyn output Force)")
    lastStickingPosition = Discrete(0.0, unit="m", description="last sticking position x_lsp")

    def _flange_coordinates(self):
        return self.flange_a.s, self.flange_b.s

    def _flange_equations(self):
        return [Eq(self.flange_b.f, self.factor1 * self.force),
                Eq(self.flange_a.f, -self.factor0 * self.force)]


@_declare(rotational_units=True)
class RotationalCoordinateSpringDamperExt(_CoordinateSpringDamperExtBase):
    """Exudyn's CoordinateSpringDamperExt between two rotational flanges (same laws as
    :class:`CoordinateSpringDamperExt` on angles and torques).

    ``q = f1 flange_b.phi - f0 flange_a.phi`` [rad], ``v = der(q)`` [rad/s], ``f_SD`` [N.m]
    (output ``force``, a torque), ``flange_b.tau = f1 f_SD``, ``flange_a.tau = -f0 f_SD``: an
    inertia on ``flange_b`` with ``flange_a`` fixed obeys ``J dw/dt = tau_ext - f_SD``. Every
    length parameter is an angle [rad], every force a torque [N.m] (``frictionProportionalZone``
    and ``exponentialDecayStatic`` in rad/s). See the module docstring of
    :mod:`acausal.components.coordinate_spring_damper`.
    """

    frictionProportionalZone = Parameter(0.0, unit="rad/s", structural=True,
                                         description="regularisation velocity v_reg "
                                         "(0: bristle stick/slip model)")
    flange_a = rotational.Flange()
    flange_b = rotational.Flange()
    displacement = Variable(unit="rad", description="relative angle q = f1 phi_b - f0 phi_a")
    velocity = Variable(unit="rad/s", description="relative angular velocity v = der(q)")
    force = Variable(unit="N.m", description="connector torque f_SD (Exudyn output Force)")
    lastStickingPosition = Discrete(0.0, unit="rad", description="last sticking angle x_lsp")

    def _flange_coordinates(self):
        return self.flange_a.phi, self.flange_b.phi

    def _flange_equations(self):
        return [Eq(self.flange_b.tau, self.factor1 * self.force),
                Eq(self.flange_a.tau, -self.factor0 * self.force)]
