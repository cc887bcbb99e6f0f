"""How the cost of one right-hand side grows with the size of a multibody model.

The models
----------
* ``chain``: ``acausal.components.multibody.chains.SpatialChain`` with N links (the chain of
  ``multibody_peers.py``: 0.5 m boxes of 1 kg on revolute joints, axes alternating x and y, all
  joints at 0.3 rad), N = 5, 10, 20, 50, 100 (``--sizes``); 2N states.
* ``hand``: ``acausal.components.multibody.chains.Hand``, a branched tree: five fingers of four
  revolute joints and box links each on a palm that turns about a wrist joint (21 joints, 42
  states; N in the table is its number of joints). The wrist couples the fingers: one linear
  block for the whole tree, against a serial chain of as many joints.

What is measured, per model
---------------------------
* ``states``, ``algebraic``: the sizes of the compiled system (``cs.x``, ``cs.z``).
* ``form``: what CVODE integrates. ``ode``: the compiled system has no algebraic variables,
  the right-hand side is ``ode(t, x, p)``; ``linear loop``: tearing left a linear loop
  ``A(t, x, p) z + b(t, x, p) = 0`` in the algebraic variables z, and a right-hand side
  evaluates ``linear_loop`` (A and b), solves the loop by LAPACK's LU inside the CasADi
  function and then evaluates ``ode(t, x, z, p)`` (docs/compiler.md, "Linear loops");
  ``dae``: algebraic equations that are not linear in z, integrated by IDA (its residual is
  timed).
* ``instructions``: CasADi's instruction count (``Function.n_instructions()``) of what is
  evaluated per right-hand side: ``Function('f', [t, x, p], [cs.ode])`` for an ODE; for a
  linear loop the sum of ``linear_loop`` (column ``loop``) and ``ode`` (the LU of the
  n_z x n_z loop, about 2/3 n_z^3 floating-point operations, is LAPACK's and not counted); for
  a DAE the residual ``[ode; alg](t, x, z, p)``.
* ``vm_us``: microseconds per evaluation of the right-hand side CVODE calls, built here as
  ``acausal.run.sundials`` builds it (the ODE function; for a linear loop one MX function of
  ``linear_loop``, ``casadi.solve(A, -b)`` with acausal's linear solver, LAPACK's LU, and
  ``ode``; the solver's scaling by nominal values, n_x multiplications, left out; a DAE's
  residual), in CasADi's virtual machine, through a CasADi buffer (``acausal.run.buffers``) at
  the states' start values, z = 0 and the default parameters: best of 15 batches, each batch
  as many calls as fill about 0.02 s (at least 20; short batches, so that the best of them
  misses the other processes of a busy machine).
* ``native_us``: the same with the SX functions compiled to machine code by the system's C
  compiler through ``acausal.run.native.compiled`` (what ``simulate(jit=True)`` uses, with its
  choice of optimisation levels; the LU stays LAPACK's);
  ``native_build_s`` (table: ``cc_s``) is the wall time of that call with an empty cache folder
  (C code generation, the C compiler, loading the libraries). ``--no-native`` or no C
  compiler: null. (The Jacobian the solver also builds is neither built nor timed here.)
* ``later_us``: the same with the machine code that later runs load from the cache: where
  ``native_us`` ran quick ``-O0`` code, its ``-O1`` upgrade, which that call started in the
  background (``acausal.run.native.start_upgrades``); ``upgrade_build_s`` is the wait for
  that build after ``native_us`` was timed (null: no upgrade; ``later_us`` then times the same
  code as ``native_us``).
* ``compile_s``: ``acausal.compile(model)``, once.

After the table: the exponent b of ``cost ~ N^b`` for instructions, vm_us, native_us and
later_us of the chain, fitted by least squares in log-log over the chain sizes from 20 to 100,
and the ratio instructions(100) / instructions(20) (and the same for the loop alone where there
is one).

Usage::

    python benchmarks/rhs_growth.py                    # chain N = 5 10 20 50 100, and the hand
    python benchmarks/rhs_growth.py --sizes 20 100 --no-native
    python benchmarks/rhs_growth.py --models chain     # the chain only
    python benchmarks/rhs_growth.py --json             # one JSON object on stdout, nothing else
    python benchmarks/rhs_growth.py --quick            # chain N = 3, 5 and the hand (smoke test)

Progress goes to stderr. The JSON object is ``{"records": [...], "fit": {...}}``; a record has
the keys of ``KEYS``, the fit those of ``FIT_KEYS`` (null where the sizes do not allow it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from typing import Any

import casadi as ca
import numpy as np

# the stdout redirection of --json, shared with the other benchmarks (this script's folder is
# on sys.path when it runs)
from compile_scaling import stdout_to_stderr

from acausal import compile
from acausal.base.c_compiler import CompilerNotFoundError, find_c_compiler
from acausal.components.multibody.chains import Hand, SpatialChain
from acausal.run import native, solver_functions
from acausal.run.buffers import Buffered

SIZES = (5, 10, 20, 50, 100)
QUICK_SIZES = (3, 5)
FIT_FROM, FIT_TO = 20, 100          # the range of N of the fitted exponent and of the ratio
BATCH_SECONDS = 0.02                # about this long per timed batch
BATCHES = 15
KEYS = ("model", "N", "states", "algebraic", "form", "instructions", "loop_instructions",
        "ode_instructions", "compile_s", "vm_us", "native_us", "native_build_s",
        "upgrade_build_s", "later_us", "note")
FIT_KEYS = ("sizes", "instructions_exponent", "vm_exponent", "native_exponent",
            "later_exponent", "instructions_ratio", "loop_ratio")


def build(model: str, n: int):
    """The component tree of ``model`` at size ``n`` (the hand has one size)."""
    if model == "chain":
        return SpatialChain(n=n, link_length=0.5, width=0.05, m=1.0, phi0=0.3)
    return Hand()


def counted_functions(cs) -> tuple[str, dict[str, ca.Function]]:
    """What one right-hand side evaluates, as SX functions whose instructions are counted:
    (form, {name: function})."""
    if cs.z.numel() == 0:
        return "ode", {"ode": ca.Function("f", [cs.t, cs.x, cs.p], [cs.ode])}
    if solver_functions.linear_in_algebraics(cs):
        zero = ca.DM.zeros(cs.z.numel())
        loop = ca.Function("linear_loop", [cs.t, cs.x, cs.p],
                           [solver_functions.algebraic_jacobian(cs),
                            ca.substitute(cs.alg, cs.z, zero)])
        ode = ca.Function("ode", [cs.t, cs.x, cs.z, cs.p], [cs.ode])
        return "linear loop", {"loop": loop, "ode": ode}
    return "dae", {"ode": ca.Function("res", [cs.t, cs.x, cs.z, cs.p], [cs.ode, cs.alg])}


def start_point(cs) -> np.ndarray:
    """The states' start values (0 where none is declared), the point the timings use."""
    out = np.zeros(cs.x.numel())
    for k, v in enumerate(cs.states):
        info = cs.system.info[v]
        start = getattr(info, "start", None) if info is not None else None
        if start is not None:
            try:
                out[k] = float(start)
            except (TypeError, ValueError):
                pass  # a start given by an expression: 0 is as good a point for timing
    return out


