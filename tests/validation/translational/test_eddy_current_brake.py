"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.EddyCurrentBrake`` against its Dymola
reference (``../shared/reference/translational/EddyCurrentBrake``).

An ``EddyCurrentForce(f_nominal=100, v_nominal=10, TRef=293.15, alpha20=alpha20Copper)`` with
its heat port brakes a ``Mass(m=1)`` from 20 m/s; the heat goes into a
``HeatCapacitor(C=1)`` starting at 293.15 K, so the kinetic energy lost is the heat stored:
``C (T - 293.15) = m (20^2 - v^2)/2`` (checked inline). With it the motion is the scalar ODE
``v' = -2 f_nominal vn/(1 + vn^2)/m``, ``vn = v/(v_nominal (1 + alpha (T(v) - TRef)))``,
integrated independently by scipy (inline).
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from acausal import Component, Variable, compile, connect
from acausal.components import thermal
from acausal.components import translational as tr
from acausal.components.translational_parts import EddyCurrentForce

RTOL, ATOL = 1e-8, 1e-10
SIGNALS = ["mass.s", "heatCapacitor.T", "eddyCurrentForce.lossPower"]
#: Modelica.Electrical.Machines.Thermal.Constants.alpha20Copper [1/K]
ALPHA20_COPPER = 3.92e-3
T0, V0 = 293.15, 20.0


class EddyCurrentBrake(Component):
    eddyCurrentForce = EddyCurrentForce(f_nominal=100, v_nominal=10, useHeatPort=True,
                                        TRef=293.15, alpha20=ALPHA20_COPPER)
    mass = tr.Mass(m=1, s=Variable(start=0.0, fixed=True), v=Variable(start=V0, fixed=True))
    heatCapacitor = thermal.HeatCapacitor(C=1, T=Variable(start=T0, fixed=True))

    def connections(self):
        return [connect(self.eddyCurrentForce.flange, self.mass.flange_a),
                connect(self.eddyCurrentForce.heatPort, self.heatCapacitor.port)]


def scalar_ode(t_eval: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, v) of the brake from the scalar ODE in v, T from the energy balance (scipy, DOP853
    at rtol 1e-12)."""
    def rhs(_t, y):
        s, v = y
        temperature = T0 + (V0**2 - v**2) / 2
        vn = v / (10.0 * (1 + ALPHA20_COPPER * (temperature - 293.15)))
        return [v, -2 * 100.0 * vn / (1 + vn**2)]
    out = solve_ivp(rhs, (0.0, t_eval[-1]), [0.0, V0], method="DOP853", t_eval=t_eval,
                    rtol=1e-12, atol=1e-12)
    return out.y[0], out.y[1]


@pytest.fixture(scope="module")
def compiled():
    return compile(EddyCurrentBrake())


def test_energy_balance_ode_and_checkpoints(compiled):
    t = np.linspace(0.0, 1.0, 201)
    sol = compiled.simulate(1.0, t_eval=t, rtol=RTOL, atol=ATOL)
    v = np.asarray(sol["mass.v"])
    temperature = np.asarray(sol["heatCapacitor.T"])
    # the heat is the kinetic energy lost (200 J in all): 1e-6 of it for the run at rtol 1e-8
    np.testing.assert_allclose(temperature - T0, (V0**2 - v**2) / 2, rtol=0, atol=200e-6)
    np.testing.assert_allclose(sol["eddyCurrentForce.lossPower"],
                               np.asarray(sol["eddyCurrentForce.f"]) * v, rtol=1e-12, atol=1e-9)
    s_ode, v_ode = scalar_ode(t)
    np.testing.assert_allclose(sol["mass.s"], s_ode, rtol=0, atol=2.6e-6)  # 1e-6 of 2.6 m
    np.testing.assert_allclose(v, v_ode, rtol=0, atol=20e-6)  # 1e-6 of 20 m/s
    # the reference at t = 0.1, 0.5 and 1 s (EddyCurrentBrake.csv), within 1e-4 of each
    # signal's range (2.56 m, 200 K, 1635 W)
    k = [20, 100, 200]
    np.testing.assert_allclose(sol["mass.s"][k], [1.53999383, 2.55027032, 2.56227806],
                               rtol=0, atol=2.56e-4)
    np.testing.assert_allclose(sol["heatCapacitor.T"][k], [437.39678902, 493.14072315,
                                                          493.14984772], rtol=0, atol=0.02)
    np.testing.assert_allclose(sol["eddyCurrentForce.lossPower"][k],
                               [979.094627, 0.204646121, 2.77e-6], rtol=0, atol=0.16)


def test_without_heat_port_the_temperature_is_fixed():
    """useHeatPort=False: the element works at its parameter T (MSL's TheatPort = T), here
    TRef, so vn = v/v_nominal and the force is 2 f_nominal vn/(1 + vn^2) exactly."""
    class Brake(Component):
        brake = EddyCurrentForce(f_nominal=100, v_nominal=10, alpha20=ALPHA20_COPPER)
        mass = tr.Mass(m=1, s=Variable(start=0.0, fixed=True),
                       v=Variable(start=V0, fixed=True))

        def connections(self):
            return [connect(self.brake.flange, self.mass.flange_a)]

    sol = compile(Brake()).simulate(0.2, n_points=21, rtol=RTOL, atol=ATOL)
    vn = np.asarray(sol["mass.v"]) / 10
    np.testing.assert_allclose(sol["brake.f"], 200 * vn / (1 + vn**2), rtol=1e-10)
    np.testing.assert_allclose(sol["brake.TheatPort"], 293.15, rtol=0, atol=1e-12)
    # v' = -20 v/(1 + v^2/100) at constant temperature (m = 1, f_nominal = 100, v_nominal =
    # 10) integrates to t = ln(v0/v)/20 + (v0^2 - v^2)/4000
    v = np.asarray(sol["mass.v"])
    np.testing.assert_allclose(np.log(V0 / v) / 20 + (V0**2 - v**2) / 4000, sol.t, rtol=0,
                               atol=1e-7)


def test_against_reference(compiled):
    msl_1d.check_against_reference(compiled, "translational", "EddyCurrentBrake", 1.0, SIGNALS,
                                   rtol=RTOL, atol=ATOL)
