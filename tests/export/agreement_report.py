"""Print how closely exported FMUs simulated in FMPy agree with acausal (the numbers quoted in
docs/fmu_export.md). Not collected by pytest; run from the repository root:

    python tests/export/agreement_report.py

Same settings as tests/export/test_fmu.py: FMPy relative_tolerance 1e-12 (model exchange,
FMPy's CVODE) or 1e-10 (co-simulation, the FMU's embedded solver); acausal rtol 1e-11,
atol 1e-13; the error of a signal is max |FMPy - acausal| over the output grid divided by the
signal's range. Event instants: FMPy's (recorded with record_events=True) against acausal's.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from fmpy import simulate_fmu

from acausal import compile

HERE = Path(__file__).resolve().parent


def _models():
    spec = importlib.util.spec_from_file_location("_export_conftest", HERE / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MODELS


def _errors(system, result, signals, params):
    sol = system.simulate(float(result["time"][-1]), t_eval=result["time"], rtol=1e-11,
                          atol=1e-13, params=params)
    near = np.zeros(result["time"].size, bool)
    for t_event, _ in sol.events:
        near |= np.abs(result["time"] - t_event) < 1e-6
    return {n: float(np.max(np.abs(result[n] - sol[n])[~near]) / (np.ptp(sol[n]) or 1.0))
            for n in signals}, int(near.sum())


def main() -> int:
    models = _models()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (factory, t_end, dt, signals, params) in models.items():
            system = compile(factory())
            for kind, rtol in (("model-exchange", 1e-12), ("co-simulation", 1e-10)):
                start = time.perf_counter()
                path = system.export_fmu(Path(tmp) / f"{name}_{kind}.fmu", kind=kind)
                exported = time.perf_counter() - start
                for label, values in (("default", {}), ("changed", params)):
                    start = time.perf_counter()
                    result = simulate_fmu(str(path), stop_time=t_end, relative_tolerance=rtol,
                                          output_interval=dt, output=signals,
                                          start_values=values, record_events=False)
                    elapsed = time.perf_counter() - start
                    errors, skipped = _errors(system, result, signals, values)
                    worst = max(errors.values())
                    print(f"{name:14s} {kind:15s} {label:8s} export {exported:4.2f} s  FMPy "
                          f"{elapsed:5.2f} s  max error/range {worst:.1e}  "
                          + ", ".join(f"{n} {e:.1e}" for n, e in errors.items())
                          + (f"  ({skipped} points within 1e-6 s of an event left out)"
                             if skipped else ""))
            if system.events:
                path = Path(tmp) / f"{name}_model-exchange.fmu"
                result = simulate_fmu(str(path), stop_time=t_end, relative_tolerance=1e-12,
                                      output_interval=dt, output=signals[:1],
                                      record_events=True)
                t = result["time"]
                fmu_events = t[1:][np.diff(t) == 0]
                sol = system.simulate(t_end, dt=dt, rtol=1e-11, atol=1e-13)
                own = np.array([t_event for t_event, _ in sol.events])
                diff = np.max(np.abs(fmu_events - own)) if fmu_events.size == own.size \
                    else float("nan")
                print(f"{name:14s} events: FMPy {fmu_events.size}, acausal {own.size}, "
                      f"largest difference of the instants {diff:.1e} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
