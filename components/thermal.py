"""1-D heat transfer, the little the mechanical libraries need (after
``Modelica.Thermal.HeatTransfer`` of the Modelica Standard Library (MSL) 4.0).

Connector ``HeatPort``: potential ``T`` [K], flow ``Q_flow`` [W] (heat flowing *into* the
component through the port). An open port carries no heat.

Parts: :class:`HeatCapacitor`, :class:`ThermalConductor`, :class:`Convection` (conductance
from a signal), the boundary conditions :class:`FixedTemperature` (K),
:class:`CelsiusFixedTemperature` (degC, also ``Celsius.FixedTemperature``),
:class:`PrescribedTemperature`, :class:`FixedHeatFlow`, :class:`PrescribedHeatFlow`, the sensors
:class:`TemperatureSensor` and :class:`HeatFlowSensor`; and the optional heat port of lossy
mechanical elements, :class:`ConditionalHeatPort` and :class:`ConditionalHeatPortWithT`.
Signals are the connectors of :mod:`acausal.components.blocks` (value ``<connector>.u``).
"""

from __future__ import annotations

from types import SimpleNamespace

from acausal import Component, Connector, Eq, Flow, Parameter, Potential, Variable, der

from .blocks import RealInput, RealOutput

#: 0 degC in K (Modelica.Constants.T_zero is -273.15 degC).
ZERO_CELSIUS = 273.15


class HeatPort(Connector):
    """Thermal port: temperature ``T`` [K] and heat flow rate ``Q_flow`` [W] into the component."""

    T = Potential(unit="K", description="port temperature")
    Q_flow = Flow(unit="W", description="heat flow rate into the component")


class HeatCapacitor(Component):
    """Lumped thermal capacity: ``C D(T) = port.Q_flow``, ``T = port.T`` (Modelica
    ``Thermal.HeatTransfer.Components.HeatCapacitor``; ``T`` starts at 293.15 K)."""

    C = Parameter(1.0, unit="J/K", min=0.0, description="heat capacity")
    port = HeatPort()
    T = Variable(start=293.15, unit="K", description="temperature")

    def equations(self):
        return [Eq(self.T, self.port.T), Eq(self.C * der(self.T), self.port.Q_flow)]


class ConditionalHeatPort(Component):
    """The optional heat port of a lossy mechanical element (MSL 4.0
    ``Thermal.HeatTransfer.Interfaces.PartialElementaryConditionalHeatPortWithoutT``).

    ``useHeatPort`` (structural, default False): with it the element gets ``heatPort`` and
    gives its dissipated power away through it, ``heatPort.Q_flow = -lossPower``; without it the
    heat leaves the model (an ideal heat sink). Every subclass computes ``lossPower`` [W] (the
    power its friction, damping or eddy currents turn into heat, >= 0) and adds
    :meth:`heat_port_equations` to its equations.
    """

    useHeatPort = Parameter(False, structural=True,
                            description="True: the element has heatPort and sends lossPower "
                            "out through it")
    lossPower = Variable(unit="W", description="power dissipated as heat (>= 0)")

    def __init__(self, **overrides):
        super().__init__(**overrides)
        if overrides.get("useHeatPort", False):
            self.heatPort = HeatPort()

    def heat_port_equations(self) -> list:
        """``heatPort.Q_flow = -lossPower`` when the element has its heat port, else nothing."""
        return [Eq(self.heatPort.Q_flow, -self.lossPower)] if self.useHeatPort else []


class ConditionalHeatPortWithT(ConditionalHeatPort):
    """The optional heat port of a lossy element whose law depends on its temperature (MSL 4.0
    ``Thermal.HeatTransfer.Interfaces.PartialElementaryConditionalHeatPort``).

    As :class:`ConditionalHeatPort`, plus the temperature the element works at::

        TheatPort = heatPort.T      with useHeatPort=True
        TheatPort = T               without (a fixed device temperature)

    Subclasses use ``TheatPort`` [K] in their laws and add :meth:`heat_port_equations`.
    """

    T = Parameter(293.15, unit="K", description="fixed device temperature when the element "
                  "has no heat port (useHeatPort=False)")
    TheatPort = Variable(unit="K", description="temperature of the element (heatPort.T, or T "
                         "without a heat port)")

    def heat_port_equations(self) -> list:
        """``heatPort.Q_flow = -lossPower`` and ``TheatPort = heatPort.T`` with the heat port,
        else ``TheatPort = T``."""
        if self.useHeatPort:
            return [*super().heat_port_equations(), Eq(self.TheatPort, self.heatPort.T)]
        return [Eq(self.TheatPort, self.T)]


class ThermalConductor(Component):
    """Lumped thermal conductance between two ports, storing no heat (MSL
    ``Thermal.HeatTransfer.Components.ThermalConductor``).

    Equations::

        dT = port_a.T - port_b.T;  Q_flow = G dT
        port_a.Q_flow = Q_flow;  port_b.Q_flow = -Q_flow

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Components/ThermalConductor.mo`` (with
    ``Interfaces.Element1D``).
    """

    G = Parameter(1.0, min=0.0, unit="W/K", description="thermal conductance")
    port_a = HeatPort()
    port_b = HeatPort()
    Q_flow = Variable(unit="W", description="heat flow rate from port_a to port_b")
    dT = Variable(unit="K", description="temperature difference port_a.T - port_b.T")

    def equations(self):
        return [Eq(self.dT, self.port_a.T - self.port_b.T),
                Eq(self.port_a.Q_flow, self.Q_flow), Eq(self.port_b.Q_flow, -self.Q_flow),
                Eq(self.Q_flow, self.G * self.dT)]


