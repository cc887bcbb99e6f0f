"""FMUs of 3-D models whose orientation states are quaternions: a spherical + revolute double
pendulum (the body behind the spherical joint, or the joint itself, carries the orientation)
and a free body flipping about its intermediate axis. Their four quaternion elements are states
with ``D(Q) = G(Q)' w / 2`` (no norm constraint, no choice of three of them), so the states
chosen at export time stay valid for the whole run: each FMU runs 10 s in FMPy and agrees with
acausal's own run within 1e-6 of each signal's range.

Both sides integrate at relative tolerance 1e-12 (FMPy's CVODE; acausal with atol 1e-14): the
double pendulum is sensitive to its start (its run at rtol 1e-10 and 1e-12 differ by 9e-6 of
the range at 10 s, 1e-12 and 1e-13 by 2e-7), so the comparison needs both that tight.
"""

from __future__ import annotations

import numpy as np
import pytest

from acausal import compile
from acausal.components.multibody.examples_spherical import (
    DzhanibekovFlip,
    SphericalRevolutePendulum,
)

fmpy = pytest.importorskip("fmpy", reason="FMPy is not installed (pip install fmpy): the "
                                           "exported FMUs cannot be simulated and validated here")
from fmpy import simulate_fmu  # noqa: E402
from fmpy.validation import validate_fmu  # noqa: E402

AGREEMENT = 1e-6  # of each signal's range
T_END = 10.0

PENDULUM_SIGNALS = ["rev.phi", "link2.frame_b.r_0[0]", "link2.frame_b.r_0[1]",
                    "link2.frame_b.r_0[2]", "link1.w_a[0]", "link1.w_a[1]"]
CASES = {
    "pendulum-body-quaternions": (lambda: SphericalRevolutePendulum(), PENDULUM_SIGNALS),
    "pendulum-joint-quaternions": (lambda: SphericalRevolutePendulum(enforce_states=True),
                                   PENDULUM_SIGNALS + ["sph.Q[0]", "sph.Q[3]"]),
    "dzhanibekov": (lambda: DzhanibekovFlip(),
                    ["body.w_a[0]", "body.w_a[1]", "body.w_a[2]", "body.Q[0]", "body.Q[3]"]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_fmu_of_a_model_with_quaternion_states_runs_and_agrees(name, c_compiler, tmp_path):
    factory, signals = CASES[name]
    system = compile(factory())
    quaternions = [n for n in system.state_names if ".Q[" in n]
    assert len(quaternions) == 4  # all four elements: the FMU's states never change
    path = system.export_fmu(tmp_path / f"{name}.fmu", compiler=c_compiler,
                             outputs=sorted({s.split("[")[0] for s in signals}))
    assert validate_fmu(str(path)) == []
    result = simulate_fmu(str(path), stop_time=T_END, relative_tolerance=1e-12,
                          output_interval=0.01, output=signals)
    assert result["time"][-1] == pytest.approx(T_END)
    sol = system.simulate(T_END, t_eval=result["time"], rtol=1e-12, atol=1e-14)
    errors = {s: float(np.max(np.abs(result[s] - sol[s])) / np.ptp(sol[s])) for s in signals}
    assert max(errors.values()) < AGREEMENT, errors
    if name == "dzhanibekov":  # the body flips over (once in 10 s) in the FMU too
        assert np.sum(np.diff(np.sign(result["body.w_a[1]"])) != 0) == 1
