"""1-D translational mechanics (after Modelica.Mechanics.Translational and
ModelingToolkitStandardLibrary.Mechanical.Translational).

Connector ``Flange``: potential ``s`` [m] (absolute position), flow ``f`` [N] (force acting *on*
the component through the flange, positive along +s). A flange left open transmits no force.
"""

from __future__ import annotations

from acausal import Component, Connector, Eq, Flow, Parameter, Potential, Variable, der


class Flange(Connector):
    """1-D translational flange: position ``s`` [m] and cut force ``f`` [N]."""

    s = Potential(unit="m", description="absolute position of the flange")
    f = Flow(unit="N", description="cut force, positive into the component")


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


class Fixed(Component):
    """Flange fixed at position ``s0``: ``flange.s = s0``.

    Source: MSL ``Modelica.Mechanics.Translational.Components.Fixed``.
    """

    s0 = Parameter(0.0, unit="m", description="fixed position")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.s, self.s0)]


class Mass(Component):
    """Sliding mass with two flanges (Modelica ``Translational.Components.Mass``).

    Equations: ``s = flange_a.s = flange_b.s``; ``v = der(s)``; ``a = der(v)``;
    ``m a = flange_a.f + flange_b.f``. ``flange`` is an alias of ``flange_a`` for one-port use.
    """

    m = Parameter(1.0, min=0.0, unit="kg", description="mass")
    flange_a = Flange()
    flange_b = Flange()
    s = Variable(unit="m", description="position", state_priority=1)
    v = Variable(unit="m/s", description="velocity", state_priority=1)
    a = Variable(unit="m/s2", description="acceleration")

    @property
    def flange(self) -> Flange:
        return self.flange_a

    def equations(self):
        return [Eq(self.s, self.flange_a.s), Eq(self.s, self.flange_b.s),
                Eq(der(self.s), self.v), Eq(der(self.v), self.a),
                Eq(self.m * self.a, self.flange_a.f + self.flange_b.f)]


class Spring(PartialCompliant):
    """Linear spring: ``f = c (s_rel - s_rel0)``.

    Source: MSL ``Modelica.Mechanics.Translational.Components.Spring``.
    """

    c = Parameter(1.0, min=0.0, unit="N/m", description="spring constant")
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")

    def equations(self):
        return [*super().equations(), Eq(self.f, self.c * (self.s_rel - self.s_rel0))]


class Damper(PartialCompliant):
    """Linear damper: ``f = d der(s_rel)``.

    Source: MSL ``Modelica.Mechanics.Translational.Components.Damper``.
    """

    d = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant")
    v_rel = Variable(unit="m/s", description="relative velocity der(s_rel)")

    def equations(self):
        return [*super().equations(), Eq(self.v_rel, der(self.s_rel)),
                Eq(self.f, self.d * self.v_rel)]


class SpringDamper(PartialCompliant):
    """Spring and damper in parallel: ``f = c (s_rel - s_rel0) + d der(s_rel)``.

    Source: MSL ``Modelica.Mechanics.Translational.Components.SpringDamper``.
    """

    c = Parameter(1.0, min=0.0, unit="N/m", description="spring constant")
    d = Parameter(1.0, min=0.0, unit="N.s/m", description="damping constant")
    s_rel0 = Parameter(0.0, unit="m", description="unstretched length")
    v_rel = Variable(unit="m/s", description="relative velocity der(s_rel)")

    def equations(self):
        return [*super().equations(), Eq(self.v_rel, der(self.s_rel)),
                Eq(self.f, self.c * (self.s_rel - self.s_rel0) + self.d * self.v_rel)]


class Force(Component):
    """Force source driven by the variable ``f``: ``flange.f = -f`` (pushes along +s).

    ``f`` is an input: give it an equation in an enclosing model (or use ConstantForce).
    """

    flange = Flange()
    f = Variable(unit="N", description="driving force, positive along +s")

    def equations(self):
        return [Eq(self.flange.f, -self.f)]


class ConstantForce(Component):
    """Constant force ``f_constant`` along +s on ``flange``: ``flange.f = -f_constant``.

    Source: MSL ``Modelica.Mechanics.Translational.Sources.ConstantForce``.
    """

    f_constant = Parameter(1.0, unit="N", description="force")
    flange = Flange()

    def equations(self):
        return [Eq(self.flange.f, -self.f_constant)]
