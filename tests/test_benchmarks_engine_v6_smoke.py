"""Smoke test of benchmarks/engine_v6.py: the --quick variant (0.02 s of motion) in the
virtual machine, one run in a fresh process; checks the structure of the JSON output and that
the run counted its solver calls and residuals. No timing thresholds."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "engine_v6.py"


def test_engine_v6_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--modes", "vm", "--json"],
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)  # stdout holds the JSON and nothing else
    [run] = out["runs"]
    assert run["mode"] == "vm" and run["driver"] == "scikit-sundae"
    assert run["simulate_cpu_s"] > 0 and run["simulate_wall_s"] > 0
    assert run["solver_calls"] >= 1 and run["rhs_evaluations"] > 100
    [row] = out["summary"]
    assert row["runs"] == 1 and row["simulate_cpu_s_best"] == run["simulate_cpu_s"]
    assert out["counts"] is None
