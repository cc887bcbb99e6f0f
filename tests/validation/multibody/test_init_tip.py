"""Initialisation from what is measured, not from the joints: MultiBody's
``DoublePendulumInitTip`` starts its double pendulum with the tip at (0.7, 0.3) m and at rest,
through a ``FreeMotionScalarInit`` joint with fixed elements, or (``by_equations=True``)
through initial equations on the tip's position and on ``der()`` of it, a variable that index
reduction leaves algebraic. Both against the geometry by hand and Dymola's reference."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.examples import DoublePendulumInitTip

RTOL, ATOL = 1e-10, 1e-12


def elbow_angles(x: float, y: float, a: float = 0.5, b: float = 0.5) -> tuple[float, float]:
    """Joint angles of a two-link arm (lengths a, b) with its tip at (x, y), elbow
    counter-clockwise (the law of cosines)."""
    q2 = math.acos((x * x + y * y - a * a - b * b) / (2 * a * b))
    q1 = math.atan2(y, x) - math.atan2(b * math.sin(q2), a + b * math.cos(q2))
    return q1, q2


@pytest.fixture(scope="module", params=[False, True], ids=["FreeMotionScalarInit",
                                                             "initial-equations"])
def tip_pendulum(request):
    return compile(DoublePendulumInitTip(by_equations=request.param))


def test_starts_with_its_tip_where_asked(tip_pendulum):
    cs = tip_pendulum
    # the joints carry the states; the measuring elements are never states (StateSelect.never)
    assert cs.state_names == ["revolute1.phi", "revolute1.w", "revolute2.phi", "revolute2.w"]
    sol = cs.simulate(0.5, n_points=2, rtol=RTOL, atol=ATOL)
    q1, q2 = elbow_angles(0.7, 0.3)  # -0.300161..., 1.410106...
    # to the initialisation's Newton tolerance
    assert sol["revolute1.phi"][0] == pytest.approx(q1, abs=1e-9)
    assert sol["revolute2.phi"][0] == pytest.approx(q2, abs=1e-9)
    # tip at rest with a regular arm Jacobian: both joints at rest
    assert sol["revolute1.w"][0] == pytest.approx(0.0, abs=1e-9)
    assert sol["revolute2.w"][0] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(sol["boxBody2.frame_b.r_0"][:2, 0], [0.7, 0.3], atol=1e-9)
    # Dymola's start (DoublePendulumInitTip.csv, t = 0), typed in
    assert sol["revolute1.phi"][0] == pytest.approx(-0.30016105063640958, abs=1e-9)
    assert sol["revolute2.phi"][0] == pytest.approx(1.410105673842986, abs=1e-9)


def test_matches_the_reference_while_it_is_accurate(tip_pendulum, compare):
    """Over the first 2 s (errors 1e-6 .. 3e-5 of the ranges): see the next test for why not
    the whole 5 s."""
    _, errors = compare(tip_pendulum, "DoublePendulumInitTip", t_max=2.0, rtol=RTOL, atol=ATOL)
    assert len(errors) == 4 and max(errors.values()) < 1e-4


def test_the_motion_is_too_sensitive_for_a_reference_at_tolerance_1e_6(tip_pendulum):
    """The double pendulum amplifies small errors: run at the reference's tolerance (1e-6),
    acausal's own result moves from its converged one by 1e-3 of the range by 5 s, which is
    the size of the difference to Dymola's reference there (4e-3 .. 1e-2); at rtol 1e-10 and
    1e-12 the runs agree to 5e-6. So the reference is compared over 2 s only."""
    t = np.linspace(0.0, 5.0, 1001)
    tight = tip_pendulum.simulate(5.0, t_eval=t, rtol=1e-12, atol=1e-14)
    ours = tip_pendulum.simulate(5.0, t_eval=t, rtol=RTOL, atol=ATOL)
    # BDF, the reference's kind of method (DASSL): Adams, the default's start, is more
    # accurate at 1e-6 on this smooth motion (5e-5 of the range off by 5 s)
    loose = tip_pendulum.simulate(5.0, t_eval=t, rtol=1e-6, atol=1e-8,
                                  integrator_options={"method": "BDF"})
    for name in ("revolute1.phi", "revolute2.w"):
        span = np.ptp(tight[name])
        assert np.max(np.abs(ours[name] - tight[name])) < 1e-5 * span
        assert np.max(np.abs(loose[name] - tight[name])) > 3e-4 * span