class Convection(Component):
    """Convective heat transfer from a solid to a fluid with a conductance given by a signal
    (MSL ``Thermal.HeatTransfer.Components.Convection``).

    Equations::

        dT = solid.T - fluid.T;  Q_flow = Gc dT
        solid.Q_flow = Q_flow;  fluid.Q_flow = -Q_flow

    ``Gc`` is a :class:`acausal.components.blocks.RealInput` carrying the convective thermal
    conductance in W/K (value ``Gc.u``).

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Components/Convection.mo``.
    """

    solid = HeatPort()
    fluid = HeatPort()
    Gc = RealInput(required=True)
    Q_flow = Variable(unit="W", description="heat flow rate from solid to fluid")
    dT = Variable(unit="K", description="temperature difference solid.T - fluid.T")

    def equations(self):
        return [Eq(self.dT, self.solid.T - self.fluid.T),
                Eq(self.solid.Q_flow, self.Q_flow), Eq(self.fluid.Q_flow, -self.Q_flow),
                Eq(self.Q_flow, self.Gc.u * self.dT)]


class FixedTemperature(Component):
    """Port held at the temperature ``T`` [K] (MSL
    ``Thermal.HeatTransfer.Sources.FixedTemperature``): ``port.T = T``; it gives or takes any
    heat flow.

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Sources/FixedTemperature.mo``.
    """

    T = Parameter(293.15, unit="K", description="fixed temperature at port")
    port = HeatPort()

    def equations(self):
        return [Eq(self.port.T, self.T)]


class CelsiusFixedTemperature(Component):
    """Port held at the temperature ``T`` given in degree Celsius (MSL
    ``Thermal.HeatTransfer.Celsius.FixedTemperature``, also reachable as
    ``thermal.Celsius.FixedTemperature``): ``port.T = T + 273.15`` [K].

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Celsius/FixedTemperature.mo`` (with
    ``Modelica.Units.Conversions.from_degC``).
    """

    T = Parameter(20.0, unit="degC", description="fixed temperature at port in degC")
    port = HeatPort()

    def equations(self):
        return [Eq(self.port.T, self.T + ZERO_CELSIUS)]


class PrescribedTemperature(Component):
    """Port held at the temperature given by the signal ``T`` [K] (MSL
    ``Thermal.HeatTransfer.Sources.PrescribedTemperature``): ``port.T = T.u``.

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Sources/PrescribedTemperature.mo``.
    """

    port = HeatPort()
    T = RealInput(required=True)

    def equations(self):
        return [Eq(self.port.T, self.T.u)]


class FixedHeatFlow(Component):
    """Fixed heat flow ``Q_flow`` [W] into the connected network, optionally linear in the port
    temperature (MSL ``Thermal.HeatTransfer.Sources.FixedHeatFlow``)::

        port.Q_flow = -Q_flow (1 + alpha (port.T - T_ref))

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Sources/FixedHeatFlow.mo``.
    """

    Q_flow = Parameter(0.0, unit="W", description="fixed heat flow rate into the network at "
                       "T_ref")
    T_ref = Parameter(293.15, unit="K", description="reference temperature")
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of the heat flow "
                      "rate")
    port = HeatPort()

    def equations(self):
        return [Eq(self.port.Q_flow,
                   -self.Q_flow * (1 + self.alpha * (self.port.T - self.T_ref)))]


class PrescribedHeatFlow(Component):
    """Heat flow given by the signal ``Q_flow`` [W] into the connected network, optionally
    linear in the port temperature (MSL ``Thermal.HeatTransfer.Sources.PrescribedHeatFlow``)::

        port.Q_flow = -Q_flow.u (1 + alpha (port.T - T_ref))

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Sources/PrescribedHeatFlow.mo``.
    """

    T_ref = Parameter(293.15, unit="K", description="reference temperature")
    alpha = Parameter(0.0, unit="1/K", description="temperature coefficient of the heat flow "
                      "rate")
    Q_flow = RealInput(required=True)
    port = HeatPort()

    def equations(self):
        return [Eq(self.port.Q_flow,
                   -self.Q_flow.u * (1 + self.alpha * (self.port.T - self.T_ref)))]


class TemperatureSensor(Component):
    """Absolute temperature of a port as a signal (MSL
    ``Thermal.HeatTransfer.Sensors.TemperatureSensor``): ``T.u = port.T`` [K],
    ``port.Q_flow = 0``.

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Sensors/TemperatureSensor.mo``.
    """

    port = HeatPort()
    T = RealOutput()

    def equations(self):
        return [Eq(self.T.u, self.port.T), Eq(self.port.Q_flow, 0)]


class HeatFlowSensor(Component):
    """Heat flow rate from ``port_a`` to ``port_b`` as a signal, at equal temperatures (MSL
    ``Thermal.HeatTransfer.Sensors.HeatFlowSensor``)::

        port_a.T = port_b.T;  port_a.Q_flow + port_b.Q_flow = 0;  Q_flow.u = port_a.Q_flow

    Source: MSL 4.0 ``Modelica/Thermal/HeatTransfer/Sensors/HeatFlowSensor.mo``.
    """

    port_a = HeatPort()
    port_b = HeatPort()
    Q_flow = RealOutput()

    def equations(self):
        return [Eq(self.port_a.T, self.port_b.T), Eq(self.port_a.Q_flow + self.port_b.Q_flow, 0),
                Eq(self.Q_flow.u, self.port_a.Q_flow)]


#: ``thermal.Celsius.FixedTemperature(T=25)``: MSL's ``Thermal.HeatTransfer.Celsius`` spelling.
Celsius = SimpleNamespace(FixedTemperature=CelsiusFixedTemperature)
