"""Tiered native code (``simulate(jit="auto")``): what the C compiler costs, and what a first run
and a later run of a model cost (docs/compiler.md, "Native code" and "Tiered native code").

``--compile``: for the N-link spatial chain (``SpatialChain``, its linear loop eliminated by the
compiler, and with ``--loop`` also kept as a numeric loop), each function the solver evaluates
at every step is written as C and compiled with the shipped policy (``-O1``, from
``native.SPLIT_FROM`` instructions with its long-lived values spilled to memory and in pieces,
up to ``native.OPTIMISE_UP_TO`` instructions, else ``-O0`` first and the ``-O1`` upgrade that
later runs load) and the alternatives (``-O0``, ``-O1`` in one piece, ``-O1`` spilled in
pieces): the compiler's CPU time (user + system of gcc and its children, less sensitive to a
busy machine than the wall clock) and the time of one call (microseconds,
best of 5 batches through a buffer), against CasADi's virtual machine.

``--runs``: ``simulate(5, rtol=1e-8, atol=1e-8)`` with no other option, each in a new process
(the compiled model built there, not timed): the virtual machine only (``jit=False``); the
default with an empty cache (the run starts at once, the background builder compiles); the
default again once the builder is done (from the cache); ``jit=True`` from the cache; the
default on a model new to a machine that has run others (only the compiled driver in the cache:
a large model's first run is then driven from C with the virtual machine's functions,
docs/compiler.md "Jacobians").

``--profile``: cProfile of such a run from the cache, in this process.

Usage::

    python benchmarks/native_tiering.py --compile --sizes 20 100 [--loop] [--quick]
    python benchmarks/native_tiering.py --runs --sizes 20 [--repeat 3]
    python benchmarks/native_tiering.py --profile --sizes 20
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RUN = """
import contextlib, json, sys, time
from acausal import compile
from acausal.compiler.realize import torn_linear_loops
from acausal.components.multibody.chains import SpatialChain
with contextlib.nullcontext() if {eliminate} else torn_linear_loops():
    cs = compile(SpatialChain(n={n}))
tic, cpu = time.perf_counter(), time.process_time()
sol = cs.simulate(5.0, rtol=1e-8, atol=1e-8, progress=False{jit})
wall, cpu = time.perf_counter() - tic, time.process_time() - cpu
print(json.dumps({{"s": wall, "cpu_s": cpu, "native_code": sol.stats["native_code"],
                  "switch": sol.stats["native_switch"], "driver": sol.stats["driver"],
                  "rhs": sol.stats["rhs_evaluations"]}}))
"""


def chain_functions(n: int, eliminate: bool):
    """The functions ``jit`` compiles for the n-link chain, as the solver problem has them."""
    import contextlib

    from acausal import compile
    from acausal.compiler.realize import torn_linear_loops
    from acausal.components.multibody.chains import SpatialChain
    from acausal.run import sundials
    from acausal.run.event_detection import split_indicators

    with contextlib.nullcontext() if eliminate else torn_linear_loops():
        cs = compile(SpatialChain(n=n))
    return sundials.Problem(cs, split_indicators(cs)[0], False).native_functions()


def compiler_seconds(source: str, flags: tuple[str, ...], folder: Path) -> tuple[float, Path]:
    """(CPU seconds of the compiler, the library) for ``source``."""
    from acausal.base.c_compiler import find_c_compiler, shared_library_command

    c_file = folder / f"f{time.monotonic_ns()}.c"
    c_file.write_text(source)
    library = c_file.with_suffix(".so")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(shared_library_command(find_c_compiler(), [c_file], library, flags=flags,
                                          hide_symbols=False), check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), library


def per_call_us(f, calls: int = 300) -> float:
    from acausal.run.buffers import Buffered

    buf = Buffered(f)
    rng = np.random.default_rng(0)
    for values in buf.arg.values():
        values[:] = rng.uniform(0.1, 0.4, values.size)
    best = np.inf
    for _ in range(5):
        tic = time.perf_counter()
        for _ in range(calls):
            buf.raw()
        best = min(best, (time.perf_counter() - tic) / calls)
    return best * 1e6


def layout(planned) -> str:
    """A planned library's flags and layout, in words."""
    return " ".join(planned.flags) + (" spilled" if planned.spill else "") + (
        " in pieces" if planned.chunk else "")


