"""MultiBody ``Examples.Elementary`` models rebuilt from acausal's 3-D library, against the
Dymola references (1e-4 of each signal's range over the whole span) and inline checkpoints."""

from __future__ import annotations

import math

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.examples import DoublePendulum, Pendulum

RTOL, ATOL = 1e-9, 1e-11


def test_pendulum_matches_the_one_degree_of_freedom_equation_and_the_reference(compare):
    cs = compile(Pendulum())
    assert cs.state_names == ["rev.phi", "rev.w"]
    # (I_33 + m L^2) phi'' = -m g L cos(phi) - d phi', L = 0.5: integrate it independently
    from scipy.integrate import solve_ivp

    def rhs(t, y):
        return [y[1], (-9.80665 * 0.5 * math.cos(y[0]) - 0.1 * y[1]) / (0.001 + 0.25)]

    times = np.linspace(0.0, 5.0, 11)
    exact = solve_ivp(rhs, (0, 5), [0.0, 0.0], t_eval=times, rtol=1e-12, atol=1e-12).y
    sol = cs.simulate(5.0, t_eval=times, rtol=RTOL, atol=ATOL)
    np.testing.assert_allclose(sol["rev.phi"], exact[0], atol=1e-7)
    np.testing.assert_allclose(sol["rev.w"], exact[1], atol=1e-7)
    compare(cs, "Pendulum", rtol=RTOL, atol=ATOL)


def test_double_pendulum_over_its_whole_span(compare):
    cs = compile(DoublePendulum())
    assert sorted(cs.state_names) == ["revolute1.phi", "revolute1.w", "revolute2.phi",
                                      "revolute2.w"]
    sol = cs.simulate(3.0, t_eval=[0.0, 3.0], rtol=RTOL, atol=ATOL)
    # Dymola's values at t = 3 s (MSL reference, Tolerance 1e-6)
    assert sol["revolute1.phi"][-1] == pytest.approx(-2.317928561646287, abs=1e-3)
    assert sol["revolute2.phi"][-1] == pytest.approx(-1.73649166916319, abs=1e-3)
    compare(cs, "DoublePendulum", rtol=RTOL, atol=ATOL)
