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
  (frictionProportionalZone = 0: the discrete variables frictionMode and lastStickingPosition
  are switched by state events). *smooth*: the same element with its events replaced by smooth
  inputs (the "replay twin"): the discrete variables become functions of time that take the
  values the event run's automaton gave them (``Solution.event_values``), switching at the event
  run's event instants by tanh ramps of width ``--replay-tau`` (default 1e-5 s):

      f_friction = w(t) (k_mu (q - x_lsp(t)) + d_mu v) + (1 - w(t)) s(t) |S0(v)|

  with w the stick weight (1 while frictionMode = 0), s the slip direction and x_lsp the last
  sticking position (its ramp is centred 20 tau before the stick weight's, so that the bristle
  spring never pulls towards a half-moved anchor). Same parameters, same stiff bristle
  oscillation while stuck, no events; the script checks that its position never differs from the
  event run's by more than 1 % of the event run's position range. This is the benchmark's "same
  model with its event replaced by a smooth input", as the tanh road is for the quarter car's
  road step. For reference the element with Exudyn's *regularised* Stribeck law
  (frictionProportionalZone = 1e-3 m/s, no events) is timed too: a different
  friction law (no sticking, a heavily damped slope that BDF steps over), which needs 1.8x fewer
  right-hand sides than the automaton for reasons of physics, not of event handling.

Both are simulated over 200 s with 200 000 output points (dt = 1 ms), rtol 1e-6, atol 1e-8.
The progress display's overhead is measured on each event variant: the run with
``progress=True`` (the bar is drawn into a string buffer standing in for the terminal) against
``progress=False``; the arrays must be identical.

Usage::

    python benchmarks/hybrid_events.py           # table (about a minute)
    python benchmarks/hybrid_events.py --json    # one JSON list of records on stdout
    python benchmarks/hybrid_events.py --quick   # 5 s, dt = 0.01 (smoke test)
    python benchmarks/hybrid_events.py --models bristle --replay-tau 5e-5 --dt 1.0

Wall-clock ``time.perf_counter`` seconds, best of 3 runs for simulate (compilation excluded).
Exit status 1 when a correctness check fails or a run raises.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import sys
import time
import traceback
from pathlib import Path

import casadi as ca
import numpy as np
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, event_if
from acausal import time as t_sym
from acausal.compiler.codegen import register_function
from acausal.components.coordinate_spring_damper import CoordinateSpringDamperExt
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


def bristle_model(regularised: bool):
    params, v0, _, _ = csd_example.CASES["regularized" if regularised else "bristle"]
    return csd_example.MassOnCoordinateSpringDamperExt(params, v0, force_amplitude=10.0)


# -- the replay twin of the bristle model ---------------------------------------------------
REPLAY_TAU = 1e-5  # s, default width of the replayed switches
_replay_names = itertools.count(1)  # each replayed signal is its own sympy function class


def replay_function(times: np.ndarray, values: np.ndarray, tau: float):
    """A sympy function of time equal to ``values[0]`` before ``times[0]`` and ``values[k]``
    after ``times[k-1]``, each switch a ramp ``(1 + tanh((t - t_k)/tau))/2``.

    Evaluated as the ramp of the nearest switching instant only (two CasADi linear
    interpolants find it: one table lookup per call instead of a sum over every switch). The
    instants must be more than 40 tau apart: where the nearest instant changes (half-way
    between two), the other ramp has settled to within e^-40 of its end value."""
    times = np.asarray(times, float)
    values = np.asarray(values, float)
    if times.size == 0:
        return lambda t: sp.Float(values[0])
    if times.size > 1 and np.min(np.diff(times)) <= 40 * tau:
        raise ValueError(f"switching instants {np.min(np.diff(times)):.3g} s apart: use a "
                         f"replay tau below {np.min(np.diff(times)) / 40:.3g} s")
    k = times.size
    rows = np.column_stack([times, values[:-1], values[1:]])
    if k == 1:
        def nearest_row(t):
            return [ca.SX(v) for v in rows[0]]
    else:
        # index of the nearest instant: j + (t - mid_j)/(mid_j+1 - mid_j) between midpoints,
        # floored and clamped to 0..k-1 (a point on either side keeps the ends in range)
        mid = (times[1:] + times[:-1]) / 2
        nearest = ca.interpolant("nearest", "linear", [np.r_[mid[0] - 1.0, mid, mid[-1] + 1.0]],
                                 np.r_[0.0, np.arange(1, k), k - 1.0])
        table = ca.interpolant("switches", "linear", [np.arange(k, dtype=float)],
                               rows.ravel())

        def nearest_row(t):
            row = table(ca.fmax(0.0, ca.fmin(k - 1.0, ca.floor(nearest(t)))))
            return [row[0], row[1], row[2]]

    def casadi_replay(t):
        t_k, before, after = nearest_row(t)
        return before + (after - before) * (1 + ca.tanh((t - t_k) / tau)) / 2

    cls = type(f"Replay{next(_replay_names)}", (sp.Function,), {"nargs": 1})
    register_function(cls, casadi_replay)
    return cls


