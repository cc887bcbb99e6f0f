"""EngineV6's run at the tolerances of its validation test: how long ``simulate`` takes.

MultiBody's ``Examples.Loops.EngineV6`` (``acausal.components.multibody.examples_engines``: six
crank-slider loops with nonlinear position constraints, a gas force per cylinder, a filtered
torque sensor and a quadratic load) is a DAE for IDA whose gas forces switch at the pistons'
dead centres: about 330 events in 1.01 s, and a solver restart at each. Issue 42 asks for its
run at rtol 1e-8 in at most 2 s on a two-core machine. Measured here is what
``tests/validation/multibody/test_engines.py`` runs: ``compile(EngineV6())``, then
``simulate(1.01, t_eval=<5001 points>, rtol=1e-8, atol=1e-10)``, each run in a fresh Python
process (so nothing is cached in memory), in three modes:

``vm``
    ``jit=False``: CasADi's virtual machine and scikit-sundae's callbacks.
``cache``
    ``jit="auto"`` (``simulate``'s default) with the model's machine code and the compiled
    driver in the cache folder (``ACAUSAL_CACHE_DIR``, a temporary folder filled once by an
    untimed run with ``jit=True``): the run a user gets from the second process on.
``empty``
    ``jit="auto"`` with an empty cache folder: the first run on a machine. It starts in the
    virtual machine, builds the native code in a background process and switches to it when
    it is ready (``sol.stats["native_switch"]``). The child waits for the builder after the
    timing (it would load the machine for the next run); the builder's CPU time, where the
    child could collect it, is reported separately.

Per run: the simulate call's CPU time (``time.process_time``: this process, all its threads;
a busy machine inflates wall time more than CPU time) and wall time (``time.perf_counter``);
the compile's CPU time; and the counts of ``sol.stats``: solver calls (one per stretch between
events: the restarts), residual evaluations, root-function evaluations and events. Modes are
interleaved (run 1 of every mode, then run 2, ...) and the table gives the best and the median
of ``--repeat`` runs. ``--counts`` adds IDA's own counts (steps, Jacobian evaluations,
error-test failures, nonlinear iterations) from one more run in ``cache`` mode through a copy
of the compiled driver with one extra function that reads them (a diagnostic: the driver does
not report them itself). ``--functions`` times the functions EngineV6's solver problem
compiles (residual, root functions, event indicators, IDA's Jacobian) alone: CasADi's virtual
machine against machine code built with ``-O0``, ``-O1`` in pieces of
``native_build.CHUNK`` statements and ``-O1`` in one piece (``acausal.run.native.plan``
chooses among them), the compiler's CPU time and microseconds a call (best of 5 batches of
2 000 calls at one random point). ``--profile`` prints cProfile's view of one more ``cache``
run (the functions with the most time of their own, then by cumulative time): where the
solver's share (``native_solver.py:...(solve)``, the compiled driver) and the run loop's work
at the events (``hybrid.py``) stand.

Usage::

    python benchmarks/engine_v6.py                       # all modes, 3 runs each (~1 min)
    python benchmarks/engine_v6.py --repeat 5 --counts   # the numbers of benchmarks/README.md
    python benchmarks/engine_v6.py --modes cache --repeat 10 --json
    python benchmarks/engine_v6.py --functions             # its compiled functions alone
    python benchmarks/engine_v6.py --profile               # cProfile of one cache-mode run
    python benchmarks/engine_v6.py --quick --modes vm --json   # smoke test (0.02 s of motion)

Exit status 1 when a run fails. Timings depend on the machine and its load: set
``OPENBLAS_NUM_THREADS=1`` (the script does for its children) and compare runs of one
invocation, not across invocations.
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

T_END, N_OUT = 1.01, 5001
RTOL, ATOL = 1e-8, 1e-10
MODES = ("vm", "cache", "empty")
#: How long a child waits for a background build to end after its timed run [s].
BUILD_WAIT_S = 300.0
#: The counting driver's extra function (appended to a copy of the driver's source).
COUNTS_C = r"""
int IDAGetNumSteps(void *ida_mem, long int *n);
int IDAGetNumJacEvals(void *ida_mem, long int *n);
int IDAGetNumErrTestFails(void *ida_mem, long int *n);
int IDAGetNumNonlinSolvIters(void *ida_mem, long int *n);
void acausal_benchmark_counts(Driver *D, long *out) {
  out[0] = out[1] = out[2] = out[3] = 0;
  if (!D->mem || D->kind != KIND_DAE) return;
  IDAGetNumSteps(D->mem, &out[0]);
  IDAGetNumJacEvals(D->mem, &out[1]);
  IDAGetNumErrTestFails(D->mem, &out[2]);
  IDAGetNumNonlinSolvIters(D->mem, &out[3]);
}
"""
COUNT_NAMES = ("steps", "jacobian_evaluations", "error_test_failures", "nonlinear_iterations")


# -- the child: one run in a fresh process ------------------------------------------------------

def _counting_driver() -> list[int]:
    """Make the compiled driver a copy with :data:`COUNTS_C` appended and sum IDA's counts of
    every solver call (IDAReInit resets them) into the returned list."""
    from acausal.run import native_solver

    job = native_solver.driver_job
    totals = [0] * len(COUNT_NAMES)

    def counting_job(cc=None):
        text, command, library = job(cc)
        text += COUNTS_C
        key = hashlib.sha256(text.encode()).hexdigest()[:40]
        return text, command, library.with_name(f"acausal_benchmark_driver_{key}"
                                                f"{library.suffix}")

    native_solver.driver_job = counting_job
    native_solver._jobs.clear()
    solve = native_solver.NativeSolver.solve

    def counted(self, tspan, u0, up0=None):
        result = solve(self, tspan, u0, up0)
        out = (ctypes.c_long * len(COUNT_NAMES))()
        self._lib.acausal_benchmark_counts.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._lib.acausal_benchmark_counts(self._handle, out)
        for k, v in enumerate(out):
            totals[k] += v
        return result

    native_solver.NativeSolver.solve = counted
    return totals


def _wait_for_builders(folder: Path) -> None:
    """Until no library in ``folder`` is marked as being built (``NAME.building``)."""
    stop = time.monotonic() + BUILD_WAIT_S
    while any(folder.glob("*.building")) and time.monotonic() < stop:
        time.sleep(0.2)


def child(mode: str, t_end: float, counts: bool, profile: bool = False) -> dict[str, Any]:
    import numpy as np

    from acausal import compile
    from acausal.components.multibody.examples_engines import EngineV6

    totals = _counting_driver() if counts else None
    c0 = time.process_time()
    cs = compile(EngineV6())
    compile_cpu = time.process_time() - c0
    times = np.linspace(0.0, t_end, round(N_OUT * t_end / T_END) if t_end < T_END else N_OUT)
    jit = {"vm": False, "cache": "auto", "empty": "auto", "warm": True}[mode]
    if counts:
        jit = True  # builds the counting driver (not in the cache) before the run: else the
        # same run as jit="auto" from the cache
    children0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    c0, w0 = time.process_time(), time.perf_counter()
    sol = cs.simulate(t_end, t_eval=times, rtol=RTOL, atol=ATOL, jit=jit)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    if profiler is not None:
        import pstats

        profiler.disable()
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(15)
        stats.sort_stats("cumulative").print_stats(30)
    rec: dict[str, Any] = {"mode": mode, "simulate_cpu_s": cpu, "simulate_wall_s": wall,
                           "compile_cpu_s": compile_cpu}
    for key in ("solver_calls", "rhs_evaluations", "root_evaluations", "events", "driver",
                "native_code", "native_switch"):
        rec[key] = sol.stats.get(key)
    rec["load.phi_end"] = float(sol["load.phi"][-1])
    rec["load.w_end"] = float(sol["load.w"][-1])
    if totals is not None:
        rec.update(dict(zip(COUNT_NAMES, totals)))
    if mode == "empty":
        from acausal.run import native

        _wait_for_builders(native.cache_folder())
        time.sleep(0.5)  # the builder's waiter thread reaps it once it has ended
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        rec["builder_cpu_s"] = ((children.ru_utime + children.ru_stime)
                                - (children0.ru_utime + children0.ru_stime))
    return rec


# -- the compiled functions alone ------------------------------------------------------------

def function_levels() -> list[dict[str, Any]]:
    """Each function EngineV6's solver problem compiles (residual, root functions, event
    indicators, IDA's Jacobian) in the virtual machine and compiled at three levels."""
    import casadi as ca
    import numpy as np

    # this script's folder is on sys.path when it runs: the timing loop of native_code.py
    from native_code import per_call_us

    from acausal import compile
    from acausal.base.c_compiler import find_c_compiler, shared_library_command
    from acausal.components.multibody.examples_engines import EngineV6
    from acausal.run import native_build, sundials
    from acausal.run.event_detection import split_indicators

    cs = compile(EngineV6())
    functions = sundials.problem_for(cs, split_indicators(cs)[0], False).native_functions()
    cc = find_c_compiler()
    records = []
    with tempfile.TemporaryDirectory(prefix="acausal-engine-v6-code-") as tmp:
        for f in functions:
            rng = np.random.default_rng(1)
            point = {name: rng.uniform(0.5, 1.5, f.nnz_in(i))
                     for i, name in enumerate(f.name_in())}
            rec: dict[str, Any] = {"function": f.name(), "instructions": f.n_instructions(),
                                   "vm_us": per_call_us(f, point)}
            for label, flags, chunk in (("O0", ("-O0",), 0),
                                        ("O1_pieces", ("-O1",), native_build.CHUNK),
                                        ("O1_one_piece", ("-O1",), 0)):
                work = Path(tmp) / f"{f.name()}_{label}"
                work.mkdir()
                library = work.with_suffix(".so")
                command = shared_library_command(cc, ["{source}"], "{output}", flags=flags,
                                                 hide_symbols=False)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                native_build.build(native_build.c_source(f, chunk), command, library, work)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                rec[f"{label}_compile_cpu_s"] = ((after.ru_utime + after.ru_stime)
                                                 - (before.ru_utime + before.ru_stime))
                rec[f"{label}_us"] = per_call_us(ca.external(f.name(), str(library)), point)
            records.append(rec)
    return records


