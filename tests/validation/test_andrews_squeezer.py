"""Andrews' squeezing mechanism (7 bodies, 10 revolutes, built from the planar library) against
the Test Set for IVP Solvers' reference solution, at the tolerances where an unscaled IDA fails.

Reference: Test Set for IVP Solvers (Mazzia & Magherini), problem "andrews": the angles at
t = 0.03 s computed with PSIDE at rtol = atol = 1e-14 (in ``examples/andrews_squeezer.py``,
``REFERENCE``), and the consistent initial accelerations beta'' = 14222.4439199541138705911625887,
theta'' = -10666.8329399655854029433719415 rad/s^2 of its initial-value routine.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

from acausal import compile

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
import andrews_squeezer as squeezer  # noqa: E402

BETA_DDOT0 = 14222.4439199541138705911625887
THETA_DDOT0 = -10666.8329399655854029433719415


@pytest.fixture(scope="module")
def compiled():
    return compile(squeezer.AndrewsSqueezer())


def test_one_degree_of_freedom_and_consistent_start(compiled):
    from acausal.run.initialize import NEWTON_TOL

    assert compiled.n_states == 2  # one degree of freedom: an angle and its rate
    sol = compiled.simulate(1e-6, t_eval=[0.0, 1e-6], rtol=1e-10, atol=1e-12)
    # the start is the initialisation's, not the integrator's (the same for any rtol, atol):
    # its Newton iteration stops once the residual is below NEWTON_TOL (1e-10) relative to
    # the unknowns' size and, converging quadratically, ends far below (4e-11 here, the angles
    # within 5.5e-13): abs = NEWTON_TOL, as rel = NEWTON_TOL for the accelerations below.
    # 1 % more length of a link moves the angles by 5e-3 and more
    for name, value in squeezer.START.items():
        assert sol[squeezer.ANGLES[name]][0] == pytest.approx(value, abs=NEWTON_TOL)
    # the model's own dynamics reproduce the benchmark's initial accelerations (mass matrix,
    # driving torque, spring and the loop geometry all enter these)
    assert sol["der(j_beta.w)"][0] == pytest.approx(BETA_DDOT0, rel=1e-10)
    assert sol["der(j_theta.w)"][0] == pytest.approx(THETA_DDOT0, rel=1e-10)


def angle_error(compiled, rtol, atol):
    sol = compiled.simulate(squeezer.T_END, t_eval=[0.0, 0.01, 0.02, squeezer.T_END],
                            rtol=rtol, atol=atol)
    got = np.array([sol[var][-1] for var in squeezer.ANGLES.values()])
    ref = np.array([squeezer.REFERENCE[name] for name in squeezer.ANGLES])
    return float(np.max(np.abs(got - ref)))


def test_angles_at_t_end_match_the_reference(compiled):
    """The default tolerances and the tight ones where IDA without scaling fails
    (IDA_CONV_FAIL at atol <= 1e-12): every run within 1e3 rtol of the reference (beta turns by
    15.9 rad in 0.03 s over ~2000 steps), so the tight ones 1e4 times closer than the bound of
    the default one.

    The tight runs are not compared with the default run's actual error: at rtol 1e-6 that
    error depends on the step sequence, which round-off in the generated expressions changes
    (measured 5.5e-6 and 8.5e-8 for two algebraically identical forms of the same equations)."""
    default = angle_error(compiled, 1e-6, 1e-8)
    assert default < 1e3 * 1e-6
    for atol in (1e-12, 1e-13):
        tight = angle_error(compiled, 1e-10, atol)
        assert tight < 1e3 * 1e-10


def test_example_prints_the_comparison(capsys):
    assert squeezer.main(["--rtol", "1e-8", "--atol", "1e-10"]) == 0
    out = capsys.readouterr().out
    assert "largest difference" in out and "epsilon" in out