def rhs_function(form: str, functions: dict[str, ca.Function], cs) -> ca.Function:
    """The right-hand side ``rhs(t, x, p)`` CVODE evaluates, from ``functions`` (SX, or the
    same compiled to machine code): the ODE itself, or for a linear loop A and b, their LU
    solve and the ODE, in one MX function as ``acausal.run.sundials`` builds it (without the
    solver's scaling by the nominal values, n_x multiplications); a DAE's residual
    ``res(t, x, z, p)``."""
    if form != "linear loop":
        return functions["ode"]
    t, x, p = ca.MX.sym("t"), ca.MX.sym("x", cs.x.numel()), ca.MX.sym("p", cs.p.numel())
    a, b = functions["loop"](t, x, p)
    z = ca.solve(a, -b, solver_functions.LINEAR_SOLVER)
    return ca.Function("rhs", [t, x, p], [functions["ode"](t, x, z, p)])


def per_call_us(f: ca.Function, cs, x: np.ndarray) -> float:
    """Best of BATCHES batches: microseconds per evaluation of ``f`` (inputs t, x, p and for a
    DAE t, x, z, p) through a CasADi buffer at t = 0, the states ``x``, z = 0 and the default
    parameters."""
    buf = Buffered(f)
    values = {0: np.zeros(1), 1: x, f.n_in() - 1: np.asarray(cs.parameter_values, float)}
    for i, name in enumerate(f.name_in()):
        buf.arg[name][:] = values.get(i, 0.0)
    t0 = time.perf_counter()
    buf.raw()
    one = max(time.perf_counter() - t0, 1e-7)
    calls = max(20, int(BATCH_SECONDS / one))
    best = math.inf
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(calls):
            buf.raw()
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def measure(model: str, n: int, use_native: bool, log) -> dict[str, Any]:
    rec: dict[str, Any] = dict.fromkeys(KEYS)
    rec.update(model=model, N=n)
    tree = build(model, n)
    t0 = time.perf_counter()
    cs = compile(tree)
    rec["compile_s"] = time.perf_counter() - t0
    rec.update(states=int(cs.x.numel()), algebraic=int(cs.z.numel()))
    form, functions = counted_functions(cs)
    rec["form"] = form
    counts = {name: int(f.n_instructions()) for name, f in functions.items()}
    rec["instructions"] = sum(counts.values())
    rec["ode_instructions"] = counts["ode"]
    rec["loop_instructions"] = counts.get("loop")
    notes = []
    if form == "linear loop":
        notes.append(f"plus the LU of the {cs.z.numel()} x {cs.z.numel()} loop")
    elif form == "dae":
        notes.append("IDA residual")
    x = start_point(cs)
    print(f"{model} N = {n}: {form}, {rec['instructions']} instructions; timing ...",
          file=log, flush=True)
    rec["vm_us"] = per_call_us(rhs_function(form, functions, cs), cs, x)
    if use_native:
        before = os.environ.get(native.CACHE_ENV)
        with tempfile.TemporaryDirectory(prefix="acausal-rhs-growth-") as cache:
            os.environ[native.CACHE_ENV] = cache  # empty: the C compiler runs
            try:
                t0 = time.perf_counter()
                machine = dict(zip(functions, native.compiled(list(functions.values()))))
                rec["native_build_s"] = time.perf_counter() - t0
                rec["native_us"] = per_call_us(rhs_function(form, machine, cs), cs, x)
                # what later runs load: the -O1 upgrades of -O0 code, built in the background
                rec["upgrade_build_s"] = wait_for_upgrades(list(functions.values()))
                later = dict(zip(functions, native.compiled(list(functions.values()))))
                rec["later_us"] = per_call_us(rhs_function(form, later, cs), cs, x)
            finally:
                if before is None:
                    os.environ.pop(native.CACHE_ENV, None)
                else:
                    os.environ[native.CACHE_ENV] = before
    rec["note"] = "; ".join(notes) or None
    return rec


