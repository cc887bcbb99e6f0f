"""The one stick/slip mechanism of every 1-D friction element (MSL 4.0
``Modelica.Mechanics.Rotational.Interfaces.PartialFriction`` and its translational twin).

Every element with exact sticking (``friction.Friction``, ``RotationalFriction``,
``BearingFriction``, the clutches and brakes, the one-way clutch, the mass with stops, the lossy
gear, the robot's bearing friction) builds its mode logic from :class:`StickSlip`: one
discrete ``mode`` with MSL's values, the same equations and the same gated events. A subclass
declares its own variables with MSL's names (``phi_rel``/``w_rel`` of a clutch, ``s``/``v`` of a
mass) and hands the relative speed ``v``, its acceleration ``a`` and the friction force ``f``
(positive against positive ``v``) to :meth:`StickSlip.stick_slip_equations` and
:meth:`StickSlip.stick_slip_events`.

Modes (``mode``, MSL's ``Integer mode`` values)::

    mode = +1   Forward    sliding, v > 0
    mode =  0   Stuck      a = 0, v held at its value at the stop event (~0)
    mode = -1   Backward   sliding, v < 0
    mode =  2   Free       no friction (a clutch or brake with normal force fn <= 0)

Equations (``sa`` is MSL's dimensionless path parameter; ``f0_max`` the static friction, e.g.
``peak*mu(0)*cgeo*fn``; ``f_forward(v) >= 0`` and ``f_backward(v) <= 0`` the sliding friction)::

    f = sa*[N]                         if Stuck
        0                              if Free
        f_forward(v)                   if Forward
        f_backward(v)                  if Backward
    a = 0                              if Stuck  (stuck_creep*sa/(f0_max + F_FLOOR), below)
        sa*[m/s2]                      if Free
        (sa - f0_max/[N])*[m/s2]       if Forward
        (sa + f0_max/[N])*[m/s2]       if Backward

Events (each a ``When`` clause; every action is computed from the values before the event)::

    initial():                         mode := Free if free, else the sign of v (|v| > V_REST),
                                       else Forward/Backward if |sa| > f0_max, else Stuck
    (v if Forward else -1) < 0:        mode := Stuck if Forward   (the forward slide stops)
    (v if Backward else +1) > 0:       mode := Stuck if Backward  (the backward slide stops)
    (sa - f0_max if Stuck else -1) > 0:   mode := Forward if Stuck   (break away forward)
    (sa + f0_max if Stuck else +1) < 0:   mode := Backward if Stuck  (break away backward)
    free becomes true:                 mode := Free
    free becomes false:                mode := Forward if v > 0, Backward if v < 0, else Stuck

Each action applies only in the mode its condition is gated on: when another clause changes the
mode, a gated condition turns into its constant, true side, a change from false to true that
fires the clause in the same instant (a forward slide that becomes Free would otherwise stick
and break away again). An element that never slides backward (the freewheel of a one-way
clutch) drops the backward break-away (``backward=False``).

Two elements stuck on one speed (a bearing friction and a locked gear on one shaft; a chain of
clutches and a brake closed to the ground) give two equations ``a = 0`` for one speed and leave
the split of the load between them open: the system is singular (MSL's LossyGearDemo2: "If both
friction models are stuck, there is no unique solution. Still a reliable Modelica simulator
should be able to handle this situation"; Dymola leaves one element sliding at a round-off
speed). Give one of them ``stuck_creep > 0`` (1e-10 is plenty): stuck, it creeps at ``a =
stuck_creep*sa/(f0_max + F_FLOOR)``, at most ``stuck_creep`` [m/s2, rad/s2] at its full static
friction; the other holds exactly and takes the load up to its static friction, the creeping one
the rest, and together they hold the sum. The default 0 holds exactly (a run that needs the
creep stops with an error naming ``stuck_creep``).

The gating (the constants while a clause cannot apply) is what makes one mechanism serve every
element: (1) stuck, ``v`` is held at ~0 only to the solver's accuracy when it is not a state (a
joint speed inside a loop, a dummy derivative), and an ungated ``v < 0`` would dither around zero
and fire ("Chattering", issue 41); (2) a break-away at a round-off ``v`` of the wrong sign does not
stop the new slide at once (the stop condition stays true: no change, no event); (3) with a
normal force that varies, the break-away indicators do not cross zero while the element slides
or is free.

At the instant a slide stops the element sticks; event iteration solves the stuck system for
``sa`` and, if it exceeds the static friction, the element slides on in the other direction at
the same instant (a reversal through Stuck, as MSL's ``startForward``/``startBackward``). MSL's
hysteresis (``pre(startForward) and sa > tau0``) inside one event instant is not modelled.

Formulation: ``f``, ``a`` and ``sa`` occur in every mode, so matching, index reduction and state
choice do not depend on the mode; the switch is written with :class:`select`, which the tearing
does not divide through (a coefficient that is zero in one mode), so the small loop is solved
with the run-time matrix, nonsingular in every mode (see docs/events.md, "Mode switches").

Source: MSL 4.0 ``Modelica/Mechanics/Rotational/Interfaces/PartialFriction.mo`` (modes,
``sa``, ``startForward``/``startBackward``, ``free``) and
``Modelica/Mechanics/Translational/Interfaces/PartialFriction.mo``.
"""

from __future__ import annotations

import casadi as ca
import sympy as sp

from acausal import (
    Component,
    Discrete,
    Eq,
    Parameter,
    Variable,
    When,
    assign,
    initial,
    register_function,
)

