"""How long ``import acausal`` takes, and what it spends the time on.

Two measurements, each the best of ``--repeat`` fresh interpreters (the best run is the one least
disturbed by other work on the machine; the files are in the OS cache after the first run):

* wall: ``python -c "import acausal"`` minus ``python -c "pass"`` (the interpreter's own start);
* importtime: ``python -X importtime -c "import acausal"``, the cumulative time of the
  ``acausal`` line, with its self time summed per top-level package and the slowest modules by
  self time. It reads below the wall time, which also counts the interpreter's shutdown (the
  loaded modules freed) and the imports Python's start makes anyway.

It also lists the heavy packages that the import must NOT load (they load when first used:
scikit-sundae and scipy on the first simulation or compilation, the analyses and the viewer on
first use; see ``acausal/__init__.py``). ``tests/test_import_time.py`` asserts that structurally
and runs ``--quick --json``; no test asserts on the times.

Usage::

    python benchmarks/import_time.py                # tables (about 10 s)
    python benchmarks/import_time.py --repeat 9     # more runs for the best-of
    python benchmarks/import_time.py --quick --json # one run each, one JSON object on stdout
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import defaultdict

TARGET_S = 0.8  # issue 40: `import acausal` in at most 0.8 s on a 2-core machine
#: loaded when first used, never by `import acausal`
DEFERRED = ("sksundae", "scipy", "matplotlib", "pandas", "dask", "distributed", "playwright",
            "fmpy")


def wall_time(code: str) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - start


def importtime_rows(code: str) -> list[tuple[str, int, int]]:
    """(module, self us, cumulative us) per line of ``-X importtime``."""
    err = subprocess.run([sys.executable, "-X", "importtime", "-c", code], check=True,
                         capture_output=True, text=True).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|")
        rows.append((name.strip(), int(self_us), int(cum_us)))
    return rows


def loaded_modules() -> list[str]:
    code = "import acausal, sys, json; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout
    return json.loads(out)


def measure(repeat: int) -> dict:
    base = min(wall_time("pass") for _ in range(repeat))
    wall = min(wall_time("import acausal") for _ in range(repeat)) - base
    best: list[tuple[str, int, int]] | None = None
    for _ in range(repeat):
        rows = importtime_rows("import acausal")
        total = next(c for n, _, c in rows if n == "acausal")
        if best is None or total < next(c for n, _, c in best if n == "acausal"):
            best = rows
    assert best is not None
    total_us = next(c for n, _, c in best if n == "acausal")
    per_package: dict[str, int] = defaultdict(int)
    for name, self_us, _ in best:
        per_package[name.split(".")[0]] += self_us
    modules = sorted(best, key=lambda r: -r[1])[:10]
    loaded = loaded_modules()
    deferred_loaded = [p for p in DEFERRED if p in loaded]
    return {
        "python_start_s": base,
        "wall_s": wall,
        "importtime_s": total_us / 1e6,
        "target_s": TARGET_S,
        "packages": [{"package": p, "self_s": us / 1e6}
                     for p, us in sorted(per_package.items(), key=lambda kv: -kv[1])[:10]],
        "modules": [{"module": n, "self_s": s / 1e6, "cumulative_s": c / 1e6}
                    for n, s, c in modules],
        "n_modules": len(best),
        "deferred_loaded": deferred_loaded,
    }


def print_tables(r: dict) -> None:
    ok = "within" if r["wall_s"] <= r["target_s"] else "OVER"
    print(f"import acausal: {r['wall_s']:.3f} s wall (best run, minus {r['python_start_s']:.3f} s "
          f"of interpreter start), {r['importtime_s']:.3f} s by -X importtime; "
          f"{ok} the {r['target_s']} s target; {r['n_modules']} modules")
    print()
    print(f"{'package':<24} {'self s':>8}")
    for p in r["packages"]:
        print(f"{p['package']:<24} {p['self_s']:8.3f}")
    print()
    print(f"{'module':<44} {'self s':>8} {'cumul. s':>9}")
    for m in r["modules"]:
        print(f"{m['module']:<44} {m['self_s']:8.3f} {m['cumulative_s']:9.3f}")
    print()
    if r["deferred_loaded"]:
        print("loaded although deferred: " + ", ".join(r["deferred_loaded"]))
    else:
        print("not loaded (deferred to first use): " + ", ".join(DEFERRED))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement (best kept)")
    ap.add_argument("--quick", action="store_true", help="one run per measurement")
    ap.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = ap.parse_args()
    result = measure(1 if args.quick else max(1, args.repeat))
    if args.json:
        print(json.dumps(result))
    else:
        print_tables(result)
    return 1 if result["deferred_loaded"] else 0


if __name__ == "__main__":
    sys.exit(main())
