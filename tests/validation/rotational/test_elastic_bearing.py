"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.ElasticBearing`` (10 s): a gearbox whose
housing is not fixed but held by a spring-damper, built with the support flanges
(``useSupport=True``) of ``Torque`` and ``IdealGear`` and a ``MultiSensor``.

A ramp torque (100 N.m over 5 s) drives the shaft (J = 1 kg.m2); the gear (ratio 3, support on
the housing, J = 5 kg.m2) drives a load (J = 50 kg.m2) through a spring (c = 1e3 N.m/rad); the
housing is held by a spring-damper (c = 1e5 N.m/rad, d = 5 N.m.s/rad) through the sensor.

The drive is linear: its exact motion is the solution of six linear ODEs written here by hand
and integrated by scipy's DOP853 at rtol 1e-13 (:func:`exact_solution`). ``springDamper.w_rel``
(the housing's speed, range 8.8e-4 rad/s) is the smallest signal: the run uses rtol 1e-10, atol
1e-12 so that it is within 1e-5 of its range of the exact motion. The reference is not: its
``springDamper.w_rel`` is 2.3e-4 of the range (2e-7 rad/s) away from the exact motion, beyond
the 1e-4 of the comparison (:func:`test_housing_speed_reference_is_less_accurate` shows it;
the comparison of that signal is an expected failure). Every other signal matches the
reference within 1e-4 of its range.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from acausal import Component, Eq, Variable, connect
from acausal.components import event_sources
from acausal.components import rotational as rot
from acausal.components.rotational_parts import MultiSensor

RTOL, ATOL = 1e-10, 1e-12
T_END = 10.0
SIGNALS = ["load.phi", "load.w", "shaft.phi", "shaft.w", "springDamper.phi_rel"]
HOUSING = "springDamper.w_rel"


class ElasticBearingExample(Component):
    """Examples.ElasticBearing (renamed so that pytest does not collect it)."""

    shaft = rot.Inertia(J=1.0, phi=Variable(start=0.0, fixed=True),
                        w=Variable(start=0.0, fixed=True))
    load = rot.Inertia(J=50.0, w=Variable(start=0.0, fixed=True))
    spring = rot.Spring(c=1e3, phi_rel=Variable(start=0.0, fixed=True))
    fixed = rot.Fixed()
    springDamper = rot.SpringDamper(c=1e5, d=5.0, phi_rel=Variable(start=0.0, fixed=True),
                                    w_rel=Variable(start=0.0, fixed=True, nominal=1e-4))
    torque = rot.Torque(useSupport=True)
    ramp = event_sources.Ramp(duration=5.0, height=100.0)
    idealGear = rot.IdealGear(ratio=3.0, useSupport=True)
    housing = rot.Inertia(J=5.0)
    multiSensor = MultiSensor()

    def equations(self):
        return [Eq(self.torque.tau, self.ramp.y.u)]  # connect(ramp.y, torque.tau)

    def connections(self):
        return [connect(self.torque.flange, self.shaft.flange_a),
                connect(self.spring.flange_b, self.load.flange_a),
                connect(self.springDamper.flange_a, self.fixed.flange),
                connect(self.shaft.flange_b, self.idealGear.flange_a),
                connect(self.idealGear.flange_b, self.spring.flange_a),
                connect(self.idealGear.support, self.housing.flange_b),
                connect(self.fixed.flange, self.torque.support),
                connect(self.housing.flange_a, self.multiSensor.flange_b),
                connect(self.multiSensor.flange_a, self.springDamper.flange_b)]


def exact_solution(t: np.ndarray) -> dict[str, np.ndarray]:
    """The drive's motion from its linear ODEs, x = (phi_s, w_s, phi_L, w_L, phi_h, w_h, u):

    gear: phi_s - phi_h = 3 (phi_b - phi_h); spring torque tau_s = c (phi_L - phi_b);
    gear flange torques tau_a = -tau_s/3 (shaft side), support torque 2 tau_a;
    J_s w_s' = u + tau_s/3;  J_L w_L' = -tau_s;  J_h w_h' = 2/3 tau_s - c2 phi_h - d2 w_h;
    u' = 20 N.m/s for t < 5 s, then 0 (the ramp)."""
    js, jl, jh, c, c2, d2 = 1.0, 50.0, 5.0, 1e3, 1e5, 5.0

    def rhs(slope):
        def f(_, x):
            ps, ws, pl, wl, ph, wh, u = x
            tau_s = c * (pl - (2 * ph + ps) / 3)
            return [ws, (u + tau_s / 3) / js, wl, -tau_s / jl, wh,
                    (2 / 3 * tau_s - c2 * ph - d2 * wh) / jh, slope]
        return f

    first = t <= 5.0
    opts = dict(method="DOP853", rtol=1e-13, atol=1e-16)
    a = solve_ivp(rhs(20.0), (0.0, 5.0), np.zeros(7), dense_output=True, **opts)
    b = solve_ivp(rhs(0.0), (5.0, T_END), a.y[:, -1], t_eval=t[~first], **opts)
    x = np.hstack([a.sol(t[first]), b.y])
    return {"shaft.phi": x[0], "shaft.w": x[1], "load.phi": x[2], "load.w": x[3],
            "springDamper.phi_rel": x[4], "springDamper.w_rel": x[5]}


@pytest.fixture(scope="module")
def run():
    return msl_1d.run_example(ElasticBearingExample(), "rotational", "ElasticBearing", T_END,
                              2001, rtol=RTOL, atol=ATOL)


@pytest.fixture(scope="module")
def exact(run):
    """The exact motion at the solution's output times (the reference's, when present)."""
    return exact_solution(np.asarray(run[0].t))


def test_checkpoints(run, exact):
    """Reference values at 2.5, 5 and 10 s (from the MAP-LIB CSV), within 1e-4 of each
    range; and the exact motion everywhere, within 1e-5 of each range."""
    sol, _ = run
    ranges = {"load.phi": 148.3, "load.w": 38.13, "shaft.phi": 445.6, "shaft.w": 114.5,
              "springDamper.phi_rel": 0.001712, "springDamper.w_rel": 8.759e-4}
    checkpoints = {
        2.5: [2.628634383, 3.162705052, 8.272760305, 9.788249132, -0.0008559019256],
        5.0: [21.14785751, 12.71060869, 64.20237478, 38.15652187, -0.001678657687],
        10.0: [148.2663819, 38.13223192, 445.5603011, 114.4628013, -0.001683893462]}
    msl_1d.check_values_at(sol, SIGNALS, checkpoints, ranges)
    msl_1d.check_exact(sol, exact, ranges, 1e-5)
    # the support takes the gear's reaction: housing torque balance through the sensor
    tau_sd = np.asarray(sol["springDamper.tau"])
    np.testing.assert_allclose(np.asarray(sol["multiSensor.tau.u"]), -tau_sd, atol=1e-9)


def test_against_reference(run):
    """Every comparison signal but the housing speed within 1e-4 of its range."""
    sol, ref = run
    ref = msl_1d.require(ref, "rotational", "ElasticBearing")
    errors = msl_1d.compare(sol, ref, SIGNALS)
    print("worst relative error", max(errors.values()))


def test_housing_speed_reference_is_less_accurate(run, exact):
    """The proof behind the expected failure below: the reference's springDamper.w_rel is more
    than 1e-4 of its range away from the exact motion, ours less than 1e-5."""
    sol, ref = run
    ref_err, our_err = msl_1d.errors_from_exact(
        sol, msl_1d.require(ref, "rotational", "ElasticBearing"), HOUSING, exact[HOUSING])
    assert ref_err > 1e-4
    assert our_err < 1e-5


@pytest.mark.xfail(strict=True, reason="the reference's springDamper.w_rel is 2.3e-4 of its "
                   "range (2e-7 rad/s) from the exact motion (DASSL at tolerance 1e-6 on a "
                   "signal of 1e-3 rad/s): test_housing_speed_reference_is_less_accurate")
def test_housing_speed_against_reference(run):
    sol, ref = run
    msl_1d.compare(sol, msl_1d.require(ref, "rotational", "ElasticBearing"), [HOUSING])
