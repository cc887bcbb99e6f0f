"""The slipping wheel of examples/slipping_wheel.py (issue 16): mu_A (adhesion) and mu_S
(sliding) of its OneDOFSlippingWheelJoint recovered within 2 % from synthetic measurements
(acausal's simulate with the true coefficients, 1 % Gaussian noise, seeded).

Two experiments with the one compiled model: ``thrown`` (the example's scenario: thrown at
2 m/s without spin, it slides at mu_S and spins up until it rolls) and ``torque`` (from rest,
1 N m drives it rolling with a small slip on the adhesion branch, near the mu_A peak). Measured:
the wheel centre's speed ``wheel.v`` and the contact slip ``wheel.v_slip_long = v - R w_roll``
(a speed sensor and the difference of wheel and ground speeds, as on a test rig).
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import compile, simulate
from acausal.analysis.identify import Experiment, identify

SIGNALS = ("wheel.v", "wheel.v_slip_long")
SCENARIOS = {"thrown": ({}, {}), "torque": ({"drive_torque": -1.0}, {"wheel.v": 0.0})}
T_END, SAMPLES = 0.5, 501


@pytest.fixture(scope="module")
def wheel(wheel_example):
    system = compile(wheel_example.build("thrown"))
    rng = np.random.default_rng(2024)
    experiments = []
    for name, (params, start) in SCENARIOS.items():
        t = np.linspace(0.0, T_END, SAMPLES)
        sol = simulate(system, T_END, t_eval=t, params=params, start=start, rtol=1e-10,
                       atol=1e-12)
        data = {"t": t}
        for s in SIGNALS:
            clean = np.asarray(sol[s])
            data[s] = clean + 0.01 * np.ptp(clean) * rng.standard_normal(t.size)
        experiments.append(Experiment(data, params=params, start=start, name=name))
    return system, experiments


def test_scenarios_cover_sliding_and_adhesion(wheel, wheel_example):
    system, _ = wheel
    thrown = simulate(system, T_END, n_points=101)
    torque = simulate(system, T_END, n_points=101, params={"drive_torque": -1.0},
                      start={"wheel.v": 0.0})
    contact = wheel_example.CONTACT
    assert thrown["wheel.v_slip_long"][0] > contact["vSlide_min"]  # starts sliding
    assert abs(thrown["wheel.v_slip_long"][-1]) < 1e-6  # ends rolling
    # driven: the wheel turns a little faster than it moves, on the rising (adhesion) branch
    # of the slip law, below the peak at vAdhesion (which grows with the speed)
    slip = torque["wheel.v_slip_long"][10:]
    assert np.all((slip < 0) & (-slip < torque["wheel.vAdhesion"][10:]))


def test_recovers_mu_A_and_mu_S_within_two_percent(wheel, wheel_example):
    system, experiments = wheel
    result = identify(system, experiments, {"wheel.mu_A": 0.6, "wheel.mu_S": 0.55})
    assert result.converged, result.message
    for name, key in (("wheel.mu_A", "mu_A"), ("wheel.mu_S", "mu_S")):
        truth = wheel_example.CONTACT[key]
        assert result.estimates[name] == pytest.approx(truth, rel=0.02)
        assert abs(result.estimates[name] - truth) < 3 * result.std[name]
