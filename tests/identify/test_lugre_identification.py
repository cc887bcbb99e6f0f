"""LuGre friction identified from synthetic data (issue 16): the friction oscillator of
examples/identify_friction.py, data from acausal's simulate with the true parameters plus 1 %
Gaussian noise (seeded), fitted from a wrong guess by multiple shooting.

* every one of sigma0, sigma1, sigma2, mu_static and mu_dynamic is recovered within 3 standard
  deviations of the truth;
* the reported standard deviations agree within a factor of 2 with the spread of the estimates
  over 20 fits of 20 other noise realisations (a Monte Carlo of the noise).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from acausal import compile
from acausal.analysis.identify import IdentificationWarning

MONTE_CARLO_RUNS = 20


@pytest.fixture(scope="module")
def rig(friction_example):
    system = compile(friction_example.FrictionOscillator())
    clean = friction_example.clean_data(system)
    return system, clean


@pytest.fixture(scope="module")
def first_fit(rig, friction_example):
    system, clean = rig
    experiments = friction_example.noisy_experiments(clean, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentificationWarning)  # a doubtful fit fails the test
        return friction_example.fit(system, experiments)


def test_data_come_from_the_true_model(rig, friction_example):
    system, clean = rig
    for run in friction_example.RUNS:
        s = clean[run.name]["mass.s"]
        assert np.all(np.isfinite(s)) and s.size == run.samples
    # the experiments do what they are designed for: slip in the decay and the ramp, and
    # presliding (micrometres, never sliding) in the oscillation test
    assert np.ptp(clean["decay"]["mass.s"]) > 0.3
    assert 0.05 < np.ptp(clean["ramp"]["mass.s"]) < 0.06
    assert np.ptp(clean["presliding"]["mass.s"]) < 1e-4


def test_recovers_all_five_parameters_within_three_sigma(first_fit, friction_example):
    result = first_fit
    assert result.converged, result.message
    assert result.method == "multiple_shooting"
    for name, truth in friction_example.TRUE.items():
        estimate, sd = result.estimates[name], result.std[name]
        assert np.isfinite(sd) and sd > 0
        assert abs(estimate - truth) < 3 * sd, (name, estimate, truth, sd)
        # the guess was far away: the fit really moved
        assert abs(friction_example.GUESS[name] - truth) > 10 * sd
    # 1 % noise of each signal's range, weights 1/range^2: s^2 is about (1 %)^2
    assert result.s2 == pytest.approx(1e-4, rel=0.2)
    assert not result.sigma_known
    for signals in result.residual_autocorrelation.values():
        for rho in signals.values():
            assert abs(rho) < 0.2  # white residuals: the model follows every experiment
    corr = result.correlation
    np.testing.assert_allclose(np.diag(corr), 1.0)
    assert np.all(np.abs(corr) <= 1.0 + 1e-12)
    np.testing.assert_allclose(corr, corr.T)


def test_standard_deviations_agree_with_monte_carlo(rig, first_fit, friction_example):
    system, clean = rig
    names = list(friction_example.TRUE)
    estimates = []
    for seed in range(1, MONTE_CARLO_RUNS + 1):
        experiments = friction_example.noisy_experiments(clean, seed=seed)
        # warm start from the first fit: the Monte Carlo asks how the estimate moves with the
        # noise, not whether every start converges
        result = friction_example.fit(system, experiments, guess=first_fit.estimates)
        assert result.converged, (seed, result.message)
        estimates.append([result.estimates[n] for n in names])
    spread = np.std(np.array(estimates), axis=0, ddof=1)
    reported = np.array([first_fit.std[n] for n in names])
    ratio = reported / spread
    assert np.all((ratio > 0.5) & (ratio < 2.0)), dict(zip(names, ratio))
    # and the Monte Carlo estimates scatter around the truth
    mean = np.mean(np.array(estimates), axis=0)
    truth = np.array([friction_example.TRUE[n] for n in names])
    assert np.all(np.abs(mean - truth) < 3 * spread / np.sqrt(MONTE_CARLO_RUNS) + 0.5 * spread)


def test_summary_and_plot(first_fit, tmp_path):
    pytest.importorskip("matplotlib")
    text = str(first_fit)
    for name in ("friction.bristle_stiffness", "friction.mu_dynamic", "correlation",
                 "converged", "decay: mass.s", "N/m"):
        assert name in text
    path = tmp_path / "fit.png"
    fig = first_fit.plot(path)
    assert path.stat().st_size > 10_000
    assert len(fig.axes) == 2 * 3  # fit and residuals of one signal in three experiments
    table = first_fit.table()
    assert list(table.index) == first_fit.parameters
    assert table.loc["friction.mu_static", "unit"] == "1"
