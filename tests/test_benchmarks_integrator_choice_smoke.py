"""Smoke test of benchmarks/integrator_choice.py: the --quick --json variant on three small
models (one a DAE) runs, and its records have the fields the table prints. No timing
thresholds (timings depend on the machine); the script itself fails when auto's and BDF's
states disagree."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "integrator_choice.py"


def test_integrator_choice_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json", "--jit", "off",
                           "--models", "vanderpol", "fourbar1", "stiff_mount"],
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = json.loads(proc.stdout)  # stdout holds the JSON list and nothing else
    assert [r["model"] for r in records] == ["vanderpol", "fourbar1", "stiff_mount"]
    for r in records:
        assert min(r["BDF_s"], r["Adams_s"], r["auto_s"]) > 0
        assert r["auto/min"] == r["auto_s"] / min(r["BDF_s"], r["Adams_s"])
        assert r["agreement"] <= 1e-3
    vanderpol, fourbar1, _ = records
    assert vanderpol["auto_method"].startswith("Adams (auto: ")
    assert vanderpol["auto_rhs"] == vanderpol["Adams_rhs"]  # no switch: Adams' own run
    assert fourbar1["auto_method"] == "BDF (IDA)"  # a DAE: nothing to choose
    assert fourbar1["BDF_rhs"] == fourbar1["Adams_rhs"] == fourbar1["auto_rhs"]