def wait_for_upgrades(functions: list) -> float | None:
    """Seconds until the background builds of ``functions``' -O1 upgrades
    (``native.start_upgrades``) are done; None where there are none."""
    pending = native.upgrades(native.plan(functions, find_c_compiler()))
    if not pending:
        return None
    t0 = time.perf_counter()
    for upgrade in pending:
        build = native.in_flight(upgrade.library)
        if build is not None:
            build.wait()
        if not upgrade.library.is_file():
            raise RuntimeError(f"the -O1 upgrade {upgrade.library} was not built")
    return time.perf_counter() - t0


def exponent(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(cost) against log(N); None below two sizes."""
    points = [(n, c) for n, c in points if c is not None and c > 0]
    if len({n for n, _ in points}) < 2:
        return None
    logn = np.log([n for n, _ in points])
    logc = np.log([c for _, c in points])
    return float(np.polyfit(logn, logc, 1)[0])


def fit(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The chain's growth between N = FIT_FROM and FIT_TO (see the module docstring)."""
    chain = [r for r in records if r["model"] == "chain" and FIT_FROM <= r["N"] <= FIT_TO]
    by_n = {r["N"]: r for r in chain}
    out: dict[str, Any] = dict.fromkeys(FIT_KEYS)
    out["sizes"] = sorted(by_n)
    for key, column in (("instructions_exponent", "instructions"), ("vm_exponent", "vm_us"),
                        ("native_exponent", "native_us"), ("later_exponent", "later_us")):
        out[key] = exponent([(r["N"], r[column]) for r in chain])
    if FIT_FROM in by_n and FIT_TO in by_n:
        lo, hi = by_n[FIT_FROM], by_n[FIT_TO]
        out["instructions_ratio"] = hi["instructions"] / lo["instructions"]
        if lo["loop_instructions"] and hi["loop_instructions"]:
            out["loop_ratio"] = hi["loop_instructions"] / lo["loop_instructions"]
    return out


def _fmt(value: Any, spec: str, width: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}{spec}}"