# -- the parent: interleaved runs ---------------------------------------------------------------

def run_child(mode: str, cache: Path, t_end: float, counts: bool = False,
              profile: bool = False) -> dict[str, Any]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", ACAUSAL_CACHE_DIR=str(cache))
    argv = [sys.executable, __file__, "--child", mode, "--t-end", repr(t_end)]
    if counts:
        argv.append("--counts")
    if profile:
        argv.append("--profile")
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{mode} run failed:\n{proc.stderr[-3000:]}")
    if profile:
        print(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def summary(records: list[dict[str, Any]], modes: list[str]) -> list[dict[str, Any]]:
    rows = []
    for mode in modes:
        runs = [r for r in records if r["mode"] == mode]
        if not runs:
            continue
        row = {"mode": mode, "runs": len(runs)}
        for key in ("simulate_cpu_s", "simulate_wall_s", "compile_cpu_s"):
            values = [r[key] for r in runs]
            row[key + "_best"] = min(values)
            row[key + "_median"] = statistics.median(values)
        for key in ("solver_calls", "rhs_evaluations", "root_evaluations", "events",
                    "native_code", *COUNT_NAMES):
            row[key] = runs[-1].get(key)
        rows.append(row)
    return rows


def print_table(rows: list[dict[str, Any]], counted: dict[str, Any] | None) -> None:
    print("| mode | runs | simulate CPU best / median [s] | wall best / median [s] | "
          "compile CPU [s] | solver calls | residuals | root evaluations | events | "
          "native code |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in rows:
        print(f"| {r['mode']} | {r['runs']} | {r['simulate_cpu_s_best']:.2f} / "
              f"{r['simulate_cpu_s_median']:.2f} | {r['simulate_wall_s_best']:.2f} / "
              f"{r['simulate_wall_s_median']:.2f} | {r['compile_cpu_s_median']:.2f} | "
              f"{r['solver_calls']} | {r['rhs_evaluations']} | {r['root_evaluations']} | "
              f"{r['events']} | {r['native_code']} |")
    if counted is not None:
        print()
        print("IDA's counts (one cache-mode run through the counting driver): "
              + ", ".join(f"{name.replace('_', ' ')} {counted[name]}" for name in COUNT_NAMES))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per mode (interleaved)")
    parser.add_argument("--json", action="store_true", help="JSON on stdout, nothing else")
    parser.add_argument("--counts", action="store_true",
                        help="IDA's steps and Jacobians from one more run (counting driver)")
    parser.add_argument("--functions", action="store_true",
                        help="time the compiled functions alone: virtual machine, -O0, -O1")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile of one cache-mode run (after the cache is filled)")
    parser.add_argument("--quick", action="store_true",
                        help="0.02 s of motion, one run per mode (smoke test)")
    parser.add_argument("--t-end", type=float, default=T_END, help=argparse.SUPPRESS)
    parser.add_argument("--child", choices=(*MODES, "warm"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.quick:
        args.t_end, args.repeat = 0.02, 1
    if args.child:
        print(json.dumps(child(args.child, args.t_end, args.counts, args.profile)))
        return 0
    if args.functions:
        records = function_levels()
        if args.json:
            print(json.dumps(records, indent=1))
            return 0
        print("| function | instructions | VM [us] | -O0 [s, us] | -O1 in pieces [s, us] | "
              "-O1 in one piece [s, us] |")
        print("| --- | ---: | ---: | ---: | ---: | ---: |")
        for r in records:
            print(f"| {r['function']} | {r['instructions']} | {r['vm_us']:.1f} | "
                  + " | ".join(f"{r[k + '_compile_cpu_s']:.2f}, {r[k + '_us']:.2f}"
                               for k in ("O0", "O1_pieces", "O1_one_piece")) + " |")
        return 0
    records: list[dict[str, Any]] = []
    counted = None
    try:
        with tempfile.TemporaryDirectory(prefix="acausal-engine-v6-") as tmp:
            warm = Path(tmp) / "warm"
            if "cache" in args.modes or args.counts or args.profile:
                print("filling the cache (jit=True, untimed) ...", file=sys.stderr, flush=True)
                run_child("warm", warm, args.t_end)
            if args.profile:
                run_child("cache", warm, args.t_end, profile=True)
                return 0
            for k in range(args.repeat):
                for mode in args.modes:
                    print(f"run {k + 1}/{args.repeat}: {mode} ...", file=sys.stderr, flush=True)
                    cache = Path(tmp) / f"empty{k}" if mode == "empty" else warm
                    records.append(run_child(mode, cache, args.t_end))
            if args.counts:
                print("counting run ...", file=sys.stderr, flush=True)
                counted = run_child("cache", warm, args.t_end, counts=True)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    rows = summary(records, args.modes)
    if args.json:
        print(json.dumps({"runs": records, "summary": rows, "counts": counted}, indent=1))
    else:
        print_table(rows, counted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
