"""Electrical analog components (after ``Modelica.Electrical.Analog`` of the Modelica Standard
Library (MSL) 4.0): the parts a DC motor with its current controller needs (MultiBody's robot
``RobotR3.Utilities.Motor``).

Connector ``Pin``: potential ``v`` [V] (electric potential against an arbitrary reference) and
flow ``i`` [A] (current flowing *into* the component through the pin). MSL's ``PositivePin`` and
``NegativePin`` are the same connector with another icon; here both are :class:`Pin`. A circuit
needs a :class:`Ground` to fix its potential.

Components: :class:`Ground`, :class:`Resistor`, :class:`Capacitor`, :class:`Inductor`,
:class:`ConstantVoltage`, :class:`SignalVoltage`, :class:`CurrentSensor`,
:class:`VoltageSensor`, :class:`IdealOpAmp` (MSL ``Ideal.IdealOpAmp``, four pins) and
:class:`RotationalEMF` (MSL ``Basic.RotationalEMF``, the electro-mechanical transformer of a
DC machine, with a :class:`acausal.components.rotational.Flange`). Signal inputs and outputs are
:class:`acausal.components.blocks.RealInput`/``RealOutput`` (value ``<connector>.u``).

Not provided: MSL's conditional heat ports (``useHeatPort``; the resistor's temperature
dependence ``R_actual = R*(1 + alpha*(T - T_ref))`` is at its reference temperature,
``R_actual = R``), the EMF's support flange (``useSupport=false``: the housing is fixed).
"""

from __future__ import annotations

from acausal import Component, Connector, Eq, Flow, Parameter, Potential, Variable, der

from .blocks import RealInput, RealOutput
from .rotational import Flange


class Pin(Connector):
    """Electrical pin (MSL ``Electrical.Analog.Interfaces.Pin``): potential ``v`` [V], current
    ``i`` [A] flowing into the component."""

    v = Potential(unit="V", description="potential at the pin")
    i = Flow(unit="A", description="current flowing into the pin")


class Ground(Component):
    """Ground node (MSL ``Electrical.Analog.Basic.Ground``): ``p.v = 0``."""

    p = Pin()

    def equations(self):
        return [Eq(self.p.v, 0)]


class OnePort(Component):
    """Two pins with the voltage drop ``v`` and the current ``i`` from ``p`` to ``n`` (MSL
    ``Electrical.Analog.Interfaces.OnePort``).

    Equations: ``v = p.v - n.v``; ``0 = p.i + n.i``; ``i = p.i``.
    """

    p = Pin()
    n = Pin()
    v = Variable(unit="V", description="voltage drop p.v - n.v")
    i = Variable(unit="A", description="current flowing from pin p to pin n")

    def equations(self):
        return [Eq(self.v, self.p.v - self.n.v), Eq(0, self.p.i + self.n.i),
                Eq(self.i, self.p.i)]


class Resistor(OnePort):
    """Ideal linear resistor (MSL ``Electrical.Analog.Basic.Resistor`` without heat port):
    ``v = R i``; ``LossPower = v i``.

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Basic/Resistor.mo``.
    """

    R = Parameter(1.0, unit="Ohm", description="resistance")
    LossPower = Variable(unit="W", description="power dissipated (v*i)")

    def equations(self):
        return [*super().equations(), Eq(self.v, self.R * self.i),
                Eq(self.LossPower, self.v * self.i)]


class Capacitor(OnePort):
    """Ideal linear capacitor (MSL ``Electrical.Analog.Basic.Capacitor``): ``i = C der(v)``;
    ``v`` starts at 0 (MSL ``v(start=0)``).

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Basic/Capacitor.mo``.
    """

    C = Parameter(1.0, min=0.0, unit="F", description="capacitance")
    v = Variable(start=0.0, unit="V", description="voltage drop p.v - n.v", state_priority=1)

    def equations(self):
        return [*super().equations(), Eq(self.i, self.C * der(self.v))]


class Inductor(OnePort):
    """Ideal linear inductor (MSL ``Electrical.Analog.Basic.Inductor``): ``L der(i) = v``;
    ``i`` starts at 0 (MSL ``i(start=0)``).

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Basic/Inductor.mo``.
    """

    L = Parameter(1.0, min=0.0, unit="H", description="inductance")
    i = Variable(start=0.0, unit="A", description="current flowing from pin p to pin n",
                 state_priority=1)

    def equations(self):
        return [*super().equations(), Eq(self.L * der(self.i), self.v)]


class ConstantVoltage(OnePort):
    """Source of constant voltage (MSL ``Electrical.Analog.Sources.ConstantVoltage``):
    ``v = V``."""

    V = Parameter(1.0, unit="V", description="value of the constant voltage")

    def equations(self):
        return [*super().equations(), Eq(self.v, self.V)]


