"""Smoke test of benchmarks/compile_scaling.py: runs the --quick --json variant and checks the
structure of its output. No timing thresholds (timings depend on the machine)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "compile_scaling.py"
KEYS = {"model", "N", "compile_s", "simulate_s", "handwritten_s"}


def test_compile_scaling_quick_json():
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--json"],
                          check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = json.loads(proc.stdout)  # stdout holds the JSON list and nothing else
    assert isinstance(records, list) and records
    assert {r["model"] for r in records} == {"chain", "pendulum"}
    for r in records:
        assert set(r) == KEYS, r
        assert isinstance(r["N"], int) and r["N"] > 0
        assert r["compile_s"] > 0 and r["simulate_s"] > 0
        if r["model"] == "chain":
            assert r["handwritten_s"] > 0
        else:
            assert r["handwritten_s"] is None


def test_micro_costs_quick():
    """benchmarks/micro_costs.py --quick runs and prints one row per measured operation."""
    script = SCRIPT.parent / "micro_costs.py"
    proc = subprocess.run([sys.executable, str(script), "--quick"],
                          check=False, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = proc.stdout.strip().splitlines()[2:]
    assert len(rows) == 7 and all(" us" in r or " B" in r or " s " in r for r in rows), rows


def test_multibody_chain_quick():
    """benchmarks/multibody_chain.py --quick compiles and simulates a 3-body chain; the energy
    of the frictionless chain stays (the printed change is near 0)."""
    script = SCRIPT.parent / "multibody_chain.py"
    proc = subprocess.run([sys.executable, str(script), "--quick"],
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    n, states, compile_s, simulate_s, change = proc.stdout.strip().splitlines()[-1].split()
    assert (int(n), int(states)) == (3, 6)
    assert float(compile_s) > 0 and abs(float(change)) < 1e-2


def test_small_models_quick(c_compiler):
    """benchmarks/small_models.py --quick --json: acausal (with and without jit) and CasADi's
    CVODES integrate the same three small ODEs (the script checks their final states agree)."""
    script = SCRIPT.parent / "small_models.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--json"],
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = json.loads(proc.stdout)
    assert [r["model"] for r in records] == ["vanderpol", "chain10", "pendulum"]
    for r in records:
        assert r["driver"] == "native"
        assert min(r["simulate_s"], r["simulate_jit_s"], r["casadi_s"], r["casadi_call_s"]) > 0


def test_animation_speed_quick():
    """benchmarks/animation_speed.py --quick writes both GIFs and prints one row per model with
    the frames chosen by the default rule (1 s at 30 fps: 31 frames)."""
    script = SCRIPT.parent / "animation_speed.py"
    proc = subprocess.run([sys.executable, str(script), "--quick"],
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = [line.split() for line in proc.stdout.splitlines()
            if line.startswith(("pendulum3d", "piston"))]
    assert [r[0] for r in rows] == ["pendulum3d", "piston"]
    assert all(r[1] == "101" and r[2] == "31" for r in rows), rows


def test_rhs_growth_quick_json():
    """benchmarks/rhs_growth.py --quick --json: one record per model and size with the keys the
    script documents, instruction counts that add up, and the fit's keys (null: the quick
    sizes do not reach N = 20..100). Native code is measured where a C compiler exists."""
    from acausal.base.c_compiler import CompilerNotFoundError, find_c_compiler

    try:
        find_c_compiler()
        has_compiler = True
    except CompilerNotFoundError:
        has_compiler = False
    script = SCRIPT.parent / "rhs_growth.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--json"],
                          check=False, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)  # stdout holds the JSON object and nothing else
    assert set(out) == {"records", "fit"}
    records = out["records"]
    assert [(r["model"], r["N"]) for r in records] == [("chain", 3), ("chain", 5), ("hand", 21)]
    keys = {"model", "N", "states", "algebraic", "form", "instructions", "loop_instructions",
            "ode_instructions", "compile_s", "vm_us", "native_us", "native_build_s",
            "upgrade_build_s", "later_us", "note"}
    for r in records:
        assert set(r) == keys, r
        assert r["form"] in ("ode", "linear loop", "dae")
        assert r["states"] == 2 * r["N"]  # an angle and a rate per joint
        assert r["instructions"] == r["ode_instructions"] + (r["loop_instructions"] or 0) > 0
        assert r["vm_us"] > 0 and r["compile_s"] > 0
        assert (r["native_us"] is not None) == has_compiler
        assert (r["later_us"] is not None) == has_compiler
        assert r["upgrade_build_s"] is None  # small functions: -O1 at once, no upgrade
    assert set(out["fit"]) == {"sizes", "instructions_exponent", "vm_exponent",
                               "native_exponent", "later_exponent", "instructions_ratio",
                               "loop_ratio"}
    assert out["fit"]["sizes"] == [] and out["fit"]["instructions_ratio"] is None


def test_other_tree_imports_acausal_from_that_tree(tmp_path):
    """benchmarks/other_tree.py: the script it runs imports acausal, acausal.components and
    acausal.library from the tree given, not from the editable install of this checkout."""
    tree = tmp_path / "tree"
    for folder in ("acausal", "components", "library"):
        (tree / folder).mkdir(parents=True)
        (tree / folder / "__init__.py").write_text(f"WHICH = 'the other {folder}'\n")
    script = tmp_path / "which.py"
    script.write_text("import sys, acausal, acausal.components, acausal.library\n"
                      "print(acausal.WHICH, acausal.components.WHICH, acausal.library.WHICH,"
                      " sys.argv[1:])\n")
    proc = subprocess.run([sys.executable, str(SCRIPT.with_name("other_tree.py")), str(tree),
                           str(script), "--flag", "1"],
                          check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == ("the other acausal the other components the other library "
                                   "['--flag', '1']")
    assert f"acausal from {tree.resolve() / 'acausal'}" in proc.stderr
