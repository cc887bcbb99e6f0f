"""CVODE's method chosen by the run (``integrator_options={"method": "auto"}``, the default)
against BDF and Adams chosen by hand, on the models of issue 42.

Issue 42's target: the default integrator within 1.1x of the better of BDF and Adams on each
model. Models (compiled once each; the run's settings are those of the benchmark they come from):

``chain5``, ``chain20``, ``chain100``
    ``benchmarks/multibody_peers.py``'s spatial pendulum chain
    (``acausal.components.multibody.chains.SpatialChain``, links 0.5 m, 1 kg, every joint at
    0.3 rad), 5 s, rtol = atol = 1e-8, 501 output points.
``fourbar1``
    MultiBody's ``Fourbar1`` (a closed loop: a DAE, integrated by IDA, which is BDF only: there
    is nothing to choose, the three runs are the same), 5 s, rtol 1e-8, atol 1e-10.
``masses1000``
    ``benchmarks/compile_scaling.py``'s chain of 1000 masses and spring-dampers, 10 s,
    rtol 1e-6, atol 1e-8, 501 output points.
``bristle``
    ``benchmarks/hybrid_events.py``'s bristle friction model (Exudyn's
    ``CoordinateSpringDamperExt`` stick/slip automaton, events), 200 s, dt = 1 ms,
    rtol 1e-6, atol 1e-8.
``chain8``, ``chain12``, ``chain15``, ``chain25``
    the same chain with 8 to 25 links (16 to 50 states), only where ``--models`` names them:
    ``--jit on`` compares Adams with Newton's iteration on SUNDIALS' difference quotients (the
    Adams column) and fixed-point iteration (auto from 30 unknowns on), the measurement behind
    ``acausal.run.sundials.FIXED_POINT_FROM``; ``--fixed-point-from 0`` lets auto take it on
    every model, the smaller ones too.
``vanderpol``, ``chain10``, ``pendulum``
    the small models of ``benchmarks/small_models.py`` with their settings there.

Three stiff models show what the choice costs where BDF is the better method (not part of the
issue's check; ``--models`` names them): ``stiff_mount``, a 1 kg mass on a mount of 1e6 N/m and
1e4 N s/m (eigenvalues -100 and -9 900 1/s) pushed by 100 sin(t) N, 20 s (the model of
``tests/compiler/test_integrator_choice.py``); ``lugre``, ``examples/identify_friction.py``'s
friction oscillator on LuGre friction released from 0.2 m ("decay"), 2 s; ``robertson``,
Robertson's chemical kinetics (Hairer and Wanner, "Solving ODEs II", section IV.1), 1e4 s,
rtol 1e-6, atol 1e-10.

Timed (``time.perf_counter``, or with ``--clock cpu`` ``time.process_time``, the CPU time of
this process, which other processes on a busy machine do not inflate): ``cs.simulate(...)`` with
``method`` "BDF", "Adams" and "auto", interleaved, best of ``--repeat`` (more for short runs:
as many as take ``SHORT_S`` seconds, up to ``MAX_REPEAT``; once for a model whose untimed first
runs take more than ``SLOW_S`` seconds), after one untimed run of each that builds and caches
everything; with ``jit=False`` (CasADi's virtual machine) and ``jit=True`` (machine code and
the compiled driver: the first untimed run compiles it into the cache). The table gives the
three times, the right-hand sides of each run, ``auto/min`` = auto's time over the better of
BDF and Adams (the issue's check), and what ``sol.stats["method"]`` says for auto. auto's final
states must agree with BDF's within ``AGREE`` of the largest state (1 at least), as in
``benchmarks/small_models.py``: a check that both integrate the same model, not an accuracy
test (over hundreds of periods two methods' global errors differ by more than the tolerance;
the chains are chaotic over 5 s and are compared at 1 s).

Usage::

    python benchmarks/integrator_choice.py                   # table, every model, both jit
    python benchmarks/integrator_choice.py --models chain20 bristle --jit off
    python benchmarks/integrator_choice.py --models stiff_mount lugre robertson
    python benchmarks/integrator_choice.py --json            # records on stdout
    python benchmarks/integrator_choice.py --quick           # short runs, one repeat (smoke)
    python benchmarks/integrator_choice.py --models chain8 chain12 chain15 chain20 chain25 \
        --jit on --fixed-point-from 0                      # where fixed point starts to pay

Exit status 1 when a model fails or the agreement check fails.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import traceback
from pathlib import Path

import numpy as np
import sympy as sp

from acausal import Component, Eq, Parameter, Variable, compile, connect, der
from acausal import time as t_model
from acausal.components.translational import Fixed, Force, Mass, SpringDamper

sys.path.insert(0, str(Path(__file__).parent))

METHODS = ("BDF", "Adams", "auto")
#: A model whose untimed first runs take longer than this [s] is timed once ...
SLOW_S = 5.0
#: ... and a short one as often as fits in this time [s], up to MAX_REPEAT times.
SHORT_S = 0.5
MAX_REPEAT = 50
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter
#: auto's and BDF's states agree within this fraction of the largest state (1 at least) at the
#: end (at 1 s for the chaotic chains).
AGREE = 1e-3


def spatial_chain(n: int):
    from acausal.components.multibody.chains import SpatialChain

    return SpatialChain(n=n, link_length=0.5, width=0.05, m=1.0, phi0=0.3)


class StiffMount(Component):
    """A mass on a stiff, heavily damped mount, pushed by a slow force."""

    amplitude = Parameter(100.0, unit="N", description="amplitude of the force")
    omega = Parameter(1.0, unit="rad/s", description="angular frequency of the force")

    def __init__(self, **kw):
        super().__init__(**kw)
        self.ground = Fixed()
        self.mount = SpringDamper(c=1e6, d=1e4)
        self.mass = Mass(m=1.0, s=Variable(start=0.0, fixed=True),
                         v=Variable(start=0.0, fixed=True))
        self.push = Force()

    def equations(self):
        return [Eq(self.push.f, self.amplitude * sp.sin(self.omega * t_model))]

    def connections(self):
        return [connect(self.ground.flange, self.mount.flange_a),
                connect(self.mount.flange_b, self.mass.flange_a),
                connect(self.mass.flange_b, self.push.flange)]


class Robertson(Component):
    """y1' = -k1 y1 + k3 y2 y3, y2' = k1 y1 - k3 y2 y3 - k2 y2^2, y3' = k2 y2^2."""

    k1 = Parameter(0.04, unit="1/s", description="rate of the slow reaction")
    k2 = Parameter(3e7, unit="1/s", description="rate of the fast reaction")
    k3 = Parameter(1e4, unit="1/s", description="rate of the medium reaction")
    y1 = Variable(start=1.0, fixed=True, unit="1")
    y2 = Variable(start=0.0, fixed=True, unit="1")
    y3 = Variable(start=0.0, fixed=True, unit="1")

    def equations(self):
        return [Eq(der(self.y1), -self.k1 * self.y1 + self.k3 * self.y2 * self.y3),
                Eq(der(self.y2), self.k1 * self.y1 - self.k3 * self.y2 * self.y3
                   - self.k2 * self.y2**2),
                Eq(der(self.y3), self.k2 * self.y2**2)]


