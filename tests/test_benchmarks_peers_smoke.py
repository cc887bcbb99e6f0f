"""Smoke test of benchmarks/multibody_peers.py: the --quick --json run (a 3-link spatial pendulum
chain, 0.5 s) with acausal alone, and with Exudyn where it is installed: then acausal's and
Exudyn's tip positions are a real cross-validation of two independent formulations (absolute
coordinates compiled by acausal, integrated by CVODE's Adams method, against Exudyn's
minimal-coordinate kinematic tree integrated by DOPRI5), both at tolerance 1e-8. No test
asserts on timings."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "multibody_peers.py"
KEYS = {"tool", "N", "t_end", "build_s", "simulate_s", "ratio_exudyn", "tip", "tip_error",
        "tip_ok", "energy_drift", "energy_scale", "steps", "rhs_evaluations", "integrator",
        "first_s", "reference", "reference_uncertainty", "reference_note", "note"}


def quick_records(*tools: str) -> list[dict]:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", "--tools", *tools],
                          check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = json.loads(proc.stdout)  # stdout holds the JSON list and nothing else
    assert isinstance(records, list) and [r["tool"] for r in records] == list(tools)
    for r in records:
        assert set(r) == KEYS, r
        assert (r["N"], r["t_end"]) == (3, 0.5)
        assert r["build_s"] > 0 and r["simulate_s"] > 0
        assert len(r["tip"]) == 3 and all(math.isfinite(x) for x in r["tip"])
        assert r["energy_drift"] is not None and r["energy_drift"] < 1e-4, r
    return records


def test_quick_json_acausal():
    (rec,) = quick_records("acausal")
    assert rec["reference"] and rec["tip_error"] is not None and rec["tip_error"] < 1e-5
    assert rec["rhs_evaluations"] is None or rec["rhs_evaluations"] > 0


@pytest.mark.skipif(importlib.util.find_spec("exudyn") is None,
                    reason="exudyn is not installed (pip install -e '.[bench]')")
def test_quick_json_acausal_agrees_with_exudyn():
    acausal, exudyn = quick_records("acausal", "exudyn")
    # both at rtol = atol = 1e-8 over 0.5 s: their tips agree to ~1e-8, 1e-5 leaves room
    diff = max(abs(a - e) for a, e in zip(acausal["tip"], exudyn["tip"]))
    assert diff < 1e-5, (acausal["tip"], exudyn["tip"])
    assert exudyn["steps"] > 0 and acausal["ratio_exudyn"] > 0


def test_quick_json_native_code_gives_the_same_tip(c_compiler):
    plain, jit = quick_records("acausal", "acausal-jit")
    assert jit["first_s"] > 0 and plain["first_s"] is None
    assert jit["integrator"].endswith("native code")
    # the same equations and tolerance (1e-8), evaluated by other machine instructions
    diff = max(abs(a - b) for a, b in zip(plain["tip"], jit["tip"]))
    assert diff < 1e-8, (plain["tip"], jit["tip"])
