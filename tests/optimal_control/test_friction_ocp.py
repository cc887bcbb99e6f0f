"""Optimal control of a model with events through a smooth twin
(examples/friction_optimal_control.py): a block pushed from rest at 0 to rest at 1 m in 2 s
with minimum effort, against stick/slip Coulomb friction.

* the twin (regularised Stribeck curve) solves, and its optimum is the exact-Coulomb optimum
  derived in the example (slide for T1 = sqrt(6 m D / F_C), then rest; J* = 4/3 F_C**2 T1);
* ``res.verify()`` replays the optimal push on the hybrid block: it breaks away at t = 0,
  sticks where it stops, and ends at the target within the twin's collocation error plus the
  regularisation's shift of the breakaway (both estimated below);
* ``OptimalControl(hybrid)`` without a twin raises ``ModelDefinitionError`` naming the events;
* the example runs from the command line.

About 5 s on 2 cores.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from ocp_models import load_file

from acausal import ModelDefinitionError, OptimalControl, compile
from acausal.library.friction import limit_S_triple

ROOT = Path(__file__).resolve().parents[2]
ELEMENTS = 40
#: the hybrid replay differs from the twin's optimum by the twin's own error (res.end_errors)
#: and by the breakaway shift, which the twin's estimate does not know of (the twin has no stuck
#: phase): a factor 2 on their sum leaves room for their interaction, which is not computed
ESTIMATE_FACTOR = 2.0




ex = load_file("friction_optimal_control", ROOT / "examples" / "friction_optimal_control.py")


@pytest.fixture(scope="module")
def solved():
    return ex.solve(ELEMENTS)


def test_twin_optimum_is_the_coulomb_optimum(solved):
    _, res, _ = solved
    assert res.success, res.status
    t1 = ex.motion_time()
    assert t1 == pytest.approx(np.sqrt(6.0 * ex.M * ex.DISTANCE / ex.F_COULOMB))
    assert t1 < ex.T_END  # the optimum rests at the end: the case this example is about
    _, j_star = ex.coulomb_optimum(0.0)
    assert j_star == pytest.approx(4.0 / 3.0 * ex.F_COULOMB**2 * t1, rel=1e-12)
    # Cost: a piecewise-constant push on elements of h = 50 ms costs more than the affine f*
    # by slope**2 h**2 T1 / 12 (slope 12 m D / T1**3 = 4.1 N/s): 5e-3 N**2 s = 0.03 %; the
    # regularisation changes the cost by about 2 f(0) times its impulse shift (below,
    # ~1e-4 N s): 0.01 %. Measured +0.05 %; 0.2 % is four times that.
    assert res.objective == pytest.approx(j_star, rel=2e-3)
    # the block slides until T1 (within one element) and then rests with (almost) no push
    h = ex.T_END / ELEMENTS
    moving = np.asarray(res["mass.v"]) > 1e-3
    assert abs(res.t[moving][-1] - t1) < h
    rest = res.t > t1 + h
    assert np.max(np.abs(res["push.f"][rest])) < 0.05 * ex.F_COULOMB
    assert np.max(np.abs(res["mass.s"][rest] - ex.DISTANCE)) < 1e-3
    # the push starts above the static friction (the block must break away at once)
    assert res["push.f"][0] > ex.PEAK * ex.F_COULOMB
    assert res["mass.s"][-1] == pytest.approx(ex.DISTANCE, abs=1e-6)
    assert abs(res["mass.v"][-1]) < 1e-6


def _breakaway_shift(res) -> float:
    """First-order position shift [m] between the twin and the hybrid block at T, from the
    breakaway: the twin's friction differs from F_C only for v < V_SLIDE, which the block
    crosses at about a0 = (f(0) - F_C)/m; the impulse difference int (F_twin - F_C) dt =
    int (F_twin(v) - F_C) dv / a0 changes the speed by that over m, carried for T1."""
    v = sp.Symbol("v", real=True)
    law = sp.lambdify(v, limit_S_triple(ex.V_ADHESION, ex.V_SLIDE, ex.PEAK * ex.F_COULOMB,
                                        ex.F_COULOMB, v), "numpy")
    vs = np.linspace(0.0, ex.V_SLIDE, 2001)
    excess = law(vs) - ex.F_COULOMB
    integral = float(np.sum(0.5 * (excess[1:] + excess[:-1]) * np.diff(vs)))  # trapezoids
    a0 = (res["push.f"][0] - ex.F_COULOMB) / ex.M
    return abs(integral) / (ex.M * a0) * ex.motion_time()


def test_hybrid_replay_breaks_away_sticks_and_ends_at_the_target(solved):
    _, res, check = solved
    sim = check.solution
    # events: breakaway at t = 0 (the first element's push exceeds the static friction), the
    # stop where the twin stops (within one element), nothing else
    times = [t for t, _ in sim.events]
    assert len(times) == 2, sim.events
    assert times[0] == pytest.approx(0.0, abs=1e-12)
    assert abs(times[1] - ex.motion_time()) < ex.T_END / ELEMENTS
    assert sim["friction.mode"][-1] == 0  # stuck at the end
    assert abs(sim["mass.v"][-1]) < 1e-9  # held at its value at the stop (~1e-12 a_rel)
    # end position: the twin's own error estimate plus the breakaway shift (~2e-4 m)
    shift = _breakaway_shift(res)
    assert 1e-5 < shift < 1e-3
    bound = ESTIMATE_FACTOR * (res.end_errors["mass.s"] + shift)
    assert abs(sim["mass.s"][-1] - ex.DISTANCE) <= bound
    assert abs(check.end_difference["mass.s"]) <= bound


def test_hybrid_model_without_twin_is_refused():
    block = compile(ex.Block())
    with pytest.raises(ModelDefinitionError) as info:
        OptimalControl(block, t_end=ex.T_END)
    message = str(info.value)
    assert "GroundFriction 'friction'" in message  # names the element whose events they are
    assert "5 event(s)" in message and "smooth_twin" in message  # 4 switches + initial()
    assert ex.refusal_message(block) == message


def test_example_runs_from_the_command_line(tmp_path):
    result = subprocess.run([sys.executable,
                             str(ROOT / "examples" / "friction_optimal_control.py"),
                             "--out", str(tmp_path)], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    _, j_star = ex.coulomb_optimum(0.0)
    assert f"exact-Coulomb optimum J* = {j_star:.5f}" in result.stdout
    assert "mode +0" in result.stdout
    pytest.importorskip("matplotlib")
    png = tmp_path / "friction_optimal_control.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