#: The stiff models, timed only when named.
STIFF = ("stiff_mount", "lugre", "robertson")
#: Chains of 8 to 25 links (16 to 50 states, dense Jacobians), not run by default: with ``--jit
#: on`` their Adams (Newton's iteration on difference quotients) against auto show where
#: fixed-point iteration starts to pay (``acausal.run.sundials.FIXED_POINT_FROM``).
CHAIN_SIZES = ("chain8", "chain12", "chain15", "chain25")


def models() -> dict:
    """name -> (build, t_end, simulate options, time at which auto and BDF are compared)."""
    import hybrid_events
    import small_models
    from compile_scaling import MassSpringChain

    from acausal.components.multibody.examples import Fourbar1

    chain = dict(rtol=1e-8, atol=1e-8, n_points=501)
    out = {f"chain{n}": (lambda n=n: spatial_chain(n), 5.0, chain, 1.0)
           for n in (5, 8, 12, 15, 20, 25, 100)}
    out["fourbar1"] = (Fourbar1, 5.0, dict(rtol=1e-8, atol=1e-10), None)
    out["masses1000"] = (lambda: MassSpringChain(N=1000), 10.0,
                         dict(rtol=1e-6, atol=1e-8, n_points=501), None)
    out["bristle"] = (lambda: hybrid_events.bristle_model(False), 200.0,
                      dict(dt=1e-3, rtol=hybrid_events.RTOL, atol=hybrid_events.ATOL), None)
    for name, (build, t_end, rtol, atol) in small_models.MODELS.items():
        out[name] = (build, t_end, dict(rtol=rtol, atol=atol, n_points=501), None)
    out["stiff_mount"] = (StiffMount, 20.0, dict(rtol=1e-6, atol=1e-8, n_points=501), None)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    import identify_friction

    out["lugre"] = (identify_friction.FrictionOscillator, 2.0,
                    dict(rtol=1e-6, atol=1e-8, n_points=501, start={"mass.s": 0.2}), None)
    out["robertson"] = (Robertson, 1e4, dict(rtol=1e-6, atol=1e-10, n_points=501), None)
    return out


def run(cs, t_end: float, options: dict, method: str, jit: bool):
    t0 = clock()
    sol = cs.simulate(t_end, progress=False, jit=jit, integrator_options={"method": method},
                      **options)
    return clock() - t0, sol


