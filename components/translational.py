"""1-D translational mechanics (after ``Modelica.Mechanics.Translational`` of the Modelica
Standard Library (MSL) 4.0 and ModelingToolkitStandardLibrary.Mechanical.Translational).

Connector ``Flange``: potential ``s`` [m] (absolute position), flow ``f`` [N] (force acting *on*
the component through the flange, positive along +s). A flange left open transmits no force.

Components with a length (``Mass``, ``Rod``) place their flanges at ``s -+ L/2`` around the
position ``s`` of their centre (MSL ``Interfaces.PartialRigid``). The lossy elements
(``Damper``, ``SpringDamper``, ``ElastoGap``) compute the power they dissipate, ``lossPower``
[W], and with ``useHeatPort=True`` send it out through ``heatPort``
(:class:`acausal.components.thermal.ConditionalHeatPort`).

Sensors, speed-dependent and eddy-current forces, the rolling resistance and the vehicle are in
:mod:`acausal.components.translational_parts`; the kinematic sources (position, speed,
acceleration) in :mod:`acausal.components.sources`.

1-D parts have no body in space, so they have no viewer shape (the viewer draws frames of
multibody and planar models).
"""

from __future__ import annotations

import sympy as sp

from acausal import (
    Component,
    Connector,
    Eq,
    Flow,
    Parameter,
    Potential,
    Variable,
    der,
    event_if,
    unit_free,
)

from . import translational_shapes
from .thermal import ConditionalHeatPort


class Flange(Connector):
    """1-D translational flange: position ``s`` [m] and cut force ``f`` [N]."""

    s = Potential(unit="m", description="absolute position of the flange")
    f = Flow(unit="N", description="cut force, positive into the component")


class OptionalSupport(Component):
    """The optional support (housing) flange of an elementary component (MSL 4.0
    ``Translational.Interfaces.PartialElementaryOneFlangeAndSupport2`` and
    ``PartialElementaryTwoFlangesAndSupport2``).

    ``useSupport`` (structural, default False): with it the component gets the flange
    ``support`` and measures its positions from the support, ``s_support = support.s``, and the
    support takes the reaction force, ``support.f = -(sum of the flange forces)``; without it the
    component is grounded internally, ``s_support = 0`` and the reaction goes to the ground.
    Subclasses use :attr:`s_support` in their equations and add :meth:`support_equations` with
    their flange forces.
    """

    useSupport = Parameter(False, structural=True,
                           description="True: the support flange is enabled, else the "
                           "component is grounded internally")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("useSupport", False):
            self.support = Flange()

    @property
    def s_support(self):
        """Position of the support [m]: ``support.s``, or 0 without a support flange."""
        return self.support.s if self.useSupport else 0

    def support_equations(self, *flange_forces) -> list:
        """``support.f = -(flange forces)`` when the support flange exists, else nothing."""
        if not self.useSupport:
            return []
        return [Eq(self.support.f, -sum(flange_forces))]


class PartialCompliant(Component):
    """Two flanges with a relative displacement and an internal force.

    Equations: ``s_rel = flange_b.s - flange_a.s``; ``flange_b.f = f``; ``flange_a.f = -f``.

    Source: MSL ``Modelica.Mechanics.Translational.Interfaces.PartialCompliant``.
    """

    flange_a = Flange()
    flange_b = Flange()
    s_rel = Variable(unit="m", description="relative displacement flange_b.s - flange_a.s")
    f = Variable(unit="N", description="force from flange_a to flange_b (tension positive)")

    def equations(self):
        return [Eq(self.s_rel, self.flange_b.s - self.flange_a.s),
                Eq(self.flange_b.f, self.f),
                Eq(self.flange_a.f, -self.f)]


class PartialCompliantWithRelativeStates(PartialCompliant):
    """:class:`PartialCompliant` with the relative velocity ``v_rel = der(s_rel)`` [m/s].

    Source: MSL ``Translational.Interfaces.PartialCompliantWithRelativeStates`` (whose
    ``stateSelect=prefer`` on ``s_rel`` and ``v_rel`` is left to the compiler's state
    selection here: the results do not depend on it).
    """

    v_rel = Variable(unit="m/s", description="relative velocity der(s_rel)")

    def equations(self):
        return [*super().equations(), Eq(self.v_rel, der(self.s_rel))]