def measure_compile(n: int, eliminate: bool, quick: bool) -> list[dict]:
    import casadi as ca

    from acausal.run import native, native_build

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        for f in chain_functions(n, eliminate):
            size = f.n_instructions()
            tic = time.perf_counter()
            shipped = native.plan([f], "cc")[0]  # the cache key: the serialised function
            plan_s = time.perf_counter() - tic
            tic = time.perf_counter()
            native_build.c_source(f)  # what the key would cost from the C code
            codegen_s = time.perf_counter() - tic
            variants = {"shipped": (shipped.flags, shipped.chunk, shipped.spill),
                        "-O0": (("-O0",), 0, 0),
                        "-O1 spilled": (("-O1",), native_build.CHUNK, native_build.SPILL_AFTER)}
            if not quick or size <= 30_000:  # in one piece gcc's time grows fast with size
                variants["-O1 one piece"] = (("-O1",), 0, 0)
            if shipped.upgrade is not None:  # what later runs load (native.start_upgrades)
                up = shipped.upgrade
                variants["upgrade"] = (up.flags, up.chunk, up.spill)
            rec = {"N": n, "loop": not eliminate, "function": f.name(), "instructions": size,
                   "plan_s": plan_s, "codegen_s": codegen_s, "vm_us": per_call_us(f),
                   "shipped": layout(shipped),
                   "upgrade": layout(shipped.upgrade) if shipped.upgrade else None}
            for name, (flags, chunk, spill) in variants.items():
                cpu, library = compiler_seconds(native_build.c_source(f, chunk, spill), flags,
                                                Path(tmp))
                rec[f"{name} cc_s"] = cpu
                rec[f"{name} us"] = per_call_us(ca.external(f.name(), str(library)))
            out.append(rec)
            print(json.dumps(rec), flush=True)
    return out


def fresh_run(n: int, eliminate: bool, jit: str, folder: Path) -> dict:
    code = RUN.format(n=n, eliminate=eliminate, jit=jit)
    env = dict(os.environ, ACAUSAL_CACHE_DIR=str(folder))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def wait_for_builder(folder: Path, timeout: float = 900.0) -> float:
    """Seconds until no build is under way in ``folder`` (no mark, no job folder)."""
    tic = time.perf_counter()
    while time.perf_counter() - tic < timeout:
        if not list(folder.glob("*.building")) and not list(folder.glob(".job-*")):
            break
        time.sleep(0.1)
    return time.perf_counter() - tic


def measure_runs(n: int, eliminate: bool, repeat: int) -> list[dict]:
    out = []
    for k in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "cache"
            rec = {"N": n, "loop": not eliminate, "repeat": k}
            rec["vm"] = fresh_run(n, eliminate, ", jit=False", folder)
            rec["auto empty cache"] = fresh_run(n, eliminate, "", folder)
            rec["builder left after the run s"] = wait_for_builder(folder)
            rec["auto from cache"] = fresh_run(n, eliminate, "", folder)
            rec["jit=True from cache"] = fresh_run(n, eliminate, ", jit=True", folder)
            # a model new to a machine that has run others: only the driver in the cache
            drivers = Path(tmp) / "driver only"
            drivers.mkdir()
            for library in folder.glob("acausal_driver_*"):
                shutil.copy2(library, drivers / library.name)
            rec["auto new model, driver cached"] = fresh_run(n, eliminate, "", drivers)
            rec["builder left after that run s"] = wait_for_builder(drivers)
            out.append(rec)
            print(json.dumps(rec), flush=True)
    return out


def profile_cached_run(n: int, eliminate: bool) -> None:
    """cProfile of a run from the cache (built first with jit=True), in this process: where the
    time of a run on machine code goes."""
    import contextlib
    import cProfile
    import pstats

    from acausal import compile
    from acausal.compiler.realize import torn_linear_loops
    from acausal.components.multibody.chains import SpatialChain

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ACAUSAL_CACHE_DIR"] = tmp
        with contextlib.nullcontext() if eliminate else torn_linear_loops():
            first, cs = compile(SpatialChain(n=n)), compile(SpatialChain(n=n))
        first.simulate(5.0, rtol=1e-8, atol=1e-8, progress=False, jit=True)
        profile = cProfile.Profile()
        profile.enable()
        cs.simulate(5.0, rtol=1e-8, atol=1e-8, progress=False)
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--runs", action="store_true")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20])
    parser.add_argument("--loop", action="store_true", help="also with the numeric linear loop")
    parser.add_argument("--quick", action="store_true", help="no -O1 in one piece above 30 000")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile a run from the cache in this process")
    args = parser.parse_args()
    for n in args.sizes:
        for eliminate in ([True, False] if args.loop else [True]):
            if args.compile:
                measure_compile(n, eliminate, args.quick)
            if args.runs:
                measure_runs(n, eliminate, args.repeat)
            if args.profile:
                profile_cached_run(n, eliminate)


if __name__ == "__main__":
    main()
