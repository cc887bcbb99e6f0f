"""Hybrid simulation speed: models with events against the same models without them.

Two models, each in an *event* and a *smooth* variant, simulated with acausal's public API:

* ``quarter_car``: body 250 kg and wheel 35 kg, suspension spring 16 000 N/m and damper
  1 000 N s/m between them, tyre spring 160 000 N/m between the wheel and the road, written about
  the static equilibrium (no gravity). The road rises by 0.05 m at t = 1 s. *event*: the road is
  ``event_if(time >= 1, 0.05, 0)`` (a time event: the solver stops exactly at 1 s and restarts);
  *smooth*: ``0.05 (1 + tanh((t - 1)/tau))/2`` with tau = 1 ms (no event; the solver follows the
  steep but smooth rise).
* ``bristle``: Exudyn's ``CoordinateSpringDamperExt`` stick/slip case of
  ``examples/coordinate_spring_damper_ext.py`` (1 kg, spring 1000 N/m, Stribeck friction with the
  bristle stick/slip automaton, external force 10 sin(2 pi t) N). *event*: the bristle automaton
  (frictionProportionalZone = 0; a discrete mode switched by events); *smooth*: the same element
  with Exudyn's regularised law (frictionProportionalZone = 1e-3 m/s), which has no events. The two
  variants are different friction laws with the same parameters: their ratio measures what the
  stick/slip automaton costs, not only the event handling.

Both are simulated over 200 s with 200 000 output points (dt = 1 ms), rtol 1e-6, atol 1e-8.
The progress display's overhead is measured on each event variant: the run with
``progress=True`` (the bar is drawn into a string buffer standing in for the terminal) against
``progress=False``; the arrays must be identical.

Usage::

    python benchmarks/hybrid_events.py           # table (about a minute)
    python benchmarks/hybrid_events.py --json    # one JSON list of records on stdout
    python benchmarks/hybrid_events.py --quick   # 5 s, dt = 0.01 (smoke test)

Wall-clock ``time.perf_counter`` seconds, best of 3 runs for simulate (compilation excluded).
Exit status 1 when a correctness check fails or a run raises.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, event_if
from acausal import time as t_sym
from acausal.components.translational import Damper, Flange, Mass, Spring

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
import coordinate_spring_damper_ext as csd_example  # noqa: E402

ROAD_STEP = 0.05  # m
STEP_TIME = 1.0  # s
TAU = 1e-3  # s, rise time scale of the smooth road
RTOL, ATOL = 1e-6, 1e-8


class Road(Component):
    """A flange at a prescribed height ``s = h(t)`` (no derivative of h is needed: the tyre is
    a spring)."""

    smooth = Parameter(False, structural=True, description="tanh rise instead of a time event")
    flange = Flange()

    def equations(self):
        if self.smooth:
            h = ROAD_STEP * (1 + sp.tanh((t_sym - STEP_TIME) / TAU)) / 2
        else:
            h = event_if(t_sym >= STEP_TIME, ROAD_STEP, 0.0)
        return [Eq(self.flange.s, h)]


class QuarterCar(Component):
    """Body on the suspension, wheel on the tyre spring, road below (about equilibrium)."""

    def __init__(self, smooth: bool, **kw):
        super().__init__(**kw)
        self.body = Mass(m=250.0, s=Variable(start=0.0, fixed=True),
                         v=Variable(start=0.0, fixed=True))
        self.wheel = Mass(m=35.0, s=Variable(start=0.0, fixed=True),
                          v=Variable(start=0.0, fixed=True))
        self.spring = Spring(c=16_000.0)
        self.damper = Damper(d=1_000.0)
        self.tyre = Spring(c=160_000.0)
        self.road = Road(smooth=smooth)

    def connections(self):
        return [connect(self.road.flange, self.tyre.flange_a),
                connect(self.tyre.flange_b, self.wheel.flange_a),
                connect(self.wheel.flange_b, self.spring.flange_a),
                connect(self.wheel.flange_b, self.damper.flange_a),
                connect(self.spring.flange_b, self.body.flange_a),
                connect(self.damper.flange_b, self.body.flange_a)]


def bristle_model(smooth: bool):
    params, v0, _, _ = csd_example.CASES["regularized" if smooth else "bristle"]
    return csd_example.MassOnCoordinateSpringDamperExt(params, v0, force_amplitude=10.0)


MODELS = {
    "quarter_car": (lambda smooth: QuarterCar(smooth), "body.s"),
    "bristle": (bristle_model, "mass.s"),
}


def best_time(fn, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def check(name: str, event_sol, smooth_sol, t_end: float) -> str:
    """A correctness check per model; raises AssertionError when it fails."""
    if name == "quarter_car":
        s_ev, s_sm = event_sol["body.s"], smooth_sol["body.s"]
        settled = abs(s_ev[-1] - ROAD_STEP)
        assert t_end < 20 or settled < 1e-6, f"body does not settle at the step: {settled:.3g}"
        late = event_sol.t > STEP_TIME + 1.0
        diff = float(np.max(np.abs(s_ev[late] - s_sm[late]))) if late.any() else 0.0
        assert diff < 1e-3, f"event and smooth roads differ by {diff:.3g} m after the rise"
        return f"|s_end - 0.05| = {settled:.1e}, max |event - smooth| = {diff:.1e} m"
    # bristle: both runs finite, and the stick/slip run dissipates: its mass keeps within the
    # reach of the force amplitude over the spring (|q| <= F/k + slip), a loose sanity bound
    for sol in (event_sol, smooth_sol):
        q = sol["mass.s"]
        assert np.all(np.isfinite(q)), "non-finite positions"
        assert np.max(np.abs(q)) < 0.1, f"position out of bounds: {np.max(np.abs(q)):.3g}"
    return f"{len(event_sol.events)} events, finite, |q| < 0.1 m"


def run_model(name: str, t_end: float, dt: float, repeats: int) -> dict:
    build, _ = MODELS[name]
    record = {"model": name, "t_end": t_end, "dt": dt}
    t0 = time.perf_counter()
    cs_event = compile(build(False))
    record["compile_s"] = time.perf_counter() - t0
    cs_smooth = compile(build(True))
    opts = {"dt": dt, "rtol": RTOL, "atol": ATOL}
    record["event_s"], sol_ev = best_time(
        lambda: cs_event.simulate(t_end, progress=False, **opts), repeats)
    record["smooth_s"], sol_sm = best_time(
        lambda: cs_smooth.simulate(t_end, progress=False, **opts), repeats)
    record["event/smooth"] = record["event_s"] / record["smooth_s"]
    record["events"] = len(sol_ev.events)
    record["rhs_event"] = sol_ev.stats.get("rhs_evaluations")
    record["rhs_smooth"] = sol_sm.stats.get("rhs_evaluations")
    record["solver_calls_event"] = sol_ev.stats.get("solver_calls")

    def with_bar():
        buffer = io.StringIO()
        with contextlib.redirect_stderr(buffer):
            return cs_event.simulate(t_end, progress=True, **opts)

    record["bar_s"], sol_bar = best_time(with_bar, repeats)
    record["bar/plain"] = record["bar_s"] / record["event_s"]
    for var in cs_event.state_names:
        if not np.array_equal(sol_bar[var], sol_ev[var]):
            raise AssertionError(f"{name}: the progress display changed {var}")
    record["check"] = check(name, sol_ev, sol_sm, t_end)
    return record


def table(records: list[dict]) -> str:
    head = ("model", "compile_s", "event_s", "smooth_s", "event/smooth", "bar/plain", "events",
            "solver calls", "RHS evals event/smooth", "check")
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in records:
        if "error" in r:
            lines.append(f"{r['model']} | error: {r['error']}")
            continue
        lines.append(" | ".join([r["model"], f"{r['compile_s']:.3f}", f"{r['event_s']:.3f}",
                                 f"{r['smooth_s']:.3f}", f"{r['event/smooth']:.2f}",
                                 f"{r['bar/plain']:.3f}", str(r["events"]),
                                 str(r["solver_calls_event"]),
                                 f"{r['rhs_event']} / {r['rhs_smooth']}", r["check"]]))
    return "\n".join("| " + line + " |" for line in lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="JSON records on stdout only")
    parser.add_argument("--quick", action="store_true", help="5 s, dt = 0.01, one repeat")
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    args = parser.parse_args(argv)
    t_end, dt, repeats = (5.0, 0.01, 1) if args.quick else (200.0, 1e-3, 3)
    records, status = [], 0
    for name in args.models:
        print(f"[hybrid] {name} ...", file=sys.stderr)
        try:
            records.append(run_model(name, t_end, dt, repeats))
        except Exception as exc:  # noqa: BLE001 - reported in the record, exit status 1
            traceback.print_exc(file=sys.stderr)
            records.append({"model": name, "error": f"{type(exc).__name__}: {exc}"})
            status = 1
    print(json.dumps(records, indent=1) if args.json else table(records))
    return status


if __name__ == "__main__":
    sys.exit(main())