def agreement(cs, sols: dict, t_compare: float | None) -> float:
    """Largest difference of auto's and BDF's states at the end (or at ``t_compare``) over the
    size of the largest state (1 at least)."""
    auto, bdf = sols["auto"], sols["BDF"]
    k = -1 if t_compare is None else int(np.argmin(np.abs(bdf.t - t_compare)))
    names = cs.state_names
    a = np.array([np.ravel(auto[n])[k] for n in names])
    b = np.array([np.ravel(bdf[n])[k] for n in names])
    scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
    return float(np.max(np.abs(a - b))) / scale if b.size else 0.0


def measure(name: str, spec: tuple, jits: list[bool], repeat: int, quick: bool) -> list[dict]:
    build, t_end, options, t_compare = spec
    if quick:
        t_end /= 20
        t_compare = None if t_compare is None else min(t_compare, t_end)
    cs = compile(build())
    records = []
    for jit in jits:
        first = time.perf_counter()
        for method in METHODS:  # builds and caches (with jit: the machine code)
            run(cs, t_end, options, method, jit)
        spent = (time.perf_counter() - first) / len(METHODS)
        n = 1 if spent > SLOW_S else min(MAX_REPEAT, max(repeat, int(SHORT_S / spent)))
        best: dict[str, tuple[float, object]] = {}
        for _ in range(n):
            for method in METHODS:  # interleaved: a slow spell of the machine hits all three
                seconds, sol = run(cs, t_end, options, method, jit)
                if method not in best or seconds < best[method][0]:
                    best[method] = (seconds, sol)
        sols = {m: best[m][1] for m in METHODS}
        times = {m: best[m][0] for m in METHODS}
        records.append({
            "model": name, "states": int(cs.x.numel()), "jit": jit, "repeat": n,
            **{f"{m}_s": times[m] for m in METHODS},
            **{f"{m}_rhs": int(sols[m].stats["rhs_evaluations"]) for m in METHODS},
            "auto/min": times["auto"] / min(times["BDF"], times["Adams"]),
            "auto_method": sols["auto"].stats.get("method", ""),
            "driver": sols["auto"].stats.get("driver", ""),
            "agreement": agreement(cs, sols, t_compare)})
    return records


def table(records: list[dict]) -> str:
    head = (f"{'model':<11} {'states':>6} {'jit':>3} {'BDF s':>8} {'Adams s':>8} {'auto s':>8} "
            f"{'auto/min':>8} {'rhs BDF/Adams/auto':>22}  auto's choice")
    lines = [head]
    for r in records:
        if "error" in r:
            lines.append(f"{r['model']:<11} error: {r['error']}")
            continue
        rhs = f"{r['BDF_rhs']}/{r['Adams_rhs']}/{r['auto_rhs']}"
        lines.append(f"{r['model']:<11} {r['states']:>6} {int(r['jit']):>3} {r['BDF_s']:>8.4f} "
                     f"{r['Adams_s']:>8.4f} {r['auto_s']:>8.4f} {r['auto/min']:>8.2f} "
                     f"{rhs:>22}  {r['auto_method']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    specs = models()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", choices=list(specs),
                        default=[name for name in specs
                                 if name not in STIFF and name not in CHAIN_SIZES])
    parser.add_argument("--jit", choices=("off", "on", "both"), default="both")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="1/20 of the time, one repeat")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall time (perf_counter) or this process's CPU time")
    parser.add_argument("--json", action="store_true", help="JSON records on stdout")
    parser.add_argument("--fixed-point-from", type=int, default=None, metavar="N",
                        help="auto's Adams corrects by fixed-point iteration from N unknowns "
                             "on (acausal.run.sundials.FIXED_POINT_FROM, 30; 0: every model)")
    args = parser.parse_args(argv)
    if args.fixed_point_from is not None:
        from acausal.run import sundials

        sundials.FIXED_POINT_FROM = args.fixed_point_from
    global clock
    clock = CLOCKS[args.clock]
    jits = {"off": [False], "on": [True], "both": [False, True]}[args.jit]
    repeat = 1 if args.quick else args.repeat
    records, failed = [], False
    for name in args.models:
        print(f"{name} ...", file=sys.stderr, flush=True)
        try:
            got = measure(name, specs[name], jits, repeat, args.quick)
        except Exception as exc:  # noqa: BLE001 - reported in the table, exit status 1
            traceback.print_exc(file=sys.stderr)
            got = [{"model": name, "error": f"{type(exc).__name__}: {str(exc)[:200]}"}]
            failed = True
        for r in got:
            if "agreement" in r and not r["agreement"] <= AGREE:
                r["error"] = f"auto's and BDF's states differ by {r['agreement']:.3g} of their size"
                failed = True
        records += got
        if not args.json:
            print(table(got).split("\n", 1)[1], file=sys.stderr, flush=True)
    print(json.dumps(records) if args.json else table(records))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
