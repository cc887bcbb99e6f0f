"""The thermal parts of ``acausal.components.thermal`` (after MSL 4.0
``Modelica.Thermal.HeatTransfer``) against closed-form solutions:

* a ``ThermalConductor`` between two ``HeatCapacitor``: the difference decays as
  ``exp(-G (1/C1 + 1/C2) t)`` and the energy stays;
* a capacitor cooled to a ``FixedTemperature`` / ``Celsius.FixedTemperature`` /
  ``PrescribedTemperature`` through a conductor or a ``Convection`` (conductance from a
  signal): ``T = T_fix + (T0 - T_fix) exp(-G t / C)``;
* ``FixedHeatFlow`` and ``PrescribedHeatFlow`` into a capacitor: linear in time, and with a
  temperature coefficient exponential;
* the sensors read the port temperature and the heat flow.

Every model is compiled with the unit check on (the default). Runs use rtol 1e-10,
atol 1e-12; the error allowed is 1e-7 of the temperature span.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import Component, UnconnectedConnectorError, Variable, compile, connect
from acausal.components import thermal
from acausal.components.blocks import Constant, Ramp

TIGHT = {"rtol": 1e-10, "atol": 1e-12}
ERR = 1e-7


def start(value: float) -> Variable:
    return Variable(start=value, fixed=True)


class TwoBodies(Component):
    """Capacitors of 2 and 3 J/K at 400 K and 300 K joined by G = 1.5 W/K."""

    hot = thermal.HeatCapacitor(C=2.0, T=start(400.0))
    cold = thermal.HeatCapacitor(C=3.0, T=start(300.0))
    conductor = thermal.ThermalConductor(G=1.5)

    def connections(self):
        return [connect(self.hot.port, self.conductor.port_a),
                connect(self.conductor.port_b, self.cold.port)]


def test_conductor_between_capacitors():
    sol = compile(TwoBodies()).simulate(5.0, n_points=101, **TIGHT)
    rate = 1.5 * (1 / 2.0 + 1 / 3.0)
    dt = 100.0 * np.exp(-rate * sol.t)
    hot, cold = np.asarray(sol["hot.T"]), np.asarray(sol["cold.T"])
    np.testing.assert_allclose(hot - cold, dt, rtol=0, atol=ERR * 100)
    np.testing.assert_allclose(2.0 * hot + 3.0 * cold, 1700.0, rtol=1e-12)  # energy kept
    np.testing.assert_allclose(sol["conductor.Q_flow"], 1.5 * dt, rtol=0, atol=ERR * 150)
    np.testing.assert_allclose(sol["conductor.dT"], hot - cold, rtol=1e-12)


class CooledFourWays(Component):
    """Four capacitors (C = 4 J/K, from 350 K) cooled towards 290 K through G = 2 W/K: by a
    conductor to a FixedTemperature, by a conductor to Celsius.FixedTemperature(16.85 degC),
    by a Convection (Gc = 2 W/K from a Constant) to a PrescribedTemperature given by a Constant,
    and by a conductor to a fixed temperature through a HeatFlowSensor; a TemperatureSensor
    reads the first capacitor."""

    c1 = thermal.HeatCapacitor(C=4.0, T=start(350.0))
    c2 = thermal.HeatCapacitor(C=4.0, T=start(350.0))
    c3 = thermal.HeatCapacitor(C=4.0, T=start(350.0))
    c4 = thermal.HeatCapacitor(C=4.0, T=start(350.0))
    g1 = thermal.ThermalConductor(G=2.0)
    g2 = thermal.ThermalConductor(G=2.0)
    g4 = thermal.ThermalConductor(G=2.0)
    convection = thermal.Convection()
    gc = Constant(k=2.0)
    kelvin = thermal.FixedTemperature(T=290.0)
    celsius = thermal.Celsius.FixedTemperature(T=290.0 - 273.15)
    prescribed = thermal.PrescribedTemperature()
    t_ambient = Constant(k=290.0)
    sink = thermal.FixedTemperature(T=290.0)
    flow_sensor = thermal.HeatFlowSensor()
    sensor = thermal.TemperatureSensor()

    def connections(self):
        return [connect(self.c1.port, self.g1.port_a), connect(self.g1.port_b, self.kelvin.port),
                connect(self.c2.port, self.g2.port_a),
                connect(self.g2.port_b, self.celsius.port),
                connect(self.c3.port, self.convection.solid),
                connect(self.convection.fluid, self.prescribed.port),
                connect(self.gc.y, self.convection.Gc),
                connect(self.t_ambient.y, self.prescribed.T),
                connect(self.c4.port, self.g4.port_a),
                connect(self.g4.port_b, self.flow_sensor.port_a),
                connect(self.flow_sensor.port_b, self.sink.port),
                connect(self.sensor.port, self.c1.port)]


def test_cooling_to_fixed_temperatures():
    sol = compile(CooledFourWays()).simulate(6.0, n_points=121, **TIGHT)
    expected = 290.0 + 60.0 * np.exp(-2.0 * sol.t / 4.0)
    for name in ("c1", "c2", "c3", "c4"):
        np.testing.assert_allclose(sol[f"{name}.T"], expected, rtol=0, atol=ERR * 60,
                                   err_msg=name)
    np.testing.assert_allclose(sol["celsius.port.T"], 290.0, rtol=1e-14)
    np.testing.assert_allclose(sol["sensor.T.u"], sol["c1.T"], rtol=1e-14)
    # the heat flowing from c4 through the sensor into the sink: 2 (T - 290)
    np.testing.assert_allclose(sol["flow_sensor.Q_flow.u"], 2.0 * (expected - 290.0), rtol=0,
                               atol=ERR * 120)
    np.testing.assert_allclose(sol["convection.Q_flow"], 2.0 * (expected - 290.0), rtol=0,
                               atol=ERR * 120)


class Heated(Component):
    """Capacitors (C = 5 J/K, from 293.15 K) heated: by a fixed 10 W, by a signal 10 t W (a
    Ramp), and by 10 W with a temperature coefficient alpha = -0.01 1/K (the heat flow falls
    as the temperature rises above T_ref = 293.15 K)."""

    c1 = thermal.HeatCapacitor(C=5.0, T=start(293.15))
    c2 = thermal.HeatCapacitor(C=5.0, T=start(293.15))
    c3 = thermal.HeatCapacitor(C=5.0, T=start(293.15))
    fixed_flow = thermal.FixedHeatFlow(Q_flow=10.0)
    prescribed_flow = thermal.PrescribedHeatFlow()
    falling_flow = thermal.FixedHeatFlow(Q_flow=10.0, alpha=-0.01)
    ramp = Ramp(height=100.0, duration=10.0)  # 10 t W over the run

    def connections(self):
        return [connect(self.ramp.y, self.prescribed_flow.Q_flow),
                connect(self.fixed_flow.port, self.c1.port),
                connect(self.prescribed_flow.port, self.c2.port),
                connect(self.falling_flow.port, self.c3.port)]


def test_heat_flow_sources():
    """C T' = 10: T = T0 + 2 t; C T' = 10 t: T = T0 + t^2; C T' = 10 (1 - 0.01 (T - T0)):
    T = T0 + 100 (1 - exp(-0.02 t))."""
    sol = compile(Heated()).simulate(10.0, n_points=101, **TIGHT)
    t = sol.t
    np.testing.assert_allclose(sol["c1.T"], 293.15 + 2.0 * t, rtol=0, atol=ERR * 100)
    np.testing.assert_allclose(sol["c2.T"], 293.15 + t**2, rtol=0, atol=ERR * 100)
    np.testing.assert_allclose(sol["c3.T"], 293.15 + 100.0 * (1 - np.exp(-0.02 * t)), rtol=0,
                               atol=ERR * 100)


def test_signal_inputs_are_required():
    class Open(Component):
        c = thermal.HeatCapacitor(C=1.0, T=start(300.0))
        convection = thermal.Convection()
        ambient = thermal.FixedTemperature(T=290.0)

        def connections(self):
            return [connect(self.c.port, self.convection.solid),
                    connect(self.convection.fluid, self.ambient.port)]

    with pytest.raises(UnconnectedConnectorError, match="convection.Gc"):
        compile(Open())


def test_celsius_namespace_is_the_class():
    assert thermal.Celsius.FixedTemperature is thermal.CelsiusFixedTemperature
