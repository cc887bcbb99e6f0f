"""What native code (``simulate(jit=True)``) buys, and what the C compiler costs.

For the N-link spatial chain of ``multibody_peers.py`` (``SpatialChain``, 0.5 m boxes of 1 kg,
all joints at 0.3 rad) this times

* one evaluation of the chain's linear loop, ``A(t, x, p)`` and ``b(t, x, p)`` of
  ``A z + b = 0`` (the bulk of a right-hand side: docs/compiler.md, "Linear loops"), in
  CasADi's virtual machine and as machine code compiled with ``-O0``, ``-O1`` and ``-O2``
  (microseconds per call, best of 5 batches of 2 000 calls through a buffer), and the C
  compiler's time for each (wall clock, one run, no cache);
* one evaluation of the whole right-hand side the solver calls (the loop, its LU solve, the
  joint rates), with and without ``jit``;
* ``simulate(5 s)`` (CVODE Adams, rtol = atol = 1e-8, 501 output points) on a new compiled model
  without and with ``jit`` (the libraries already in the cache), and the first simulate with
  an empty cache (includes the C compiler).

Usage::

    python benchmarks/native_code.py                 # N = 5, 20, 50
    python benchmarks/native_code.py --sizes 20 --json
    python benchmarks/native_code.py --sizes 100 --levels O0 O1   # -O2 takes too long there
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import casadi as ca
import numpy as np

from acausal import compile
from acausal.base.c_compiler import compile_shared_library
from acausal.components.multibody.chains import SpatialChain
from acausal.run import native, solver_functions, sundials
from acausal.run.buffers import Buffered

T_END, TOL = 5.0, 1e-8


def per_call_us(f: ca.Function, args: dict[str, np.ndarray], calls: int = 2000) -> float:
    """Best of 5 batches: microseconds per buffered evaluation of ``f`` at ``args``."""
    buf = Buffered(f)
    for name, value in args.items():
        buf.arg[name][:] = value
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            buf.raw()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def chain(n: int):
    return compile(SpatialChain(n=n, link_length=0.5, width=0.05, m=1.0, phi0=0.3))


def timed_simulate(n: int, jit: bool):
    """(seconds, compiled model, solution) of simulate on a new compiled model."""
    cs = chain(n)
    t0 = time.perf_counter()
    sol = cs.simulate(T_END, rtol=TOL, atol=TOL, progress=False,
                      integrator_options={"method": "Adams"}, jit=jit)
    return time.perf_counter() - t0, cs, sol


def measure(n: int, folder: Path, levels: list[str]) -> dict[str, Any]:
    rec: dict[str, Any] = {"N": n}
    os.environ[native.CACHE_ENV] = str(folder / f"cache{n}")  # this process only: empty per N
    rec["first_jit_simulate_s"] = timed_simulate(n, True)[0]  # empty cache: with the compiler
    for jit in (False, True):
        seconds, cs, sol = timed_simulate(n, jit)
        tag = "_jit" if jit else ""
        rec[f"simulate{tag}_s"] = seconds
        rec["rhs_evaluations"] = sol.stats["rhs_evaluations"]
        prob = sundials.problem_for(cs, [], jit)  # its buffers hold the last point evaluated
        rec[f"rhs{tag}_us"] = per_call_us(prob._f.function,
                                          {k: v.copy() for k, v in prob._f.arg.items()})
    if cs.z.numel() == 0:
        rec["note"] = "no linear loop left (solved symbolically below 7 links)"
        return rec
    zero = ca.DM.zeros(cs.z.numel())
    loop = ca.Function("linear_loop", [cs.t, cs.x, cs.p],
                       [solver_functions.algebraic_jacobian(cs), ca.substitute(cs.alg, cs.z, zero)])
    rec["loop_instructions"] = loop.n_instructions()
    args = {"i0": np.zeros(1), "i1": np.asarray(sol.x)[:, 0],
            "i2": np.asarray(cs.parameter_values, float)}
    rec["loop_vm_us"] = per_call_us(loop, args)
    gen = ca.CodeGenerator("loop", {"with_header": False})
    gen.add(loop)
    source = folder / f"loop_{n}.c"
    source.write_text(gen.dump())
    for level in levels:
        library = folder / f"loop_{n}{level}.so"
        t0 = time.perf_counter()
        compile_shared_library([source], library, flags=(level,), hide_symbols=False)
        rec[f"loop_cc{level}_s"] = time.perf_counter() - t0
        rec[f"loop{level}_us"] = per_call_us(ca.external("linear_loop", str(library)), args)
    return rec


def print_tables(records: list[dict[str, Any]], levels: list[str]) -> None:
    print("| N | loop instructions | VM [us] | "
          + " | ".join(f"{lv} [us]" for lv in levels) + " | "
          + " | ".join(f"cc {lv} [s]" for lv in levels) + " |")
    print("| ---: | ---: | ---: | " + " | ".join(["---:"] * 2 * len(levels)) + " |")
    for r in records:
        if "loop_instructions" not in r:
            continue
        print(f"| {r['N']} | {r['loop_instructions']} | {r['loop_vm_us']:.1f} | "
              + " | ".join(f"{r[f'loop{lv}_us']:.1f}" for lv in levels) + " | "
              + " | ".join(f"{r[f'loop_cc{lv}_s']:.2f}" for lv in levels) + " |")
    print()
    print("| N | rhs evaluations | rhs VM [us] | rhs jit [us] | simulate [s] "
          "| simulate jit [s] | first simulate jit, empty cache [s] |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for r in records:
        print(f"| {r['N']} | {r['rhs_evaluations']} | {r['rhs_us']:.1f} | "
              f"{r['rhs_jit_us']:.1f} | {r['simulate_s']:.3f} | {r['simulate_jit_s']:.3f} | "
              f"{r['first_jit_simulate_s']:.2f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5, 20, 50])
    parser.add_argument("--levels", nargs="+", default=["O0", "O1", "O2"],
                        help="gcc optimisation levels to compile the loop with (O0 O1 O2)")
    parser.add_argument("--json", action="store_true", help="JSON records on stdout")
    args = parser.parse_args(argv)
    args.levels = ["-" + level.lstrip("-") for level in args.levels]
    records = []
    with tempfile.TemporaryDirectory(prefix="acausal-native-bench-") as tmp:
        for n in args.sizes:
            print(f"N = {n} ...", file=sys.stderr, flush=True)
            records.append(measure(n, Path(tmp), args.levels))
    if args.json:
        print(json.dumps(records, indent=1))
        return 0
    print_tables(records, args.levels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
