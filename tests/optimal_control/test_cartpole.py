"""Cart-pole swing-up (examples/cartpole_swingup.py) against hand-written twins.

* the compiled planar model selects the joint coordinates as states and integrates like the
  closed-form ODE of benchmarks/optimal_control.py (so the twins collocate the same ODE);
* on the same mesh (Radau IIA degree 3, piecewise-constant force, same guess, IPOPT tol 1e-10)
  acausal's optimum equals the hand-written CasADi ``Opti`` collocation's and rockit's (when
  installed) to 1e-8 relative: the same NLP solved to IPOPT's tol = 1e-10 (an objective error
  of about |multipliers| x 1e-10 at most; Opti and rockit agree to ~1e-14);
* the optimal force re-simulated by CVODE (``res.verify(rtol=1e-10)``) ends where the
  collocation ends, within the collocation's own error estimate;
* the example runs from the command line (``--no-plot``).

Meshes of 30 elements keep the file within ~1 minute on 2 cores.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from ocp_models import load_file
from scipy.integrate import solve_ivp

ROOT = Path(__file__).resolve().parents[2]
ELEMENTS = 30
#: relative agreement of the objectives of the same NLP solved by IPOPT to tol = 1e-10
OBJECTIVE_RTOL = 1e-8




bench = load_file("_acausal_benchmark_optimal_control", ROOT / "benchmarks" / "optimal_control.py")
example = bench.example


@pytest.fixture(scope="module")
def system():
    return example.build_cartpole()


@pytest.fixture(scope="module")
def opti_run():
    return bench.solve_opti(ELEMENTS)


@pytest.fixture(scope="module")
def acausal_result(system):
    return example.swing_up_problem(system, elements=ELEMENTS).solve()


def test_states_and_dynamics_match_the_closed_form(system):
    """States cart.s, cart.v, pole.phi, pole.w; with a constant push (2 N, 1 s, from rest
    hanging) CVODE on the planar model and scipy on the closed form end at the same state
    (both at rtol 1e-10: agreement to 1e-7 absolute on states of size ~1)."""
    assert system.state_names == list(example.STATES)
    assert system.input_names == [example.CONTROL]
    sol = system.simulate(1.0, params={example.CONTROL: 2.0}, rtol=1e-10, atol=1e-12)
    ref = solve_ivp(lambda t, x: bench.cartpole_ode(x, 2.0), (0.0, 1.0), np.zeros(4),
                    method="DOP853", rtol=1e-11, atol=1e-12)
    ours = np.array([sol[name][-1] for name in example.STATES])
    np.testing.assert_allclose(ours, ref.y[:, -1], atol=1e-7)


def test_radau_coefficients():
    """Degree 3 Radau IIA: the end weights pick the last point (tau_3 = 1), the quadrature
    weights are (16 - sqrt 6)/36, (16 + sqrt 6)/36, 1/9 (Hairer-Wanner, Table 5.6), and the
    derivative matrix differentiates cubics exactly."""
    tau, C, D, B = bench.radau_coefficients(3)
    np.testing.assert_allclose(D, [0, 0, 0, 1], atol=1e-12)
    s6 = math.sqrt(6.0)
    np.testing.assert_allclose(B, [(16 - s6) / 36, (16 + s6) / 36, 1 / 9], rtol=1e-12)
    np.testing.assert_allclose(tau**3 @ C, 3 * tau[1:] ** 2, atol=1e-12)


def test_rockit_equals_opti_and_acausal(opti_run, acausal_result):
    if not bench.rockit_available():
        pytest.skip("rockit-meco not installed (pip install rockit-meco)")
    rockit_run = bench.solve_rockit(ELEMENTS)
    assert opti_run.success and rockit_run.success
    assert rockit_run.objective == pytest.approx(opti_run.objective, rel=OBJECTIVE_RTOL)
    assert rockit_run.objective == pytest.approx(acausal_result.objective, rel=OBJECTIVE_RTOL)
    np.testing.assert_allclose(rockit_run.force, opti_run.force, atol=1e-6)
    np.testing.assert_allclose(rockit_run.states, opti_run.states, atol=1e-6)


def test_acausal_equals_opti(acausal_result, opti_run):
    """The same NLP: the same optimum, the same force per element and the same states at the
    element boundaries (1e-6: the optimum's sensitivity to IPOPT's tolerance, observed ~1e-9)."""
    assert acausal_result.success and opti_run.success
    assert acausal_result.objective == pytest.approx(opti_run.objective, rel=OBJECTIVE_RTOL)
    run = bench.run_of_result(acausal_result)
    np.testing.assert_allclose(run.t, opti_run.t, atol=1e-12)
    np.testing.assert_allclose(run.force, opti_run.force, atol=1e-6)
    np.testing.assert_allclose(run.states, opti_run.states, atol=1e-6)
    assert abs(acausal_result["pole.phi"][-1] - math.pi) < 1e-8


@pytest.mark.parametrize("f_max, distance", [(8.0, 0.0), (10.0, 1.0)])
def test_active_force_bound(system, f_max, distance):
    """A tighter force bound (11 and 2 elements of 30 at the bound) and a cart moved by 1 m:
    acausal, Opti and rockit (when installed) still reach the same optimum."""
    opti_run = bench.solve_opti(ELEMENTS, f_max=f_max, distance=distance)
    run = bench.solve_acausal(ELEMENTS, f_max=f_max, distance=distance, system=system)
    assert opti_run.success and run.success
    assert np.count_nonzero(np.abs(opti_run.force) > f_max - 1e-6) >= 2
    assert run.objective == pytest.approx(opti_run.objective, rel=OBJECTIVE_RTOL)
    np.testing.assert_allclose(run.force, opti_run.force, atol=1e-6)
    if bench.rockit_available():
        rockit_run = bench.solve_rockit(ELEMENTS, f_max=f_max, distance=distance)
        assert rockit_run.objective == pytest.approx(run.objective, rel=OBJECTIVE_RTOL)


def test_resimulation_within_collocation_error(acausal_result):
    """CVODE (rtol 1e-10, far below the collocation's error) with the optimal piecewise-
    constant force ends within the collocation's error estimate of the collocated end."""
    check = acausal_result.verify(rtol=1e-10)
    worst = check.max_difference
    assert 0.0 < acausal_result.collocation_error
    assert worst <= acausal_result.collocation_error


def test_example_runs(tmp_path):
    script = ROOT / "examples" / "cartpole_swingup.py"
    proc = subprocess.run([sys.executable, str(script), "--elements", "20", "--no-plot",
                           "--out", str(tmp_path)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "objective integral F^2 dt =" in proc.stdout
    assert "re-simulation" in proc.stdout
    assert not list(tmp_path.iterdir())  # --no-plot writes nothing


def test_benchmark_main_without_rockit(monkeypatch, tmp_path, capsys):
    """benchmarks/optimal_control.py's command line on a small mesh, as if rockit were not
    installed: it says so, and the JSON records hold both solvers' equal optima."""
    monkeypatch.setattr(bench, "rockit_available", lambda: False)
    out = tmp_path / "records.json"
    code = bench.main(["--elements", "10", "--repeat", "1", "--scaling", "--mpc-t-end", "0",
                       "--json", str(out)])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "skipped: rockit-meco not installed (pip install rockit-meco)" in printed
    records = json.loads(out.read_text())
    runs = records["runs"]
    assert runs["rockit"] is None and records["scaling"] == []
    assert runs["acausal"]["objective"] == pytest.approx(runs["opti"]["objective"],
                                                         rel=OBJECTIVE_RTOL)
    assert runs["acausal"]["build_time"] > 0 and runs["opti"]["solve_time"] > 0