class SignalVoltage(Component):
    """Voltage source driven by a signal (MSL ``Electrical.Analog.Sources.SignalVoltage``).

    Equations: ``v.u = p.v - n.v``; ``0 = p.i + n.i``; ``i = p.i`` (``v`` is a RealInput [V],
    ``i`` [A] the current from p to n through the source).

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Sources/SignalVoltage.mo``.
    """

    p = Pin()
    n = Pin()
    v = RealInput()
    i = Variable(unit="A", description="current flowing from pin p to pin n")

    def equations(self):
        return [Eq(self.v.u, self.p.v - self.n.v), Eq(0, self.p.i + self.n.i),
                Eq(self.i, self.p.i)]


class CurrentSensor(Component):
    """Ideal current sensor in series (MSL ``Electrical.Analog.Sensors.CurrentSensor``): a short
    circuit that measures its current.

    Equations: ``p.v = n.v``; ``p.i = i.u``; ``n.i = -i.u`` (``i`` is a RealOutput [A]).

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Sensors/CurrentSensor.mo``.
    """

    p = Pin()
    n = Pin()
    i = RealOutput()

    def equations(self):
        return [Eq(self.p.v, self.n.v), Eq(self.p.i, self.i.u), Eq(self.n.i, -self.i.u)]


class VoltageSensor(Component):
    """Ideal voltmeter (MSL ``Electrical.Analog.Sensors.VoltageSensor``): ``p.i = 0``;
    ``n.i = 0``; ``v.u = p.v - n.v`` (``v`` is a RealOutput [V])."""

    p = Pin()
    n = Pin()
    v = RealOutput()

    def equations(self):
        return [Eq(self.p.i, 0), Eq(self.n.i, 0), Eq(self.v.u, self.p.v - self.n.v)]


class IdealOpAmp(Component):
    """Ideal operational amplifier as a nullator-norator pair (MSL
    ``Electrical.Analog.Ideal.IdealOpAmp``): the left port (p1, n1) has no voltage and no
    current; the right port (p2, n2) takes whatever voltage and current the circuit needs.

    Equations::

        v1 = p1.v - n1.v;  v2 = p2.v - n2.v
        0 = p1.i + n1.i;   0 = p2.i + n2.i
        i1 = p1.i;         i2 = p2.i
        v1 = 0;            i1 = 0

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Ideal/IdealOpAmp.mo``.
    """

    p1 = Pin()
    n1 = Pin()
    p2 = Pin()
    n2 = Pin()
    v1 = Variable(unit="V", description="voltage drop over the left port")
    v2 = Variable(unit="V", description="voltage drop over the right port")
    i1 = Variable(unit="A", description="current from p1 to n1")
    i2 = Variable(unit="A", description="current from p2 to n2")

    def equations(self):
        return [Eq(self.v1, self.p1.v - self.n1.v), Eq(self.v2, self.p2.v - self.n2.v),
                Eq(0, self.p1.i + self.n1.i), Eq(0, self.p2.i + self.n2.i),
                Eq(self.i1, self.p1.i), Eq(self.i2, self.p2.i),
                Eq(self.v1, 0), Eq(self.i1, 0)]


class RotationalEMF(OnePort):
    """Electromotive force of a DC machine, the electro-mechanical transformer (MSL
    ``Electrical.Analog.Basic.RotationalEMF`` with ``useSupport=false``: the housing is fixed at
    angle 0).

    Equations::

        v = p.v - n.v;  0 = p.i + n.i;  i = p.i      (OnePort's)
        phi = flange.phi;  w = der(phi)
        k w = v;  tau = -k i;  tauElectrical = -tau;  tau = flange.tau

    ``k`` [N.m/A = V.s/rad] is the transformation coefficient. The electrical power ``v i``
    equals the mechanical power ``tauElectrical w`` delivered to the flange.

    Source: MSL 4.0 ``Modelica/Electrical/Analog/Basic/RotationalEMF.mo``.
    """

    k = Parameter(1.0, unit="N.m/A", description="transformation coefficient")
    flange = Flange()
    phi = Variable(unit="rad", description="angle of the flange (housing fixed at 0)")
    w = Variable(unit="rad/s", description="angular velocity of the flange")
    tau = Variable(unit="N.m", description="torque of the flange (flange.tau)")
    tauElectrical = Variable(unit="N.m", description="electrical torque (-tau)")

    def equations(self):
        return [*super().equations(), Eq(self.phi, self.flange.phi),
                Eq(self.w, der(self.phi)), Eq(self.k * self.w, self.v),
                Eq(self.tau, -self.k * self.i), Eq(self.tauElectrical, -self.tau),
                Eq(self.tau, self.flange.tau)]
