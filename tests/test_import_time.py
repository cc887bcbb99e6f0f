"""``import acausal`` stays quick (issue 40: at most 0.8 s on two cores): the heavy packages load
when first used, not on import. Structural, not timed: a fresh interpreter imports acausal and
reports which modules it loaded (``benchmarks/import_time.py`` measures the time; its smoke run
is here too, without any threshold).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: loaded on first use (first simulation, compilation, analysis, plot, sweep or view), never by
#: `import acausal`: scikit-sundae with scipy ~0.5 s, scipy.optimize ~0.3 s, and the extras
HEAVY = ("sksundae", "scipy", "scipy.optimize", "matplotlib", "pandas", "dask", "distributed",
         "playwright", "fmpy")


def _fresh(code: str) -> dict:
    """Run ``code`` in a new interpreter; it prints one JSON value on its last line."""
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_acausal_loads_no_heavy_package():
    loaded = _fresh("import sys, json, acausal; print(json.dumps(sorted(sys.modules)))")
    assert "acausal" in loaded
    assert [m for m in HEAVY if m in loaded] == []
    # the analyses, the sweeps, the viewer and the exporters load on first use too
    lazy = ("acausal.analysis.linearize", "acausal.analysis.optimal_control", "acausal.view",
            "acausal.export.fmu", "acausal.export.c_code", "acausal.run.ensemble")
    assert [m for m in lazy if m in loaded] == []


def test_lazy_names_resolve_to_their_modules_objects():
    """The public API is unchanged: every name of ``acausal.__all__`` is there (``from acausal
    import *`` works), lazy ones resolve on first access to the objects their modules define."""
    result = _fresh(
        "import json, sys, acausal\n"
        "before = 'acausal.analysis.linearize' in sys.modules\n"
        "from acausal.analysis.linearize import StateSpace\n"
        "from acausal.analysis.optimal_control import MPC\n"
        "from acausal.run.ensemble import simulate_many\n"
        "same = [acausal.StateSpace is StateSpace, acausal.MPC is MPC,\n"
        "        acausal.simulate_many is simulate_many]\n"
        "ns = {}\n"
        "exec('from acausal import *', ns)\n"
        "missing = [n for n in acausal.__all__ if n not in ns]\n"
        "print(json.dumps({'before': before, 'same': same, 'missing': missing,\n"
        "                  'dir': sorted(set(acausal.__all__) - set(dir(acausal))),\n"
        "                  'identify': callable(ns['identify']) and not hasattr(\n"
        "                      ns['identify'], '__path__') and ns['identify'].__name__}))\n")
    assert result["before"] is False
    assert result["same"] == [True, True, True]
    assert result["missing"] == [] and result["dir"] == []
    assert result["identify"] == "identify"  # the function, not the module acausal/identify.py


def test_subpackages_reachable_as_attributes_and_identify_stays_the_function():
    """``import acausal; acausal.view ...`` works as when the package imported them eagerly,
    and importing the module ``acausal.identify`` first does not shadow the function."""
    result = _fresh(
        "import json\n"
        "import acausal.identify\n"
        "import acausal\n"
        "print(json.dumps([acausal.identify.__name__, type(acausal.identify).__name__,\n"
        "                  acausal.view.View.__name__, acausal.ensemble.__name__,\n"
        "                  acausal.export.__name__]))\n")
    assert result == ["identify", "function", "View", "acausal.ensemble", "acausal.export"]
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        import acausal

        acausal.no_such_name  # noqa: B018 - the attribute access is the test


def test_viewer_registered_without_importing_it():
    """``Solution.view`` reaches the viewer through a function the package registers; the
    viewer itself loads on the first view."""
    import acausal
    from acausal.run import solution

    assert solution._viewer is acausal._view


def test_import_time_benchmark_quick_json():
    """benchmarks/import_time.py --quick --json runs and reports the structure of its table
    (no threshold on the times: they depend on the machine)."""
    script = ROOT / "benchmarks" / "import_time.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--json"], check=False,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    r = json.loads(proc.stdout)
    assert r["deferred_loaded"] == []
    assert r["wall_s"] > 0 and r["importtime_s"] > 0 and r["target_s"] == 0.8
    assert r["packages"] and {"package", "self_s"} == set(r["packages"][0])
    assert "sympy" in [p["package"] for p in r["packages"]]
    assert len(r["modules"]) == 10
