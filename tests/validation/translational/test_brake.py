"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.Brake`` (2 s): two masses (1 kg, 1 m/s
at the start) on two ``Brake`` elements (fn_max = 1 N, mu = 0.5, one grounded internally, one on
a fixed support flange) pressed by a step of the normalized force from 0 to 2 at 0.1 s.

Closed form: free (mode 2, no force) until 0.1 s, then sliding forward against
``mu*cgeo*fn = 0.5*1*2 = 1`` N: ``v = 1 - (t - 0.1)`` m/s until the masses stand still at
1.1 s at ``s = 0.1 + 1/2 = 0.6`` m, stuck from then on. The supported brake's support takes the
reaction ``support.f = -f``. Solver: rtol 1e-8, atol 1e-10.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, connect
from acausal.components import event_sources
from acausal.components import translational as tr
from acausal.components.translational_friction import Brake

RTOL, ATOL = 1e-8, 1e-10
SIGNALS = ["mass1.s", "mass1.v", "mass2.s", "mass2.v"]
MODES = ["brake.mode", "brake1.mode"]
TIME_TOL = 1e-9  # both events are exact: a time event at 0.1 s, the stop at 1.1 s


def fixed(value: float = 0.0) -> Variable:
    return Variable(start=value, fixed=True)


class BrakeExample(Component):
    """Examples.Brake (renamed so that pytest does not collect it)."""

    brake = Brake(fn_max=1, useSupport=False)
    mass1 = tr.Mass(m=1, s=fixed(), v=fixed(1.0))
    step = event_sources.Step(start_time=0.1, height=2)
    brake1 = Brake(fn_max=1, useSupport=True)
    mass2 = tr.Mass(m=1, s=fixed(), v=fixed(1.0))
    fixed = tr.Fixed()

    def connections(self):
        return [connect(self.mass1.flange_b, self.brake.flange_a),
                connect(self.step.y, self.brake.f_normalized),
                connect(self.mass2.flange_b, self.brake1.flange_a),
                connect(self.step.y, self.brake1.f_normalized),
                connect(self.fixed.flange, self.brake1.support)]


@pytest.fixture(scope="module")
def run():
    return msl_1d.run_example(BrakeExample(), "translational", "Brake", 2.0,
                              4001, rtol=RTOL, atol=ATOL)


def test_closed_form(run):
    """Free, sliding against 1 N from 0.1 s, stuck at 1.1 s at 0.6 m; the reference's values
    (1 m/s, then 0.42 m and 0.6 m/s at 0.5 s, 0.6 m at 2 s) are these numbers."""
    sol, _ = run
    t = np.asarray(sol.t)
    v_exact = np.where(t < 0.1, 1.0, np.maximum(1.0 - (t - 0.1), 0.0))
    s_exact = np.where(t < 0.1, t, np.where(t < 1.1, 0.1 + (t - 0.1) - (t - 0.1) ** 2 / 2, 0.6))
    for mass in ("mass1", "mass2"):
        # s ~ 0.6 m integrated to rtol 1e-8 over 1 s: a few 1e-9 m
        np.testing.assert_allclose(sol[f"{mass}.v"], v_exact, atol=1e-8)
        np.testing.assert_allclose(sol[f"{mass}.s"], s_exact, atol=2e-8)
    for name in MODES:
        seq = msl_1d.mode_sequence(sol, name)
        assert [v for _, v in seq] == [2.0, 1.0, 0.0]
        np.testing.assert_allclose([t for t, _ in seq[1:]], [0.1, 1.1], atol=TIME_TOL)
    sliding = (t >= 0.1) & (t < 1.1 - 1e-9)  # at 0.1 s the value after the event
    np.testing.assert_allclose(sol["brake.f"][sliding], 1.0, rtol=1e-12)
    np.testing.assert_allclose(sol["brake1.support.f"], -np.asarray(sol["brake1.f"]),
                               atol=1e-12)
    assert np.all(np.asarray(sol["brake.f"])[t < 0.1] == 0.0)  # free: no force at all
    # the heat: 1 N times the speed while sliding, nothing while free or stuck
    np.testing.assert_allclose(sol["brake.lossPower"], np.where(sliding, v_exact, 0.0),
                               atol=1e-8)


def test_against_reference(run):
    """Every comparison signal within 1e-4 of its range; the mode sequences (Free, Forward at
    0.1 s, Stuck at 1.1 s) as the reference's."""
    sol, ref = run
    ref = msl_1d.require(ref, "translational", "Brake")
    errors = msl_1d.compare(sol, ref, SIGNALS)
    print("worst relative error", max(errors.values()))
    for name in MODES:
        msl_1d.check_sequence(name, msl_1d.mode_sequence(sol, name),
                              msl_1d.reference_sequence(ref, name), TIME_TOL)