class ReplayedBristle(CoordinateSpringDamperExt):
    """The bristle element with its discrete variables replaced by smooth functions of time:
    ``schedule`` = (stick weight w, slip direction s, sticking anchor x_lsp); no events."""

    def __init__(self, schedule, **params):
        super().__init__(**params)
        self._schedule = schedule

    @property
    def shares_equations(self) -> bool:
        return False  # each twin derives its own equations from its own schedule

    def friction_force(self):
        w, s, x = (f(t_sym) for f in self._schedule)
        stick = (self.stickingStiffness * (self.displacement - x)
                 + self.stickingDamping * self.velocity)
        return w * stick + (1 - w) * s * self._slip_magnitude()

    def events(self):
        return []


def replayed_bristle(event_sol, tau: float = REPLAY_TAU):
    """The bristle model whose automaton is replayed from ``event_sol`` (see the module doc)."""
    params, v0, _, _ = csd_example.CASES["bristle"]
    t_ev = event_sol.event_values("t")
    mode = event_sol.event_values("csd.frictionMode")
    x_lsp = event_sol.event_values("csd.lastStickingPosition")
    mode0 = float(params.get("initialFrictionMode", 0))
    x0 = float(params.get("initialLastStickingPosition", 0.0))
    stuck = np.abs(mode) < 0.5
    weight = replay_function(t_ev, np.r_[float(abs(mode0) < 0.5), stuck.astype(float)], tau)
    slips = ~stuck
    direction = replay_function(t_ev[slips], np.r_[1.0 if mode0 >= 0 else -1.0,
                                                   np.sign(mode[slips])], tau)
    # the anchor moves 20 tau before the stick weight rises (at each stick onset)
    position = replay_function(t_ev[stuck] - 20 * tau, np.r_[x0, x_lsp[stuck]], tau)
    model = csd_example.MassOnCoordinateSpringDamperExt(params, v0, force_amplitude=10.0)
    model.csd = ReplayedBristle((weight, direction, position), **params)
    return model


