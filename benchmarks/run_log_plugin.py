"""A pytest plugin that logs every run of the run loop: how long it took, how long it spent in
CasADi's virtual machine and what ``jit="auto"`` did (docs/compiler.md, "Tiered native code":
how many runs of the test suite are hot enough to build native code for).

Usage (from the repository's root)::

    PYTHONPATH=benchmarks ACAUSAL_RUN_LOG=runs.jsonl python -m pytest -q -p run_log_plugin
    python benchmarks/run_log_plugin.py runs.jsonl      # the summary
"""

from __future__ import annotations

import json
import os
import sys
import time


def pytest_configure(config) -> None:
    from acausal.run import hybrid

    log = os.environ.get("ACAUSAL_RUN_LOG", "runs.jsonl")
    run = hybrid.HybridSimulation.run

    def logged(self):
        tic = time.perf_counter()
        try:
            return run(self)
        finally:
            problems = [prob for _, prob in self.problems.values()]
            record = {"test": os.environ.get("PYTEST_CURRENT_TEST", ""),
                      "model": self.root.model_name, "wall_s": time.perf_counter() - tic,
                      "vm_s": self.tiers.vm_s, "switch": self.tiers.switch,
                      "build_started": any(p.tier is not None and p.tier.started
                                           for p in problems)}
            with open(log, "a") as f:
                f.write(json.dumps(record) + "\n")

    hybrid.HybridSimulation.run = logged


def summary(path: str) -> None:
    records = [json.loads(line) for line in open(path)]
    print(f"{len(records)} runs, {sum(r['wall_s'] for r in records):.1f} s in the run loop, "
          f"{sum(r['vm_s'] for r in records):.1f} s of it in the virtual machine")
    for limit in (0.1, 0.2, 0.5, 1.0, 2.0):
        print(f"runs with at least {limit} s in the virtual machine: "
              f"{sum(r['vm_s'] >= limit for r in records)}")
    started = {r["model"] for r in records if r["build_started"] or r["switch"]}
    print(f"models whose native code was built in the background: {len(started)} "
          f"({', '.join(sorted(started))})")
    print(f"runs that switched: {sum(r['switch'] is not None for r in records)}")


if __name__ == "__main__":
    summary(sys.argv[1])