class PartialRigid(Component):
    """Rigid connection of two flanges a length ``L`` apart, centred at ``s``.

    Equations: ``flange_a.s = s - L/2``; ``flange_b.s = s + L/2``.

    Source: MSL ``Modelica.Mechanics.Translational.Interfaces.PartialRigid``.
    """

    L = Parameter(0.0, unit="m", description="length of the component, from flange_a to "
                  "flange_b (= flange_b.s - flange_a.s)")
    flange_a = Flange()
    flange_b = Flange()
    s = Variable(unit="m", description="absolute position of the centre of the component "
                 "(= flange_a.s + L/2 = flange_b.s - L/2)")

    def equations(self):
        return [Eq(self.flange_a.s, self.s - self.L / 2),
                Eq(self.flange_b.s, self.s + self.L / 2)]


class Fixed(Component):
    """Flange fixed at position ``s0``: ``flange.s = s0``.

    Source: MSL ``Modelica.Mechanics.Translational.Components.Fixed``.
    """

    s0 = Parameter(0.0, unit="m", description="fixed position")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.s, self.s0)]


class Mass(PartialRigid):
    """Sliding mass with two flanges a length ``L`` apart (MSL
    ``Translational.Components.Mass``).

    Equations::

        flange_a.s = s - L/2;  flange_b.s = s + L/2
        v = der(s);  a = der(v)
        m a = flange_a.f + flange_b.f

    ``s`` is the position of the centre. With the default ``L = 0`` both flanges are at ``s``.
    ``flange`` is an alias of ``flange_a`` for one-port use.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/Mass.mo`` (with
    ``Interfaces.PartialRigid``).
    """

    m = Parameter(1.0, min=0.0, unit="kg", description="mass")
    s = Variable(unit="m", description="absolute position of the centre of the mass",
                 state_priority=1)
    v = Variable(unit="m/s", description="velocity", state_priority=1)
    a = Variable(unit="m/s2", description="acceleration")
    visual_shapes = translational_shapes.mass

    @property
    def flange(self) -> Flange:
        return self.flange_a

    def equations(self):
        return [*super().equations(),
                Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.m * self.a, self.flange_a.f + self.flange_b.f)]


class Rod(PartialRigid):
    """Massless rigid rod of length ``L`` (MSL ``Translational.Components.Rod``).

    Equations::

        flange_a.s = s - L/2;  flange_b.s = s + L/2
        0 = flange_a.f + flange_b.f

    It keeps its flanges ``L`` apart and passes the force through unchanged.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/Rod.mo``.
    """

    def equations(self):
        return [*super().equations(), Eq(0, self.flange_a.f + self.flange_b.f)]


class Spring(PartialCompliant):
    """Linear spring: ``f = c (s_rel - s_rel0)``.

    Source: MSL ``Modelica.Mechanics.Translational.Components.Spring``.
    """

    c = Parameter(1.0, min=0.0, unit="N/m", description="spring constant")
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")

    def equations(self):
        return [*super().equations(), Eq(self.f, self.c * (self.s_rel - self.s_rel0))]


class Damper(PartialCompliantWithRelativeStates, ConditionalHeatPort):
    """Linear damper (MSL ``Translational.Components.Damper``).

    Equations::

        s_rel = flange_b.s - flange_a.s;  v_rel = der(s_rel)
        f = d v_rel;  flange_b.f = f;  flange_a.f = -f
        lossPower = f v_rel
        heatPort.Q_flow = -lossPower          (with useHeatPort=True)

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/Damper.mo``.
    """

    d = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant")

    def equations(self):
        return [*super().equations(), Eq(self.f, self.d * self.v_rel),
                Eq(self.lossPower, self.f * self.v_rel), *self.heat_port_equations()]


class SpringDamper(PartialCompliantWithRelativeStates, ConditionalHeatPort):
    """Spring and damper in parallel (MSL ``Translational.Components.SpringDamper``).

    Equations::

        s_rel = flange_b.s - flange_a.s;  v_rel = der(s_rel)
        f = c (s_rel - s_rel0) + d v_rel;  flange_b.f = f;  flange_a.f = -f
        lossPower = d v_rel^2                 (the damper's part of f times v_rel)
        heatPort.Q_flow = -lossPower          (with useHeatPort=True)

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/SpringDamper.mo``.
    """

    c = Parameter(1.0, min=0.0, unit="N/m", description="spring constant")
    d = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant")
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")

    def equations(self):
        f_d = self.d * self.v_rel
        return [*super().equations(),
                Eq(self.f, self.c * (self.s_rel - self.s_rel0) + f_d),
                Eq(self.lossPower, f_d * self.v_rel), *self.heat_port_equations()]


