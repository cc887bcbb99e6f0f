"""MSL 4.0 ``Modelica.Mechanics.Translational.Examples.ElastoGap`` against its Dymola
reference (``../shared/reference/translational/ElastoGap``).

Two masses (m = 1 kg, L = 0) start at rest at s = 2 m between two rods (L = 2 m) that reach
from a ``Fixed`` at 0 to -2 m and +2 m. ``mass1`` hangs on two ``SpringDamper(c=10, d=1.5,
s_rel0=1)``; ``mass2`` on two ``ElastoGap(c=10, d=1.5, s_rel0=1.5)``, which push only while
compressed: ``mass2`` flies freely while -0.5 m < s < 0.5 m. The contacts open and close at
six instants, which the reference stores twice (its events); ours are compared with them, and
the signals away from them. Without contact the gap element takes no force; in contact its
force never pulls (checked inline).
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, compile, connect
from acausal.components import translational as tr

RTOL, ATOL = 1e-8, 1e-10
SIGNALS = ["elastoGap1.v_rel", "elastoGap2.s_rel", "springDamper1.v_rel", "springDamper2.s_rel"]
#: the contact changes of the reference (ElastoGap.csv, the instants stored twice) [s]
CONTACT_CHANGES = [0.58337276, 0.87516038, 1.89620449, 2.40406921, 3.42511093, 4.30905899]
#: allowed distance of our contact changes from the reference's [s]: the reference's event
#: location at its tolerance 1e-6 (the instants above are rounded to 1e-8 s)
TIME_TOL = 1e-5


class ElastoGap(Component):
    fixed = tr.Fixed()
    rod1 = tr.Rod(L=2)
    rod2 = tr.Rod(L=2)
    springDamper1 = tr.SpringDamper(c=10, s_rel0=1, s_rel=Variable(start=1), d=1.5)
    springDamper2 = tr.SpringDamper(c=10, s_rel0=1, s_rel=Variable(start=1), d=1.5)
    mass1 = tr.Mass(s=Variable(start=2, fixed=True), L=0, m=1, v=Variable(fixed=True))
    elastoGap1 = tr.ElastoGap(c=10, s_rel=Variable(start=1.5), s_rel0=1.5, d=1.5)
    elastoGap2 = tr.ElastoGap(c=10, s_rel=Variable(start=1.5), s_rel0=1.5, d=1.5)
    mass2 = tr.Mass(s=Variable(start=2, fixed=True), L=0, m=1, v=Variable(fixed=True))

    def connections(self):
        return [connect(self.rod1.flange_b, self.fixed.flange),
                connect(self.fixed.flange, self.rod2.flange_a),
                connect(self.springDamper1.flange_a, self.rod1.flange_a),
                connect(self.springDamper2.flange_b, self.rod2.flange_b),
                connect(self.springDamper1.flange_b, self.mass1.flange_a),
                connect(self.mass1.flange_b, self.springDamper2.flange_a),
                connect(self.rod1.flange_a, self.elastoGap1.flange_a),
                connect(self.rod2.flange_b, self.elastoGap2.flange_b),
                connect(self.elastoGap1.flange_b, self.mass2.flange_a),
                connect(self.mass2.flange_b, self.elastoGap2.flange_a)]


@pytest.fixture(scope="module")
def compiled():
    return compile(ElastoGap())


@pytest.fixture(scope="module")
def run(compiled):
    return compiled.simulate(5.0, t_eval=np.linspace(0.0, 5.0, 501), rtol=RTOL, atol=ATOL)


def test_contacts_and_checkpoints(run):
    sol = run
    times = [t for t, _ in sol.events]
    assert len(times) == len(CONTACT_CHANGES), sol.events
    np.testing.assert_allclose(times, CONTACT_CHANGES, rtol=0, atol=TIME_TOL)
    # mass2 is free exactly while -0.5 < s < 0.5: the gaps' contact flags say so
    s = np.asarray(sol["mass2.s"])
    free = (s > -0.5 + 1e-6) & (s < 0.5 - 1e-6)
    assert np.all(sol["elastoGap1.contact"][free] == 0) and np.all(
        sol["elastoGap2.contact"][free] == 0)
    assert np.all(sol["elastoGap1.contact"][s < -0.5 - 1e-6] == 1)
    assert np.all(sol["elastoGap2.contact"][s > 0.5 + 1e-6] == 1)
    for gap in ("elastoGap1", "elastoGap2"):
        f = np.asarray(sol[f"{gap}.f"])
        assert np.all(f <= 1e-12)  # never pulls
        np.testing.assert_array_equal(f[np.asarray(sol[f"{gap}.contact"]) == 0], 0.0)
        # in contact: |f_d| <= |f_c| and the power dissipated is f_d v_rel >= 0
        assert np.all(np.abs(sol[f"{gap}.f_d"]) <= np.abs(sol[f"{gap}.f_c"]) + 1e-12)
        assert np.all(np.asarray(sol[f"{gap}.lossPower"]) >= -1e-12)
    # the reference at t = 1, 2.5 and 5 s (ElastoGap.csv), within 1e-4 of each signal's range
    # (5.4 m/s, 3.4 m, 7.7 m/s, 2.7 m)
    k = [100, 250, 500]
    np.testing.assert_allclose(sol["elastoGap1.v_rel"][k], [-2.90679014, 1.79058988, 0.53752971],
                               rtol=0, atol=5.4e-4)
    np.testing.assert_allclose(sol["elastoGap2.s_rel"][k], [2.90595354, 1.31685219, 2.70788702],
                               rtol=0, atol=3.4e-4)
    np.testing.assert_allclose(sol["springDamper1.v_rel"][k],
                               [1.8598327, 0.19979366, -0.00419324], rtol=0, atol=7.7e-4)
    np.testing.assert_allclose(sol["springDamper2.s_rel"][k],
                               [2.35317466, 2.03598815, 2.00035038], rtol=0, atol=2.7e-4)


def test_against_reference(compiled):
    ref = msl_1d.load("translational", "ElastoGap")
    assert msl_1d.comparison_signals("translational", "ElastoGap") == SIGNALS
    events = msl_1d.event_times(ref)
    np.testing.assert_allclose(events[:-1], CONTACT_CHANGES, rtol=0, atol=1e-8)
    sol = compiled.simulate(5.0, t_eval=msl_1d.output_times(ref), rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose([t for t, _ in sol.events], events[:-1], rtol=0, atol=TIME_TOL)
    errors = msl_1d.compare(sol, ref, SIGNALS, margin=2 * TIME_TOL)
    print("ElastoGap worst relative error", max(errors.values()))