MODELS = {
    # event variant, smooth variant (built from the event run's solution), reference laws
    "quarter_car": {"event": lambda: QuarterCar(False),
                    "smooth": lambda sol, tau: QuarterCar(True)},
    "bristle": {"event": lambda: bristle_model(False),
                "smooth": lambda sol, tau: replayed_bristle(sol, tau),
                "regularised": lambda: bristle_model(True)},
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
    # bristle: both runs finite and bounded, and the replay twin follows the event run (the
    # same model: its position within 1 % of the event run's range)
    for sol in (event_sol, smooth_sol):
        q = sol["mass.s"]
        assert np.all(np.isfinite(q)), "non-finite positions"
        assert np.max(np.abs(q)) < 0.1, f"position out of bounds: {np.max(np.abs(q)):.3g}"
    q_ev = event_sol["mass.s"]
    spread = float(np.ptp(q_ev))
    diff = float(np.max(np.abs(smooth_sol["mass.s"] - q_ev)))
    assert diff < 0.01 * spread, f"the replay twin left the event run: {diff:.3g} m"
    return (f"{len(event_sol.events)} events, max |twin - event| = {diff:.1e} m "
            f"({diff / spread:.1e} of the range)")


def run_model(name: str, t_end: float, dt: float, repeats: int,
              tau: float = REPLAY_TAU, jit: bool = False) -> dict:
    spec = MODELS[name]
    record = {"model": name, "t_end": t_end, "dt": dt}
    t0 = time.perf_counter()
    cs_event = compile(spec["event"]())
    record["compile_s"] = time.perf_counter() - t0
    opts = {"dt": dt, "rtol": RTOL, "atol": ATOL, "jit": jit}
    record["event_s"], sol_ev = best_time(
        lambda: cs_event.simulate(t_end, progress=False, **opts), repeats)
    cs_smooth = compile(spec["smooth"](sol_ev, tau))
    record["smooth_s"], sol_sm = best_time(
        lambda: cs_smooth.simulate(t_end, progress=False, **opts), repeats)
    record["event/smooth"] = record["event_s"] / record["smooth_s"]
    record["regularised_s"] = record["event/regularised"] = record["rhs_regularised"] = None
    if "regularised" in spec:
        cs_law = compile(spec["regularised"]())
        record["regularised_s"], sol_law = best_time(
            lambda: cs_law.simulate(t_end, progress=False, **opts), repeats)
        record["event/regularised"] = record["event_s"] / record["regularised_s"]
        record["rhs_regularised"] = sol_law.stats.get("rhs_evaluations")
    record["events"] = len(sol_ev.events)
    record["rhs_event"] = sol_ev.stats.get("rhs_evaluations")
    record["rhs_smooth"] = sol_sm.stats.get("rhs_evaluations")
    record["root_evaluations_event"] = sol_ev.stats.get("root_evaluations")
    record["solver_calls_event"] = sol_ev.stats.get("solver_calls")

    def with_bar():
        buffer = io.StringIO()
        with contextlib.redirect_stderr(buffer):
            return cs_event.simulate(t_end, progress=True, **opts)

    # plain and bar runs alternate, so that both see the same machine state; best of each
    plain_s, bar_s = float("inf"), float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        cs_event.simulate(t_end, progress=False, **opts)
        plain_s = min(plain_s, time.perf_counter() - t0)
        t0 = time.perf_counter()
        sol_bar = with_bar()
        bar_s = min(bar_s, time.perf_counter() - t0)
    record["bar_s"] = bar_s
    record["bar/plain"] = bar_s / plain_s
    for var in cs_event.state_names:
        if not np.array_equal(sol_bar[var], sol_ev[var]):
            raise AssertionError(f"{name}: the progress display changed {var}")
    record["check"] = check(name, sol_ev, sol_sm, t_end)
    return record


def table(records: list[dict]) -> str:
    head = ("model", "compile_s", "event_s", "smooth_s", "event/smooth", "regularised_s",
            "event/regularised", "bar/plain", "events", "solver calls",
            "RHS evals event / smooth / regularised", "root evals", "check")
    lines = [" | ".join(head), " | ".join("---" for _ in head)]

    def num(value, fmt):
        return "-" if value is None else format(value, fmt)

    for r in records:
        if "error" in r:
            lines.append(f"{r['model']} | error: {r['error']}")
            continue
        rhs = f"{r['rhs_event']} / {r['rhs_smooth']}"
        if r["rhs_regularised"] is not None:
            rhs += f" / {r['rhs_regularised']}"
        lines.append(" | ".join([r["model"], f"{r['compile_s']:.3f}", f"{r['event_s']:.3f}",
                                 f"{r['smooth_s']:.3f}", f"{r['event/smooth']:.2f}",
                                 num(r["regularised_s"], ".3f"),
                                 num(r["event/regularised"], ".2f"),
                                 f"{r['bar/plain']:.3f}", str(r["events"]),
                                 str(r["solver_calls_event"]), rhs,
                                 str(r["root_evaluations_event"]), r["check"]]))
    return "\n".join("| " + line + " |" for line in lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="JSON records on stdout only")
    parser.add_argument("--quick", action="store_true", help="5 s, dt = 0.01, one repeat")
    parser.add_argument("--models", nargs="*", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--replay-tau", type=float, default=REPLAY_TAU,
                        help="width [s] of the replay twin's switching ramps (bristle)")
    parser.add_argument("--dt", type=float, default=None,
                        help="output step [s] instead of 1 ms (0.01 with --quick)")
    parser.add_argument("--jit", action="store_true",
                        help="every variant with simulate(jit=True): native code (the first, "
                        "best-of run compiles it once)")
    args = parser.parse_args(argv)
    t_end, dt, repeats = (5.0, 0.01, 1) if args.quick else (200.0, 1e-3, 3)
    if args.dt is not None:
        dt = args.dt
    records, status = [], 0
    for name in args.models:
        print(f"[hybrid] {name} ...", file=sys.stderr)
        try:
            records.append(run_model(name, t_end, dt, repeats, args.replay_tau, args.jit))
        except Exception as exc:  # noqa: BLE001 - reported in the record, exit status 1
            traceback.print_exc(file=sys.stderr)
            records.append({"model": name, "error": f"{type(exc).__name__}: {exc}"})
            status = 1
    print(json.dumps(records, indent=1) if args.json else table(records))
    return status


if __name__ == "__main__":
    sys.exit(main())
