"""1-D heat transfer, the little the mechanical libraries need (after
``Modelica.Thermal.HeatTransfer``).

Connector ``HeatPort``: potential ``T`` [K], flow ``Q_flow`` [W] (heat flowing *into* the
component through the port). An open port carries no heat.
"""

from __future__ import annotations

from acausal import Component, Connector, Eq, Flow, Parameter, Potential, Variable, der


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