#: MSL's mode values (``Modelica.Mechanics.Rotational.Interfaces.PartialFriction``)
FORWARD, STUCK, BACKWARD, FREE = 1, 0, -1, 2
#: [N or N.m] keeps the stuck creep finite where the static friction is 0
F_FLOOR = 1e-6
#: the initial mode treats a relative speed within this of zero [m/s or rad/s] as rest: a speed
#: computed from states that start at zero (through gears, loops) is zero to round-off only
#: (1e-29 rad/s in the RobotR3 axes), and its sign would decide the mode at random
V_REST = 1e-12


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
    unknown whose coefficient is zero in one mode; such loops are solved with the run-time
    matrix instead.
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


# 1 in the named mode and 0 in the three others (exact polynomials on the integers -1, 0, 1, 2):
# conditions of `select` made of the one discrete variable
def is_forward(m):
    return m * (m + 1) * (2 - m) / 2


def is_stuck(m):
    return (1 - m) * (1 + m) * (2 - m) / 2


def is_backward(m):
    return -m * (m - 1) * (m - 2) / 6


def is_free(m):
    return m * (m + 1) * (m - 1) / 6


class StickSlip(Component):
    """The mode, the path parameter and the mode logic of an exact stick/slip element (module
    docstring). Subclasses declare their kinematic variables and call
    :meth:`stick_slip_equations` and :meth:`stick_slip_events`."""

    # no unit: MSL's sa has unit "1" and its equations multiply it by unitForce (unitTorque)
    # and unitAcceleration (constants of 1); it stands for a force while stuck and for an
    # acceleration otherwise, so its unit is left unknown to the unit check
    sa = Variable(start=0.0, description="path parameter: friction force/[N] while stuck, "
                  "acceleration/[m/s2] (+- f0_max/[N] while sliding) otherwise (no unit)")
    mode = Discrete(start=0.0, description="+1 forward sliding, 0 stuck, -1 backward sliding, "
                    "2 free (MSL's values)")
    stuck_creep = Parameter(0.0, min=0.0, unit="1", description="stuck, the element creeps at "
                            "a = stuck_creep*sa/(f0_max + F_FLOOR) [m/s2 or rad/s2 at its full "
                            "static friction]; 0: held exactly. > 0 (e.g. 1e-10) only for one "
                            "of two elements that stick on the same speed (docs/drivelines.md)")

    def stick_slip_equations(self, v, a, f, f_forward, f_backward, f0_max) -> list:
        """``f`` and ``a`` by mode (module docstring): ``v`` relative speed, ``a`` its
        acceleration, ``f`` the friction force (against positive ``v``), ``f_forward`` >= 0 and
        ``f_backward`` <= 0 the sliding friction, ``f0_max`` the static friction."""
        m = self.mode
        sliding_f = select(is_forward(m), f_forward, f_backward)
        # m = +-1 while sliding: sa -+ f0_max (m has no unit, like sa: MSL's unitForce)
        sliding_a = self.sa - m * f0_max
        return [Eq(f, select(is_stuck(m), self.sa, select(is_free(m), 0, sliding_f))),
                Eq(a, select(is_stuck(m), self.stuck_creep * self.sa / (f0_max + F_FLOOR),
                             select(is_free(m), self.sa, sliding_a)))]

    def stick_slip_events(self, v, f0_max, free=None, backward: bool = True) -> list:
        """The gated mode switches (module docstring) for the relative speed ``v``; ``free`` a
        relation such as ``fn <= 0`` for elements with a free mode (None: never free);
        ``backward=False`` for
        an element that never slides backward (a freewheel: stuck, it holds any negative
        ``sa``; no backward break-away, no backward start)."""
        m = self.mode
        # at rest (|v| <= V_REST: a speed computed from states that are zero is zero only to
        # round-off) a slide in progress goes on while the force drives it (sa >= f0_max is
        # a >= 0 forward), else the element breaks away or sticks
        if backward:
            start = sp.Piecewise((FORWARD, v > V_REST), (BACKWARD, v < -V_REST),
                                 (FORWARD, (m > 0.5) & (m < 1.5) & (self.sa >= f0_max)),
                                 (BACKWARD, (m < -0.5) & (self.sa <= -f0_max)),
                                 (FORWARD, self.sa > f0_max), (BACKWARD, self.sa < -f0_max),
                                 (STUCK, True))
        else:
            start = sp.Piecewise((FORWARD, v > V_REST),
                                 (FORWARD, (m > 0.5) & (m < 1.5) & (self.sa >= f0_max)),
                                 (FORWARD, self.sa > f0_max), (STUCK, True))
        clauses = []
        if free is not None:
            start = sp.Piecewise((FREE, free), (start, True))
        clauses.append(When(initial(), assign(m, start)))
        # each action only in the mode its condition is gated on: a mode change by another
        # clause turns a gated condition into its constant (true) side, a change from false
        # to true that fires it in the same instant (a slide that becomes Free)
        clauses += [
            When(select(is_forward(m), v, -1) < 0, assign(m, select(is_forward(m), STUCK, m))),
            When(select(is_backward(m), v, 1) > 0, assign(m, select(is_backward(m), STUCK, m))),
            When(select(is_stuck(m), self.sa - f0_max, -1) > 0,
                 assign(m, select(is_stuck(m), FORWARD, m))),
        ]
        if backward:
            clauses.append(When(select(is_stuck(m), self.sa + f0_max, 1) < 0,
                                assign(m, select(is_stuck(m), BACKWARD, m))))
        if free is not None:
            engaged = sp.Piecewise((FORWARD, v > 0), (BACKWARD, v < 0), (STUCK, True))
            clauses += [When(free, assign(m, FREE)),
                        When(sp.Not(free), assign(m, sp.Piecewise((engaged, m > 1.5),
                                                                  (m, True))))]
        return clauses
