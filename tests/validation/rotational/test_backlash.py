"""MSL 4.0 ``Modelica.Mechanics.Rotational.Examples.Backlash`` rebuilt with
:mod:`acausal.components.backlash` and compared with the Dymola reference (1 s).

Three inertias (J = 5 kg.m2, released at 90 deg, at rest) on a spring-damper (c = 20e3 N.m/rad,
d = 50 N.m.s/rad), an ``ElastoBacklash`` and an ``ElastoBacklash2`` (same spring and damper,
backlash b = 45 deg) to the ground. The reference stores the signals of ``elastoBacklash`` and
``springDamper``; its event instants are those of both backlash elements (contact begins or
ends; ``ElastoBacklash2`` also where its spring and damper torque changes sign), so the event
list checks ``elastoBacklash2`` as well.

Solver: rtol 1e-8, atol 1e-10. Our event times move by < 3e-7 s from rtol 1e-8 to 1e-11; the
reference's (DASSL, tolerance 1e-6) drift from ours by up to 1.5e-6 s towards the end of the
run: event times are compared within 3e-6 s, the signals (1e-4 of each range) at the
reference's rows 3e-6 s or more from an event.
"""

from __future__ import annotations

import msl_1d
import numpy as np
import pytest

from acausal import Component, Variable, connect
from acausal.components import rotational as rot
from acausal.components.backlash import ElastoBacklash, ElastoBacklash2

RTOL, ATOL = 1e-8, 1e-10
PHI0 = 1.570796326794897  # 90 deg
SIGNALS = ["elastoBacklash.phi_rel", "elastoBacklash.w_rel", "springDamper.phi_rel",
           "springDamper.w_rel"]
EVENT_TOL = 3e-6


def _inertia():
    return rot.Inertia(J=5.0, w=Variable(start=0.0, fixed=True),
                       phi=Variable(start=PHI0, fixed=True))


class BacklashExample(Component):
    """Examples.Backlash (renamed so that pytest does not collect it)."""

    fixed1 = rot.Fixed()
    springDamper = rot.SpringDamper(c=20e3, d=50.0)
    inertia1 = _inertia()
    fixed2 = rot.Fixed()
    elastoBacklash = ElastoBacklash(c=20e3, d=50.0, b=0.7853981633974483, phi_nominal=1.0)
    inertia2 = _inertia()
    fixed3 = rot.Fixed()
    elastoBacklash2 = ElastoBacklash2(c=20e3, d=50.0, b=0.78539816339745, phi_nominal=1.0)
    inertia3 = _inertia()

    def connections(self):
        return [connect(self.springDamper.flange_b, self.inertia1.flange_a),
                connect(self.elastoBacklash.flange_b, self.inertia2.flange_a),
                connect(self.fixed1.flange, self.springDamper.flange_a),
                connect(self.fixed2.flange, self.elastoBacklash.flange_a),
                connect(self.elastoBacklash2.flange_b, self.inertia3.flange_a),
                connect(self.fixed3.flange, self.elastoBacklash2.flange_a)]


@pytest.fixture(scope="module")
def run():
    # BDF: the event times below were measured with it (with Adams, the default's start, they
    # move by up to 3.2e-6 s from the reference's at this tolerance)
    return msl_1d.run_example(BacklashExample(), "rotational", "Backlash", 1.0, 2001,
                              rtol=RTOL, atol=ATOL, integrator_options={"method": "BDF"})


def test_checkpoints(run):
    """Reference values at three instants (from the MAP-LIB CSV), within 1e-4 of each range."""
    sol, _ = run
    ranges = {"elastoBacklash.phi_rel": 2.905, "elastoBacklash.w_rel": 119.1,
              "springDamper.phi_rel": 2.795, "springDamper.w_rel": 157.1}
    checkpoints = {
        0.05: [-1.078364326, -42.56539909, -1.224319814, 0.8369189577],
        0.5: [-0.3099397327, -17.22830512, 0.1292914533, -0.8802069042],
        1.0: [-0.1555703672, -7.022930403, 0.01051803482, -0.1437033139]}
    msl_1d.check_values_at(sol, SIGNALS, checkpoints, ranges)
    # first contact events: elastoBacklash2's spring and damper torque turns to pulling at
    # 0.0236592 s, both elements leave contact at 0.0261592 s and touch the other side at
    # 0.0380239 s (reference instants)
    times = [t for t, _ in sol.events]
    np.testing.assert_allclose(times[:5], [0.02365922, 0.02615922, 0.02615922, 0.03802387,
                                           0.03802387], atol=1e-7)


def test_elasto_backlash2_torque_jumps_at_contact(run):
    """ElastoBacklash2's flange torque jumps at contact to the damping torque d w_rel (the
    spring torque is zero there); ElastoBacklash's starts from zero."""
    sol, _ = run
    contacts = [k for k, (_, labels) in enumerate(sol.events)
                if any("elastoBacklash2.phi_diff < -elastoBacklash2.b/2) becoming true" in lab
                       for lab in labels)]
    assert contacts, "elastoBacklash2 never came into contact on the negative side"
    tau = sol.event_values("elastoBacklash2.tau")
    w_rel = sol.event_values("elastoBacklash2.w_rel")
    for k in contacts:
        assert tau[k] == pytest.approx(50.0 * w_rel[k], rel=1e-9)
        assert abs(tau[k]) > 100.0  # a real jump: the inertia hits the stop at speed


def test_against_reference(run):
    """Every comparison signal within 1e-4 of its range, the event instants within 3e-6 s."""
    sol, ref = run
    ref = msl_1d.require(ref, "rotational", "Backlash")
    errors = msl_1d.compare(sol, ref, SIGNALS, margin=EVENT_TOL)
    print("worst relative error", max(errors.values()))
    ours = np.array([t for t, _ in sol.events])
    theirs = msl_1d.event_times(ref)
    theirs = theirs[theirs < 1.0]  # the last row (t = 1) is stored twice too: not an event
    assert ours.size == theirs.size, (ours.size, theirs.size)
    assert np.max(np.abs(ours - theirs)) < EVENT_TOL