class ElastoGap(PartialCompliantWithRelativeStates, ConditionalHeatPort):
    """Spring and damper in parallel that act only in contact, and only push (MSL 4.0
    ``Translational.Components.ElastoGap``).

    The elements touch while the relative distance is below the unstretched length,
    ``contact = s_rel < s_rel0`` (an event: the contact starts and ends at located instants).
    In contact the spring pushes with ``f_c = -c |s_rel - s_rel0|^n`` (<= 0) and the damper's
    force ``d v_rel`` is limited to ``|f_d| <= |f_c|``, so that the total force
    ``f = f_c + f_d`` never pulls (``f <= 0``) and is continuous when the contact opens::

        contact = s_rel < s_rel0
        f_c = -c |s_rel - s_rel0|^n                  if contact else 0
        f_d = min(max(d v_rel, f_c), -f_c)           if contact else 0
        f = f_c + f_d;  flange_b.f = f;  flange_a.f = -f
        lossPower = f_d v_rel
        heatPort.Q_flow = -lossPower                 (with useHeatPort=True)

    ``contact`` is 1 in contact, else 0. Mind (as MSL says) that a steady state with an open
    gap and a force pulling the flanges apart cannot be initialised: the element takes no
    pull.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Components/ElastoGap.mo``.
    """

    c = Parameter(1.0, min=0.0, unit="N/m", description="spring constant (for n = 1)")
    d = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant")
    s_rel0 = Parameter(0.0, unit="m", description="unstretched spring length: contact while "
                       "s_rel < s_rel0")
    n = Parameter(1.0, min=1.0, unit="1", description="exponent of the spring force "
                  "f_c = -c |s_rel - s_rel0|^n")
    contact = Variable(unit="1", description="1 while the elements touch (s_rel < s_rel0), "
                       "else 0")
    f_c = Variable(unit="N", description="spring force (<= 0: pushing)")
    f_d = Variable(unit="N", description="damping force, limited to |f_d| <= |f_c|")

    def equations(self):
        gap = self.s_rel - self.s_rel0
        return [*super().equations(),
                Eq(self.contact, event_if(self.s_rel < self.s_rel0, 1, 0)),
                # c in N/m (as MSL declares it) times |gap|^n [m^n]: consistent for n = 1 only,
                # MSL's empirical law otherwise, hence exempt from the unit check
                unit_free(Eq(self.f_c, -self.contact * self.c * sp.Abs(gap)**self.n)),
                Eq(self.f_d, self.contact * sp.Min(sp.Max(self.d * self.v_rel, self.f_c),
                                                   -self.f_c)),
                Eq(self.f, self.f_c + self.f_d),
                Eq(self.lossPower, self.f_d * self.v_rel), *self.heat_port_equations()]


class Force(OptionalSupport):
    """Force source driven by the variable ``f``: ``flange.f = -f`` (pushes along +s); with
    ``useSupport`` the reaction ``support.f = -flange.f`` acts on the support flange.

    ``f`` is an input (MSL: a RealInput): give it an equation in an enclosing model, e.g.
    ``Eq(force.f, sine.y.u)`` (or use ConstantForce).

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sources/Force.mo``.
    """

    flange = Flange()
    f = Variable(unit="N", description="driving force, positive along +s")

    def equations(self):
        return [Eq(self.flange.f, -self.f), *self.support_equations(self.flange.f)]


class Force2(Component):
    """Force ``f`` acting on two flanges, pushing them apart: ``flange_a.f = f``,
    ``flange_b.f = -f`` (MSL ``Translational.Sources.Force2``).

    ``f`` is an input (MSL: a RealInput): give it an equation in an enclosing model.

    Source: MSL 4.0 ``Modelica/Mechanics/Translational/Sources/Force2.mo``.
    """

    flange_a = Flange()
    flange_b = Flange()
    f = Variable(unit="N", description="driving force: flange_b is pushed along +s, flange_a "
                 "along -s")

    def equations(self):
        return [Eq(self.flange_a.f, self.f), Eq(self.flange_b.f, -self.f)]


class ConstantForce(OptionalSupport):
    """Constant force ``f_constant`` along +s on ``flange``: ``flange.f = -f_constant``; with
    ``useSupport`` the support takes ``support.f = -flange.f``.

    Source: MSL ``Modelica.Mechanics.Translational.Sources.ConstantForce``.
    """

    f_constant = Parameter(1.0, unit="N", description="force")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.f, -self.f_constant), *self.support_equations(self.flange.f)]