def print_table(records: list[dict[str, Any]], growth: dict[str, Any]) -> None:
    print(f"{'model':<6} {'N':>4} {'states':>6} {'z':>4} {'form':<12} {'instructions':>12} "
          f"{'loop':>8} {'ode':>8} {'compile_s':>9} {'vm_us':>9} {'native_us':>9} "
          f"{'cc_s':>7} {'later_us':>9}  note")
    for r in records:
        print(f"{r['model']:<6} {r['N']:>4} {r['states']:>6} {r['algebraic']:>4} "
              f"{r['form']:<12} {r['instructions']:>12d} "
              f"{_fmt(r['loop_instructions'], 'd', 8)} {r['ode_instructions']:>8d} "
              f"{r['compile_s']:>9.2f} {r['vm_us']:>9.1f} {_fmt(r['native_us'], '.1f', 9)} "
              f"{_fmt(r['native_build_s'], '.2f', 7)} {_fmt(r['later_us'], '.1f', 9)}  "
              f"{r['note'] or ''}")
    print()
    sizes = ", ".join(str(n) for n in growth["sizes"]) or "none"
    print(f"chain, fitted cost ~ N^b over N = {sizes} (from {FIT_FROM} to {FIT_TO}):")
    for label, key in (("instructions", "instructions_exponent"), ("vm_us", "vm_exponent"),
                       ("native_us", "native_exponent"), ("later_us", "later_exponent")):
        print(f"  {label:<13} b = {_fmt(growth[key], '.2f', 5)}")
    print(f"instructions({FIT_TO}) / instructions({FIT_FROM}) = "
          f"{_fmt(growth['instructions_ratio'], '.1f', 0)}"
          + ("" if growth["loop_ratio"] is None else
             f"  (the linear loop alone: {growth['loop_ratio']:.1f})"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=None,
                        help="numbers of chain links (default 5 10 20 50 100)")
    parser.add_argument("--models", nargs="+", choices=("chain", "hand"),
                        default=["chain", "hand"])
    parser.add_argument("--no-native", action="store_true",
                        help="do not compile the functions to machine code")
    parser.add_argument("--quick", action="store_true",
                        help="chain N = 3, 5 and the hand (smoke test)")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object on stdout, nothing else")
    args = parser.parse_args(argv)
    sizes = args.sizes or list(QUICK_SIZES if args.quick else SIZES)
    if min(sizes) < 1:
        parser.error("sizes must be positive")
    log = sys.stderr
    use_native = not args.no_native
    if use_native:
        try:
            find_c_compiler()
        except CompilerNotFoundError as err:
            print(f"no native code: {err}", file=log)
            use_native = False
    plan = [("chain", n) for n in sizes if "chain" in args.models]
    plan += [("hand", 21)] if "hand" in args.models else []
    with stdout_to_stderr(args.json):
        records = [measure(model, n, use_native, log) for model, n in plan]
    growth = fit(records)
    if args.json:
        print(json.dumps({"records": records, "fit": growth}))
    else:
        print_table(records, growth)
    return 0


if __name__ == "__main__":
    sys.exit(main())
